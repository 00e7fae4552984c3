"""What a preview leaves in Redis is bounded (spec 4.1.2): plans are kept deflated, a large plan
lives 5 minutes instead of 30, and an account keeps at most 4 large plans. The answers are those
of the whole plan, page by page."""

import hashlib
import json
import random
import time
import unittest

from harness import E2ETestCase
from realtime_support import redis_command

PREVIEW = "/orders/chunks/preview"
MAX_CHARS = 1_000_000
# The bound for one plan of prose: a 1,000,000-character plan renders to more than 1.2 MB of JSON.
BOUND_BYTES = 600 * 1024
LARGE_TTL = 300
LARGE_PER_ACCOUNT = 4

WORDS = ("the of and a to in is you that it he was for on are as with his they at be this have from or one "
         "had by word but not what all were we when your can said there use an each which she do how their "
         "if will up other about out many then them these so some her would make like him into time has look "
         "two more write go see number no way could people my than first water been call who oil its now find "
         "long down day did get come made may part река город время человек слово дело жизнь день рука работа "
         "голос ночь место лицо друг глаз вопрос дом сторона страна мир случай голова ребёнок сила конец").split()


def prose(chars: int, seed: int) -> str:
    """Sentences of common English and Russian words, exactly `chars` code points long."""
    rng = random.Random(seed)
    parts, size = [], 0
    while size < chars:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
        parts.append(sentence)
        size += len(sentence) + 1
    text = " ".join(parts)[:chars - 1]
    return (text[:-1] + "x" if text.endswith(" ") else text) + "."


class PreviewBoundTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        h = cls.h
        h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.owner = h.create_user(email="preview-bounds@example.com")
        cls.key = h.create_key(cls.owner["id"], preset="full")["key"]
        listing = cls.server.api("GET", "/voices/provider_a/library?page_size=1", cls.key).body["data"]
        voices = listing.get("voices") or listing.get("items")
        body = {"service_key": "provider_a", "name": "bounds",
                "config": {"tts_settings": {"mode": "mode_v1", "model_id": "a-v3", "voice_id": voices[0]["voice_id"]}}}
        r = cls.server.api("POST", "/templates", cls.key, body=body)
        assert r.status in (200, 201), r
        cls.template = r.body["data"]["id"]

    def redis_key(self, preview_id):
        return f"{self.h.redis_prefix}preview:{self.owner['id']}:{preview_id}"

    def redis(self, *args):
        return redis_command(self.h.redis_url, *args)

    def plan(self, text):
        """POSTs the text and polls GET by id until the plan is ready; returns the preview id."""
        first = self.assertSuccess(self.server.api("POST", PREVIEW, self.key,
                                                   body={"template_id": self.template, "input_text": text}), 202)
        deadline = time.time() + 120
        while True:
            r = self.server.api("GET", f"{PREVIEW}/{first['preview_id']}", self.key)
            if r.status != 202 or time.time() > deadline:
                break
            time.sleep(0.2)
        self.assertSuccess(r)
        return first["preview_id"]

    def all_pages(self, preview_id):
        chunks, page = [], 1
        while True:
            r = self.server.api("GET", f"{PREVIEW}/{preview_id}?page={page}&per_page=500", self.key)
            data = self.assertSuccess(r)
            chunks += data["chunks"]
            if not data["page"]["has_more"]:
                return data["summary"], chunks
            page += 1

    def test_a_maximum_size_plan_stays_within_the_bound_and_reads_whole(self):
        text = prose(MAX_CHARS, seed=1)
        self.assertEqual(len(text), MAX_CHARS)
        preview_id = self.plan(text)
        stored = int(self.redis("STRLEN", self.redis_key(preview_id)))
        self.assertGreater(stored, 0)
        self.assertLessEqual(stored, BOUND_BYTES, f"{stored} bytes in Redis")
        ttl = int(self.redis("TTL", self.redis_key(preview_id)))
        self.assertTrue(0 < ttl <= LARGE_TTL, ttl)
        summary, chunks = self.all_pages(preview_id)
        # Every chunk, in order, rejoining to the text: the whole plan, not a cut of it.
        self.assertEqual(summary["chunks"], len(chunks))
        self.assertEqual([c["chunk_index"] for c in chunks], list(range(len(chunks))))
        self.assertEqual(" ".join(c["text"] for c in chunks), text)
        self.assertEqual(summary["total_chars"], MAX_CHARS)
        self.assertEqual(summary["billable_chars"], sum(c["billable_length"] for c in chunks))
        for c in chunks:
            self.assertEqual(c["length"], len(c["text"]))
        # By text hash, the same first page.
        by_hash = self.assertSuccess(self.server.api(
            "GET", f"{PREVIEW}?template_id={self.template}&text_hash={hashlib.sha256(text.encode()).hexdigest()}",
            self.key))
        self.assertEqual(by_hash["chunks"], chunks[:100])
        self.assertEqual(by_hash["summary"], summary)
        whole = len(json.dumps({"summary": summary, "chunks": chunks}, ensure_ascii=False, separators=(",", ":")).encode())
        print(f"\n[preview bound] {MAX_CHARS} characters ({len(text.encode())} bytes UTF-8), {len(chunks)} chunks: "
              f"{stored} bytes in Redis (the plan's JSON: {whole} bytes), TTL {ttl} s", flush=True)

    def test_an_account_keeps_at_most_four_large_plans(self):
        # Each packs above the large-plan threshold (64 KiB).
        ids = [self.plan(prose(MAX_CHARS // 4, seed=100 + i)) for i in range(LARGE_PER_ACCOUNT + 1)]
        present = [bool(int(self.redis("EXISTS", self.redis_key(i)))) for i in ids]
        self.assertEqual(present, [False] + [True] * LARGE_PER_ACCOUNT)
        # The evicted one answers as an expired one does (spec 4.1.2: 404, resubmit with POST).
        self.assertEqual(self.server.api("GET", f"{PREVIEW}/{ids[0]}", self.key).status, 404)
        self.assertEqual(self.server.api("GET", f"{PREVIEW}/{ids[1]}", self.key).status, 200)

    def test_a_small_plan_keeps_the_long_ttl(self):
        text = "A short text that is planned at once. " * 10
        data = self.assertSuccess(self.server.api("POST", PREVIEW, self.key,
                                                  body={"template_id": self.template, "input_text": text}))
        ttl = int(self.redis("TTL", self.redis_key(data["preview_id"])))
        self.assertTrue(LARGE_TTL < ttl <= 1800, ttl)
        stored = self.redis("GET", self.redis_key(data["preview_id"]))
        self.assertTrue(stored.startswith(b"z1:"), stored[:10])


if __name__ == "__main__":
    unittest.main()
