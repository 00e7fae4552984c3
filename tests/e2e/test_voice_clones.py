"""Voice clones end to end (spec 1, 2.6, 3.3, 4.5, 5, 6; CONTRACTS multipart `name` and `files[]`,
channel `private-voice-clones.{userId}`, event `voice_clone.updated`): a WAV of real speech (made
by the server's own speech engine, converted by ffmpeg) becomes a `pending` clone, a stock
pusher-js client sees it turn `ready` with the id format of its service, a template names the
clone's voice_id and its order speaks audio that decodes; the clone is invisible to another
account and refused in its templates; `voices.read` alone cannot create; no file, a PNG and a
JSON body are refused and change nothing; an order keeps speaking after its clone is archived."""

import os
import re
import secrets
import subprocess
import tempfile
import time
import unittest

from harness import E2ETestCase
from orders_support import OrderFixtures, decoded_duration_ms, download
from programs import program
from realtime_support import NodeClient, realtime_env

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"
SAMPLE_TEXT = ("Good evening. Tomorrow will be mild with a light wind from the west, and some rain is "
               "expected in the afternoon. Take an umbrella if you are going out.")


def multipart(fields, files):
    """A multipart/form-data body: fields [(name, text)], files [(name, filename, bytes)]."""
    boundary = "----mg" + secrets.token_hex(12)
    out = bytearray()
    for name, value in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        out += value.encode("utf-8") + b"\r\n"
    for name, filename, data in files:
        out += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n").encode()
        out += data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return {"Content-Type": f"multipart/form-data; boundary={boundary}"}, bytes(out)


def to_wav(mp3: bytes) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.mp3"), os.path.join(tmp, "out.wav")
        with open(src, "wb") as f:
            f.write(mp3)
        p = subprocess.run([program("ffmpeg"), "-loglevel", "error", "-y", "-i", src, "-ac", "1", "-ar", "22050",
                            "-c:a", "pcm_s16le", out], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"ffmpeg failed: {p.stderr}"
        with open(out, "rb") as f:
            return f.read()


class VoiceCloneTests(OrderFixtures, E2ETestCase):
    server_env = realtime_env(MEDIAGEN_WORKERS=2, MEDIAGEN_SWEEP_INTERVAL_MS=200)

    @classmethod
    def prepare(cls):
        cls.seed()

    def user_id(self, key):
        return self.assertSuccess(self.server.api("GET", "/user", key))["id"]

    def speech_mp3(self, key, service="provider_c"):
        """Real speech: an order of a catalogue voice, downloaded."""
        template = self.template(key, service)
        order = self.assertSuccess(self.create(key, template, SAMPLE_TEXT), 201)
        done = self.wait_order(key, order["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        return download(self.server, key, done["result"]["files"][0])

    def create_clone(self, key, service, name, files, extra_fields=()):
        headers, body = multipart([("name", name), *extra_fields], files)
        return self.server.api("POST", f"/voices/{service}/clones", key, headers=headers, body=body)

    def wait_clone(self, key, service, clone_id, statuses, timeout=120.0):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            last = self.assertSuccess(self.server.api("GET", f"/voices/{service}/clones/{clone_id}", key))
            if last["status"] in statuses:
                return last
            time.sleep(0.2)
        raise AssertionError(f"clone {clone_id} did not reach {statuses}: {last}")

    def clone_count(self):
        return int(self.h.psql_value("SELECT count(*) FROM voice_clones"))

    def test_a_wav_becomes_a_ready_clone_that_a_template_and_an_order_speak_with(self):
        user, key = self.account(balance=10_000_000)
        uid = self.user_id(key)
        wav = to_wav(self.speech_mp3(key))
        self.assertEqual(wav[:4], b"RIFF")
        channel = f"private-voice-clones.{uid}"
        with NodeClient(self.server, "pusher", key) as c:
            c.connected()
            c.subscribe(channel)
            c.wait_for(lambda m: m.get("type") == "subscribed" and m.get("channel") == channel, 30, "subscription")
            created = self.assertSuccess(self.create_clone(key, "provider_c", "Évening voice ☂", [
                ("files[]", "evening.wav", wav)]), 201)
            self.assertEqual(created["status"], "pending")
            self.assertNotIn("voice_id", created)
            self.assertEqual(created["name"], "Évening voice ☂")
            self.assertEqual(created["service"], "provider_c")
            self.assertTrue(UUID.match(created["id"]))
            ready = c.wait_for(lambda m: m.get("type") == "event" and m.get("event") == "voice_clone.updated"
                               and m["data"].get("status") in ("ready", "failed"), 180, "voice_clone.updated ready")
        self.assertEqual(ready["channel"], channel)
        data = ready["data"]
        self.assertEqual(data["status"], "ready", data)
        self.assertEqual(data["id"], created["id"])
        self.assertEqual(set(data), {"id", "service", "status", "voice_id", "name", "updated_at"})
        self.assertTrue(UUID.match(data["voice_id"]), data)
        self.assertIso(data["updated_at"])

        shown = self.assertSuccess(self.server.api("GET", f"/voices/provider_c/clones/{created['id']}", key))
        self.assertEqual((shown["status"], shown["voice_id"]), ("ready", data["voice_id"]))
        listing = self.assertSuccess(self.server.api("GET", "/voices/provider_c/clones", key))
        self.assertEqual([c["id"] for c in listing["items"]], [created["id"]])
        self.assertEqual((listing["current_page"], listing["last_page"], listing["per_page"], listing["total"]),
                         (1, 1, 20, 1))

        template = self.template(key, "provider_c", voice=data["voice_id"])
        order = self.assertSuccess(self.create(key, template, "This is my cloned voice speaking."), 201)
        done = self.wait_order(key, order["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        audio = download(self.server, key, done["result"]["files"][0])
        self.assertGreater(decoded_duration_ms(audio), 500)

        # Archived after the order was made: the order keeps the clone's profile and speaks.
        later = self.assertSuccess(self.create(key, template, "Spoken after the clone was archived."), 201)
        archived = self.assertSuccess(self.server.api("POST", f"/voices/provider_c/clones/{created['id']}/archive",
                                                      key))
        self.assertEqual(archived["status"], "archived")
        self.assertNotIn("voice_id", archived)
        done = self.wait_order(key, later["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        r = self.server.api("POST", "/templates", key, body={
            "service_key": "provider_c", "name": "again",
            "config": {"tts_settings": {"mode": "mode_v1", "model_id": "c-one", "voice_id": data["voice_id"]}}})
        self.assertEqual(r.status, 422, r)
        self.assertIn("config.tts_settings.voice_id", r.body["errors"])
        print(f"FIGURE clone ready from a {len(wav)}-byte WAV; order audio {decoded_duration_ms(audio):.0f} ms")

    def test_an_mp3_makes_a_provider_d_clone_with_a_32_hex_voice_id(self):
        _, key = self.account(balance=10_000_000)
        mp3 = self.speech_mp3(key, "provider_d")
        created = self.assertSuccess(self.create_clone(key, "provider_d", "D", [("files[]", "a.mp3", mp3)]), 201)
        ready = self.wait_clone(key, "provider_d", created["id"], {"ready", "failed"})
        self.assertEqual(ready["status"], "ready", ready)
        self.assertTrue(HEX32.match(ready["voice_id"]), ready)
        quota = self.assertSuccess(self.server.api("GET", "/voices/clones/quota", key))
        self.assertEqual(quota["subscription"], False)
        self.assertEqual([(q["service"], q["limit"], q["used"], q["remaining"]) for q in quota["services"]],
                         [("provider_c", 2, 1, 1), ("provider_d", 2, 1, 1)])

    def test_another_account_neither_sees_nor_speaks_with_a_clone(self):
        _, key = self.account(balance=10_000_000)
        _, other = self.account(balance=10_000_000)
        mp3 = self.speech_mp3(key)
        created = self.assertSuccess(self.create_clone(key, "provider_c", "Mine", [("files[]", "a.mp3", mp3)]), 201)
        ready = self.wait_clone(key, "provider_c", created["id"], {"ready", "failed"})
        self.assertEqual(ready["status"], "ready", ready)
        r = self.server.api("GET", f"/voices/provider_c/clones/{created['id']}", other)
        self.assertEqual(r.status, 404, r)
        self.assertEqual(self.server.api("POST", f"/voices/provider_c/clones/{created['id']}/archive", other).status,
                         404)
        self.assertEqual(self.assertSuccess(self.server.api("GET", "/voices/provider_c/clones", other))["total"], 0)
        r = self.server.api("POST", "/templates", other, body={
            "service_key": "provider_c", "name": "stolen",
            "config": {"tts_settings": {"mode": "mode_v1", "model_id": "c-one", "voice_id": ready["voice_id"]}}})
        self.assertEqual(r.status, 422, r)
        self.assertIn("config.tts_settings.voice_id", r.body["errors"])
        self.assertEqual(self.assertSuccess(self.server.api("GET", f"/voices/provider_c/clones/{created['id']}",
                                                            key))["status"], "ready")

    def test_refusals_change_nothing(self):
        user, key = self.account()
        _, reader = self.account(preset="read_only")
        before = self.clone_count()
        wav = b"RIFF" + (36).to_bytes(4, "little") + b"WAVEfmt " + bytes(28)
        r = self.create_clone(reader, "provider_c", "x", [("files[]", "a.wav", wav)])
        self.assert403(r, "voices.write")
        r = self.create_clone(key, "provider_c", "No file", [])
        self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_required"), r)
        r = self.create_clone(key, "provider_d", "Picture", [("files[]", "voice.wav", PNG)])
        self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_unsupported"), r)
        r = self.server.api("POST", "/voices/provider_c/clones", key, body={"name": "json"})
        self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_required"), r)
        r = self.create_clone(key, "provider_c", "", [("files[]", "a.png", PNG)])
        self.assertEqual(r.status, 422, r)
        self.assertIn("name", r.body["errors"])
        self.assertEqual(self.clone_count(), before)
        self.assertEqual(self.server.api("GET", "/voices/provider_c/clones", reader).status, 200)
        self.assertEqual(self.server.api("GET", "/voices/clones/quota", reader).status, 200)


if __name__ == "__main__":
    unittest.main()
