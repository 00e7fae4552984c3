"""The policy cooldown (spec 8.1 `policy_cooldown_active`, T6, T13) with a short ladder: five
orders flagged by the content policy for real make the next create a 429 with `retry_after`,
`retry_at` (in the caller's zone) and `Retry-After`, before any charge and writing nothing, the
same on a repeat and for order retry; creation works again once `retry_at` has passed; the next
five give the next rung; a cleanly completed order starts the count again."""

import time
import unittest

from harness import E2ETestCase
from orders_support import OrderFixtures, state_snapshot

TERM = "cooldownterm"
LADDER = (3, 6, 9)
FLAGGED = f"Please say {TERM} for me."
CLEAN = "A perfectly fine sentence."


class PolicyCooldownTests(OrderFixtures, E2ETestCase):
    server_env = {
        "MEDIAGEN_WORKERS": "2",
        "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
        "MEDIAGEN_CONTENT_POLICY": TERM,
        "MEDIAGEN_POLICY_COOLDOWN_SECONDS": ",".join(str(s) for s in LADDER),
    }

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    # -- helpers

    def finished(self, key, template, text, status):
        created = self.assertSuccess(self.create(key, template, text), 201)
        order = self.wait_order(key, created["id"], {"completed", "failed", "partially_completed"})
        self.assertEqual(order["status"], status, order)
        return order

    def flagged(self, key, template, n):
        # The count moves in the transaction that settles the order, so once it reads failed the
        # next create sees it.
        for _ in range(n):
            order = self.finished(key, template, FLAGGED, "failed")
            self.assertEqual([i["status"] for i in order["items"]], ["policy_flagged"])

    def cooldown_row(self, user_id):
        return self.h.psql_value(
            f"SELECT streak || ':' || step FROM policy_cooldowns WHERE user_id = {user_id}")

    def last_cooldown_seconds(self, user_id):
        """How long the cooldown set by the user's latest flagged order lasts, from the rows."""
        return float(self.h.psql_value(
            "SELECT extract(epoch from c.blocked_until - o.flagged) FROM policy_cooldowns c,"
            f" (SELECT max(policy_flagged_at) AS flagged FROM orders WHERE user_id = {user_id}) o"
            f" WHERE c.user_id = {user_id}"))

    def assertCooldown(self, r, most):
        body = self.assertJsonResponse(r, 429)
        self.assertEqual(set(body), {"success", "message", "reason", "error_code", "retry_after", "retry_at"}, r)
        self.assertIs(body["success"], False)
        self.assertEqual((body["reason"], body["error_code"]), ("policy_cooldown_active",) * 2, r)
        self.assertIsInstance(body["retry_after"], int)
        self.assertNotIsInstance(body["retry_after"], bool)
        self.assertGreaterEqual(body["retry_after"], 1)
        self.assertLessEqual(body["retry_after"], most)
        self.assertEqual(r.headers.get("retry-after"), str(body["retry_after"]), r)
        self.assertIso(body["retry_at"])
        return body

    def create_in_moscow(self, key, template, text):
        return self.server.api("POST", "/orders", key, tz="Europe/Moscow",
                               body={"template_id": template, "input_text": text})

    def until_created(self, key, template, text, retry_at):
        """Creates until the server accepts, polling its answer; every refusal meanwhile is the
        same cooldown with the same retry_at. The bound only keeps a broken build from hanging."""
        deadline = time.monotonic() + max(LADDER) + 30
        while True:
            r = self.create_in_moscow(key, template, text)
            if r.status != 429:
                return self.assertSuccess(r, 201)
            self.assertEqual(self.assertCooldown(r, max(LADDER))["retry_at"], retry_at, r)
            self.assertLess(time.monotonic(), deadline, "the cooldown did not end")
            time.sleep(0.2)

    # -- tests

    def test_five_flagged_orders_pause_creation_until_retry_at(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        done = self.finished(key, template, CLEAN, "completed")
        self.flagged(key, template, 4)
        self.assertEqual(self.cooldown_row(user["id"]), "4:0")
        self.flagged(key, template, 1)
        self.assertEqual(self.cooldown_row(user["id"]), "0:1")
        self.assertEqual(self.last_cooldown_seconds(user["id"]), LADDER[0])

        before = state_snapshot(self.h)
        first = self.assertCooldown(self.create_in_moscow(key, template, CLEAN), LADDER[0])
        self.assertTrue(first["retry_at"].endswith("+03:00"), first)
        again = self.assertCooldown(self.create_in_moscow(key, template, CLEAN), LADDER[0])
        self.assertEqual(again["retry_at"], first["retry_at"], "the same answer on a repeat")
        # Order retry makes a new task: it waits too.
        self.assertCooldown(self.server.api("POST", f"/orders/{done['id']}/retry", key, body={}), LADDER[0])
        self.assertEqual(state_snapshot(self.h), before, "a refused create or retry writes nothing")
        self.assertEqual(self.cooldown_row(user["id"]), "0:1")

        # Once retry_at has passed, creation works again: this order is the first of the next five.
        created = self.until_created(key, template, FLAGGED, first["retry_at"])
        self.wait_order(key, created["id"], {"failed"})
        self.flagged(key, template, 4)
        self.assertEqual(self.cooldown_row(user["id"]), "0:2")
        self.assertEqual(self.last_cooldown_seconds(user["id"]), LADDER[1])
        self.assertCooldown(self.create_in_moscow(key, template, CLEAN), LADDER[1])

    def test_a_clean_completed_order_starts_the_count_again(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        self.flagged(key, template, 4)
        self.finished(key, template, CLEAN, "completed")
        self.assertEqual(self.cooldown_row(user["id"]), "0:0")
        self.flagged(key, template, 4)
        self.assertEqual(self.cooldown_row(user["id"]), "4:0")
        # Four flagged, one clean, four flagged: no cooldown.
        self.finished(key, template, CLEAN, "completed")
        self.assertEqual(self.cooldown_row(user["id"]), "0:0")

    def test_another_account_is_not_paused(self):
        _, key = self.account(balance=100_000)
        template = self.template(key)
        self.flagged(key, template, 5)
        self.assertCooldown(self.create(key, template, CLEAN), LADDER[0])
        _, other = self.account(balance=100_000)
        self.assertSuccess(self.create(other, self.template(other), CLEAN), 201)


if __name__ == "__main__":
    unittest.main()
