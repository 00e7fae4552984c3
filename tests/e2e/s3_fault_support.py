"""Faults a test can cause in the S3 store: a Swift proxy of the test's own, to stop (SIGSTOP) or
kill and restart, in front of the shared cluster's storage servers; and a TCP proxy that slows
every answer down. Neither disturbs the other tests using the cluster at the same time.

And the check every S3 fault test ends with: nothing is reported completed without its file."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from fault_support import free_port
from harness import poll
from orders_support import sql_ids
from programs import program
from s3_support import S3Client


class PrivateSwiftProxy:
    """A second swift-proxy-server of the test cluster (MEDIAGEN_TEST_S3_PROXY_CONF, its port
    changed): the same accounts, buckets and objects, reached through a process this test owns."""

    def __init__(self, client: S3Client):
        conf = os.environ.get("MEDIAGEN_TEST_S3_PROXY_CONF")
        if not conf or not os.path.isfile(conf):
            raise AssertionError("MEDIAGEN_TEST_S3_PROXY_CONF must name the test cluster's proxy-server.conf "
                                 "(scripts/test exports it from scripts/lib/swift.sh)")
        self.dir = tempfile.mkdtemp(prefix="mg_e2e_swift_proxy_")
        self.port = free_port()
        with open(conf, encoding="utf-8") as f:
            text = re.sub(r"(?m)^bind_port = \d+$", f"bind_port = {self.port}", f.read())
        self.conf = os.path.join(self.dir, "proxy-server.conf")
        with open(self.conf, "w", encoding="utf-8") as f:
            f.write(text)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.client = S3Client(self.endpoint, client.region, client.access_key, client.secret_key, timeout=5)
        self.proc = None
        self.log = None

    def start(self):
        self.log = open(os.path.join(self.dir, "proxy.log"), "ab")
        self.proc = subprocess.Popen([program("swift-proxy-server"), self.conf, "-v"], stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT)

        def answers():
            try:
                return self.client.request("GET", "")[0] == 200 if self.proc.poll() is None else None
            except OSError:
                return False
        if not poll(answers, timeout=60, interval=0.1):
            raise AssertionError(f"the private Swift proxy did not answer on {self.port}: {self.log_tail()}")
        return self

    def freeze(self):
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self):
        self.proc.send_signal(signal.SIGCONT)

    def kill(self):
        self.proc.kill()
        self.proc.wait(10)
        self.log.close()

    def log_tail(self) -> str:
        with open(os.path.join(self.dir, "proxy.log"), "rb") as f:
            return f.read()[-3000:].decode("utf-8", "replace")

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.thaw()
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.log:
            self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class SlowProxy:
    """Forwards TCP to a port and holds every piece of every answer `delay` seconds before passing
    it on: slow responses (the request goes through at once)."""

    def __init__(self, target_port: int, delay: float):
        self.target, self.delay = ("127.0.0.1", target_port), delay
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.delayed = 0  # pieces held back, for the test to see the proxy was in the way
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._closed = False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                if self._closed:
                    return
                continue
            with self._lock:
                self._socks += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, 0), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, self.delay), daemon=True).start()

    def _pipe(self, src, dst, delay):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if delay:
                    time.sleep(delay)
                    with self._lock:
                        self.delayed += 1
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self._closed = True
        self._listener.close()
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            s.close()


def files_behind_completions(h, order_ids=None, *, orders_query=None) -> list[str]:
    """What is reported completed without its file in the store: every completed item's result
    and every completed order's track and subtitles must be there, at their recorded size. The
    orders are `order_ids`, or those a SELECT of ids (`orders_query`) names when they are too
    many for one command line."""
    scope = f"({orders_query})" if orders_query else sql_ids(order_ids)
    missing = []
    for item, path, size in h.psql_rows(
            "SELECT id, coalesce(result_path, ''), coalesce(result_size, -1) FROM order_items"
            f" WHERE status = 'completed' AND order_id IN {scope}"):
        data = h.files.read(path) if path else None
        if data is None or len(data) != int(size):
            missing.append(f"item {item}: {path!r} ({size} bytes) is "
                           + ("missing" if data is None else f"{len(data)} bytes"))
    for order, path in h.psql_rows(
            "SELECT id, jsonb_array_elements_text(result_files || result_service_files) FROM orders"
            f" WHERE status IN ('completed', 'result_delivered') AND id IN {scope}"):
        if not h.files.exists(path):
            missing.append(f"order {order}: {path!r} is missing")
    return missing
