"""Seeded model test (spec 1 billing, 2.3, 2.4, 2.6, 2.7, 3.1-3.4, 4.2, 4.5, 7.1): a seed draws
random operations (create, cancel, item retry, retry-failed, regenerate, order retry, kill -9 of
the server, PostgreSQL crash-restart, Redis stop and start, bursts of 2-4 clients at once, gift
code issue/cancel/redeem from a reseller of the seed's own, jumps of the server's wall clock,
voice clone uploads and archives) against one account whose orders name a webhook. A reference
model (model_support.py; model_burst, model_gifts, model_clock, model_clones, model_hooks.py)
predicts each answer and the state after it. After every operation the work settles, every check
of tests/integration/invariants.sql runs, and the wallet, the quota, each order's and record's
status, the reseller balance, each code's and each clone's status must equal the model's; at the
end of a seed each order's last webhook must have arrived.

The class owns its PostgreSQL cluster and Redis (it crashes them; other modules share theirs).
Sizes: MEDIAGEN_MODEL_SEEDS (20), MEDIAGEN_MODEL_OPS (40), MEDIAGEN_MODEL_FIRST_SEED (1);
MEDIAGEN_MODEL_SEED=N replays one seed. A failing seed prints its whole trace (model_trace.py:
every operation done, its parameters and answers) and the command that replays it;
MEDIAGEN_MODEL_BREAK=I moves a balance by hand after op I, to see a broken invariant caught. The
run ends with a one-line summary."""

import os
import random
import sys
import time
import unittest
from collections import Counter

from fault_support import OwnServices, PrivatePostgres, PrivateRedis, release_harness
from harness import TIME_FACTOR, E2ETestCase, Harness
from model_clock import ServerClock
from model_db import PsqlSession, combined_invariants
from model_hooks import receiver_env, start_receiver
from model_ops import Operations
from model_support import BANNED, MARKER, AccountModel
from model_trace import BROKEN_BY_SABOTAGE, Saboteur, Trace, break_index
from orders_support import OrderFixtures

# A clone is described in about 10 s under ASan, three times that under TSan (TIME_FACTOR).
SETTLE_SECONDS = 60.0 * TIME_FACTOR


def sizes():
    one = os.environ.get("MEDIAGEN_MODEL_SEED")
    if one:
        return [int(one)], int(os.environ.get("MEDIAGEN_MODEL_OPS", "40"))
    first = int(os.environ.get("MEDIAGEN_MODEL_FIRST_SEED", "1"))
    count = int(os.environ.get("MEDIAGEN_MODEL_SEEDS", "20"))
    return list(range(first, first + count)), int(os.environ.get("MEDIAGEN_MODEL_OPS", "40"))


class ModelTest(OwnServices, OrderFixtures, E2ETestCase):
    start_server = False
    started = 1  # server processes so far, for their names in the logs
    server_env = {
        "MEDIAGEN_WORKERS": "2",
        "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
        "MEDIAGEN_LEASE_SECONDS": "2",
        "MEDIAGEN_ENGINE_FAIL_MARKER": MARKER,
        "MEDIAGEN_CONTENT_POLICY": BANNED,
        # The reference model has no policy cooldown (test_policy_cooldown.py tests it): off here.
        "MEDIAGEN_POLICY_COOLDOWN_SECONDS": "0",
    }

    @classmethod
    def setUpClass(cls):
        cls.pg = PrivatePostgres()
        cls.redis = PrivateRedis()
        try:
            cls.pg.start()
            cls.redis.start()
            cls.h = Harness(cls.__name__)
            cls.h.use_cluster(cls.pg.admin_url)
            cls.h.redis_url = cls.redis.url
            cls.clock = ServerClock()
            cls.receiver = start_receiver(cls.clock.env())
            cls.server_env = {**cls.server_env, **cls.clock.env(), **receiver_env(cls.receiver)}
            cls.h.setup()
            cls.seed()
            cls.price = int(cls.h.psql_value(
                "SELECT price_per_1k_minor FROM service_models WHERE model_id = 'b-standard'"))
            cls.checks, cls.invariants_sql = combined_invariants()
            cls.server = cls.h.start_server(cls.server_env, name="model#1")
            cls.db = PsqlSession(cls.h.db_url)
            cls.saboteur = Saboteur(cls.h)
        except BaseException:
            cls._release()
            raise

    @classmethod
    def _release(cls):
        try:
            if getattr(cls, "db", None):
                cls.db.close()
            release_harness(getattr(cls, "h", None), cls.pg, cls.redis)
        finally:
            cls.redis.remove()
            cls.pg.remove()
            if getattr(cls, "clock", None):
                cls.clock.remove()
            if getattr(cls, "receiver", None):
                cls.receiver.stop()

    # -- processes

    def restart_server(self, workers=None):
        settings = dict(self.server_env)
        if workers is not None:
            settings["MEDIAGEN_WORKERS"] = str(workers)
        type(self).started += 1
        self.server = type(self).server = self.h.start_server(settings, name=f"model#{self.started}")

    def kill9(self, workers=None):
        """kill -9 of the server and a new one on the same database, storage and secret."""
        self.server.proc.kill()
        self.assertIsNotNone(self.server.wait_exit(30), "server did not die on SIGKILL")
        # Keep the logs of the last two dead processes for a failure report, not of every one.
        dead = [s for s in self.h.servers if not s.alive()]
        for old in dead[:-2]:
            self.h.servers.remove(old)
            old.proc.stdout.close()
            old.proc.stderr.close()
        # A stitch the dead process held keeps its lease (not configurable): expire it, as the
        # clock eventually would, so the next process redoes it now.
        self.h.psql("UPDATE orders SET stitch_until = now() - interval '1 second' WHERE stitch_token IS NOT NULL")
        self.restart_server(workers)

    # -- the run

    def test_random_operations_match_the_model(self):
        seeds, ops = sizes()
        started = time.monotonic()
        kinds = Counter()
        failures = []
        long_run = len(seeds) > 20  # scripts/chaos: a line per seed, a failure shown when it happens
        self.recoveries = []
        self.spent = Counter()
        for seed in seeds:
            trace = Trace(seed, ops, break_index())
            try:
                self.run_seed(trace)
            except Exception as e:  # one seed's failure is reported with the others' outcome
                failures.append(trace.report(e))
                if long_run:
                    print(failures[-1], file=sys.stderr, flush=True)
                if len(failures) >= 3:
                    break
            finally:
                self.saboteur.repair()
            for step in trace.steps:
                kinds[step.kind] += 1
                self.spent[step.kind] += step.seconds
            if long_run:
                print(f"model test: seed {trace.seed} done, {len(failures)} failing so far, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        seconds = time.monotonic() - started
        by_kind = ", ".join(f"{k} {n} ({self.spent[k]:.0f} s)" for k, n in sorted(kinds.items()))
        summary = (f"model test: seeds {len(seeds)} ({seeds[0]}..{seeds[-1]}), ops {sum(kinds.values())}: {by_kind}; "
                   f"{seconds:.1f} s; 503s after a PostgreSQL restart up to {max(self.recoveries, default=0):.1f} s; "
                   f"failing seeds {len(failures)}")
        print(summary, file=sys.stderr)
        if failures:
            self.fail("\n\n".join(failures) + "\n" + summary)

    def test_a_broken_invariant_is_caught_and_traced(self):
        """The saboteur moves a balance by hand after op 2 of a short seed: the run must fail at
        that op, name the broken invariant, and print the trace of ops 0..2 with its replay."""
        self.recoveries = []
        trace = Trace(seed=7, ops=4, break_at=2)
        try:
            with self.assertRaises(AssertionError) as caught:
                self.run_seed(trace)
        finally:
            self.saboteur.repair()
        report = trace.report(caught.exception)
        self.assertIn(BROKEN_BY_SABOTAGE, report)
        self.assertEqual([s.index for s in trace.steps], [0, 1, 2], report)
        for step in trace.steps:
            self.assertIn(step.line(7), report)
            self.assertTrue(step.answers, f"op {step.index} recorded no answer: {report}")
        self.assertIn("MEDIAGEN_MODEL_SEED=7 MEDIAGEN_MODEL_OPS=4 MEDIAGEN_MODEL_BREAK=2", report)

    def run_seed(self, trace):
        seed = trace.seed
        rng = random.Random(seed)
        balance = rng.choice((20, 60, 120, 400))
        quota = rng.choice((0, 0, 300, 2000))
        trace.setup = f"wallet {balance}, quota {quota}"
        user = self.h.create_user(email=f"model-{seed}-{time.time_ns()}@example.com", balance=balance)
        key = self.h.create_key(user["id"], preset="full")["key"]
        if quota:
            self.set_quota(user["id"], quota)
        model = AccountModel(balance, quota, self.price)
        model.subscribed = quota > 0  # set_quota subscribes the account to a plan
        ops = Operations(self, rng, model, key, user["id"], seed)
        ops.trace = trace
        ops.make_template()
        self.check(ops, model, user["id"], None)
        for index in range(trace.ops):
            kind = ops.draw()
            started = time.monotonic()
            step = trace.begin(index, kind)
            touched, step.detail = ops.run(kind, index)
            model = ops.model  # a burst adopts the copy whose serial order matched the answers
            model.settle()
            if index == trace.break_at:
                self.saboteur.strike()
            self.check(ops, model, user["id"], touched)
            step.seconds = time.monotonic() - started
        started = time.monotonic()
        step = trace.begin(trace.ops, "webhooks")
        ops.check_webhooks()
        step.seconds = time.monotonic() - started

    # -- after every operation

    def check(self, ops, model, user_id, touched):
        expected = {**self.expected_view(model), **ops.gift_view(), **ops.clone_view()}
        deadline = time.monotonic() + SETTLE_SECONDS
        while True:
            actual, quiet = self.actual_view(user_id, ops.reseller_id, ops.clones is not None)
            if quiet and actual == expected:
                break
            if time.monotonic() >= deadline:
                self.assertEqual(actual, expected, "the state differs from the model's"
                                 + ("" if quiet else " (work still running after the settle time)"))
            time.sleep(0.05)
        self.assertInvariantsAtOnce()
        if touched is not None:
            self.assertApiAgrees(ops, touched)

    def expected_view(self, model):
        items = {(o.id, r.index, r.kind, r.attempt): r.status for o in model.orders for r in o.records()}
        return {"wallet": model.wallet, "quota": model.quota, "orders": model.order_view(), "items": items}

    def actual_view(self, user_id, reseller_id, clones):
        rows = self.db.rows(
            "SELECT 'a',"
            " coalesce((SELECT balance FROM ledger_accounts WHERE kind = 'wallet' AND user_id = u.id), 0)::text,"
            " coalesce((SELECT balance FROM ledger_accounts WHERE kind = 'quota' AND user_id = u.id), 0)::text,"
            " (SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id"
            "  WHERE o.user_id = u.id AND i.status IN ('pending', 'processing'))::text,"
            " (SELECT count(*) FROM orders o WHERE o.user_id = u.id AND o.stitch_until IS NOT NULL)::text, ''"
            f" FROM users u WHERE u.id = {int(user_id)}"
            " UNION ALL SELECT 'o', o.id::text, o.status, '', '', '' FROM orders o"
            f" WHERE o.user_id = {int(user_id)}"
            " UNION ALL SELECT 'i', i.order_id::text, i.chunk_index::text, i.item_type,"
            " i.attempt_number::text, i.status"
            f" FROM order_items i JOIN orders o ON o.id = i.order_id WHERE o.user_id = {int(user_id)}"
            + ("" if reseller_id is None else
               " UNION ALL SELECT 'r', coalesce((SELECT balance FROM ledger_accounts WHERE kind = 'reseller'"
               f"  AND user_id = {int(reseller_id)}), 0)::text, '', '', '', ''"
               " UNION ALL SELECT 'g', id::text, status, '', '', '' FROM gift_codes"
               f" WHERE reseller_id = {int(reseller_id)}")
            + (f" UNION ALL SELECT 'c', id::text, status, '', '', '' FROM voice_clones WHERE user_id = {int(user_id)}"
               if clones else ""))
        view = {"orders": {}, "items": {}}
        if clones:
            view["clones"] = {}
        if reseller_id is not None:
            view["codes"] = {}
        quiet = False
        for row in rows:
            if row[0] == "a":
                view["wallet"], view["quota"] = int(row[1]), int(row[2])
                quiet = row[3] == "0" and row[4] == "0"
            elif row[0] == "o":
                view["orders"][row[1]] = row[2]
            elif row[0] == "r":
                view["reseller"] = int(row[1])
            elif row[0] == "g":
                view["codes"][row[1]] = row[2]
            elif row[0] == "c":
                view["clones"][row[1]] = row[2]
            else:
                view["items"][(row[1], int(row[2]), row[3], int(row[4]))] = row[5]
        return view, quiet and not any(s in ("pending", "processing") for s in view.get("clones", {}).values())

    def assertInvariantsAtOnce(self):
        counts = self.db.rows(self.invariants_sql)
        broken = [self.checks[int(n)] for n, rows in counts if rows != "0"]
        details = [f"{name}: {self.h.psql(sql).strip()[:500]}" for name, sql in broken]
        self.assertEqual(details, [], "ledger invariants violated")

    def assertApiAgrees(self, ops, order):
        """GET /orders/{id} (spec 4.1) shows the order and its records as the model has them."""
        r = ops.get(f"/orders/{order.id}")
        data = self.assertSuccess(r)
        self.assertEqual(data["status"], order.status, f"GET /orders/{order.id}")
        shown = {(i["chunk_index"], i["item_type"], i["attempt_number"]): i["status"] for i in data["items"]}
        self.assertEqual(shown, {(x.index, x.kind, x.attempt): x.status for x in order.records()},
                         f"items of GET /orders/{order.id}")


if __name__ == "__main__":
    unittest.main()
