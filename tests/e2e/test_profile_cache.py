"""GET /user's profile cache (openapi /user): with a TTL far longer than any test, only the
announcements can explain what a cached profile shows. A change is visible at once on the
instance that committed it, on another instance once its signed announcement arrives, after an
operator CLI change on every instance; a forged announcement drops nothing."""

import unittest

from harness import E2ETestCase, poll
from orders_support import OrderFixtures
from realtime_support import redis_command
from test_control_plane import INVALIDATION_KEY_LABEL, signed

TEXT = "A short order whose price is locked from the wallet."


class ProfileCacheTests(OrderFixtures, E2ETestCase):
    # No workers: an order stays queued with its money locked, and nothing else moves.
    server_env = {"MEDIAGEN_PROFILE_CACHE_TTL_SECONDS": "3600", "MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.other = cls.h.start_server(cls.server_env, name="second")

    def shown_balance(self, server, key):
        return int(self.assertSuccess(server.api("GET", "/user", key))["balance"]["amount"])

    def shown_name(self, server, key):
        return self.assertSuccess(server.api("GET", "/user", key))["name"]

    def ordered(self, server, key):
        """Creates an order through `server`; returns the price locked from the wallet."""
        template = self.template(key)
        price = self.price_of(key, template, TEXT)
        r = server.api("POST", "/orders", key, body={"template_id": template, "input_text": TEXT})
        self.assertEqual(r.status, 201, r)
        self.assertGreater(price, 0)
        return price

    def test_an_order_shows_in_the_next_profile_of_the_instance_that_took_it(self):
        user, key = self.account(balance=100_000)
        self.assertEqual(self.shown_balance(self.server, key), 100_000)  # cached now
        price = self.ordered(self.server, key)
        self.assertEqual(self.balance(user["id"]), 100_000 - price)
        # No waiting: the commit itself dropped the entry on this instance.
        self.assertEqual(self.shown_balance(self.server, key), 100_000 - price)

    def test_an_order_on_another_instance_reaches_this_ones_profile(self):
        user, key = self.account(balance=100_000)
        self.assertEqual(self.shown_balance(self.server, key), 100_000)
        price = self.ordered(self.other, key)
        after = 100_000 - price
        self.assertEqual(self.balance(user["id"]), after)
        self.assertEqual(self.shown_balance(self.other, key), after)
        self.assertEqual(poll(lambda: self.shown_balance(self.server, key) == after, timeout=5), True,
                         "the other instance's announcement did not drop the cached profile")

    def test_an_operator_change_reaches_every_instance(self):
        user, key = self.account(balance=100)
        for server in (self.server, self.other):
            self.assertEqual(self.shown_balance(server, key), 100)
        self.h.cli("admin", "user", "balance", "--user", user["id"], "--add", 250)
        for server in (self.server, self.other):
            self.assertEqual(poll(lambda: self.shown_balance(server, key) == 350, timeout=5), True, server.name)
        self.h.cli("admin", "subscription", "grant", "--user", str(user["id"]), "--plan", "starter")
        for server in (self.server, self.other):
            shown = poll(lambda: self.assertSuccess(server.api("GET", "/user", key))["plan"], timeout=5)
            self.assertEqual(shown and shown["code"], "starter", server.name)

    def test_a_forged_announcement_drops_nothing(self):
        (first, first_key), (second, second_key) = self.account(), self.account()
        for key in (first_key, second_key):
            self.assertEqual(self.shown_name(self.server, key), "")
        # Renamed behind the cache's back: only an announcement makes the server read again.
        ids = f"{int(first['id'])}, {int(second['id'])}"
        self.h.psql(f"UPDATE users SET name = 'Renamed' WHERE id IN ({ids})")
        channel = f"{self.h.redis_prefix}keys:invalidate"
        secret = self.h.env()["MEDIAGEN_SECRET"]
        forgeries = [
            f"profile {first['id']}".encode(),
            signed(f"profile {first['id']}", "not-the-secret", INVALIDATION_KEY_LABEL),
            signed(f"profile {first['id']}", secret, b"mediagen ban events v1"),
            signed(f"profile {second['id']}", secret, INVALIDATION_KEY_LABEL)[:65] + f"profile {first['id']}".encode(),
        ]
        for message in forgeries:
            redis_command(self.h.redis_url, "PUBLISH", channel, message)
        # Then a real one for the second account: once it is applied, every forgery before it was
        # read (one channel, in order).
        redis_command(self.h.redis_url, "PUBLISH", channel,
                      signed(f"profile {second['id']}", secret, INVALIDATION_KEY_LABEL))
        self.assertEqual(poll(lambda: self.shown_name(self.server, second_key) == "Renamed", timeout=5), True)
        self.assertEqual(self.shown_name(self.server, first_key), "", "a forged announcement dropped a profile")
        redis_command(self.h.redis_url, "PUBLISH", channel,
                      signed(f"profile {first['id']}", secret, INVALIDATION_KEY_LABEL))
        self.assertEqual(poll(lambda: self.shown_name(self.server, first_key) == "Renamed", timeout=5), True)


if __name__ == "__main__":
    unittest.main()
