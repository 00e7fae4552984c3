"""Realtime test support: stock Pusher clients (tests/e2e/realtime/client.mjs) run under Node and
driven over stdin/stdout, channel signatures, and Redis PUBLISH for the cross-instance channel."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import subprocess
import threading
import time
import urllib.parse

from harness import API, _redis_cmd
from programs import program

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS_DIR = os.path.join(HERE, "realtime")

APP_KEY = "mg-e2e-app-key"
SECRET = "e2e-pusher-secret-0123456789abcdef"

ORDER_KEYS = {"order_id", "status", "task_type", "updated_at", "seq"}
ITEM_KEYS = {"order_id", "item_id", "chunk_index", "item_type", "status", "attempt_number", "seq"}


def realtime_env(**extra) -> dict:
    """The server environment of a realtime test: an explicit app key and secret."""
    env = {"MEDIAGEN_PUSHER_APP_KEY": APP_KEY, "MEDIAGEN_PUSHER_SECRET": SECRET}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def sign(socket_id: str, channel: str, secret: str = SECRET, app_key: str = APP_KEY) -> str:
    """The Pusher private-channel auth string for a socket and channel."""
    digest = hmac.new(secret.encode(), f"{socket_id}:{channel}".encode(), hashlib.sha256).hexdigest()
    return f"{app_key}:{digest}"


def order_channel(order_id: str) -> str:
    return f"private-order.task.{order_id}"


def preview_channel(user_id) -> str:
    return f"private-chunks.preview.{user_id}"


_ensure_lock = threading.Lock()
_ensured = False


def ensure_clients():
    """Installs the pinned Node clients once per process (npm ci; a no-op when they are current)."""
    global _ensured
    with _ensure_lock:
        if _ensured:
            return
        p = subprocess.run([program("bash"), os.path.join(CLIENTS_DIR, "ensure.sh")], capture_output=True, text=True,
                           timeout=600, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise AssertionError(f"installing the realtime clients failed ({p.returncode}): {p.stderr[-2000:]}")
        _ensured = True


def authorize(server, key, socket_id: str, channel: str, *, form: bool = True):
    """POST {prefix}/broadcasting/auth as pusher-js does (form body) or with a JSON body."""
    headers = {}
    if key is not None:
        headers["X-API-KEY"] = key
    if form:
        body = urllib.parse.urlencode({"socket_id": socket_id, "channel_name": channel})
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    else:
        body = {"socket_id": socket_id, "channel_name": channel}
    return server.request("POST", f"{API}/broadcasting/auth", headers, body)


# --------------------------------------------------------------------------- Redis


def redis_command(url: str, *args):
    u = urllib.parse.urlsplit(url)
    with socket.create_connection((u.hostname or "127.0.0.1", u.port or 6379), timeout=5) as s:
        if u.password:
            if u.username:
                _redis_cmd(s, "AUTH", urllib.parse.unquote(u.username), urllib.parse.unquote(u.password))
            else:
                _redis_cmd(s, "AUTH", urllib.parse.unquote(u.password))
        _redis_cmd(s, "SELECT", (u.path or "/0").lstrip("/") or "0")
        return _redis_cmd(s, *args)


def fanout_channel(h) -> str:
    """The Redis channel every instance of this suite listens on."""
    return f"{h.redis_prefix}realtime"


FANOUT_KEY_LABEL = b"mediagen realtime fan-out v1"


def sign_fanout(message, secret: str) -> bytes:
    """A fan-out message as an instance holding `secret` (MEDIAGEN_SECRET) publishes it."""
    body = message.encode() if isinstance(message, str) else message
    key = hmac.new(secret.encode(), FANOUT_KEY_LABEL, hashlib.sha256).hexdigest()
    return hmac.new(key.encode(), body, hashlib.sha256).hexdigest().encode() + b" " + body


def publish_raw(h, message, *, secret: str | None = None, signed: bool = True) -> int:
    """PUBLISH message on the fan-out channel, signed as the suite's instances sign (or with
    another secret, or not at all); returns the number of receiving instances."""
    if signed:
        message = sign_fanout(message, secret if secret is not None else h.env()["MEDIAGEN_SECRET"])
    return int(redis_command(h.redis_url, "PUBLISH", fanout_channel(h), message))


def event_frame(channel: str, event: str, data: dict) -> str:
    return json.dumps({"event": event, "channel": channel, "data": json.dumps(data)})


# --------------------------------------------------------------------------- Node clients


class NodeClient:
    """One client.mjs process. Every JSON line it prints is kept in `messages`."""

    def __init__(self, server, mode: str, key: str | None = None, *, timeout: float = 180.0, **options):
        ensure_clients()
        host, port = server.public
        self.mode = mode
        opts = {"mode": mode, "host": host, "port": port, "appKey": APP_KEY,
                "authEndpoint": f"http://{host}:{port}{API}/broadcasting/auth", "apiKey": key,
                "timeoutMs": int(timeout * 1000)}
        opts.update(options)
        self.messages: list[dict] = []
        self.stderr: list[str] = []
        self._cond = threading.Condition()
        self._done = False
        self.proc = subprocess.Popen([program("node"), os.path.join(CLIENTS_DIR, "client.mjs"), json.dumps(opts)],
                                     cwd=CLIENTS_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8")
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self):
        for line in iter(self.proc.stdout.readline, ""):
            try:
                msg = json.loads(line)
            except ValueError:
                msg = {"type": "unparsed", "line": line.rstrip("\n")}
            with self._cond:
                self.messages.append(msg)
                self._cond.notify_all()
        with self._cond:
            self._done = True
            self._cond.notify_all()

    def _read_stderr(self):
        for line in iter(self.proc.stderr.readline, ""):
            self.stderr.append(line.rstrip("\n"))

    # -- commands

    def command(self, **cmd):
        try:
            self.proc.stdin.write(json.dumps(cmd) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise AssertionError(f"the {self.mode} client is gone ({e}): {self.describe()}") from None

    def subscribe(self, channel: str, events=()):
        self.command(cmd="subscribe", channel=channel, events=list(events))

    def send_text(self, text: str):
        self.command(cmd="send", text=text)

    def send_json(self, obj):
        self.send_text(json.dumps(obj))

    def send_binary(self, data: bytes):
        self.command(cmd="send_binary", hex=data.hex())

    def send_size(self, n: int):
        self.command(cmd="send_size", bytes=n)

    def close_socket(self, code: int = 1000):
        self.command(cmd="close", code=code)

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.command(cmd="exit")
            except AssertionError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- observations

    def snapshot(self) -> list[dict]:
        with self._cond:
            return list(self.messages)

    def describe(self, last: int = 60) -> str:
        msgs = self.snapshot()
        text = "\n".join("    " + json.dumps(m)[:600] for m in msgs[-last:])
        err = "\n".join("    " + l for l in self.stderr[-20:])
        return f"\n  {self.mode} client saw {len(msgs)} lines (last {last}):\n{text}" + (
            f"\n  stderr:\n{err}" if err else "")

    def wait_for(self, pred, timeout: float = 30.0, what: str = "a message", start: int = 0) -> dict:
        """The first message at index >= start that satisfies pred; fails after timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for m in self.messages[start:]:
                    if pred(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or (self._done and not any(pred(m) for m in self.messages[start:])):
                    break
                self._cond.wait(min(left, 0.5))
        raise AssertionError(f"no {what} within {timeout}s" + self.describe())

    def wait_count(self, pred, n: int, timeout: float = 30.0, what: str = "messages") -> list[dict]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = [m for m in self.messages if pred(m)]
                if len(got) >= n:
                    return got
                left = deadline - time.monotonic()
                if left <= 0 or self._done:
                    break
                self._cond.wait(min(left, 0.5))
        raise AssertionError(f"fewer than {n} {what} within {timeout}s" + self.describe())

    def index(self) -> int:
        """The number of lines so far: a start for wait_for that skips what was already seen."""
        with self._cond:
            return len(self.messages)

    def connected(self, timeout: float = 30.0) -> str:
        return self.wait_for(lambda m: m.get("type") == "connected", timeout, "connection")["socket_id"]

    def frames(self, event: str | None = None, channel: str | None = None) -> list[dict]:
        return [m for m in self.snapshot() if m.get("type") == "frame"
                and (event is None or m.get("event") == event) and (channel is None or m.get("channel") == channel)]

    def events(self, channel: str | None = None, event: str | None = None) -> list[dict]:
        return [m for m in self.snapshot() if m.get("type") == "event"
                and (channel is None or m.get("channel") == channel) and (event is None or m.get("event") == event)]

    def wait_frame(self, event: str, timeout: float = 30.0, start: int = 0, channel: str | None = None,
                   code: int | None = None) -> dict:
        def pred(m):
            if m.get("type") != "frame" or m.get("event") != event:
                return False
            if channel is not None and m.get("channel") != channel:
                return False
            if code is not None:
                return isinstance(m.get("data"), dict) and m["data"].get("code") == code
            return True
        what = f"{event} frame" + (f" with code {code}" if code is not None else "")
        return self.wait_for(pred, timeout, what, start)

    def wait_closed(self, timeout: float = 30.0) -> dict:
        return self.wait_for(lambda m: m.get("type") == "closed", timeout, "close")

    def is_closed(self) -> bool:
        return any(m.get("type") == "closed" for m in self.snapshot())

    def round_trip(self, timeout: float = 30.0):
        """pusher:ping -> pusher:pong on a raw socket: everything the server sent before the pong
        has been received."""
        start = self.index()
        self.send_json({"event": "pusher:ping", "data": {}})
        self.wait_frame("pusher:pong", timeout, start)


def run_churn(server, count: int, parallel: int = 50, channel: str | None = None, timeout: float = 300.0) -> dict:
    """Opens and closes `count` sockets (churn.mjs); returns its summary."""
    ensure_clients()
    host, port = server.public
    opts = {"host": host, "port": port, "appKey": APP_KEY, "count": count, "parallel": parallel}
    if channel:
        opts.update({"channel": channel, "secret": SECRET})
    p = subprocess.run([program("node"), os.path.join(CLIENTS_DIR, "churn.mjs"), json.dumps(opts)], cwd=CLIENTS_DIR,
                       capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise AssertionError(f"churn.mjs exited {p.returncode}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for pid {pid}")
