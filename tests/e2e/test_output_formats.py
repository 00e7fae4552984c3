"""Output formats of native orders (POST /orders `output_format`, ElevenLabs' names): the
stitched track, each chunk's file and the links follow the format, and what comes back decodes
as that format with the order's length; sound effects take it too; an order retry keeps it; a
name outside the list is 422 with nothing charged. The ledger invariants run after every test."""

import unittest

from elevenlabs_support import decoded_seconds, probe
from harness import E2ETestCase
from orders_support import OrderFixtures, download, ledger_snapshot

PARAGRAPH = {"generation_mode": "paragraph"}
THREE = ("The first paragraph is short.\n\nThe second paragraph says a little more than the first.\n\n"
         "The third paragraph ends the order.")

# format -> (file extension, ffmpeg demuxer and its options)
FORMATS = {
    "opus_48000_64": ("ogg", "ogg", ()),
    "pcm_16000": ("pcm", "s16le", ("-ar", "16000", "-ac", "1")),
    "mp3_44100_128": ("mp3", "mp3", ()),
    "ulaw_8000": ("ulaw", "mulaw", ("-ar", "8000", "-ac", "1")),
}


class OutputFormatTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "2"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def finished(self, key, body):
        r = self.server.api("POST", "/orders", key, body=body)
        self.assertEqual(r.status, 201, r)
        return self.wait_order(key, r.body["data"]["id"], {"completed"}, timeout=120)

    def assertPlays(self, key, path, fmt, seconds):
        ext, demuxer, options = FORMATS[fmt]
        self.assertTrue(path.endswith("." + ext), path)
        audio = download(self.server, key, path)
        self.assertAlmostEqual(decoded_seconds(audio, demuxer, options), seconds, delta=0.15)
        return audio

    def test_an_opus_order_stitches_downloads_and_decodes(self):
        _, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.finished(key, {"template_id": template, "input_text": THREE, "config_override": PARAGRAPH,
                                    "output_format": "opus_48000_64"})
        self.assertEqual(len(order["items"]), 3)
        seconds = order["result"]["duration_ms"] / 1000
        track = self.assertPlays(key, order["result"]["files"][0], "opus_48000_64", seconds)
        stream, _ = probe(track, "ogg")
        self.assertEqual((stream["codec_name"], stream["sample_rate"], stream["channels"]), ("opus", "48000", 1))
        for item in order["items"]:
            path = item["result_file"]["path"]
            self.assertTrue(path.endswith(".opus_48000_64.ogg"), path)
            self.assertPlays(key, path, "opus_48000_64", item["duration_ms"] / 1000)
        self.assertTrue(any(p.endswith("result.timings.json") for p in order["result"]["service_files"]))

    def test_pcm_and_mp3_tracks_in_their_formats(self):
        _, key = self.account(balance=100_000)
        template = self.template(key)
        for fmt in ("pcm_16000", "mp3_44100_128"):
            with self.subTest(fmt=fmt):
                order = self.finished(key, {"template_id": template, "input_text": THREE, "output_format": fmt})
                track = self.assertPlays(key, order["result"]["files"][0], fmt, order["result"]["duration_ms"] / 1000)
                if fmt == "mp3_44100_128":
                    stream, _ = probe(track, "mp3")
                    self.assertEqual((stream["sample_rate"], stream["bit_rate"]), ("44100", "128000"))
                else:
                    self.assertEqual(len(track) % 2, 0)

    def test_a_sound_effect_in_ulaw_and_a_retry_keeps_the_format(self):
        _, key = self.account(balance=100_000)
        order = self.finished(key, {"task_type": "sfx", "task_data": {"text": "a door slams", "duration_seconds": 2},
                                    "output_format": "ulaw_8000"})
        self.assertPlays(key, order["result"]["files"][0], "ulaw_8000", 2.0)
        r = self.server.api("POST", f"/orders/{order['id']}/retry", key, body={})
        self.assertEqual(r.status, 201, r)
        again = self.wait_order(key, r.body["data"]["id"], {"completed"}, timeout=120)
        self.assertPlays(key, again["result"]["files"][0], "ulaw_8000", 2.0)

    def test_an_unknown_format_is_422_and_charges_nothing(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        before = ledger_snapshot(self.h)
        for bad in ("wav_44100", "MP3_44100_128", 128, ""):
            r = self.server.api("POST", "/orders", key, body={"template_id": template, "input_text": THREE,
                                                              "output_format": bad})
            self.assertEqual(r.status, 422, r)
            self.assertIn("output_format", r.body["errors"], r)
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertEqual(int(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}")), 0)


if __name__ == "__main__":
    unittest.main()
