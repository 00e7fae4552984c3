"""Clients that keep creating orders through an outage, and what every outage must leave: only
201s and spec-shaped 503s, none later than the client's patience, every 503 settled by asking
again with its Idempotency-Key, and the orders in the database exactly those the answers name."""

import secrets
import threading
import time

TEXT = "A short order that only has to be written, never spoken."
PATIENCE = 10.0  # seconds a client waits for any answer


class Load:
    """Clients creating orders (each with its own Idempotency-Key) and reading them, until stopped."""

    def __init__(self, test, server, key, template, clients=4):
        self.test, self.server, self.key, self.template = test, server, key, template
        self.results = []  # (idempotency key, status, body, seconds, finished at)
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def stop(self):
        self.stop_flag.set()
        for t in self.threads:
            t.join(PATIENCE + 5)

    def create(self, idem):
        body = {"template_id": self.template, "input_text": TEXT}
        started = time.monotonic()
        try:
            r = self.server.api("POST", "/orders", self.key, body=body, headers={"Idempotency-Key": idem})
            return r.status, r.body, r.headers, time.monotonic() - started
        except OSError as e:  # a hang past the client's patience, or a reset
            return None, str(e), {}, time.monotonic() - started

    def _run(self):
        while not self.stop_flag.is_set():
            idem = secrets.token_hex(12)
            status, body, _, seconds = self.create(idem)
            with self.lock:
                self.results.append((idem, status, body, seconds, time.monotonic()))
            if status != 201:
                time.sleep(0.05)


def settle(test, load, server, user_id):
    """Checks the answers, asks again for every 503, and compares the orders with the answers.
    Returns how many 503s had committed (their second answer was a replay)."""
    for idem, status, body, seconds, _ in load.results:
        test.assertLess(seconds, PATIENCE, f"a create took {seconds:.1f} s")
        test.assertIn(status, (201, 503), f"{status}: {body}")
        if status == 503:
            test.assertIs(body["success"], False, body)
            test.assertIsInstance(body["message"], str, body)
    named = {b["data"]["id"] for _, s, b, _, _ in load.results if s == 201}
    replayed = 0
    for idem, status, _, _, _ in load.results:
        if status != 503:
            continue
        again = Load(test, server, load.key, load.template).create(idem)
        test.assertEqual(again[0], 201, f"asking again after the outage: {again}")
        named.add(again[1]["data"]["id"])
        replayed += again[2].get("idempotent-replayed") == "true"
    in_db = set(test.h.psql(f"SELECT id FROM orders WHERE user_id = {user_id}").split())
    test.assertEqual(in_db, named, "orders in the database that no answer names, or the reverse")
    return replayed


def recovery_seconds(test, load, since):
    """Seconds from `since` to the first create answered 201 after it."""
    after = [t for _, s, _, _, t in load.results if s == 201 and t >= since]
    test.assertTrue(after, "no create succeeded after the outage ended")
    return min(after) - since
