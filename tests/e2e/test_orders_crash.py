"""Crash drills of the chunk workers (spec 2.4 item money, 3.1 and 3.2 statuses; the orders
design's lease rescue, fenced completion and drain): kill -9 in the middle of processing, two
instances on one database, a fenced zombie, and the SIGTERM drain. After every drill each
position is charged exactly once, the escrows of terminal orders are empty, the stitched MP3
decodes to the sum of its chunks, and the ledger invariants hold.

All servers of a class share one database, one Redis prefix, one storage folder and one link
secret: one deployment whose processes die and come back. Leases are short (or backdated with
psql, as an operator's clock would make them expire) so that no test waits for a real lease."""

import os
import shutil
import signal
import tempfile

from harness import E2ETestCase, poll
from orders_support import (OrderFixtures, charges_by_item, decoded_duration_ms, download, escrow_balances,
                            sql_ids, wait_orders_terminal)

SECRET = "crash-drill-link-secret-0123456789abcdef"
DELIVERED = ("completed", "result_delivered")
# Words for sentences that differ from each other (the engine speaks whatever it gets).
WORDS = ("river", "garden", "lantern", "harbour", "meadow", "violin", "compass", "orchard", "quarry", "signal")


def sentence(n):
    return f"The {WORDS[n % len(WORDS)]} number {n} waits quietly near the {WORDS[(n * 7 + 3) % len(WORDS)]}."


def text_of_chunks(chunks, capacity):
    """Sentences enough to fill about `chunks` chunks of `capacity` characters."""
    out, n = [], 0
    while len(" ".join(out)) < chunks * capacity * 0.9:
        out.append(sentence(n))
        n += 1
    return " ".join(out)


def paragraphs(count, tag):
    """`count` one-sentence paragraphs: one chunk each in paragraph mode."""
    return "\n\n".join(f"Paragraph {k} of order {tag} is short." for k in range(count))


class CrashDrill(OrderFixtures, E2ETestCase):
    """Servers are started by the tests, each with the drill's settings."""

    start_server = False
    storage_dir = None

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.storage_dir = tempfile.mkdtemp(prefix="mediagen-crash-")

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            if cls.storage_dir:
                shutil.rmtree(cls.storage_dir, ignore_errors=True)

    def tearDown(self):
        self.assertInvariants()

    # -- processes

    def serve(self, name, **env):
        """Starts `mediagen serve` in this deployment; later API calls of the fixtures go to it."""
        settings = {"MEDIAGEN_STORAGE_DIR": self.storage_dir, "MEDIAGEN_SECRET": SECRET,
                    "MEDIAGEN_SWEEP_INTERVAL_MS": "200"}
        settings.update({k: str(v) for k, v in env.items()})
        server = self.h.start_server(settings, name=f"{type(self).__name__}:{name}")
        self.server = server
        return server

    def kill9(self, server):
        os.kill(server.proc.pid, signal.SIGKILL)
        self.assertEqual(server.wait_exit(30), -signal.SIGKILL)

    # -- database views

    def item_counts(self, order_ids):
        """{status: count} over the records of the orders."""
        return {s: int(n) for s, n in self.h.psql_rows(
            f"SELECT status, count(*) FROM order_items WHERE order_id IN {sql_ids(order_ids)} GROUP BY status")}

    def wait_items(self, order_ids, what, predicate, timeout=60.0):
        """Polls the item counts until predicate(counts) holds; returns the counts."""
        counts = poll(lambda: (lambda c: c if predicate(c) else None)(self.item_counts(order_ids)),
                      timeout=timeout, interval=0.05)
        if not counts:
            self.fail(f"{what}: not reached within {timeout}s; items now {self.item_counts(order_ids)}")
        return counts

    def processing_items(self, order_ids):
        return [r[0] for r in self.h.psql_rows(
            f"SELECT id FROM order_items WHERE order_id IN {sql_ids(order_ids)} AND status = 'processing'")]

    def expire_orphaned_stitches(self, order_ids):
        """A stitch started by a killed process keeps its lease (two minutes, not configurable);
        backdate it as the clock eventually would, so another process redoes the stitch now."""
        return self.h.psql_rows(
            "UPDATE orders SET stitch_until = now() - interval '1 second'"
            f" WHERE id IN {sql_ids(order_ids)} AND stitch_token IS NOT NULL RETURNING id")

    # -- the outcome every drill must leave

    def assertSettledOnce(self, key, order_ids, decode=True):
        """Every order completed; each record charged once iff completed, each position once;
        escrows empty; the result decodes to the sum of the positions' audio."""
        statuses = wait_orders_terminal(self.h, order_ids, timeout=5)
        self.assertEqual({o: s for o, s in statuses.items() if s not in DELIVERED}, {}, "orders not completed")
        rows = self.h.psql_rows(
            "SELECT id, order_id, chunk_index, status"
            f" FROM order_items WHERE order_id IN {sql_ids(order_ids)}")
        charges = charges_by_item(self.h, order_ids)
        wrong = {item: (status, charges.get(item)) for item, _, _, status in rows
                 if charges.get(item) != (1 if status == "completed" else 0)}
        self.assertEqual(wrong, {}, "records charged other than once per completion")
        per_position = {}
        for item, order, index, status in rows:
            if status == "completed" and charges[item]:
                per_position[(order, int(index))] = per_position.get((order, int(index)), 0) + 1
        self.assertEqual({p: n for p, n in per_position.items() if n != 1}, {}, "positions charged twice")
        for order_id in order_ids:
            balances = escrow_balances(self.h, order_id)
            self.assertIn("escrow", balances, order_id)
            self.assertEqual({k: v for k, v in balances.items() if v != 0}, {}, f"escrow left on {order_id}")
        if not decode:
            return
        for order_id in order_ids:
            # Per position its newest completed record: what the result is made of.
            newest = self.h.psql_rows(
                "SELECT DISTINCT ON (chunk_index) chunk_index, duration_ms FROM order_items"
                f" WHERE order_id = '{order_id}' AND status = 'completed'"
                " ORDER BY chunk_index, created_at DESC, attempt_number DESC")
            positions = int(self.h.psql_value(
                f"SELECT count(*) FROM order_items WHERE order_id = '{order_id}' AND item_type = 'chunk'"))
            self.assertEqual([int(i) for i, _ in newest], list(range(positions)), order_id)
            expected = sum(int(d) for _, d in newest)
            order = self.server.api("GET", f"/orders/{order_id}", key).body["data"]
            mp3 = download(self.server, key, order["result"]["files"][0])
            decoded = decoded_duration_ms(mp3)
            self.assertLessEqual(abs(decoded - expected), 50,
                                 f"order {order_id}: decoded {decoded:.1f} ms, chunks add up to {expected} ms")


class KillNineTests(CrashDrill):
    """kill -9 while chunks are processing; a new process on the same database finishes the work."""

    ENV = {"MEDIAGEN_WORKERS": 2, "MEDIAGEN_LEASE_SECONDS": 2, "MEDIAGEN_ENGINE_DELAY_MS": 300}
    CAPACITY = 160

    @classmethod
    def prepare(cls):
        super().prepare()
        # The operator's own setting (kept by seed-demo): small chunks keep the drill short.
        cls.h.psql(f"UPDATE service_models SET capacity = {cls.CAPACITY} WHERE model_id = 'b-standard'")

    def test_kill_nine_mid_processing_charges_each_position_once_and_completes_every_order(self):
        capacity = int(self.h.psql_value("SELECT capacity FROM service_models WHERE model_id = 'b-standard'"))
        key = template = None
        # Kill moments: as soon as anything runs, after about a third, after about two thirds.
        for round_no, fraction in enumerate((0.0, 0.35, 0.7)):
            with self.subTest(round=round_no, completed_before_kill=fraction):
                first = self.serve(f"round{round_no}-a", **self.ENV)
                if key is None:
                    _, key = self.account(balance=1_000_000)
                    template = self.template(key, "provider_b")
                order_ids = []
                for n in range(4):
                    r = self.create(key, template, text_of_chunks(6, capacity) + f" Order {round_no}.{n} ends here.")
                    order_ids.append(self.assertSuccess(r, 201)["id"])
                total = sum(self.item_counts(order_ids).values())
                self.assertGreaterEqual(total, 4 * 5, "the text should make about six chunks per order")
                threshold = int(total * fraction)
                self.wait_items(order_ids, f"{threshold} completed and one processing",
                                lambda c: c.get("completed", 0) >= threshold and c.get("processing", 0) >= 1)
                self.kill9(first)
                in_flight = self.processing_items(order_ids)
                self.assertTrue(in_flight, "the kill should catch a chunk in processing")
                restitched = self.expire_orphaned_stitches(order_ids)
                print(f"\nround {round_no}: killed with {self.item_counts(order_ids)}; "
                      f"{len(restitched)} orphaned stitch(es)")

                second = self.serve(f"round{round_no}-b", **self.ENV)
                wait_orders_terminal(self.h, order_ids, timeout=90)
                # The chunks the dead process held went back to the queue and were done once more.
                rescued = self.h.psql_rows(
                    f"SELECT id, status, claims FROM order_items WHERE id IN {sql_ids(in_flight)}")
                self.assertEqual([r for r in rescued if r[1] != "completed" or int(r[2]) < 2], [], rescued)
                self.assertSettledOnce(key, order_ids)
                self.assertInvariants()
                second.stop_checked()


class TwoInstancesTests(CrashDrill):
    """Two processes with workers on one database share the queue without doing anything twice."""

    def test_two_processes_do_two_hundred_chunks_each_exactly_once(self):
        a = self.serve("a", MEDIAGEN_WORKERS=2)
        b = self.serve("b", MEDIAGEN_WORKERS=2)
        self.server = a
        _, key = self.account(balance=1_000_000)
        template = self.template(key, "provider_b")
        order_ids = []
        for n in range(20):
            self.server = (a, b)[n % 2]  # the orders come in through both processes
            r = self.create(key, template, paragraphs(10, n), config_override={"generation_mode": "paragraph"})
            order_ids.append(self.assertSuccess(r, 201)["id"])
        self.assertEqual(sum(self.item_counts(order_ids).values()), 200)
        wait_orders_terminal(self.h, order_ids, timeout=120)
        self.assertEqual(self.item_counts(order_ids), {"completed": 200})
        # Claimed once each: no chunk was given to a second worker.
        twice = self.h.psql_rows(f"SELECT id, claims FROM order_items WHERE order_id IN {sql_ids(order_ids)}"
                                 " AND claims <> 1")
        self.assertEqual(twice, [])
        for server in (a, b):
            lost = [l for l in server.log_lines() if "lease lost" in l or "result discarded" in l]
            self.assertEqual(lost, [], server.name)
        self.assertSettledOnce(key, order_ids, decode=False)
        # Which process did which chunk is recorded nowhere (no log line, no metric per worker
        # pool), so that the work was shared is not asserted; CPU time is printed as a hint.
        for server in (a, b):
            with open(f"/proc/{server.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks = os.sysconf("SC_CLK_TCK")
            print(f"\n{server.name}: {(int(fields[11]) + int(fields[12])) / ticks:.2f} s CPU")
        self.server = a
        # One result decoded is enough here; the kill drill decodes every one.
        self.assertSettledOnce(key, order_ids[:1])
        a.stop_checked()
        b.stop_checked()

    def test_chunks_longer_than_their_lease_are_kept_by_heartbeats_and_done_once(self):
        # Each chunk takes twice its lease; both processes sweep every 200 ms.
        env = {"MEDIAGEN_WORKERS": 2, "MEDIAGEN_LEASE_SECONDS": 2, "MEDIAGEN_ENGINE_DELAY_MS": 4000}
        a = self.serve("slow-a", **env)
        b = self.serve("slow-b", **env)
        _, key = self.account(balance=1_000_000)
        template = self.template(key, "provider_b")
        r = self.create(key, template, paragraphs(4, "slow"), config_override={"generation_mode": "paragraph"})
        order_id = self.assertSuccess(r, 201)["id"]
        wait_orders_terminal(self.h, [order_id], timeout=60)
        self.assertEqual(self.item_counts([order_id]), {"completed": 4})
        self.assertEqual(self.h.psql_rows(f"SELECT id, claims FROM order_items WHERE order_id = '{order_id}'"
                                          " AND claims <> 1"), [])
        for server in (a, b):
            requeued = [l for l in server.log_lines() if "expired leases" in l or "result discarded" in l]
            self.assertEqual(requeued, [], server.name)
        self.assertSettledOnce(key, [order_id])
        a.stop_checked()
        b.stop_checked()


class ZombieTests(CrashDrill):
    """A stopped process whose lease was rescued comes back: its completion is fenced out."""

    def test_a_zombie_completion_writes_nothing(self):
        a = self.serve("zombie", MEDIAGEN_WORKERS=1, MEDIAGEN_ENGINE_DELAY_MS=3000)
        _, key = self.account(balance=1_000_000)
        template = self.template(key, "provider_b")
        order_id = self.assertSuccess(self.create(key, template, "One short sentence for the zombie."), 201)["id"]
        self.wait_items([order_id], "the chunk claimed", lambda c: c.get("processing", 0) == 1, timeout=30)
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            # The lease runs out while A is stopped (backdated instead of waited for).
            expired = self.h.psql_rows(
                "UPDATE order_items SET locked_until = now() - interval '1 minute'"
                f" WHERE order_id = '{order_id}' AND status = 'processing' RETURNING id")
            self.assertEqual(len(expired), 1)
            item_id = expired[0][0]
            b = self.serve("rescuer", MEDIAGEN_WORKERS=1)
            wait_orders_terminal(self.h, [order_id], timeout=60)
            before = self.h.psql_rows(
                f"SELECT status, result_path, result_size, duration_ms, claims FROM order_items WHERE id = '{item_id}'")
            status, path, size, _, claims = before[0]
            self.assertEqual((status, claims), ("completed", "2"))
            file = os.path.join(self.storage_dir, path)
            self.assertTrue(os.path.isfile(file), file)
            stat_b = os.stat(file)
            with open(file, "rb") as f:
                bytes_b = f.read()
            self.assertEqual(len(bytes_b), int(size))
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)

        # A's engine returns and its completion finds the lease gone.
        discarded = poll(lambda: [l for l in a.log_lines() if "result discarded" in l and item_id in l], timeout=30)
        self.assertTrue(discarded, "the zombie's completion should be discarded")
        self.assertTrue(a.alive())
        self.assertEqual(self.h.psql_rows(
            f"SELECT status, result_path, result_size, duration_ms, claims FROM order_items WHERE id = '{item_id}'"),
            before)
        self.assertEqual(charges_by_item(self.h, [order_id]), {item_id: 1})
        self.server = b
        self.assertSettledOnce(key, [order_id])
        a.stop_checked()
        b.stop_checked()
        # The file is still the rescuer's: the zombie's audio is discarded, not stored over it.
        stat_now = os.stat(file)
        with open(file, "rb") as f:
            self.assertEqual(f.read(), bytes_b)
        self.assertEqual((stat_now.st_ino, stat_now.st_mtime_ns), (stat_b.st_ino, stat_b.st_mtime_ns),
                         f"{path} was rewritten after the rescuer completed it")


class DrainTests(CrashDrill):
    """SIGTERM gives the chunks in flight back at once; the next process finishes the order."""

    def test_sigterm_returns_in_flight_chunks_to_the_queue_and_exits_zero(self):
        a = self.serve("draining", MEDIAGEN_WORKERS=2, MEDIAGEN_ENGINE_DELAY_MS=3000)
        _, key = self.account(balance=1_000_000)
        template = self.template(key, "provider_b")
        r = self.create(key, template, paragraphs(4, "drain"), config_override={"generation_mode": "paragraph"})
        order_id = self.assertSuccess(r, 201)["id"]
        self.wait_items([order_id], "two chunks claimed", lambda c: c.get("processing", 0) == 2, timeout=30)
        in_flight = self.processing_items([order_id])
        a.signal(signal.SIGTERM)
        self.assertEqual(a.wait_exit(30), 0, "exit code after SIGTERM")
        # No process is left and the lease (30 s) has not run out: only the drain can have done this.
        rows = self.h.psql_rows("SELECT id, status, lease_token IS NULL, locked_until IS NULL FROM order_items"
                                f" WHERE order_id = '{order_id}'")
        self.assertEqual({r[0]: tuple(r[1:]) for r in rows if r[0] in in_flight},
                         {i: ("pending", "t", "t") for i in in_flight})
        self.assertEqual(self.item_counts([order_id]), {"pending": 4})
        # Nothing completed before every claim went back: the order waits again.
        self.assertEqual(self.h.psql_value(f"SELECT status FROM orders WHERE id = '{order_id}'"), "pending")
        self.assertEqual(charges_by_item(self.h, [order_id]), {r[0]: 0 for r in rows})
        self.assertInvariants()

        self.serve("next", MEDIAGEN_WORKERS=2)
        wait_orders_terminal(self.h, [order_id], timeout=60)
        self.assertSettledOnce(key, [order_id])
        self.server.stop_checked()

    def test_chunks_go_back_at_sigterm_even_while_a_request_keeps_the_process_draining(self):
        a = self.serve("draining-http", MEDIAGEN_WORKERS=2, MEDIAGEN_ENGINE_DELAY_MS=3000,
                       MEDIAGEN_SHUTDOWN_GRACE_SECONDS=30, MEDIAGEN_READ_TIMEOUT_SECONDS=60)
        _, key = self.account(balance=1_000_000)
        template = self.template(key, "provider_b")
        r = self.create(key, template, paragraphs(4, "drain-http"), config_override={"generation_mode": "paragraph"})
        order_id = self.assertSuccess(r, 201)["id"]
        self.wait_items([order_id], "two chunks claimed", lambda c: c.get("processing", 0) == 2, timeout=30)
        slow = a.raw()
        try:
            # A request still arriving holds the HTTP drain open (up to the 30 s grace).
            self.assertTrue(slow.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n"))
            a.signal(signal.SIGTERM)
            given_back = poll(lambda: self.item_counts([order_id]) == {"pending": 4} or not a.alive(), timeout=10)
            draining = a.alive()
            while_draining = self.item_counts([order_id])
            self.assertTrue(slow.send(b"\r\n"))
            self.assertEqual(slow.read_response(timeout=10).status, 200)
        finally:
            slow.close()
        self.assertEqual(a.wait_exit(40), 0, "exit code after SIGTERM")
        self.assertTrue(draining, "the slow request should keep the process draining")
        after_exit = self.item_counts([order_id])

        self.serve("next", MEDIAGEN_WORKERS=2)
        wait_orders_terminal(self.h, [order_id], timeout=60)
        self.assertSettledOnce(key, [order_id])
        self.server.stop_checked()
        # At SIGTERM the claimed chunks went back at once and nothing was claimed afterwards,
        # although the process still had a request to finish.
        self.assertTrue(given_back, f"chunks not given back while the process drained its requests: {while_draining}")
        self.assertEqual(after_exit, {"pending": 4})


if __name__ == "__main__":
    import unittest
    unittest.main()
