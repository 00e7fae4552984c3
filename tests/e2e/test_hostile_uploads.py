"""Hostile uploads on both routes that take multipart/form-data (reliability anchor T17's multipart
list; spec 4.1.1, 4.5, 7.1, 8.2.4; CONTRACTS multipart field names): `POST /orders` with
`task_type=voice_search` and `POST /voices/provider_c/clones`.

Each body gets its documented refusal and changes nothing (no ledger row, no order, no clone):
  - an empty body, a body that ends before its close delimiter, or a form without a boundary:
    422 with errors.body;
  - a declared 1 GB body: 413 before a byte of it is read; 100 parts, a part header past 8 KiB:
    413, and the server stops reading there;
  - no file, or an empty one: 422 source_file_required; a PNG named .wav, a WAV header with nothing
    after it, random bytes: 422 source_file_unsupported (judged by content, whatever the name
    or the part's Content-Type);
  - a file name that is not UTF-8 never reaches a response as raw bytes.
A WAV whose header declares ten hours but carries one megabyte is searched within the 60-second
cap; a 10-minute MP3 is flagged truncated. After every case has run three times the server's RSS
is back within 10 % (plus a small absolute margin) of its level after the first round, and it never
answered 5xx. The upload budget holds what uploads sent (not what they declared), refuses an upload
that does not fit beside another with 503 and Retry-After, and takes the next one once the first
ended. Nine slow uploads (the 512 MiB budget declared) do not keep a normal one out: it is read,
and they are cut with 408 once grace and window have passed; a key's third upload at once is 429
before its body is read."""

import os
import subprocess
import tempfile
import threading
import time
import unittest

from harness import API, E2ETestCase, metric_sum, poll
from hostile_support import rss_kib, soak_asan_options
from orders_support import OrderFixtures, ledger_snapshot
from programs import program

BOUNDARY = b"hostile-upload-7f3a"
CT = "multipart/form-data; boundary=" + BOUNDARY.decode()
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde" + b"\x00" * 64
WAV_HEAD_ONLY = b"RIFF\xff\xff\xff\x7fWAVEfmt "


def part(name, data, filename=None, ctype=b"audio/wav", extra_headers=b""):
    disposition = b'form-data; name="' + name + b'"' + (b'; filename="' + filename + b'"' if filename is not None else b"")
    head = b"--" + BOUNDARY + b"\r\nContent-Disposition: " + disposition + b"\r\n"
    if filename is not None:
        head += b"Content-Type: " + ctype + b"\r\n"
    return head + extra_headers + b"\r\n" + data + b"\r\n"


def close():
    return b"--" + BOUNDARY + b"--\r\n"


def speech_wav(seconds_of_text: int) -> bytes:
    """Real speech from espeak-ng as a WAV (22,050 Hz mono 16-bit)."""
    text = " ".join(["The quick brown fox jumps over the lazy dog near the river bank."] * seconds_of_text)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.wav")
        subprocess.run([program("espeak-ng"), "-w", out, text], check=True, capture_output=True, timeout=120)
        with open(out, "rb") as f:
            return f.read()


def ten_hours_declared(wav: bytes, size: int = 1_000_000) -> bytes:
    """A WAV whose RIFF and data sizes claim about 27 hours at 22,050 Hz, carrying `size` bytes."""
    data_at = wav.index(b"data") + 8
    head = bytearray(wav[:data_at])
    head[4:8] = (0xFFFFFFFF).to_bytes(4, "little")
    head[data_at - 4:data_at] = (0xFFFFFFF0).to_bytes(4, "little")
    body = wav[data_at:]
    while len(body) < size:
        body += wav[data_at:]
    return bytes(head) + body[:size]


def long_mp3(wav: bytes, seconds: int) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.wav"), os.path.join(tmp, "out.mp3")
        with open(src, "wb") as f:
            f.write(wav)
        subprocess.run([program("ffmpeg"), "-v", "error", "-stream_loop", "-1", "-i", src, "-t", str(seconds),
                        "-ac", "1", "-ar", "16000", "-b:a", "16k", out], check=True, capture_output=True, timeout=300)
        with open(out, "rb") as f:
            return f.read()


class Route:
    def __init__(self, name, path, fields, file_field):
        self.name, self.path, self.fields, self.file_field = name, path, fields, file_field

    def form(self, files=(), fields=None):
        body = b"".join(part(k, v) for k, v in (self.fields if fields is None else fields))
        for filename, data in files:
            body += part(self.file_field, data, filename.encode() if isinstance(filename, str) else filename)
        return body + close()


ORDER = Route("order", "/orders", [(b"task_type", b"voice_search")], b"input_files[]")
CLONE = Route("clone", "/voices/provider_c/clones", [(b"name", b"Hostile")], b"files[]")


class HostileUploadTests(OrderFixtures, E2ETestCase):
    # A small ASan quarantine: RSS then shows what the server holds, not what ASan keeps.
    server_env = {"ASAN_OPTIONS": soak_asan_options()}

    @classmethod
    def prepare(cls):
        cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.h.cli("admin", "voices", "features", "--service", "provider_c")
        cls.wav = speech_wav(2)

    def setUp(self):
        self.user, self.key = self.account(balance=1_000_000)

    def tearDown(self):
        self.assertInvariants()

    def clones(self):
        return int(self.h.psql_value("SELECT count(*) FROM voice_clones"))

    def refusal_cases(self, route):
        """(label, body, content type, check(status, json)) of one route."""
        def body_error(status, body):
            return status == 422 and "body" in (body.get("errors") or {})

        def reason(expected_status, expected):
            return lambda status, body: status == expected_status and body.get("reason") == expected

        too_large = lambda status, body: status == 413  # noqa: E731
        many = b"".join(part(b"f%d" % i, b"v") for i in range(100)) + route.form([("a.wav", self.wav)])
        fields = b"".join(part(k, v) for k, v in route.fields)
        header_bomb = part(route.file_field, self.wav, b"a.wav", extra_headers=b"X-Pad: " + b"p" * 9000 + b"\r\n")
        return [
            ("empty_body", b"", CT, body_error),
            ("truncated_body", route.form([("a.wav", self.wav)])[:-40], CT, body_error),
            ("no_boundary", route.form([("a.wav", self.wav)]), "multipart/form-data", body_error),
            ("hundred_parts", many, CT, too_large),
            ("part_header_past_cap", fields + header_bomb + close(), CT, too_large),
            ("no_file", route.form(), CT, reason(422, "source_file_required")),
            ("empty_file", route.form([("a.wav", b"")]), CT, reason(422, "source_file_required")),
            ("png_named_wav", route.form([("voice.wav", PNG)]), CT, reason(422, "source_file_unsupported")),
            ("wav_header_only", route.form([("voice.wav", WAV_HEAD_ONLY)]), CT, reason(422, "source_file_unsupported")),
            ("random_bytes", route.form([("voice.mp3", os.urandom(4096))]), CT, reason(422, "source_file_unsupported")),
            ("non_utf8_name_png", route.form([(b"\xff\xfe\xc0v.wav", PNG)]), CT,
             reason(422, "source_file_unsupported")),
        ]

    def send(self, route, body, ctype):
        return self.server.api("POST", route.path, self.key, headers={"Content-Type": ctype}, body=body)

    def run_refusals(self, route):
        before, clones = ledger_snapshot(self.h), self.clones()
        for label, body, ctype, check in self.refusal_cases(route):
            with self.subTest(route=route.name, case=label):
                r = self.send(route, body, ctype)
                self.assertLess(r.status, 500, r)
                self.assertTrue(check(r.status, r.body if isinstance(r.body, dict) else {}), r)
                r.raw.decode("utf-8")  # whatever came back is text
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertEqual(self.clones(), clones)

    def declared_1gb(self, route):
        with self.server.raw(timeout=10) as c:
            c.send(b"POST " + (API + route.path).encode() + b" HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + self.key.encode() +
                   b"\r\nContent-Type: " + CT.encode() + b"\r\nContent-Length: 1073741824\r\n\r\n")
            r = c.read_response(timeout=10)
            self.assertEqual(r.status, 413, r)
            self.assertTrue(c.wait_closed(10), "the connection stayed open for the rest of a refused body")

    def test_every_malformed_or_unacceptable_upload_is_refused_and_changes_nothing(self):
        for route in (ORDER, CLONE):
            self.run_refusals(route)
            self.declared_1gb(route)

    def test_memory_returns_to_its_level_after_rounds_of_hostile_uploads(self):
        for route in (ORDER, CLONE):
            self.run_refusals(route)
        baseline = rss_kib(self.server.proc.pid)
        for _ in range(3):
            for route in (ORDER, CLONE):
                self.run_refusals(route)
        after = rss_kib(self.server.proc.pid)
        self.assertLess(after, baseline * 1.10 + 16 * 1024, f"RSS {baseline} KiB -> {after} KiB")

    def test_a_file_name_that_is_not_utf8_is_accepted_with_audio_and_never_echoed_raw(self):
        r = self.send(ORDER, ORDER.form([(b"\xff\xfe\xc0v.wav", self.wav)]), CT)
        self.assertEqual(r.status, 201, r)
        r.raw.decode("utf-8")
        self.assertNotIn(b"\xff\xfe", r.raw)
        done = self.wait_order(self.key, r.body["data"]["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)

    def test_ten_hours_declared_in_one_megabyte_is_read_as_what_it_carries(self):
        r = self.send(ORDER, ORDER.form([("long.wav", ten_hours_declared(self.wav))]), CT)
        self.assertEqual(r.status, 201, r)
        done = self.wait_order(self.key, r.body["data"]["id"], {"completed", "failed"}, timeout=120)
        self.assertEqual(done["status"], "completed", done)
        result = done["result"]
        # One megabyte of 22,050 Hz 16-bit mono is about 22.7 s: what is there, not what is declared.
        self.assertFalse(result["truncated"], result)
        self.assertAlmostEqual(result["analysed_seconds"], 1_000_000 / 44_100, delta=1.0)
        self.assertGreaterEqual(len(result["voices"]), 1)

    def test_a_ten_minute_recording_is_searched_by_its_first_minute_and_flagged(self):
        mp3 = long_mp3(self.wav, 600)
        self.assertLess(len(mp3), 1_500_000)
        r = self.send(ORDER, ORDER.form([("ten-minutes.mp3", mp3)]), CT)
        self.assertEqual(r.status, 201, r)
        done = self.wait_order(self.key, r.body["data"]["id"], {"completed", "failed"}, timeout=180)
        self.assertEqual(done["status"], "completed", done)
        self.assertTrue(done["result"]["truncated"], done["result"])
        self.assertAlmostEqual(done["result"]["analysed_seconds"], 60.0, delta=0.5)


class UploadBudgetTests(OrderFixtures, E2ETestCase):
    """MEDIAGEN_UPLOAD_BUDGET_BYTES: what all uploads being read at once may hold."""

    server_env = {"MEDIAGEN_UPLOAD_BUDGET_BYTES": str(2 << 20)}

    @classmethod
    def prepare(cls):
        cls.h.cli("admin", "seed-demo", "--skip-voice-features")

    def test_an_upload_that_does_not_fit_beside_another_is_503_until_the_first_ends(self):
        _, key = self.account(balance=100_000)
        # Complete, but too large to fit beside the slow one: PNG bytes, refused by content when read.
        second = ORDER.form([("b.wav", PNG + b"\x00" * 700_000)])
        with self.server.raw(timeout=10) as slow:
            # The slow one holds what it sent, not what it declared.
            held = part(b"task_type", b"voice_search") + file_head(b"input_files[]") + b"\x00" * 1_500_000
            slow.send(upload_head(ORDER.path, key, 3_000_000) + held)
            self.assertTrue(poll(lambda: self.upload_bytes_in_use() == len(held), timeout=10), self.server.metrics())
            r = self.server.api("POST", "/orders", key, headers={"Content-Type": CT}, body=second)
            self.assertEqual(r.status, 503, r)
            self.assertEqual(r.body.get("success"), False, r)
            self.assertIn("retry-after", {k.lower() for k in r.headers})
        # The slow one went away: its share comes back, and the same upload is read and judged.
        self.assertTrue(poll(lambda: self.upload_bytes_in_use() == 0, timeout=10), self.server.metrics())
        r = self.server.api("POST", "/orders", key, headers={"Content-Type": CT}, body=second)
        self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_unsupported"), r)
        self.assertEqual(metric_sum(self.server.metrics(), "mediagen_upload_budget_bytes"), 2 << 20)

    def upload_bytes_in_use(self) -> float:
        return metric_sum(self.server.metrics(), "mediagen_upload_budget_in_use_bytes")


def upload_head(path, key, length, expect_continue=False):
    return (b"POST " + (API + path).encode() + b" HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + key.encode() +
            b"\r\nContent-Type: " + CT.encode() + b"\r\nContent-Length: " + str(length).encode() +
            (b"\r\nExpect: 100-continue" if expect_continue else b"") + b"\r\n\r\n")


def file_head(name, filename=b"slow.wav"):
    return (b"--" + BOUNDARY + b'\r\nContent-Disposition: form-data; name="' + name + b'"; filename="' + filename +
            b'"\r\nContent-Type: audio/wav\r\n\r\n')


class Trickle:
    """Sends one byte to each connection every half second until stopped: slow enough for any
    minimum rate, fast enough that the server's stall timer never fires."""

    def __init__(self, conns):
        self.conns, self.stop = conns, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.wait(0.5):
            for c in self.conns:
                c.send(b"\x00")

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=5)


# The nine slow uploads of the finding: each declares a ninth of the 512 MiB default budget.
SLOW_DECLARED = (512 << 20) // 9
GRACE, WINDOW = 4, 3


class SlowUploadTests(OrderFixtures, E2ETestCase):
    """Uploads that cannot starve others: the budget is taken as bytes arrive, a key has at most
    MEDIAGEN_UPLOADS_PER_KEY (2) uploads being read, and an upload slower than
    MEDIAGEN_UPLOAD_MIN_RATE (16 KiB/s) over MEDIAGEN_UPLOAD_RATE_WINDOW_SECONDS after
    MEDIAGEN_UPLOAD_GRACE_SECONDS is cut with 408 (small windows here, the default budget)."""

    server_env = {"MEDIAGEN_UPLOAD_GRACE_SECONDS": str(GRACE), "MEDIAGEN_UPLOAD_RATE_WINDOW_SECONDS": str(WINDOW)}

    @classmethod
    def prepare(cls):
        cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.wav = speech_wav(2)

    def metric(self, name) -> float:
        return metric_sum(self.server.metrics(), name)

    def start_slow(self, conn, path, key, first, length=SLOW_DECLARED):
        """The head with Expect: 100-continue; once the server says go (its checks passed and it
        reads the body), the first bytes of the body."""
        conn.send(upload_head(path, key, length, expect_continue=True))
        r = conn.read_response(timeout=10)
        self.assertEqual(r.status, 100, r)
        conn.send(first)

    def test_nine_slow_uploads_beside_a_normal_one(self):
        keys = [self.account()[1] for _ in range(5)]
        _, normal_key = self.account()
        first = part(b"name", b"Slow") + file_head(b"files[]")
        conns = [self.server.raw(timeout=10) for _ in range(9)]
        try:
            for i, c in enumerate(conns):
                self.start_slow(c, CLONE.path, keys[i // 2], first)
            # Nine uploads are being read; a tenth, at a normal pace, is read beside them.
            r = self.server.api("POST", CLONE.path, normal_key, headers={"Content-Type": CT},
                                body=CLONE.form([("voice.wav", self.wav)]))
            self.assertEqual(r.status, 201, r)
            self.assertEqual(r.body["data"]["status"], "pending", r)
            # The nine hold what they sent, not the 512 MiB they declared.
            self.assertTrue(poll(lambda: self.metric("mediagen_upload_budget_in_use_bytes") == 9 * len(first),
                                 timeout=10), self.server.metrics())
            self.assertEqual(self.metric("mediagen_uploads_in_progress"), 9)
            with Trickle(conns):
                # Below 16 KiB/s once grace and window have passed: each slow one is cut.
                for c in conns:
                    slow = c.read_response(timeout=GRACE + WINDOW + 10)
                    self.assertIsNotNone(slow)
                    self.assertEqual(slow.status, 408, slow)
                    self.assertEqual(slow.json(), {"success": False, "message":
                                     "The upload arrived too slowly and was stopped; send it again on a faster connection."})
                    self.assertEqual(slow.headers.get("connection"), "close", slow)
                for c in conns:
                    self.assertIsNotNone(c.wait_closed(10), "a cut upload's connection stayed open")
        finally:
            for c in conns:
                c.close()
        self.assertTrue(poll(lambda: self.metric("mediagen_uploads_in_progress") == 0, timeout=10))
        self.assertEqual(self.metric("mediagen_upload_budget_in_use_bytes"), 0)
        self.assertServerAlive()

    def test_a_third_upload_of_one_key_is_refused_before_its_body_is_read(self):
        user, key = self.account(balance=100_000)
        other = self.h.create_key(user["id"], preset="full")["key"]
        first = part(b"task_type", b"voice_search") + file_head(b"input_files[]")
        a, b = self.server.raw(timeout=10), self.server.raw(timeout=10)
        try:
            self.start_slow(a, ORDER.path, key, first, length=1_000_000)
            self.start_slow(b, ORDER.path, key, first, length=1_000_000)
            with self.server.raw(timeout=10) as third:
                # Refused instead of "100 Continue": not a byte of the body is wanted.
                third.send(upload_head(ORDER.path, key, 1000, expect_continue=True))
                r = third.read_response(timeout=10)
                self.assertEqual(r.status, 429, r)
                self.assertEqual(r.json(), {"success": False,
                                            "message": "This API key already has as many uploads in progress as it "
                                                       "may; retry when one ends.",
                                            "reason": "rate_limit_exceeded", "error_code": "rate_limit_exceeded",
                                            "retry_after": 5, "uploads_per_key": 2})
                self.assertEqual(r.headers.get("retry-after"), "5", r)
            # Another key of the same account is not held back; the upload is read and judged.
            png = ORDER.form([("b.wav", PNG)])
            r = self.server.api("POST", ORDER.path, other, headers={"Content-Type": CT}, body=png)
            self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_unsupported"), r)
            a.close()
            # One of the key's uploads ended (the other may have been cut for its pace by now): the
            # key's next one is read.
            self.assertTrue(poll(lambda: self.metric("mediagen_uploads_in_progress") < 2, timeout=10))
            r = self.server.api("POST", ORDER.path, key, headers={"Content-Type": CT}, body=png)
            self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_unsupported"), r)
        finally:
            a.close()
            b.close()

if __name__ == "__main__":
    unittest.main()
