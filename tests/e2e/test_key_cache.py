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
    server_env = {"MEDIAGEN_KEY_CACHE_TTL_SECONDS": "3600", "MEDIAGEN_PROFILE_CACHE_TTL_SECONDS": "3600",
                  "MEDIAGEN_WORKERS": "0"}

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
        refused = poll(lambda: self.server.api("GET", "/user", k["key"]).status == 401, timeout=5.0, interval=0.02)
        self.assertTrue(refused, "disabled key still accepted 5 s after `admin key disable`")
        self.assert401(self.server.api("GET", "/user", k["key"]), "invalid")
        self.assert401(self.server.api("GET", "/key", k["key"]), "invalid")

    def test_cli_block_invalidates_all_keys_of_user(self):
        u = self.h.create_user()
        keys = [self.h.create_key(u["id"], preset="full") for _ in range(2)]
        for k in keys:
            self.assertSuccess(self.server.api("GET", "/user", k["key"]))
        self.h.block_user(u["id"])
        for k in keys:
            refused = poll(lambda: self.server.api("GET", "/key", k["key"]).status == 401, timeout=5.0, interval=0.02)
            self.assertTrue(refused, "blocked user's key still accepted 5 s after `admin user block`")
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
        # The profile comes from its own cache: no database read either.
        self.assertEqual(metric_sum(after, "mediagen_db_queries_total"),
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


def pipelined_statuses(port, requests, batch=500):
    """Sends raw requests on one kept-alive connection, `batch` at a time, and returns their
    statuses in order (the server answers pipelined requests in order)."""
    import socket
    statuses = []
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        buf = b""
        for i in range(0, len(requests), batch):
            chunk = requests[i:i + batch]
            s.sendall(b"".join(chunk))
            got = 0
            while got < len(chunk):
                head_end = buf.find(b"\r\n\r\n")
                if head_end < 0:
                    data = s.recv(1 << 16)
                    if not data:
                        raise AssertionError(f"connection closed after {len(statuses)} answers")
                    buf += data
                    continue
                head = buf[:head_end].decode("latin-1")
                length = 0
                for line in head.split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                while len(buf) < head_end + 4 + length:
                    data = s.recv(1 << 16)
                    if not data:
                        raise AssertionError("connection closed inside a body")
                    buf += data
                statuses.append(int(head.split(" ", 2)[1]))
                buf = buf[head_end + 4 + length:]
                got += 1
    return statuses


def deliverer_looks(started):
    """Statements the server sends on its own since `started`: the webhook deliverer looks for due
    messages (two statements) once a minute even when nothing waits, in case a NOTIFY was lost."""
    return 2 * (int((time.monotonic() - started) // 60) + 1)


class KeyFloodTests(E2ETestCase):
    """Random keys cost the database nothing (wrong shape) or one lookup each (right shape, unknown),
    and never push a live key out of the cache."""

    # The cache alone: no per-address budget of unknown keys, which would answer this one
    # address 429 after its first lookups (test_address_budgets.py).
    server_env = {"MEDIAGEN_KEY_CACHE_TTL_SECONDS": "3600", "MEDIAGEN_WORKERS": "0",
                  "MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE": "0"}
    N = 100_000
    HOT_EVERY = 1000

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def flood(self, keys, hot_key):
        """Each key once, with the hot key every HOT_EVERY requests; 4 connections in parallel."""
        import concurrent.futures
        reqs = []
        for i, k in enumerate(keys):
            if i % self.HOT_EVERY == 0:
                reqs.append(f"GET /api/key HTTP/1.1\r\nHost: t\r\nX-API-KEY: {hot_key}\r\n\r\n".encode())
            reqs.append(b"GET /api/key HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + k + b"\r\n\r\n")
        parts = [reqs[i::4] for i in range(4)]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda p: pipelined_statuses(self.server.public_port, p), parts))
        statuses = [s for r in results for s in r]
        hot = len(keys) // self.HOT_EVERY + (1 if len(keys) % self.HOT_EVERY else 0)
        self.assertEqual(statuses.count(200), hot, "the hot key is answered every time")
        self.assertEqual(statuses.count(401), len(keys))

    def counters(self):
        m = self.server.metrics()
        return {n: metric_sum(m, n) for n in ("mediagen_db_queries_total", "mediagen_key_cache_misses_total",
                                               "mediagen_key_cache_hits_total", "mediagen_api_keys_malformed_total")}

    def test_random_keys_cost_no_query_or_one_lookup_and_a_hot_key_stays_cached(self):
        import os
        hot = self.h.create_key(self.user["id"], preset="full")["key"]
        self.assertSuccess(self.server.api("GET", "/key", hot))  # cached now
        alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

        # Wrong shapes: lengths, prefixes and alphabets that no key has.
        wrong = []
        for i in range(self.N):
            r = os.urandom(48)
            kind = i % 4
            if kind == 0:
                wrong.append(b"mg_" + bytes(alphabet[b % 64] for b in r[:42]))             # one short
            elif kind == 1:
                wrong.append(b"mk_" + bytes(alphabet[b % 64] for b in r[:43]))             # wrong prefix
            elif kind == 2:
                wrong.append(b"mg_" + bytes(alphabet[b % 64] for b in r[:42]) + b"=")      # outside base64url
            else:
                wrong.append(r[:20].hex().encode())                                         # anything else
        started = time.monotonic()
        before = self.counters()
        self.flood(wrong, hot)
        after = self.counters()
        self.assertLessEqual(after["mediagen_db_queries_total"] - before["mediagen_db_queries_total"],
                             deliverer_looks(started), "no lookup for a key of the wrong shape")
        self.assertEqual(after["mediagen_key_cache_misses_total"], before["mediagen_key_cache_misses_total"])
        self.assertEqual(after["mediagen_api_keys_malformed_total"] - before["mediagen_api_keys_malformed_total"], self.N)

        # Right shape, unknown: one lookup each, cached as unknown, and the hot key never misses.
        unknown = [b"mg_" + bytes(alphabet[b % 64] for b in os.urandom(43)) for _ in range(self.N)]
        started = time.monotonic()
        before = self.counters()
        self.flood(unknown, hot)
        after = self.counters()
        self.assertEqual(after["mediagen_key_cache_misses_total"] - before["mediagen_key_cache_misses_total"], self.N,
                         "every unknown key missed once, the hot key never")
        self.assertLessEqual(after["mediagen_db_queries_total"] - before["mediagen_db_queries_total"],
                             self.N + deliverer_looks(started))
        self.assertGreaterEqual(after["mediagen_key_cache_hits_total"] - before["mediagen_key_cache_hits_total"],
                                self.N // self.HOT_EVERY)
        # The lookup is by key_hash, which a unique index covers.
        self.assertIn("(key_hash)", self.h.psql("SELECT indexdef FROM pg_indexes WHERE tablename = 'api_keys'"))
        self.assertServerAlive()
