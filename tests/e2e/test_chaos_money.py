"""Money under races (spec 1 billing, 2.3, 3.1, 4.1, 7.1, 8.1, 8.2), black-box over HTTP against
two processes on one database and one Redis prefix:

T1   concurrent creates over 64 keep-alive connections against a balance for half of them; the
     same with quota first and then balance; the same against a key's token pool.
T4a  ten-chunk orders cancelled at random moments around their first claim.
T4b  partially completed orders cancelled while their item retries run.
     And 100 parallel cancels of one order.

Every count and sum is exact and read from the ledger; the invariants run after every test.
Sizes: MEDIAGEN_CHAOS=full gives the research's (T1 1000 against 500, T4a 200, T4b 100);
unset, the CI's (T1 200 against 100, T4a 40, T4b 20)."""

import random
import threading
import time

from chaos_support import (assert_cancel_refusal, burst, cancel_problems, claims_of, codes, figure, size)
from harness import API, E2ETestCase
from orders_support import OrderFixtures, charges_by_item, ledger_snapshot, sql_ids, wait_orders_terminal

TEXT = "Hello there. This is a fixed order text for the double spend race."
TOKENS = 100
TOKEN_TEXT = "x" * TOKENS  # one token per character (b-standard counts chars)
MARKER = "zqxfail"
PARAGRAPH = {"generation_mode": "paragraph"}
DELIVERED = ("completed", "result_delivered")


def create_request(key, template, text):
    return ("POST", f"{API}/orders", {"X-API-KEY": key}, {"template_id": template, "input_text": text})


class ChaosMoney(OrderFixtures, E2ETestCase):
    start_server = False

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def user_orders(self, user):
        return int(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"))

    def user_txns(self, user, kind):
        return int(self.h.psql_value(f"SELECT count(*) FROM ledger_txns WHERE kind = '{kind}'"
                                     f" AND user_id = {user['id']}"))


class CreateRaceTests(ChaosMoney):
    """T1: two processes without workers, so every order stays as created."""

    @classmethod
    def prepare(cls):
        super().prepare()
        env = {"MEDIAGEN_WORKERS": "0"}
        cls.servers = [cls.h.start_server(env, name="t1-a"), cls.h.start_server(env, name="t1-b")]
        cls.server = cls.servers[0]

    def race(self, key, template, text, n):
        return burst(self.servers, 64, [create_request(key, template, text)] * n)

    def assert402(self, answers):
        for a in answers:
            if a.status == 402:
                self.assertEqual(a.body, {"success": False, "message": a.body.get("message"),
                                          "reason": "insufficient_balance", "error_code": "insufficient_balance"})
                self.assertTrue(a.body["message"])

    def test_t1_creates_against_a_balance_for_half_give_exactly_half(self):
        started = time.monotonic()
        n = size(200, 1000)
        user, key = self.account(balance=0)
        template = self.template(key, "provider_b")
        price = self.price_of(key, template, TEXT)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", str(price * (n // 2)))
        answers = self.race(key, template, TEXT, n)
        seen = codes(answers)
        figure("T1 balance", started, concurrent=n, funded=n // 2, connections=64, processes=2, codes=seen)
        self.assertEqual(seen, {201: n // 2, 402: n - n // 2})
        self.assert402(answers)
        ids = {a.body["data"]["id"] for a in answers if a.status == 201}
        self.assertEqual(len(ids), n // 2)
        self.assertEqual(self.balance(user["id"]), 0)
        self.assertEqual(self.user_orders(user), n // 2)
        self.assertEqual(self.user_txns(user, "order_lock"), n // 2)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE id IN {sql_ids(ids)}"
                                           f" AND price_units = {price} AND status = 'created'"), str(n // 2))

    def test_t1_quota_then_balance_split_exactly(self):
        started = time.monotonic()
        n = size(200, 1000)
        from_quota, from_balance = n * 3 // 10, n * 2 // 10
        user, key = self.account(balance=0)
        template = self.template(key, "provider_b")
        price = self.price_of(key, template, TOKEN_TEXT)
        self.set_quota(user["id"], TOKENS * from_quota)
        self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", str(price * from_balance))
        answers = self.race(key, template, TOKEN_TEXT, n)
        seen = codes(answers)
        figure("T1 quota+balance", started, concurrent=n, quota_orders=from_quota, balance_orders=from_balance,
               codes=seen)
        created = from_quota + from_balance
        self.assertEqual(seen, {201: created, 402: n - created})
        self.assert402(answers)
        rows = self.h.psql_rows(f"SELECT tokens_from_quota, tokens_from_payg, price_units FROM orders"
                                f" WHERE user_id = {user['id']}")
        self.assertEqual(len(rows), created)
        self.assertEqual(sum(int(q) for q, _, _ in rows), TOKENS * from_quota)
        self.assertEqual(sum(int(p) for _, p, _ in rows), TOKENS * from_balance)
        self.assertEqual(sum(int(m) for _, _, m in rows), price * from_balance)
        self.assertEqual((self.quota(user["id"]), self.balance(user["id"])), (0, 0))
        self.assertEqual(self.user_txns(user, "order_lock"), created)

    def test_t1_key_token_pool_admits_exactly_its_tokens(self):
        started = time.monotonic()
        pool_orders, n = size((20, 60), (100, 300))
        user, _ = self.account(balance=10_000_000)
        key = self.h.create_key(user["id"], preset="full", tokens_quota=TOKENS * pool_orders)["key"]
        template = self.template(key, "provider_b")
        answers = self.race(key, template, TOKEN_TEXT, n)
        seen = codes(answers)
        figure("T1 key pool", started, concurrent=n, pool_orders=pool_orders, codes=seen)
        self.assertEqual(seen, {201: pool_orders, 429: n - pool_orders})
        for a in answers:
            if a.status != 429:
                continue
            self.assertEqual({k: a.body.get(k) for k in ("success", "reason", "window", "limit", "requested",
                                                          "reset_at", "retry_after")},
                             {"success": False, "reason": "token_quota_exceeded", "window": "quota",
                              "limit": TOKENS * pool_orders, "requested": TOKENS, "reset_at": None,
                              "retry_after": None}, a)
            self.assertGreater(a.body["used"] + TOKENS, TOKENS * pool_orders, a)
            self.assertNotIn("retry-after", a.headers, a)
        self.assertEqual(self.user_orders(user), pool_orders)
        self.assertEqual(self.user_txns(user, "order_lock"), pool_orders)

    def test_hundred_parallel_cancels_of_one_order_cancel_it_once(self):
        started = time.monotonic()
        user, key = self.account(balance=100_000)
        self.set_quota(user["id"], TOKENS // 2)
        template = self.template(key, "provider_b")
        order = self.assertSuccess(self.create(key, template, TOKEN_TEXT), 201)
        self.assertEqual((order["tokens_from_quota"], order["tokens_from_payg"]), (TOKENS // 2, TOKENS // 2))
        before = [int(x) for x in ledger_snapshot(self.h).split("|")]
        path = f"{API}/orders/{order['id']}/cancel"
        answers = burst(self.servers, 100, [("POST", path, {"X-API-KEY": key}, {})] * 100)
        seen = codes(answers)
        figure("parallel cancels", started, cancels=100, codes=seen)
        self.assertEqual(seen, {200: 1, 400: 99})
        for a in answers:
            if a.status == 400:
                assert_cancel_refusal(self, a)
            else:
                self.assertEqual(a.body["data"]["status"], "cancelled", a)
        after = [int(x) for x in ledger_snapshot(self.h).split("|")]
        releases = self.h.psql_rows(f"SELECT id FROM ledger_txns WHERE order_id = '{order['id']}'"
                                    " AND kind = 'order_release'")
        self.assertEqual(len(releases), 1)
        entries = int(self.h.psql_value(f"SELECT count(*) FROM ledger_entries WHERE txn_id = {releases[0][0]}"))
        # One transaction and its entries; nothing from the 99 refusals.
        self.assertEqual((after[0] - before[0], after[1] - before[1]), (entries, 1))
        self.assertEqual((self.balance(user["id"]), self.quota(user["id"])), (100_000, TOKENS // 2))
        self.assertEqual(cancel_problems(self.h, order["id"]), [])


class CancelRaceTests(ChaosMoney):
    """T4a: a cancel races the first claim of a ten-chunk order. A claim moves the order to
    in_progress, where cancel is refused: so a cancelled order has no record ever claimed and all
    its money back, and a refused one runs to completion with every position charged once."""

    ENV = {"MEDIAGEN_WORKERS": "4", "MEDIAGEN_SWEEP_INTERVAL_MS": "200"}
    PIPELINES = 2  # few orders at once, so that a new order's first claim comes soon after its creation

    @classmethod
    def prepare(cls):
        super().prepare()
        cls.server = cls.h.start_server(cls.ENV, name="t4a")

    def ten_chunks(self, key, template, tag):
        text = "\n\n".join(f"Part {k} of order {tag} is short." for k in range(10))
        return self.server.api("POST", "/orders", key, body={"template_id": template, "input_text": text,
                                                              "config_override": PARAGRAPH})

    def claim_latency(self, key, template):
        """Seconds from an order's creation to its first claim, as the database saw them."""
        ids = []
        for k in range(3):  # one at a time: each finds the queue empty, as the race's orders mostly do
            ids.append(self.assertSuccess(self.ten_chunks(key, template, f"warm{k}"), 201)["id"])
            wait_orders_terminal(self.h, ids, timeout=120)
        return [float(x[0]) for x in self.h.psql_rows(
            "SELECT extract(epoch FROM min(i.updated_at) - o.created_at) FROM orders o"
            f" JOIN order_items i ON i.order_id = o.id WHERE o.id IN {sql_ids(ids)} GROUP BY o.id")], ids

    def test_t4a_cancels_around_the_first_claim_have_exactly_one_effect(self):
        started = time.monotonic()
        n = size(40, 200)
        user, key = self.account(balance=10_000_000)
        template = self.template(key, "provider_b")
        latencies, warm = self.claim_latency(key, template)
        per_order = int(self.h.psql_value(f"SELECT tokens_from_quota + tokens_from_payg FROM orders"
                                          f" WHERE id = '{warm[0]}'"))
        self.set_quota(user["id"], per_order * n // 2)  # the first half of the race pays from quota
        # A staircase centres the cancels on the claim: the window shrinks after a refusal and
        # grows after a cancel, so about half of the cancels land on either side of it.
        spread = [2 * max(latencies)]
        results, lock, queue = {}, threading.Lock(), list(range(n))

        def pipeline():
            while True:
                with lock:
                    if not queue:
                        return
                    tag = queue.pop()
                order = self.assertSuccess(self.ten_chunks(key, template, tag), 201)
                time.sleep(random.uniform(0, spread[0]))
                answer = self.server.api("POST", f"/orders/{order['id']}/cancel", key, body={})
                claims = claims_of(self.h, [order["id"]])
                with lock:
                    results[order["id"]] = (answer, claims)
                    spread[0] *= 1.25 if answer.status == 200 else 0.8
                wait_orders_terminal(self.h, [order["id"]], timeout=120)

        threads = [threading.Thread(target=pipeline) for _ in range(self.PIPELINES)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seen = codes(a for a, _ in results.values())
        figure("T4a", started, orders=n, claim_latency_ms=[round(x * 1000) for x in latencies],
               last_spread_ms=round(spread[0] * 1000), codes=seen)
        self.assertEqual(len(results), n)
        self.assertEqual(set(seen) - {200, 400}, set(), seen)
        self.assertTrue(seen.get(200) and seen.get(400), f"the race should go both ways: {seen}")
        statuses = wait_orders_terminal(self.h, list(results), timeout=5)
        charges = charges_by_item(self.h, list(results))
        for order_id, (answer, claims) in results.items():
            if answer.status == 200:
                self.assertEqual(answer.body["data"]["status"], "cancelled", answer)
                self.assertEqual(statuses[order_id], "cancelled")
                self.assertEqual(set(claims_of(self.h, [order_id]).values()), {0}, f"claimed after a cancel {order_id}")
                self.assertEqual(cancel_problems(self.h, order_id), [], order_id)
                self.assertEqual(sum(charges[i] for i in claims), 0)
            else:
                assert_cancel_refusal(self, answer)
                self.assertIn(statuses[order_id], DELIVERED, order_id)
                self.assertEqual(sorted(charges[i] for i in claims), [1] * 10, order_id)
                self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM order_items WHERE order_id = '{order_id}'"
                                                   " AND failure_reason = 'order_cancelled'"), "0")


class RetryCancelTests(ChaosMoney):
    """T4b: partially completed orders cancelled while retries of their failed chunks run: a retry
    finishing after the cancel commit writes nothing and charges nothing."""

    PIPELINES = 4

    def partial_orders(self, key, template, n):
        """n orders of four paragraphs whose second and fourth fail the first time."""
        server = self.h.start_server({"MEDIAGEN_WORKERS": "2", "MEDIAGEN_ENGINE_FAIL_MARKER": MARKER},
                                     name="t4b-setup")
        self.server = server
        ids = []
        for n_ in range(n):
            parts = [f"Order {n_} opens {w}." if k % 2 == 0 else f"Order {n_} part {k} has {MARKER} inside it."
                     for k, w in enumerate(("well", "x", "again", "y"))]
            r = self.create(key, template, "\n\n".join(parts), config_override=PARAGRAPH)
            ids.append(self.assertSuccess(r, 201)["id"])
        statuses = wait_orders_terminal_or_partial(self.h, ids)
        self.assertEqual(set(statuses.values()), {"partially_completed"}, statuses)
        server.stop_checked()
        return ids

    def test_t4b_cancels_during_item_retries_fence_late_completions(self):
        started = time.monotonic()
        n = size(20, 100)
        user, key = self.account(balance=10_000_000)
        self.set_quota(user["id"], 2_000)
        self.server = self.h.start_server({"MEDIAGEN_WORKERS": "0"}, name="t4b-api")
        template = self.template(key, "provider_b")
        self.server.stop_checked()
        ids = self.partial_orders(key, template, n)
        self.server = self.h.start_server({"MEDIAGEN_WORKERS": "4", "MEDIAGEN_ENGINE_DELAY_MS": "1000",
                                           "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
                                           "MEDIAGEN_ENGINE_FAIL_MARKER": MARKER}, name="t4b")
        results, lock, queue = {}, threading.Lock(), list(ids)

        def pipeline():
            while True:
                with lock:
                    if not queue:
                        return
                    order_id = queue.pop()
                failed = self.h.psql_rows(f"SELECT id, chunk_index FROM order_items WHERE order_id = '{order_id}'"
                                          " AND status = 'failed'")
                for item, index in failed:
                    r = self.server.api("POST", f"/orders/{order_id}/items/{item}/retry", key,
                                        body={"text": f"Part {index} is fine."})
                    self.assertSuccess(r, 201)
                time.sleep(random.uniform(0, 2.5))
                answer = self.server.api("POST", f"/orders/{order_id}/cancel", key, body={})
                claims = claims_of(self.h, [order_id])
                with lock:
                    results[order_id] = (answer, claims)
                wait_orders_terminal(self.h, [order_id], timeout=120)

        threads = [threading.Thread(target=pipeline) for _ in range(self.PIPELINES)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.check_t4b(results, started)

    def check_t4b(self, results, started):
        seen = codes(a for a, _ in results.values())
        statuses = wait_orders_terminal(self.h, list(results), timeout=5)
        charges = charges_by_item(self.h, list(results))
        fenced = self.h.psql_rows(
            "SELECT id FROM order_items WHERE item_type = 'retry' AND failure_reason = 'order_cancelled'"
            f" AND claims > 0 AND order_id IN {sql_ids(results)}")
        discarded = sum(1 for line in self.server.log_lines() if "result discarded" in line)
        figure("T4b", started, orders=len(results), codes=seen, retries_cut_by_cancel=len(fenced),
               discarded_completions=discarded)
        self.assertEqual(set(seen) - {200, 400, 409}, set(), seen)
        self.assertTrue(seen.get(200), seen)
        self.assertTrue(fenced, "some cancel should catch a retry in processing")
        self.assertEqual({i: charges[i] for (i,) in fenced if charges[i]}, {}, "a cut retry was charged")
        for order_id, (answer, claims) in results.items():
            if answer.status == 200:
                self.assertEqual((answer.body["data"]["status"], statuses[order_id]), ("cancelled", "cancelled"))
                self.assertEqual(claims_of(self.h, [order_id]), claims, f"a chunk started after the cancel {order_id}")
                self.assertEqual(cancel_problems(self.h, order_id), [], order_id)
                continue
            if answer.status == 409:
                self.assertEqual(answer.body, {"success": False, "message": answer.body.get("message"),
                                               "reason": "stitch_in_progress", "error_code": "stitch_in_progress"})
            else:
                assert_cancel_refusal(self, answer)
            # A refused cancel has no effect: the order completes, nothing of it was stopped.
            self.assertIn(statuses[order_id], DELIVERED, order_id)
            self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM order_items WHERE order_id = '{order_id}'"
                                               " AND failure_reason = 'order_cancelled'"), "0", order_id)


def wait_orders_terminal_or_partial(h, ids, timeout=180.0):
    deadline = time.monotonic() + timeout
    while True:
        rows = dict(h.psql_rows(f"SELECT id, status FROM orders WHERE id IN {sql_ids(ids)}"))
        settled = rows and all(s in ("partially_completed", "completed", "failed") for s in rows.values())
        busy = h.psql_value(f"SELECT count(*) FROM order_items WHERE order_id IN {sql_ids(ids)}"
                            " AND status IN ('pending', 'processing')")
        if settled and busy == "0" or time.monotonic() > deadline:
            return rows
        time.sleep(0.2)


if __name__ == "__main__":
    import unittest
    unittest.main()
