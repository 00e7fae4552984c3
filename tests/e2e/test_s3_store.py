"""The S3 object store end to end, against the test Swift cluster (scripts/lib/swift.sh), whatever
MEDIAGEN_E2E_STORAGE says: every class has a bucket of its own.

- A server signing with a wrong secret: Swift refuses every request, each chunk ends
  `storage_error`, the order fails and returns its money, the server stays up.
- Two instances with different local folders and one bucket: an order created on A (no workers)
  is spoken by B, and the link A signs downloads on A and on B.
- Faults: a Swift proxy of the test's own stopped (SIGSTOP) for 10 s while chunks are written, or
  killed and restarted 10 s later; and a proxy that slows every answer down. Chunks fail or retry
  by the store's rule (a request timing out, refused or answered 5xx is sent again, 4 attempts
  in all with jittered backoff; a request waits up to 60 s for its answer), nothing is reported
  completed without its file in the bucket, and the money invariants hold.
"""

import os
import shutil
import tempfile
import time
import urllib.parse

from harness import E2ETestCase, poll
from orders_support import OrderFixtures, decoded_duration_ms, sql_ids, wait_orders_terminal
from s3_fault_support import PrivateSwiftProxy, SlowProxy, files_behind_completions

PARAGRAPH = {"generation_mode": "paragraph"}
SENTENCES = [
    "The harbour lights came on one after another as the boats returned.",
    "A small dog waited by the gate for the postman every single morning.",
    "Rain tapped on the roof of the old barn through the long grey afternoon.",
    "The baker sang quietly while the first loaves browned in the oven.",
    "Snow covered the hills, and the village fell silent under the stars.",
    "Two friends argued happily about the best way to cross the river.",
]


class S3Case(OrderFixtures, E2ETestCase):
    storage = "s3"

    def order_of(self, key, template, paragraphs, server=None):
        server = server or self.server
        r = server.api("POST", "/orders", key, body={"template_id": template, "input_text": "\n\n".join(paragraphs),
                                                    "config_override": PARAGRAPH})
        return self.assertSuccess(r, 201)

    def items_of(self, order_ids):
        """[(order id, status, failure reason)] of every record of these orders."""
        return self.h.psql_rows("SELECT order_id, status, coalesce(failure_reason, '') FROM order_items"
                                f" WHERE order_id IN {sql_ids(order_ids)}")

    def link_target(self, server, key, path, download=False):
        url = self.assertSuccess(server.api("POST", "/storage/url", key, body={"path": path, "download": download}))["url"]
        u = urllib.parse.urlsplit(url)
        return u.path + "?" + u.query

    def assertEverythingCompletedIsStored(self, order_ids):
        self.assertEqual(files_behind_completions(self.h, order_ids), [])


class ForgedSignatureTests(S3Case):
    """The server holds the right access key and a wrong secret: its signatures are forged."""
    server_env = {"MEDIAGEN_WORKERS": "2", "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
                  "AWS_SECRET_ACCESS_KEY": "not-the-secret-of-test-tester"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def test_every_chunk_ends_storage_error_and_the_order_returns_its_money(self):
        user, key = self.account(balance=100_000)
        template = self.template(key)
        created = self.order_of(key, template, SENTENCES[:3])
        order = self.wait_order(key, created["id"], {"failed", "completed", "partially_completed"}, timeout=120)
        self.assertEqual(order["status"], "failed", order)
        self.assertEqual({(i["status"], i["failure_reason"]) for i in order["items"]}, {("failed", "storage_error")})
        self.assertEqual([i["remaining_locked"] for i in order["items"]], [0, 0, 0])
        self.assertEqual(self.balance(user["id"]), 100_000)
        self.assertIsNone(order["result"])
        # Swift stored nothing it was asked to with a forged signature.
        self.assertEqual(self.h.files.list(f"orders/{created['id']}/"), [])
        self.assertServerAlive()
        # And the next order is taken, and refused, the same way.
        again = self.order_of(key, template, SENTENCES[3:4])
        self.assertEqual(self.wait_order(key, again["id"], {"failed", "completed"}, timeout=120)["status"], "failed")
        self.assertEqual(self.balance(user["id"]), 100_000)
        self.assertServerAlive()


class TwoInstancesTests(S3Case):
    """A takes orders and signs links but runs no workers; B runs the workers. Each has a local
    folder of its own: only the bucket is shared."""
    start_server = False

    @classmethod
    def prepare(cls):
        cls.dirs = [tempfile.mkdtemp(prefix="mg_e2e_instance_") for _ in range(2)]
        common = {"MEDIAGEN_SWEEP_INTERVAL_MS": "200"}
        cls.a = cls.h.start_server({**common, "MEDIAGEN_WORKERS": "0", "MEDIAGEN_STORAGE_DIR": cls.dirs[0]}, name="A")
        cls.b = cls.h.start_server({**common, "MEDIAGEN_WORKERS": "2", "MEDIAGEN_STORAGE_DIR": cls.dirs[1]}, name="B")
        cls.server = cls.a
        cls.seed()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        for d in cls.dirs:
            shutil.rmtree(d, ignore_errors=True)

    def tearDown(self):
        self.assertInvariants()

    def test_an_order_created_on_a_and_spoken_by_b_downloads_through_a_link_signed_by_a(self):
        user, key = self.account(balance=1_000_000)
        template = self.template(key)
        created = self.order_of(key, template, SENTENCES[:3], server=self.a)
        order = self.wait_order(key, created["id"], {"completed", "failed", "partially_completed"}, timeout=180)
        self.assertEqual(order["status"], "completed", order)
        self.assertEqual(self.balance(user["id"]), 1_000_000 - created["price_units"])
        path = order["result"]["files"][0]
        stored = self.h.files.read(path)
        self.assertIsNotNone(stored, f"{path} is not in the bucket")
        self.assertAlmostEqual(decoded_duration_ms(stored), order["result"]["duration_ms"], delta=50)

        target = self.link_target(self.a, key, path, download=True)
        for server in (self.a, self.b):
            whole = server.request("GET", target, timeout=30)
            self.assertEqual(whole.status, 200, (server.name, whole))
            self.assertEqual(whole.raw, stored, server.name)
            part = server.request("GET", target, {"Range": "bytes=100-1099"}, timeout=30)
            self.assertEqual(part.status, 206, (server.name, part))
            self.assertEqual(part.raw, stored[100:1100])
            self.assertEqual(part.headers.get("content-range"), f"bytes 100-1099/{len(stored)}")
        self.assertAlmostEqual(decoded_duration_ms(whole.raw), order["result"]["duration_ms"], delta=50)
        # Neither instance kept a file in its own folder.
        for d in self.dirs:
            self.assertEqual([f for _, _, files in os.walk(d) for f in files], [], d)


class ProxyFaultTests(S3Case):
    """The server reaches the bucket through a Swift proxy of this class's own."""
    start_server = False

    @classmethod
    def prepare(cls):
        cls.proxy = PrivateSwiftProxy(cls.h.files.client).start()
        env = {"MEDIAGEN_WORKERS": "2", "MEDIAGEN_SWEEP_INTERVAL_MS": "200", "MEDIAGEN_ENGINE_DELAY_MS": "300",
               "AWS_ENDPOINT_URL": cls.proxy.endpoint}
        cls.server = cls.h.start_server(env, name="behind-private-proxy")
        cls.seed()

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls.proxy.close()

    def tearDown(self):
        self.assertInvariants()

    def start_work(self, orders=3, paragraphs=5):
        """Orders of several paragraphs, returned once the first chunk is stored and more wait."""
        user, key = self.account(balance=10_000_000)
        template = self.template(key)
        ids = [self.order_of(key, template, SENTENCES[i:i + paragraphs] + SENTENCES[:max(0, i + paragraphs - 6)])["id"]
               for i in range(orders)]
        self.assertTrue(poll(lambda: self.completed_items(ids) >= 1, timeout=60, interval=0.05),
                        "no chunk was stored before the fault")
        waiting = self.h.psql_value("SELECT count(*) FROM order_items WHERE status IN ('pending', 'processing')"
                                    f" AND order_id IN {sql_ids(ids)}")
        self.assertGreater(int(waiting), 2, "the work ended before the fault")
        return user, key, ids

    def completed_items(self, ids):
        return sum(1 for _, status, _ in self.items_of(ids) if status == "completed")

    def test_a_proxy_stopped_for_ten_seconds_delays_chunks_and_loses_none(self):
        _, key, ids = self.start_work()
        self.proxy.freeze()
        self.addCleanup(self.proxy.thaw)
        time.sleep(1)
        during = self.completed_items(ids)
        # The API answers while the store hangs: no request thread waits on S3.
        self.assertServerAlive()
        self.assertEqual(self.server.api("GET", f"/orders/{ids[0]}", key).status, 200)
        time.sleep(9)
        # Nothing completes while no file can be written.
        self.assertEqual(self.completed_items(ids), during)
        self.proxy.thaw()
        statuses = wait_orders_terminal(self.h, ids, timeout=240)
        # A request waits up to 60 s for its answer: ten seconds of silence fail nothing.
        self.assertEqual(set(statuses.values()), {"completed"}, self.items_of(ids))
        self.assertEverythingCompletedIsStored(ids)
        self.assertServerAlive()

    def test_a_proxy_killed_and_restarted_ten_seconds_later_fails_chunks_then_retries_complete(self):
        user, key, ids = self.start_work()
        self.proxy.kill()
        try:
            time.sleep(10)
            self.assertServerAlive()
        finally:
            self.proxy.start()
        wait_terminal_or_partial(self, ids)
        items = self.items_of(ids)
        reasons = {reason for _, status, reason in items if status == "failed"}
        # Refused connections are retried, 4 attempts within about 3 s, then the chunk fails.
        self.assertEqual(reasons, {"storage_error"}, items)
        self.assertEverythingCompletedIsStored(ids)
        self.assertInvariants()
        # The failed chunks, retried for free once the store is back, complete every order that
        # kept a completed chunk.
        for order_id in ids:
            order = self.server.api("GET", f"/orders/{order_id}", key).body["data"]
            if order["status"] == "partially_completed":
                self.assertSuccess(self.server.api("POST", f"/orders/{order_id}/items/retry-failed", key), 201)
        statuses = wait_orders_terminal(self.h, ids, timeout=240)
        self.assertTrue(set(statuses.values()) <= {"completed", "failed"}, statuses)
        self.assertIn("completed", set(statuses.values()), self.items_of(ids))
        self.assertEverythingCompletedIsStored(ids)
        self.assertServerAlive()


def wait_terminal_or_partial(test, ids, timeout=240.0):
    """Until no record of these orders is pending or processing and none is being stitched."""
    def settled():
        if any(status in ("pending", "processing") for _, status, _ in test.items_of(ids)):
            return False
        return test.h.psql_value(f"SELECT count(*) FROM orders WHERE stitch_until IS NOT NULL AND id IN {sql_ids(ids)}") == "0"
    test.assertTrue(poll(settled, timeout=timeout, interval=0.2), f"work did not settle: {test.items_of(ids)}")


class SlowS3Tests(S3Case):
    """Every piece of every S3 answer is held 0.3 s on its way back to the server."""
    start_server = False

    @classmethod
    def prepare(cls):
        port = urllib.parse.urlsplit(cls.h.files.client.endpoint).port
        cls.slow = SlowProxy(port, delay=0.3)
        env = {"MEDIAGEN_WORKERS": "2", "MEDIAGEN_SWEEP_INTERVAL_MS": "200", "AWS_ENDPOINT_URL": cls.slow.endpoint}
        cls.server = cls.h.start_server(env, name="behind-slow-proxy")
        cls.seed()

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls.slow.close()

    def tearDown(self):
        self.assertInvariants()

    def test_slow_answers_slow_the_work_down_and_lose_nothing(self):
        user, key = self.account(balance=1_000_000)
        template = self.template(key)
        ids = [self.order_of(key, template, SENTENCES[i:i + 3])["id"] for i in range(2)]
        statuses = wait_orders_terminal(self.h, ids, timeout=240)
        self.assertEqual(set(statuses.values()), {"completed"}, self.items_of(ids))
        self.assertEverythingCompletedIsStored(ids)
        self.assertGreater(self.slow.delayed, 0, "no S3 answer went through the slow proxy")
        order = self.server.api("GET", f"/orders/{ids[0]}", key).body["data"]
        path = order["result"]["files"][0]
        stored = self.h.files.read(path)
        target = self.link_target(self.server, key, path)
        got = self.server.request("GET", target, timeout=60)
        self.assertEqual((got.status, got.raw), (200, stored))
        part = self.server.request("GET", target, {"Range": f"bytes={len(stored) - 500}-"}, timeout=60)
        self.assertEqual((part.status, part.raw), (206, stored[-500:]))
        self.assertServerAlive()


if __name__ == "__main__":
    import unittest
    unittest.main()
