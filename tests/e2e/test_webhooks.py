"""Webhooks (openapi "Webhooks"): signed deliveries of order, item, clone and gift-code events to a
real HTTP receiver whose checks are the `standardwebhooks` npm package's; the event filter; retries
with one webhook-id; the delivery log; secret rotation; and the egress guard (loopback, private and
malformed URLs refused with 422 and never contacted, redirects not followed, the connected address
checked again when a name resolves elsewhere)."""

import json
import time
import unittest
import uuid

from harness import E2ETestCase, metric_sum
from matrix_support import multipart, tone_wav
from orders_support import OrderFixtures
from webhook_support import ReceiverFixtures, bodies

TEXT = "The quick brown fox jumps over the lazy dog. A gentle breeze carried the smell of bread."
# A name nobody resolves: deliveries reach it only through MEDIAGEN_WEBHOOK_RESOLVE's pin.
PINNED_NAME = "hooks.mediagen-e2e.invalid"


class WebhookTests(ReceiverFixtures, OrderFixtures, E2ETestCase):
    @classmethod
    def more_env(cls):
        # A name that resolves, at connect time, to the address nobody allowed: DNS rebinding.
        return {"MEDIAGEN_WEBHOOK_RESOLVE": f"{PINNED_NAME}:{cls.outside.port}:127.0.0.2"}

    @classmethod
    def prepare(cls):
        cls.seed()

    def tearDown(self):
        self.assertEqual(self.outside.log(), [], "a delivery reached an address nobody allowed")
        self.assertEqual(self.outside6.log(), [], "a delivery reached an address nobody allowed")

    # ------------------------------------------------------------------ helpers

    def hook(self, kind="ok"):
        path = f"/{kind}/{uuid.uuid4()}"
        return path, self.receiver.base + path

    def order_with_hook(self, key, template, url, **extra):
        r = self.create(key, template, TEXT, webhook=url, **extra)
        self.assertEqual(r.status, 201, r)
        return r.body["data"]["id"]

    def secret(self, key):
        r = self.server.api("GET", "/webhooks/secret", key)
        self.assertEqual(r.status, 200, r)
        return r.body["data"]["key"]

    def cli(self, *args):
        """The operator CLI with the server's settings (its allow list)."""
        return self.h.cli(*args, extra_env=self.server_env)

    def assertSigned(self, deliveries, secret):
        for d in deliveries:
            ok, error = self.receiver.verify(d, secret)
            self.assertTrue(ok, f"standardwebhooks refused {d['headers']}: {error}")

    # ------------------------------------------------------------------ per-order webhooks

    def test_order_events_arrive_signed_up_to_the_terminal_status(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        path, url = self.hook()
        order_id = self.order_with_hook(key, template, url)
        final = self.wait_order(key, order_id, ("completed",))
        got = self.receiver.wait(lambda ds: any(b["data"]["status"] == "completed" for b in bodies(ds)), path)
        secret = self.secret(key)
        self.assertRegex(secret, r"^whsec_[A-Za-z0-9+/]{32,}={0,2}$")
        self.assertEqual(self.secret(key), secret, "the account's secret is made once")
        self.assertSigned(got, secret)
        for d in got:
            self.assertEqual(d["method"], "POST")
            self.assertEqual(d["headers"]["content-type"], "application/json")
        events = bodies(got)
        self.assertEqual({b["type"] for b in events}, {"order.updated"}, "the default filter is order.updated")
        statuses = [b["data"]["status"] for b in sorted(events, key=lambda b: b["data"]["seq"])]
        self.assertEqual(statuses[-1], "completed")
        self.assertIn("in_progress", statuses)
        seqs = [b["data"]["seq"] for b in events]
        self.assertEqual(len(seqs), len(set(seqs)), "one message per event")
        last = max(events, key=lambda b: b["data"]["seq"])
        # The realtime event's payload: the order's values, the result once terminal.
        self.assertEqual(set(last["data"]), {"order_id", "status", "task_type", "updated_at", "result",
                                             "failure_reason", "seq"})
        self.assertEqual(last["data"]["order_id"], order_id)
        self.assertEqual(last["data"]["result"]["files"], final["result"]["files"])
        self.assertRegex(last["timestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$")

        log = self.server.api("GET", f"/orders/{order_id}/webhook-deliveries", key)
        self.assertEqual(log.status, 200, log)
        metrics = self.server.metrics()
        self.assertGreaterEqual(metric_sum(metrics, "mediagen_webhook_attempts_total", outcome="delivered"), len(got))
        self.assertGreaterEqual(metric_sum(metrics, "mediagen_webhook_delivery_delay_seconds_count"), len(got))
        self.assertIn("mediagen_webhook_outbox_pending", {name for name, _, _ in metrics})
        ids = {d["headers"]["webhook-id"] for d in got}
        self.assertEqual({m["id"] for m in log.body["data"]}, ids)
        for m in log.body["data"]:
            self.assertEqual(m["type"], "order.updated")
            self.assertEqual(m["status"], "delivered")
            self.assertIsNone(m["next_attempt_at"])
            self.assertEqual(len(m["attempts"]), 1)
            self.assertEqual(m["attempts"][0]["status_code"], 200)
            self.assertIsNone(m["attempts"][0]["error"])
            self.assertGreaterEqual(m["attempts"][0]["duration_ms"], 0)

    def test_the_events_filter_chooses_the_events(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        items_path, items_url = self.hook()
        both_path, both_url = self.hook()
        only_items = self.order_with_hook(key, template, items_url, webhook_events_filter=["order.item.updated"])
        both = self.order_with_hook(key, template, both_url,
                                    webhook_events_filter=["order.updated", "order.item.updated"])
        self.wait_order(key, only_items, ("completed",))
        self.wait_order(key, both, ("completed",))
        got = self.receiver.wait(lambda ds: any(b["data"]["status"] == "completed" for b in bodies(ds)), items_path)
        self.assertEqual({b["type"] for b in bodies(got)}, {"order.item.updated"})
        for b in bodies(got):
            self.assertEqual(set(b["data"]), {"order_id", "item_id", "chunk_index", "item_type", "status",
                                              "attempt_number", "seq"})
        got = self.receiver.wait(
            lambda ds: {"order.updated", "order.item.updated"} <= {b["type"] for b in bodies(ds)}
            and any(b["type"] == "order.updated" and b["data"]["status"] == "completed" for b in bodies(ds)),
            both_path)
        self.assertSigned(got, self.secret(key))

    def test_a_bad_filter_or_url_is_422_and_changes_nothing(self):
        user, key = self.account(balance=1_000_000)
        template = self.template(key)
        before = self.balance(user["id"])
        _, url = self.hook()
        for bad in (["nope"], [], "order.updated", [1], ["order.updated", None]):
            r = self.create(key, template, TEXT, webhook=url, webhook_events_filter=bad)
            self.assertEqual(r.status, 422, (bad, r))
            self.assertIn("webhook_events_filter", r.body["errors"], r)
        long_url = self.receiver.base + "/ok/" + "a" * (2100 - len(self.receiver.base) - 4)
        self.assertEqual(len(long_url), 2100)
        refused = [
            f"http://127.0.0.2:{self.outside.port}/",   # loopback, not allowed
            f"https://127.0.0.2:{self.outside.port}/",
            f"http://[::1]:{self.outside6.port}/",
            f"https://[::1]:{self.outside6.port}/",
            f"https://[::ffff:127.0.0.2]:{self.outside.port}/",
            f"https://localhost:{self.outside.port}/",
            "https://10.1.2.3/hook", "https://169.254.169.254/latest", "https://192.168.1.1/",
            "https://0.0.0.0/", "https://2130706434/",     # 127.0.0.2 in inet_aton's form
            f"ftp://127.0.0.1:{self.receiver.port}/ok/x",
            "/ok/relative", "hooks.example.com/no-scheme",
            "https://user:pass@hooks.example.com/",
            long_url,
            12345,
        ]
        for url in refused:
            r = self.create(key, template, TEXT, webhook=url)
            self.assertEqual(r.status, 422, (url, r))
            self.assertIn("webhook", r.body["errors"], r)
        self.assertEqual(self.balance(user["id"]), before, "a refused order moved money")
        self.assertEqual(self.h.psql_value(
            f"SELECT count(*) FROM orders WHERE user_id = {user['id']}"), "0")

    def test_a_receiver_that_fails_twice_gets_one_id_three_times(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        path, url = self.hook("fail2")
        order_id = self.order_with_hook(key, template, url)
        self.wait_order(key, order_id, ("completed",))
        log = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log = self.server.api("GET", f"/orders/{order_id}/webhook-deliveries", key).body["data"]
            if log and all(m["status"] == "delivered" for m in log):
                break
            time.sleep(0.2)
        self.assertTrue(log and all(m["status"] == "delivered" for m in log), log)
        got = self.receiver.log(path)
        secret = self.secret(key)
        self.assertSigned(got, secret)
        for m in log:
            same = [d for d in got if d["headers"]["webhook-id"] == m["id"]]
            self.assertEqual(len(same), 3, m)
            self.assertEqual(len({d["body"] for d in same}), 1, "a retry sends the same body")
            self.assertEqual([a["status_code"] for a in m["attempts"]], [500, 500, 200])

    def test_a_2xx_with_a_large_body_delivers(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        _, url = self.hook("big")
        order_id = self.order_with_hook(key, template, url)
        self.wait_order(key, order_id, ("completed",))
        log = self.wait_log(key, order_id, lambda ms: ms and all(m["status"] != "pending" for m in ms))
        for m in log:
            self.assertEqual(m["status"], "delivered", m)
            self.assertEqual([a["status_code"] for a in m["attempts"]], [200])

    def test_410_stops_the_orders_url(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        path, url = self.hook("gone")
        order_id = self.order_with_hook(key, template, url)
        self.wait_order(key, order_id, ("completed",))
        log = self.wait_log(key, order_id, lambda ms: ms and all(m["status"] == "failed" for m in ms))
        got = self.receiver.log(path)
        self.assertEqual(len(got), 1, "after 410 nothing more goes to the URL")
        self.assertEqual([m["attempts"][0]["status_code"] for m in log if m["attempts"]], [410])

    def test_a_redirect_is_not_followed(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        target = f"http://127.0.0.2:{self.outside.port}/ok/followed"
        path, url = self.hook("redirect")
        order_id = self.order_with_hook(key, template, url + "?to=" + target)
        self.wait_order(key, order_id, ("completed",))
        log = self.wait_log(key, order_id, lambda ms: ms and all(m["status"] == "failed" for m in ms))
        for m in log:
            self.assertEqual([a["status_code"] for a in m["attempts"]], [302, 302, 302])
        self.assertEqual(self.outside.log(), [])

    def test_a_name_that_resolves_to_a_refused_address_is_stopped_when_connecting(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        # At creation the name resolves nowhere (accepted); at delivery it is pinned to 127.0.0.2.
        order_id = self.order_with_hook(key, template, f"https://{PINNED_NAME}:{self.outside.port}/ok/rebound")
        self.wait_order(key, order_id, ("completed",))
        log = self.wait_log(key, order_id, lambda ms: ms and all(m["status"] == "failed" for m in ms))
        for m in log:
            self.assertEqual(len(m["attempts"]), 3)
            for a in m["attempts"]:
                self.assertIsNone(a["status_code"])
                self.assertIn("address refused", a["error"])
        self.assertEqual(self.outside.log(), [])

    def wait_log(self, key, order_id, pred, timeout=60.0):
        deadline = time.monotonic() + timeout
        while True:
            r = self.server.api("GET", f"/orders/{order_id}/webhook-deliveries", key)
            self.assertEqual(r.status, 200, r)
            if pred(r.body["data"]):
                return r.body["data"]
            if time.monotonic() >= deadline:
                raise AssertionError(f"delivery log of {order_id}: {r.body['data']}")
            time.sleep(0.2)

    def test_the_log_of_another_accounts_order_is_404(self):
        _, key = self.account(balance=1_000_000)
        _, other = self.account(balance=0)
        template = self.template(key)
        _, url = self.hook()
        order_id = self.order_with_hook(key, template, url)
        r = self.server.api("GET", f"/orders/{order_id}/webhook-deliveries", other)
        self.assertEqual(r.status, 404, r)
        r = self.server.api("GET", "/orders/not-a-uuid/webhook-deliveries", key)
        self.assertEqual(r.status, 404, r)
        r = self.server.api("GET", f"/orders/{uuid.uuid4()}/webhook-deliveries", key)
        self.assertEqual(r.status, 404, r)

    def test_an_order_retry_keeps_the_webhook(self):
        _, key = self.account(balance=1_000_000)
        template = self.template(key)
        path, url = self.hook()
        order_id = self.order_with_hook(key, template, url, webhook_events_filter=["order.item.updated"])
        self.wait_order(key, order_id, ("completed",))
        r = self.server.api("POST", f"/orders/{order_id}/retry", key, body={})
        self.assertEqual(r.status, 201, r)
        retry_id = r.body["data"]["id"]
        self.wait_order(key, retry_id, ("completed",))
        got = self.receiver.wait(lambda ds: any(b["data"]["order_id"] == retry_id and b["data"]["status"] == "completed"
                                                for b in bodies(ds)), path)
        self.assertEqual({b["type"] for b in bodies(got)}, {"order.item.updated"})

    # ------------------------------------------------------------------ account endpoints

    def test_an_account_endpoint_gets_clone_and_gift_code_events_and_rotation_signs_twice(self):
        user, key = self.account(balance=1_000_000)
        path, url = self.hook()
        made = self.cli("admin", "webhook", "add", "--user", str(user["id"]), "--url", url,
                          "--events", "gift_code.updated,voice_clone.updated")
        self.assertEqual(set(made), {"id", "user_id", "url", "events", "enabled", "disabled_reason", "secret",
                                     "created_at"})
        self.assertEqual(made["events"], ["gift_code.updated", "voice_clone.updated"])
        self.assertTrue(made["enabled"])
        self.h.cli("admin", "reseller", "enable", "--user", str(user["id"]), "--balance", "100000")
        rkey = self.h.create_key(user["id"], preset="full", scopes="reseller.read,reseller.write")["key"]
        r = self.server.api("POST", "/reseller/codes", rkey, body={"nominal": 500})
        self.assertEqual(r.status, 201, r)
        code = r.body["data"]
        got = self.receiver.wait(lambda ds: any(b["type"] == "gift_code.updated" for b in bodies(ds)), path)
        self.assertSigned(got, made["secret"])
        gift = [b for b in bodies(got) if b["type"] == "gift_code.updated"][0]["data"]
        self.assertEqual(gift["uuid"], code["uuid"])
        self.assertEqual(gift["status"], "active")
        self.assertNotIn(code["code"], json.dumps(gift), "a gift code event never holds the full code")

        headers, body = multipart([("name", "Webhook clone")], [("files[]", "tone.wav", tone_wav())])
        r = self.server.api("POST", "/voices/provider_c/clones", key, body=body, headers=headers)
        self.assertIn(r.status, (200, 201), r)
        clone_id = r.body["data"]["id"]
        got = self.receiver.wait(lambda ds: any(b["type"] == "voice_clone.updated" and b["data"]["id"] == clone_id
                                                for b in bodies(ds)), path)
        self.assertSigned(got, made["secret"])
        clone = [b["data"] for b in bodies(got) if b["type"] == "voice_clone.updated"][0]
        self.assertEqual(clone["service"], "provider_c")
        self.assertEqual(clone["name"], "Webhook clone")

        rotated = self.cli("admin", "webhook", "rotate-secret", "--id", str(made["id"]))
        self.assertNotEqual(rotated["secret"], made["secret"])
        r = self.server.api("POST", f"/reseller/codes/{code['uuid']}/cancel", rkey, body={})
        self.assertEqual(r.status, 200, r)
        got = self.receiver.wait(lambda ds: any(b["type"] == "gift_code.updated" and b["data"]["status"] == "cancelled"
                                                for b in bodies(ds)), path)
        after = [d for d in got if json.loads(d["body"])["data"]["status"] == "cancelled"]
        self.assertEqual(len(after[0]["headers"]["webhook-signature"].split(" ")), 2)
        self.assertSigned(after, made["secret"])
        self.assertSigned(after, rotated["secret"])

        listed = self.cli("admin", "webhook", "list", "--user", str(user["id"]))
        self.assertEqual([e["id"] for e in listed], [made["id"]])
        self.assertNotIn("secret", listed[0])
        deliveries = self.cli("admin", "webhook", "deliveries", "--id", str(made["id"]))
        self.assertEqual({m["status"] for m in deliveries}, {"delivered"})
        again = self.cli("admin", "webhook", "redeliver", "--message", deliveries[0]["id"])
        self.assertEqual(again["status"], "pending")
        self.receiver.wait(lambda ds: sum(d["headers"]["webhook-id"] == deliveries[0]["id"] for d in ds) == 2, path)
        disabled = self.cli("admin", "webhook", "disable", "--id", str(made["id"]))
        self.assertFalse(disabled["enabled"])

    def test_an_account_endpoint_gets_preview_ready(self):
        user, key = self.account(balance=1_000_000)
        template = self.template(key)
        path, url = self.hook()
        made = self.cli("admin", "webhook", "add", "--user", str(user["id"]), "--url", url, "--events", "preview.ready")
        sentence = f"Sentence {uuid.uuid4().hex[:8]} of a long text for the background preview goes here. "
        text = (sentence * (60_000 // len(sentence) + 1))[:59_999] + "."
        r = self.server.api("POST", "/orders/chunks/preview", key, body={"template_id": template, "input_text": text})
        self.assertEqual(r.status, 202, r)
        preview_id = r.body["data"]["preview_id"]
        got = self.receiver.wait(lambda ds: len(ds) >= 1, path, timeout=120)
        self.assertSigned(got, made["secret"])
        self.assertEqual([(b["type"], b["data"]) for b in bodies(got)],
                         [("preview.ready", {"preview_id": preview_id, "status": "ready"})])

    def test_the_cli_refuses_bad_endpoints(self):
        user, _ = self.account()
        for url, events in (("http://10.0.0.1/x", ""), ("ftp://example.com/", ""), ("https://example.com/", "nope")):
            args = ["admin", "webhook", "add", "--user", str(user["id"]), "--url", url]
            if events:
                args += ["--events", events]
            p = self.h.run_cli(*args, extra_env=self.server_env)
            self.assertNotEqual(p.returncode, 0, (url, p.stdout))
            self.assertTrue(p.stderr.startswith("error: "), p.stderr)


if __name__ == "__main__":
    unittest.main()
