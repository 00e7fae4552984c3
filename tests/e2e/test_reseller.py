"""Resellers and gift codes over HTTP and WebSocket (spec 2.7, 3.4, 4.8; CONTRACTS `admin reseller
enable`, `admin giftcode redeem`, the POST /reseller/codes body, the code format).

An operator enables a reseller; the reseller issues, lists, shows and cancels codes with a key
naming reseller.read and reseller.write; a stock pusher-js client on
private-reseller.codes.{userId} receives gift_code.updated on issue, redeem and cancel; keys with
`*` or `full` are refused; a user without a profile gets 404 not_reseller; the full code appears
in no log line of the server or the operator commands.
"""

import re
import unittest
from concurrent.futures import ThreadPoolExecutor

from harness import E2ETestCase
from orders_support import invariant_checks
from realtime_support import NodeClient, realtime_env

CODE_RE = r"^LUM-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$"
GIFT_CODE_KEYS = {"uuid", "code_masked", "code", "nominal", "nominal_formatted", "cost", "cost_formatted",
                  "discount_bps", "source", "funding", "status", "activatable_at", "redeemed_at", "cancelled_at",
                  "created_at", "currency_asset"}
EVENT_KEYS = {"uuid", "code_masked", "status", "nominal", "nominal_formatted", "currency_asset", "activatable_at",
              "redeemed_at", "cancelled_at", "updated_at"}
BALANCE = 1_000_000


def subscribed(channel):
    return lambda m: m.get("type") in ("subscribed", "subscription_error") and m.get("channel") == channel


def gift_event(status, uuid):
    return lambda m: (m.get("type") == "event" and m.get("event") == "gift_code.updated"
                      and m["data"].get("uuid") == uuid and m["data"].get("status") == status)


class ResellerTest(E2ETestCase):
    server_env = realtime_env()

    @classmethod
    def prepare(cls):
        cls.seller = cls.h.create_user()
        cls.enabled = cls.h.cli("admin", "reseller", "enable", "--user", cls.seller["id"], "--balance", BALANCE,
                                "--discount-bps", 1000, "--cancel-window-minutes", 60)
        cls.key = cls.h.create_key(cls.seller["id"], scopes="reseller.read,reseller.write")["key"]
        cls.codes = []  # every full code this test saw, to look for in the logs

    def issue(self, nominal=10_000, **extra):
        r = self.server.api("POST", "/reseller/codes", self.key, body={"nominal": nominal, **extra})
        data = self.assertSuccess(r, 201)
        self.codes.append(data["code"])
        return data

    def reseller_balance(self):
        return int(self.assertSuccess(self.server.api("GET", "/reseller", self.key))["balance"])

    def assertRefused(self, r, status, reason):
        body = self.assertJsonResponse(r, status)
        self.assertIs(body["success"], False, r)
        self.assertEqual(body["reason"], reason, r)
        self.assertEqual(body["error_code"], reason, r)

    def assertGiftCode(self, code, *, full=True):
        self.assertEqual(set(code), GIFT_CODE_KEYS if full else GIFT_CODE_KEYS - {"code"}, code)
        self.assertRegex(code["code"], CODE_RE)
        self.assertEqual(code["code_masked"], "LUM-****-****-" + code["code"][-4:])
        self.assertIsInstance(code["nominal"], str)
        self.assertIsInstance(code["cost"], str)
        self.assertEqual(code["nominal_formatted"], int(code["nominal"]) / 100)
        self.assertEqual(code["currency_asset"], {"code": "USD", "precision": 2})
        self.assertEqual((code["source"], code["funding"]), ("reseller", "reseller_balance"))
        self.assertNotIn("redeemed_by", code)
        self.assertIso(code["created_at"])

    def test_enable_prints_the_profile(self):
        self.assertEqual(self.enabled["user_id"], self.seller["id"])
        self.assertEqual(self.enabled["balance_minor"], BALANCE)
        self.assertEqual((self.enabled["discount_bps"], self.enabled["cancel_window_minutes"]), (1000, 60))
        bad = self.h.run_cli("admin", "reseller", "enable", "--user", 999999)
        self.assertNotEqual(bad.returncode, 0)
        self.assertEqual(len(bad.stderr.strip().splitlines()), 1, bad.stderr)

    def test_issue_list_show_cancel_with_events(self):
        channel = f"private-reseller.codes.{self.seller['id']}"
        with NodeClient(self.server, "pusher", self.key) as client:
            client.connected()
            client.subscribe(channel)
            self.assertEqual(client.wait_for(subscribed(channel), 30, "subscription")["type"], "subscribed",
                             client.describe())
            before = self.reseller_balance()
            code = self.issue(10_000)
            self.assertGiftCode(code)
            self.assertEqual((code["status"], code["cost"], code["discount_bps"]), ("active", "9000", 1000))
            self.assertEqual(self.reseller_balance(), before - 9000)
            issued = client.wait_for(gift_event("active", code["uuid"]), 30, "gift_code.updated on issue")
            self.assertEqual(set(issued["data"]), EVENT_KEYS)
            self.assertNotIn(code["code"], str(issued))

            listed = self.assertSuccess(self.server.api("GET", "/reseller/codes?per_page=100", self.key))
            self.assertEqual({"items", "current_page", "last_page", "per_page", "total"}, set(listed))
            mine = [c for c in listed["items"] if c["uuid"] == code["uuid"]]
            self.assertEqual(len(mine), 1)
            self.assertEqual(mine[0]["code"], code["code"])
            shown = self.assertSuccess(self.server.api("GET", f"/reseller/codes/{code['uuid']}", self.key))
            self.assertEqual(shown, code)

            cancelled = self.assertSuccess(self.server.api("POST", f"/reseller/codes/{code['uuid']}/cancel", self.key))
            self.assertEqual(cancelled["status"], "cancelled")
            self.assertIso(cancelled["cancelled_at"])
            self.assertEqual(self.reseller_balance(), before)
            client.wait_for(gift_event("cancelled", code["uuid"]), 30, "gift_code.updated on cancel")
            self.assertRefused(self.server.api("POST", f"/reseller/codes/{code['uuid']}/cancel", self.key),
                               409, "gift_code_not_cancellable")

            # Redeemed by the operator's command: the event reaches the socket through Redis.
            second = self.issue(5_000)
            buyer = self.h.create_user()
            out = self.h.cli("admin", "giftcode", "redeem", "--code", second["code"].lower(), "--user", buyer["id"])
            self.assertEqual((out["uuid"], out["balance_minor"]), (second["uuid"], 5_000))
            self.assertNotIn(second["code"], str(out))
            redeemed = client.wait_for(gift_event("redeemed", second["uuid"]), 30, "gift_code.updated on redeem")
            self.assertEqual(set(redeemed["data"]), EVENT_KEYS)  # no redeemer
        again = self.h.run_cli("admin", "giftcode", "redeem", "--code", second["code"], "--user", buyer["id"])
        self.assertNotEqual(again.returncode, 0)
        self.assertIn("already redeemed", again.stderr)
        self.assertRefused(self.server.api("POST", f"/reseller/codes/{second['uuid']}/cancel", self.key),
                           409, "gift_code_not_cancellable")
        only_cancelled = self.assertSuccess(self.server.api("GET", "/reseller/codes?status=cancelled", self.key))
        self.assertTrue(all(c["status"] == "cancelled" for c in only_cancelled["items"]))

    def test_refusals(self):
        self.assertRefused(self.server.api("POST", "/reseller/codes", self.key, body={"nominal": BALANCE * 10}),
                           402, "insufficient_balance")
        r = self.server.api("POST", "/reseller/codes", self.key, body={"nominal": "12", "activatable_at": "soon"})
        body = self.assertJsonResponse(r, 422)
        self.assertEqual(set(body["errors"]), {"nominal", "activatable_at"})
        self.assertNotIn("success", body)
        for path in ("/reseller/codes/00000000-0000-4000-8000-000000000000", "/reseller/codes/short"):
            self.assertRefused(self.server.api("GET", path, self.key), 404, "gift_code_not_found")
            self.assertRefused(self.server.api("POST", path + "/cancel", self.key), 404, "gift_code_not_found")
        # Another reseller's code is not found either.
        other = self.h.create_user()
        self.h.cli("admin", "reseller", "enable", "--user", other["id"], "--balance", 10_000)
        other_key = self.h.create_key(other["id"], scopes="reseller.read,reseller.write")["key"]
        code = self.issue(1_000)
        self.assertRefused(self.server.api("GET", f"/reseller/codes/{code['uuid']}", other_key), 404,
                           "gift_code_not_found")

    def test_parallel_cancels_have_one_winner_and_a_closed_window_refuses(self):
        code = self.issue(3_000)
        before = self.reseller_balance()
        path = f"/reseller/codes/{code['uuid']}/cancel"
        with ThreadPoolExecutor(max_workers=25) as pool:
            answers = list(pool.map(lambda _: self.server.api("POST", path, self.key), range(50)))
        statuses = sorted(r.status for r in answers)
        self.assertEqual(statuses, [200] + [409] * 49, answers[:3])
        for r in answers:
            if r.status == 409:
                self.assertEqual(r.body["reason"], "gift_code_not_cancellable", r)
        self.assertEqual(self.reseller_balance(), before + 2_700)
        # A window of zero minutes has closed by the time any cancel arrives.
        closed = self.h.create_user()
        self.h.cli("admin", "reseller", "enable", "--user", closed["id"], "--balance", 10_000,
                   "--cancel-window-minutes", 0)
        closed_key = self.h.create_key(closed["id"], scopes="reseller.read,reseller.write")["key"]
        late = self.assertSuccess(self.server.api("POST", "/reseller/codes", closed_key, body={"nominal": 1_000}), 201)
        self.codes.append(late["code"])
        self.assertRefused(self.server.api("POST", f"/reseller/codes/{late['uuid']}/cancel", closed_key), 409,
                           "gift_code_cancel_window_expired")

    def test_wildcard_and_full_keys_are_refused_and_a_non_reseller_is_not_found(self):
        for kw in ({"scopes": "*"}, {"preset": "full"}):
            key = self.h.create_key(self.seller["id"], **kw)["key"]
            self.assert403(self.server.api("GET", "/reseller", key), "reseller.read")
            self.assert403(self.server.api("POST", "/reseller/codes", key, body={"nominal": 100}), "reseller.write")
        plain = self.h.create_user()
        key = self.h.create_key(plain["id"], scopes="reseller.read,reseller.write")["key"]
        for method, path, body in (("GET", "/reseller", None), ("GET", "/reseller/codes", None),
                                   ("POST", "/reseller/codes", {"nominal": 100}),
                                   ("POST", "/reseller/codes", {"nominal": "bad"}),
                                   ("GET", "/reseller/stats", None)):
            self.assertRefused(self.server.api(method, path, key, body=body), 404, "not_reseller")

    def test_profile_settings_and_stats(self):
        profile = self.assertSuccess(self.server.api("GET", "/reseller", self.key))
        self.assertEqual({"user_id", "enabled", "discount_bps", "cancel_window_minutes", "balance",
                          "balance_formatted", "currency_asset", "created_at"}, set(profile))
        settings = self.assertSuccess(self.server.api("GET", "/reseller/settings", self.key))
        self.assertEqual(settings, {"discount_bps": 1000, "cancel_window_minutes": 60})
        self.issue(2_000)
        stats = self.assertSuccess(self.server.api("GET", "/reseller/stats", self.key))
        self.assertEqual(stats["assets"][0]["currency_asset"]["code"], "USD")
        self.assertGreaterEqual(stats["assets"][0]["issued"], 1)
        self.assertEqual(self.server.api("GET", "/reseller/stats?from=later", self.key).status, 422)

    def test_zz_money_holds_and_no_full_code_is_logged(self):
        failures = [f"{name}: {rows[:300]}" for name, sql in invariant_checks() if (rows := self.h.psql(sql).strip())]
        self.assertEqual(failures, [])
        live_cost = int(self.h.psql_value(
            f"SELECT coalesce(sum(cost), 0) FROM gift_codes WHERE reseller_id = {self.seller['id']}"
            " AND status <> 'cancelled'"))
        self.assertEqual(self.reseller_balance(), BALANCE - live_cost)
        self.assertTrue(self.codes)
        log = "\n".join(self.server.log_lines())
        metrics = self.server.admin_get("/metrics").raw.decode()
        for code in self.codes:
            self.assertNotIn(code, log)
            self.assertNotIn(code, metrics)
        self.assertIsNone(re.search(r"LUM-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}", log))


if __name__ == "__main__":
    unittest.main()
