"""A real HTTP receiver for webhook deliveries (webhooks/receiver.mjs, Node.js), whose signature
checks are the `standardwebhooks` npm package's."""

import json
import os
import subprocess
import threading
import time
import urllib.request

from programs import program

RECEIVER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "webhooks")


def ensure_packages():
    p = subprocess.run([program("bash"), os.path.join(RECEIVER_DIR, "ensure.sh")], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise AssertionError(f"webhooks/ensure.sh failed: {p.stderr[-2000:]}")


class Receiver:
    """One receiver process on `host` (loopback addresses only), port chosen by the system."""

    def __init__(self, host: str = "127.0.0.1"):
        self.host = host
        self.proc = subprocess.Popen([program("node"), os.path.join(RECEIVER_DIR, "receiver.mjs"), host],
                                     cwd=RECEIVER_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"receiver did not start: {self.proc.stderr.read()[-2000:]}")
        self.port = json.loads(line)["port"]
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def _call(self, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method="GET" if data is None else "POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def log(self, path_prefix: str = "") -> list[dict]:
        return [e for e in self._call("/_control/log") if e["path"].startswith(path_prefix)]

    def wait(self, pred, path_prefix: str, timeout: float = 60.0, what: str = "deliveries") -> list[dict]:
        """The deliveries under path_prefix once pred(deliveries) holds."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.log(path_prefix)
            if pred(got):
                return got
            if time.monotonic() >= deadline:
                raise AssertionError(f"receiver: {what} not seen under {path_prefix} within {timeout}s; got "
                                     f"{[(e['path'], e['headers'].get('webhook-id'), e['body'][:200]) for e in got]}")
            time.sleep(0.1)

    def verify(self, delivery: dict, secret: str) -> tuple[bool, str | None]:
        """standardwebhooks' Webhook(secret).verify(body, headers)."""
        r = self._call("/_control/verify", {"secret": secret, "headers": delivery["headers"], "body": delivery["body"]})
        return r["ok"], r["error"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def bodies(deliveries: list[dict]) -> list[dict]:
    return [json.loads(d["body"]) for d in deliveries]


class ReceiverFixtures:
    """Mixin for E2ETestCase classes: `cls.receiver` on 127.0.0.1 (and `cls.outside` on 127.0.0.2,
    `cls.outside6` on ::1, addresses no setting allows) started before the server, whose settings `cls.env` (and
    `cls.server_env`) allow the receiver and shorten the schedule: 3 attempts, 1 s apart."""

    timeout_ms = 2000

    @classmethod
    def setUpClass(cls):
        ensure_packages()
        cls.receiver = Receiver("127.0.0.1")
        cls.outside = Receiver("127.0.0.2")
        cls.outside6 = Receiver("::1")
        cls.env = {
            "MEDIAGEN_WEBHOOK_ALLOW_HOSTS": f"127.0.0.1:{cls.receiver.port}",
            "MEDIAGEN_WEBHOOK_RETRY_SCHEDULE": "0,1,1",
            "MEDIAGEN_WEBHOOK_TIMEOUT_MS": str(cls.timeout_ms),
        }
        cls.env.update(cls.more_env())
        cls.server_env = cls.env
        try:
            super().setUpClass()
        except BaseException:
            cls.stop_receivers()
            raise

    @classmethod
    def more_env(cls) -> dict:
        return {}

    @classmethod
    def stop_receivers(cls):
        cls.receiver.stop()
        cls.outside.stop()
        cls.outside6.stop()

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls.stop_receivers()

