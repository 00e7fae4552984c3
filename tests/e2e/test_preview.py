"""Chunk preview (spec 4.1, 4.1.2): POST, GET by text_hash, GET by id with pages, isolation, throttles."""

import hashlib
import json
import time
import unittest

from harness import E2ETestCase

PREVIEW = "/orders/chunks/preview"
PAGE_KEYS = {"current_page", "per_page", "total", "has_more"}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PreviewTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        h = cls.h
        h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.owner = h.create_user(email="preview-owner@example.com")
        cls.key = h.create_key(cls.owner["id"], preset="full")["key"]
        cls.other = h.create_user(email="preview-other@example.com")
        cls.other_key = h.create_key(cls.other["id"], preset="full")["key"]
        cls.template = cls.make_template(cls.key, "provider_a", "a-v3")
        cls.other_template = cls.make_template(cls.other_key, "provider_a", "a-v3")
        cls.bytes_template = cls.make_template(cls.key, "provider_d", "d-base")

    @classmethod
    def make_template(cls, key, service, model):
        path = "/voices/provider_a/library?page_size=1" if service == "provider_a" else f"/voices/{service}?page=1"
        listing = cls.server.api("GET", path, key).body["data"]
        voices = listing.get("voices") or listing.get("items")
        body = {"service_key": service, "name": f"{service} preview",
                "config": {"tts_settings": {"mode": "mode_v1", "model_id": model, "voice_id": voices[0]["voice_id"]}}}
        r = cls.server.api("POST", "/templates", key, body=body)
        assert r.status in (200, 201), r
        return r.body["data"]["id"]

    def post(self, body, key=None, ip=None):
        return self.server.api("POST", PREVIEW, key or self.key, body=body, ip=ip)

    def test_short_text_is_ready_with_one_page(self):
        text = "Hello [not spoken] world. (Parens) <tag> *stars* stay.\n\nA second paragraph."
        data = self.assertSuccess(self.post({"template_id": self.template, "input_text": text}))
        self.assertEqual(data["status"], "ready")
        self.assertRegex(data["preview_id"], r"^[0-9a-f]{64}$")
        self.assertEqual(set(data["page"]), PAGE_KEYS)
        self.assertEqual(data["page"]["current_page"], 1)
        self.assertEqual(data["page"]["per_page"], 100)
        self.assertFalse(data["page"]["has_more"])
        self.assertNotIn("meta", data)
        joined = " ".join(c["text"] for c in data["chunks"])
        self.assertNotIn("not spoken", joined)
        for kept in ("(Parens)", "<tag>", "*stars*"):
            self.assertIn(kept, joined)
        self.assertIs(data["summary"]["caps_ok"] in (True, False), True)
        self.assertEqual(data["summary"]["billable_chars"], sum(c["billable_length"] for c in data["chunks"]))

    def test_ids_are_deterministic_and_depend_on_mode_and_template(self):
        body = {"template_id": self.template, "input_text": "Same text. Same id."}
        a = self.assertSuccess(self.post(body))["preview_id"]
        b = self.assertSuccess(self.post(body))["preview_id"]
        self.assertEqual(a, b)
        c = self.assertSuccess(self.post({**body, "generation_mode": "paragraph"}))["preview_id"]
        self.assertNotEqual(a, c)
        d = self.assertSuccess(self.post({**body, "template_id": self.bytes_template}))["preview_id"]
        self.assertNotEqual(a, d)

    def test_get_by_text_hash_and_by_id(self):
        text = "Cached by hash. " * 20
        posted = self.assertSuccess(self.post({"template_id": self.template, "input_text": text}))
        by_hash = self.assertSuccess(self.server.api(
            "GET", f"{PREVIEW}?template_id={self.template}&text_hash={sha(text)}", self.key))
        self.assertEqual(by_hash["preview_id"], posted["preview_id"])
        by_id = self.assertSuccess(self.server.api("GET", f"{PREVIEW}/{posted['preview_id']}", self.key))
        self.assertEqual(by_id["chunks"], posted["chunks"])
        missing = self.server.api("GET", f"{PREVIEW}?template_id={self.template}&text_hash={sha('never sent')}",
                                  self.key)
        self.assertEqual(missing.status, 404, missing)

    def test_long_text_is_processed_in_the_background(self):
        text = "A sentence of the long text goes here. " * 1600  # 62,400 characters
        self.assertGreater(len(text), 50000)
        first = self.post({"template_id": self.template, "input_text": text})
        data = self.assertSuccess(first, 202)
        self.assertEqual(data, {"status": "processing", "preview_id": data["preview_id"]})
        deadline = time.time() + 30
        while True:
            r = self.server.api("GET", f"{PREVIEW}/{data['preview_id']}", self.key)
            if r.status == 200 or time.time() > deadline:
                break
            self.assertEqual(r.status, 202, r)
            time.sleep(0.1)
        ready = self.assertSuccess(r)
        self.assertEqual(ready["status"], "ready")
        self.assertGreater(ready["summary"]["chunks"], 1)
        self.assertEqual(ready["summary"]["total_chars"], len(text.strip()))
        for c in ready["chunks"]:
            self.assertLessEqual(c["raw_length"], ready["summary"]["capacity"])
        again = self.assertSuccess(self.post({"template_id": self.template, "input_text": text}))
        self.assertEqual(again["preview_id"], data["preview_id"], "a repeat is served from the cache")

    def test_pages(self):
        text = "\n\n".join(f"Paragraph number {i} has a few words." for i in range(12))
        data = self.assertSuccess(self.post(
            {"template_id": self.template, "input_text": text, "generation_mode": "paragraph"}))
        pid = data["preview_id"]
        total = data["page"]["total"]
        self.assertEqual(total, 12)
        self.assertEqual([c["paragraph_index"] for c in data["chunks"]], list(range(12)))
        p2 = self.assertSuccess(self.server.api("GET", f"{PREVIEW}/{pid}?page=2&per_page=5", self.key))
        self.assertEqual([c["chunk_index"] for c in p2["chunks"]], [5, 6, 7, 8, 9])
        self.assertEqual(p2["page"], {"current_page": 2, "per_page": 5, "total": 12, "has_more": True})
        last = self.assertSuccess(self.server.api("GET", f"{PREVIEW}/{pid}?page=3&per_page=5", self.key))
        self.assertEqual(len(last["chunks"]), 2)
        self.assertFalse(last["page"]["has_more"])
        beyond = self.assertSuccess(self.server.api("GET", f"{PREVIEW}/{pid}?page=40&per_page=5", self.key))
        self.assertEqual(beyond["chunks"], [])
        self.assertFalse(beyond["page"]["has_more"])
        self.assertEqual(beyond["summary"], data["summary"], "the summary covers the whole text on every page")
        for bad in ("page=0", "per_page=0", "per_page=501", "page=x", "per_page=-1"):
            r = self.server.api("GET", f"{PREVIEW}/{pid}?{bad}", self.key)
            self.assertEqual(r.status, 422, (bad, r))
            self.assertNotIn("success", r.body)
            self.assertEqual(list(r.body["errors"]), [bad.split("=")[0]])
        full = self.assertSuccess(self.server.api("GET", f"{PREVIEW}/{pid}?per_page=500", self.key))
        self.assertEqual(len(full["chunks"]), 12)

    def test_previews_are_isolated_per_owner(self):
        data = self.assertSuccess(self.post({"template_id": self.template, "input_text": "Mine alone."}))
        r = self.server.api("GET", f"{PREVIEW}/{data['preview_id']}", self.other_key)
        self.assertEqual(r.status, 404, r)
        self.assertNotIn("Mine alone", json.dumps(r.body))
        r = self.server.api("GET", f"{PREVIEW}?template_id={self.template}&text_hash={sha('Mine alone.')}",
                            self.other_key)
        self.assertEqual(r.status, 403, r)
        self.assertEqual(r.body["reason"], "template_access_denied")

    def test_another_accounts_template_is_refused(self):
        r = self.post({"template_id": self.other_template, "input_text": "Hello."})
        self.assertEqual(r.status, 403, r)
        self.assertEqual(r.body["reason"], "template_access_denied")
        self.assertEqual(r.body["error_code"], "template_access_denied")
        r = self.post({"template_id": "00000000-0000-4000-8000-000000000000", "input_text": "Hello."})
        self.assertEqual(r.status, 404, r)

    def test_validation(self):
        cases = [
            ({"template_id": self.template}, "input_text"),
            ({"template_id": self.template, "input_text": ""}, "input_text"),
            ({"template_id": self.template, "input_text": 12}, "input_text"),
            ({"input_text": "Hello."}, "template_id"),
            ({"template_id": "not-a-uuid", "input_text": "Hello."}, "template_id"),
            ({"template_id": self.template, "input_text": "Hi", "generation_mode": "fast"}, "generation_mode"),
            ({"template_id": self.template, "input_text": "Hi", "text_hash": "abc"}, "text_hash"),
            ({"template_id": self.template, "input_text": "Hi", "text_hash": sha("other")}, "text_hash"),
            ({"template_id": self.template, "input_text": "Hi", "task_type": "video"}, "task_type"),
        ]
        for body, field in cases:
            r = self.post(body)
            self.assertEqual(r.status, 422, (body, r))
            self.assertNotIn("success", r.body)
            self.assertIn(field, r.body["errors"], (body, r.body))
        r = self.post({"input_text": "Hi", "task_type": "image"})
        self.assertEqual((r.status, r.body.get("reason")), (422, "service_not_found"))

    def test_invalid_utf8_is_refused(self):
        raw = b'{"template_id": "%s", "input_text": "bad \xff\xfe bytes"}' % self.template.encode()
        r = self.server.api("POST", PREVIEW, self.key, body=raw, headers={"Content-Type": "application/json"})
        self.assertEqual(r.status, 422, r)
        self.assertNotIn("success", r.body)
        self.assertIn("body", r.body["errors"])

    def test_utf8_bytes_capacity(self):
        text = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 200
        data = self.assertSuccess(self.post({"template_id": self.bytes_template, "input_text": text}))
        self.assertEqual(data["summary"]["capacity_unit"], "utf8_bytes")
        for c in data["chunks"]:
            self.assertLessEqual(len(c["text"].encode("utf-8")), data["summary"]["capacity"])
            self.assertEqual(c["raw_length"], len(c["text"].encode("utf-8")))

    def test_preview_needs_orders_read(self):
        k = self.h.create_key(self.owner["id"], scopes="templates.read")["key"]
        self.assert403(self.post({"template_id": self.template, "input_text": "Hi"}, key=k), "orders.read")


class PreviewThrottleTests(E2ETestCase):
    """30 previews a minute per key; the reads have their own 120 a minute."""

    @classmethod
    def prepare(cls):
        cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        user = cls.h.create_user(email="throttled@example.com")
        cls.key = cls.h.create_key(user["id"], preset="full")["key"]
        cls.template = PreviewTests.make_template.__func__(cls, cls.key, "provider_a", "a-v3")

    def test_thirty_first_post_in_a_minute_is_refused(self):
        # A minute boundary in the middle would reset the window: start right after one.
        if time.time() % 60 > 50:
            time.sleep(61 - time.time() % 60)
        statuses = [self.server.api("POST", PREVIEW, self.key,
                                    body={"template_id": self.template, "input_text": f"Text {i}."}).status
                    for i in range(31)]
        self.assertEqual(statuses[:30], [200] * 30)
        self.assertEqual(statuses[30], 429)
        r = self.server.api("POST", PREVIEW, self.key, body={"template_id": self.template, "input_text": "More."})
        self.assertEqual(r.body["reason"], "rate_limit_exceeded")
        self.assertGreater(r.body["retry_after"], 0)
        # Reads are throttled separately and still pass.
        self.assertEqual(self.server.api("GET", f"{PREVIEW}/{'0' * 64}", self.key).status, 404)


if __name__ == "__main__":
    unittest.main()
