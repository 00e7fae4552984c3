"""The typical flow of spec section 1, end to end with real speech: a voice from the
catalogue, a template, an order, polling to `completed`, a download link, a plain GET of an
MP3 that decodes to speech of the expected length, and subtitles that match the audio.
Also storage (4.3): Range, download disposition, foreign paths, tampered links, retention."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import wave

from harness import E2ETestCase
from programs import program
from orders_support import OrderFixtures

SENTENCES = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "A gentle breeze carried the smell of fresh bread through the open window.",
    "Every morning the old clock in the hall struck seven with a deep, slow voice.",
    "Children ran along the beach, chasing the waves and laughing at the gulls.",
    "In the evening the lights of the town came on one by one across the valley.",
]


def long_text(chars):
    out, i = [], 0
    while sum(len(s) + 1 for s in out) < chars:
        out.append(SENTENCES[i % len(SENTENCES)])
        i += 1
    return " ".join(out)


def decode_mp3(data: bytes):
    """(seconds, rms of 16-bit samples) of an MP3, decoded by mpg123."""
    tmp = tempfile.mkdtemp()
    try:
        src, dst = os.path.join(tmp, "a.mp3"), os.path.join(tmp, "a.wav")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run([program("mpg123"), "-q", "-w", dst, src], check=True, timeout=120)
        with wave.open(dst) as w:
            frames = w.readframes(w.getnframes())
            seconds = w.getnframes() / w.getframerate()
        samples = memoryview(frames).cast("h")
        step = max(1, len(samples) // 200000)
        picked = samples[::step]
        rms = (sum(s * s for s in picked) / max(1, len(picked))) ** 0.5
        return seconds, rms
    finally:
        shutil.rmtree(tmp)


CUE_RE = re.compile(r"(\d\d):(\d\d):(\d\d)[,.](\d{3}) --> (\d\d):(\d\d):(\d\d)[,.](\d{3})")


def parse_cues(text):
    cues = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.strip().splitlines()
        for i, line in enumerate(lines):
            m = CUE_RE.match(line)
            if m:
                g = [int(x) for x in m.groups()]
                start = ((g[0] * 60 + g[1]) * 60 + g[2]) * 1000 + g[3]
                end = ((g[4] * 60 + g[5]) * 60 + g[6]) * 1000 + g[7]
                cues.append((start, end, " ".join(lines[i + 1:])))
                break
    return cues


def words(text):
    return re.findall(r"[a-z0-9']+", text.lower())


class OrderFlowTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "2", "MEDIAGEN_SWEEP_INTERVAL_MS": "200"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def link(self, key, path, download=None):
        body = {"path": path}
        if download is not None:
            body["download"] = download
        return self.server.api("POST", "/storage/url", key, body=body)

    def fetch(self, url, headers=None, method="GET"):
        u = urllib.parse.urlsplit(url)
        return self.server.request(method, u.path + "?" + u.query, headers or {})

    def test_typical_flow_produces_playable_speech_with_matching_subtitles(self):
        user, key = self.account(balance=1_000_000)
        # 1. A voice from the catalogue.
        voices = self.server.api("GET", "/voices/provider_c?per_page=100", key).body["data"]
        listed = voices.get("voices") or voices.get("items")
        voice = [v for v in listed if v.get("language") == "en"][0]["voice_id"]
        # 2. A template.
        template = self.template(key, "provider_c", "c-one", voice)
        # 3. An order: three chunks of a 2,000-character model.
        text = long_text(4500) + " [a stage direction, never spoken]"
        created = self.assertSuccess(self.create(key, template, text), 201)
        self.assertEqual(created["status"], "created")
        self.assertIsNone(created["result"])
        # 4. Poll until completed.
        order = self.wait_order(key, created["id"], {"completed", "failed", "partially_completed"}, timeout=180)
        self.assertEqual(order["status"], "completed", order)
        items = order["items"]
        self.assertEqual([i["chunk_index"] for i in items], list(range(len(items))))
        self.assertGreaterEqual(len(items), 3)
        for item in items:
            self.assertEqual(item["status"], "completed")
            self.assertEqual(item["consumed_units"], item["price_units"])
            self.assertEqual(item["remaining_locked"], 0)
            self.assertGreater(item["duration_ms"], 0)
            self.assertIsNone(item["failure_reason"])
        self.assertEqual(len(order["result"]["files"]), 1)
        service_files = order["result"]["service_files"]
        self.assertEqual(sorted(os.path.basename(p) for p in service_files),
                         ["result.srt", "result.timings.json", "result.vtt"])
        # The money: the whole estimate was charged, nothing is left locked.
        self.assertEqual(self.balance(user["id"]), 1_000_000 - created["price_units"])
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge' AND order_id = '{created['id']}'"),
            str(len(items)))

        # 5. A link for the track, fetched with a plain GET.
        link = self.assertSuccess(self.link(key, order["result"]["files"][0]))
        self.assertIsoWithOffset(link["expires_at"])
        r = self.fetch(link["url"])
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers.get("content-type"), "audio/mpeg")
        seconds, rms = decode_mp3(r.body)
        total_ms = sum(i["duration_ms"] for i in items)
        self.assertAlmostEqual(seconds * 1000, total_ms, delta=50)
        self.assertAlmostEqual(seconds * 1000, order["result"]["duration_ms"], delta=50)
        # Speech of the expected length: espeak-ng speaks about 12-20 characters a second.
        self.assertGreater(seconds, len(text) / 25)
        self.assertLess(seconds, len(text) / 8)
        self.assertGreater(rms, 500, "the track is near silence")
        # The first link moved the order to result_delivered.
        self.assertEqual(self.server.api("GET", f"/orders/{created['id']}", key).body["data"]["status"],
                         "result_delivered")

        # Subtitles: every spoken word, in order, within the audio.
        spoken = words(text.split("[")[0])
        timings, srt = None, None
        for path in service_files:
            sub = self.fetch(self.assertSuccess(self.link(key, path))["url"])
            self.assertEqual(sub.status, 200)
            if path.endswith(".json"):
                timings = sub.body if isinstance(sub.body, dict) else json.loads(sub.body)
                continue
            body = sub.body.decode("utf-8")
            if path.endswith(".vtt"):
                self.assertTrue(body.startswith("WEBVTT"))
            cues = parse_cues(body)
            if path.endswith(".srt"):
                srt = cues
            self.assertGreater(len(cues), 10)
            self.assertEqual(words(" ".join(c[2] for c in cues)), spoken)
            for (s1, e1, _), (s2, _, _) in zip(cues, cues[1:]):
                self.assertLess(s1, e1)
                self.assertLessEqual(e1, s2)
            self.assertLessEqual(cues[-1][1], seconds * 1000 + 1)
            self.assertGreater(cues[-1][1], seconds * 1000 - 3000)
            # The cue of the first words of the second chunk starts after the first chunk ends.
            first_chunk_words = len(words(self.server.api(
                "GET", f"/orders/{created['id']}/items/{items[0]['id']}/text", key).body["data"]["text"]))
            seen = 0
            for start, _, cue_text in cues:
                if seen >= first_chunk_words:
                    self.assertGreaterEqual(start, items[0]["duration_ms"] - 50)
                    break
                seen += len(words(cue_text))
        self.assertTimingsMatchSubtitles(timings, srt, spoken, seconds, len(items))

    def assertTimingsMatchSubtitles(self, timings, srt, spoken, seconds, chunks):
        """result.timings.json: the characters spell the words, times never go back and end with
        the track, and every SRT cue starts within 50 ms of its first word's start."""
        self.assertGreaterEqual(chunks, 3)
        self.assertNotIn("estimated", timings)
        alignment = timings["alignment"]
        self.assertEqual(words("".join(alignment["characters"])), spoken)
        starts = alignment["character_start_times_seconds"]
        self.assertEqual(len(starts), len(alignment["characters"]))
        self.assertEqual(starts, sorted(starts))
        self.assertLess(abs(alignment["character_end_times_seconds"][-1] - seconds), 0.05)
        flat = [(w, word["start"]) for word in timings["words"] for w in words(word["text"])]
        self.assertEqual([w for w, _ in flat], spoken)
        seen = 0
        for start_ms, _, cue_text in srt:
            self.assertAlmostEqual(flat[seen][1] * 1000, start_ms, delta=50, msg=cue_text)
            seen += len(words(cue_text))

    def test_links_serve_ranges_and_attachments_and_refuse_tampering(self):
        _, key = self.account(balance=100_000)
        template = self.template(key, "provider_b")
        order = self.wait_order(key, self.assertSuccess(self.create(key, template, SENTENCES[0]), 201)["id"],
                                {"completed"})
        path = order["result"]["files"][0]
        url = self.assertSuccess(self.link(key, path, download=True))["url"]
        whole = self.fetch(url)
        self.assertEqual(whole.status, 200)
        # What the link serves is what the store holds (read past the server: folder or bucket).
        self.assertEqual(self.h.files.read(path), whole.body)
        self.assertIn("attachment", whole.headers.get("content-disposition", ""))
        self.assertEqual(whole.headers.get("accept-ranges"), "bytes")
        part = self.fetch(url, {"Range": "bytes=10-109"})
        self.assertEqual(part.status, 206)
        self.assertEqual(part.body, whole.body[10:110])
        self.assertEqual(part.headers.get("content-range"), f"bytes 10-109/{len(whole.body)}")
        self.assertEqual(self.fetch(url, {"Range": f"bytes={len(whole.body) + 5}-"}).status, 416)
        # One flipped character of the signature, the path or the expiry: refused.
        q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        for field in ("signature", "expires", "path"):
            bad = dict(q)
            value = bad[field]
            bad[field] = value[:-1] + ("A" if value[-1] != "A" else "B") if field != "path" else value.replace(".mp3", ".srt")
            if field == "expires":
                bad[field] = str(int(value) + 1)
            r = self.server.request("GET", "/api/storage/download?" + urllib.parse.urlencode(bad))
            self.assertEqual(r.status, 403, (field, r))
        inline = self.fetch(self.assertSuccess(self.link(key, path))["url"])
        self.assertIn("inline", inline.headers.get("content-disposition", ""))

    def test_paths_of_another_account_or_unknown_paths_are_404(self):
        _, key = self.account(balance=100_000)
        _, other_key = self.account(balance=100_000)
        template = self.template(key, "provider_b")
        order = self.wait_order(key, self.assertSuccess(self.create(key, template, SENTENCES[1]), 201)["id"],
                                {"completed"})
        path = order["result"]["files"][0]
        for who, p in ((other_key, path), (key, path.replace("result.mp3", "other.mp3")),
                       (key, "orders/00000000-0000-4000-8000-000000000000/result.mp3"), (key, "../etc/passwd")):
            r = self.link(who, p)
            self.assertIn(r.status, (404, 422), (p, r))
        # The other account's failed attempt left the order as it was.
        self.assertEqual(self.server.api("GET", f"/orders/{order['id']}", key).body["data"]["status"], "completed")

    def test_a_key_without_orders_download_cannot_ask_for_links(self):
        user, key = self.account(balance=100_000)
        reader = self.h.create_key(user["id"], scopes="orders.read")["key"]
        template = self.template(key, "provider_b")
        order = self.wait_order(key, self.assertSuccess(self.create(key, template, SENTENCES[2]), 201)["id"],
                                {"completed"})
        r = self.link(reader, order["result"]["files"][0])
        self.assert403(r, "orders.download")

    def assertIsoWithOffset(self, value):
        self.assertRegex(value, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$")


class RetentionTests(OrderFixtures, E2ETestCase):
    """Retention by configuration: files and texts go one second after a terminal status."""
    server_env = {"MEDIAGEN_WORKERS": "1", "MEDIAGEN_RETENTION_SECONDS": "1",
                  "MEDIAGEN_SWEEP_INTERVAL_MS": "200"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def test_after_retention_paths_stay_listed_links_die_and_texts_are_expired(self):
        _, key = self.account(balance=100_000)
        template = self.template(key, "provider_b")
        created = self.assertSuccess(self.create(key, template, SENTENCES[3]), 201)
        order = self.wait_order(key, created["id"], {"completed"})
        path = order["result"]["files"][0]
        url = self.assertSuccess(self.server.api("POST", "/storage/url", key, body={"path": path}))["url"]
        deadline = time.time() + 20
        while time.time() < deadline and self.h.psql_value(
                f"SELECT files_removed_at IS NOT NULL FROM orders WHERE id = '{created['id']}'") != "t":
            time.sleep(0.2)
        after = self.server.api("GET", f"/orders/{created['id']}", key).body["data"]
        self.assertEqual(after["result"]["files"], [path], "the order keeps listing the dead paths")
        # Gone from the store itself, with the order's other files.
        self.assertEqual(self.h.files.list(f"orders/{created['id']}/"), [])
        u = urllib.parse.urlsplit(url)
        self.assertEqual(self.server.request("GET", u.path + "?" + u.query).status, 404)
        item = after["items"][0]
        r = self.server.api("GET", f"/orders/{created['id']}/items/{item['id']}/text", key)
        self.assertEqual((r.status, r.body.get("reason")), (422, "input_expired"), r)
        r = self.server.api("POST", f"/orders/{created['id']}/retry", key)
        self.assertEqual((r.status, r.body.get("reason")), (422, "input_expired"), r)


if __name__ == "__main__":
    unittest.main()
