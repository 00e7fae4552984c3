"""T6 on the OpenAI-compatible speech route, the refusal that needs workers to show: a call whose
first chunk the content policy blocks answers 400 content_blocked (openapi: "nothing else is
charged"). It is a refusal, so once every order has settled the account has paid nothing and
holds nothing locked, and the same call again gets the same answer. (route_matrix_rows.REFUSALS
names it; the other refusals of the route are test_route_matrix_refusals.py's.)
"""

import unittest

from compat_support import bearer
from harness import E2ETestCase
from matrix_support import POLICY_TERM, AccountFixtures
from orders_support import OrderFixtures
from test_route_matrix_refusals import WORKERS, reason_of


class SpeechBlockedTests(OrderFixtures, AccountFixtures, E2ETestCase):
    server_env = WORKERS

    @classmethod
    def prepare(cls):
        cls.seed_catalogue()

    def test_a_blocked_first_chunk_charges_nothing(self):
        self.case_speech_first_chunk_blocked()

    def case_speech_first_chunk_blocked(self):
        user, key = self.account(balance=1_000_000)
        voices = self.api_ok("GET", "/voices/provider_b?per_page=100&language=en", key)
        voice = (voices.get("voices") or voices.get("items"))[0]["voice_id"]
        text = f"This first sentence says {POLICY_TERM}. " + "Then a long tail of ordinary words follows. " * 60
        money = (self.balance(user["id"]), self.quota(user["id"]))
        for attempt in ("first", "repeated"):
            r = bearer(self.server, "POST", "/v1/audio/speech", key,
                       body={"model": "provider_b/b-standard", "voice": voice, "input": text})
            self.assertEqual((r.status, reason_of(r)), (400, "content_blocked"), f"{attempt}: {r!r}")
            self.settled()
            self.assertEqual((self.balance(user["id"]), self.quota(user["id"])), money,
                             f"{attempt}: a refused speech call moved money")
            self.assertEqual(self.h.psql_value(
                "SELECT coalesce(sum(a.balance), 0) FROM ledger_accounts a JOIN orders o ON o.id = a.order_id"
                f" WHERE o.user_id = {user['id']} AND a.kind IN ('escrow', 'quota_escrow')"), "0")
        self.assertInvariants()


if __name__ == "__main__":
    unittest.main()
