"""PostgreSQL stalls, drops connections and loses a COMMIT (reliability T8; spec 1 "Billing", 7.1
503): only spec-shaped 503s, no request held past the client's patience, /readyz within a
second, recovery without restarting the server, and no money or order that the answers do not
account for. Creates carry an Idempotency-Key, so a client that got a 503 can ask again and learn
what happened; after every outage each 503 is asked again, and the orders in the database must
be exactly those the answers name."""

import signal
import time

from harness import E2ETestCase, poll
from fault_support import PgProxy, server_backends, signal_backends
from orders_support import OrderFixtures
from outage_support import TEXT, Load, recovery_seconds, settle

DEADLINE_MS = 2000
ENV = {
    "MEDIAGEN_WORKERS": "0",
    "MEDIAGEN_DB_POOL_SIZE": "4",
    "MEDIAGEN_DB_REQUEST_DEADLINE_MS": str(DEADLINE_MS),
    "MEDIAGEN_DB_STATEMENT_TIMEOUT_MS": "2000",
    "MEDIAGEN_DB_LOCK_TIMEOUT_MS": "1000",
    "MEDIAGEN_DB_CONNECT_TIMEOUT_SECONDS": "2",
}


class DatabaseOutageTests(OrderFixtures, E2ETestCase):
    server_env = ENV

    @classmethod
    def prepare(cls):
        cls.seed()

    def setUp(self):
        self.user, self.key = self.account(balance=100_000_000)
        self.template_id = self.template(self.key)

    def tearDown(self):
        self.assertInvariants()

    # -- the outages

    def test_frozen_backends_answer_503_in_time_and_recover(self):
        load = Load(self, self.server, self.key, self.template_id).start()
        self.assertTrue(poll(lambda: any(s == 201 for _, s, *_ in load.results), timeout=30))
        pids = server_backends(self.h)
        self.assertTrue(pids, "the server has no backend to freeze")
        signal_backends(pids, signal.SIGSTOP)
        try:
            time.sleep(1)
            for _ in range(3):
                started = time.monotonic()
                r = self.server.admin_get("/readyz")
                elapsed = time.monotonic() - started
                self.assertLess(elapsed, 1.5, "/readyz waited on the frozen database")
                # Frozen are the backends the server had; a connection it opens anew gets a live
                # one, so the probe may well be ready: only its time is bounded.
                self.assertIn(r.status, (200, 503), r)
                self.assertIn(r.body["checks"]["postgres"], ("ok", "fail", "timeout"), r)
            time.sleep(20 - 1 - 3 * 1)
        finally:
            signal_backends(pids, signal.SIGCONT)
        thawed = time.monotonic()
        self.assertTrue(poll(lambda: self.server.admin_get("/readyz").status == 200, timeout=20))
        time.sleep(2)
        load.stop()
        self.assertTrue(any(s == 503 for _, s, *_ in load.results), "the freeze was never noticed")
        replayed = settle(self, load, self.server, self.user["id"])
        print(f"frozen backends: {len(load.results)} creates, recovery {recovery_seconds(self, load, thawed):.2f} s "
              f"after the thaw, {replayed} answered 503 but committed (replayed by key)")

    def test_terminated_backends_answer_503_and_reconnect(self):
        load = Load(self, self.server, self.key, self.template_id).start()
        self.assertTrue(poll(lambda: any(s == 201 for _, s, *_ in load.results), timeout=30))
        for _ in range(3):
            self.h.admin_psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                              f" WHERE datname = '{self.h.db_name}' AND pid <> pg_backend_pid()")
            time.sleep(0.5)
        ended = time.monotonic()
        time.sleep(2)
        load.stop()
        settle(self, load, self.server, self.user["id"])
        print(f"terminated backends: {len(load.results)} creates, recovery "
              f"{recovery_seconds(self, load, ended):.2f} s")

    def test_an_unreachable_database_answers_503_then_recovers(self):
        proxy = PgProxy(self.h.db_url)
        server = self.h.start_server(dict(ENV, MEDIAGEN_DATABASE_URL=proxy.url), name="behind-proxy")
        try:
            load = Load(self, server, self.key, self.template_id).start()
            self.assertTrue(poll(lambda: any(s == 201 for _, s, *_ in load.results), timeout=30))
            proxy.refuse = True
            proxy.cut()  # as a restart with -m immediate: every connection gone, none accepted
            time.sleep(1)
            started = time.monotonic()
            r = server.admin_get("/readyz")
            self.assertLess(time.monotonic() - started, 1.5)
            self.assertEqual(r.status, 503, r)
            time.sleep(4)
            proxy.refuse = False
            back = time.monotonic()
            self.assertTrue(poll(lambda: server.admin_get("/readyz").status == 200, timeout=20))
            time.sleep(2)
            load.stop()
            settle(self, load, server, self.user["id"])
            print(f"unreachable database: {len(load.results)} creates, recovery "
                  f"{recovery_seconds(self, load, back):.2f} s")
        finally:
            server.stop_checked()
            proxy.close()

    def test_a_commit_whose_answer_was_lost_answers_from_what_committed(self):
        before = self.order_count()
        r = self.lost_commit_via(lambda proxy, marker: proxy.lose_commit_reply(marker))
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.order_count(), before + 1, "the committed order was created again")
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE id = '{r.body['data']['id']}'"), "1")

    def test_a_commit_that_never_arrived_is_done_once(self):
        before = self.order_count()
        r = self.lost_commit_via(lambda proxy, marker: proxy.lose_commit(marker))
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.order_count(), before + 1)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM orders WHERE id = '{r.body['data']['id']}'"), "1")

    def lost_commit_via(self, arm):
        proxy = PgProxy(self.h.db_url)
        server = self.h.start_server(dict(ENV, MEDIAGEN_DATABASE_URL=proxy.url), name="lost-commit")
        try:
            arm(proxy, "INSERT INTO orders (")
            body = {"template_id": self.template_id, "input_text": TEXT}
            r = server.api("POST", "/orders", self.key, body=body)  # no Idempotency-Key: the server must know
            self.assertTrue(proxy.fired.is_set(), "the proxy never saw the order's COMMIT")
            return r
        finally:
            server.stop_checked()
            proxy.close()

    def order_count(self):
        return int(self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {self.user['id']}"))


if __name__ == "__main__":
    import unittest
    unittest.main()
