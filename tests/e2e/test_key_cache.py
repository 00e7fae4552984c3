"""The key cache (spec section 5 item 4): TTL, Redis invalidation, no backend work for hot keys."""

import time
import unittest
from datetime import datetime, timedelta, timezone

from harness import E2ETestCase, metric_sum, poll


def disable_sql(h, key_id):
    h.psql(f"UPDATE api_keys SET disabled_at = now() WHERE id = {int(key_id)}")


class ShortTtlTests(E2ETestCase):
    server_env = {"MEDIAGEN_KEY_CACHE_TTL_SECONDS": "2"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def test_sql_disable_takes_effect_after_ttl(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        cached_at = time.monotonic()
        disable_sql(self.h, k["id"])
        if time.monotonic() - cached_at < 1.5:
            self.assertSuccess(self.server.api("GET", "/key", k["key"]))  # still served from the cache
        time.sleep(max(0.0, cached_at + 2.5 - time.monotonic()))
        self.assert401(self.server.api("GET", "/key", k["key"]), "invalid")
        self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")

    def test_sql_block_takes_effect_after_ttl(self):
        u = self.h.create_user()
        k = self.h.create_key(u["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        cached_at = time.monotonic()
        self.h.psql(f"UPDATE users SET blocked_at = now() WHERE id = {int(u['id'])}")
        time.sleep(max(0.0, cached_at + 2.5 - time.monotonic()))
        self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")


class NoCacheTests(E2ETestCase):
    server_env = {"MEDIAGEN_KEY_CACHE_TTL_SECONDS": "0"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def test_sql_disable_immediate(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        disable_sql(self.h, k["id"])
        self.assert401(self.server.api("GET", "/key", k["key"]), "invalid")

    def test_sql_block_immediate(self):
        u = self.h.create_user()
        k = self.h.create_key(u["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.h.psql(f"UPDATE users SET blocked_at = now() WHERE id = {int(u['id'])}")
        self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")

    def test_sql_scope_change_immediate(self):
        k = self.h.create_key(self.user["id"], scopes="profile.read")
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.h.psql(f"UPDATE api_keys SET scopes = ARRAY['orders.read']::text[] WHERE id = {int(k['id'])}")
        self.assert403(self.server.api("GET", "/user", k["key"]), "profile.read")


class LongTtlTests(E2ETestCase):
    # API only (no generation workers): their queue polling would count as backend work here.
    server_env = {"MEDIAGEN_KEY_CACHE_TTL_SECONDS": "3600", "MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def test_sql_disable_not_seen_within_ttl(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        disable_sql(self.h, k["id"])
        time.sleep(1.0)
        self.assertSuccess(self.server.api("GET", "/key", k["key"]))

    def test_cli_disable_invalidates_at_once(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.h.disable_key(k["id"])
        refused = poll(lambda: self.server.api("GET", "/user", k["key"]).status == 401, timeout=1.0, interval=0.02)
        self.assertTrue(refused, "disabled key still accepted 1s after `admin key disable`")
        self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")
        self.assert401(self.server.api("GET", "/key", k["key"]), "invalid")

    def test_cli_block_invalidates_all_keys_of_user(self):
        u = self.h.create_user()
        keys = [self.h.create_key(u["id"], preset="full") for _ in range(2)]
        for k in keys:
            self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.h.block_user(u["id"])
        for k in keys:
            refused = poll(lambda: self.server.api("GET", "/key", k["key"]).status == 401, timeout=1.0, interval=0.02)
            self.assertTrue(refused, "blocked user's key still accepted 1s after `admin user block`")
            self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")

    def test_cached_key_still_expires(self):
        expires = (datetime.now(timezone.utc) + timedelta(seconds=5)).replace(microsecond=0)
        k = self.h.create_key(self.user["id"], preset="full", expires_at=expires.isoformat())
        self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        wait = (expires - datetime.now(timezone.utc)).total_seconds() + 0.6
        time.sleep(max(0.0, wait))
        self.assert401(self.server.api("GET", "/key", k["key"]), "expired")
        self.assert401(self.server.api("GET", "/user", k["key"]), "expired")

    def test_hot_key_causes_no_misses(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        before = self.server.metrics()
        for _ in range(50):
            self.assertEqual(self.server.api("GET", "/user", k["key"]).status, 200)
        after = self.server.metrics()
        self.assertEqual(metric_sum(after, "mediagen_key_cache_misses_total"),
                         metric_sum(before, "mediagen_key_cache_misses_total"))
        self.assertGreaterEqual(metric_sum(after, "mediagen_key_cache_hits_total")
                                - metric_sum(before, "mediagen_key_cache_hits_total"), 50)
        # the profile reads the balance, so the database counter is live
        self.assertGreater(metric_sum(after, "mediagen_db_queries_total"),
                           metric_sum(before, "mediagen_db_queries_total"))

    def test_key_route_does_no_backend_work(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertSuccess(self.server.api("GET", "/key", k["key"]))
        before = self.server.metrics()
        for _ in range(50):
            self.assertEqual(self.server.api("GET", "/key", k["key"]).status, 200)
        after = self.server.metrics()
        present = {n for n, _, _ in after}
        for name in ("mediagen_db_queries_total", "mediagen_redis_commands_total", "mediagen_key_cache_misses_total"):
            self.assertIn(name, present)
        for name in ("mediagen_db_queries_total", "mediagen_redis_commands_total", "mediagen_key_cache_misses_total"):
            with self.subTest(metric=name):
                self.assertEqual(metric_sum(after, name), metric_sum(before, name),
                                 f"{name} grew across 50 GET /key with a cached key")


if __name__ == "__main__":
    unittest.main()
