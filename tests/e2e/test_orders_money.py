"""Order creation and its money (spec 1 "Billing", 2.3, 4.1, 4.1.1, 7.1, 8.2): quota then
balance, exact 402, concurrent creates against one balance, refusals that write nothing,
Idempotency-Key. No workers run here (MEDIAGEN_WORKERS=0), so every order stays as created.
The ledger invariants run after every test."""

import json
import threading
import unittest

from harness import E2ETestCase
from orders_support import OrderFixtures, ledger_snapshot

TEXT = "Hello there. This is a short order [never spoken] for the money tests."


class OrderMoneyTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    # -- quota and balance

    def test_quota_is_spent_first_and_the_rest_is_charged_to_the_balance(self):
        user, key = self.account(balance=10_000)
        self.h.cli("admin", "subscription", "grant", "--user", str(user["id"]), "--plan", "starter")
        self.set_quota(user["id"], 40)
        template = self.template(key, "provider_b")  # b-standard: price per 1k tokens from the catalogue
        price_per_1k = int(self.h.psql_value("SELECT price_per_1k_minor FROM service_models WHERE model_id = 'b-standard'"))
        text = "x" * 100
        order = self.assertSuccess(self.create(key, template, text), 201)
        self.assertEqual(order["status"], "created")
        self.assertIsNone(order["result"])
        self.assertEqual(order["tokens_from_quota"], 40)
        self.assertEqual(order["tokens_from_payg"], 60)
        self.assertEqual(order["price_units"], -(-60 * price_per_1k // 1000))
        self.assertEqual(self.balance(user["id"]), 10_000 - order["price_units"])
        self.assertEqual(self.quota(user["id"]), 0)
        items = self.server.api("GET", f"/orders/{order['id']}/items", key).body["data"]
        self.assertEqual(sum(i["price_units"] for i in items), 100)
        self.assertTrue(all(i["remaining_locked"] == i["price_units"] and i["consumed_units"] == 0 for i in items))

    def test_without_a_subscription_everything_is_paid_from_the_balance(self):
        user, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        order = self.assertSuccess(self.create(key, template, TEXT), 201)
        self.assertEqual(order["tokens_from_quota"], 0)
        self.assertEqual(order["tokens_from_payg"], order["tokens_from_quota"] + order["tokens_from_payg"])
        self.assertEqual(self.balance(user["id"]), 10_000 - order["price_units"])

    def test_exact_402_creates_nothing_and_writes_no_ledger_row(self):
        user, key = self.account(balance=0)
        template = self.template(key, "provider_b")
        before = ledger_snapshot(self.h)
        r = self.create(key, template, TEXT)
        self.assertEqual(r.status, 402, r)
        self.assertEqual(r.body, {"success": False, "message": r.body["message"],
                                  "reason": "insufficient_balance", "error_code": "insufficient_balance"})
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "0")
        # The same body again gets the same answer (spec 7.1).
        again = self.create(key, template, TEXT)
        self.assertEqual((again.status, again.body.get("reason")), (402, "insufficient_balance"))

    def test_a_balance_one_unit_short_is_refused_and_exactly_enough_is_accepted(self):
        user, key = self.account(balance=0)
        template = self.template(key, "provider_b")
        price = self.price_of(key, template, TEXT)
        self.assertGreater(price, 0)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", str(price - 1))
        self.assertEqual(self.create(key, template, TEXT).status, 402)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", "1")
        self.assertSuccess(self.create(key, template, TEXT), 201)
        self.assertEqual(self.balance(user["id"]), 0)

    def test_fifty_concurrent_creates_against_a_balance_for_twenty_give_exactly_twenty(self):
        user, key = self.account(balance=0)
        template = self.template(key, "provider_b")
        price = self.price_of(key, template, TEXT)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", str(price * 20))
        statuses = []
        lock = threading.Lock()

        def create():
            r = self.create(key, template, TEXT)
            with lock:
                statuses.append((r.status, r.body.get("reason")))

        threads = [threading.Thread(target=create) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(statuses, key=str).count((201, None)), 20, statuses)
        self.assertEqual(statuses.count((402, "insufficient_balance")), 30, statuses)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "20")
        self.assertEqual(self.balance(user["id"]), 0)
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM ledger_txns WHERE kind = 'order_lock' AND user_id = {user['id']}"), "20")

    def test_concurrent_creates_split_the_quota_exactly(self):
        user, key = self.account(balance=1_000_000)
        self.h.cli("admin", "subscription", "grant", "--user", str(user["id"]), "--plan", "pro")
        template = self.template(key, "provider_b")
        text = "y" * 50
        self.set_quota(user["id"], 50 * 7 + 20)  # seven whole orders and part of an eighth
        threads = [threading.Thread(target=lambda: self.create(key, template, text)) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rows = self.h.psql_rows(f"SELECT tokens_from_quota, tokens_from_payg FROM orders WHERE user_id = {user['id']}")
        self.assertEqual(len(rows), 12)
        self.assertEqual(sum(int(q) for q, _ in rows), 50 * 7 + 20)
        self.assertEqual(sum(int(p) for _, p in rows), 12 * 50 - (50 * 7 + 20))
        self.assertEqual(self.quota(user["id"]), 0)

    # -- refusals in the spec's order, none of which writes anything

    def test_another_accounts_template_is_403_and_creates_nothing(self):
        _, key = self.account(balance=10_000)
        _, other_key = self.account(balance=10_000)
        foreign = self.template(other_key, "provider_b")
        before = ledger_snapshot(self.h)
        r = self.create(key, foreign, TEXT)
        self.assertEqual((r.status, r.body.get("reason")), (403, "template_access_denied"), r)
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_template_access_is_checked_before_billing_and_billing_before_shape(self):
        _, key = self.account(balance=0)
        _, other_key = self.account(balance=0)
        foreign = self.template(other_key, "provider_b")
        own = self.template(key, "provider_b")
        # A foreign template wins over an empty balance.
        self.assertEqual(self.create(key, foreign, TEXT).status, 403)
        # An empty balance wins over maintenance and a bad config_override.
        self.h.cli("admin", "maintenance", "on")
        try:
            r = self.server.api("POST", "/orders", key, body={"template_id": own, "input_text": TEXT,
                                                              "config_override": {"bogus": 1}})
            self.assertEqual((r.status, r.body.get("reason")), (402, "insufficient_balance"), r)
        finally:
            self.h.cli("admin", "maintenance", "off")

    def test_maintenance_is_503_and_creates_nothing(self):
        user, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        self.h.cli("admin", "maintenance", "on")
        try:
            before = ledger_snapshot(self.h)
            r = self.create(key, template, TEXT)
            self.assertEqual((r.status, r.body.get("reason")), (503, "service_maintenance"), r)
            self.assertEqual(ledger_snapshot(self.h), before)
        finally:
            self.h.cli("admin", "maintenance", "off")
        self.assertSuccess(self.create(key, template, TEXT), 201)

    def test_shape_errors_are_422_with_every_field(self):
        _, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        before = ledger_snapshot(self.h)
        cases = [
            ({}, {"template_id", "task_type"}),
            ({"template_id": template}, {"input_text"}),
            ({"template_id": template, "input_text": ""}, {"input_text"}),
            ({"template_id": template, "input_text": 42}, {"input_text"}),
            ({"template_id": template, "input_text": "[only brackets]"}, {"input_text"}),
            ({"template_id": "not-a-uuid", "input_text": TEXT}, {"template_id"}),
            ({"template_id": template, "input_text": TEXT, "config_override": []}, {"config_override"}),
            ({"template_id": template, "input_text": TEXT, "config_override": {"generation_mode": "x"}},
             {"config_override.generation_mode"}),
            ({"template_id": template, "input_text": TEXT, "confirm_payg_topup": "yes"}, {"confirm_payg_topup"}),
            ({"template_id": template, "input_text": TEXT, "task_type": "sfx"}, {"task_type"}),
            ({"task_type": "tts", "input_text": TEXT}, {"template_id"}),
            ({"task_type": "sfx"}, {"task_data.text"}),
            ({"task_type": "music", "task_data": {"prompt": "calm", "n_variants": 9}}, {"task_data.n_variants"}),
            ({"task_type": "teleport"}, {"task_type"}),
        ]
        for body, fields in cases:
            with self.subTest(body=body):
                r = self.server.api("POST", "/orders", key, body=body)
                self.assertEqual(r.status, 422, r)
                self.assertNotIn("success", r.body)
                self.assertEqual(set(r.body["errors"]), fields, r.body)
        for raw in (b"{", b"[1,2]", b"\"text\"", b"null"):
            with self.subTest(raw=raw):
                r = self.server.request("POST", "/api/orders",
                                        {"X-API-KEY": key, "Content-Type": "application/json"}, raw)
                self.assertEqual(r.status, 422, r)
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_filter_only_task_types_are_service_not_found(self):
        _, key = self.account(balance=10_000)
        for task_type in ("image", "txt2img", "remix", "image_edit", "voice_clone"):
            with self.subTest(task_type=task_type):
                r = self.server.api("POST", "/orders", key, body={"task_type": task_type})
                self.assertEqual((r.status, r.body.get("reason")), (422, "service_not_found"), r)
                self.assertNotIn("errors", r.body)

    def test_voice_search_without_a_file_is_refused_before_any_charge(self):
        user, key = self.account(balance=10_000)
        r = self.server.api("POST", "/orders", key, body={"task_type": "voice_search", "task_data": {"top": 5}})
        self.assertEqual((r.status, r.body.get("reason")), (422, "source_file_required"), r)
        self.assertEqual(self.balance(user["id"]), 10_000)

    def test_the_keys_token_pool_refuses_with_window_quota_and_creates_nothing(self):
        user, _ = self.account(balance=10_000)
        key = self.h.create_key(user["id"], preset="full", tokens_quota=100)["key"]
        template = self.template(key, "provider_b")
        self.assertSuccess(self.create(key, template, "z" * 60), 201)
        before = ledger_snapshot(self.h)
        r = self.create(key, template, "z" * 60)
        self.assertEqual(r.status, 429, r)
        self.assertEqual(r.body["reason"], "token_quota_exceeded")
        self.assertEqual(r.body["window"], "quota")
        self.assertEqual((r.body["limit"], r.body["used"], r.body["requested"]), (100, 60, 60))
        self.assertIsNone(r.body["reset_at"])
        self.assertIsNone(r.body["retry_after"])
        self.assertNotIn("retry-after", r.headers)
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertSuccess(self.create(key, template, "z" * 40), 201)

    def test_a_token_window_refuses_and_gives_back_what_a_402_counted(self):
        user, _ = self.account(balance=0)
        key = self.h.create_key(user["id"], preset="full", tokens_per_minute=100)["key"]
        template = self.template(key, "provider_b")
        # Refused for money: the window must not keep the tokens.
        self.assertEqual(self.create(key, template, "w" * 80).status, 402)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", "100000")
        self.assertSuccess(self.create(key, template, "w" * 80), 201)
        r = self.create(key, template, "w" * 30)
        self.assertEqual(r.status, 429, r)
        self.assertEqual(r.body["window"], "per_minute")
        self.assertIn("retry-after", r.headers)

    def test_concurrency_slots_of_the_plan(self):
        user, key = self.account(balance=100_000)
        self.h.cli("admin", "subscription", "grant", "--user", str(user["id"]), "--plan", "starter")
        template = self.template(key, "provider_b")
        statuses = []
        threads = [threading.Thread(target=lambda: statuses.append(self.create(key, template, TEXT).status))
                   for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        slots = int(self.h.psql_value("SELECT concurrency_slots FROM plans WHERE code = 'starter'"))
        self.assertEqual(statuses.count(201), slots, statuses)
        self.assertEqual(statuses.count(429), 8 - slots, statuses)
        r = self.create(key, template, TEXT)
        self.assertEqual(r.body.get("reason"), "concurrency_limit_exceeded")

    # -- Idempotency-Key

    def test_the_same_key_and_body_replays_the_first_answer_and_charges_once(self):
        user, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        body = {"template_id": template, "input_text": TEXT}
        first = self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": "order-1"})
        self.assertEqual(first.status, 201, first)
        second = self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": "order-1"})
        self.assertEqual(second.status, 201, second)
        self.assertEqual(second.body["data"], first.body["data"])
        self.assertEqual(second.headers.get("idempotent-replayed"), "true")
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "1")
        self.assertEqual(self.balance(user["id"]), 10_000 - first.body["data"]["price_units"])

    def test_ten_concurrent_creates_with_one_key_give_one_order(self):
        user, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        body = {"template_id": template, "input_text": TEXT}
        answers = []
        lock = threading.Lock()

        def create():
            r = self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": "burst"})
            with lock:
                answers.append(r)

        threads = [threading.Thread(target=create) for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertTrue(all(a.status == 201 for a in answers), answers)
        self.assertEqual(len({a.body["data"]["id"] for a in answers}), 1)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "1")
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM ledger_txns WHERE kind = 'order_lock' AND user_id = {user['id']}"), "1")

    def test_the_same_key_with_another_body_is_refused(self):
        user, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        self.assertEqual(self.server.api("POST", "/orders", key, body={"template_id": template, "input_text": TEXT},
                                         headers={"Idempotency-Key": "k2"}).status, 201)
        before = ledger_snapshot(self.h)
        r = self.server.api("POST", "/orders", key, body={"template_id": template, "input_text": TEXT + " more"},
                            headers={"Idempotency-Key": "k2"})
        self.assertEqual((r.status, r.body.get("reason")), (409, "idempotency_key_reused"), r)
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_a_refused_first_attempt_does_not_pin_the_key(self):
        user, key = self.account(balance=0)
        template = self.template(key, "provider_b")
        body = {"template_id": template, "input_text": TEXT}
        self.assertEqual(self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": "k3"}).status, 402)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", "100000")
        self.assertEqual(self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": "k3"}).status, 201)

    def test_a_malformed_idempotency_key_is_422(self):
        _, key = self.account(balance=10_000)
        template = self.template(key, "provider_b")
        r = self.server.api("POST", "/orders", key, body={"template_id": template, "input_text": TEXT},
                            headers={"Idempotency-Key": "x" * 256})
        self.assertEqual(r.status, 422, r)
        self.assertIn("Idempotency-Key", r.body["errors"])

    # -- no update or delete; another account's order is never shown

    def test_orders_have_no_update_or_delete(self):
        _, key = self.account(balance=10_000)
        order = self.assertSuccess(self.create(key, self.template(key, "provider_b"), TEXT), 201)
        for method in ("PUT", "PATCH", "DELETE"):
            r = self.server.api(method, f"/orders/{order['id']}", key, body={})
            self.assertIn(r.status, (404, 405), r)
            if r.status == 405:
                self.assertIn("GET", r.headers.get("allow", ""))

    def test_another_accounts_order_is_404_everywhere(self):
        _, key = self.account(balance=10_000)
        _, other_key = self.account(balance=10_000)
        order = self.assertSuccess(self.create(key, self.template(key, "provider_b"), TEXT), 201)
        item = self.server.api("GET", f"/orders/{order['id']}/items", key).body["data"][0]
        before = ledger_snapshot(self.h)
        for method, path in (("GET", f"/orders/{order['id']}"),
                             ("GET", f"/orders/{order['id']}/items"),
                             ("GET", f"/orders/{order['id']}/items/{item['id']}"),
                             ("GET", f"/orders/{order['id']}/items/{item['id']}/text"),
                             ("POST", f"/orders/{order['id']}/cancel"),
                             ("POST", f"/orders/{order['id']}/retry"),
                             ("POST", f"/orders/{order['id']}/items/retry-failed"),
                             ("POST", f"/orders/{order['id']}/items/{item['id']}/retry"),
                             ("POST", f"/orders/{order['id']}/items/{item['id']}/regenerate")):
            with self.subTest(path=path):
                r = self.server.api(method, path, other_key, body={} if method == "POST" else None)
                self.assertEqual(r.status, 404, r)
                self.assertNotIn(order["id"], json.dumps(r.body))
        listing = self.server.api("GET", "/orders", other_key).body["data"]
        self.assertNotIn(order["id"], [o["id"] for o in listing["items"]])
        self.assertEqual(ledger_snapshot(self.h), before)

    # -- cancel

    def test_cancel_returns_everything_locked_and_a_second_cancel_is_400(self):
        user, key = self.account(balance=10_000)
        self.h.cli("admin", "subscription", "grant", "--user", str(user["id"]), "--plan", "starter")
        self.set_quota(user["id"], 10)
        order = self.assertSuccess(self.create(key, self.template(key, "provider_b"), TEXT), 201)
        self.assertEqual(self.quota(user["id"]), 0)
        r = self.server.api("POST", f"/orders/{order['id']}/cancel", key)
        data = self.assertSuccess(r)
        self.assertEqual(data["status"], "cancelled")
        self.assertEqual(self.balance(user["id"]), 10_000)
        self.assertEqual(self.quota(user["id"]), 10)
        items = self.server.api("GET", f"/orders/{order['id']}/items", key).body["data"]
        self.assertTrue(all(i["remaining_locked"] == 0 and i["status"] == "failed" for i in items), items)
        before = ledger_snapshot(self.h)
        again = self.server.api("POST", f"/orders/{order['id']}/cancel", key)
        self.assertEqual(again.status, 400, again)
        self.assertEqual(set(again.body), {"success", "message"})
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_parallel_cancels_unlock_once(self):
        user, key = self.account(balance=10_000)
        order = self.assertSuccess(self.create(key, self.template(key, "provider_b"), TEXT), 201)
        statuses = []
        threads = [threading.Thread(target=lambda: statuses.append(
            self.server.api("POST", f"/orders/{order['id']}/cancel", key).status)) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(statuses), [200] + [400] * 19)
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM ledger_txns WHERE kind = 'order_release' AND order_id = '{order['id']}'"), "1")
        self.assertEqual(self.balance(user["id"]), 10_000)

    def test_order_retry_of_an_unfinished_order_is_refused(self):
        _, key = self.account(balance=10_000)
        order = self.assertSuccess(self.create(key, self.template(key, "provider_b"), TEXT), 201)
        r = self.server.api("POST", f"/orders/{order['id']}/retry", key)
        self.assertEqual((r.status, r.body.get("reason")), (422, "invalid_order_status"), r)


if __name__ == "__main__":
    unittest.main()
