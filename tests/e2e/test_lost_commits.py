"""A lost COMMIT on every route that changes money or state (reliability T8; spec 7.1): a second
server reaches PostgreSQL through a proxy that either drops a COMMIT's answer after PostgreSQL
ran it (`reply`: the write is in) or drops the COMMIT itself (`commit`: nothing is in). Either
way the client gets the answer of a success, never a 503, the write is in exactly once, and the
ledger invariants hold. Order creation has its own cases in test_database_outage.py.

Idempotency-Key on `POST /reseller/codes` and on clone create: a retry with the same key and
request replays the first answer byte for byte and issues, charges or creates nothing more; the
same key with another request is 409 `idempotency_key_reused`, as on `POST /orders`."""

import io
import math
import struct
import wave

from fault_support import PgProxy
from harness import E2ETestCase
from orders_support import OrderFixtures
from test_voice_clones import multipart

FAIL = "zqxfail"
BANNED = "forbiddenword"
PARAGRAPH = {"generation_mode": "paragraph"}
RESELLER_BALANCE = 1_000_000
VARIANTS = ("reply", "commit")


def tone_wav(seconds=1.5, rate=16000):
    """A short 440 Hz tone: audio that decodes, which is all a create checks before its row."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
                               for i in range(int(seconds * rate))))
    return out.getvalue()


class LostCommitCase(OrderFixtures, E2ETestCase):
    """A second server, without workers, behind the proxy: only the request under test uses its pool."""

    @classmethod
    def prepare(cls):
        cls.seed()
        cls.proxy = PgProxy(cls.h.db_url)
        cls.behind = cls.h.start_server(dict(cls.server_env, MEDIAGEN_WORKERS="0", MEDIAGEN_DATABASE_URL=cls.proxy.url),
                                        name="behind-proxy")

    @classmethod
    def tearDownClass(cls):
        try:
            cls.behind.stop_checked()
        finally:
            cls.proxy.close()
            super().tearDownClass()

    def tearDown(self):
        self.assertInvariants()

    def lost(self, variant, marker, method, path, key, **request):
        """The request on the server behind the proxy, with the COMMIT of the transaction that ran
        `marker` losing its answer (`reply`) or never arriving (`commit`)."""
        if variant == "reply":
            self.proxy.lose_commit_reply(marker)
        else:
            self.proxy.lose_commit(marker)
        r = self.behind.api(method, path, key, **request)
        self.assertTrue(self.proxy.fired.is_set(), f"the proxy never saw the COMMIT of {marker!r}")
        return r

    def count(self, sql):
        return int(self.h.psql_value(sql))


class OrderLostCommitTests(LostCommitCase):
    # The class's own server makes the orders' states for real: workers, a fault marker, a policy.
    server_env = {
        "MEDIAGEN_WORKERS": "2",
        "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
        "MEDIAGEN_ENGINE_FAIL_MARKER": FAIL,
        "MEDIAGEN_CONTENT_POLICY": BANNED,
    }

    def partial_order(self, key, template, paragraphs):
        created = self.assertSuccess(self.create(key, template, "\n\n".join(paragraphs), config_override=PARAGRAPH), 201)
        return self.wait_order(key, created["id"], {"completed", "partially_completed", "failed"})

    def last_attempt(self, order, index):
        records = [i for i in order["items"] if i["chunk_index"] == index and i["item_type"] != "regeneration"]
        return max(records, key=lambda i: i["attempt_number"])

    # -- orders and items

    def test_order_cancel(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                user, key = self.account(balance=100_000)
                order = self.partial_order(key, self.template(key), ["First fine paragraph.", f"Second {FAIL} one."])
                self.assertEqual(order["status"], "partially_completed", order)
                r = self.lost(variant, "UPDATE orders SET status = 'cancelled'", "POST", f"/orders/{order['id']}/cancel", key)
                self.assertEqual(self.assertSuccess(r)["status"], "cancelled")
                charged = self.count(
                    "SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e JOIN ledger_txns t ON t.id = e.txn_id"
                    " JOIN ledger_accounts a ON a.id = e.account_id"
                    f" WHERE t.kind = 'chunk_charge' AND t.order_id = '{order['id']}' AND a.kind = 'revenue'")
                self.assertEqual(self.balance(user["id"]), 100_000 - charged, "the unfinished part came back once")
                self.assertEqual(self.h.psql_value(f"SELECT status FROM orders WHERE id = '{order['id']}'"), "cancelled")

    def test_order_retry(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                user, key = self.account(balance=100_000)
                created = self.assertSuccess(self.create(key, self.template(key), "An order to repeat."), 201)
                self.wait_order(key, created["id"], {"completed"})
                before = self.balance(user["id"])
                r = self.lost(variant, "INSERT INTO orders (", "POST", f"/orders/{created['id']}/retry", key, body={})
                again = self.assertSuccess(r, 201)
                self.assertEqual(again["retry_of"], created["id"])
                self.assertEqual(self.count(f"SELECT count(*) FROM orders WHERE retry_of = '{created['id']}'"), 1)
                self.assertEqual(self.balance(user["id"]), before - again["price_units"])

    def test_items_retry_failed(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                _, key = self.account(balance=100_000)
                order = self.partial_order(key, self.template(key), ["Fine.", f"One {FAIL}.", f"Two {FAIL}."])
                r = self.lost(variant, "INSERT INTO order_items (", "POST", f"/orders/{order['id']}/items/retry-failed", key)
                data = self.assertSuccess(r, 201)
                self.assertEqual(data["queued"], 2)
                self.assertEqual(self.count(
                    f"SELECT count(*) FROM order_items WHERE order_id = '{order['id']}' AND item_type = 'retry'"), 2)

    def test_item_retry(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                _, key = self.account(balance=100_000)
                order = self.partial_order(key, self.template(key), ["Fine.", f"One {FAIL}."])
                failed = self.last_attempt(order, 1)
                r = self.lost(variant, "INSERT INTO order_items (", "POST",
                              f"/orders/{order['id']}/items/{failed['id']}/retry", key, body={})
                record = self.assertSuccess(r, 201)
                self.assertEqual(record["parent_item_id"], failed["id"])
                self.assertEqual(self.count(f"SELECT count(*) FROM order_items WHERE parent_item_id = '{failed['id']}'"), 1)

    def test_item_regenerate(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                user, key = self.account(balance=100_000)
                created = self.assertSuccess(self.create(key, self.template(key), "Regenerate this sentence please."), 201)
                order = self.wait_order(key, created["id"], {"completed"})
                item = order["items"][0]
                before = self.balance(user["id"])
                r = self.lost(variant, "INSERT INTO order_items (", "POST",
                              f"/orders/{order['id']}/items/{item['id']}/regenerate", key,
                              body={"text": "Regenerated sentence, please."})
                record = self.assertSuccess(r, 201)
                self.assertEqual(record["item_type"], "regeneration")
                self.assertEqual(self.count(f"SELECT count(*) FROM order_items WHERE parent_item_id = '{item['id']}'"), 1)
                self.assertEqual(self.count(f"SELECT count(*) FROM ledger_txns WHERE kind = 'item_lock'"
                                            f" AND item_id = '{record['id']}'"), 1, "paid once")
                self.assertLess(self.balance(user["id"]), before)



class CloneCodeTemplateLostCommitTests(LostCommitCase):
    # No workers anywhere: a clone stays in the status the test gives it.
    server_env = {"MEDIAGEN_WORKERS": "0"}

    def reseller(self):
        user, _ = self.account()
        self.h.cli("admin", "reseller", "enable", "--user", user["id"], "--balance", RESELLER_BALANCE,
                   "--discount-bps", 1000, "--cancel-window-minutes", 60)
        return user, self.h.create_key(user["id"], scopes="reseller.read,reseller.write")["key"]

    def reseller_balance(self, key):
        return int(self.assertSuccess(self.server.api("GET", "/reseller", key))["balance"])

    def clone_form(self, name):
        return multipart([("name", name)], [("files[]", "tone.wav", tone_wav())])

    # -- clones

    def test_clone_create(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                user, key = self.account()
                headers, body = self.clone_form("lost commit")
                r = self.lost(variant, "INSERT INTO voice_clones", "POST", "/voices/provider_c/clones", key,
                              headers=headers, body=body)
                clone = self.assertSuccess(r, 201)
                self.assertEqual(clone["status"], "pending")
                self.assertEqual(self.count(f"SELECT count(*) FROM voice_clones WHERE user_id = {user['id']}"), 1)
                self.assertEqual(self.count(f"SELECT count(*) FROM voice_clones WHERE id = '{clone['id']}'"), 1)

    def test_clone_retry_and_archive(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                user, key = self.account()
                headers, body = self.clone_form("to retry")
                clone = self.assertSuccess(self.server.api("POST", "/voices/provider_c/clones", key,
                                                           headers=headers, body=body), 201)
                # The state a failed analysis leaves.
                self.h.psql(f"UPDATE voice_clones SET status = 'failed', failure_reason = 'no_speech'"
                            f" WHERE id = '{clone['id']}'")
                path = f"/voices/provider_c/clones/{clone['id']}"
                r = self.lost(variant, "UPDATE voice_clones SET status = 'pending'", "POST", path + "/retry", key)
                self.assertEqual(self.assertSuccess(r)["status"], "pending")
                r = self.lost(variant, "UPDATE voice_clones SET status = 'archived'", "POST", path + "/archive", key)
                self.assertEqual(self.assertSuccess(r)["status"], "archived")
                self.assertEqual(self.h.psql_value(f"SELECT status FROM voice_clones WHERE id = '{clone['id']}'"),
                                 "archived")
                self.assertEqual(self.count(f"SELECT count(*) FROM voice_clones WHERE user_id = {user['id']}"), 1)

    # -- gift codes

    def test_gift_code_issue_and_cancel(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                seller, key = self.reseller()
                r = self.lost(variant, "INSERT INTO gift_codes", "POST", "/reseller/codes", key, body={"nominal": 10_000})
                code = self.assertSuccess(r, 201)
                self.assertEqual(self.count(f"SELECT count(*) FROM gift_codes WHERE reseller_id = {seller['id']}"), 1)
                self.assertEqual(self.reseller_balance(key), RESELLER_BALANCE - int(code["cost"]), "charged once")
                r = self.lost(variant, "UPDATE gift_codes SET status = 'cancelled'", "POST",
                              f"/reseller/codes/{code['uuid']}/cancel", key)
                self.assertEqual(self.assertSuccess(r)["status"], "cancelled")
                self.assertEqual(self.reseller_balance(key), RESELLER_BALANCE, "the cost came back once")

    # -- templates

    def test_template_create_update_delete(self):
        for variant in VARIANTS:
            with self.subTest(variant=variant):
                user, key = self.account()
                body = {"service_key": "provider_b", "name": "lost",
                        "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard",
                                                    "voice_id": self.voice_of(key)}}}
                r = self.lost(variant, "INSERT INTO templates", "POST", "/templates", key, body=body)
                tid = self.assertSuccess(r, 201)["id"]
                self.assertEqual(self.count(f"SELECT count(*) FROM templates WHERE user_id = {user['id']}"), 1)
                r = self.lost(variant, "UPDATE templates SET service_key", "PATCH", f"/templates/{tid}", key,
                              body={"name": "renamed"})
                self.assertEqual(self.assertSuccess(r)["name"], "renamed")
                r = self.lost(variant, "UPDATE templates SET deleted_at", "DELETE", f"/templates/{tid}", key)
                self.assertEqual(self.assertJsonResponse(r, 200)["success"], True, r)
                self.assertEqual(self.h.psql_value(f"SELECT deleted_at IS NOT NULL FROM templates WHERE id = '{tid}'"), "t")

    def voice_of(self, key):
        listing = self.assertSuccess(self.server.api("GET", "/voices/provider_b?per_page=100&language=en", key))
        return (listing.get("voices") or listing.get("items"))[0]["voice_id"]


class IdempotentIssueAndCloneTests(OrderFixtures, E2ETestCase):
    """Idempotency-Key on POST /reseller/codes and on clone create."""

    server_env = {"MEDIAGEN_WORKERS": "0"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertInvariants()

    def test_a_retried_issue_with_the_same_key_issues_and_charges_one_code(self):
        seller, _ = self.account()
        self.h.cli("admin", "reseller", "enable", "--user", seller["id"], "--balance", RESELLER_BALANCE,
                   "--discount-bps", 1000, "--cancel-window-minutes", 60)
        key = self.h.create_key(seller["id"], scopes="reseller.read,reseller.write")["key"]
        headers = {"Idempotency-Key": "issue-1"}
        first = self.server.api("POST", "/reseller/codes", key, body={"nominal": 10_000}, headers=headers)
        code = self.assertSuccess(first, 201)
        second = self.server.api("POST", "/reseller/codes", key, body={"nominal": 10_000}, headers=headers)
        self.assertEqual(second.status, 201, second)
        self.assertEqual(second.raw, first.raw, "the first answer, byte for byte")
        self.assertEqual(second.headers.get("idempotent-replayed"), "true")
        self.assertIsNone(first.headers.get("idempotent-replayed"))
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM gift_codes WHERE reseller_id = {seller['id']}"), "1")
        balance = int(self.assertSuccess(self.server.api("GET", "/reseller", key))["balance"])
        self.assertEqual(balance, RESELLER_BALANCE - int(code["cost"]), "one code paid for")
        # The answer is kept sealed, like the code it shows.
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM idempotency_keys WHERE user_id = {seller['id']} AND body LIKE '%{code['code']}%'"), "0")

        other = self.server.api("POST", "/reseller/codes", key, body={"nominal": 20_000}, headers=headers)
        self.assertEqual((other.status, other.body.get("reason")), (409, "idempotency_key_reused"), other)
        malformed = self.server.api("POST", "/reseller/codes", key, body={"nominal": 10_000},
                                    headers={"Idempotency-Key": "with space"})
        self.assertEqual(malformed.status, 422, malformed)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM gift_codes WHERE reseller_id = {seller['id']}"), "1")

    def test_a_retried_clone_create_with_the_same_key_creates_one_clone(self):
        user, key = self.account()
        sample = tone_wav()
        headers = {"Idempotency-Key": "clone-1"}
        # Each form has a boundary of its own: the same fields and files are the same request.
        h1, b1 = multipart([("name", "once")], [("files[]", "tone.wav", sample)])
        first = self.server.api("POST", "/voices/provider_c/clones", key, headers={**h1, **headers}, body=b1)
        clone = self.assertSuccess(first, 201)
        h2, b2 = multipart([("name", "once")], [("files[]", "tone.wav", sample)])
        self.assertNotEqual(b1, b2)
        second = self.server.api("POST", "/voices/provider_c/clones", key, headers={**h2, **headers}, body=b2)
        self.assertEqual(second.status, 201, second)
        self.assertEqual(second.raw, first.raw, "the first answer, byte for byte")
        self.assertEqual(second.headers.get("idempotent-replayed"), "true")
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM voice_clones WHERE user_id = {user['id']}"), "1")
        stored = self.h.files.list("clones/")
        self.assertTrue(stored)
        self.assertEqual([p for p in stored if not p.startswith(f"clones/{clone['id']}/")], [],
                         "no samples but the one clone's")

        h3, b3 = multipart([("name", "another")], [("files[]", "tone.wav", sample)])
        other = self.server.api("POST", "/voices/provider_c/clones", key, headers={**h3, **headers}, body=b3)
        self.assertEqual((other.status, other.body.get("reason")), (409, "idempotency_key_reused"), other)
        self.assertEqual(self.h.psql_value(f"SELECT count(*) FROM voice_clones WHERE user_id = {user['id']}"), "1")


if __name__ == "__main__":
    import unittest
    unittest.main()
