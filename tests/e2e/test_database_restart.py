"""PostgreSQL crash-restarted under a running server (reliability T8: `pg_ctl restart -m
immediate`, spec 1 "Billing", 7.1 503). The class has a cluster of its own, so the restart
touches no other module. While clients keep creating orders and the workers speak them: only
201s and spec-shaped 503s, none later than the client's patience, /readyz within a second while
the database is away, recovery without restarting the server, every 503 settled by its
Idempotency-Key, the orders in the database exactly those the answers name, every order spoken
to the end by the same process, and the invariants after."""

import threading
import time

from harness import E2ETestCase, Harness, poll
from fault_support import OUTAGE_ENV as ENV, OwnServices, PrivatePostgres, release_harness
from orders_support import OrderFixtures, wait_orders_terminal
from outage_support import Load, recovery_seconds, settle


class DatabaseRestartTests(OwnServices, OrderFixtures, E2ETestCase):
    @classmethod
    def setUpClass(cls):
        cls.pg = PrivatePostgres()
        try:
            cls.pg.start()
            cls.h = Harness(cls.__name__)
            cls.h.use_cluster(cls.pg.admin_url)
            cls.h.setup()
            cls.seed()
            cls.server = cls.h.start_server(ENV, name="restart")
        except BaseException:
            cls._release()
            raise

    @classmethod
    def _release(cls):
        try:
            release_harness(getattr(cls, "h", None), cls.pg)
        finally:
            cls.pg.remove()

    def setUp(self):
        self.user, self.key = self.account(balance=100_000_000)
        self.template_id = self.template(self.key)

    def tearDown(self):
        self.assertInvariants()

    def readyz_while(self, busy):
        """/readyz probed while `busy` runs (the database away): each probe's seconds and status."""
        probes, done = [], threading.Event()

        def probe():
            while not done.is_set():
                started = time.monotonic()
                r = self.server.admin_get("/readyz")
                probes.append((time.monotonic() - started, r.status, r.body))
                time.sleep(0.1)
        t = threading.Thread(target=probe)
        t.start()
        try:
            busy()
        finally:
            done.set()
            t.join(10)
        return probes

    def test_an_immediate_restart_answers_503_in_time_and_recovers(self):
        load = Load(self, self.server, self.key, self.template_id).start()
        self.assertTrue(poll(lambda: sum(s == 201 for _, s, *_ in load.results) >= 5, timeout=30))
        down = time.monotonic()
        probes = self.readyz_while(self.pg.restart_immediate)
        back = time.monotonic()
        self.assertTrue(probes, "no /readyz probe ran during the restart")
        for seconds, status, body in probes:
            self.assertLess(seconds, 1.5, "/readyz waited on the restarting database")
            self.assertIn(status, (200, 503), body)
        self.assertTrue(poll(lambda: self.server.admin_get("/readyz").status == 200, timeout=20))
        self.assertTrue(poll(lambda: any(s == 201 and t >= back for _, s, _, _, t in load.results), timeout=20))
        time.sleep(1)
        load.stop()
        replayed = settle(self, load, self.server, self.user["id"])
        recovery = recovery_seconds(self, load, back)
        ids = self.h.psql(f"SELECT id FROM orders WHERE user_id = {self.user['id']}").split()
        statuses = wait_orders_terminal(self.h, ids, timeout=120)
        self.assertEqual(set(statuses.values()), {"completed"}, statuses)
        self.assertTrue(self.server.alive(), "the server died with the database")
        print(f"restart -m immediate: {len(load.results)} creates, "
              f"{sum(s == 503 for _, s, *_ in load.results)} answered 503 ({replayed} of them had committed), "
              f"/readyz slowest {max(p[0] for p in probes) * 1000:.0f} ms over {len(probes)} probes, "
              f"the restart took {back - down:.2f} s, first 201 {recovery:.2f} s after it, "
              f"{len(ids)} orders spoken to the end")

    def test_a_stopped_database_is_503_at_once_and_a_started_one_serves_again(self):
        r = self.create(self.key, self.template_id, "Before the stop.")
        self.assertEqual(r.status, 201, r)
        self.pg.stop()
        try:
            started = time.monotonic()
            ready = self.server.admin_get("/readyz")
            self.assertLess(time.monotonic() - started, 1.5)
            self.assertEqual(ready.status, 503, ready)
            self.assertEqual(ready.body["checks"]["postgres"], "fail", ready)
            before = time.monotonic()
            r = self.create(self.key, self.template_id, "During the stop.")
            self.assertLess(time.monotonic() - before, 10.0)
            self.assertEqual(r.status, 503, r)
            self.assertIs(r.body["success"], False, r)
        finally:
            self.pg.start()
        self.assertTrue(poll(lambda: self.server.admin_get("/readyz").status == 200, timeout=20))
        r = self.create(self.key, self.template_id, "After the start.")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.wait_order(self.key, r.body["data"]["id"], {"completed"})["status"], "completed")
        count = self.h.psql_value(f"SELECT count(*) FROM orders WHERE user_id = {self.user['id']}")
        self.assertEqual(count, "2", "the create refused during the stop left a row")


if __name__ == "__main__":
    import unittest
    unittest.main()
