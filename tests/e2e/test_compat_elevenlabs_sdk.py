"""ElevenLabs' official JavaScript SDK (npm @elevenlabs/elevenlabs-js, unchanged, installed by
elevenlabs_sdk/ensure.sh) against the ElevenLabs-compatible surface, with baseUrl pointed at
mediagen and a mediagen key as xi-api-key: the voice and model listings parse, speech comes back
in the asked format (MP3 frames at 44.1 kHz and 128 kbit/s; pcm_16000 as long as the audio), the
timestamps spell the spoken text and end with the audio, the streamed variants start before the
last chunk is made, a sound effect decodes, and refusals come back in ElevenLabs' error shape with
nothing charged. Every call that makes audio is an order listed under its request-id. The ledger
invariants run after every test."""

import time
import unittest

from elevenlabs_support import SPOKEN, decoded_seconds, ensure_sdk, probe, sdk_call
from harness import E2ETestCase
from orders_support import OrderFixtures, ledger_snapshot


class ElevenLabsSdkTests(OrderFixtures, E2ETestCase):

    @classmethod
    def prepare(cls):
        ensure_sdk()
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def voice(self, key):
        report, _ = sdk_call(self.server, key, "voices.getAll")
        self.assertTrue(report["ok"], report)
        english = [v for v in report["data"]["voices"]
                   if v["labels"].get("service") == "provider_b" and v["labels"].get("language") == "en"]
        self.assertTrue(english, report["data"]["voices"][:3])
        return english[0]["voiceId"]

    def listed(self, key, order_id):
        ids = [o["id"] for o in self.server.api("GET", "/orders?per_page=100", key).body["data"]["items"]]
        self.assertIn(order_id, ids)

    def chunks_made_at(self, order_id):
        """When each chunk of the order was completed (ms since the epoch), by chunk_index."""
        rows = self.h.psql_rows(
            f"SELECT chunk_index, (extract(epoch FROM updated_at) * 1000)::bigint FROM order_items"
            f" WHERE order_id = '{order_id}' AND status = 'completed' ORDER BY chunk_index")
        return [int(ms) for _, ms in rows]

    def test_listings_parse_in_the_sdk(self):
        _, key = self.account(balance=100_000)
        report, _ = sdk_call(self.server, key, "voices.getAll")
        self.assertTrue(report["ok"], report)
        voices = report["data"]["voices"]
        self.assertGreater(len(voices), 10)
        self.assertEqual({v["category"] for v in voices}, {"premade"})

        page, _ = sdk_call(self.server, key, "voices.search", {"pageSize": 5})
        self.assertTrue(page["ok"], page)
        self.assertEqual(len(page["data"]["voices"]), 5)
        self.assertTrue(page["data"]["hasMore"])
        self.assertEqual(page["data"]["totalCount"], len(voices))
        second, _ = sdk_call(self.server, key, "voices.search",
                             {"pageSize": 5, "nextPageToken": page["data"]["nextPageToken"]})
        self.assertEqual([v["voiceId"] for v in second["data"]["voices"]], [v["voiceId"] for v in voices[5:10]])

        one, _ = sdk_call(self.server, key, "voices.get", {"voiceId": voices[3]["voiceId"]})
        self.assertEqual(one["data"]["voiceId"], voices[3]["voiceId"])

        models, _ = sdk_call(self.server, key, "models.list")
        self.assertTrue(models["ok"], models)
        ids = [m["modelId"] for m in models["data"]]
        self.assertIn("provider_b/b-standard", ids)
        self.assertTrue(all(m["canDoTextToSpeech"] for m in models["data"]))
        self.assertTrue(all(m["languages"] for m in models["data"]))

        sub, _ = sdk_call(self.server, key, "user.subscription.get")
        self.assertTrue(sub["ok"], sub)
        self.assertEqual(sub["data"]["status"], "free")

    def test_convert_in_mp3_44100_128_and_pcm_16000(self):
        _, key = self.account(balance=100_000)
        voice = self.voice(key)
        report, audio = sdk_call(self.server, key, "textToSpeech.convert",
                                 {"voiceId": voice, "request": {"text": SPOKEN, "outputFormat": "mp3_44100_128"}},
                                 want_audio=True)
        self.assertTrue(report["ok"], report)
        stream, _ = probe(audio, "mp3")
        self.assertEqual((stream["codec_name"], stream["sample_rate"], stream["bit_rate"]), ("mp3", "44100", "128000"))
        self.assertGreater(decoded_seconds(audio, "mp3"), 3.0)
        order = self.wait_order(key, report["request_id"], {"completed", "result_delivered"})
        self.assertGreater(order["price_units"], 0)
        self.listed(key, order["id"])

        report, pcm = sdk_call(self.server, key, "textToSpeech.convert",
                               {"voiceId": voice, "request": {"text": SPOKEN, "outputFormat": "pcm_16000"}},
                               want_audio=True)
        self.assertTrue(report["ok"], report)
        order = self.wait_order(key, report["request_id"], {"completed", "result_delivered"})
        self.listed(key, order["id"])
        made_ms = sum(i["duration_ms"] for i in order["items"] if i["status"] == "completed")
        self.assertEqual(len(pcm) % 2, 0)
        self.assertAlmostEqual(len(pcm) / 2 / 16000, made_ms / 1000, delta=0.05)

    def test_timestamps_spell_the_text_and_end_with_the_audio(self):
        _, key = self.account(balance=100_000)
        voice = self.voice(key)
        report, audio = sdk_call(self.server, key, "textToSpeech.convertWithTimestamps",
                                 {"voiceId": voice, "request": {"text": SPOKEN}}, want_audio=True)
        self.assertTrue(report["ok"], report)
        self.listed(key, report["request_id"])
        alignment = report["data"]["alignment"]
        self.assertEqual("".join(alignment["characters"]), SPOKEN)
        starts, ends = alignment["characterStartTimesSeconds"], alignment["characterEndTimesSeconds"]
        self.assertEqual(len(starts), len(SPOKEN))
        self.assertEqual(starts, sorted(starts))
        self.assertEqual(ends, sorted(ends))
        self.assertTrue(all(s <= e for s, e in zip(starts, ends)))
        plain = decoded_seconds(audio, "mp3")
        self.assertLess(abs(ends[-1] - plain), 0.3)
        self.assertEqual(report["data"]["normalizedAlignment"], alignment)

        # A break tag is a pause of its length, not text: the characters skip it, the audio grows.
        first, rest = SPOKEN.split(" ", 1)
        report, paused = sdk_call(self.server, key, "textToSpeech.convertWithTimestamps",
                                  {"voiceId": voice, "request": {"text": f'{first} <break time="1.5s" />{rest}'}},
                                  want_audio=True)
        self.assertTrue(report["ok"], report)
        self.assertEqual("".join(report["data"]["alignment"]["characters"]), f"{first} {rest}")
        self.assertGreater(decoded_seconds(paused, "mp3") - plain, 1.3)

    def test_streams_start_before_the_last_chunk_is_made(self):
        _, key = self.account(balance=100_000)
        voice = self.voice(key)
        text = " ".join([SPOKEN] * 6)
        for call in ("textToSpeech.stream", "textToSpeech.streamWithTimestamps"):
            with self.subTest(call=call):
                report, audio = sdk_call(self.server, key, call, {"voiceId": voice, "request": {"text": text}},
                                         want_audio=True)
                self.assertTrue(report["ok"], report)
                self.wait_order(key, report["request_id"], {"completed", "result_delivered"})
                made = self.chunks_made_at(report["request_id"])
                self.assertGreaterEqual(len(made), 2)
                self.assertLess(report["pieces"][0]["at"], made[-1])
                self.assertGreater(decoded_seconds(audio, "mp3"), 10.0)
                self.listed(key, report["request_id"])
                if call.endswith("WithTimestamps"):
                    chars = [c for p in report["pieces"] if p["alignment"] for c in p["alignment"]["characters"]]
                    self.assertEqual("".join(chars), text)
                    starts = [s for p in report["pieces"] if p["alignment"]
                              for s in p["alignment"]["characterStartTimesSeconds"]]
                    self.assertEqual(starts, sorted(starts))

    def test_sound_effect_decodes(self):
        _, key = self.account(balance=100_000)
        report, audio = sdk_call(self.server, key, "textToSoundEffects.convert",
                                 {"request": {"text": "a door slams shut", "durationSeconds": 2.0}}, want_audio=True)
        self.assertTrue(report["ok"], report)
        self.assertAlmostEqual(decoded_seconds(audio, "mp3"), 2.0, delta=0.2)
        order = self.wait_order(key, report["request_id"], {"completed", "result_delivered"})
        self.assertEqual(order["task_type"], "sfx")
        self.listed(key, order["id"])

    def test_music_decodes(self):
        _, key = self.account(balance=100_000)
        report, audio = sdk_call(self.server, key, "music.compose",
                                 {"request": {"prompt": "a calm piano piece", "musicLengthMs": 6000}}, want_audio=True)
        self.assertTrue(report["ok"], report)
        self.assertAlmostEqual(decoded_seconds(audio, "mp3"), 6.0, delta=0.5)
        order = self.wait_order(key, report["request_id"], {"completed", "result_delivered"})
        self.assertEqual(order["task_type"], "music")
        self.listed(key, order["id"])

    def test_refusals_in_elevenlabs_shape_with_nothing_charged(self):
        _, key = self.account(balance=100_000)
        voice = self.voice(key)
        broke_user, broke = self.account(balance=0)
        before = ledger_snapshot(self.h)
        request = {"text": SPOKEN}

        report, _ = sdk_call(self.server, key, "textToSpeech.convert", {"voiceId": "no-such-voice", "request": request})
        self.assertEqual((report["class"], report["status"]), ("ElevenLabsError", 404), report)
        self.assertEqual(report["body"]["detail"]["status"], "voice_not_found")

        report, _ = sdk_call(self.server, "mg_" + "x" * 43, "textToSpeech.convert", {"voiceId": voice, "request": request})
        self.assertEqual((report["status"], report["body"]["detail"]["status"]), (401, "invalid_api_key"), report)

        report, _ = sdk_call(self.server, broke, "textToSpeech.convert", {"voiceId": voice, "request": request})
        self.assertEqual((report["status"], report["body"]["detail"]["status"]), (402, "insufficient_balance"), report)

        report, _ = sdk_call(self.server, key, "textToSpeech.convert",
                             {"voiceId": voice, "request": {"text": SPOKEN, "voiceSettings": {"speed": 3}}})
        self.assertEqual((report["class"], report["status"]), ("UnprocessableEntityError", 422), report)
        self.assertEqual(report["body"]["detail"]["status"], "invalid_voice_settings_speed")

        self.assertEqual(ledger_snapshot(self.h), before)
        orders = self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {broke_user['id']}")
        self.assertEqual(int(orders), 0)


if __name__ == "__main__":
    unittest.main()
