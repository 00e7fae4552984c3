"""Helpers of the combined-fault drill (test_chaos_combined): a storage folder on a small tmpfs
that a ballast file fills to the last page and frees again; clients that create, read and cancel
orders through every fault, keeping every answer; what a spec-shaped answer is; and /readyz probed
all along."""

import errno
import os
import secrets
import subprocess
import threading
import time

from outage_support import PATIENCE, Load
from programs import program

MiB = 1 << 20


class TmpfsStorage:
    """A tmpfs of `size_mb` mounted over `path` (the server's storage folder; needs root), and a
    ballast file in it that takes every free page, so that any new file the server writes fails
    with ENOSPC until the ballast goes."""

    def __init__(self, path, size_mb):
        self.path, self.size_mb = path, size_mb
        self.ballast = os.path.join(path, ".ballast")
        self.mounted = False

    def mount(self):
        p = subprocess.run([program("mount"), "-t", "tmpfs", "-o", f"size={self.size_mb}m,mode=0755", "tmpfs", self.path],
                           capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            raise AssertionError(f"the drill mounts a tmpfs for the storage (as root): {p.stderr.strip()}")
        self.mounted = True

    def fill(self):
        """Writes the ballast until the file system refuses a single byte more; its size."""
        fd = os.open(self.ballast, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        written = 0
        try:
            for block in (MiB, 4096, 1):
                data = b"\0" * block
                while True:
                    try:
                        n = os.write(fd, data)
                    except OSError as e:
                        if e.errno != errno.ENOSPC:
                            raise
                        break
                    written += n
                    if n < block:
                        break
        finally:
            os.close(fd)
        return written

    def free(self):
        os.unlink(self.ballast)

    def free_bytes(self):
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def unmount(self):
        if self.mounted:
            subprocess.run([program("umount"), "-l", self.path], capture_output=True, timeout=30)
            self.mounted = False


def shape_problem(status, body):
    """What is wrong with one answer against the spec's envelopes (2.1), or None. Allowed: 2xx
    {success: true, message, data}; 4xx {success: false, message} (+ reason = error_code); 503
    {success: false, message}. Any other status is wrong."""
    if status is None:
        return f"no answer within the client's patience: {body}"
    if not isinstance(body, dict):
        return f"{status}: not a JSON object: {body!r}"
    if 200 <= status < 300:
        ok = body.get("success") is True and isinstance(body.get("message"), str) and "data" in body
    elif 400 <= status < 500 or status == 503:
        ok = (body.get("success") is False and isinstance(body.get("message"), str) and body["message"] != ""
              and body.get("reason") == body.get("error_code") and "errors" not in body)
    else:
        ok = False
    return None if ok else f"{status}: {body!r}"


class MixedLoad(Load):
    """Load's clients (each create with its own Idempotency-Key, kept in `results` for settle()),
    which also read every order they made and cancel every `cancel_every`-th one at once. Reads
    and cancels are kept in `others` as (what, status, body, seconds, finished at); an answer
    that never came within the client's patience has status None."""

    def __init__(self, test, server, key, template, clients, think, cancel_every=4):
        super().__init__(test, server, key, template, clients)
        self.think, self.cancel_every = think, cancel_every
        self.others = []

    def call(self, what, method, path):
        started = time.monotonic()
        try:
            r = self.server.api(method, path, self.key)
            status, body = r.status, r.body
        except OSError as e:
            status, body = None, str(e)
        with self.lock:
            self.others.append((what, status, body, time.monotonic() - started, time.monotonic()))
        return status, body

    def _run(self):
        n = 0
        while not self.stop_flag.is_set():
            idem = secrets.token_hex(12)
            status, body, _, seconds = self.create(idem)
            with self.lock:
                self.results.append((idem, status, body, seconds, time.monotonic()))
            if status == 201:
                n += 1
                order = body["data"]["id"]
                self.call("read", "GET", f"/orders/{order}")
                if n % self.cancel_every == 0:
                    self.call("cancel", "POST", f"/orders/{order}/cancel")
            time.sleep(self.think)

    def check_others(self, test):
        """Reads answer 200 or 503; cancels 200 `cancelled`, 400 (already running or over) or
        503; all spec-shaped and within the client's patience. Returns {(what, status): count}."""
        seen = {}
        for what, status, body, seconds, _ in self.others:
            test.assertLess(seconds, PATIENCE, f"a {what} took {seconds:.1f} s")
            test.assertIn(status, {"read": (200, 503), "cancel": (200, 400, 503)}[what], f"{what}: {body}")
            test.assertIsNone(shape_problem(status, body), what)
            if what == "cancel" and status == 200:
                test.assertEqual(body["data"]["status"], "cancelled", body)
            seen[(what, status)] = seen.get((what, status), 0) + 1
        return seen


class ReadyProbe:
    """GET /readyz every `interval` seconds until stopped: (finished at, seconds, status, body)."""

    def __init__(self, server, interval=0.2):
        self.server, self.interval = server, interval
        self.probes = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        while not self.done.is_set():
            started = time.monotonic()
            try:
                r = self.server.admin_get("/readyz")
                status, body = r.status, r.body
            except OSError as e:
                status, body = None, str(e)
            self.probes.append((time.monotonic(), time.monotonic() - started, status, body))
            time.sleep(self.interval)

    def stop(self):
        self.done.set()
        self.thread.join(PATIENCE + 5)

    def between(self, start, end):
        return [p for p in self.probes if start <= p[0] <= end]
