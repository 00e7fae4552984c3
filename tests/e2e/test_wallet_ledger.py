"""The wallet and ledger listings (spec 4.6 "Wallet and ledger", 5 billing.read): GET /wallets and
GET /ledger-transactions exist only for accounts whose wallet the operator switched on
(`mediagen admin user wallet --user ID on|off`); otherwise they answer as unknown paths do,
without counting toward the IP ban. An order created, partly retried with a surcharge and
cancelled is listed so that its transactions sum exactly to the balance change.
The ledger invariants run after every test."""

import unittest
from datetime import datetime, timedelta, timezone

from harness import E2ETestCase, ISO_RE, fresh_ip, rand_path
from orders_support import OrderFixtures, escrow_balances, ledger_snapshot
from realtime_support import redis_command

MARKER = "zqxfail"
PARAGRAPH = {"generation_mode": "paragraph"}
NOT_FOUND_KEYS = {"success", "message", "message_en", "reason", "error_code", "method", "path", "docs",
                  "developers", "ban_warning"}
PAGE_KEYS = {"items", "current_page", "last_page", "per_page", "total"}
TXN_KEYS = {"id", "kind", "order_id", "item_id", "created_at", "amount", "amount_formatted", "currency_asset",
            "quota_tokens", "movements"}
MOVEMENT_KEYS = {"account", "currency_asset", "amount", "amount_formatted", "balance_after"}
WALLET_KEYS = {"kind", "currency_asset", "is_default", "balance", "locked"}
THRESHOLD = 3


class WalletLedgerTests(OrderFixtures, E2ETestCase):
    server_env = {
        "MEDIAGEN_WORKERS": "2",
        "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
        "MEDIAGEN_ENGINE_FAIL_MARKER": MARKER,
        "MEDIAGEN_BAN_THRESHOLD": str(THRESHOLD),
        "MEDIAGEN_BAN_WINDOW_SECONDS": "600",
        "MEDIAGEN_TRUSTED_PROXIES": "127.0.0.1",
    }

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    # -- helpers

    def wallet(self, user_id, state="on"):
        out = self.h.cli("admin", "user", "wallet", "--user", str(user_id), state)
        self.assertEqual(out, {"id": user_id, "wallet_enabled": state == "on"})

    def ledger(self, key, query="", **kw):
        return self.server.api("GET", "/ledger-transactions" + (("?" + query) if query else ""), key, **kw)

    def user_balance(self, key):
        return int(self.assertSuccess(self.server.api("GET", "/user", key))["balance"]["amount"])

    def wallets(self, key):
        data = self.assertSuccess(self.server.api("GET", "/wallets", key))
        return {w["kind"] + ":" + w["currency_asset"]["code"]: w for w in data}

    def misses(self, ip):
        return int(redis_command(self.h.redis_url, "GET", f"{self.h.redis_prefix}ban:misses:{ip}") or 0)

    def settle(self, key, order_id):
        """Waits until no record of the order is pending or processing."""
        def settled():
            order = self.server.api("GET", f"/orders/{order_id}", key).body["data"]
            return None if any(i["status"] in ("pending", "processing") for i in order["items"]) else order
        import time
        deadline = time.time() + 60
        while time.time() < deadline:
            order = settled()
            if order:
                return order
            time.sleep(0.1)
        raise AssertionError(f"order {order_id} did not settle")

    def item_at(self, order, index):
        records = [i for i in order["items"] if i["chunk_index"] == index]
        return max(records, key=lambda i: i["attempt_number"])

    def retry(self, key, order, item, text):
        r = self.server.api("POST", f"/orders/{order['id']}/items/{item['id']}/retry", key, body={"text": text})
        return self.assertSuccess(r, 201)

    # -- Done 5: an order's listing sums to the balance change

    def test_an_order_created_retried_with_a_surcharge_and_cancelled_sums_to_the_balance_change(self):
        user, key = self.account(balance=100_000)
        self.set_quota(user["id"], 30)
        self.wallet(user["id"])
        template = self.template(key)
        before = self.user_balance(key)
        quota_before = int(self.wallets(key)["quota:TOKEN"]["balance"]["amount"])

        created = self.assertSuccess(self.create(key, template, "\n\n".join(
            ["A fine first paragraph.", f"Short {MARKER} x.", f"Other {MARKER} " + "long words " * 150]),
            config_override=PARAGRAPH), 201)
        order = self.wait_order(key, created["id"], {"partially_completed", "failed", "completed"})
        self.assertEqual(order["status"], "partially_completed")
        # The failed chunks' funds stay locked for their retries: held, not spent.
        held = escrow_balances(self.h, order["id"])
        wallets = self.wallets(key)
        self.assertGreater(held["escrow"], 0)
        self.assertEqual(int(wallets["money:USD"]["locked"]["amount"]), held["escrow"])
        self.assertEqual(int(wallets["quota:TOKEN"]["locked"]["amount"]), held.get("quota_escrow", 0))
        failed = self.item_at(order, 1)
        info = self.assertSuccess(self.server.api("GET", f"/orders/{order['id']}/items/{failed['id']}/text", key))
        free, max_billable = info["free_length"], info["max_billable_length"]
        self.assertGreater(max_billable, free)
        # A surcharged retry that fails again (its surcharge comes back), then one that succeeds.
        lost = self.retry(key, order, failed, (f"Again {MARKER} " + "y" * max_billable)[:max_billable])
        order = self.settle(key, order["id"])
        good = self.retry(key, order, self.item_at(order, 1), ("Now a good longer text " + "z" * max_billable)[:max_billable])
        order = self.settle(key, order["id"])
        self.assertEqual(self.item_at(order, 1)["status"], "completed")
        self.assertEqual(order["status"], "partially_completed", "chunk 2 is still failed")
        self.assertEqual(self.assertSuccess(self.server.api("POST", f"/orders/{order['id']}/cancel", key))["status"],
                         "cancelled")
        after = self.user_balance(key)
        self.assertLess(after, before)

        page = self.assertSuccess(self.ledger(key, f"order_id={order['id']}&per_page=100"))
        items = page["items"]
        self.assertEqual(page["total"], len(items))
        self.assertEqual(sum(int(t["amount"]) for t in items), after - before)
        quota_after = int(self.wallets(key)["quota:TOKEN"]["balance"]["amount"])
        self.assertEqual(sum(t["quota_tokens"] for t in items), quota_after - quota_before)
        kinds = [t["kind"] for t in items]
        self.assertEqual(kinds[0], "order_release", "newest first: the cancel returns what chunk 2 held")
        self.assertGreater(int(items[0]["amount"]), 0)
        self.assertEqual(kinds[-1], "order_lock")
        self.assertEqual(kinds.count("item_lock"), 2, kinds)
        self.assertEqual(kinds.count("item_refund"), 1, kinds)
        self.assertGreaterEqual(kinds.count("chunk_charge"), 2, kinds)
        locks = {t["item_id"]: t for t in items if t["kind"] == "item_lock"}
        self.assertEqual(set(locks), {lost["id"], good["id"]})
        refund = next(t for t in items if t["kind"] == "item_refund")
        self.assertEqual(refund["item_id"], lost["id"])
        self.assertEqual(int(refund["amount"]), -int(locks[lost["id"]]["amount"]))
        self.assertLess(int(locks[good["id"]]["amount"]), 0, "the surcharge left the wallet")
        for t in items:
            self.assertEqual(set(t), TXN_KEYS, t)
            self.assertEqual(t["order_id"], order["id"])
            self.assertRegex(t["created_at"], ISO_RE)
            self.assertEqual(t["currency_asset"], {"code": "USD", "precision": 2})
            self.assertAlmostEqual(t["amount_formatted"], int(t["amount"]) / 100)
            for m in t["movements"]:
                self.assertEqual(set(m), MOVEMENT_KEYS, m)
                self.assertIn(m["account"], ("wallet", "quota", "escrow", "quota_escrow"))
            wallet_moves = sum(int(m["amount"]) for m in t["movements"] if m["account"] == "wallet")
            self.assertEqual(wallet_moves, int(t["amount"]))
        # The order holds nothing any more, and the wallets agree with GET /user.
        wallets = self.wallets(key)
        self.assertEqual(int(wallets["money:USD"]["balance"]["amount"]), after)
        self.assertEqual(wallets["money:USD"]["locked"]["amount"], "0")
        self.assertEqual(wallets["quota:TOKEN"]["locked"]["amount"], "0")

    # -- the wallets

    def test_wallets_show_each_asset_with_its_balance_and_what_open_orders_hold(self):
        user, key = self.account(balance=12_345)
        self.wallet(user["id"])
        data = self.assertSuccess(self.server.api("GET", "/wallets", key))
        self.assertIsInstance(data, list)
        for w in data:
            self.assertEqual(set(w), WALLET_KEYS, w)
        self.assertEqual(data[0], {"kind": "money", "currency_asset": {"code": "USD", "precision": 2}, "is_default": True,
                                   "balance": {"amount": "12345", "amount_formatted": 123.45},
                                   "locked": {"amount": "0", "amount_formatted": 0}})
        self.assertEqual(data[-1]["kind"], "quota")
        self.assertEqual(data[-1]["currency_asset"], {"code": "TOKEN", "precision": 0})

    # -- switched off: an unknown path that is not counted

    def test_switched_off_both_paths_answer_as_unknown_paths_and_never_lead_to_a_ban(self):
        user, key = self.account(balance=1_000)
        ip = fresh_ip()
        unknown = self.server.api("GET", rand_path(), key, ip=ip)
        self.assertEqual(unknown.status, 404, unknown)
        self.assertEqual(self.misses(ip), 1)
        for _ in range(4 * THRESHOLD):
            for path in ("/wallets", "/ledger-transactions", "/ledger-transactions?from=garbage"):
                r = self.server.api("GET", path, key, ip=ip)
                body = self.assertJsonResponse(r, 404)
                self.assertEqual(set(body), NOT_FOUND_KEYS, r)
                self.assertEqual((body["reason"], body["error_code"]), ("endpoint_not_found", "endpoint_not_found"))
                self.assertEqual(body["method"], "GET")
                self.assertEqual(body["path"], "/api" + path.split("?")[0])
                for same in ("success", "message", "message_en", "docs", "developers", "ban_warning"):
                    self.assertEqual(body[same], unknown.body[same], same)
        self.assertEqual(self.misses(ip), 1, "the wallet paths are not counted toward the ban")
        self.assertSuccess(self.server.api("GET", "/user", key, ip=ip))
        # Off again after being on.
        self.wallet(user["id"], "on")
        self.assertSuccess(self.server.api("GET", "/wallets", key, ip=ip))
        self.wallet(user["id"], "off")
        self.assertEqual(self.server.api("GET", "/wallets", key, ip=ip).status, 404)
        self.assertEqual(self.misses(ip), 1)
        # Without a key nothing says whose wallet it would be: the usual 401.
        self.assert401(self.server.api("GET", "/wallets", ip=ip), "missing")

    def test_switched_off_a_key_without_billing_read_also_sees_no_path(self):
        user, _ = self.account(balance=1_000)
        key = self.h.create_key(user["id"], scopes="profile.read")["key"]
        r = self.server.api("GET", "/ledger-transactions", key, ip=fresh_ip())
        self.assertEqual(set(self.assertJsonResponse(r, 404)), NOT_FOUND_KEYS)

    def test_a_key_without_billing_read_is_403(self):
        user, _ = self.account(balance=1_000)
        self.wallet(user["id"])
        for scopes in ("profile.read", "orders.read,orders.write,templates.read"):
            key = self.h.create_key(user["id"], scopes=scopes)["key"]
            for path in ("/wallets", "/ledger-transactions", "/ledger-transactions?from=garbage"):
                self.assert403(self.server.api("GET", path, key), "billing.read")
        read_only = self.h.create_key(user["id"], preset="read_only")["key"]
        self.assertSuccess(self.server.api("GET", "/wallets", read_only))

    # -- the listing's filters and pages

    def test_filters_and_pages_newest_first_in_the_clients_zone(self):
        user, key = self.account(balance=100)
        self.wallet(user["id"])
        for amount in (1, 2, 3, 4, 5):
            self.h.cli("admin", "user", "balance", "--user", str(user["id"]), "--add", str(amount))
        everything = self.assertSuccess(self.ledger(key, tz="Europe/Moscow"))
        self.assertEqual(set(everything), PAGE_KEYS)
        self.assertEqual(everything["total"], 6)
        self.assertEqual([int(t["amount"]) for t in everything["items"]], [5, 4, 3, 2, 1, 100])
        self.assertTrue(all(t["created_at"].endswith("+03:00") for t in everything["items"]))
        self.assertEqual({t["kind"] for t in everything["items"]}, {"admin_adjustment"})
        self.assertTrue(all(t["order_id"] is None and t["item_id"] is None for t in everything["items"]))
        ids = [t["id"] for t in everything["items"]]

        pages = [self.assertSuccess(self.ledger(key, f"per_page=4&page={n}")) for n in (1, 2, 3)]
        self.assertEqual([(p["current_page"], p["last_page"], p["per_page"], p["total"]) for p in pages],
                         [(1, 2, 4, 6), (2, 2, 4, 6), (3, 2, 4, 6)])
        self.assertEqual([t["id"] for p in pages for t in p["items"]], ids)
        self.assertEqual(pages[2]["items"], [])

        self.assertEqual(self.assertSuccess(self.ledger(key, "kind=order_lock"))["total"], 0)
        self.assertEqual(self.assertSuccess(self.ledger(key, "kind[]=order_lock&kind[]=admin_adjustment"))["total"], 6)
        self.assertEqual(self.assertSuccess(self.ledger(key, "order_id=" + "0" * 8 + "-0000-4000-8000-" + "0" * 12))["total"], 0)
        now = datetime.now(timezone.utc)
        hour = timedelta(hours=1)
        iso = lambda t: t.strftime("%Y-%m-%dT%H:%M:%S%%2B00:00")
        self.assertEqual(self.assertSuccess(self.ledger(key, f"from={iso(now + hour)}"))["total"], 0)
        self.assertEqual(self.assertSuccess(self.ledger(key, f"to={iso(now - hour)}"))["total"], 0)
        self.assertEqual(self.assertSuccess(self.ledger(key, f"from={iso(now - hour)}&to={iso(now + hour)}"))["total"], 6)
        # Another account's transactions are never listed.
        other, other_key = self.account(balance=7)
        self.wallet(other["id"])
        self.assertEqual([int(t["amount"]) for t in self.assertSuccess(self.ledger(other_key))["items"]], [7])

    def test_bad_parameters_are_422_naming_each_and_change_nothing(self):
        user, key = self.account(balance=100)
        self.wallet(user["id"])
        before = ledger_snapshot(self.h)
        cases = {
            "from=yesterday": {"from"},
            "to=2026-02-30T00:00:00Z": {"to"},
            "from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z": {"to"},
            "per_page=0": {"per_page"},
            "per_page=101": {"per_page"},
            "page=0": {"page"},
            "kind=lock": {"kind"},
            "order_id=42": {"order_id"},
            "from=x&kind=y&per_page=500": {"from", "kind", "per_page"},
        }
        for query, fields in cases.items():
            with self.subTest(query=query):
                for _ in range(2):  # the same answer on repeat
                    r = self.ledger(key, query)
                    body = self.assertJsonResponse(r, 422)
                    self.assertEqual(set(body), {"message", "errors"}, r)
                    self.assertEqual(set(body["errors"]), fields, r)
                    self.assertTrue(all(isinstance(m, str) and m for v in body["errors"].values() for m in v))
        self.assertEqual(ledger_snapshot(self.h), before)


if __name__ == "__main__":
    unittest.main()
