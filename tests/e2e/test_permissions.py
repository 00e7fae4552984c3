"""Permissions (spec section 5, items 6-10): presets, single scopes, wildcard, 403 shape."""

import unittest

from harness import E2ETestCase, ALL_SCOPES, PRESETS, FULL, MSG, poll, avoid_window_edge


class PermissionTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def key(self, **kw):
        return self.h.create_key(self.user["id"], **kw)

    # ---------------------------------------------------------------- presets

    def test_presets(self):
        for preset, expected in PRESETS.items():
            with self.subTest(preset=preset):
                k = self.key(preset=preset)
                self.assertEqual(set(k["scopes"]), expected, k)
                self.assertEqual(len(k["scopes"]), len(expected), f"duplicate scopes: {k['scopes']}")
                r = self.server.api("GET", "/user", k["key"])
                self.assertSuccess(r)
                data = self.assertSuccess(self.server.api("GET", "/key", k["key"]))
                self.assertEqual(set(data["scopes"]), expected)
                self.assertEqual(len(data["scopes"]), len(expected))

    def test_presets_have_no_reseller_scopes(self):
        for preset in PRESETS:
            k = self.key(preset=preset)
            self.assertNotIn("reseller.read", k["scopes"])
            self.assertNotIn("reseller.write", k["scopes"])

    def test_preset_and_scopes_union(self):
        k = self.key(preset="read_only", scopes="orders.write")
        self.assertEqual(set(k["scopes"]), PRESETS["automation"])
        k = self.key(preset="full", scopes="reseller.read,reseller.write")
        self.assertEqual(set(k["scopes"]), FULL | {"reseller.read", "reseller.write"})
        data = self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        self.assertEqual(set(data["scopes"]), FULL | {"reseller.read", "reseller.write"})

    def test_unknown_preset_or_scope_refused_by_cli(self):
        for args in (["--preset", "everything"], ["--scopes", "orders.read,bogus.scope"]):
            with self.subTest(args=args):
                p = self.h.run_cli("admin", "key", "create", "--user", self.user["id"], *args)
                self.assertNotEqual(p.returncode, 0, f"accepted {args}: {p.stdout}")
                self.assertTrue(p.stderr.strip(), "no error message on stderr")
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    # ---------------------------------------------------------------- single scopes

    def test_each_single_scope_on_profile(self):
        for scope in ALL_SCOPES:
            with self.subTest(scope=scope):
                k = self.key(scopes=scope)
                self.assertEqual(k["scopes"], [scope])
                r = self.server.api("GET", "/user", k["key"])
                if scope == "profile.read":
                    self.assertSuccess(r)
                else:
                    self.assert403(r, "profile.read")
                    self.assert403(self.server.api("GET", "/user", k["key"], locale="ru"), "profile.read", "ru")
                # GET /key needs no permission
                data = self.assertSuccess(self.server.api("GET", "/key", k["key"]))
                self.assertEqual(data["scopes"], [scope])

    def test_key_without_scopes(self):
        k = self.key()
        self.assertEqual(k["scopes"], [])
        self.assert403(self.server.api("GET", "/user", k["key"]), "profile.read")
        data = self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        self.assertEqual(data["scopes"], [])

    def test_wildcard(self):
        k = self.key(scopes="*")
        self.assertEqual(k["scopes"], ["*"])
        data = self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.assertEqual(data["id"], self.user["id"])
        data = self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        self.assertEqual(data["scopes"], ["*"])

    def test_403_exact_shape(self):
        k = self.key(scopes="orders.read")
        r = self.server.api("GET", "/user", k["key"])
        self.assertEqual(r.body, {"success": False,
                                  "message": MSG["en"]["forbidden"].format(scope="profile.read"),
                                  "data": None})
        self.assertNotIn("retry-after", r.headers)
        self.assertNotIn("x-ratelimit-limit", r.headers)

    def test_403_precedes_rate_limit_and_consumes_nothing(self):
        k = self.key(scopes="orders.read", rate_per_minute=1)
        avoid_window_edge(60, 4.0)
        for _ in range(5):
            r = self.server.api("GET", "/user", k["key"])
            self.assert403(r, "profile.read")
            self.assertNotIn("x-ratelimit-limit", r.headers, r)
            self.assertNotIn("x-ratelimit-remaining", r.headers, r)
        # the single request of the minute is still available
        r = self.server.api("GET", "/key", k["key"])
        self.assertSuccess(r)
        self.assertEqual(r.headers.get("x-ratelimit-limit"), "1", r)
        self.assertEqual(r.headers.get("x-ratelimit-remaining"), "0", r)
        r = self.server.api("GET", "/key", k["key"])
        self.assertEqual(r.status, 429, r)
        self.assertEqual(r.body["reason"], "rate_limit_exceeded")
        # still 403 (not 429) once the window is spent: permission precedes rate limiting
        self.assert403(self.server.api("GET", "/user", k["key"]), "profile.read")

    def test_403_proves_key_valid(self):
        k = self.key(scopes="voices.read")
        self.assertEqual(self.server.api("GET", "/user", k["key"]).status, 403)
        self.h.disable_key(k["id"])
        poll(lambda: self.server.api("GET", "/user", k["key"]).status == 401, 1.0)
        self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")

    def test_ru_user_scope_name_untranslated(self):
        k = self.key(scopes="billing.read")
        r = self.server.api("GET", "/user", k["key"], locale="ru")
        self.assertIn("profile.read", r.body["message"])
        self.assertEqual(r.body["message"], MSG["ru"]["forbidden"].format(scope="profile.read"))


if __name__ == "__main__":
    unittest.main()
