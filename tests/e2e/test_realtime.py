"""Realtime (spec 4.9, 6): stock pusher-js and Laravel Echo clients against the WebSocket endpoint
and POST /broadcasting/auth; order and preview events, refusals, several instances on one
PostgreSQL and Redis, and a raw `ws` client for the protocol's edges (malformed frames, limits,
keepalive, revoked keys, shutdown, socket churn, garbage on the Redis fan-out channel)."""

import json
import os
import secrets
import time
import unittest
import uuid

from harness import API, E2ETestCase, ISO_RE, fresh_ip, metric_sum, poll
from orders_support import TERMINAL_ORDER_STATUSES, OrderFixtures
from realtime_support import (APP_KEY, ITEM_KEYS, ORDER_KEYS, NodeClient, authorize, event_frame, order_channel,
                              preview_channel, publish_raw, realtime_env, rss_kib, run_churn, sign)

PARAGRAPH = {"generation_mode": "paragraph"}
PARAGRAPHS = [
    "The first paragraph of the order is read aloud by the speech engine.",
    "A second paragraph follows it, a little longer than the first one was.",
    "The third paragraph talks about the weather over the hills and the sea.",
    "And the fourth paragraph closes the text with a short and quiet goodbye.",
]
ORDER_TEXT = "\n\n".join(PARAGRAPHS)
ORDER_EVENTS = ("order.updated", "order.item.updated")


def order_events(client, channel):
    return [m for m in client.events(channel) if m["event"].lstrip(".") in ORDER_EVENTS]


def is_terminal_update(m, channel=None):
    return (m.get("type") == "event" and m["event"].lstrip(".") == "order.updated"
            and (channel is None or m["channel"] == channel)
            and isinstance(m.get("data"), dict) and m["data"].get("status") in TERMINAL_ORDER_STATUSES)


def subscribed(channel):
    return lambda m: m.get("type") in ("subscribed", "subscription_error") and m.get("channel") == channel


def unique_words(n_chars):
    """A text of about n_chars characters that no earlier run has sent (previews are cached)."""
    tag = secrets.token_hex(4)
    sentence = f"Sentence {tag} of a long text for the background preview goes here. "
    body = (sentence * (n_chars // len(sentence) + 1))[:n_chars - 1]
    return body[:-1] + "x." if body.endswith(" ") else body + "."


class RealtimeCase(OrderFixtures, E2ETestCase):
    """Shared checks of order event streams."""

    def assertOrderStream(self, client, channel, order):
        """The events one subscriber got on an order channel: a snapshot first, then every event
        with seq one more than the one before, the documented keys, and a final order.updated
        that matches GET /orders/{id}."""
        msgs = client.snapshot()
        events = order_events(client, channel)
        self.assertTrue(events, client.describe())
        first_event = msgs.index(events[0])
        ok = [i for i, m in enumerate(msgs) if m.get("type") == "subscribed" and m.get("channel") == channel]
        self.assertTrue(ok and ok[0] < first_event, "the snapshot follows subscription_succeeded" + client.describe())
        self.assertEqual(events[0]["event"].lstrip("."), "order.updated", "the first event is the order's snapshot")
        seqs = [e["data"].get("seq") for e in events]
        for s in seqs:
            self.assertIsInstance(s, int, client.describe())
        self.assertGreaterEqual(seqs[0], 0, "a snapshot before any event carries seq 0")
        self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))), "seq grows by one per event: " + ", ".join(
            f"{e['event'].lstrip('.')} {e['data'].get('status')} seq {e['data'].get('seq')}" for e in events))
        items = {i["id"]: i for i in order["items"]}
        last_item_status = {}
        for e in events:
            data = e["data"]
            self.assertEqual(data["order_id"], order["id"])
            if e["event"].lstrip(".") == "order.updated":
                terminal = data["status"] in TERMINAL_ORDER_STATUSES
                self.assertEqual(set(data), ORDER_KEYS | ({"result", "failure_reason"} if terminal else set()), data)
                self.assertEqual(data["task_type"], order["task_type"])
                self.assertRegex(data["updated_at"], ISO_RE)
            else:
                self.assertEqual(set(data), ITEM_KEYS, data)
                self.assertIn(data["item_id"], items, data)
                item = items[data["item_id"]]
                self.assertEqual(data["chunk_index"], item["chunk_index"])
                self.assertEqual(data["item_type"], item["item_type"])
                self.assertIsInstance(data["attempt_number"], int)
                last_item_status[data["item_id"]] = data["status"]
        final = events[-1]
        self.assertEqual(final["event"].lstrip("."), "order.updated", "the last event is the order's final state")
        self.assertEqual(final["data"]["status"], order["status"])
        self.assertEqual(final["data"]["result"], order["result"])
        self.assertEqual(final["data"]["updated_at"], order["updated_at"])
        for item_id, status in last_item_status.items():
            self.assertEqual(status, items[item_id]["status"], f"the last event of item {item_id}")
        return events

    def event_seq(self, order_id):
        return int(self.h.psql_value(f"SELECT event_seq FROM orders WHERE id = '{order_id}'"))

    def user_id(self, key):
        return self.assertSuccess(self.server.api("GET", "/user", key))["id"]


class RealtimeOrderTests(RealtimeCase):
    server_env = realtime_env(MEDIAGEN_WORKERS=2, MEDIAGEN_SWEEP_INTERVAL_MS=200)

    @classmethod
    def prepare(cls):
        cls.seed()

    def follow_order(self, mode):
        """Connects a client, creates a 4-chunk order, subscribes at once and waits for the end.
        Echo names the channel without its "private-" prefix and the events with a leading dot."""
        _, key = self.account(balance=10_000_000)
        template = self.template(key, "provider_b")
        with NodeClient(self.server, mode, key) as c:
            c.connected()
            created = self.assertSuccess(self.create(key, template, ORDER_TEXT, config_override=PARAGRAPH), 201)
            name = order_channel(created["id"])
            if mode == "echo":
                name = name[len("private-"):]
                c.subscribe(name, [".order.updated", ".order.item.updated"])
            else:
                c.subscribe(name)
            self.assertEqual(c.wait_for(subscribed(name), 30, "subscription")["type"], "subscribed", c.describe())
            order = self.wait_order(key, created["id"], TERMINAL_ORDER_STATUSES, timeout=180)
            c.wait_for(lambda m: is_terminal_update(m, name), 30, "terminal order.updated")
            return c, name, order, key

    def test_pusher_js_follows_an_order_to_completed(self):
        c, channel, order, key = self.follow_order("pusher")
        self.assertEqual(order["status"], "completed", order)
        events = self.assertOrderStream(c, channel, order)
        self.assertEqual(events[-1]["data"]["status"], "completed")
        self.assertIsNotNone(events[-1]["data"]["result"])
        item_events = [e for e in events if e["event"] == "order.item.updated"]
        self.assertTrue(item_events, "item events arrive while the chunks are produced" + c.describe())
        # The counter is the order's own, kept in PostgreSQL: nothing was sent past the last one seen.
        self.assertEqual(self.event_seq(order["id"]), events[-1]["data"]["seq"])
        # Only the frames of the subscribed channel were delivered.
        for f in c.frames():
            self.assertIn(f["channel"], (None, channel), f)

    def test_laravel_echo_listens_to_order_events(self):
        c, echo_name, order, _ = self.follow_order("echo")
        self.assertEqual(order["status"], "completed", order)
        events = self.assertOrderStream(c, echo_name, order)
        self.assertEqual({e["event"] for e in events}, {".order.updated", ".order.item.updated"})

    def test_a_late_subscriber_gets_the_final_state_at_once(self):
        _, key = self.account(balance=10_000_000)
        template = self.template(key, "provider_b")
        created = self.assertSuccess(self.create(key, template, PARAGRAPHS[0]), 201)
        order = self.wait_order(key, created["id"], {"completed"}, timeout=120)
        seq = self.event_seq(order["id"])
        self.assertGreater(seq, 0, "events were counted while the order ran")
        channel = order_channel(order["id"])
        for _ in range(2):  # a snapshot does not move the counter
            with NodeClient(self.server, "pusher", key) as c:
                c.connected()
                c.subscribe(channel)
                snap = c.wait_for(lambda m: m.get("type") == "event" and m["channel"] == channel, 30, "snapshot")
                self.assertEqual(snap["event"], "order.updated")
                self.assertEqual(snap["data"], {"order_id": order["id"], "status": "completed",
                                                "task_type": order["task_type"], "updated_at": order["updated_at"],
                                                "seq": seq, "result": order["result"],
                                                "failure_reason": order["failure_reason"]})
            self.assertEqual(self.event_seq(order["id"]), seq)

    def test_long_preview_announces_ready_on_the_users_channel(self):
        _, key = self.account()
        template = self.template(key, "provider_a")
        uid = self.user_id(key)
        channel = preview_channel(uid)
        with NodeClient(self.server, "pusher", key) as c:
            c.connected()
            c.subscribe(channel)
            self.assertEqual(c.wait_for(subscribed(channel), 30, "subscription")["type"], "subscribed", c.describe())
            text = unique_words(60_000)
            self.assertEqual(len(text), 60_000)
            r = self.server.api("POST", "/orders/chunks/preview", key,
                                body={"template_id": template, "input_text": text})
            data = self.assertSuccess(r, 202)
            self.assertEqual(data["status"], "processing")
            ready = c.wait_for(lambda m: m.get("type") == "event" and m["event"] == "ready", 120, "ready event")
        self.assertEqual(ready["channel"], channel)
        self.assertEqual(ready["data"], {"preview_id": data["preview_id"], "status": "ready"})
        got = self.assertSuccess(self.server.api("GET", f"/orders/chunks/preview/{data['preview_id']}", key))
        self.assertEqual(got["status"], "ready")

    # -- refusals

    def test_auth_endpoint_signs_only_what_the_key_may_read(self):
        owner, key = self.account(balance=10_000_000)
        other, other_key = self.account()
        template = self.template(key, "provider_b")
        order_id = self.assertSuccess(self.create(key, template, PARAGRAPHS[0]), 201)["id"]
        uid = self.user_id(key)
        socket_id = "1234.5678"
        own = order_channel(order_id)
        # The owner, with the form body pusher-js sends and with JSON.
        for form in (True, False):
            r = authorize(self.server, key, socket_id, own, form=form)
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.body, {"auth": sign(socket_id, own)})
        r = authorize(self.server, key, socket_id, preview_channel(uid))
        self.assertEqual(r.body, {"auth": sign(socket_id, preview_channel(uid))})
        r = authorize(self.server, key, socket_id, f"private-voice-clones.{uid}")
        self.assertEqual(r.body, {"auth": sign(socket_id, f"private-voice-clones.{uid}")})
        # Another account's order and a missing one answer alike.
        foreign = authorize(self.server, other_key, socket_id, own)
        missing = authorize(self.server, other_key, socket_id, order_channel(str(uuid.uuid4())))
        for r in (foreign, missing):
            body = self.assertJsonResponse(r, 403)
            self.assertEqual(set(body), {"success", "message", "data"})
            self.assertIs(body["success"], False)
            self.assertIsNone(body["data"])
            self.assertNotIn("auth", body)
        self.assertEqual(foreign.body, missing.body)
        self.assertEqual(authorize(self.server, other_key, socket_id, preview_channel(uid)).status, 403)
        # Each channel needs its scope; the reseller channel is not in the full preset.
        no_read = self.h.create_key(owner["id"], scopes="templates.read,voices.read")["key"]
        self.assert403(authorize(self.server, no_read, socket_id, own), "orders.read")
        self.assert403(authorize(self.server, no_read, socket_id, preview_channel(uid)), "orders.read")
        orders_only = self.h.create_key(owner["id"], scopes="orders.read")["key"]
        self.assert403(authorize(self.server, orders_only, socket_id, f"private-voice-clones.{uid}"), "voices.read")
        self.assert403(authorize(self.server, key, socket_id, f"private-reseller.codes.{uid}"), "reseller.read")
        # No key: the usual 401.
        self.assert401(authorize(self.server, None, socket_id, own), "missing")

    def test_auth_endpoint_validates_its_fields(self):
        _, key = self.account()
        uid = self.user_id(key)
        good = preview_channel(uid)
        cases = [
            ({"channel_name": good}, "socket_id"),
            ({"socket_id": "", "channel_name": good}, "socket_id"),
            ({"socket_id": "abc", "channel_name": good}, "socket_id"),
            ({"socket_id": "1.2.3", "channel_name": good}, "socket_id"),
            ({"socket_id": "1234.5678"}, "channel_name"),
            ({"socket_id": "1234.5678", "channel_name": "orders"}, "channel_name"),
            ({"socket_id": "1234.5678", "channel_name": "presence-order.task.x"}, "channel_name"),
            ({"socket_id": "1234.5678", "channel_name": "private-order.task.not-a-uuid"}, "channel_name"),
            ({"socket_id": "1234.5678", "channel_name": "private-unknown.1"}, "channel_name"),
        ]
        for body, field in cases:
            r = self.server.api("POST", "/broadcasting/auth", key, body=body)
            b = self.assertJsonResponse(r, 422)
            self.assertNotIn("success", b, (body, r))
            self.assertIsInstance(b.get("message"), str)
            self.assertIn(field, b["errors"], (body, r))

    def test_pusher_js_subscription_to_another_accounts_order_fails(self):
        _, key = self.account(balance=10_000_000)
        _, other_key = self.account()
        template = self.template(key, "provider_b")
        order_id = self.assertSuccess(self.create(key, template, PARAGRAPHS[1]), 201)["id"]
        channel = order_channel(order_id)
        with NodeClient(self.server, "pusher", other_key) as c:
            c.connected()
            c.subscribe(channel)
            err = c.wait_for(subscribed(channel), 30, "subscription result")
            self.assertEqual(err["type"], "subscription_error", c.describe())
            self.assertEqual(err["error"]["status"], 403, err)
            self.wait_order(key, order_id, TERMINAL_ORDER_STATUSES, timeout=120)
            self.assertEqual(c.events(channel), [])
            self.assertEqual(c.frames(channel=channel), [])

    def test_forged_signatures_are_refused_on_the_socket(self):
        user, key = self.account()
        uid = self.user_id(key)
        channel = preview_channel(uid)
        with NodeClient(self.server, "raw") as forger, NodeClient(self.server, "raw") as legit:
            sid = forger.connected()
            legit_sid = legit.connected()
            self.assertNotEqual(sid, legit_sid)
            real = sign(sid, channel)
            forgeries = [
                sign(legit_sid, channel),                                   # another socket's signature
                f"{APP_KEY}:{'0' * 64}",
                sign(sid, channel, secret="not-the-secret"),
                "other-app:" + real.split(":", 1)[1],                      # right digest, wrong app key
                real.upper(),
                real[:-1],
                real + "0",
                sign(sid, preview_channel(int(uid) + 1)),                  # signed for another channel
            ]
            for auth in forgeries:
                start = forger.index()
                forger.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth}})
                err = forger.wait_frame("pusher:subscription_error", start=start, channel=channel)
                self.assertEqual(err["data"]["type"], "AuthError", err)
                self.assertEqual(err["data"]["status"], 401, err)
                self.assertIsInstance(err["data"]["error"], str)
                forger.wait_frame("pusher:error", start=start, code=4009)
            # The legitimate socket subscribes (with a signature from the endpoint) and gets the event.
            r = authorize(self.server, key, legit_sid, channel)
            self.assertEqual(r.status, 200, r)
            legit.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": r.body["auth"]}})
            legit.wait_frame("pusher_internal:subscription_succeeded", channel=channel)
            payload = {"preview_id": "f" * 64, "status": "ready"}
            self.assertGreaterEqual(publish_raw(self.h, "bench " + event_frame(channel, "ready", payload)), 1)
            got = legit.wait_frame("ready", channel=channel)
            self.assertEqual(got["data"], payload)
            forger.round_trip()
            self.assertEqual([f for f in forger.frames(channel=channel) if f["event"] != "pusher:subscription_error"],
                             [], "nothing is delivered to a refused socket")
            self.assertFalse(forger.is_closed(), "a refused subscription leaves the socket open")

    # -- revocation

    def subscribe_through_endpoint(self, key, channel):
        c = NodeClient(self.server, "raw")
        sid = c.connected()
        r = authorize(self.server, key, sid, channel)
        self.assertEqual(r.status, 200, r)
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": r.body["auth"]}})
        c.wait_frame("pusher_internal:subscription_succeeded", channel=channel)
        return c

    def test_disabling_the_key_closes_its_sockets_with_4009(self):
        user = self.h.create_user()
        doomed = self.h.create_key(user["id"], preset="full")
        kept = self.h.create_key(user["id"], preset="full")
        channel = preview_channel(user["id"])
        with self.subscribe_through_endpoint(doomed["key"], channel) as a, \
                self.subscribe_through_endpoint(kept["key"], channel) as b:
            self.h.disable_key(doomed["id"])
            a.wait_frame("pusher:error", code=4009)
            self.assertEqual(a.wait_closed()["code"], 4009)
            b.round_trip()
            self.assertFalse(b.is_closed(), "a socket of another key of the same user stays")
            self.assertEqual(b.frames("pusher:error"), [])

    def test_blocking_the_user_closes_the_sockets_with_4009(self):
        user = self.h.create_user()
        key = self.h.create_key(user["id"], preset="full")
        bystander = self.h.create_user()
        other_key = self.h.create_key(bystander["id"], preset="full")
        with self.subscribe_through_endpoint(key["key"], preview_channel(user["id"])) as a, \
                self.subscribe_through_endpoint(other_key["key"], preview_channel(bystander["id"])) as b:
            self.h.block_user(user["id"])
            a.wait_frame("pusher:error", code=4009)
            self.assertEqual(a.wait_closed()["code"], 4009)
            b.round_trip()
            self.assertFalse(b.is_closed())


class RealtimeClusterTests(RealtimeCase):
    """Two instances on one database and Redis: A runs the workers, B only serves sockets."""

    server_env = realtime_env(MEDIAGEN_WORKERS=2, MEDIAGEN_SWEEP_INTERVAL_MS=200)

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.other = cls.h.start_server(realtime_env(MEDIAGEN_WORKERS=0), name=f"{cls.__name__}#B")

    def test_events_of_an_order_made_on_a_reach_a_client_on_b(self):
        _, key = self.account(balance=10_000_000)
        template = self.template(key, "provider_b")
        self.assertNotEqual(self.other.public_port, self.server.public_port)
        with NodeClient(self.other, "pusher", key) as on_b, NodeClient(self.server, "pusher", key) as on_a:
            on_b.connected()
            on_a.connected()
            created = self.assertSuccess(self.create(key, template, ORDER_TEXT, config_override=PARAGRAPH), 201)
            channel = order_channel(created["id"])
            for c in (on_b, on_a):
                c.subscribe(channel)
            for c in (on_b, on_a):
                self.assertEqual(c.wait_for(subscribed(channel), 30, "subscription")["type"], "subscribed",
                                 c.describe())
            order = self.wait_order(key, created["id"], TERMINAL_ORDER_STATUSES, timeout=180)
            for c in (on_b, on_a):
                c.wait_for(lambda m: is_terminal_update(m, channel), 30, "terminal order.updated")
            self.assertEqual(order["status"], "completed")
            events_b = self.assertOrderStream(on_b, channel, order)
            events_a = self.assertOrderStream(on_a, channel, order)
            self.assertEqual(events_b[-1]["data"]["seq"], events_a[-1]["data"]["seq"])
            self.assertEqual(events_b[-1]["data"]["seq"], self.event_seq(order["id"]))

    def test_a_key_disabled_closes_a_socket_on_b_that_a_authorized(self):
        """The grant travels from the instance that answered /broadcasting/auth to the one that
        holds the socket, in either order with the subscribe."""
        user = self.h.create_user()
        doomed = self.h.create_key(user["id"], preset="full")
        kept = self.h.create_key(user["id"], preset="full")
        channel = preview_channel(user["id"])
        sockets = []
        for key in (doomed, kept):
            c = NodeClient(self.other, "raw")
            sockets.append(c)
            sid = c.connected()
            r = authorize(self.server, key["key"], sid, channel)
            self.assertEqual(r.status, 200, r)
            c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": r.body["auth"]}})
            c.wait_frame("pusher_internal:subscription_succeeded", channel=channel)
        a, b = sockets
        try:
            self.h.disable_key(doomed["id"])
            a.wait_frame("pusher:error", code=4009)
            self.assertEqual(a.wait_closed()["code"], 4009)
            b.round_trip()
            self.assertFalse(b.is_closed(), "a socket of another key of the same user stays")
        finally:
            for c in sockets:
                c.stop()

    def test_preview_ready_from_a_reaches_b(self):
        _, key = self.account()
        template = self.template(key, "provider_a")
        channel = preview_channel(self.user_id(key))
        with NodeClient(self.other, "pusher", key) as c:
            c.connected()
            c.subscribe(channel)
            self.assertEqual(c.wait_for(subscribed(channel), 30, "subscription")["type"], "subscribed")
            data = self.assertSuccess(self.server.api("POST", "/orders/chunks/preview", key,
                                                      body={"template_id": template,
                                                            "input_text": unique_words(60_000)}), 202)
            ready = c.wait_for(lambda m: m.get("type") == "event" and m["event"] == "ready", 120, "ready event")
            self.assertEqual(ready["data"], {"preview_id": data["preview_id"], "status": "ready"})


def asan_options(**flags):
    """ASAN_OPTIONS of the caller plus flags (ignored by a binary built without ASan)."""
    base = os.environ.get("ASAN_OPTIONS", "")
    extra = ":".join(f"{k}={v}" for k, v in flags.items())
    return f"{base}:{extra}" if base else extra


class RealtimeProtocolTests(RealtimeCase):
    """A raw `ws` client against the protocol's edges."""

    # Freed memory is handed back at once, so that the resident size measures what is kept.
    server_env = realtime_env(ASAN_OPTIONS=asan_options(quarantine_size_mb=0))

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()
        cls.key = cls.h.create_key(cls.user["id"], preset="full")["key"]
        cls.channel = preview_channel(cls.user["id"])

    def raw(self, **options):
        c = NodeClient(self.server, "raw", **options)
        self.addCleanup(c.stop)
        return c

    def subscribed_raw(self, channel=None):
        channel = channel or self.channel
        c = self.raw()
        sid = c.connected()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": sign(sid, channel)}})
        c.wait_frame("pusher_internal:subscription_succeeded", channel=channel)
        return c

    def assertErrorCode(self, c, code, start):
        frame = c.wait_frame("pusher:error", start=start)
        self.assertEqual(frame["data"]["code"], code, c.describe())
        self.assertIsInstance(frame["data"].get("message"), str)
        return frame

    def test_connection_established(self):
        c = self.raw()
        msg = c.wait_for(lambda m: m.get("type") == "connected", 30, "connection_established")
        self.assertRegex(msg["socket_id"], r"^\d{1,20}\.\d{1,20}$")
        self.assertEqual(msg["activity_timeout"], 120)
        c.round_trip()
        pong = c.frames("pusher:pong")[-1]
        self.assertEqual(json.loads(pong["raw"]), {"event": "pusher:pong", "data": "{}"})

    def test_malformed_messages_get_4200_and_the_socket_stays(self):
        c = self.subscribed_raw()
        bad_texts = [
            "garbage",
            '{"event":',
            "[1, 2, 3]",
            '"a string"',
            "{}",
            '{"event": 5, "data": {}}',
            '{"event": "pusher:subscribe", "data": 5}',
            '{"event": "pusher:subscribe", "data": [1]}',
            '{"event": "pusher:nope", "data": {}}',
            '{"event": "nothing-known", "data": {}}',
        ]
        for text in bad_texts:
            start = c.index()
            c.send_text(text)
            self.assertErrorCode(c, 4200, start)
        start = c.index()
        c.send_binary(b"\x00\xff\x10binary")
        self.assertErrorCode(c, 4200, start)
        c.round_trip()
        self.assertFalse(c.is_closed())
        # Still subscribed: an event for the channel arrives.
        publish_raw(self.h, "bench " + event_frame(self.channel, "ready", {"preview_id": "a" * 64, "status": "ready"}))
        c.wait_frame("ready", channel=self.channel)

    def test_client_events_are_refused_with_4301_and_not_delivered(self):
        sender = self.subscribed_raw()
        listener = self.subscribed_raw()
        start = sender.index()
        sender.send_json({"event": "client-typing", "channel": self.channel, "data": {"text": "hello"}})
        self.assertErrorCode(sender, 4301, start)
        listener.round_trip()
        self.assertEqual(listener.frames("client-typing"), [])
        self.assertFalse(sender.is_closed())

    def test_a_frame_over_the_limit_closes_with_1009(self):
        c = self.raw()
        c.connected()
        c.send_size(10240)
        c.round_trip()
        self.assertFalse(c.is_closed(), "a frame of exactly the limit is read" + c.describe())
        self.assertEqual(c.frames("pusher:error"), [])
        c.send_size(10241)
        self.assertEqual(c.wait_closed()["code"], 1009)
        self.assertServerAlive()

    def test_subscriptions_without_valid_auth_are_refused(self):
        c = self.raw()
        c.connected()
        cases = [
            ({"channel": self.channel}, 401),
            ({"channel": self.channel, "auth": ""}, 401),
            ({"channel": "public-news"}, 403),
            ({"channel": "presence-room.1", "auth": "x:y", "channel_data": "{}"}, 403),
            ({"channel": "private-unknown.1", "auth": f"{APP_KEY}:{'0' * 64}"}, 403),
        ]
        for data, status in cases:
            start = c.index()
            c.send_json({"event": "pusher:subscribe", "data": data})
            err = c.wait_frame("pusher:subscription_error", start=start, channel=data["channel"])
            self.assertEqual(err["data"]["status"], status, err)
            self.assertEqual(err["data"]["type"], "AuthError")
            self.assertErrorCode(c, 4009, start)
        c.round_trip()
        self.assertFalse(c.is_closed())

    def test_wrong_app_key_and_protocol_are_refused(self):
        wrong = self.raw(path="/app/not-the-key")
        err = wrong.wait_frame("pusher:error")
        self.assertEqual(err["data"]["code"], 4001)
        self.assertEqual(wrong.wait_closed()["code"], 4001)
        self.assertEqual(wrong.frames("pusher:connection_established"), [])
        old = self.raw(query="protocol=4")
        err = old.wait_frame("pusher:error")
        self.assertEqual(err["data"]["code"], 4007)
        self.assertEqual(old.wait_closed()["code"], 4007)
        self.assertEqual(old.frames("pusher:connection_established"), [])
        for query in ("protocol=7&client=js&version=8.4.0&flash=false", "protocol=5", ""):
            self.raw(query=query).connected()

    def test_garbage_on_the_fanout_channel_is_dropped(self):
        c = self.subscribed_raw()
        dropped_before = self.fanout_dropped()
        valid = event_frame(self.channel, "ready", {"preview_id": "b" * 64, "status": "ready"})
        garbage = [
            "", "garbage", "bench", "bench ", " " + valid, "bench not-json", "bench [1]",
            'bench {"event": 5}',
            'bench {"event": "ready", "data": "{}"}',                                        # no channel
            json.dumps({"event": "ready", "channel": self.channel, "data": "{}"}),          # no origin
            "bench " + json.dumps({"event": "ready", "channel": self.channel, "data": {"x": 1}}),  # data not a string
            "bench " + json.dumps({"event": "pusher:error", "channel": self.channel, "data": "{}"}),
            "bench " + json.dumps({"event": "ready", "channel": "public-news", "data": "{}"}),
            b"bench \xff\xfe\x00",
            "x" * 100 + " " + valid,                                                         # origin too long
        ]
        for g in garbage:
            publish_raw(self.h, g)
        publish_raw(self.h, "bench " + valid)
        got = c.wait_frame("ready", channel=self.channel)
        self.assertEqual(got["data"], {"preview_id": "b" * 64, "status": "ready"})
        c.round_trip()
        app_frames = [f for f in c.frames() if not (f["event"] or "").startswith("pusher")]
        self.assertEqual(len(app_frames), 1, c.describe())
        self.assertServerAlive()
        dropped = poll(lambda: self.fanout_dropped() - dropped_before >= len(garbage), timeout=10)
        self.assertTrue(dropped, f"dropped messages counted: {self.fanout_dropped() - dropped_before}")

    def fanout_dropped(self):
        return metric_sum(self.server.metrics(), "mediagen_realtime_fanout_dropped_total")

    def test_many_sockets_opened_and_closed_leave_the_server_as_it_was(self):
        # Warm-up: the first round grows pools and caches to their working size.
        for _ in range(2):
            summary = run_churn(self.server, 1000, channel=self.channel)
            self.assertEqual(summary["failed"], 0, summary)
            self.assertEqual(summary["subscribed"], 1000, summary)
        pid = self.server.proc.pid
        poll(lambda: self.open_sockets() == 0, timeout=30)
        before = rss_kib(pid)
        for _ in range(2):
            summary = run_churn(self.server, 1000, channel=self.channel)
            self.assertEqual(summary["failed"], 0, summary)
            self.assertEqual(summary["subscribed"], 1000, summary)
        self.assertTrue(poll(lambda: self.open_sockets() == 0, timeout=30),
                        f"sockets still counted open: {self.open_sockets()}")
        after = rss_kib(pid)
        self.assertLess(after - before, 20 * 1024, f"resident size grew from {before} KiB to {after} KiB")
        self.assertServerAlive()
        c = self.subscribed_raw()
        publish_raw(self.h, "bench " + event_frame(self.channel, "ready", {"preview_id": "c" * 64, "status": "ready"}))
        c.wait_frame("ready", channel=self.channel)

    def open_sockets(self):
        return metric_sum(self.server.metrics(), "mediagen_ws_connections")


class RealtimeKeepaliveTests(RealtimeCase):
    """A server that pings after one silent second and waits one second for the answer."""

    server_env = realtime_env(MEDIAGEN_WS_ACTIVITY_TIMEOUT_SECONDS=1, MEDIAGEN_WS_PONG_TIMEOUT_SECONDS=1)

    def test_a_silent_client_is_closed_with_4201_and_an_answering_one_stays(self):
        _, key = self.account()
        with NodeClient(self.server, "raw", controlPong=False) as silent, \
                NodeClient(self.server, "raw", autoPong=True) as answering, \
                NodeClient(self.server, "pusher", key) as stock:
            self.assertEqual(silent.wait_for(lambda m: m.get("type") == "connected", 30, "connection")
                             ["activity_timeout"], 1)
            answering.connected()
            stock.connected()
            silent.wait_frame("pusher:ping")
            self.assertEqual(silent.wait_closed()["code"], 4201)
            answering.wait_count(lambda m: m.get("type") == "frame" and m.get("event") == "pusher:ping", 3,
                                 what="pings")
            self.assertFalse(answering.is_closed(), answering.describe())
            answering.round_trip()
            self.assertFalse(answering.is_closed())
            # pusher-js keeps its connection alive on its own.
            channel = preview_channel(self.user_id(key))
            stock.subscribe(channel)
            self.assertEqual(stock.wait_for(subscribed(channel), 30, "subscription")["type"], "subscribed")
            states = [m["current"] for m in stock.snapshot() if m.get("type") == "state"]
            self.assertEqual(states, ["connected"], stock.describe())


class RealtimeLimitsTests(RealtimeCase):
    """Connection and subscription caps, and what a shutdown tells the clients."""

    server_env = realtime_env(MEDIAGEN_WS_MAX_CONNECTIONS=3, MEDIAGEN_WS_MAX_SUBSCRIPTIONS=2)

    def test_connections_over_the_cap_get_4100(self):
        clients = [NodeClient(self.server, "raw") for _ in range(3)]
        try:
            for c in clients:
                c.connected()
            with NodeClient(self.server, "raw") as extra:
                err = extra.wait_frame("pusher:error")
                self.assertEqual(err["data"]["code"], 4100)
                self.assertEqual(extra.wait_closed()["code"], 4100)
                self.assertEqual(extra.frames("pusher:connection_established"), [])
            clients[0].close_socket()
            clients[0].wait_closed()
            replacement = None
            for _ in range(50):  # the slot is released when the server has seen the close
                with NodeClient(self.server, "raw") as again:
                    m = again.wait_for(lambda m: m.get("type") in ("connected", "closed"), 30, "an answer")
                    if m["type"] == "connected":
                        replacement = m
                        break
                time.sleep(0.1)
            self.assertIsNotNone(replacement, "a freed slot can be taken again")
        finally:
            for c in clients:
                c.stop()

    def test_subscriptions_over_the_cap_get_4302(self):
        c = NodeClient(self.server, "raw")
        self.addCleanup(c.stop)
        sid = c.connected()
        channels = [preview_channel(n) for n in (101, 102, 103)]
        for ch in channels[:2]:
            c.send_json({"event": "pusher:subscribe", "data": {"channel": ch, "auth": sign(sid, ch)}})
            c.wait_frame("pusher_internal:subscription_succeeded", channel=ch)
        start = c.index()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channels[2], "auth": sign(sid, channels[2])}})
        err = c.wait_frame("pusher:subscription_error", start=start, channel=channels[2])
        self.assertEqual(err["data"]["status"], 429)
        self.assertEqual(c.wait_frame("pusher:error", start=start)["data"]["code"], 4302)
        # Unsubscribing frees a place.
        c.send_json({"event": "pusher:unsubscribe", "data": {"channel": channels[0]}})
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channels[2], "auth": sign(sid, channels[2])}})
        c.wait_frame("pusher_internal:subscription_succeeded", channel=channels[2])

    def test_shutdown_tells_clients_to_reconnect_with_4200(self):
        server = self.h.start_server(realtime_env())
        with NodeClient(server, "raw") as c:
            sid = c.connected()
            ch = preview_channel(7)
            c.send_json({"event": "pusher:subscribe", "data": {"channel": ch, "auth": sign(sid, ch)}})
            c.wait_frame("pusher_internal:subscription_succeeded", channel=ch)
            server.signal()
            err = c.wait_frame("pusher:error")
            self.assertEqual(err["data"]["code"], 4200)
            self.assertEqual(c.wait_closed()["code"], 4200)
        self.assertEqual(server.wait_exit(30), 0)


if __name__ == "__main__":
    unittest.main()


class RealtimeBanTests(RealtimeCase):
    """The ban of repeated unknown paths (spec 8.1) covers the socket endpoint too."""

    server_env = realtime_env(MEDIAGEN_BAN_THRESHOLD=3, MEDIAGEN_BAN_WINDOW_SECONDS=60,
                              MEDIAGEN_BAN_LADDER_SECONDS="60,120", MEDIAGEN_TRUSTED_PROXIES="127.0.0.1")

    def test_a_banned_address_gets_4100_and_others_connect(self):
        banned = fresh_ip()
        for _ in range(3):
            self.assertEqual(self.server.request("GET", f"{API}/no-such-path", {"X-Forwarded-For": banned}).status,
                             404)
        self.assertEqual(self.server.request("GET", f"{API}/no-such-path", {"X-Forwarded-For": banned}).status, 429)
        # The socket resolves the address as the HTTP pipeline does: what the client writes left of
        # the entry our proxy appended changes nothing.
        for xff in (banned, f"{fresh_ip()}, {banned}"):
            with NodeClient(self.server, "raw", headers={"X-Forwarded-For": xff}) as refused:
                refused.wait_frame("pusher:error", code=4100)
                self.assertEqual(refused.wait_closed()["code"], 4100)
                self.assertEqual(refused.frames("pusher:connection_established"), [])
        with NodeClient(self.server, "raw", headers={"X-Forwarded-For": fresh_ip()}) as welcome:
            welcome.connected()
            welcome.round_trip()
            self.assertFalse(welcome.is_closed())
