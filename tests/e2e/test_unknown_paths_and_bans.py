"""Unknown paths (spec 4.10, 7.1 endpoint_not_found) and the IP ban ladder (spec 8.1 ip_banned)."""

import time
import unittest
from datetime import datetime, timezone

from harness import (E2ETestCase, ISO_RE, CYRILLIC_RE, fresh_ip, rand_path, parse_iso, poll,
                     avoid_window_edge)

NOT_FOUND_KEYS = {"success", "message", "message_en", "reason", "error_code", "method", "path", "docs",
                  "developers", "ban_warning"}
# A second proxy of ours in front of the one that connects (fresh_ip never gives .1).
TRUSTED_HOP = "10.255.255.1"
BANNED_KEYS = {"success", "message", "reason", "error_code", "retry_after", "banned_until", "ban_step",
               "ban_ladder_seconds"}


class BanAssertions:

    def new_sequence(self):
        """Keep the misses of one sequence inside one 60 s window even if windows are fixed."""
        avoid_window_edge(60, 2.0)

    def miss(self, ip, n=1, locale=None):
        last = None
        for _ in range(n):
            r = self.server.api("GET", rand_path(), ip=ip, locale=locale)
            self.assertEqual(r.status, 404, r)
            self.assertEqual(r.body["reason"], "endpoint_not_found", r)
            last = r
        return last

    def assertBanned(self, r, step, ladder, tz_suffix="+00:00"):
        body = self.assertJsonResponse(r, 429)
        self.assertEqual(set(body), BANNED_KEYS, r)
        self.assertIs(body["success"], False)
        self.assertEqual(body["reason"], "ip_banned")
        self.assertEqual(body["error_code"], "ip_banned")
        self.assertEqual(body["ban_step"], step, r)
        self.assertEqual(body["ban_ladder_seconds"], ladder, r)
        duration = ladder[min(step, len(ladder)) - 1]
        self.assertIsInstance(body["retry_after"], int)
        self.assertGreaterEqual(body["retry_after"], 1, r)
        self.assertLessEqual(body["retry_after"], duration, r)
        self.assertIn("retry-after", r.headers, r)
        self.assertEqual(r.headers["retry-after"], str(body["retry_after"]), r)
        self.assertRegex(body["banned_until"], ISO_RE)
        self.assertTrue(body["banned_until"].endswith(tz_suffix), body["banned_until"])
        left = (parse_iso(body["banned_until"]) - datetime.now(timezone.utc)).total_seconds()
        self.assertGreater(left, -1.5, body["banned_until"])
        self.assertLess(left, duration + 1.5, body["banned_until"])
        return body


class UnknownPathAndBanStateTests(E2ETestCase, BanAssertions):
    """Long rungs: nothing here waits for a ban to end. Each test uses its own client IP."""

    LADDER = [30, 60, 90, 120, 150]
    server_env = {
        "MEDIAGEN_BAN_LADDER_SECONDS": "30,60,90,120,150",
        "MEDIAGEN_BAN_THRESHOLD": "3",
        "MEDIAGEN_BAN_WINDOW_SECONDS": "60",
        "MEDIAGEN_TRUSTED_PROXIES": f"127.0.0.1,{TRUSTED_HOP}",
    }

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    # ---------------------------------------------------------------- 404 body

    def test_404_body(self):
        ip = fresh_ip()
        r = self.server.api("GET", "/api/nope", ip=ip)
        body = self.assertJsonResponse(r, 404)
        self.assertEqual(set(body), NOT_FOUND_KEYS, r)
        self.assertIs(body["success"], False)
        self.assertEqual(body["reason"], "endpoint_not_found")
        self.assertEqual(body["error_code"], "endpoint_not_found")
        self.assertEqual(body["method"], "GET")
        self.assertEqual(body["path"], "/api/nope")
        self.assertEqual(body["message"], body["message_en"])
        self.assertNotRegex(body["message"], CYRILLIC_RE)
        for field in ("docs", "developers"):
            self.assertIsInstance(body[field], str)
            self.assertRegex(body[field], r"^https?://\S+$")
        self.assertIsInstance(body["ban_warning"], str)
        self.assertIn("2", body["ban_warning"], "ban_warning should say 2 misses are left")
        r2 = self.server.api("GET", "/api/nope", ip=ip)
        self.assertIn("1", r2.body["ban_warning"], "ban_warning should say 1 miss is left")
        self.assertNotIn("retry-after", r.headers)

    def test_404_method_and_path(self):
        for method, path in (("POST", "/api/orders-x"), ("DELETE", "/api/user/1"), ("PUT", "/api/user/extra"),
                             ("GET", "/nope"), ("GET", "/"), ("GET", "/api"), ("GET", "/api/")):
            with self.subTest(method=method, path=path):
                r = self.server.request(method, path, {"X-Forwarded-For": fresh_ip()})
                body = self.assertJsonResponse(r, 404)
                self.assertEqual(set(body), NOT_FOUND_KEYS, r)
                self.assertEqual(body["method"], method)
                self.assertEqual(body["path"], path)
                self.assertEqual(body["reason"], "endpoint_not_found")

    def test_404_before_auth(self):
        for key in (None, "mg_" + "B" * 43, self.key["key"]):
            with self.subTest(key=bool(key)):
                r = self.server.api("GET", "/api/user/extra", key, ip=fresh_ip())
                self.assertEqual(r.status, 404, r)
                self.assertEqual(set(r.body), NOT_FOUND_KEYS)

    def test_404_locale(self):
        en = self.server.api("GET", "/api/nope", ip=fresh_ip(), locale="en").body
        ru = self.server.api("GET", "/api/nope", ip=fresh_ip(), locale="ru").body
        self.assertEqual(set(ru), NOT_FOUND_KEYS)
        self.assertRegex(ru["message"], CYRILLIC_RE)
        self.assertEqual(ru["message_en"], en["message"])
        self.assertEqual(en["message_en"], en["message"])
        self.assertRegex(ru["ban_warning"], CYRILLIC_RE)
        self.assertNotRegex(en["ban_warning"], CYRILLIC_RE)
        for f in ("reason", "error_code", "method", "path", "docs", "developers"):
            self.assertEqual(en[f], ru[f], f)

    def test_405_is_not_a_miss(self):
        ip = fresh_ip()
        for _ in range(6):
            self.assertEqual(self.server.api("POST", "/key", ip=ip).status, 405)
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=ip))

    def test_401_403_are_not_misses(self):
        ip = fresh_ip()
        k = self.h.create_key(self.user["id"], scopes="orders.read")
        for _ in range(4):
            self.assertEqual(self.server.api("GET", "/user", ip=ip).status, 401)
            self.assertEqual(self.server.api("GET", "/user", k["key"], ip=ip).status, 403)
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=ip))

    def test_threshold_exact(self):
        ip = fresh_ip()
        self.new_sequence()
        self.miss(ip, 2)
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=ip))
        self.miss(ip, 1)
        self.assertBanned(self.server.api("GET", "/user", self.key["key"], ip=ip), 1, self.LADDER)

    # ---------------------------------------------------------------- while banned

    def test_banned_everywhere_before_auth(self):
        ip = fresh_ip()
        self.new_sequence()
        self.miss(ip, 3)
        s = self.server
        checks = [
            ("valid key", lambda: s.api("GET", "/user", self.key["key"], ip=ip)),
            ("no key", lambda: s.api("GET", "/user", ip=ip)),
            ("invalid key", lambda: s.api("GET", "/user", "mg_" + "C" * 43, ip=ip)),
            ("key route", lambda: s.api("GET", "/key", self.key["key"], ip=ip)),
            ("unknown path", lambda: s.api("GET", rand_path(), ip=ip)),
            ("wrong method", lambda: s.api("POST", "/user", ip=ip)),
            ("public healthz", lambda: s.request("GET", "/healthz", {"X-Forwarded-For": ip})),
        ]
        for label, fn in checks:
            with self.subTest(label):
                self.assertBanned(fn(), 1, self.LADDER)

    def test_other_ips_and_admin_unaffected(self):
        ip = fresh_ip()
        self.new_sequence()
        self.miss(ip, 3)
        self.assertBanned(self.server.api("GET", "/user", self.key["key"], ip=ip), 1, self.LADDER)
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=fresh_ip()))
        r = self.server.request("GET", "/healthz", admin=True)
        self.assertEqual((r.status, r.body), (200, {"status": "ok"}))
        r = self.server.request("GET", "/healthz", {"X-Forwarded-For": ip}, admin=True)
        self.assertEqual((r.status, r.body), (200, {"status": "ok"}))
        self.assertEqual(self.server.request("GET", "/readyz", {"X-Forwarded-For": ip}, admin=True).status, 200)
        # the proxy itself (no X-Forwarded-For) is not banned
        self.assertEqual(self.server.request("GET", "/healthz").status, 200)

    def test_ban_localized(self):
        ip = fresh_ip()
        self.new_sequence()
        self.miss(ip, 3)
        en = self.assertBanned(self.server.api("GET", "/user", ip=ip, locale="en"), 1, self.LADDER)
        ru = self.assertBanned(self.server.api("GET", "/user", ip=ip, locale="ru"), 1, self.LADDER)
        self.assertRegex(ru["message"], CYRILLIC_RE)
        self.assertNotRegex(en["message"], CYRILLIC_RE)
        for f in ("reason", "error_code", "ban_step", "ban_ladder_seconds"):
            self.assertEqual(en[f], ru[f])
        self.assertLessEqual(abs(parse_iso(en["banned_until"]) - parse_iso(ru["banned_until"])).total_seconds(), 1)

    def test_ban_timezone(self):
        ip = fresh_ip()
        self.new_sequence()
        self.miss(ip, 3)
        r = self.server.api("GET", "/user", ip=ip, tz="Asia/Kathmandu")
        self.assertBanned(r, 1, self.LADDER, tz_suffix="+05:45")
        self.assertEqual(r.headers.get("x-timezone"), "Asia/Kathmandu")

    def test_rotated_forwarded_for_keeps_the_ban(self):
        """Behind an appending proxy the client writes the leftmost entries: rotating them neither
        dodges the ban nor bans the addresses it names (walked from the right past our proxies)."""
        client = fresh_ip()
        self.new_sequence()
        for _ in range(3):
            # What an appending proxy sends for a client that wrote its own X-Forwarded-For.
            xff = f"{fresh_ip()}, {fresh_ip()}, {client}"
            self.assertEqual(self.server.request("GET", rand_path(), {"X-Forwarded-For": xff}).status, 404)
        spoofs = [fresh_ip() for _ in range(3)]
        for xff in (f"{spoofs[0]}, {client}", f"{spoofs[1]},{client}", f"{client}, {TRUSTED_HOP}", client,
                    f"{spoofs[2]}, {client}, {TRUSTED_HOP}"):
            with self.subTest(xff):
                r = self.server.request("GET", "/healthz", {"X-Forwarded-For": xff})
                self.assertBanned(r, 1, self.LADDER)
        for spoof in spoofs:
            self.assertEqual(self.server.api("GET", "/user", ip=spoof).status, 401)
        # Only our own proxies in the chain: the leftmost is the client.
        self.assertEqual(self.server.request("GET", "/healthz", {"X-Forwarded-For": TRUSTED_HOP}).status, 200)

    def test_ban_survives_with_new_key_and_misses_do_not_leak_between_ips(self):
        a, b = fresh_ip(), fresh_ip()
        self.new_sequence()
        self.miss(a, 2)
        self.miss(b, 2)
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=a))
        self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=b))
        self.miss(a, 1)
        new_user, new_key = self.h.user_and_key("full")
        self.assertBanned(self.server.api("GET", "/user", new_key["key"], ip=a), 1, self.LADDER)
        self.assertSuccess(self.server.api("GET", "/user", new_key["key"], ip=b))


class BanLadderTests(E2ETestCase, BanAssertions):
    """The whole ladder with one-second rungs."""

    LADDER = [1, 2, 3, 4, 5]
    server_env = {
        "MEDIAGEN_BAN_LADDER_SECONDS": "1,2,3,4,5",
        "MEDIAGEN_BAN_THRESHOLD": "3",
        "MEDIAGEN_BAN_WINDOW_SECONDS": "60",
        "MEDIAGEN_TRUSTED_PROXIES": "127.0.0.1",
    }

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    def test_full_ladder(self):
        ip = fresh_ip()
        bystander = fresh_ip()
        for n in range(1, 7):
            step = min(n, 5)
            duration = self.LADDER[step - 1]
            try:
                self.new_sequence()
                # after a ban ends the miss count starts from zero: two misses do not ban
                self.miss(ip, 2)
                self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=ip))
                started = time.monotonic()
                self.miss(ip, 1)
                r = self.server.api("GET", "/user", self.key["key"], ip=ip)
                self.assertBanned(r, step, self.LADDER)
                self.assertSuccess(self.server.api("GET", "/user", self.key["key"], ip=bystander))
                self.assertEqual(self.server.request("GET", "/healthz", admin=True).status, 200)
                if duration >= 3:
                    time.sleep(duration / 2)
                    r = self.server.api("GET", "/user", self.key["key"], ip=ip)
                    body = self.assertBanned(r, step, self.LADDER)
                    self.assertLess(body["retry_after"], duration, "retry_after does not count down")
                lifted = poll(lambda: self.server.api("GET", "/user", self.key["key"], ip=ip).status == 200,
                              timeout=duration + 3.0, interval=0.1)
                elapsed = time.monotonic() - started
                self.assertTrue(lifted, f"ban {n} ({duration}s) still active after {elapsed:.1f}s")
                self.assertGreaterEqual(elapsed, duration - 1.0, f"ban {n} lifted after only {elapsed:.1f}s")
            except AssertionError as e:
                raise AssertionError(f"ban {n} (step {step}, {duration}s): {e}") from None


class UntrustedPeerTests(E2ETestCase, BanAssertions):
    """Without MEDIAGEN_TRUSTED_PROXIES the X-Forwarded-For header is ignored."""

    LADDER = [2, 3, 4, 5, 6]
    server_env = {
        "MEDIAGEN_BAN_LADDER_SECONDS": "2,3,4,5,6",
        "MEDIAGEN_BAN_THRESHOLD": "3",
        "MEDIAGEN_BAN_WINDOW_SECONDS": "60",
        "MEDIAGEN_TRUSTED_PROXIES": None,
    }

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    def test_forwarded_for_ignored(self):
        self.new_sequence()
        for _ in range(3):
            r = self.server.api("GET", rand_path(), ip=fresh_ip())
            self.assertEqual(r.status, 404, r)
        self.assertBanned(self.server.api("GET", "/user", self.key["key"], ip=fresh_ip()), 1, self.LADDER)
        self.assertBanned(self.server.api("GET", "/user", self.key["key"]), 1, self.LADDER)
        self.assertEqual(self.server.request("GET", "/healthz", admin=True).status, 200)
        lifted = poll(lambda: self.server.api("GET", "/user", self.key["key"]).status == 200, timeout=5, interval=0.1)
        self.assertTrue(lifted, "ban of 127.0.0.1 did not end")


if __name__ == "__main__":
    unittest.main()
