"""Order items (spec 2.4, 3.1, 3.2, 4.2, 7.1, 8.2): failed and policy_flagged chunks reached for
real (an engine fault drill and a content policy), free and surcharged item retries and the
refund of a failed surcharge, bulk retry, regenerate, order retry, and every refusal of 4.2.
The ledger invariants run after every test."""

import threading
import time
import unittest

from harness import E2ETestCase
from orders_support import OrderFixtures, ledger_snapshot

MARKER = "zqxfail"
BANNED = "forbiddenword"
PARAGRAPH = {"generation_mode": "paragraph"}


class OrderItemTests(OrderFixtures, E2ETestCase):
    server_env = {
        "MEDIAGEN_WORKERS": "2",
        "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
        "MEDIAGEN_ENGINE_FAIL_MARKER": MARKER,
        "MEDIAGEN_CONTENT_POLICY": BANNED + ", other banned phrase",
    }

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    # -- helpers

    def partial_order(self, key, template, paragraphs):
        created = self.assertSuccess(self.create(key, template, "\n\n".join(paragraphs), config_override=PARAGRAPH), 201)
        return self.wait_order(key, created["id"], {"completed", "partially_completed", "failed"})

    def item_at(self, order, index):
        """The last attempt (chunk or retry) at a position."""
        records = [i for i in order["items"] if i["chunk_index"] == index and i["item_type"] != "regeneration"]
        return max(records, key=lambda i: i["attempt_number"])

    def refresh(self, key, order_id):
        return self.server.api("GET", f"/orders/{order_id}", key).body["data"]

    def retry(self, key, order, item, text=None, headers=None):
        body = {} if text is None else {"text": text}
        return self.server.api("POST", f"/orders/{order['id']}/items/{item['id']}/retry", key, body=body, headers=headers)

    def settle(self, key, order_id):
        deadline = time.time() + 60
        while time.time() < deadline:
            order = self.refresh(key, order_id)
            if not any(i["status"] in ("pending", "processing") for i in order["items"]) and not self.h.psql_value(
                    f"SELECT stitch_until IS NOT NULL FROM orders WHERE id = '{order_id}'") == "t":
                return order
            time.sleep(0.1)
        raise AssertionError(f"order {order_id} did not settle")

    # -- reached for real

    def test_fault_drill_fails_a_chunk_and_the_policy_flags_one(self):
        _, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.partial_order(key, template, ["A fine first paragraph.", f"This one has {MARKER} inside.",
                                                   f"And this one says {BANNED} aloud."])
        self.assertEqual(order["status"], "partially_completed")
        ok, failed, flagged = (self.item_at(order, i) for i in range(3))
        self.assertEqual((ok["status"], failed["status"], flagged["status"]), ("completed", "failed", "policy_flagged"))
        self.assertEqual(failed["failure_reason"], "engine_error")
        self.assertEqual(flagged["failure_reason"], "content_policy")
        self.assertIsNone(ok["failure_reason"])
        self.assertTrue(failed["can_retry"] and flagged["can_retry"])
        self.assertFalse(ok["can_retry"])
        # Their funds stay locked for free retries; the completed one is charged.
        self.assertEqual(failed["remaining_locked"], failed["price_units"])
        self.assertEqual(failed["consumed_units"], 0)
        self.assertEqual(ok["consumed_units"], ok["price_units"])
        self.assertIsNone(order["result"])

    def test_a_chunk_that_cannot_be_produced_at_all_fails_the_order_and_returns_everything(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.partial_order(key, template, [f"Only {MARKER} here."])
        self.assertEqual(order["status"], "failed")
        self.assertEqual(self.balance(user["id"]), 100_000)
        self.assertEqual(order["items"][0]["remaining_locked"], 0)

    # -- item retry

    def test_free_retry_within_the_paid_length_completes_the_order(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.partial_order(key, template, ["First part is fine.", f"Second {MARKER} part."])
        balance = self.balance(user["id"])
        failed = self.item_at(order, 1)
        r = self.retry(key, order, failed, text="Second good part.")
        record = self.assertSuccess(r, 201)
        self.assertEqual(record["item_type"], "retry")
        self.assertEqual(record["status"], "pending")
        self.assertEqual(record["parent_item_id"], failed["id"])
        self.assertEqual(record["attempt_number"], 2)
        self.assertFalse(record["can_retry"])
        self.assertIsNone(record["paragraph_index"])
        self.assertEqual(self.balance(user["id"]), balance, "within free_length a retry is free")
        done = self.wait_order(key, order["id"], {"completed"})
        self.assertEqual(len(done["result"]["files"]), 1)
        self.assertEqual(self.balance(user["id"]), balance)
        charges = self.h.psql_value(
            f"SELECT count(*) FROM ledger_txns WHERE kind = 'chunk_charge' AND order_id = '{order['id']}'")
        self.assertEqual(charges, "2")

    def test_surcharge_beyond_the_paid_length_and_its_refund_when_the_retry_fails(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.partial_order(key, template, ["Fine.", f"Short {MARKER} x."])
        failed = self.item_at(order, 1)
        text_info = self.server.api("GET", f"/orders/{order['id']}/items/{failed['id']}/text", key).body["data"]
        free, max_billable = text_info["free_length"], text_info["max_billable_length"]
        self.assertGreater(max_billable, free)
        price_per_1k = int(self.h.psql_value("SELECT price_per_1k_minor FROM service_models WHERE model_id = 'b-standard'"))
        before = self.balance(user["id"])
        # A longer text that fails again: the surcharge is taken, then returned exactly.
        failing = (f"Again {MARKER} " + "y" * max_billable)[:max_billable]
        record = self.assertSuccess(self.retry(key, order, failed, text=failing), 201)
        surcharge = len(failing) - free
        money = -(-surcharge * price_per_1k // 1000)
        self.assertGreater(money, 0)
        order = self.settle(key, order["id"])
        # The surcharge was locked when the retry was accepted and returned when it failed.
        moved = self.h.psql_rows(
            "SELECT t.kind, e.amount FROM ledger_txns t JOIN ledger_entries e ON e.txn_id = t.id"
            " JOIN ledger_accounts a ON a.id = e.account_id"
            f" WHERE t.item_id = '{record['id']}' AND a.kind = 'wallet' ORDER BY t.id")
        self.assertEqual(moved, [["item_lock", str(-money)], ["item_refund", str(money)]])
        self.assertEqual(self.balance(user["id"]), before, "a failed retry's surcharge comes back")
        # A longer text that succeeds: the surcharge is charged for good.
        good = ("Now a good and longer text " + "z" * max_billable)[:max_billable]
        self.assertSuccess(self.retry(key, order, self.item_at(order, 1), text=good), 201)
        self.wait_order(key, order["id"], {"completed"})
        self.assertEqual(self.balance(user["id"]), before - (-(-(len(good) - free) * price_per_1k // 1000)))

    def test_text_over_the_billable_maximum_is_text_over_capacity_and_changes_nothing(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["Fine.", f"Bad {MARKER}."])
        failed = self.item_at(order, 1)
        info = self.server.api("GET", f"/orders/{order['id']}/items/{failed['id']}/text", key).body["data"]
        before = ledger_snapshot(self.h)
        r = self.retry(key, order, failed, text="w" * (info["max_billable_length"] + 1))
        self.assertEqual((r.status, r.body.get("reason")), (422, "text_over_capacity"), r)
        self.assertEqual(ledger_snapshot(self.h), before)
        r = self.retry(key, order, failed, text="w" * 50_001)
        self.assertEqual(r.status, 422)
        self.assertIn("text", r.body["errors"])

    def test_retry_of_a_policy_flagged_chunk_needs_new_text(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["Fine.", f"Say {BANNED} now."])
        flagged = self.item_at(order, 1)
        before = ledger_snapshot(self.h)
        for text in (None, f"Still {BANNED}."):
            r = self.retry(key, order, flagged, text=text)
            self.assertEqual((r.status, r.body.get("reason")), (422, "content_blocked"), r)
        self.assertEqual(ledger_snapshot(self.h), before)
        self.assertSuccess(self.retry(key, order, flagged, text="Say something else now."), 201)
        self.wait_order(key, order["id"], {"completed"})

    def test_parallel_retries_of_one_chunk_give_one_record(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["Fine.", f"Bad {MARKER}."])
        failed = self.item_at(order, 1)
        statuses = []
        lock = threading.Lock()

        def go():
            r = self.retry(key, order, failed, text="Good words now.")
            with lock:
                statuses.append((r.status, r.body.get("reason")))

        threads = [threading.Thread(target=go) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([s for s in statuses if s[0] == 201], [(201, None)], statuses)
        refused = [s for s in statuses if s[0] != 201]
        # Later ones meet the running retry, or the stitch after it, or the completed order.
        self.assertTrue(all(s in ((409, "active_retry_exists"), (409, "stitch_in_progress"), (422, "invalid_status"),
                                  (422, "invalid_order_status")) for s in refused), statuses)
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM order_items WHERE parent_item_id = '{failed['id']}'"), "1")

    def test_an_item_retry_repeated_with_its_key_gets_the_first_answer_and_queues_nothing(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["Fine.", f"Bad {MARKER}."])
        failed = self.item_at(order, 1)
        text = "Good words now."
        first = self.retry(key, order, failed, text=text, headers={"Idempotency-Key": "item-retry-1"})
        record = self.assertSuccess(first, 201)
        self.assertIsNone(first.headers.get("idempotent-replayed"))
        again = self.retry(key, order, failed, text=text, headers={"Idempotency-Key": "item-retry-1"})
        self.assertEqual(again.status, 201, again)
        self.assertEqual(again.headers.get("idempotent-replayed"), "true")
        self.assertEqual(again.body["data"], record)
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM order_items WHERE parent_item_id = '{failed['id']}'"), "1")
        other = self.retry(key, order, failed, text="Other words.", headers={"Idempotency-Key": "item-retry-1"})
        self.assertEqual((other.status, other.body.get("reason")), (409, "idempotency_key_reused"), other)

    def test_at_most_five_attempts_per_chunk(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["Fine.", f"Bad {MARKER}."])
        for attempt in range(2, 6):
            last = self.item_at(order, 1)
            record = self.assertSuccess(self.retry(key, order, last), 201)
            self.assertEqual(record["attempt_number"], attempt)
            order = self.settle(key, order["id"])
            self.assertEqual(self.item_at(order, 1)["status"], "failed")
        last = self.item_at(order, 1)
        self.assertEqual(last["attempt_number"], 5)
        self.assertFalse(last["can_retry"])
        before = ledger_snapshot(self.h)
        r = self.retry(key, order, last, text="Finally good.")
        self.assertEqual((r.status, r.body.get("reason")), (422, "max_attempts_reached"), r)
        self.assertEqual(ledger_snapshot(self.h), before)
        r = self.server.api("POST", f"/orders/{order['id']}/items/retry-failed", key)
        self.assertEqual((r.status, r.body.get("reason")), (422, "nothing_to_retry"), r)

    def test_retry_refusals_by_status(self):
        _, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.partial_order(key, template, ["Fine.", f"Bad {MARKER}."])
        ok = self.item_at(order, 0)
        r = self.retry(key, order, ok)
        self.assertEqual((r.status, r.body.get("reason")), (422, "invalid_status"), r)
        self.assertFalse(ok["can_retry"])
        # A completed order has nothing to retry.
        done = self.wait_order(key, self.assertSuccess(self.create(key, template, "All good."), 201)["id"], {"completed"})
        r = self.retry(key, done, done["items"][0], text="Other words.")
        self.assertEqual((r.status, r.body.get("reason")), (422, "invalid_order_status"), r)
        r = self.server.api("POST", f"/orders/{done['id']}/items/retry-failed", key)
        self.assertEqual((r.status, r.body.get("reason")), (422, "invalid_order_status"), r)
        # sfx and music are single-shot.
        sfx = self.assertSuccess(self.server.api("POST", "/orders", key, body={"task_type": "sfx",
                                                                              "task_data": {"text": "rain on a roof"}}), 201)
        sfx = self.wait_order(key, sfx["id"], {"failed", "completed"})
        r = self.retry(key, sfx, sfx["items"][0], text="thunder")
        self.assertEqual((r.status, r.body.get("reason")), (422, "generative_not_supported"), r)
        r = self.server.api("POST", f"/orders/{sfx['id']}/items/retry-failed", key)
        self.assertEqual((r.status, r.body.get("reason")), (422, "generative_not_supported"), r)
        # Unknown items and malformed ids.
        for path in (f"/orders/{order['id']}/items/00000000-0000-4000-8000-000000000000/retry",
                     f"/orders/{order['id']}/items/not-a-uuid/retry"):
            self.assertEqual(self.server.api("POST", path, key, body={}).status, 404)

    def test_stitch_in_progress_is_409_before_any_charge(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["Fine.", f"Bad {MARKER}."])
        # A stitcher holding the order's stitch lease (what a running or crashed stitch leaves).
        self.h.psql(f"UPDATE orders SET stitch_until = now() + interval '1 hour' WHERE id = '{order['id']}'")
        try:
            before = ledger_snapshot(self.h)
            r = self.retry(key, order, self.item_at(order, 1), text="Good now.")
            self.assertEqual((r.status, r.body.get("reason")), (409, "stitch_in_progress"), r)
            r = self.server.api("POST", f"/orders/{order['id']}/items/retry-failed", key)
            self.assertEqual((r.status, r.body.get("reason")), (409, "stitch_in_progress"), r)
            self.assertEqual(ledger_snapshot(self.h), before)
        finally:
            self.h.psql(f"UPDATE orders SET stitch_until = NULL WHERE id = '{order['id']}'")

    def test_maintenance_outdated_settings_and_money_refusals(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        order = self.partial_order(key, template, ["Fine.", f"Bad {MARKER} x."])
        failed = self.item_at(order, 1)
        info = self.server.api("GET", f"/orders/{order['id']}/items/{failed['id']}/text", key).body["data"]
        # 402 when the surcharge cannot be paid.
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", str(-self.balance(user["id"])))
        before = ledger_snapshot(self.h)
        self.h.cli("admin", "maintenance", "on")
        try:
            r = self.retry(key, order, failed, text="Good.")
            self.assertEqual((r.status, r.body.get("reason")), (503, "service_maintenance"), r)
        finally:
            self.h.cli("admin", "maintenance", "off")
        longer = ("Longer replacement text " + "q" * info["max_billable_length"])[:info["max_billable_length"]]
        r = self.retry(key, order, failed, text=longer)
        self.assertEqual((r.status, r.body.get("reason")), (402, "insufficient_balance"), r)
        self.assertEqual(ledger_snapshot(self.h), before)
        # Settings that no longer pass the catalogue: 422 on item retry.
        voice = self.h.psql_value(f"SELECT config->'tts_settings'->>'voice_id' FROM templates WHERE id = '{template}'")
        self.h.psql(f"UPDATE voices SET is_active = false WHERE voice_id = '{voice}'")
        try:
            r = self.retry(key, order, failed, text="Good.")
            self.assertEqual((r.status, r.body.get("reason")), (422, "retry_config_outdated"), r)
        finally:
            self.h.psql(f"UPDATE voices SET is_active = true WHERE voice_id = '{voice}'")
        self.assertEqual(ledger_snapshot(self.h), before)

    def test_surcharge_counts_against_the_keys_token_pool(self):
        user, _ = self.account(balance=100_000)
        created_key = self.h.create_key(user["id"], preset="full", tokens_quota=60)
        key, key_id = created_key["key"], created_key["id"]
        order = self.partial_order(key, self.template(key), ["Fine.", f"Bad {MARKER} x."])
        failed = self.item_at(order, 1)
        info = self.server.api("GET", f"/orders/{order['id']}/items/{failed['id']}/text", key).body["data"]
        used = int(self.h.psql_value(f"SELECT tokens_quota_used FROM api_keys WHERE id = {key_id}"))
        longer = ("Longer words here " + "q" * info["max_billable_length"])[:info["max_billable_length"]]
        if used + (len(longer) - info["free_length"]) > 60:
            r = self.retry(key, order, failed, text=longer)
            self.assertEqual((r.status, r.body.get("reason"), r.body.get("window")),
                             (429, "token_quota_exceeded", "quota"), r)
        # A free retry takes nothing from the pool.
        self.assertSuccess(self.retry(key, order, failed, text="Good."), 201)
        self.assertEqual(int(self.h.psql_value(f"SELECT tokens_quota_used FROM api_keys WHERE id = {key_id}")), used)

    # -- bulk retry

    def test_retry_failed_queues_failed_chunks_but_not_policy_flagged_ones(self):
        _, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key),
                                   ["Fine.", f"One {MARKER}.", f"Two {MARKER}.", f"Three {BANNED}."])
        r = self.server.api("POST", f"/orders/{order['id']}/items/retry-failed", key)
        data = self.assertSuccess(r, 201)
        self.assertEqual(data["queued"], 2)
        self.assertEqual(sorted(i["chunk_index"] for i in data["items"]), [1, 2])
        self.assertTrue(all(i["item_type"] == "retry" and i["attempt_number"] == 2 for i in data["items"]))
        order = self.settle(key, order["id"])
        self.assertEqual(order["status"], "partially_completed")
        self.assertEqual(self.item_at(order, 3)["attempt_number"], 1, "policy_flagged chunks are not included")

    # -- cancel with partial work

    def test_cancel_of_a_partially_completed_order_refunds_exactly_the_unfinished_part(self):
        user, key = self.account(balance=100_000)
        order = self.partial_order(key, self.template(key), ["First fine paragraph.", f"Second {MARKER} one.",
                                                              "Third fine paragraph."])
        created_price = order["price_units"]
        charged = int(self.h.psql_value(
            "SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e JOIN ledger_txns t ON t.id = e.txn_id"
            " JOIN ledger_accounts a ON a.id = e.account_id"
            f" WHERE t.kind = 'chunk_charge' AND t.order_id = '{order['id']}' AND a.kind = 'revenue'"))
        data = self.assertSuccess(self.server.api("POST", f"/orders/{order['id']}/cancel", key))
        self.assertEqual(data["status"], "cancelled")
        self.assertEqual(self.balance(user["id"]), 100_000 - charged)
        self.assertLess(charged, created_price)

    # -- regenerate and order retry

    def test_regenerate_is_paid_and_replaces_the_chunk_audio(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        created = self.assertSuccess(self.create(key, template, "Regenerate this sentence please."), 201)
        order = self.wait_order(key, created["id"], {"completed"})
        item = order["items"][0]
        self.assertTrue(item["can_regenerate"])
        before = self.balance(user["id"])
        r = self.server.api("POST", f"/orders/{order['id']}/items/{item['id']}/regenerate", key,
                            body={"text": "Regenerated sentence, please."})
        record = self.assertSuccess(r, 201)
        self.assertEqual(record["item_type"], "regeneration")
        self.assertEqual(record["parent_item_id"], item["id"])
        self.assertLess(self.balance(user["id"]), before)
        order = self.settle(key, order["id"])
        regenerated = [i for i in order["items"] if i["item_type"] == "regeneration"][0]
        self.assertEqual(regenerated["status"], "completed")
        self.assertEqual(regenerated["consumed_units"], regenerated["price_units"])
        self.assertIn(order["status"], ("completed", "result_delivered"))
        too_long = "x" * (item["original_text_length"] + 1)
        r = self.server.api("POST", f"/orders/{order['id']}/items/{regenerated['id']}/regenerate", key,
                            body={"text": too_long})
        self.assertEqual((r.status, r.body.get("reason")), (422, "text_over_capacity"), r)

    def test_order_retry_creates_and_bills_a_new_order_from_the_snapshot(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        created = self.assertSuccess(self.create(key, template, "An order to repeat."), 201)
        self.wait_order(key, created["id"], {"completed"})
        # Later template edits do not matter: the snapshot is used.
        self.server.api("PATCH", f"/templates/{template}", key, body={"name": "renamed"})
        before = self.balance(user["id"])
        again = self.assertSuccess(self.server.api("POST", f"/orders/{created['id']}/retry", key,
                                                   body={"confirm_payg_topup": True, "quote_token": "ignored"}), 201)
        self.assertNotEqual(again["id"], created["id"])
        self.assertEqual(again["retry_of"], created["id"])
        self.assertEqual(again["status"], "created")
        self.assertEqual(self.balance(user["id"]), before - again["price_units"])
        self.assertEqual(self.refresh(key, created["id"])["status"], "completed", "the original is unchanged")
        # The snapshot no longer passes the catalogue: 400 retry_config_outdated.
        model = "b-standard"
        self.h.psql(f"UPDATE service_models SET is_active = false WHERE model_id = '{model}'")
        try:
            before = ledger_snapshot(self.h)
            r = self.server.api("POST", f"/orders/{created['id']}/retry", key)
            self.assertEqual((r.status, r.body.get("reason")), (400, "retry_config_outdated"), r)
            self.assertEqual(ledger_snapshot(self.h), before)
        finally:
            self.h.psql(f"UPDATE service_models SET is_active = true WHERE model_id = '{model}'")


if __name__ == "__main__":
    unittest.main()
