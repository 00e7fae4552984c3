"""Grants that die with their key (spec 5, 6). An authorization from POST /broadcasting/auth binds
a socket, a channel and the key that asked for it: when it is used, the key must still be active
and unexpired and its user not blocked, or the subscription is refused (pusher:subscription_error
401, pusher:error 4009) and nothing of the channel arrives. Socket ids carry a random part, so no
authorization can be obtained for a socket before it exists."""

from datetime import datetime, timedelta, timezone

from harness import E2ETestCase, poll
from orders_support import OrderFixtures
from realtime_support import NodeClient, authorize, order_channel, preview_channel, realtime_env


def first_answer(channel):
    """The server's first answer to a subscription: success or refusal."""
    return lambda m: (m.get("type") == "frame" and m.get("channel") == channel
                      and m.get("event") in ("pusher_internal:subscription_succeeded", "pusher:subscription_error"))


class RealtimeGrantTests(OrderFixtures, E2ETestCase):
    # No workers: the order stays queued, and its snapshot is what a subscriber would get.
    server_env = realtime_env(MEDIAGEN_WORKERS=0)

    @classmethod
    def prepare(cls):
        cls.seed()

    def raw(self, server=None):
        c = NodeClient(server or self.server, "raw")
        self.addCleanup(c.stop)
        return c

    def watched_order(self, key, server=None):
        """A queued order of the key's account and its channel."""
        template = self.template(key)
        created = (server or self.server).api("POST", "/orders", key, body={
            "template_id": template, "input_text": "A short order whose channel is watched."})
        self.assertEqual(created.status, 201, created)
        return order_channel(created.body["data"]["id"])

    def granted(self, server, key, socket_id, channel):
        r = authorize(server, key, socket_id, channel)
        self.assertEqual(r.status, 200, r)
        return r.body["auth"]

    def wait_key_refused(self, key, server=None):
        """Until the server itself refuses the key on REST: its disable or expiry has reached it."""
        server = server or self.server
        r = poll(lambda: (lambda a: a if a.status == 401 else None)(server.api("GET", "/user", key)), timeout=30)
        self.assertIsNotNone(r, "the key is refused on GET /user")
        return r

    def assertSubscribes(self, c, channel, auth):
        start = c.index()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth}})
        answer = c.wait_for(first_answer(channel), 30, "the answer to the subscription", start=start)
        self.assertEqual(answer["event"], "pusher_internal:subscription_succeeded", c.describe())
        c.wait_frame("order.updated", start=start, channel=channel)

    def assertRefused(self, c, channel, auth):
        """Refused in the shape of every refused subscription; no snapshot, no event; the socket
        stays open."""
        start = c.index()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth}})
        answer = c.wait_for(first_answer(channel), 30, "the answer to the subscription", start=start)
        self.assertEqual(answer["event"], "pusher:subscription_error", c.describe())
        self.assertEqual(answer["data"]["type"], "AuthError")
        self.assertEqual(answer["data"]["status"], 401)
        self.assertEqual(c.wait_frame("pusher:error", start=start)["data"]["code"], 4009)
        c.round_trip()
        self.assertEqual(c.frames("pusher_internal:subscription_succeeded", channel=channel), [], c.describe())
        self.assertEqual(c.frames("order.updated", channel=channel), [], "no snapshot" + c.describe())
        self.assertFalse(c.is_closed(), c.describe())

    def test_a_grant_fetched_before_its_key_was_disabled_is_refused(self):
        user = self.h.create_user(balance=10_000_000)
        doomed = self.h.create_key(user["id"], preset="full")
        kept = self.h.create_key(user["id"], preset="full")
        channel = self.watched_order(doomed["key"])
        a, b = self.raw(), self.raw()
        auth_a = self.granted(self.server, doomed["key"], a.connected(), channel)
        auth_b = self.granted(self.server, kept["key"], b.connected(), channel)

        self.h.disable_key(doomed["id"])
        self.wait_key_refused(doomed["key"])
        self.assertRefused(a, channel, auth_a)
        # Another key of the same account, granted the same channel, still subscribes.
        self.assertSubscribes(b, channel, auth_b)

    def test_a_grant_whose_key_the_cache_does_not_hold_is_checked_in_the_database(self):
        # Without a key cache every check reads PostgreSQL; a key disabled in SQL alone (no
        # invalidation) is seen there.
        server = self.h.start_server(realtime_env(MEDIAGEN_WORKERS=0, MEDIAGEN_KEY_CACHE_TTL_SECONDS=0))
        user = self.h.create_user(balance=10_000_000)
        doomed = self.h.create_key(user["id"], preset="full")
        kept = self.h.create_key(user["id"], preset="full")
        channel = self.watched_order(doomed["key"], server)
        a, b = self.raw(server), self.raw(server)
        auth_a = self.granted(server, doomed["key"], a.connected(), channel)
        auth_b = self.granted(server, kept["key"], b.connected(), channel)

        self.h.psql(f"UPDATE api_keys SET disabled_at = now() WHERE id = {int(doomed['id'])}")
        self.wait_key_refused(doomed["key"], server)
        self.assertRefused(a, channel, auth_a)
        self.assertSubscribes(b, channel, auth_b)

    def test_a_grant_for_a_socket_that_does_not_exist_yet_is_of_no_use(self):
        user = self.h.create_user(balance=10_000_000)
        key = self.h.create_key(user["id"], preset="full")
        channel = self.watched_order(key["key"])
        first = self.raw()
        origin, serial = first.connected().split(".")
        # What the next socket's id would be if ids were counted.
        predicted = f"{origin}.{int(serial) + 1}"
        minted = self.granted(self.server, key["key"], predicted, channel)

        self.h.disable_key(key["id"])
        self.wait_key_refused(key["key"])
        later = self.raw()
        later_id = later.connected()
        self.assertRefused(later, channel, minted)
        self.assertNotEqual(later_id, predicted)

    def test_a_grant_used_after_its_key_expired_is_refused(self):
        user = self.h.create_user(balance=10_000_000)
        # The key's own deadline, a few seconds ahead: long enough to create an order and be
        # granted its channel, short enough to wait for.
        expires = (datetime.now(timezone.utc) + timedelta(seconds=6)).replace(microsecond=0)
        key = self.h.create_key(user["id"], preset="full", expires_at=expires.isoformat())
        channel = self.watched_order(key["key"])
        c = self.raw()
        auth = self.granted(self.server, key["key"], c.connected(), channel)

        self.assert401(self.wait_key_refused(key["key"]), "expired")
        self.assertRefused(c, channel, auth)

    def test_an_authorization_whose_grant_the_socket_dropped_is_refused(self):
        # Two unused grants per socket at most: a third drops the oldest, whose authorization then
        # cannot subscribe unchecked.
        server = self.h.start_server(realtime_env(MEDIAGEN_WORKERS=0, MEDIAGEN_WS_MAX_SUBSCRIPTIONS=2))
        user = self.h.create_user(balance=10_000_000)
        key = self.h.create_key(user["id"], preset="full")["key"]
        order = self.watched_order(key, server)
        c = self.raw(server)
        sid = c.connected()
        channels = [preview_channel(user["id"]), f"private-voice-clones.{user['id']}", order]
        auths = [self.granted(server, key, sid, ch) for ch in channels]

        start = c.index()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": channels[0], "auth": auths[0]}})
        answer = c.wait_for(first_answer(channels[0]), 30, "the answer to the subscription", start=start)
        self.assertEqual(answer["event"], "pusher:subscription_error", c.describe())
        self.assertEqual(answer["data"]["status"], 401)
        self.assertEqual(c.wait_frame("pusher:error", start=start)["data"]["code"], 4009)
        for ch, auth in zip(channels[1:], auths[1:]):
            c.send_json({"event": "pusher:subscribe", "data": {"channel": ch, "auth": auth}})
            c.wait_frame("pusher_internal:subscription_succeeded", channel=ch)
        c.wait_frame("order.updated", channel=order)
