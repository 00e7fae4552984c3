"""No input can stop the server: a refused channel name cut inside a character, a request whose
handler fails, and a socket whose subscription fails end only that request or socket; the process,
its other sockets and HTTP go on, and each contained failure is counted on /metrics.

The failures here are real: the handler and the subscription snapshot read a table that the test
has renamed away for a moment, so PostgreSQL answers them with an error the code does not expect.
"""

import json

from harness import E2ETestCase, metric_sum
from orders_support import OrderFixtures
from realtime_support import NodeClient, authorize, order_channel, preview_channel, realtime_env, sign

# The cap on a channel name (src/realtime/channel.hpp: kMaxChannelName).
CAP = 200


def contained(server, boundary):
    return metric_sum(server.metrics(), "mediagen_contained_failures_total", boundary=boundary)


class NoInputStopsTheServer(OrderFixtures, E2ETestCase):
    server_env = realtime_env(MEDIAGEN_WORKERS="0")

    @classmethod
    def prepare(cls):
        cls.seed()

    def raw(self):
        c = NodeClient(self.server, "raw")
        self.addCleanup(c.stop)
        return c

    def assertServing(self, key, channel):
        """HTTP answers, an authenticated request works, and a new socket subscribes."""
        self.assertServerAlive()
        self.assertEqual(self.server.api("GET", "/user", key).status, 200)
        c = self.raw()
        sid = c.connected()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": sign(sid, channel)}})
        c.wait_frame("pusher_internal:subscription_succeeded", channel=channel)

    def test_a_refused_channel_name_cut_inside_a_character(self):
        user, key = self.account()
        failures_before = contained(self.server, "socket")
        bystander = self.raw()
        bystander.connected()
        c = self.raw()
        c.connected()
        # 199 ASCII bytes, then a 2-, 3- and 4-byte character across the 200-byte cut (the frame
        # that once ended the process), and names of every length around the cap.
        names = ["a" * (CAP - 1) + ch for ch in ("é", "€", "😀")]
        names += ["é" * n for n in (99, 100, 101)] + ["€" * n for n in (66, 67)] + ["😀" * n for n in (49, 50, 51)]
        names += ["private-order.task." + "ж" * 100, "b" * 5000]
        for name in names:
            start = c.index()
            c.send_text(json.dumps({"event": "pusher:subscribe", "data": {"channel": name, "auth": "x:y"}},
                                   ensure_ascii=False))
            err = c.wait_frame("pusher:subscription_error", start=start)
            self.assertEqual(err["data"]["status"], 403, err)
            echoed = err["channel"]
            # What comes back is the name, cut at a character boundary within the cap.
            if len(name.encode("utf-8")) <= CAP:
                self.assertEqual(echoed, name)
            else:
                self.assertTrue(name.startswith(echoed), (name[:20], echoed[:20]))
                self.assertLessEqual(len(echoed.encode("utf-8")), CAP)
                self.assertGreater(len(echoed.encode("utf-8")), CAP - 4)
            frame = c.wait_frame("pusher:error", start=start)
            self.assertEqual(frame["data"]["code"], 4009)
        c.round_trip()
        self.assertFalse(c.is_closed(), c.describe())
        bystander.round_trip()
        self.assertFalse(bystander.is_closed())
        self.assertServing(key, preview_channel(user["id"]))
        self.assertEqual(contained(self.server, "socket"), failures_before, "a refusal is no failure")

    def test_a_failing_handler_ends_that_request_only(self):
        user, key = self.account()
        before = contained(self.server, "request")
        self.h.psql("ALTER TABLE orders RENAME TO orders_away")
        try:
            r = self.server.api("GET", "/orders", key)
        finally:
            self.h.psql("ALTER TABLE orders_away RENAME TO orders")
        self.assertEqual(r.status, 500, r)
        self.assertEqual(r.body, {"success": False, "message": "Internal server error."})
        self.assertEqual(contained(self.server, "request"), before + 1)
        self.assertEqual(self.server.api("GET", "/orders", key).status, 200)
        self.assertServing(key, preview_channel(user["id"]))

    def test_a_failing_subscription_ends_that_socket_only(self):
        user, key = self.account(balance=10_000_000)
        template = self.template(key)
        created = self.create(key, template, "A short order whose channel is subscribed.")
        self.assertEqual(created.status, 201, created)
        channel = order_channel(created.body["data"]["id"])
        bystander = self.raw()
        bystander_sid = bystander.connected()
        preview = preview_channel(user["id"])
        bystander.send_json({"event": "pusher:subscribe",
                             "data": {"channel": preview, "auth": sign(bystander_sid, preview)}})
        bystander.wait_frame("pusher_internal:subscription_succeeded", channel=preview)

        c = self.raw()
        sid = c.connected()
        auth = authorize(self.server, key, sid, channel)
        self.assertEqual(auth.status, 200, auth)
        before = contained(self.server, "socket")
        # The snapshot of the order cannot be read: that socket is closed with 1011 (the client
        # reconnects and gets one), and nothing else notices.
        self.h.psql("ALTER TABLE orders RENAME TO orders_away")
        try:
            c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth.body["auth"]}})
            closed = c.wait_closed()
        finally:
            self.h.psql("ALTER TABLE orders_away RENAME TO orders")
        self.assertEqual(closed["code"], 1011, c.describe())
        self.assertEqual(contained(self.server, "socket"), before + 1)
        bystander.round_trip()
        self.assertFalse(bystander.is_closed(), bystander.describe())
        # The same subscription on a new socket gets its snapshot.
        again = self.raw()
        sid = again.connected()
        auth = authorize(self.server, key, sid, channel)
        again.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth.body["auth"]}})
        again.wait_frame("pusher_internal:subscription_succeeded", channel=channel)
        again.wait_frame("order.updated", channel=channel)
        self.assertServing(key, preview)
