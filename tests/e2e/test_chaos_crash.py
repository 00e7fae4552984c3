"""T2 of the reliability research: rounds of `kill -9` at a uniformly random moment while
orders of many chunks are processed, alternating two processes of one deployment (one
database, Redis prefix, storage folder and link secret). After every round: every order
completed, each position charged exactly once, the escrows empty, no chunk left processing,
the stitched track decodes to the sum of its chunks within 50 ms, and the ledger invariants.

Sizes: MEDIAGEN_CHAOS=full gives the research's (20 rounds of 10 orders x 20 chunks); unset, the
CI's (4 rounds of 5 orders x 8 chunks). MEDIAGEN_CHAOS_SEED replays the kill moments of a run."""

import os
import random
import time

from chaos_support import FULL, figure, size
from orders_support import sql_ids, wait_orders_terminal
from test_orders_crash import CrashDrill, paragraphs

PARAGRAPH = {"generation_mode": "paragraph"}


class KillNineRounds(CrashDrill):
    """Each round kills the process that runs and starts the other one."""

    # A short lease (the research allows up to 5 s) and a quick sweep: the dead process's chunks
    # go back to the queue soon after the next process starts.
    ENV = {"MEDIAGEN_WORKERS": 2, "MEDIAGEN_LEASE_SECONDS": 2, "MEDIAGEN_ENGINE_DELAY_MS": 150}

    def test_t2_kill_nine_at_random_moments_settles_every_chunk_once(self):
        started = time.monotonic()
        rounds, orders, chunks = size((4, 5, 8), (20, 10, 20))
        seed = int(os.environ.get("MEDIAGEN_CHAOS_SEED") or time.time_ns() % 1_000_000)
        rng = random.Random(seed)
        print(f"\nT2 seed {seed} ({'full' if FULL else 'ci'} sizes)", flush=True)
        self.serve("a0", **self.ENV)
        _, key = self.account(balance=100_000_000)
        template = self.template(key, "provider_b")
        caught, rescued = 0, 0
        for r in range(rounds):
            order_ids, in_flight = self.one_round(r, rng, key, template, orders, chunks)
            caught += 1 if in_flight else 0
            rescued += int(self.h.psql_value(f"SELECT count(*) FROM order_items WHERE order_id IN {sql_ids(order_ids)}"
                                             " AND claims > 1"))
        self.server.stop_checked()
        figure("T2", started, rounds=rounds, orders=orders, chunks=chunks, seed=seed,
               rounds_killed_mid_chunk=caught, chunks_done_again=rescued)

    def one_round(self, r, rng, key, template, orders, chunks):
        round_started = time.monotonic()
        victim = self.server
        order_ids = []
        for n in range(orders):
            created = self.create(key, template, paragraphs(chunks, f"{r}.{n}"), config_override=PARAGRAPH)
            order_ids.append(self.assertSuccess(created, 201)["id"])
        self.assertEqual(sum(self.item_counts(order_ids).values()), orders * chunks)
        moment = rng.uniform(0, 3)
        time.sleep(moment)  # the kill moment itself is what is random here
        self.kill9(victim)
        at_kill = self.item_counts(order_ids)
        in_flight = self.processing_items(order_ids)
        restitched = self.expire_orphaned_stitches(order_ids)
        self.serve(f"{'ba'[r % 2]}{r + 1}", **self.ENV)
        wait_orders_terminal(self.h, order_ids, timeout=size(120, 300))
        # What the dead process held was done again, once.
        again = self.h.psql_rows(f"SELECT id, status, claims FROM order_items WHERE id IN {sql_ids(in_flight)}"
                                 if in_flight else "SELECT 1 WHERE false")
        self.assertEqual([row for row in again if row[1] != "completed" or int(row[2]) < 2], [], again)
        self.assertEqual(self.processing_items(order_ids), [])
        self.assertEqual(self.h.psql_value("SELECT count(*) FROM order_items WHERE status = 'processing'"
                                           " AND locked_until < now()"), "0", "expired leases left after a sweep")
        self.assertSettledOnce(key, order_ids)
        self.assertInvariants()
        print(f"T2 round {r}: kill at {moment:.2f} s with {at_kill}; {len(in_flight)} in flight, "
              f"{len(restitched)} orphaned stitch(es); {time.monotonic() - round_started:.1f} s", flush=True)
        return order_ids, in_flight


if __name__ == "__main__":
    import unittest
    unittest.main()
