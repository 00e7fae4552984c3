"""The Redis control plane: ban events (<prefix>bans:events) and key invalidations
(<prefix>keys:invalidate) act only when signed with a key derived from MEDIAGEN_SECRET, like the
realtime fan-out. Whoever can PUBLISH on Redis without the secret bans nobody and drops no cached
key; each forgery is counted (mediagen_ban_events_unsigned_total,
mediagen_key_invalidations_unsigned_total on /metrics)."""

import hashlib
import hmac
import time
import unittest

from harness import E2ETestCase, avoid_window_edge, fresh_ip, metric_sum, poll, rand_path
from realtime_support import redis_command

BAN_KEY_LABEL = b"mediagen ban events v1"
INVALIDATION_KEY_LABEL = b"mediagen key invalidation v1"


def signed(message: str, secret: str, label: bytes) -> bytes:
    """A control message as an instance (or the operator CLI) holding `secret` publishes it."""
    key = hmac.new(secret.encode(), label, hashlib.sha256).hexdigest()
    body = message.encode()
    return hmac.new(key.encode(), body, hashlib.sha256).hexdigest().encode() + b" " + body


class ForgedBanTests(E2ETestCase):
    """Two instances on one Redis prefix: a ban one of them starts reaches the other; a ban
    written by anyone else reaches neither."""

    server_env = {
        "MEDIAGEN_BAN_LADDER_SECONDS": "600,1200",
        "MEDIAGEN_BAN_THRESHOLD": "3",
        "MEDIAGEN_BAN_WINDOW_SECONDS": "60",
        "MEDIAGEN_TRUSTED_PROXIES": "127.0.0.1",
        "MEDIAGEN_WORKERS": "0",
    }

    @classmethod
    def prepare(cls):
        cls.other = cls.h.start_server(cls.server_env, name="second")
        cls.user, key = cls.h.user_and_key("full")
        cls.key = key["key"]

    def unsigned_bans(self, server):
        return metric_sum(server.metrics(), "mediagen_ban_events_unsigned_total")

    def test_a_forged_ban_bans_nobody_and_a_real_one_reaches_the_other_instance(self):
        channel = f"{self.h.redis_prefix}bans:events"
        until = int(time.time()) + 3600
        victims = [fresh_ip() for _ in range(3)]
        secret = self.h.env()["MEDIAGEN_SECRET"]
        forgeries = [
            f"127.0.0.1 {until} 1".encode(),                                   # the PUBLISH
            f"{victims[0]} {until} 2".encode(),
            signed(f"{victims[1]} {until} 1", "not-the-secret", BAN_KEY_LABEL),
            # The right signature of another ban, and one spelled in capitals.
            signed(f"{victims[0]} {until} 1", secret, BAN_KEY_LABEL)[:65] + f"{victims[2]} {until} 1".encode(),
            signed(f"{victims[2]} {until} 1", secret, BAN_KEY_LABEL)[:64].upper() + f" {victims[2]} {until} 1".encode(),
            # A signed fan-out message is no ban either (its key has another label).
            signed(f"{victims[1]} {until} 1", secret, b"mediagen realtime fan-out v1"),
        ]
        before = [self.unsigned_bans(s) for s in (self.server, self.other)]
        for message in forgeries:
            self.assertEqual(int(redis_command(self.h.redis_url, "PUBLISH", channel, message)), 2)

        # A real ban, started on the second instance after the forgeries: once the first has
        # it, it has read every forgery before it (one publisher, in order).
        avoid_window_edge(60, 3.0)
        banned = fresh_ip()
        for _ in range(3):
            self.assertEqual(self.other.api("GET", rand_path(), ip=banned).status, 404)
        seen = poll(lambda: self.server.api("GET", "/user", self.key, ip=banned).status == 429, timeout=5)
        self.assertTrue(seen, "the ban the second instance started did not reach the first")
        self.assertEqual(self.server.api("GET", "/user", self.key, ip=banned).body["reason"], "ip_banned")

        for server in (self.server, self.other):
            for ip in [None, *victims]:
                r = server.api("GET", "/user", self.key, ip=ip)
                self.assertEqual(r.status, 200, f"{server.name}, address {ip or '127.0.0.1'}: {r!r}")
        counted = poll(lambda: [self.unsigned_bans(s) - b for s, b in zip((self.server, self.other), before)]
                       == [len(forgeries)] * 2, timeout=5)
        self.assertTrue(counted, [self.unsigned_bans(s) - b for s, b in zip((self.server, self.other), before)])


class ForgedKeyInvalidationTests(E2ETestCase):
    """A long key cache: only an invalidation the operator CLI signed drops a cached key."""

    server_env = {"MEDIAGEN_KEY_CACHE_TTL_SECONDS": "3600", "MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def unsigned_invalidations(self):
        return metric_sum(self.server.metrics(), "mediagen_key_invalidations_unsigned_total")

    def test_a_forged_invalidation_is_dropped_and_the_cli_one_works(self):
        k = self.h.create_key(self.user["id"], preset="full")
        self.assertEqual(self.server.api("GET", "/key", k["key"]).status, 200)  # cached now
        # Disabled behind the cache's back: only an invalidation makes the server look again.
        self.h.psql(f"UPDATE api_keys SET disabled_at = now() WHERE id = {int(k['id'])}")
        digest = hashlib.sha256(k["key"].encode()).hexdigest()
        channel = f"{self.h.redis_prefix}keys:invalidate"
        secret = self.h.env()["MEDIAGEN_SECRET"]
        forgeries = [
            f"key {digest}".encode(),
            f"user {self.user['id']}".encode(),
            signed(f"key {digest}", "not-the-secret", INVALIDATION_KEY_LABEL),
            signed(f"user {self.user['id']}", secret, b"mediagen ban events v1"),
            signed(f"key {'0' * 64}", secret, INVALIDATION_KEY_LABEL)[:65] + f"key {digest}".encode(),
        ]
        before = self.unsigned_invalidations()
        for message in forgeries:
            self.assertEqual(int(redis_command(self.h.redis_url, "PUBLISH", channel, message)), 1)
        # The operator CLI disables another key after them: once the server applied that
        # invalidation, it has read every forgery before it (one channel, in order).
        other = self.h.create_key(self.user["id"], preset="full")
        self.assertEqual(self.server.api("GET", "/key", other["key"]).status, 200)
        self.h.disable_key(other["id"])
        self.assertTrue(poll(lambda: self.server.api("GET", "/key", other["key"]).status == 401, timeout=5),
                        "the invalidation the operator CLI signed was not applied")

        r = self.server.api("GET", "/key", k["key"])
        self.assertEqual(r.status, 200, f"a forged invalidation dropped the cached key: {r!r}")
        self.assertEqual(self.unsigned_invalidations() - before, len(forgeries))

        # One signed as the CLI signs it (MEDIAGEN_SECRET, its own label) drops the entry.
        redis_command(self.h.redis_url, "PUBLISH", channel, signed(f"key {digest}", secret, INVALIDATION_KEY_LABEL))
        self.assertTrue(poll(lambda: self.server.api("GET", "/key", k["key"]).status == 401, timeout=5),
                        "a rightly signed invalidation was not applied")
        self.assertEqual(self.unsigned_invalidations() - before, len(forgeries))


if __name__ == "__main__":
    unittest.main()
