"""GET {prefix}/user, GET {prefix}/key and 405 handling."""

import unittest

from harness import E2ETestCase, ISO_RE, KEY_RE, MSG_405, parse_iso, poll

PROFILE_KEYS = {"id", "email", "name", "locale", "created_at", "updated_at", "balance", "plan"}
KEY_INFO_KEYS = {"id", "user_id", "name", "prefix", "scopes", "expires_at", "created_at", "limits",
                 "ai_monthly_limit_minor"}


class ProfileTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        h = cls.h
        cls.user = h.create_user(email="profile-owner@example.com", name="Profile Owner", locale="en",
                                 balance=12345)
        cls.key = h.create_key(cls.user["id"], preset="read_only", name="profile key")
        cls.other = h.create_user(email="someone-else@example.com", name="Other")
        cls.other_key = h.create_key(cls.other["id"], preset="full")

    def test_user_create_output(self):
        u = self.user
        self.assertIsInstance(u["id"], int)
        self.assertEqual(u["email"], "profile-owner@example.com")
        self.assertEqual(u["name"], "Profile Owner")
        self.assertEqual(u["locale"], "en")
        self.assertEqual(u["balance_minor"], 12345)

    def test_profile(self):
        r = self.server.api("GET", "/user", self.key["key"])
        data = self.assertSuccess(r)
        self.assertEqual(set(data), PROFILE_KEYS, data)
        self.assertEqual(data["id"], self.user["id"])
        self.assertEqual(data["email"], "profile-owner@example.com")
        self.assertEqual(data["name"], "Profile Owner")
        self.assertEqual(data["locale"], "en")
        self.assertRegex(data["created_at"], ISO_RE)
        self.assertRegex(data["updated_at"], ISO_RE)
        self.assertTrue(data["created_at"].endswith("+00:00"), data["created_at"])
        self.assertLessEqual(parse_iso(data["created_at"]), parse_iso(data["updated_at"]))
        bal = data["balance"]
        self.assertEqual(set(bal), {"amount", "amount_formatted", "currency_asset"}, bal)
        self.assertEqual(bal["amount"], "12345")
        self.assertIsInstance(bal["amount_formatted"], (int, float))
        self.assertNotIsInstance(bal["amount_formatted"], bool)
        self.assertAlmostEqual(bal["amount_formatted"], 123.45, places=6)
        self.assertEqual(bal["currency_asset"], {"code": "USD", "precision": 2})
        self.assertIsNone(data["plan"])  # no live subscription
        self.assertEqual(r.headers.get("x-timezone"), "UTC")

    def test_profile_is_own(self):
        data = self.assertSuccess(self.server.api("GET", "/user", self.other_key["key"]))
        self.assertEqual(data["id"], self.other["id"])
        self.assertEqual(data["email"], "someone-else@example.com")

    def test_zero_balance(self):
        u = self.h.create_user()
        self.assertEqual(u["balance_minor"], 0)
        k = self.h.create_key(u["id"], scopes="profile.read")
        bal = self.assertSuccess(self.server.api("GET", "/user", k["key"]))["balance"]
        self.assertEqual(bal["amount"], "0")
        self.assertEqual(bal["amount_formatted"], 0)
        self.assertEqual(bal["currency_asset"], {"code": "USD", "precision": 2})

    def test_balance_change_visible(self):
        u = self.h.create_user(balance=100)
        k = self.h.create_key(u["id"], scopes="profile.read")
        self.assertEqual(self.assertSuccess(self.server.api("GET", "/user", k["key"]))["balance"]["amount"], "100")
        out = self.h.cli("admin", "user", "balance", "--user", u["id"], "--add", 250)
        self.assertEqual(out, {"id": u["id"], "balance_minor": 350})
        # The CLI's announcement drops the cached profile (test_profile_cache.py); it travels
        # through Redis, so it may land a moment after the CLI returned.
        poll(lambda: self.server.api("GET", "/user", k["key"]).body["data"]["balance"]["amount"] == "350", timeout=5)
        bal = self.assertSuccess(self.server.api("GET", "/user", k["key"]))["balance"]
        self.assertEqual(bal["amount"], "350")
        self.assertAlmostEqual(bal["amount_formatted"], 3.5, places=6)

    def test_large_balance_is_exact_string(self):
        u = self.h.create_user(balance=9007199254740993)  # 2^53 + 1: not representable as a double
        k = self.h.create_key(u["id"], scopes="profile.read")
        bal = self.assertSuccess(self.server.api("GET", "/user", k["key"]))["balance"]
        self.assertEqual(bal["amount"], "9007199254740993")

    def test_head_user(self):
        r = self.server.request("HEAD", "/api/user", {"X-API-KEY": self.key["key"]})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.raw, b"")

    # ---------------------------------------------------------------- /key

    def test_key_info(self):
        r = self.server.api("GET", "/key", self.key["key"])
        data = self.assertSuccess(r)
        self.assertEqual(set(data), KEY_INFO_KEYS, data)
        self.assertEqual(data["id"], self.key["id"])
        self.assertEqual(data["name"], "profile key")
        self.assertEqual(set(data["scopes"]), set(self.key["scopes"]))
        self.assertIsNone(data["expires_at"])
        self.assertRegex(data["created_at"], ISO_RE)
        self.assertEqual(data["limits"], {
            "requests": {"per_minute": None, "per_hour": None, "per_day": None},
            "tokens": {"per_minute": None, "per_hour": None, "per_day": None, "per_month": None, "quota": None},
        })
        self.assertIsNone(data["ai_monthly_limit_minor"])
        text = r.raw.decode()
        self.assertNotIn(self.key["key"], text)
        self.assertNotIn("key_hash", text)

    def test_key_info_with_limits(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read", name="limited",
                              expires_at="2098-01-02T03:04:05+00:00",
                              rate_per_minute=100, rate_per_hour=1000, rate_per_day=10000,
                              tokens_per_minute=11, tokens_per_hour=22, tokens_per_day=33, tokens_per_month=44,
                              tokens_quota=500, ai_monthly_limit=2500)
        self.assertRegex(k["key"], KEY_RE)
        data = self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        self.assertEqual(set(data), KEY_INFO_KEYS, data)
        self.assertEqual(data["name"], "limited")
        self.assertEqual(data["expires_at"], "2098-01-02T03:04:05+00:00")
        self.assertEqual(data["limits"]["requests"], {"per_minute": 100, "per_hour": 1000, "per_day": 10000})
        tokens = data["limits"]["tokens"]
        self.assertEqual(set(tokens), {"per_minute", "per_hour", "per_day", "per_month", "quota"})
        self.assertEqual([tokens[w] for w in ("per_minute", "per_hour", "per_day", "per_month")], [11, 22, 33, 44])
        self.assertEqual(tokens["quota"], {"limit": 500, "used": 0, "remaining": 500})
        self.assertEqual(data["ai_monthly_limit_minor"], 2500)

    def test_key_info_other_key(self):
        data = self.assertSuccess(self.server.api("GET", "/key", self.other_key["key"]))
        self.assertEqual(data["id"], self.other_key["id"])

    # ---------------------------------------------------------------- 405

    def assert405(self, r, method):
        body = self.assertJsonResponse(r, 405)
        self.assertEqual(body, {"success": False, "message": MSG_405}, r)
        self.assertIn("allow", r.headers, r)
        allowed = {m.strip().upper() for m in r.headers["allow"].split(",")}
        self.assertIn("GET", allowed, r)
        self.assertNotIn(method, allowed, r)

    def test_405(self):
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            with self.subTest(method=method):
                self.assert405(self.server.api(method, "/key", self.key["key"]), method)

    def test_the_profile_cannot_be_changed_so_other_methods_are_unknown_paths(self):
        # Spec 1: a key cannot change the profile; that route does not exist (404, not 405).
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            with self.subTest(method=method):
                r = self.server.api(method, "/user", self.key["key"])
                self.assertEqual((r.status, r.body.get("reason")), (404, "endpoint_not_found"), r)
                self.assertNotIn("allow", r.headers)

    def test_405_before_auth(self):
        self.assert405(self.server.api("POST", "/key"), "POST")
        self.assert405(self.server.api("DELETE", "/key", "mg_invalid"), "DELETE")

    def test_405_on_public_healthz(self):
        self.assert405(self.server.request("POST", "/healthz"), "POST")

    def test_healthz_public(self):
        r = self.server.request("GET", "/healthz")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body, {"status": "ok"})


if __name__ == "__main__":
    unittest.main()
