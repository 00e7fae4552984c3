"""PostgreSQL, Redis and the storage failing in one run (reliability T8 + T9 + T10, the
degradation matrix of section 2.2; spec 1 "Billing", 2.1, 3.1, 3.2, 7.1 503).

Clients create orders (each with an Idempotency-Key), read them and cancel every fourth, with the
workers on, while on a schedule inside the same run: Redis is paused (CLIENT PAUSE ALL),
PostgreSQL crash-restarts (`pg_ctl restart -m immediate`), the storage folder (a tmpfs of its
own) fills to the last page while a many-chunk order is being spoken and empties again, every
server backend is terminated, and Redis is frozen (SIGSTOP) and thawed. The class owns its
PostgreSQL cluster, Redis and storage, so no fault touches another module.

Pass: every answer spec-shaped (2xx, 4xx, or 503 during outages; no other 5xx; none later than
the client's patience of 10 s); the process never dies and is ready again without a restart
(the recovery time is reported); /readyz names Redis while it is frozen; the orders in the
database are exactly those the answers name (each 503 asked again by its key); every chunk that
failed did so with a storage reason (or was cancelled), none is completed without its whole file;
`retry-failed` after the space came back completes the order the full disk left partial; every
order ends; the invariants hold.

Sizes: MEDIAGEN_CHAOS=full gives the research's (8 clients for 90 s); unset, the CI's (4 clients
for 28 s)."""

import json
import time
import unittest

from chaos_support import figure, size
from combined_support import MixedLoad, ReadyProbe, TmpfsStorage, shape_problem
from fault_support import OUTAGE_ENV as ENV, OwnServices, PrivatePostgres, PrivateRedis, release_harness
from harness import E2ETestCase, Harness, metric_sum, poll
from orders_support import TERMINAL_ORDER_STATUSES, OrderFixtures, wait_orders_terminal
from outage_support import recovery_seconds, settle
from s3_fault_support import files_behind_completions

DURATION = size(28.0, 90.0)
CLIENTS = size(4, 8)
THINK = 0.2  # seconds between a client's rounds: paced, so the workers finish the queue soon after the run
REDIS_PAUSE = size(3.0, 8.0)
REDIS_FREEZE = size(3.0, 6.0)
PARAGRAPHS = "\n\n".join(f"Paragraph {n} of the order that is being spoken while the disk fills up." for n in range(20))


class CombinedFaultTests(OwnServices, OrderFixtures, E2ETestCase):
    @classmethod
    def setUpClass(cls):
        cls.pg, cls.redis, cls.h, cls.storage = PrivatePostgres(), PrivateRedis(), None, None
        try:
            cls.pg.start()
            cls.redis.start()
            cls.h = Harness(cls.__name__, "local")
            cls.storage = TmpfsStorage(cls.h.storage_dir, size(64, 256))
            cls.storage.mount()
            cls.h.use_cluster(cls.pg.admin_url)
            cls.h.setup()
            cls.seed()
            cls.server = cls.h.start_server(dict(ENV, MEDIAGEN_REDIS_URL=cls.redis.url), name="combined")
        except BaseException:
            cls._release()
            raise

    @classmethod
    def _release(cls):
        try:
            release_harness(cls.h, cls.pg)
        finally:
            if cls.storage:
                cls.storage.unmount()
            cls.redis.remove()
            cls.pg.remove()

    def tearDown(self):
        self.assertInvariants()

    # -- the faults, each recorded as (name, start, end)

    def redis_pause(self):
        self.assertIn(b"+OK", self.redis.command("CLIENT", "PAUSE", str(int(REDIS_PAUSE * 1000)), "ALL"))
        time.sleep(REDIS_PAUSE)  # the pause ends by itself

    def pg_restart(self):
        self.pg.restart_immediate()

    def pg_terminate(self):
        for _ in range(3):
            ended = self.h.admin_psql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                      f" WHERE datname = '{self.h.db_name}' AND pid <> pg_backend_pid()").split()
            self.assertIn("t", ended, "the server had no backend to terminate")
            time.sleep(0.5)

    def redis_freeze(self):
        self.redis.freeze()
        try:
            time.sleep(REDIS_FREEZE)
        finally:
            self.redis.thaw()

    def disk_full(self):
        """Fills the storage while the probe order is half spoken; frees it once every chunk of
        the probe has settled (and not before the schedule's end of the fault)."""
        until = time.monotonic() + DURATION * 0.12
        order = self.assertSuccess(self.create(self.probe_key, self.probe_template, PARAGRAPHS,
                                               config_override={"generation_mode": "paragraph"}), 201)["id"]

        def under_way():
            done, waiting = self.h.psql_rows(
                "SELECT count(*) FILTER (WHERE status = 'completed'), count(*) FILTER (WHERE status = 'pending')"
                f" FROM order_items WHERE order_id = '{order}'::uuid")[0]
            return int(done) >= 1 and int(waiting) >= 2
        # Filled between its chunks: the first ones are kept, the rest meet the full disk.
        self.assertTrue(poll(under_way, timeout=60, interval=0.02), "the probe order never got under way")
        self.ballast = self.storage.fill()
        self.assertEqual(self.storage.free_bytes(), 0)
        settled = f"SELECT count(*) FROM order_items WHERE order_id = '{order}'::uuid" \
                  " AND status IN ('pending', 'processing')"
        self.assertTrue(poll(lambda: self.h.psql_value(settled) == "0", timeout=60, interval=0.1))
        time.sleep(max(0.0, until - time.monotonic()))
        self.storage.free()
        self.probe_order = order

    def run_schedule(self, started):
        """Each fault at its share of the run (or when the one before it has ended)."""
        schedule = ((0.12, "redis_pause", self.redis_pause), (0.3, "pg_restart", self.pg_restart),
                    (0.42, "disk_full", self.disk_full), (0.62, "pg_terminate", self.pg_terminate),
                    (0.72, "redis_freeze", self.redis_freeze))
        faults = []
        for share, name, fault in schedule:
            time.sleep(max(0.0, started + share * DURATION - time.monotonic()))
            begin = time.monotonic()
            fault()
            faults.append((name, begin, time.monotonic()))
        time.sleep(max(0.0, started + DURATION - time.monotonic()))
        return faults

    # -- the drill

    def test_combined_faults_answer_in_shape_and_recover_without_a_restart(self):
        started = time.monotonic()
        user, key = self.account(balance=1_000_000_000)
        template = self.template(key)
        self.probe_user, self.probe_key = self.account(balance=1_000_000_000)
        self.probe_template = self.template(self.probe_key)
        ready = ReadyProbe(self.server).start()
        load = MixedLoad(self, self.server, key, template, CLIENTS, THINK).start()
        try:
            self.assertTrue(poll(lambda: any(s == 201 for _, s, *_ in load.results), timeout=30))
            faults = self.run_schedule(time.monotonic())
        finally:
            load.stop()
            ready.stop()
        back = faults[-1][2]
        self.assertTrue(self.server.alive(), "the server died")
        self.assertTrue(poll(lambda: self.server.admin_get("/readyz").status == 200, timeout=30),
                        "not ready again after the faults")
        ready_after = min((t for t, _, s, _ in ready.probes if t >= back and s == 200), default=None)

        # Every answer in the spec's shape and in time; the orders are exactly those answered.
        for a in load.results:
            self.assertIsNone(shape_problem(a[1], a[2]))
        others = load.check_others(self)
        replayed = settle(self, load, self.server, user["id"])
        recovery = recovery_seconds(self, load, back)
        for t, seconds, status, body in ready.probes:
            self.assertLess(seconds, 1.5, f"/readyz waited on a store: {body}")
            self.assertIn(status, (200, 503), body)
        # Matrix 2.2, Redis stalled: auth from the process cache, windows fail open, so every
        # create that ran inside a Redis fault was created.
        for name, begin, end in faults:
            if name.startswith("redis"):
                inside = [(s, b) for _, s, b, secs, t in load.results if t - secs >= begin and t <= end]
                self.assertTrue(inside, f"no create ran inside {name}")
                self.assertEqual([x for x in inside if x[0] != 201], [], f"creates refused inside {name}")
        frozen = faults[-1]
        self.assertTrue([p for p in ready.between(frozen[1] + 1.5, frozen[2]) if p[2] == 503
                         and p[3]["checks"]["redis"] != "ok"], "/readyz did not name the frozen Redis")

        # The storage fault: failed chunks say why, no completion without its file, and once the
        # space is back the partial order is completed by retry-failed; then every order ends.
        self.users = f"({user['id']}, {self.probe_user['id']})"
        self.assertTrue(poll(lambda: set(self.statuses().values()) <= set(TERMINAL_ORDER_STATUSES)
                             | {"partially_completed"}, timeout=300, interval=0.5), _count(self.statuses().values()))
        self.check_storage(load)
        self.assertTrue(poll(lambda: set(self.statuses().values()) <= set(TERMINAL_ORDER_STATUSES), timeout=300,
                             interval=0.5), _count(self.statuses().values()))
        self.assertEqual(files_behind_completions(self.h, orders_query=self.orders_query()), [])
        self.assertTrue(self.server.alive(), "the server died")
        endings = _count(tuple(r) for r in self.h.psql_rows(
            f"SELECT status, coalesce(failure_reason, '') FROM orders WHERE user_id IN {self.users}"))
        contained = metric_sum(self.server.metrics(), "mediagen_contained_failures_total")
        figure("T8+T9+T10 combined", started, clients=CLIENTS, creates=_count(s for _, s, *_ in load.results),
               reads_cancels=others, replayed_503=replayed, orders=sum(endings.values()), statuses=endings,
               storage_failed_chunks=self.storage_failed, ballast_bytes=self.ballast,
               faults=" ".join(f"{n}@{b - started:.1f}+{e - b:.1f}s(201_after_{recovery_seconds(self, load, e):.2f}s)"
                               for n, b, e in faults),
               ready_again_s=f"{ready_after - back:.2f}" if ready_after else "n/a",
               first_201_after_s=f"{recovery:.2f}",
               contained=contained,
               log_errors=_count(_msg(line) for line in self.server.log_lines() if '"level":"error"' in line))
        # An outage is expected weather: nothing it causes may count as an unexpected failure (a
        # stitch that met a restart used to, and spent one of its order's few attempts).
        self.assertEqual(contained, 0, "contained failures during the faults")

    def orders_query(self):
        return f"SELECT id FROM orders WHERE user_id IN {self.users}"

    def statuses(self):
        return dict(self.h.psql_rows(f"SELECT id, status FROM orders WHERE user_id IN {self.users}"))

    def check_storage(self, load):
        reasons = dict(self.h.psql_rows(
            "SELECT i.failure_reason, count(*) FROM order_items i JOIN orders o ON o.id = i.order_id"
            f" WHERE o.user_id IN {self.users} AND i.status = 'failed' GROUP BY 1"))
        self.assertEqual(set(reasons) - {"storage_error", "order_cancelled"}, set(), reasons)
        self.storage_failed = int(reasons.get("storage_error", 0))
        self.assertGreater(self.storage_failed, 0, "no chunk met the full disk")
        self.assertEqual(files_behind_completions(self.h, orders_query=self.orders_query()), [])
        partial = [o for o, s in self.statuses().items() if s == "partially_completed"]
        self.assertIn(self.probe_order, partial)
        for order in partial:
            owner = self.probe_key if order == self.probe_order else load.key
            r = self.server.api("POST", f"/orders/{order}/items/retry-failed", owner)
            self.assertIn(r.status, (200, 201), r)
        done = wait_orders_terminal(self.h, partial, timeout=120)
        self.assertEqual(set(done.values()), {"completed"}, done)


def _msg(line):
    try:
        return json.loads(line).get("msg")
    except ValueError:
        return line[:80]


def _count(values):
    out = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


if __name__ == "__main__":
    unittest.main()
