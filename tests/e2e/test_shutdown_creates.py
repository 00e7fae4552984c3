"""SIGTERM in the middle of a burst of creates, with a one-second grace (CONTRACTS: SIGTERM drains
and exits 0): nothing starts after the grace period, so every order that committed had its 201
delivered, or is found by asking again with its Idempotency-Key."""

import secrets
import signal
import threading

from harness import E2ETestCase, poll
from orders_support import OrderFixtures

TEXT = "An order made while the server is being told to stop."
CLIENTS = 12


class ShutdownCreateTests(OrderFixtures, E2ETestCase):
    start_server = False
    env = {"MEDIAGEN_WORKERS": "0", "MEDIAGEN_SHUTDOWN_GRACE_SECONDS": "1", "MEDIAGEN_DB_POOL_SIZE": "2"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def test_every_committed_order_was_answered_or_is_replayable(self):
        self.server = self.h.start_server(self.env)
        user, key = self.account(balance=100_000_000)
        template = self.template(key)
        body = {"template_id": template, "input_text": TEXT}
        answers = []  # (idempotency key, status or None, order id or None)
        lock = threading.Lock()
        stop = threading.Event()

        def client():
            while not stop.is_set():
                idem = secrets.token_hex(12)
                try:
                    r = self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": idem})
                    status, oid = r.status, (r.body["data"]["id"] if r.status == 201 else None)
                except OSError:
                    status, oid = None, None  # the connection closed: the answer never came
                with lock:
                    answers.append((idem, status, oid))
                if status is None:
                    return

        threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
        for t in threads:
            t.start()
        self.assertTrue(poll(lambda: sum(1 for a in answers if a[1] == 201) >= 20, timeout=30))
        self.server.signal(signal.SIGTERM)
        code = self.server.wait_exit(15)
        stop.set()
        for t in threads:
            t.join(20)
        self.assertEqual(code, 0, self.server.log_tail())

        committed = set(self.h.psql(f"SELECT id FROM orders WHERE user_id = {user['id']}").split())
        delivered = {oid for _, status, oid in answers if status == 201}
        self.assertLessEqual(delivered, committed, "a 201 names an order that is not there")
        unanswered = [idem for idem, status, _ in answers if status != 201]

        self.server = self.h.start_server(self.env)
        replayed = set()
        for idem in unanswered:
            r = self.server.api("POST", "/orders", key, body=body, headers={"Idempotency-Key": idem})
            self.assertIn(r.status, (201, 503), r)
            if r.status == 201 and r.headers.get("idempotent-replayed") == "true":
                replayed.add(r.body["data"]["id"])
        self.assertEqual(committed - delivered, replayed,
                         "an order committed during the shutdown that neither its answer nor its key tells of")
        print(f"burst: {len(delivered)} delivered, {len(unanswered)} unanswered, "
              f"{len(replayed)} of them committed and found by their key")
        self.server.stop_checked()


if __name__ == "__main__":
    import unittest
    unittest.main()
