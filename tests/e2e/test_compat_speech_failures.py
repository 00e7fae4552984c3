"""Refusals and failures on the OpenAI-compatible speech endpoint, made for real: the content
policy (MEDIAGEN_CONTENT_POLICY) judges every chunk before the order is made, so a term in any
chunk is a 400 content_blocked with nothing written or charged; a chunk that fails after the order
was funded (the engine's fault drill, MEDIAGEN_ENGINE_FAIL_MARKER) or a client that goes away ends
the order (failed, failure_reason not_delivered) with only the chunks whose audio was written to
the client still charged, per the ledger. Every answer given once the order exists carries
X-Order-Id. The ledger invariants run after every test."""

import json
import socket
import struct
import http.client
import unittest

from compat_support import bearer, first_voice
from harness import E2ETestCase
from orders_support import OrderFixtures, escrow_balances, sql_ids, state_snapshot

TERM = "zebracornword"
MARKER = "zqxfail"
MODEL = "provider_b/b-standard"
CAPACITY = 3000  # characters a chunk of b-standard holds
SETTLED = {"completed", "result_delivered", "failed", "partially_completed", "cancelled", "compensated"}


def clean_text(chars, start=0):
    """Plain sentences, at least `chars` characters long."""
    out, i = [], start
    while sum(len(s) + 1 for s in out) < chars:
        out.append(f"Sentence {i} is perfectly fine to say aloud.")
        i += 1
    return " ".join(out)


class CompatSpeechFailureTests(OrderFixtures, E2ETestCase):
    server_env = {"MEDIAGEN_WORKERS": "1", "MEDIAGEN_CONTENT_POLICY": TERM, "MEDIAGEN_ENGINE_FAIL_MARKER": MARKER}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    # -- helpers

    def speech(self, key, text):
        voice = first_voice(self.server, key, MODEL)
        return bearer(self.server, "POST", "/v1/audio/speech", key,
                      body={"model": MODEL, "voice": voice, "input": text}, timeout=300)

    def kept_by_position(self, order_id):
        """{chunk position: money the platform kept for it}, from the ledger: what chunk_charge
        moved into revenue minus what charge_refund took back out."""
        rows = self.h.psql_rows(
            "SELECT i.chunk_index, sum(e.amount) FROM order_items i"
            " JOIN ledger_txns t ON t.reference = i.id::text AND t.kind IN ('chunk_charge', 'charge_refund')"
            " JOIN ledger_entries e ON e.txn_id = t.id"
            " JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'revenue'"
            f" WHERE i.order_id IN {sql_ids([order_id])} GROUP BY i.chunk_index HAVING sum(e.amount) <> 0")
        return {int(p): int(v) for p, v in rows}

    def price_by_position(self, order_id):
        """{chunk position: the price its completed record charged}."""
        rows = self.h.psql_rows(
            "SELECT chunk_index, payg_minor FROM order_items"
            f" WHERE order_id IN {sql_ids([order_id])} AND status = 'completed'")
        return {int(p): int(v) for p, v in rows}

    def positions(self, order_id):
        return int(self.h.psql_value(
            f"SELECT count(DISTINCT chunk_index) FROM order_items WHERE order_id IN {sql_ids([order_id])}"))

    def marked_positions(self, order_id, word):
        return [int(p) for (p,) in self.h.psql_rows(
            f"SELECT DISTINCT i.chunk_index FROM order_items i JOIN order_item_texts t ON t.item_id = i.id"
            f" WHERE i.order_id IN {sql_ids([order_id])} AND t.text LIKE '%{word}%' ORDER BY 1")]

    def assertNotDelivered(self, key, user, order_id, before, kept_positions):
        """The order ended failed/not_delivered, its escrow empty, and exactly `kept_positions`
        still charged, each by its own price, which is all the wallet lost."""
        order = self.wait_order(key, order_id, SETTLED, timeout=180)
        self.assertEqual((order["status"], order["failure_reason"]), ("failed", "not_delivered"), order)
        kept = self.kept_by_position(order_id)
        self.assertEqual(sorted(kept), kept_positions, kept)
        prices = self.price_by_position(order_id)
        for position, amount in kept.items():
            self.assertEqual(amount, prices[position], position)
        self.assertEqual(before - self.balance(user["id"]), sum(kept.values()))
        self.assertEqual(set(escrow_balances(self.h, order_id).values()) - {0}, set())

    # -- refused before the order is made

    def assertRefusedUnchanged(self, text):
        user, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        before = state_snapshot(self.h)
        r = bearer(self.server, "POST", "/v1/audio/speech", key,
                   body={"model": MODEL, "voice": voice, "input": text})
        self.assertEqual(r.status, 400, r)
        self.assertEqual((r.body["error"]["type"], r.body["error"]["code"]), ("invalid_request_error", "content_blocked"))
        self.assertNotIn("x-order-id", r.headers, "no order exists")
        self.assertEqual(state_snapshot(self.h), before, "ledger, balances, orders, items and Redis unchanged")
        self.assertEqual(self.balance(user["id"]), 1_000_000)

    def test_a_policy_term_in_a_later_chunk_is_refused_before_any_charge(self):
        text = clean_text(16_500) + f" The last part says {TERM} and is refused."
        self.assertGreater(text.index(TERM), 5 * CAPACITY, "the term lies past the first chunks")
        self.assertRefusedUnchanged(text)

    def test_a_policy_term_in_the_first_chunk_is_refused_before_any_charge(self):
        text = f"Please say {TERM} now. " + clean_text(16_600)
        self.assertGreater(len(text), 5 * CAPACITY)
        self.assertRefusedUnchanged(text)

    # -- failures after the order was funded

    def test_a_complete_answer_keeps_every_chunk_charged_and_names_its_order(self):
        user, key = self.account(balance=1_000_000)
        r = self.speech(key, "A short and clean sentence to speak.")
        self.assertEqual(r.status, 200, r)
        order = self.wait_order(key, r.headers["x-order-id"], {"completed", "result_delivered"})
        self.assertEqual(sorted(self.kept_by_position(order["id"])), [0])
        self.assertEqual(1_000_000 - self.balance(user["id"]), sum(self.kept_by_position(order["id"]).values()))

    def test_a_failed_first_chunk_is_a_503_with_the_order_id_and_all_money_back(self):
        user, key = self.account(balance=1_000_000)
        text = f"This first part carries {MARKER} inside. " + clean_text(3 * CAPACITY)
        r = self.speech(key, text)
        self.assertEqual(r.status, 503, r)
        self.assertEqual(r.body["error"]["type"], "server_error")
        order_id = r.headers.get("x-order-id")
        self.assertIsNotNone(order_id, "the error answer names the order it ended")
        self.assertEqual(self.marked_positions(order_id, MARKER), [0])
        # Ended before the answer went out: already final, nothing kept.
        status = self.h.psql_value(f"SELECT status || '/' || failure_reason FROM orders WHERE id = '{order_id}'")
        self.assertEqual(status, "failed/not_delivered")
        self.assertNotDelivered(key, user, order_id, 1_000_000, [])

    def test_a_later_chunk_that_fails_breaks_the_transfer_and_only_the_received_chunk_stays_charged(self):
        user, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        text = clean_text(3300) + f" This part carries {MARKER} inside. " + clean_text(2 * CAPACITY, start=500)
        host, port = self.server.public
        conn = http.client.HTTPConnection(host, port, timeout=300)
        conn.request("POST", "/v1/audio/speech", body=json.dumps({"model": MODEL, "voice": voice, "input": text}),
                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        order_id = resp.getheader("X-Order-Id")
        self.assertIsNotNone(order_id)
        with self.assertRaises(http.client.IncompleteRead) as broken:
            resp.read()
        conn.close()
        self.assertGreater(len(broken.exception.partial), 10_000, "the first chunks' audio came first")
        # Position 0 is the lead sentence, 1 the rest of the first 3,000 characters, 2 the marker.
        self.assertEqual(self.marked_positions(order_id, MARKER), [2])
        # The order was ended before the transfer broke.
        status = self.h.psql_value(f"SELECT status || '/' || failure_reason FROM orders WHERE id = '{order_id}'")
        self.assertEqual(status, "failed/not_delivered")
        self.assertNotDelivered(key, user, order_id, 1_000_000, [0, 1])

    def test_a_client_that_goes_away_pays_only_for_the_chunks_it_received(self):
        user, key = self.account(balance=1_000_000)
        voice = first_voice(self.server, key, MODEL)
        body = json.dumps({"model": MODEL, "voice": voice, "input": clean_text(5 * CAPACITY)}).encode()
        host, port = self.server.public
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(300)
        s.connect((host, port))
        s.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + f"Authorization: Bearer {key}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        head = b""
        while b"\r\n\r\n" not in head:  # the head only, a byte at a time
            got = s.recv(1)
            self.assertTrue(got, head)
            head += got
        # Gone: closed with unread audio, so the server's next write is refused (RST).
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
        lines = head.decode("latin-1").split("\r\n")
        self.assertTrue(lines[0].startswith("HTTP/1.1 200"), lines[0])
        order_id = [v.strip() for k, _, v in (l.partition(":") for l in lines[1:]) if k.lower() == "x-order-id"][0]
        order = self.wait_order(key, order_id, SETTLED, timeout=180)
        self.assertEqual((order["status"], order["failure_reason"]), ("failed", "not_delivered"), order)
        kept = self.kept_by_position(order_id)
        received = len(kept)
        self.assertEqual(sorted(kept), list(range(received)), "only a leading run of chunks stays charged")
        self.assertLess(received, self.positions(order_id))
        self.assertNotDelivered(key, user, order_id, 1_000_000, list(range(received)))


if __name__ == "__main__":
    unittest.main()
