"""Per-key request-rate windows (spec 8.1 rate_limit_exceeded, 8.2 rule 1)."""

import unittest

from harness import E2ETestCase, CYRILLIC_RE, avoid_window_edge


class RateLimitTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def setUp(self):
        # a burst must not straddle a clock minute in case the windows are fixed
        avoid_window_edge(60, 4.0)

    def assert429(self, r, limit: str, max_retry: int):
        body = self.assertJsonResponse(r, 429)
        self.assertEqual(set(body), {"success", "message", "reason", "error_code", "retry_after"}, r)
        self.assertIs(body["success"], False)
        self.assertEqual(body["reason"], "rate_limit_exceeded")
        self.assertEqual(body["error_code"], "rate_limit_exceeded")
        self.assertIsInstance(body["retry_after"], int)
        self.assertNotIsInstance(body["retry_after"], bool)
        self.assertGreater(body["retry_after"], 0)
        self.assertLessEqual(body["retry_after"], max_retry)
        self.assertEqual(r.headers.get("x-ratelimit-limit"), limit, r)
        self.assertEqual(r.headers.get("x-ratelimit-remaining"), "0", r)
        self.assertIn("retry-after", r.headers, r)
        self.assertRegex(r.headers["retry-after"], r"^\d+$")
        self.assertGreater(int(r.headers["retry-after"]), 0)
        self.assertLessEqual(int(r.headers["retry-after"]), max_retry)
        return body

    def test_per_minute(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_minute=3)
        for remaining in (2, 1, 0):
            r = self.server.api("GET", "/user", k["key"])
            self.assertSuccess(r)
            self.assertEqual(r.headers.get("x-ratelimit-limit"), "3", r)
            self.assertEqual(r.headers.get("x-ratelimit-remaining"), str(remaining), r)
        self.assert429(self.server.api("GET", "/user", k["key"]), "3", 60)
        # stays refused; a refused request does not reset anything
        self.assert429(self.server.api("GET", "/user", k["key"]), "3", 60)
        self.assert429(self.server.api("GET", "/key", k["key"]), "3", 60)

    def test_per_hour(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_hour=2)
        for _ in range(2):
            self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.assert429(self.server.api("GET", "/user", k["key"]), "2", 3600)

    def test_per_day(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_day=1)
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.assert429(self.server.api("GET", "/user", k["key"]), "1", 86400)

    def test_strictest_window_wins(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_minute=10, rate_per_hour=2)
        for _ in range(2):
            self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        r = self.server.api("GET", "/user", k["key"])
        self.assertEqual(r.status, 429, r)
        self.assertEqual(r.body["reason"], "rate_limit_exceeded")
        self.assertLessEqual(r.body["retry_after"], 3600)

    def test_limits_are_per_key(self):
        a = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_minute=1)
        b = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_minute=1)
        self.assertSuccess(self.server.api("GET", "/user", a["key"]))
        self.assertEqual(self.server.api("GET", "/user", a["key"]).status, 429)
        self.assertSuccess(self.server.api("GET", "/user", b["key"]))

    def test_no_windows_no_limit_no_headers(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read")
        for _ in range(30):
            r = self.server.api("GET", "/user", k["key"])
            self.assertSuccess(r)
            self.assertNotIn("x-ratelimit-limit", r.headers, r)
            self.assertNotIn("x-ratelimit-remaining", r.headers, r)

    def test_429_localized_machine_fields_same(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_minute=1)
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        en = self.assert429(self.server.api("GET", "/user", k["key"], locale="en"), "1", 60)
        ru = self.assert429(self.server.api("GET", "/user", k["key"], locale="ru"), "1", 60)
        self.assertEqual(en["reason"], ru["reason"])
        self.assertEqual(en["error_code"], ru["error_code"])
        self.assertNotEqual(en["message"], ru["message"])
        self.assertRegex(ru["message"], CYRILLIC_RE)
        self.assertNotRegex(en["message"], CYRILLIC_RE)

    def test_401_not_counted(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", rate_per_minute=1)
        for _ in range(3):
            r = self.server.api("GET", "/user", k["key"] + "x")
            self.assert401(r, "invalid")
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))


if __name__ == "__main__":
    unittest.main()
