"""OpenAI's official JavaScript SDK (npm `openai`, unchanged, installed by openai_sdk/ensure.sh)
against the compatible surface: audio.speech.create with base URL http://127.0.0.1:PORT/v1 and
a mediagen key returns audio that ffmpeg decodes, for mp3, wav, opus, flac and pcm; the order is
in GET /orders and its price in the ledger; a key without orders.write, an empty balance and a
token window come back as the SDK's error classes with OpenAI's error shape. The ledger
invariants run after every test."""

import json
import os
import subprocess
import tempfile
import unittest

from compat_support import SPEECH_TEXT, decoded_samples, first_voice
from harness import E2ETestCase
from orders_support import OrderFixtures, ledger_snapshot
from programs import program

SDK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openai_sdk")
MODEL = "provider_b/b-standard"


class OpenAiSdkTests(OrderFixtures, E2ETestCase):

    @classmethod
    def prepare(cls):
        p = subprocess.run([program("bash"), os.path.join(SDK_DIR, "ensure.sh")], capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0:
            raise AssertionError(f"openai_sdk/ensure.sh failed: {p.stderr[-2000:]}")
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def sdk(self, key, request):
        """Runs audio.speech.create through the SDK: (its JSON report, the audio bytes or None)."""
        host, port = self.server.public
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "speech.bin")
            args = {"baseURL": f"http://{host}:{port}/v1", "apiKey": key, "out": out, "request": request}
            p = subprocess.run([program("node"), os.path.join(SDK_DIR, "speech.mjs"), json.dumps(args)], cwd=SDK_DIR,
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            report = json.loads(p.stdout.strip().splitlines()[-1])
            audio = None
            if report["ok"]:
                with open(out, "rb") as f:
                    audio = f.read()
            return report, audio

    def assertSdkError(self, report, cls, status, type_, code):
        self.assertFalse(report["ok"], report)
        self.assertEqual((report["class"], report["status"]), (cls, status), report)
        self.assertEqual(set(report["error"]), {"message", "type", "param", "code"}, report)
        self.assertEqual((report["error"]["type"], report["error"]["code"]), (type_, code), report)

    def test_the_sdk_gets_audio_that_decodes_in_every_format(self):
        user, key = self.account(balance=100_000)
        voice = first_voice(self.server, key, MODEL)
        for fmt in ("mp3", "wav", "opus", "flac", "pcm"):
            with self.subTest(fmt=fmt):
                before = self.balance(user["id"])
                report, audio = self.sdk(key, {"model": MODEL, "voice": voice, "input": SPEECH_TEXT,
                                               "response_format": fmt})
                self.assertTrue(report["ok"], report)
                self.assertGreater(decoded_samples(audio, fmt), 24000)
                order = self.wait_order(key, report["order_id"], {"completed", "result_delivered"})
                listed = self.server.api("GET", "/orders?per_page=100", key).body["data"]["items"]
                self.assertIn(order["id"], [o["id"] for o in listed])
                self.assertGreater(order["price_units"], 0)
                self.assertEqual(self.balance(user["id"]), before - order["price_units"])
                debits = self.h.psql_value(
                    f"SELECT count(*) FROM ledger_txns WHERE order_id = '{order['id']}'")
                self.assertGreater(int(debits), 0)

    def test_refusals_reach_the_sdk_as_its_error_classes(self):
        _, full = self.account(balance=100_000)
        voice = first_voice(self.server, full, MODEL)
        request = {"model": MODEL, "voice": voice, "input": SPEECH_TEXT}
        user, _ = self.account(balance=100_000)
        read_only = self.h.create_key(user["id"], preset="read_only")["key"]
        _, broke = self.account(balance=0)
        rich, _ = self.account(balance=100_000)
        windowed = self.h.create_key(rich["id"], preset="full", tokens_per_minute="10")["key"]
        before = ledger_snapshot(self.h)

        report, _ = self.sdk(read_only, request)
        self.assertSdkError(report, "PermissionDeniedError", 403, "permission_error", "missing_scope")

        report, _ = self.sdk(broke, request)
        self.assertSdkError(report, "APIError", 402, "insufficient_quota", "insufficient_balance")

        report, _ = self.sdk(windowed, request)
        self.assertSdkError(report, "RateLimitError", 429, "tokens", "token_quota_exceeded")
        self.assertGreater(int(report["retry_after"]), 0)

        report, _ = self.sdk("mg_" + "x" * 43, request)
        self.assertSdkError(report, "AuthenticationError", 401, "invalid_request_error", "invalid_api_key")
        self.assertEqual(ledger_snapshot(self.h), before)


if __name__ == "__main__":
    unittest.main()
