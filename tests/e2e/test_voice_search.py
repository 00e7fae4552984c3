"""Voice search end to end (spec 1, 4.1.1, 8.2; CONTRACTS multipart names; issue 16): a speech
sample uploaded as multipart `input_files[]` gives a completed `voice_search` order whose result
has no files but the most similar catalogue voices, best first. The samples are made at test time
by espeak-ng (speech) and ffmpeg (WAV, MP3, Ogg Opus, FLAC, M4A/AAC). A 3-minute sample is
analysed for 60 s and flagged truncated, at the same flat price. No file, an empty one, a PNG
named `.wav`, several files and a bad `top` are refused before any charge with the ledger
unchanged.

Only provider_d's voices are described (`admin voices features --service provider_d`): the whole
catalogue takes minutes in a sanitizer build. Voices of other services that share a described
(voice, variant) pair are searchable too."""

import os
import subprocess
import tempfile
import uuid

from harness import E2ETestCase
from orders_support import OrderFixtures, ledger_snapshot
from programs import program

SPEECH = ("The harbour town woke slowly that morning, and a thin mist hung over the water "
          "while the first shops opened their doors.")

# ffmpeg arguments per format: (file suffix, codec arguments)
FORMATS = {
    "wav": (".wav", ["-c:a", "pcm_s16le"]),
    "mp3": (".mp3", ["-c:a", "libmp3lame", "-b:a", "64k"]),
    "opus": (".ogg", ["-c:a", "libopus", "-b:a", "32k"]),
    "flac": (".flac", ["-c:a", "flac"]),
    "m4a": (".m4a", ["-c:a", "aac", "-b:a", "64k"]),
}


def make_sample(fmt: str, seconds: float | None = None, voice: str = "en-us+f2") -> bytes:
    """espeak-ng speech encoded by ffmpeg; `seconds` loops the speech to that length."""
    suffix, codec = FORMATS[fmt]
    with tempfile.TemporaryDirectory() as tmp:
        speech, out = os.path.join(tmp, "speech.wav"), os.path.join(tmp, "sample" + suffix)
        subprocess.run([program("espeak-ng"), "-v", voice, "-w", speech, SPEECH], check=True, timeout=60,
                       capture_output=True)
        loop = ["-stream_loop", "-1"] if seconds else []
        length = ["-t", str(seconds)] if seconds else []
        subprocess.run([program("ffmpeg"), "-v", "error", "-y", *loop, "-i", speech, *length, "-ac", "1", *codec, out],
                       check=True, timeout=120, capture_output=True)
        with open(out, "rb") as f:
            return f.read()


def multipart(fields, files):
    """(content type, body): text fields, then (field name, file name, content type, bytes) files."""
    boundary = "vs-" + uuid.uuid4().hex
    out = b""
    for name, value in fields:
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n").encode() + value.encode()
        out += b"\r\n"
    for name, filename, ctype, data in files:
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n"
                f"Content-Type: {ctype}\r\n\r\n").encode() + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", out


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" + b"\x00" * 64


class VoiceSearchTests(OrderFixtures, E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.described = cls.h.cli("admin", "voices", "features", "--service", "provider_d")
        cls.samples = {fmt: make_sample(fmt) for fmt in FORMATS}

    def tearDown(self):
        self.assertInvariants()

    def search(self, key, files, top=None, field="input_files[]", extra=()):
        fields = [("task_type", "voice_search"), *extra]
        if top is not None:
            fields.append(("task_data[top]", str(top)))
        ctype, body = multipart(fields, [(field, name, "audio/wav", data) for name, data in files])
        return self.server.api("POST", "/orders", key, headers={"Content-Type": ctype}, body=body)

    def flat_price(self):
        per_1k = int(self.h.psql_value("SELECT price_per_1k_minor FROM service_models WHERE model_id = 'voice-search'"))
        return -(-per_1k // 1000)

    def assertRanked(self, result, top):
        self.assertEqual(result["files"], [])
        voices = result["voices"]
        self.assertTrue(1 <= len(voices) <= top, voices)
        for v in voices:
            self.assertEqual(set(v), {"voice_id", "service", "name", "score"})
            self.assertIn(v["service"], {"provider_a", "provider_b", "provider_c", "provider_d"})
            self.assertTrue(0 < v["score"] <= 1, v)
        scores = [v["score"] for v in voices]
        self.assertEqual(scores, sorted(scores, reverse=True))

    def test_described_voices(self):
        self.assertGreater(self.described["computed"], 0, self.described)
        self.assertEqual(self.described["not_described"], 0, self.described)
        # Computed once: asking again describes nothing.
        again = self.h.cli("admin", "voices", "features", "--service", "provider_d")
        self.assertEqual(again["computed"], 0, again)

    def test_each_format_completes_with_similar_voices(self):
        user, key = self.account(balance=100_000)
        created = {}
        for fmt, data in self.samples.items():
            # The file name says nothing: the content decides.
            order = self.assertSuccess(self.search(key, [(f"sample-{fmt}.bin", data)], top=5), 201)
            self.assertEqual((order["task_type"], order["status"]), ("voice_search", "created"))
            self.assertEqual(order["price_units"], self.flat_price())
            created[fmt] = order["id"]
        for fmt, order_id in created.items():
            with self.subTest(fmt=fmt):
                done = self.wait_order(key, order_id, {"completed", "failed"}, timeout=120)
                self.assertEqual(done["status"], "completed", done)
                self.assertRanked(done["result"], 5)
                self.assertIs(done["result"]["truncated"], False)
                self.assertTrue(3 < done["result"]["analysed_seconds"] < 20, done["result"])
                self.assertEqual(len(done["items"]), 1)
                # The upload is kept in the object store under its order, not in the database.
                self.assertTrue(os.path.isfile(os.path.join(self.h.storage_dir, "orders", order_id, "input", "sample")))
        self.assertEqual(self.balance(user["id"]), 100_000 - len(FORMATS) * self.flat_price())

    def test_three_minutes_are_cut_at_sixty_seconds_for_the_same_price(self):
        user, key = self.account(balance=10_000)
        long = make_sample("mp3", seconds=180)
        order = self.assertSuccess(self.search(key, [("long.mp3", long)]), 201)
        self.assertEqual(order["price_units"], self.flat_price())
        done = self.wait_order(key, order["id"], {"completed", "failed"}, timeout=180)
        self.assertEqual(done["status"], "completed", done)
        self.assertRanked(done["result"], 10)  # the default top
        self.assertIs(done["result"]["truncated"], True)
        self.assertAlmostEqual(done["result"]["analysed_seconds"], 60, delta=0.1)

    def test_top_reads_the_form_text_and_its_bounds(self):
        user, key = self.account(balance=10_000)
        before = ledger_snapshot(self.h)
        for bad in ("abc", "0", "51", "2.5"):
            with self.subTest(top=bad):
                r = self.search(key, [("a.wav", self.samples["wav"])], top=bad)
                self.assertEqual(r.status, 422, r)
                self.assertIn("task_data.top", r.body["errors"], r)
        self.assertEqual(ledger_snapshot(self.h), before)
        order = self.assertSuccess(self.search(key, [("a.wav", self.samples["wav"])], top=50), 201)
        done = self.wait_order(key, order["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        self.assertRanked(done["result"], 50)
        self.assertGreater(len(done["result"]["voices"]), 10)
        # task_data as one JSON field works too, and so does the name without brackets.
        order = self.assertSuccess(self.search(key, [("a.flac", self.samples["flac"])], field="input_files",
                                               extra=[("task_data", '{"top": 2}')]), 201)
        done = self.wait_order(key, order["id"], {"completed", "failed"}, timeout=120)
        self.assertRanked(done["result"], 2)

    def test_refusals_change_nothing(self):
        user, key = self.account(balance=10_000)
        before = ledger_snapshot(self.h)
        cases = [
            ("no file", [], 422, "source_file_required"),
            ("empty file", [("empty.wav", b"")], 422, "source_file_required"),
            ("png named wav", [("voice.wav", PNG)], 422, "source_file_unsupported"),
            ("text named mp3", [("voice.mp3", b"hello, this is not audio at all\n" * 20)], 422, "source_file_unsupported"),
        ]
        for label, files, status, reason in cases:
            with self.subTest(case=label):
                r = self.search(key, files, top=3)
                self.assertEqual((r.status, r.body.get("reason"), r.body.get("error_code")), (status, reason, reason), r)
                self.assertNotIn("errors", r.body)
        r = self.search(key, [("a.wav", self.samples["wav"]), ("b.mp3", self.samples["mp3"])])
        self.assertEqual(r.status, 422, r)
        self.assertIn("input_files", r.body["errors"], r)
        # A JSON body cannot carry a file.
        r = self.server.api("POST", "/orders", key, body={"task_type": "voice_search", "task_data": {"top": 5}})
        self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_required"), r)
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertEqual(self.balance(user["id"]), 10_000)

    def test_without_money_nothing_is_stored_or_created(self):
        user, key = self.account(balance=0)
        before = ledger_snapshot(self.h)
        r = self.search(key, [("a.wav", self.samples["wav"])])
        self.assertEqual((r.status, r.body.get("reason")), (402, "insufficient_balance"), r)
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertEqual(self.orphan_uploads(), [])

    def orphan_uploads(self):
        """Order folders of the store whose order does not exist (an upload left by a refusal)."""
        root = os.path.join(self.h.storage_dir, "orders")
        if not os.path.isdir(root):
            return []
        known = set(self.h.psql_value("SELECT coalesce(string_agg(id::text, ' '), '') FROM orders").split())
        return [n for n in os.listdir(root) if n not in known]
