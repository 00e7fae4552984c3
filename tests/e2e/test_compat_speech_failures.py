"""Chunk failures on the OpenAI-compatible speech endpoint, made by the content policy for real:
a first chunk the policy flags is an OpenAI error answer (400 content_blocked) with nothing sent
and the order's money returned by its own rules; a later chunk that fails ends the transfer
without its final chunk (the client sees a broken transfer) after the audio that was made, and
only the made chunks stay charged. The ledger invariants run after every test."""

import http.client
import json
import unittest

from compat_support import bearer, first_voice
from harness import E2ETestCase
from orders_support import OrderFixtures

TERM = "zebracornword"
MODEL = "provider_b/b-standard"  # 3,000 characters a chunk


class CompatSpeechFailureTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "1", "MEDIAGEN_CONTENT_POLICY": TERM}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def test_a_flagged_first_chunk_is_an_error_answer_and_costs_nothing(self):
        user, key = self.account(balance=100_000)
        voice = first_voice(self.server, key, MODEL)
        r = bearer(self.server, "POST", "/v1/audio/speech", key,
                   body={"model": MODEL, "voice": voice, "input": f"Please say {TERM} now."})
        self.assertEqual(r.status, 400, r)
        self.assertEqual(r.body["error"]["type"], "invalid_request_error")
        self.assertEqual(r.body["error"]["code"], "content_blocked")
        order_id = self.h.psql_value(f"SELECT id FROM orders WHERE user_id = {user['id']}")
        order = self.wait_order(key, order_id, {"failed", "partially_completed", "compensated"})
        self.assertEqual(self.balance(user["id"]), 100_000, order)

    def test_a_later_chunk_that_fails_breaks_the_transfer_after_the_made_audio(self):
        user, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        clean = " ".join(f"Sentence {i} is perfectly fine to say aloud." for i in range(70))
        text = clean + f" The last part says {TERM} and is refused."
        host, port = self.server.public
        conn = http.client.HTTPConnection(host, port, timeout=300)
        conn.request("POST", "/v1/audio/speech", body=json.dumps({"model": MODEL, "voice": voice, "input": text}),
                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        order_id = resp.getheader("X-Order-Id")
        with self.assertRaises(http.client.IncompleteRead) as broken:
            resp.read()
        conn.close()
        self.assertGreater(len(broken.exception.partial), 10_000, "the first chunk's audio came first")
        order = self.wait_order(key, order_id, {"partially_completed", "failed", "compensated"})
        statuses = sorted(i["status"] for i in order["items"])
        self.assertIn("completed", statuses)
        self.assertIn("policy_flagged", statuses)
        charged = sum(i["consumed_units"] for i in order["items"])
        completed = sum(i["price_units"] for i in order["items"] if i["status"] == "completed")
        self.assertEqual(charged, completed)


if __name__ == "__main__":
    unittest.main()
