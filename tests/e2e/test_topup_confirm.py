"""The explicit-confirmation fallback of spec 7.1 (`admin billing confirm-mode on|off`): with it on,
a create or an order retry that would take money from the balance answers 402
`payg_topup_required` with the top-up price and a signed, short-lived `quote_token`; sending the
same request again with `confirm_payg_topup: true` and that token makes the order and charges
exactly the quoted amount. A token that does not hold (spent, another user's, another request's,
another price's, forged) is 409 `quote_mismatch`; a confirmation without a token gets a fresh 402.
None of those refusals writes anything, and each repeats. In normal mode both fields are ignored.
A token past its five minutes is covered with a steered clock in the integration tests."""

import datetime
import unittest

from harness import E2ETestCase
from orders_support import OrderFixtures, state_snapshot

TEXT = "A sentence that is paid for from the balance."
QUOTE_FIELDS = {"success", "message", "reason", "error_code", "topup_price", "currency", "tokens_from_quota",
                "tokens_from_payg", "quote_token", "quote_expires_at"}


class TopupConfirmTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "2"}

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.h.cli("admin", "billing", "confirm-mode", "on")

    def tearDown(self):
        self.assertInvariants()

    # -- helpers

    def snapshot(self):
        """Ledger, balances, orders, items, Redis and spent quotes: what a 402 or 409 must leave alone."""
        return state_snapshot(self.h), self.h.psql_value("SELECT count(*) FROM topup_quote_uses")

    def assertQuote(self, r, price=None, quota=0):
        body = self.assertJsonResponse(r, 402)
        self.assertEqual(set(body), QUOTE_FIELDS, r)
        self.assertIs(body["success"], False)
        self.assertEqual((body["reason"], body["error_code"]), ("payg_topup_required",) * 2, r)
        self.assertEqual(body["currency"], "USD")
        self.assertEqual(body["tokens_from_quota"], quota)
        if price is not None:
            self.assertEqual(body["topup_price"], price, r)
        self.assertGreater(body["topup_price"], 0)
        self.assertRegex(body["quote_token"], r"^q1\.[1-9][0-9]*\.[0-9a-f]{32}\.[0-9a-f]{64}$")
        self.assertIso(body["quote_expires_at"])
        expires = datetime.datetime.fromisoformat(body["quote_expires_at"])
        left = (expires - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
        self.assertGreater(left, 240, body)
        self.assertLessEqual(left, 300, body)
        return body

    def assertMismatch(self, r):
        body = self.assertJsonResponse(r, 409)
        self.assertEqual(body, {"success": False, "message": body["message"], "reason": "quote_mismatch",
                                "error_code": "quote_mismatch"}, r)

    def confirmed(self, key, template, text, token):
        return self.create(key, template, text, confirm_payg_topup=True, quote_token=token)

    # -- tests

    def test_a_create_is_quoted_then_confirmed_for_exactly_the_quoted_amount(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        price = self.price_of(key, template, TEXT)
        before, balance = self.snapshot(), self.balance(user["id"])
        quote = self.assertQuote(self.create(key, template, TEXT), price)
        self.assertEqual(quote["tokens_from_payg"], len(TEXT))
        again = self.assertQuote(self.create(key, template, TEXT), price)
        self.assertNotEqual(again["quote_token"], quote["quote_token"], "every quote is a new token")
        self.assertEqual(self.snapshot(), before, "a quote writes nothing")

        order = self.assertSuccess(self.confirmed(key, template, TEXT, quote["quote_token"]), 201)
        self.assertEqual((order["price_units"], order["tokens_from_payg"]), (price, len(TEXT)))
        self.assertEqual(self.balance(user["id"]), balance - price, "exactly the quoted amount")

        # The token paid for one order: sent again it is spent, before any charge.
        self.wait_order(key, order["id"], {"completed"})  # settled: the ledger stays still now
        spent = self.snapshot()
        for _ in range(2):
            self.assertMismatch(self.confirmed(key, template, TEXT, quote["quote_token"]))
        self.assertEqual(self.snapshot(), spent)
        # The other quote is still good, for one more order.
        self.assertSuccess(self.confirmed(key, template, TEXT, again["quote_token"]), 201)
        self.assertEqual(self.balance(user["id"]), balance - 2 * price)

    def test_a_confirmation_without_a_quote_is_never_charged(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        before = self.snapshot()
        for extra in ({"confirm_payg_topup": True}, {"confirm_payg_topup": True, "quote_token": ""},
                      {"confirm_payg_topup": True, "quote_token": None}, {"confirm_payg_topup": False},
                      {"quote_token": self.assertQuote(self.create(key, template, TEXT))["quote_token"]}):
            for _ in range(2):
                self.assertQuote(self.create(key, template, TEXT, **extra))
        self.assertEqual(self.snapshot(), before)
        self.assertEqual(self.balance(user["id"]), 100_000)

    def test_a_foreign_or_forged_quote_is_409_before_any_charge(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        _, other = self.account(balance=100_000)
        theirs = self.assertQuote(self.create(other, self.template(other), TEXT))["quote_token"]
        ours = self.assertQuote(self.create(key, template, TEXT))["quote_token"]
        forged = ours[:-1] + ("0" if ours[-1] != "0" else "1")
        before = self.snapshot()
        for token, text in ((theirs, TEXT), (ours, TEXT + " And one more."), (forged, TEXT), ("q1.1.2.3", TEXT),
                            ("not a quote", TEXT), ("q1." + "9" * 40, TEXT), ("\u00e9" * 50, TEXT)):
            for _ in range(2):
                self.assertMismatch(self.confirmed(key, template, text, token))
        self.assertEqual(self.snapshot(), before)
        self.assertEqual(self.balance(user["id"]), 100_000)
        # Not spent by any of that: the genuine token still works for its own request.
        self.assertSuccess(self.confirmed(key, template, TEXT, ours), 201)

    def test_a_quote_gone_stale_when_the_price_moved_is_409(self):
        user, key = self.account(balance=100_000)
        self.set_quota(user["id"], 100)
        template = self.template(key)
        text = "q" * 150
        stale = self.assertQuote(self.create(key, template, text), quota=100)
        self.assertEqual(stale["tokens_from_payg"], 50)
        # An order the quota covers needs no quote, and leaves 40 tokens of it.
        covered = self.assertSuccess(self.create(key, template, "c" * 60), 201)
        self.assertEqual((covered["tokens_from_quota"], covered["price_units"]), (60, 0))
        self.wait_order(key, covered["id"], {"completed"})  # settled: the ledger stays still now

        before = self.snapshot()
        self.assertMismatch(self.confirmed(key, template, text, stale["quote_token"]))
        self.assertEqual(self.snapshot(), before)
        fresh = self.assertQuote(self.create(key, template, text), quota=40)
        self.assertEqual(fresh["tokens_from_payg"], 110)
        self.assertGreater(fresh["topup_price"], stale["topup_price"])
        balance = self.balance(user["id"])
        order = self.assertSuccess(self.confirmed(key, template, text, fresh["quote_token"]), 201)
        self.assertEqual((order["tokens_from_quota"], order["price_units"]), (40, fresh["topup_price"]))
        self.assertEqual(self.balance(user["id"]), balance - fresh["topup_price"])

    def test_without_the_money_the_answer_is_insufficient_balance_not_a_quote(self):
        _, key = self.account(balance=0)
        r = self.create(key, self.template(key), TEXT, confirm_payg_topup=True)
        self.assertEqual((r.status, r.body["reason"]), (402, "insufficient_balance"), r)

    def test_order_retry_is_quoted_and_confirmed_like_a_create(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        quote = self.assertQuote(self.create(key, template, TEXT))
        first = self.assertSuccess(self.confirmed(key, template, TEXT, quote["quote_token"]), 201)
        self.wait_order(key, first["id"], {"completed"})

        path = f"/orders/{first['id']}/retry"
        before = self.snapshot()
        retry_quote = self.assertQuote(self.server.api("POST", path, key, body={}), quote["topup_price"])
        self.assertQuote(self.server.api("POST", path, key, body={"confirm_payg_topup": True}))
        # A create's quote does not confirm a retry, even of the same text at the same price.
        fresh_create = self.assertQuote(self.create(key, template, TEXT))["quote_token"]
        self.assertMismatch(self.server.api("POST", path, key,
                                            body={"confirm_payg_topup": True, "quote_token": fresh_create}))
        self.assertEqual(self.snapshot(), before)

        balance = self.balance(user["id"])
        retried = self.assertSuccess(self.server.api(
            "POST", path, key, body={"confirm_payg_topup": True, "quote_token": retry_quote["quote_token"]}), 201)
        self.assertEqual((retried["retry_of"], retried["price_units"]), (first["id"], retry_quote["topup_price"]))
        self.assertEqual(self.balance(user["id"]), balance - retry_quote["topup_price"])

    def test_normal_mode_accepts_and_ignores_both_fields(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        price = self.price_of(key, template, TEXT)
        self.assertEqual(self.h.cli("admin", "billing", "confirm-mode", "off"), {"confirm_mode": False})
        try:
            for extra in ({}, {"confirm_payg_topup": True, "quote_token": "anything at all"},
                          {"confirm_payg_topup": False}, {"quote_token": "q1.1.2.3"}):
                order = self.assertSuccess(self.create(key, template, TEXT, **extra), 201)
                self.assertEqual(order["price_units"], price)
            self.wait_order(key, order["id"], {"completed"})
            self.assertSuccess(self.server.api("POST", f"/orders/{order['id']}/retry", key,
                                               body={"confirm_payg_topup": True, "quote_token": "x"}), 201)
            self.assertEqual(self.balance(user["id"]), 100_000 - 5 * price)
            self.assertEqual(self.h.psql_value("SELECT count(*) FROM topup_quote_uses"
                                               f" WHERE user_id = {user['id']}"), "0")
        finally:
            self.assertEqual(self.h.cli("admin", "billing", "confirm-mode", "on"), {"confirm_mode": True})


if __name__ == "__main__":
    unittest.main()
