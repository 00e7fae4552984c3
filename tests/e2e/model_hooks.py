"""Webhooks in the seeded model test (openapi "Webhooks"): every order a seed makes names a webhook
on a real receiver (webhook_support.py). Once the seed's operations are done, kill -9s, PostgreSQL
crash-restarts and Redis outages included, each order's newest order.updated delivery must carry
the status the model has for it, signed with the account's secret (the Standard Webhooks scheme,
its timestamp what the server's jumped clock read at most 300 s before the arrival), with one
message id per event: the outbox neither loses nor doubles an order's last word."""

import base64
import hashlib
import hmac
import json
import os
import uuid

from webhook_support import Receiver, ensure_packages

DELIVERY_SECONDS = 60.0
TOLERANCE_SECONDS = 300  # the standardwebhooks package's, between a signature and its receipt


def signed(delivery, secret):
    """The Standard Webhooks signature (what the standardwebhooks package checks, but for the
    time, which signed_in_time checks: the server's clock jumps between arrival and this check):
    HMAC-SHA256 of "id.timestamp.body" under the secret, in one of the v1 values."""
    h = delivery["headers"]
    key = base64.b64decode(secret.removeprefix("whsec_"))
    content = f"{h['webhook-id']}.{h['webhook-timestamp']}.{delivery['body']}".encode()
    wanted = "v1," + base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
    return wanted in h["webhook-signature"].split(" ")


def signed_in_time(delivery, clock):
    """Whether the delivery's webhook-timestamp is a reading of the server's clock taken within
    TOLERANCE_SECONDS before its arrival (a second either side for the whole seconds). The arrival
    is placed in real time by the receiver's monotonic clock, not by its faked wall clock: a
    delivery signed just before a jump arrives after it, and its timestamp is then one jump behind
    the receiver's wall clock, as a real receiver whose clock agrees with the sender's would see it
    when the sender's clock is set forward mid-flight."""
    arrived = delivery["mono"] / 1000
    ts = int(delivery["headers"]["webhook-timestamp"])
    return any(lo - 1 <= ts <= hi + 1 for lo, hi in clock.readings_between(arrived - TOLERANCE_SECONDS, arrived))


def receiver_env(receiver):
    """Server settings: the receiver allowed, a short retry schedule (3 attempts, 1 s apart)."""
    return {"MEDIAGEN_WEBHOOK_ALLOW_HOSTS": f"127.0.0.1:{receiver.port}",
            "MEDIAGEN_WEBHOOK_RETRY_SCHEDULE": "0,1,1", "MEDIAGEN_WEBHOOK_TIMEOUT_MS": "2000"}


def start_receiver(clock_env):
    """A receiver on the server's clock, as one whose clock agrees with its sender's: it records
    each arrival on that clock. (It inherits this process's environment, lent the clock's settings.)"""
    ensure_packages()
    saved = {name: os.environ.get(name) for name in clock_env}
    os.environ.update(clock_env)
    try:
        return Receiver("127.0.0.1")
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


class HookOps:
    """Mixed into model_ops.Operations."""

    hook_path = None

    def hook_url(self):
        if self.hook_path is None:
            self.hook_path = f"/model/{self.seed}/{uuid.uuid4()}"
        return self.t.receiver.base + self.hook_path

    def check_webhooks(self):
        """Each order's newest delivered event carries the model's status; signed; one id per event."""
        expected = {o.id: o.status for o in self.model.orders if o.id}
        if not expected:
            return

        def newest(deliveries):
            last = {}
            for d in deliveries:
                data = json.loads(d["body"])["data"]
                if data["order_id"] not in last or data["seq"] > last[data["order_id"]][0]["seq"]:
                    last[data["order_id"]] = (data, d)
            return last

        def arrived(deliveries):
            last = newest(deliveries)
            return all(o in last and last[o][0]["status"] == s for o, s in expected.items())

        got = self.t.receiver.wait(arrived, self.hook_path, DELIVERY_SECONDS, "each order's status as the model has it")
        ids = {}
        for d in got:
            data = json.loads(d["body"])["data"]
            ids.setdefault((data["order_id"], data["seq"]), set()).add(d["headers"]["webhook-id"])
        doubled = {k: v for k, v in ids.items() if len(v) > 1}
        self.t.assertEqual(doubled, {}, "one event sent as more than one message")
        secret = self.t.assertSuccess(self.get("/webhooks/secret"))["key"]
        for data, d in newest(got).values():
            self.t.assertTrue(signed(d, secret), f"the delivery of {data} is not signed with the account's secret: {d}")
            self.t.assertTrue(signed_in_time(d, self.t.clock),
                              f"signed at no reading of the server's clock within {TOLERANCE_SECONDS} s before its "
                              f"arrival (readings {self.t.clock.history}): {d}")
        if self.trace is not None:
            self.trace.answered(f"{len(got)} deliveries")
