"""Realtime through a Redis outage (reliability matrix: sockets stay, local events still flow,
cross-instance fan-out resumes, polling works). Two instances share PostgreSQL and a Redis of
this module's own, which the test stops and starts again."""

from harness import E2ETestCase, poll
from fault_support import PrivateRedis
from orders_support import TERMINAL_ORDER_STATUSES, OrderFixtures
from realtime_support import NodeClient, order_channel, realtime_env

PARAGRAPHS = [
    "The first paragraph is spoken while the cache is still there.",
    "The second paragraph is spoken while the cache may be away.",
    "The third paragraph is spoken around the time it comes back.",
    "The fourth paragraph is spoken after everything has settled.",
    "The fifth paragraph closes the order with a quiet goodbye.",
]
ENGINE_DELAY_MS = 2500


class RealtimeRedisOutageTests(OrderFixtures, E2ETestCase):
    @classmethod
    def setUpClass(cls):
        cls.redis = PrivateRedis()
        cls.redis.start()
        cls.server_env = realtime_env(MEDIAGEN_REDIS_URL=cls.redis.url, MEDIAGEN_WORKERS=1,
                                      MEDIAGEN_ENGINE_DELAY_MS=ENGINE_DELAY_MS)
        try:
            super().setUpClass()
        except BaseException:
            cls.redis.remove()
            raise

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.other = cls.h.start_server(realtime_env(MEDIAGEN_REDIS_URL=cls.redis.url, MEDIAGEN_WORKERS=0),
                                       name=f"{cls.__name__}#B")

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls.redis.remove()

    def test_sockets_stay_and_events_resume_across_an_outage(self):
        _, key = self.account(balance=10_000_000)
        template = self.template(key, "provider_b")
        created = self.assertSuccess(
            self.create(key, template, "\n\n".join(PARAGRAPHS), config_override={"generation_mode": "paragraph"}),
            201)
        channel = order_channel(created["id"])
        with NodeClient(self.other, "pusher", key) as on_b, NodeClient(self.server, "pusher", key) as on_a:
            for c in (on_a, on_b):
                c.connected()
                c.subscribe(channel)
                c.wait_for(lambda m: m.get("type") == "subscribed" and m.get("channel") == channel, 30,
                           "subscription")

            self.redis.stop()
            outage_start = on_a.index()
            # The workers of A go on: A's own subscriber sees their events without Redis.
            on_a.wait_for(lambda m: m.get("type") == "event" and m.get("channel") == channel, 30,
                          "an event on A while Redis is down", start=outage_start)
            # Polling still answers on both instances.
            for server in (self.server, self.other):
                self.assertEqual(server.api("GET", f"/orders/{created['id']}", key).status, 200)
            self.assertFalse(on_a.is_closed(), on_a.describe())
            self.assertFalse(on_b.is_closed(), on_b.describe())

            self.redis.start()
            order = self.wait_order(key, created["id"], TERMINAL_ORDER_STATUSES, timeout=120)
            self.assertEqual(order["status"], "completed")
            # B's subscriber reconnected, and the final state crossed over to it.
            final = on_b.wait_for(
                lambda m: m.get("type") == "event" and m.get("channel") == channel
                and m["event"] == "order.updated" and m["data"].get("status") == "completed", 60,
                "the final order.updated on B after Redis returned")
            self.assertEqual(final["data"]["seq"], int(self.h.psql_value(
                f"SELECT event_seq FROM orders WHERE id = '{created['id']}'")))
            self.assertFalse(on_b.is_closed(), on_b.describe())
            # Whatever B saw, it saw in seq order; A saw every event.
            seqs_b = [m["data"]["seq"] for m in on_b.events(channel)]
            self.assertEqual(seqs_b, sorted(set(seqs_b)))
            seqs_a = [m["data"]["seq"] for m in on_a.events(channel)]
            self.assertEqual(seqs_a, list(range(seqs_a[0], seqs_a[0] + len(seqs_a))))


if __name__ == "__main__":
    import unittest
    unittest.main()
