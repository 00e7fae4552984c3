"""Plans, usage and their limits (spec 1 "Billing", 2.9, 4.6, 5, 7.1, 8.1): GET /usage,
/usage/{service}, /subscriptions and GET /user's plan; plans as data (`admin plan upsert`) with the
services they entitle and a ceiling per service; 402 insufficient_allowance and 429
limit_exceeded before any charge; `admin subscription cancel`. No workers run here
(MEDIAGEN_WORKERS=0): an order stays active until it is cancelled, which is how a slot is seen
taken and freed. The ledger invariants run after every test."""

import datetime
import secrets
import threading
import unittest

from harness import E2ETestCase
from orders_support import OrderFixtures, state_snapshot

TOKYO = "Asia/Tokyo"


class UsageTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def plan(self, *services, tokens=1000, slots=2):
        code = "p" + secrets.token_hex(4)
        args = ["admin", "plan", "upsert", "--code", code, "--name", f"Plan {code}", "--tokens", str(tokens),
                "--slots", str(slots)]
        for s in services:
            args += ["--service", s]
        return self.h.cli(*args)

    def subscribed(self, *services, balance=100_000, tokens=1000, slots=2):
        plan = self.plan(*services, tokens=tokens, slots=slots)
        user, key = self.account(balance=balance)
        grant = self.h.cli("admin", "subscription", "grant", "--user", str(user["id"]), "--plan", plan["code"])
        return user, key, plan, grant

    def usage(self, key, path="/usage", tz=None):
        r = self.server.api("GET", path, key, tz=tz)
        self.assertEqual(r.status, 200, r)
        return r.body["data"]

    @staticmethod
    def by_code(records):
        return {r["service_code"] or r["entitlement_code"]: r for r in records}

    # -- what the customer sees

    def test_usage_shows_quota_and_slots_moving_as_orders_start_and_finish(self):
        user, key, plan, grant = self.subscribed("provider_b", "provider_c=50")
        self.assertEqual([s["service"] for s in plan["services"]], ["provider_b", "provider_c"])
        records = self.usage(key, tz=TOKYO)
        self.assertEqual([r["entitlement_code"] or r["service_code"] for r in records],
                         ["generation_tokens", "concurrent_tasks", "provider_b", "provider_c"])
        for r in records:
            self.assertEqual(set(r), {"limit_id", "service_id", "service_code", "service_name", "entitlement_id",
                                      "entitlement_code", "entitlement_name", "type", "unit", "consumed", "ceiling",
                                      "remaining", "reset_at"})
            self.assertIsInstance(r["limit_id"], int)
        rec = self.by_code(records)
        self.assertEqual((rec["generation_tokens"]["type"], rec["generation_tokens"]["consumed"],
                          rec["generation_tokens"]["ceiling"]), ("quota", 0, 1000))
        self.assertEqual((rec["concurrent_tasks"]["type"], rec["concurrent_tasks"]["consumed"],
                          rec["concurrent_tasks"]["ceiling"], rec["concurrent_tasks"]["reset_at"]),
                         ("concurrency", 0, 2, None))
        self.assertEqual((rec["provider_b"]["ceiling"], rec["provider_c"]["ceiling"]), (None, 50))
        self.assertEqual(rec["provider_b"]["service_name"], "Provider B")
        self.assertIsNone(rec["provider_b"]["entitlement_id"])
        self.assertIsNone(rec["generation_tokens"]["service_id"])
        # reset_at is the period's end, in the X-Timezone zone.
        reset = datetime.datetime.fromisoformat(rec["generation_tokens"]["reset_at"])
        self.assertEqual(reset.utcoffset(), datetime.timedelta(hours=9))
        self.assertEqual(reset, datetime.datetime.fromisoformat(grant["expires_at"]))

        template = self.template(key, "provider_b")
        order = self.assertSuccess(self.create(key, template, "x" * 100), 201)
        rec = self.by_code(self.usage(key))
        self.assertEqual(rec["generation_tokens"]["consumed"], 100)
        self.assertEqual(rec["generation_tokens"]["remaining"], 900)
        self.assertEqual(rec["concurrent_tasks"]["consumed"], 1)
        self.assertEqual(rec["provider_b"]["consumed"], 100)
        self.assertEqual(rec["provider_c"]["consumed"], 0)

        r = self.server.api("POST", f"/orders/{order['id']}/cancel", key)
        self.assertEqual(r.status, 200, r)
        rec = self.by_code(self.usage(key))
        self.assertEqual(rec["concurrent_tasks"]["consumed"], 0)
        self.assertEqual(rec["generation_tokens"]["consumed"], 0)
        self.assertEqual(rec["provider_b"]["consumed"], 0)

    def test_service_names_follow_x_locale(self):
        _, key, _, _ = self.subscribed("sfx")
        r = self.server.api("GET", "/usage", key, locale="ru")
        rec = self.by_code(r.body["data"])
        self.assertEqual(rec["sfx"]["service_name"], "Звуковые эффекты")
        self.assertEqual(rec["generation_tokens"]["entitlement_name"], "Токены генерации")

    def test_one_service_tells_whether_the_plan_entitles_it(self):
        _, key, _, _ = self.subscribed("provider_c=50")
        one = self.usage(key, "/usage/provider_c")
        self.assertEqual((one["service_code"], one["entitled"], one["payg_enabled"]), ("provider_c", True, True))
        self.assertEqual([r["entitlement_code"] or r["service_code"] for r in one["limits"]],
                         ["generation_tokens", "concurrent_tasks", "provider_c"])
        other = self.usage(key, "/usage/provider_a")
        self.assertFalse(other["entitled"])
        self.assertEqual([r["service_code"] for r in other["limits"]], [None, None])
        r = self.server.api("GET", "/usage/no_such_service", key)
        self.assertEqual((r.status, r.body["success"]), (404, False), r)

    def test_without_a_subscription_usage_is_empty_and_user_has_no_plan(self):
        _, key = self.account(balance=10)
        self.assertEqual(self.usage(key), [])
        self.assertEqual(self.usage(key, "/subscriptions"), [])
        self.assertFalse(self.usage(key, "/usage/provider_b")["entitled"])
        r = self.server.api("GET", "/user", key)
        self.assertIsNone(r.body["data"]["plan"])
        self.assertEqual(r.body["data"]["locale"], "en")

    def test_subscriptions_and_user_show_the_live_plan_and_cancel_ends_it(self):
        user, key, plan, grant = self.subscribed("provider_b")
        subs = self.usage(key, "/subscriptions")
        self.assertEqual(len(subs), 1)
        self.assertEqual((subs[0]["id"], subs[0]["status"], subs[0]["plan"]["code"], subs[0]["services"]),
                         (grant["id"], "active", plan["code"], ["provider_b"]))
        profile = self.server.api("GET", "/user", key).body["data"]
        self.assertEqual((profile["plan"]["code"], profile["plan"]["subscription_id"]), (plan["code"], grant["id"]))

        cancelled = self.h.cli("admin", "subscription", "cancel", "--user", str(user["id"]))
        self.assertEqual((cancelled["id"], cancelled["lapsed_tokens"]), (grant["id"], 1000))
        self.assertEqual(self.quota(user["id"]), 0)
        self.assertEqual(self.usage(key), [])
        subs = self.usage(key, "/subscriptions")
        self.assertEqual(subs[0]["status"], "cancelled")
        self.assertIsNotNone(subs[0]["cancelled_at"])
        self.assertIsNone(self.server.api("GET", "/user", key).body["data"]["plan"])
        p = self.h.run_cli("admin", "subscription", "cancel", "--user", str(user["id"]))
        self.assertNotEqual(p.returncode, 0)

    def test_each_route_needs_billing_read(self):
        user, _ = self.account()
        key = self.h.create_key(user["id"], scopes="orders.read,profile.read")["key"]
        for path in ("/usage", "/usage/provider_b", "/subscriptions"):
            r = self.server.api("GET", path, key)
            self.assertEqual((r.status, r.body), (403, {"success": False, "message": r.body["message"], "data": None}))

    def test_what_a_key_must_never_do_answers_as_an_unknown_path(self):
        _, key = self.account()
        for method, path in (("POST", "/subscriptions"), ("PUT", "/user"), ("PATCH", "/user"), ("DELETE", "/user"),
                             ("POST", "/balance/top-up"), ("POST", "/transfers"), ("GET", "/api-keys"),
                             ("POST", "/api-keys")):
            r = self.server.api(method, path, key, body={} if method != "GET" else None)
            self.assertEqual((r.status, r.body.get("reason")), (404, "endpoint_not_found"), (method, path, r))

    # -- the limits

    def test_a_service_ceiling_refuses_with_429_limit_exceeded_and_changes_nothing(self):
        user, key, _, _ = self.subscribed("provider_c=50")
        template = self.template(key, "provider_c")
        before = state_snapshot(self.h)
        for _ in range(2):
            r = self.create(key, template, "y" * 60)
            self.assertEqual((r.status, r.body.get("reason")), (429, "limit_exceeded"), r)
            self.assertNotIn("retry-after", {k.lower() for k in r.headers})
            self.assertEqual(state_snapshot(self.h), before)
        self.assertSuccess(self.create(key, template, "y" * 40), 201)
        r = self.create(key, template, "y" * 20)
        self.assertEqual((r.status, r.body.get("reason")), (429, "limit_exceeded"), r)
        self.assertEqual(self.by_code(self.usage(key))["provider_c"]["consumed"], 40)

    def test_racing_creates_never_pass_a_service_ceiling(self):
        _, key, _, _ = self.subscribed("provider_c=100", slots=0)
        template = self.template(key, "provider_c")
        statuses = []
        threads = [threading.Thread(target=lambda: statuses.append(self.create(key, template, "z" * 30).status))
                   for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(statuses), [201] * 3 + [429] * 7, statuses)
        self.assertEqual(self.by_code(self.usage(key))["provider_c"]["consumed"], 90)

    def test_fifty_racing_creates_with_five_slots_give_exactly_five_orders(self):
        # T13: the slots are counted under a lock on the account.
        user, key, _, _ = self.subscribed("provider_b", slots=5, tokens=100_000)
        template = self.template(key, "provider_b")
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(self.create(key, template, "r" * 20)))
                   for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(r.status for r in answers), [201] * 5 + [429] * 45)
        self.assertEqual({r.body.get("reason") for r in answers if r.status == 429}, {"concurrency_limit_exceeded"})
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "5")
        self.assertEqual(self.by_code(self.usage(key))["concurrent_tasks"]["consumed"], 5)

    def test_a_service_closed_to_payg_refuses_what_the_quota_does_not_cover(self):
        user, key, _, _ = self.subscribed("provider_b", tokens=100)
        b = self.template(key, "provider_b")
        d = self.template(key, "provider_d")  # not entitled: paid from the balance
        self.h.cli("admin", "service", "payg", "--service", "provider_b", "off")
        self.h.cli("admin", "service", "payg", "--service", "provider_d", "off")
        try:
            before = state_snapshot(self.h)
            for template, text in ((b, "q" * 150), (d, "q" * 10)):
                for _ in range(2):
                    r = self.create(key, template, text)
                    self.assertEqual(r.status, 402, r)
                    self.assertEqual(r.body, {"success": False, "message": r.body["message"],
                                              "reason": "insufficient_allowance", "error_code": "insufficient_allowance"})
                    self.assertEqual(state_snapshot(self.h), before)
            self.assertFalse(self.usage(key, "/usage/provider_b")["payg_enabled"])
            # What the quota covers still goes through, charging no money.
            order = self.assertSuccess(self.create(key, b, "q" * 100), 201)
            self.assertEqual((order["tokens_from_quota"], order["price_units"]), (100, 0))
        finally:
            self.h.cli("admin", "service", "payg", "--service", "provider_b", "on")
            self.h.cli("admin", "service", "payg", "--service", "provider_d", "on")
        # Open again, the same order on a service the plan does not entitle is paid from the balance.
        order = self.assertSuccess(self.create(key, d, "q" * 10), 201)
        self.assertEqual(order["tokens_from_quota"], 0)
        self.assertGreater(order["price_units"], 0)

    # -- beyond the spec: what clients of ElevenLabs read

    def test_creates_carry_the_plans_concurrency_in_headers(self):
        _, key, _, _ = self.subscribed("provider_b", slots=2)
        template = self.template(key, "provider_b")
        seen = []
        for _ in range(2):
            r = self.create(key, template, "c" * 20)
            self.assertEqual(r.status, 201, r)
            seen.append((r.headers.get("x-concurrency-limit"), r.headers.get("x-concurrency-current")))
        self.assertEqual(seen, [("2", "1"), ("2", "2")])
        before = state_snapshot(self.h)
        for _ in range(2):
            r = self.create(key, template, "c" * 20)
            self.assertEqual((r.status, r.body.get("reason")), (429, "concurrency_limit_exceeded"), r)
            self.assertNotIn("retry-after", {k.lower() for k in r.headers})
            self.assertEqual((r.headers.get("x-concurrency-limit"), r.headers.get("x-concurrency-current")), ("2", "2"))
            self.assertEqual(state_snapshot(self.h), before, "a refused create writes nothing")
        # A plan without slots has no limit to tell.
        _, free_key, _, _ = self.subscribed("provider_b", slots=0)
        r = self.create(free_key, self.template(free_key, "provider_b"), "c" * 20)
        self.assertEqual(r.status, 201, r)
        self.assertNotIn("x-concurrency-limit", r.headers)

    def test_a_waiting_order_shows_its_queue_position(self):
        _, key = self.account(balance=100_000)
        template = self.template(key, "provider_b")
        first = self.assertSuccess(self.create(key, template, "f" * 20), 201)
        second = self.assertSuccess(self.create(key, template, "s" * 20), 201)
        a = self.server.api("GET", f"/orders/{first['id']}", key).body["data"]
        b = self.server.api("GET", f"/orders/{second['id']}", key).body["data"]
        self.assertGreaterEqual(a["queue_position"], 1)
        self.assertEqual(b["queue_position"], a["queue_position"] + 1)
        self.assertEqual(self.server.api("POST", f"/orders/{first['id']}/cancel", key).status, 200)
        a = self.server.api("GET", f"/orders/{first['id']}", key).body["data"]
        b2 = self.server.api("GET", f"/orders/{second['id']}", key).body["data"]
        self.assertIsNone(a["queue_position"])
        self.assertEqual(b2["queue_position"], b["queue_position"] - 1)

    def test_a_plan_without_the_service_leaves_its_quota_alone(self):
        user, key, _, _ = self.subscribed("provider_c")
        template = self.template(key, "provider_b")
        order = self.assertSuccess(self.create(key, template, "w" * 100), 201)
        self.assertEqual((order["tokens_from_quota"], order["tokens_from_payg"]), (0, 100))
        self.assertEqual(self.quota(user["id"]), 1000)

    def test_plan_upsert_keeps_what_is_left_out_and_refuses_nonsense(self):
        plan = self.plan("provider_b=10")
        again = self.h.cli("admin", "plan", "upsert", "--code", plan["code"], "--tokens", "77")
        self.assertEqual((again["tokens_per_period"], again["name"], again["concurrency_slots"]),
                         (77, plan["name"], 2))
        self.assertEqual(again["services"], [{"service": "provider_b", "usage_limit": 10}])
        for bad in (["--service", "nope"], ["--service", "provider_b=x"], ["--service", "=5"]):
            p = self.h.run_cli("admin", "plan", "upsert", "--code", plan["code"], *bad)
            self.assertNotEqual(p.returncode, 0, bad)
        p = self.h.run_cli("admin", "plan", "upsert", "--code", "brand_new_" + secrets.token_hex(3))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--name", p.stderr)


if __name__ == "__main__":
    unittest.main()
