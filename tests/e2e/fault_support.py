"""Faults a test can cause in the stores a server depends on: a private Redis to stop, pause or
freeze; the server's own PostgreSQL backends to freeze or terminate; and a TCP proxy in front of
PostgreSQL that refuses connections, cuts them, or loses the answer to a COMMIT."""

import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import urllib.parse

from harness import poll
from programs import program


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mg_e2e_redis_")
        self.port = free_port()
        self.proc = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            [program("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

        def up():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    return s.recv(16).startswith(b"+PONG")
            except OSError:
                return False
        if not poll(up, timeout=15):
            raise AssertionError(f"redis-server did not start on port {self.port}")

    def command(self, *args):
        """One command over a fresh connection; the raw reply line."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            out = f"*{len(args)}\r\n".encode()
            for a in args:
                b = str(a).encode()
                out += f"${len(b)}\r\n".encode() + b + b"\r\n"
            s.sendall(out)
            return s.recv(256)

    def freeze(self):
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self):
        self.proc.send_signal(signal.SIGCONT)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def server_backends(h) -> list[int]:
    """Process ids of the PostgreSQL backends connected to this suite's database, but ours."""
    rows = h.admin_psql(
        f"SELECT pid FROM pg_stat_activity WHERE datname = '{h.db_name}' AND pid <> pg_backend_pid()")
    return [int(x) for x in rows.split() if x.strip().isdigit()]


def signal_backends(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


class PgProxy:
    """Forwards TCP to PostgreSQL. `refuse` closes new connections at once; `cut()` closes every
    open one; `lose_commit_reply()` lets the next COMMIT through and drops its answer (the commit
    happened; the client cannot know); `lose_commit()` drops the next COMMIT itself (nothing is
    committed; the client cannot know either)."""

    def __init__(self, db_url: str):
        u = urllib.parse.urlsplit(db_url)
        self.target = (u.hostname or "127.0.0.1", u.port or 5432)
        self.port = free_port()
        self.url = urllib.parse.urlunsplit(
            (u.scheme, f"{u.username + '@' if u.username else ''}127.0.0.1:{self.port}", u.path,
             "sslmode=disable", u.fragment))
        self.refuse = False
        self._armed = None  # "reply" or "commit"
        self._marker = b""
        self.fired = threading.Event()
        self._lock = threading.Lock()
        self._conns = []
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def lose_commit_reply(self, marker: str):
        self.fired.clear()
        self._marker = marker.encode()
        self._armed = "reply"

    def lose_commit(self, marker: str):
        self.fired.clear()
        self._marker = marker.encode()
        self._armed = "commit"

    def cut(self):
        with self._lock:
            conns, self._conns = self._conns, []
        for pair in conns:
            for s in pair:
                _close(s)

    def close(self):
        self._closed = True
        _close(self._listener)
        self.cut()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.refuse:
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _close(client)
                continue
            state = {"swallow": False}
            with self._lock:
                self._conns.append((client, upstream))
            threading.Thread(target=self._client_to_server, args=(client, upstream, state), daemon=True).start()
            threading.Thread(target=self._server_to_client, args=(upstream, client, state), daemon=True).start()

    def _client_to_server(self, client, upstream, state):
        buf = b""
        startup = True
        prepared = {}  # statement name -> its SQL, from Parse messages
        marked = False  # the open transaction ran a statement with the marker
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                buf += data
                out = b""
                while True:
                    if startup:
                        if len(buf) < 8:
                            break
                        n = struct.unpack("!I", buf[:4])[0]
                        if len(buf) < n:
                            break
                        code = struct.unpack("!I", buf[4:8])[0]
                        out += buf[:n]
                        buf = buf[n:]
                        startup = code in (80877103, 80877104)  # SSL / GSS request: the startup follows
                        continue
                    if len(buf) < 5:
                        break
                    n = struct.unpack("!I", buf[1:5])[0]
                    if len(buf) < 1 + n:
                        break
                    msg, buf = buf[:1 + n], buf[1 + n:]
                    kind, body = msg[:1], msg[5:]
                    if kind == b"P":
                        name, _, rest = body.partition(b"\0")
                        prepared[name] = rest.partition(b"\0")[0]
                    sql = b""
                    if kind == b"Q":
                        sql = body.rstrip(b"\0")
                    elif kind == b"P":
                        sql = prepared[body.partition(b"\0")[0]]
                    elif kind == b"B":
                        sql = prepared.get(body.split(b"\0")[1], b"") if body.count(b"\0") >= 2 else b""
                    if self._marker and self._marker in sql:
                        marked = True
                    is_end = kind == b"Q" and sql.strip().upper() in (b"COMMIT", b"ROLLBACK", b"ABORT")
                    fire = is_end and marked and sql.strip().upper() == b"COMMIT" and self._armed
                    if is_end:
                        marked = False
                    if fire:
                        armed, self._armed = self._armed, None
                        if armed == "commit":
                            if out:
                                upstream.sendall(out)
                            self.fired.set()
                            raise OSError("COMMIT dropped")
                        state["swallow"] = True  # its answer, and everything after, is lost
                    out += msg
                if out:
                    upstream.sendall(out)
        except OSError:
            pass
        _close(client)
        _close(upstream)

    def _server_to_client(self, upstream, client, state):
        try:
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                if state["swallow"]:
                    self.fired.set()
                    break
                client.sendall(data)
        except OSError:
            pass
        _close(client)
        _close(upstream)


def _close(s):
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass
