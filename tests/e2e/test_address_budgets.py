"""Work one client address can cause before it holds a key: lookups of keys nobody issued
(MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE, then 429 too_many_unknown_keys before PostgreSQL is asked)
and open realtime sockets (MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS, then pusher:error 4100 and a
close with 4100). The address is the one the ban ladder uses: X-Forwarded-For only from a trusted
proxy. Both refusals are counted on /metrics."""

import os
import time
import unittest

from harness import E2ETestCase, avoid_window_edge, fresh_ip, metric_sum
from realtime_support import NodeClient, realtime_env

BUDGET = 5
ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
REFUSAL_KEYS = {"success", "message", "reason", "error_code", "retry_after"}


def random_key() -> str:
    """Shaped like a key (mg_ + 43 base64url characters), issued to nobody."""
    return "mg_" + bytes(ALPHABET[b % 64] for b in os.urandom(43)).decode()


class UnknownKeyBudgetCase(E2ETestCase):

    def counters(self):
        m = self.server.metrics()
        return {n: metric_sum(m, n) for n in ("mediagen_key_cache_misses_total", "mediagen_db_queries_total",
                                               "mediagen_unknown_keys_refused_total")}

    def assertUnknownKeysRefused(self, r):
        body = self.assertJsonResponse(r, 429)
        self.assertEqual(set(body), REFUSAL_KEYS, r)
        self.assertIs(body["success"], False)
        self.assertEqual(body["reason"], "too_many_unknown_keys")
        self.assertEqual(body["error_code"], "too_many_unknown_keys")
        self.assertIsInstance(body["retry_after"], int)
        self.assertGreaterEqual(body["retry_after"], 1, r)
        self.assertLessEqual(body["retry_after"], 60, r)
        self.assertEqual(r.headers.get("retry-after"), str(body["retry_after"]), r)

    def spend_budget(self, ip):
        """BUDGET unknown keys from ip: each a lookup and a 401. Returns the keys."""
        keys = [random_key() for _ in range(BUDGET)]
        before = self.counters()
        for k in keys:
            self.assertEqual(self.server.api("GET", "/key", k, ip=ip).status, 401)
        after = self.counters()
        self.assertEqual(after["mediagen_key_cache_misses_total"] - before["mediagen_key_cache_misses_total"], BUDGET)
        return keys


class UnknownKeyFloodTests(UnknownKeyBudgetCase):
    # No generation workers: their queue polling would count as database work.
    server_env = {"MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE": str(BUDGET), "MEDIAGEN_TRUSTED_PROXIES": "127.0.0.1",
                  "MEDIAGEN_KEY_CACHE_TTL_SECONDS": "3600", "MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def test_a_flood_gets_429_before_any_lookup_while_a_valid_key_works(self):
        avoid_window_edge(60, 10.0)
        office = fresh_ip()
        valid = self.h.create_key(self.user["id"], preset="full")["key"]
        self.assertEqual(self.server.api("GET", "/key", valid, ip=office).status, 200)
        spent = self.spend_budget(office)

        flood = 40
        before = self.counters()
        for i in range(flood):
            r = self.server.api("GET", "/key", random_key(), ip=office, locale="ru" if i == 0 else None)
            self.assertUnknownKeysRefused(r)
            if i == 0:
                self.assertRegex(r.body["message"], "[А-Яа-я]")
        after = self.counters()
        self.assertEqual(after["mediagen_key_cache_misses_total"], before["mediagen_key_cache_misses_total"],
                         "an unknown key past the budget was looked up")
        self.assertEqual(after["mediagen_db_queries_total"], before["mediagen_db_queries_total"],
                         "PostgreSQL was asked past the budget")
        self.assertEqual(after["mediagen_unknown_keys_refused_total"] - before["mediagen_unknown_keys_refused_total"],
                         flood)

        # The office's own key goes on working, and its other addresses and everyone else are untouched.
        for _ in range(3):
            self.assertEqual(self.server.api("GET", "/key", valid, ip=office).status, 200)
        self.assertEqual(self.server.api("GET", "/key", random_key(), ip=fresh_ip()).status, 401)
        # A key already known to be unknown costs no lookup: still the 401, from the key cache.
        self.assertEqual(self.server.api("GET", "/key", spent[0], ip=office).status, 401)

    def test_a_client_cannot_spread_its_flood_over_addresses_it_writes_itself(self):
        avoid_window_edge(60, 10.0)
        client = fresh_ip()
        # Our proxy appends the address it saw; what the client wrote left of it is not believed.
        for _ in range(BUDGET):
            r = self.server.api("GET", "/key", random_key(), headers={"X-Forwarded-For": f"{fresh_ip()}, {client}"})
            self.assertEqual(r.status, 401, r)
        r = self.server.api("GET", "/key", random_key(), headers={"X-Forwarded-For": f"{fresh_ip()}, {client}"})
        self.assertUnknownKeysRefused(r)


class UnknownKeyBudgetWithoutCacheTests(UnknownKeyBudgetCase):
    """No key cache: every request looks its key up, so the rule for known keys shows alone."""

    server_env = {"MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE": str(BUDGET), "MEDIAGEN_KEY_CACHE_TTL_SECONDS": "0",
                  "MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()

    def test_a_key_that_resolved_before_is_still_looked_up_past_the_budget(self):
        avoid_window_edge(60, 10.0)
        valid = self.h.create_key(self.user["id"], preset="full")["key"]
        self.assertEqual(self.server.api("GET", "/key", valid).status, 200)
        self.spend_budget(None)
        self.assertUnknownKeysRefused(self.server.api("GET", "/key", random_key()))
        before = self.counters()
        self.assertEqual(self.server.api("GET", "/key", valid).status, 200)
        after = self.counters()
        self.assertEqual(after["mediagen_key_cache_misses_total"] - before["mediagen_key_cache_misses_total"], 1)
        # A key issued now but never seen here waits with the unknown ones until the minute ends.
        fresh = self.h.create_key(self.user["id"], preset="full")["key"]
        self.assertUnknownKeysRefused(self.server.api("GET", "/key", fresh))


class SocketsPerAddressTests(E2ETestCase):
    CAP = 4
    server_env = realtime_env(MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS=CAP, MEDIAGEN_TRUSTED_PROXIES="127.0.0.1")

    def refused(self):
        return metric_sum(self.server.metrics(), "mediagen_ws_address_refused_total")

    def test_an_address_over_its_socket_cap_gets_4100_while_others_connect(self):
        crowded = fresh_ip()
        before = self.refused()
        clients = [NodeClient(self.server, "raw", headers={"X-Forwarded-For": crowded}) for _ in range(self.CAP)]
        try:
            for c in clients:
                c.connected()
            for xff in (crowded, f"{fresh_ip()}, {crowded}"):
                with NodeClient(self.server, "raw", headers={"X-Forwarded-For": xff}) as extra:
                    err = extra.wait_frame("pusher:error", code=4100)
                    self.assertEqual(err["data"]["code"], 4100)
                    self.assertEqual(extra.wait_closed()["code"], 4100)
                    self.assertEqual(extra.frames("pusher:connection_established"), [])
            self.assertEqual(self.refused() - before, 2)
            # Other addresses (and this instance's other sockets) are served.
            with NodeClient(self.server, "raw", headers={"X-Forwarded-For": fresh_ip()}) as other:
                other.connected()
                other.round_trip()
                self.assertFalse(other.is_closed())
            for c in clients:
                self.assertFalse(c.is_closed())
            # A socket that closes gives its slot back.
            clients[0].close_socket()
            clients[0].wait_closed()
            replacement = None
            for _ in range(50):  # the slot is released when the server has seen the close
                with NodeClient(self.server, "raw", headers={"X-Forwarded-For": crowded}) as again:
                    m = again.wait_for(lambda m: m.get("type") in ("connected", "closed"), 30, "an answer")
                    if m["type"] == "connected":
                        replacement = m
                        break
                time.sleep(0.1)
            self.assertIsNotNone(replacement, "a freed slot can be taken again")
        finally:
            for c in clients:
                c.stop()


if __name__ == "__main__":
    unittest.main()
