"""The webhook outbox under failure and load: a server killed (-9) with messages waiting loses
none and repeats only with the same webhook-id; two instances deliver each message once; a
receiver that never answers delays nobody else. The messages are written as the triggers write
them (migrations/0021), straight into the outbox, so that each test starts with exactly the
messages it names."""

import json
import signal
import time
import unittest
import uuid

from harness import E2ETestCase, metric_sum
from orders_support import OrderFixtures
from realtime_support import NodeClient, order_channel, realtime_env
from webhook_support import ReceiverFixtures, bodies

TEXT = "The quick brown fox jumps over the lazy dog. A gentle breeze carried the smell of bread."


class OutboxTests(ReceiverFixtures, OrderFixtures, E2ETestCase):
    start_server = False
    timeout_ms = 3000

    def tearDown(self):
        # Each test starts its own servers; a server left running would deliver beside the next
        # test's (each instance takes its own share of a URL's slots).
        for server in self.h.servers:
            if server.alive():
                server.stop_checked()

    def endpoint(self, kind):
        user = self.h.create_user(email=f"outbox-{uuid.uuid4()}@example.com")
        path = f"/{kind}/{uuid.uuid4()}"
        made = self.h.cli("admin", "webhook", "add", "--user", str(user["id"]), "--url", self.receiver.base + path,
                          "--events", "gift_code.updated", extra_env=self.env)
        return made, path

    def fill_outbox(self, endpoint, n):
        """n messages to the endpoint, with their data, as the gift-code trigger writes them."""
        self.h.psql(
            "INSERT INTO webhook_messages (event_no, user_id, endpoint_id, subject_id, type, url, payload,"
            " next_attempt_at)"
            f" SELECT nextval('webhook_event_no'), {endpoint['user_id']}, {endpoint['id']}, gen_random_uuid()::text,"
            f" 'gift_code.updated', '{endpoint['url']}', json_build_object('n', g)::text, now()"
            f" FROM generate_series(1, {n}) g")
        return set(self.h.psql_value(
            f"SELECT string_agg(id::text, ',') FROM webhook_messages WHERE endpoint_id = {endpoint['id']}").split(","))

    def delivered(self, endpoint):
        return int(self.h.psql_value(
            f"SELECT count(*) FROM webhook_messages WHERE endpoint_id = {endpoint['id']} AND status = 'delivered'"))

    def wait_delivered(self, endpoint, n, timeout=120.0):
        deadline = time.monotonic() + timeout
        while self.delivered(endpoint) < n:
            if time.monotonic() >= deadline:
                raise AssertionError(f"{self.delivered(endpoint)} of {n} delivered: "
                                     + self.h.psql("SELECT status, attempts, count(*) FROM webhook_messages"
                                                   f" WHERE endpoint_id = {endpoint['id']} GROUP BY 1, 2"))
            time.sleep(0.2)

    def test_kill_9_with_200_messages_waiting_loses_none(self):
        made, path = self.endpoint("slow/150")
        ids = self.fill_outbox(made, 200)
        self.assertEqual(len(ids), 200)
        server = self.h.start_server(self.env)
        self.receiver.wait(lambda ds: len(ds) >= 20, path, what="the first deliveries")
        server.signal(signal.SIGKILL)
        server.wait_exit(10)
        at_kill = len(self.receiver.log(path))
        self.assertLess(at_kill, 200, "the kill came after every delivery: nothing was tested")
        self.h.start_server(self.env)
        self.wait_delivered(made, 200)
        got = self.receiver.log(path)
        received = {d["headers"]["webhook-id"] for d in got}
        self.assertEqual(received, ids, "a message was lost, or one nobody wrote arrived")
        for i in received:
            copies = [d for d in got if d["headers"]["webhook-id"] == i]
            self.assertEqual(len({d["body"] for d in copies}), 1, "a repeat carries the same body under its id")
        for d in got:
            ok, error = self.receiver.verify(d, made["secret"])
            self.assertTrue(ok, error)

    def test_two_instances_deliver_500_messages_once_each(self):
        made, path = self.endpoint("ok")
        ids = self.fill_outbox(made, 500)
        a = self.h.start_server(self.env, wait=False)
        b = self.h.start_server(self.env, wait=False)
        a.wait_listening()
        b.wait_listening()
        self.wait_delivered(made, 500)
        got = self.receiver.log(path)
        self.assertEqual(sorted(d["headers"]["webhook-id"] for d in got), sorted(ids),
                         "each message exactly once when no attempt failed")
        self.assertEqual(self.h.psql_value(
            "SELECT count(*) FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id"
            f" WHERE m.endpoint_id = {made['id']} AND a.status_code IS DISTINCT FROM 200"), "0")
        self.assertEqual(self.h.psql_value(
            "SELECT count(*) FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id"
            f" WHERE m.endpoint_id = {made['id']}"), "500")

    def test_a_receiver_that_never_answers_delays_nobody_else(self):
        self.seed()
        stalled, stall_path = self.endpoint("stall")
        self.fill_outbox(stalled, 40)
        # Attempts that outlast the whole test: whatever happens meanwhile happens beside them.
        server = self.h.start_server({**self.env, **realtime_env(), "MEDIAGEN_WEBHOOK_TIMEOUT_MS": "60000"})
        self.server = server
        # Every slot that URL may take is held by an attempt that will not be answered.
        self.receiver.wait(lambda ds: len(ds) >= 4, stall_path, what="the stalled attempts")
        first_stalled = min(d["at"] for d in self.receiver.log(stall_path))

        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        ok_path = f"/ok/{uuid.uuid4()}"
        r = self.create(key, template, TEXT, webhook=self.receiver.base + ok_path)
        self.assertEqual(r.status, 201, r)
        order_id = r.body["data"]["id"]
        channel = order_channel(order_id)
        # The realtime channel of the order, beside the stalled attempts: its events still come.
        with NodeClient(server, "pusher", key) as c:
            c.connected()
            c.subscribe(channel)
            done = c.wait_for(lambda m: m.get("type") == "event" and m["channel"] == channel
                              and m["event"].lstrip(".") == "order.updated"
                              and m["data"].get("status") == "completed", 60, "the completed event")
        self.assertEqual(done["data"]["order_id"], order_id)
        # A webhook's data is the realtime event's, seq and all.
        self.assertIn(done["data"], [b["data"] for b in bodies(
            self.receiver.wait(lambda ds: any(b["data"] == done["data"] for b in bodies(ds)), ok_path))])
        self.wait_order(key, order_id, ("completed",))
        got = self.receiver.wait(lambda ds: any(b["data"]["status"] == "completed" for b in bodies(ds)), ok_path)
        # Everything else went on while the stalled attempts were still open: none had timed out.
        self.assertEqual(self.h.psql_value(
            "SELECT count(*) FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id"
            f" WHERE m.endpoint_id = {stalled['id']}"), "0")
        self.assertLess(max(d["at"] for d in got), first_stalled + 60000)
        self.assertEqual(len(self.receiver.log(stall_path)), 4, "one URL takes at most 4 slots")
        metrics = server.metrics()
        self.assertEqual(metric_sum(metrics, "mediagen_webhook_attempts_in_flight"), 4)
        self.assertGreaterEqual(metric_sum(metrics, "mediagen_webhook_attempts_total", outcome="delivered"), 1)
        self.assertGreaterEqual(metric_sum(metrics, "mediagen_webhook_delivery_delay_seconds_count"), 1)

    def test_a_message_whose_event_was_never_published_is_rendered_by_the_deliverer(self):
        """The instance that committed a change died before its publisher filled in the message's
        data: the message is in the outbox without data. After the grace, a deliverer renders the
        event itself, with a seq of its own, and delivers it."""
        self.seed()
        server = self.h.start_server(self.env)
        self.server = server
        user, key = self.account(balance=1_000_000)
        template = self.template(key)
        r = self.create(key, template, TEXT)
        self.assertEqual(r.status, 201, r)
        order_id = r.body["data"]["id"]
        self.wait_order(key, order_id, ("completed",))
        path = f"/ok/{uuid.uuid4()}"
        url = self.receiver.base + path
        seq_before = int(self.h.psql_value(f"SELECT event_seq FROM orders WHERE id = '{order_id}'"))
        self.h.psql(
            f"INSERT INTO order_webhooks (order_id, url, events) VALUES ('{order_id}', '{url}', '{{order.updated}}');"
            "INSERT INTO webhook_messages (event_no, user_id, order_id, subject_id, type, url, next_attempt_at)"
            f" VALUES (nextval('webhook_event_no'), {user['id']}, '{order_id}', '{order_id}', 'order.updated', '{url}',"
            " now()); SELECT pg_notify('mediagen_webhooks', '')")
        got = self.receiver.wait(lambda ds: len(ds) == 1, path)
        data = bodies(got)[0]["data"]
        self.assertEqual(data["order_id"], order_id)
        self.assertEqual(data["status"], "completed")
        self.assertEqual(data["seq"], seq_before + 1, "rendered with a seq of its own")
        ok, error = self.receiver.verify(got[0], self.h.psql_value(
            f"SELECT secret FROM webhook_secrets WHERE user_id = {user['id']}"))
        self.assertTrue(ok, error)

    def test_an_endpoint_whose_messages_keep_failing_is_disabled(self):
        failing, path = self.endpoint("status/500")
        self.fill_outbox(failing, 12)
        server = self.h.start_server(self.env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            listed = self.h.cli("admin", "webhook", "list", "--user", str(failing["user_id"]))
            if not listed[0]["enabled"]:
                break
            time.sleep(0.2)
        self.assertFalse(listed[0]["enabled"], listed)
        self.assertEqual(listed[0]["disabled_reason"], "failing")
        self.assertTrue(any("webhook endpoint disabled" in line for line in server.log_lines()),
                        "the disabling is logged")
        failed = self.h.cli("admin", "webhook", "deliveries", "--id", str(failing["id"]), "--status", "failed")
        self.assertGreaterEqual(len(failed), 10)
        for m in failed:
            self.assertEqual(m["status"], "failed")
        # Each ended after the whole schedule (three attempts, each answered 500).
        ended = [m for m in failed if len(m["attempts"]) == 3]
        self.assertGreaterEqual(len(ended), 10)
        for m in ended:
            self.assertEqual([a["status_code"] for a in m["attempts"]], [500, 500, 500])
        # Once disabled, nothing more is sent: what is left ends failed without an attempt.
        sent = len(self.receiver.log(path))
        self.wait_finished(failing)
        self.assertEqual(len(self.receiver.log(path)), sent)

    def wait_finished(self, endpoint, timeout=60.0):
        deadline = time.monotonic() + timeout
        while self.h.psql_value(f"SELECT count(*) FROM webhook_messages WHERE endpoint_id = {endpoint['id']}"
                                " AND status = 'pending'") != "0":
            self.assertLess(time.monotonic(), deadline, "messages still pending")
            time.sleep(0.2)


if __name__ == "__main__":
    unittest.main()
