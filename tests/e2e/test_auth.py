"""Authentication (spec section 5): the X-API-KEY header and every 401 variant."""

import secrets
import unittest

from harness import E2ETestCase, KEY_RE, ISO_RE, MSG, poll


class AuthTests(E2ETestCase):

    @classmethod
    def prepare(cls):
        h = cls.h
        cls.user = h.create_user(name="Auth Owner")
        cls.key = h.create_key(cls.user["id"], preset="full", name="main")
        cls.expired = h.create_key(cls.user["id"], preset="full", expires_at="2000-01-01T00:00:00+00:00")
        cls.future = h.create_key(cls.user["id"], preset="full", expires_at="2099-06-01T12:00:00+00:00")
        cls.disabled = h.create_key(cls.user["id"], preset="full")
        h.disable_key(cls.disabled["id"])
        cls.blocked_user = h.create_user()
        cls.blocked_key = h.create_key(cls.blocked_user["id"], preset="full")
        cls.block_result = h.block_user(cls.blocked_user["id"])

    # ---------------------------------------------------------------- CLI output

    def test_key_create_output(self):
        k = self.key
        self.assertRegex(k["key"], KEY_RE)
        self.assertIsInstance(k["id"], int)
        self.assertEqual(k["user_id"], self.user["id"])
        self.assertEqual(k["name"], "main")
        self.assertIsNone(k["expires_at"])
        self.assertIsNotNone(self.expired["expires_at"])
        self.assertNotEqual(self.key["key"], self.expired["key"])

    def test_block_output(self):
        self.assertEqual(self.block_result, {"id": self.blocked_user["id"], "blocked": True})

    def test_disable_output(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertEqual(self.h.disable_key(k["id"]), {"id": k["id"], "disabled": True})

    def test_key_stored_only_as_sha256(self):
        plain = self.key["key"]
        n = self.h.psql_value(
            f"SELECT count(*) FROM api_keys WHERE id = {int(self.key['id'])} "
            f"AND key_hash = sha256(convert_to('{plain}', 'UTF8'))")
        self.assertEqual(n, "1", "api_keys.key_hash is not sha256 of the plaintext key")
        dump = self.h.psql(f"SELECT row_to_json(k)::text FROM api_keys k WHERE id = {int(self.key['id'])}")
        self.assertNotIn(plain, dump, "the plaintext key is stored in api_keys")
        self.assertNotIn(plain[3:], dump, "the plaintext key body is stored in api_keys")

    # ---------------------------------------------------------------- valid key

    def test_valid_key(self):
        r = self.server.api("GET", "/user", self.key["key"])
        data = self.assertSuccess(r)
        self.assertEqual(data["id"], self.user["id"])
        self.assertNotIn("retry-after", r.headers)

    def test_header_name_case_insensitive(self):
        r = self.server.request("GET", "/api/user", {"x-api-key": self.key["key"]})
        self.assertSuccess(r)

    def test_future_expiry_is_valid(self):
        r = self.server.api("GET", "/key", self.future["key"])
        data = self.assertSuccess(r)
        self.assertRegex(data["expires_at"], ISO_RE)
        self.assertTrue(data["expires_at"].startswith("2099-06-01T12:00:00"), data["expires_at"])

    # ---------------------------------------------------------------- missing

    def test_missing_en(self):
        for path in ("/user", "/key"):
            with self.subTest(path=path):
                self.assert401(self.server.api("GET", path), "missing")

    def test_missing_ru(self):
        for path in ("/user", "/key"):
            with self.subTest(path=path):
                self.assert401(self.server.api("GET", path, locale="ru"), "missing", "ru")

    def test_authorization_bearer_is_missing(self):
        for value in ("Bearer " + self.key["key"], self.key["key"]):
            with self.subTest(value=value[:10]):
                r = self.server.api("GET", "/user", headers={"Authorization": value})
                self.assert401(r, "missing")

    def test_api_key_header_is_missing(self):
        r = self.server.api("GET", "/user", headers={"Api-Key": self.key["key"]})
        self.assert401(r, "missing")
        r = self.server.api("GET", "/user", headers={"Api-Key": self.key["key"]}, locale="ru")
        self.assert401(r, "missing", "ru")

    def test_other_header_names_are_missing(self):
        for name in ("X-Api-Token", "Key", "X-Key", "ApiKey"):
            with self.subTest(header=name):
                self.assert401(self.server.api("GET", "/user", headers={name: self.key["key"]}), "missing")

    def test_key_in_query_is_missing(self):
        r = self.server.request("GET", f"/api/user?api_key={self.key['key']}")
        self.assert401(r, "missing")

    def test_empty_header(self):
        r = self.server.request("GET", "/api/user", {"X-API-KEY": ""})
        self.assertEqual(r.status, 401, r)
        self.assertEqual(set(r.body), {"success", "message", "data"})
        self.assertIn(r.body["message"], (MSG["en"]["missing"], MSG["en"]["invalid"]))
        self.assertNotIn("retry-after", r.headers)

    # ---------------------------------------------------------------- invalid

    def test_unknown_key_en_ru(self):
        unknown = "mg_" + secrets.token_urlsafe(32)[:43]
        for value in (unknown, "hello", "mg_", "x" * 300, self.key["key"][:-1], self.key["key"] + "A"):
            with self.subTest(value=value[:12]):
                self.assert401(self.server.api("GET", "/user", value), "invalid")
                self.assert401(self.server.api("GET", "/user", value, locale="ru"), "invalid", "ru")

    def test_key_with_surrounding_garbage(self):
        r = self.server.api("GET", "/user", "Bearer " + self.key["key"])
        self.assert401(r, "invalid")

    def test_disabled_key_invalid(self):
        for path in ("/user", "/key"):
            with self.subTest(path=path):
                self.assert401(self.server.api("GET", path, self.disabled["key"]), "invalid")
                self.assert401(self.server.api("GET", path, self.disabled["key"], locale="ru"), "invalid", "ru")

    def test_blocked_user_key_invalid(self):
        for path in ("/user", "/key"):
            with self.subTest(path=path):
                self.assert401(self.server.api("GET", path, self.blocked_key["key"]), "invalid")
                self.assert401(self.server.api("GET", path, self.blocked_key["key"], locale="ru"), "invalid", "ru")

    def test_blocked_after_use(self):
        user = self.h.create_user()
        key = self.h.create_key(user["id"], preset="read_only")
        self.assertSuccess(self.server.api("GET", "/user", key["key"]))
        self.h.block_user(user["id"])
        # Redis invalidation reaches the server asynchronously: allow a moment
        poll(lambda: self.server.api("GET", "/user", key["key"]).status == 401, 1.0)
        self.assert401(self.server.api("GET", "/user", key["key"]), "invalid")

    def test_disabled_after_use(self):
        key = self.h.create_key(self.user["id"], preset="read_only")
        self.assertSuccess(self.server.api("GET", "/key", key["key"]))
        self.h.disable_key(key["id"])
        poll(lambda: self.server.api("GET", "/key", key["key"]).status == 401, 1.0)
        self.assert401(self.server.api("GET", "/key", key["key"]), "invalid")

    # ---------------------------------------------------------------- expired

    def test_expired_en_ru(self):
        for path in ("/user", "/key"):
            with self.subTest(path=path):
                self.assert401(self.server.api("GET", path, self.expired["key"]), "expired")
                self.assert401(self.server.api("GET", path, self.expired["key"], locale="ru"), "expired", "ru")

    def test_401_is_deterministic(self):
        for _ in range(3):
            self.assert401(self.server.api("GET", "/user", self.expired["key"]), "expired")
            self.assert401(self.server.api("GET", "/user", "mg_" + "A" * 43), "invalid")
            self.assert401(self.server.api("GET", "/user"), "missing")


if __name__ == "__main__":
    unittest.main()
