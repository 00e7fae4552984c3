"""The OpenAI-compatible speech surface (CONTRACTS "Fixed choices"; openapi /v1/...): Bearer keys
on /v1 only, OpenAI's error shape for every refusal, each call an order billed through the ledger
and listed in GET /orders, the audio streamed back in mp3, wav, pcm, opus, flac and aac that an
independent decoder (ffmpeg) plays. Refusals write nothing. The ledger invariants run after
every test."""

import json
import socket
import unittest

from compat_support import SPEECH_TEXT, bearer, decoded_pcm, decoded_samples, first_voice
from harness import E2ETestCase
from orders_support import OrderFixtures, download, ledger_snapshot

MODEL = "provider_b/b-standard"


class CompatSpeechTests(OrderFixtures, E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def speak(self, key, **body):
        return bearer(self.server, "POST", "/v1/audio/speech", key, body=body)

    def assertOpenAiError(self, r, status, type_, code=None, param=None):
        self.assertEqual(r.status, status, r)
        self.assertIn("application/json", r.headers.get("content-type", ""))
        self.assertEqual(set(r.body), {"error"}, r)
        error = r.body["error"]
        self.assertEqual(set(error), {"message", "type", "param", "code"}, r)
        self.assertTrue(error["message"], r)
        self.assertEqual(error["type"], type_, r)
        if code is not None:
            self.assertEqual(error["code"], code, r)
        if param is not None:
            self.assertEqual(error["param"], param, r)

    # -- authentication and listings

    def test_the_surface_takes_a_bearer_key_and_only_that(self):
        _, key = self.account(balance=10_000)
        self.assertEqual(bearer(self.server, "GET", "/v1/models", key).status, 200)
        by_header = self.server.request("GET", "/v1/models", {"X-API-KEY": key})
        self.assertOpenAiError(by_header, 401, "invalid_request_error", code="invalid_api_key")
        self.assertOpenAiError(bearer(self.server, "GET", "/v1/models", "mg_" + "x" * 43), 401,
                               "invalid_request_error", code="invalid_api_key")
        # The spec's API keeps X-API-KEY alone: a Bearer key there is a missing key.
        r = self.server.request("GET", "/api/orders", {"Authorization": f"Bearer {key}"})
        self.assertEqual(r.status, 401)
        self.assertIn("success", r.body)

    def test_models_list_service_models_and_own_templates(self):
        _, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        r = bearer(self.server, "GET", "/v1/models", key)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body["object"], "list")
        ids = {m["id"] for m in r.body["data"]}
        self.assertIn(MODEL, ids)
        self.assertIn(template, ids)
        self.assertTrue(all(m["object"] == "model" for m in r.body["data"]))

    def test_voices_of_a_model_and_an_unknown_model(self):
        _, key = self.account(balance=10_000)
        r = bearer(self.server, "GET", f"/v1/audio/voices?model={MODEL}", key)
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.body["voices"])
        self.assertTrue(all(v["service"] == "provider_b" for v in r.body["voices"]))
        self.assertOpenAiError(bearer(self.server, "GET", "/v1/audio/voices?model=nope/none", key), 404,
                               "invalid_request_error", code="model_not_found")

    # -- speech

    def test_speech_in_every_format_is_an_order_billed_and_listed(self):
        user, key = self.account(balance=100_000)
        voice = first_voice(self.server, key, MODEL)
        for fmt in ("mp3", "wav", "pcm", "opus", "flac", "aac"):
            with self.subTest(fmt=fmt):
                before = self.balance(user["id"])
                r = self.speak(key, model=MODEL, voice=voice, input=SPEECH_TEXT, response_format=fmt)
                self.assertEqual(r.status, 200, r)
                self.assertNotIn("content-length", r.headers)
                self.assertEqual(r.headers.get("transfer-encoding"), "chunked")
                samples = decoded_samples(r.raw, fmt)
                self.assertGreater(samples, 24000, "under a second of speech")
                order_id = r.headers["x-order-id"]
                order = self.wait_order(key, order_id, {"completed", "result_delivered"})
                self.assertEqual(order["task_type"], "tts")
                self.assertIsNone(order["template_id"])
                self.assertGreater(order["price_units"], 0)
                self.assertEqual(self.balance(user["id"]), before - order["price_units"])
                listed = self.server.api("GET", "/orders?per_page=100", key).body["data"]["items"]
                self.assertIn(order_id, [o["id"] for o in listed])
        charges = self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}")
        self.assertEqual(charges, "6")

    def test_a_template_model_speaks_with_its_voice_or_an_override(self):
        _, key = self.account(balance=100_000)
        template = self.template(key, "provider_b")
        r = self.speak(key, model=template, input=SPEECH_TEXT)
        self.assertEqual(r.status, 200, r)
        self.assertGreater(decoded_samples(r.raw, "mp3"), 24000)
        order = self.wait_order(key, r.headers["x-order-id"], {"completed", "result_delivered"})
        self.assertEqual(order["template_id"], template)
        voice = first_voice(self.server, key, MODEL)
        r = self.speak(key, model=template, input=SPEECH_TEXT, voice=voice, speed=1.5)
        self.assertEqual(r.status, 200, r)

    def test_a_long_text_streams_every_chunk(self):
        _, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        text = " ".join(f"Sentence number {i} of a long text that the order cuts into chunks." for i in range(60))
        r = self.speak(key, model=MODEL, voice=voice, input=text)
        self.assertEqual(r.status, 200, r)
        order = self.wait_order(key, r.headers["x-order-id"], {"completed", "result_delivered"})
        self.assertGreater(len(self.server.api("GET", f"/orders/{order['id']}/items", key).body["data"]), 1)
        # Every chunk's audio is in the answer: as long as the stitched track.
        self.assertGreater(decoded_samples(r.raw, "mp3"), 24000 * (order["result"].get("duration_ms", 0) or 0) / 1000 * 0.9)

    def test_the_first_sentence_is_made_first_and_the_stream_is_the_stitched_audio(self):
        _, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        sentences = [f"Sentence number {i} of a long text that the order cuts into chunks." for i in range(60)]
        r = self.speak(key, model=MODEL, voice=voice, input=" ".join(sentences), response_format="mp3")
        self.assertEqual(r.status, 200, r)
        order = self.wait_order(key, r.headers["x-order-id"], {"completed", "result_delivered"})
        items = sorted(self.server.api("GET", f"/orders/{order['id']}/items", key).body["data"],
                       key=lambda i: i["chunk_index"])
        # The lead chunk is the first sentence; the rest is packed to the model's capacity (3,000).
        self.assertEqual(len(items), 3, items)
        lead = self.server.api("GET", f"/orders/{order['id']}/items/{items[0]['id']}/text", key).body["data"]
        self.assertEqual(lead["text"], sentences[0])
        # The bill: every character but the two separators cut between chunks.
        self.assertEqual(order["tokens_from_quota"] + order["tokens_from_payg"], len(" ".join(sentences)) - 2, order)
        # What was streamed decodes to the very samples of the order's stitched result.
        streamed = decoded_pcm(r.raw, "mp3")
        stitched = decoded_pcm(download(self.server, key, order["result"]["files"][0]), "mp3")
        self.assertGreater(len(stitched), 24000 * 2 * 10)
        self.assertEqual(len(streamed), len(stitched))
        self.assertTrue(streamed == stitched, "the streamed audio differs from the stitched result")

    def test_an_http10_client_gets_the_audio_ended_by_the_close(self):
        _, key = self.account(balance=100_000)
        voice = first_voice(self.server, key, MODEL)
        body = json.dumps({"model": MODEL, "voice": voice, "input": SPEECH_TEXT}).encode()
        head = (f"POST /v1/audio/speech HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        with socket.create_connection(self.server.public, timeout=120) as s:
            s.sendall(head + body)
            raw = b""
            while chunk := s.recv(65536):
                raw += chunk
        header, _, audio = raw.partition(b"\r\n\r\n")
        self.assertTrue(header.startswith(b"HTTP/1.0 200"), header)
        self.assertNotIn(b"transfer-encoding", header.lower())
        self.assertNotIn(b"content-length", header.lower())
        self.assertGreater(decoded_samples(audio, "mp3"), 24000)

    def test_a_client_that_goes_away_ends_its_order(self):
        user, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        text = " ".join(f"Sentence number {i} of a text its client will not wait for." for i in range(60))
        body = json.dumps({"model": MODEL, "voice": voice, "input": text}).encode()
        head = (f"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        with socket.create_connection(self.server.public, timeout=120) as s:
            s.sendall(head + body)
            first = s.recv(4096)
        self.assertTrue(first.startswith(b"HTTP/1.1 200"), first[:200])
        order_id = self.h.psql_value(f"SELECT id FROM orders WHERE user_id = {user['id']}")
        self.assertIn(f"x-order-id: {order_id}".encode(), first.lower())
        # Its answer was the order's only way out: the chunks it did not receive are not charged
        # (test_compat_speech_failures.py checks the money).
        order = self.wait_order(key, order_id, {"completed", "result_delivered", "failed"}, timeout=120)
        self.assertEqual((order["status"], order["failure_reason"]), ("failed", "not_delivered"))
        self.assertTrue(self.server.healthy())

    # -- refusals: OpenAI's shape, nothing written

    def test_refusals_are_in_openai_shape_and_write_nothing(self):
        user, key = self.account(balance=100_000)
        voice = first_voice(self.server, key, MODEL)
        before = ledger_snapshot(self.h)
        cases = [
            ({"voice": voice, "input": SPEECH_TEXT}, 400, "invalid_request_error", None, "model"),
            ({"model": MODEL, "voice": voice}, 400, "invalid_request_error", None, "input"),
            ({"model": MODEL, "input": SPEECH_TEXT}, 400, "invalid_request_error", None, "voice"),
            ({"model": MODEL, "voice": voice, "input": 5}, 400, "invalid_request_error", None, "input"),
            ({"model": MODEL, "voice": voice, "input": SPEECH_TEXT, "speed": 4.5}, 400, "invalid_request_error", None, "speed"),
            ({"model": MODEL, "voice": voice, "input": SPEECH_TEXT, "speed": "fast"}, 400, "invalid_request_error", None, "speed"),
            ({"model": MODEL, "voice": voice, "input": SPEECH_TEXT, "response_format": "ogg"}, 400,
             "invalid_request_error", None, "response_format"),
            ({"model": MODEL, "voice": voice, "input": SPEECH_TEXT, "stream_format": "sse"}, 400,
             "invalid_request_error", None, "stream_format"),
            ({"model": MODEL, "voice": voice, "input": "[only brackets]"}, 400, "invalid_request_error", None, "input"),
            ({"model": "provider_b/nope", "voice": voice, "input": SPEECH_TEXT}, 404, "invalid_request_error",
             "model_not_found", "model"),
            ({"model": "00000000-0000-4000-8000-000000000000", "input": SPEECH_TEXT}, 404, "invalid_request_error",
             "model_not_found", "model"),
            ({"model": MODEL, "voice": "no-such-voice", "input": SPEECH_TEXT}, 404, "invalid_request_error",
             "voice_not_found", "voice"),
        ]
        for body, status, type_, code, param in cases:
            with self.subTest(body=body):
                self.assertOpenAiError(self.speak(key, **body), status, type_, code=code, param=param)
        r = bearer(self.server, "POST", "/v1/audio/speech", key, body="{not json",
                   headers={"Content-Type": "application/json"})
        self.assertOpenAiError(r, 400, "invalid_request_error")
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "0")

    def test_a_key_without_orders_write_gets_403(self):
        _, full = self.account(balance=100_000)
        voice = first_voice(self.server, full, MODEL)
        user, _ = self.account(balance=100_000)
        read_only = self.h.create_key(user["id"], preset="read_only")["key"]
        r = self.speak(read_only, model=MODEL, voice=voice, input=SPEECH_TEXT)
        self.assertOpenAiError(r, 403, "permission_error", code="missing_scope")
        self.assertEqual(bearer(self.server, "GET", "/v1/models", read_only).status, 200)

    def test_an_empty_balance_gets_402_and_a_token_window_429(self):
        user, key = self.account(balance=0)
        voice = first_voice(self.server, key, MODEL)
        rich, _ = self.account(balance=100_000)
        windowed = self.h.create_key(rich["id"], preset="full", tokens_per_minute="10")["key"]
        before = ledger_snapshot(self.h)
        self.assertOpenAiError(self.speak(key, model=MODEL, voice=voice, input=SPEECH_TEXT), 402,
                               "insufficient_quota", code="insufficient_balance")
        r = self.speak(windowed, model=MODEL, voice=voice, input=SPEECH_TEXT)
        self.assertOpenAiError(r, 429, "tokens", code="token_quota_exceeded")
        self.assertGreater(int(r.headers["retry-after"]), 0)
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_an_idempotency_key_replays_the_same_order(self):
        user, key = self.account(balance=100_000)
        voice = first_voice(self.server, key, MODEL)
        body = {"model": MODEL, "voice": voice, "input": SPEECH_TEXT}
        first = bearer(self.server, "POST", "/v1/audio/speech", key, body=body, headers={"Idempotency-Key": "k-1"})
        again = bearer(self.server, "POST", "/v1/audio/speech", key, body=body, headers={"Idempotency-Key": "k-1"})
        self.assertEqual((first.status, again.status), (200, 200))
        self.assertEqual(first.headers["x-order-id"], again.headers["x-order-id"])
        self.assertEqual(again.headers.get("idempotent-replayed"), "true")
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "1")


if __name__ == "__main__":
    unittest.main()
