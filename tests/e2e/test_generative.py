"""Sound effects and music end to end (spec 1, 2.3, 3.2, 4.1.1, 4.2; CONTRACTS "Fixed choices"):
orders made without a template complete with real audio that an independent decoder (mpg123)
plays at the asked length, not silent and not clipped; music makes one file per variant, the
variants differ and a seed gives the same audio again; the price the preview shows is the price
charged; bad task_data is refused before any charge; single-shot orders refuse item retries.
The ledger invariants run after every test."""

import os
import subprocess
import tempfile
import unittest
import wave

from harness import E2ETestCase
from orders_support import OrderFixtures, download, ledger_snapshot
from programs import program


def decode(mp3: bytes):
    """(rate, channels, samples as 16-bit ints, interleaved) of an MP3, decoded by mpg123."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.mp3"), os.path.join(tmp, "out.wav")
        with open(src, "wb") as f:
            f.write(mp3)
        p = subprocess.run([program("mpg123"), "-q", "-w", out, src], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, f"mpg123 failed ({p.returncode}): {p.stderr}"
        with wave.open(out, "rb") as w:
            return w.getframerate(), w.getnchannels(), memoryview(w.readframes(w.getnframes())).cast("h")


def duration_ms(rate, channels, samples):
    return len(samples) / channels * 1000.0 / rate


def rms(samples):
    step = max(1, len(samples) // 300_000)
    picked = samples[::step]
    return (sum(s * s for s in picked) / max(1, len(picked))) ** 0.5


class GenerativeOrderTests(OrderFixtures, E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def order(self, key, task_type, task_data):
        return self.server.api("POST", "/orders", key, body={"task_type": task_type, "task_data": task_data})

    def preview_price(self, key, task_type, prompt, task_data):
        r = self.server.api("POST", "/orders/chunks/preview", key,
                            body={"task_type": task_type, "input_text": prompt, "task_data": task_data})
        self.assertEqual(r.status, 200, r)
        return r.body["data"]

    def assertPlays(self, mp3, expected_ms, stereo):
        rate, channels, samples = decode(mp3)
        self.assertAlmostEqual(duration_ms(rate, channels, samples), expected_ms, delta=expected_ms * 0.05)
        self.assertGreater(rms(samples), 100, "silent")           # about -50 dBFS
        self.assertLess(max(abs(min(samples)), max(samples)), 32767, "clipped")
        if stereo:
            self.assertEqual((rate, channels), (44100, 2))
        return samples

    def test_a_sound_effect_completes_with_one_file_at_the_preview_price(self):
        user, key = self.account(balance=100_000)
        data = {"text": "rain on a tin roof", "duration_seconds": 3}
        preview = self.preview_price(key, "sfx", data["text"], {"duration_seconds": 3})
        self.assertEqual(preview["summary"]["capacity_unit"], "seconds")
        self.assertEqual([c["billable_length"] for c in preview["chunks"]], [3])
        price = int(preview["summary"]["estimated_price"]["amount"])
        self.assertGreater(price, 0)

        created = self.assertSuccess(self.order(key, "sfx", data), 201)
        self.assertEqual((created["price_units"], created["tokens_from_payg"]), (price, 3))
        done = self.wait_order(key, created["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        self.assertEqual(len(done["result"]["files"]), 1)
        self.assertEqual(len(done["items"]), 1)
        self.assertEqual(self.balance(user["id"]), 100_000 - price)
        item = done["items"][0]
        self.assertEqual(item["status"], "completed")
        self.assertAlmostEqual(item["duration_ms"], 3000, delta=150)
        self.assertPlays(download(self.server, key, done["result"]["files"][0]), 3000, stereo=False)

    def test_a_sound_effect_without_a_duration_is_priced_and_made_at_its_prompts_default(self):
        _, key = self.account(balance=100_000)
        preview = self.preview_price(key, "sfx", "gunshot", {})
        seconds = preview["chunks"][0]["billable_length"]
        self.assertTrue(1 <= seconds <= 22, preview)
        created = self.assertSuccess(self.order(key, "sfx", {"text": "gunshot"}), 201)
        self.assertEqual(created["price_units"], int(preview["summary"]["estimated_price"]["amount"]))
        self.assertEqual(created["tokens_from_payg"], seconds)
        done = self.wait_order(key, created["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        mp3 = download(self.server, key, done["result"]["files"][0])
        played = duration_ms(*decode(mp3))
        self.assertLessEqual(played, seconds * 1000 * 1.05)
        self.assertGreater(played, (seconds - 1) * 1000 * 0.95)

    def test_music_makes_three_different_variants_at_44100_stereo(self):
        user, key = self.account(balance=100_000)
        data = {"prompt": "slow calm piano", "n_variants": 3, "duration_seconds": 6}
        preview = self.preview_price(key, "music", data["prompt"], {"n_variants": 3, "duration_seconds": 6})
        self.assertEqual([c["billable_length"] for c in preview["chunks"]], [6, 6, 6])
        created = self.assertSuccess(self.order(key, "music", data), 201)
        self.assertEqual(created["price_units"], int(preview["summary"]["estimated_price"]["amount"]))
        self.assertEqual(created["tokens_from_payg"], 18)
        done = self.wait_order(key, created["id"], {"completed", "failed"}, timeout=180)
        self.assertEqual(done["status"], "completed", done)
        files = done["result"]["files"]
        self.assertEqual(len(files), 3)
        self.assertEqual(len(set(files)), 3)
        self.assertEqual(sorted(i["chunk_index"] for i in done["items"]), [0, 1, 2])
        decoded = [self.assertPlays(download(self.server, key, f), 6000, stereo=True) for f in files]
        for a in range(3):
            for b in range(a + 1, 3):
                self.assertNotEqual(bytes(decoded[a]), bytes(decoded[b]), f"variants {a} and {b} are the same audio")
        self.assertEqual(self.balance(user["id"]), 100_000 - created["price_units"])

    def test_the_same_seed_makes_the_same_music(self):
        _, key = self.account(balance=100_000)
        data = {"prompt": "happy pop with guitar", "duration_seconds": 5, "seed": 4242}
        first, second = (self.assertSuccess(self.order(key, "music", data), 201) for _ in range(2))
        files = []
        for created in (first, second):
            done = self.wait_order(key, created["id"], {"completed", "failed"}, timeout=180)
            self.assertEqual(done["status"], "completed", done)
            files.append(download(self.server, key, done["result"]["files"][0]))
        self.assertEqual(files[0], files[1])

    def test_an_order_retry_asks_the_same_again(self):
        user, key = self.account(balance=100_000)
        data = {"text": "coin pickup", "duration_seconds": 1, "seed": 99}
        first = self.assertSuccess(self.order(key, "sfx", data), 201)
        first = self.wait_order(key, first["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(first["status"], "completed", first)
        again = self.assertSuccess(self.server.api("POST", f"/orders/{first['id']}/retry", key, body={}), 201)
        self.assertEqual((again["task_type"], again["retry_of"], again["price_units"]),
                         ("sfx", first["id"], first["price_units"]))
        again = self.wait_order(key, again["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(again["status"], "completed", again)
        # The seed it named stays, so the same sound comes back, charged once more.
        self.assertEqual(download(self.server, key, again["result"]["files"][0]),
                         download(self.server, key, first["result"]["files"][0]))
        self.assertEqual(self.balance(user["id"]), 100_000 - 2 * first["price_units"])

    def test_bad_task_data_is_refused_before_any_charge(self):
        _, key = self.account(balance=100_000)
        before = ledger_snapshot(self.h)
        cases = [
            ("music", {"prompt": "calm", "n_variants": 5}, "task_data.n_variants"),
            ("music", {"prompt": "calm", "n_variants": 0}, "task_data.n_variants"),
            ("music", {"prompt": "calm", "n_variants": 2.5}, "task_data.n_variants"),
            ("music", {"prompt": "calm", "duration_seconds": 0}, "task_data.duration_seconds"),
            ("music", {"prompt": "calm", "duration_seconds": 4.9}, "task_data.duration_seconds"),
            ("music", {"prompt": "calm", "duration_seconds": 301}, "task_data.duration_seconds"),
            ("music", {"prompt": "calm", "duration_seconds": "30"}, "task_data.duration_seconds"),
            ("music", {"prompt": ""}, "task_data.prompt"),
            ("music", {"prompt": "   "}, "task_data.prompt"),
            ("music", {"prompt": "x" * 5001}, "task_data.prompt"),
            ("music", {"prompt": "calm", "seed": -1}, "task_data.seed"),
            ("music", {"prompt": "calm", "seed": 2 ** 32}, "task_data.seed"),
            ("music", {"prompt": "calm", "seed": 2 ** 64}, "task_data.seed"),
            ("sfx", {"text": "rain", "duration_seconds": 0}, "task_data.duration_seconds"),
            ("sfx", {"text": "rain", "duration_seconds": 0.49}, "task_data.duration_seconds"),
            ("sfx", {"text": "rain", "duration_seconds": 22.5}, "task_data.duration_seconds"),
            ("sfx", {"text": "rain", "duration_seconds": True}, "task_data.duration_seconds"),
            ("sfx", {"text": ""}, "task_data.text"),
            ("sfx", {"text": 7}, "task_data.text"),
            ("sfx", {"text": "x" * 5001}, "task_data.text"),
        ]
        for task_type, data, field in cases:
            with self.subTest(task_type=task_type, data=str(data)[:80]):
                r = self.order(key, task_type, data)
                self.assertEqual(r.status, 422, r)
                self.assertEqual(set(r.body["errors"]), {field}, r.body)
                p = self.server.api("POST", "/orders/chunks/preview", key,
                                    body={"task_type": task_type, "input_text": "calm",
                                          "task_data": {k: v for k, v in data.items() if k not in ("prompt", "text")}})
                if field.endswith(("prompt", "text")):
                    self.assertEqual(p.status, 200, p)
                else:
                    self.assertEqual((p.status, set(p.body.get("errors", {}))), (422, {field}), p)
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_item_retries_of_single_shot_orders_are_generative_not_supported(self):
        _, key = self.account(balance=100_000)
        for task_type, data in (("sfx", {"text": "door knock", "duration_seconds": 1}),
                                ("music", {"prompt": "lofi hip hop", "duration_seconds": 5, "n_variants": 2})):
            with self.subTest(task_type=task_type):
                created = self.assertSuccess(self.order(key, task_type, data), 201)
                done = self.wait_order(key, created["id"], {"completed", "failed"}, timeout=180)
                self.assertEqual(done["status"], "completed", done)
                before = ledger_snapshot(self.h)
                item = done["items"][0]
                r = self.server.api("POST", f"/orders/{done['id']}/items/{item['id']}/retry", key, body={})
                self.assertEqual((r.status, r.body.get("reason")), (422, "generative_not_supported"), r)
                r = self.server.api("POST", f"/orders/{done['id']}/items/retry-failed", key)
                self.assertEqual((r.status, r.body.get("reason")), (422, "generative_not_supported"), r)
                self.assertEqual(ledger_snapshot(self.h), before)


if __name__ == "__main__":
    unittest.main()
