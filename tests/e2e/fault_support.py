"""Faults a test can cause in the stores a server depends on: a private Redis to stop, pause or
freeze; a private PostgreSQL to crash-restart or stop; the server's own PostgreSQL backends to
freeze or terminate; and a TCP proxy in front of PostgreSQL that refuses connections, cuts them,
or loses the answer to a COMMIT."""

import glob
import os
import re
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

# A server that meets a PostgreSQL outage: short leases and sweeps so the work it held comes back
# within the test, and tight database deadlines so a request fails fast instead of waiting it out.
OUTAGE_ENV = {
    "MEDIAGEN_WORKERS": "2",
    "MEDIAGEN_SWEEP_INTERVAL_MS": "200",
    "MEDIAGEN_LEASE_SECONDS": "5",
    "MEDIAGEN_DB_POOL_SIZE": "4",
    "MEDIAGEN_DB_REQUEST_DEADLINE_MS": "2000",
    "MEDIAGEN_DB_STATEMENT_TIMEOUT_MS": "2000",
    "MEDIAGEN_DB_LOCK_TIMEOUT_MS": "1000",
    "MEDIAGEN_DB_CONNECT_TIMEOUT_SECONDS": "2",
}


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


def pg_bin() -> str:
    """The PostgreSQL server programs' folder: PG_BIN, else the newest installed version (as
    scripts/lib/services.sh finds it)."""
    found = os.environ.get("PG_BIN") or ""
    if not found:
        versions = glob.glob("/usr/lib/postgresql/*/bin")
        versions.sort(key=lambda d: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", d)])
        found = versions[-1] if versions else ""
    if not found or not os.access(os.path.join(found, "pg_ctl"), os.X_OK):
        raise AssertionError("no PostgreSQL server programs: set PG_BIN or install postgresql")
    return found


class PrivatePostgres:
    """A throwaway PostgreSQL cluster of one test class, on a free loopback port. It can be
    crash-restarted (`restart_immediate`: no shutdown checkpoint, so recovery runs) or stopped
    without touching the cluster other modules share. Runs as the `postgres` user under root,
    because initdb refuses to run as root.

    fsync stays on unless asked: with fsync off, commits acknowledged just before a
    `restart -m immediate` were lost (4 of 6 in a drill), which a test would blame on the server.
    The data lives in memory (/dev/shm) when there is one, where fsync costs nothing."""

    def __init__(self, fsync: bool = True):
        self.fsync = fsync
        self.dir = tempfile.mkdtemp(prefix="mg_e2e_pg_", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.data = os.path.join(self.dir, "pg")
        self.port = free_port()
        self.bin = pg_bin()
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")

    @property
    def admin_url(self):
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool, *args, timeout=120):
        cmd = [os.path.join(self.bin, tool), *args]
        if os.getuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise AssertionError(f"{tool} {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[-2000:]}"
                                 f"{self._log_tail()}")
        return p.stdout

    def _log_tail(self):
        try:
            with open(os.path.join(self.dir, "postgres.log"), encoding="utf-8", errors="replace") as f:
                return "\n" + "".join(f.readlines()[-30:])
        except OSError:
            return ""

    def _ctl(self, action, *extra):
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.dir}"
                   " -c max_connections=200")
        if not self.fsync:
            options += " -c fsync=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "postgres.log"), "-w", "-t", "60",
                  "-o", options, *extra, action)

    def start(self):
        self._ctl("start")

    def restart_immediate(self):
        """A crash and a start: in-flight transactions are lost, open connections break."""
        self._ctl("restart", "-m", "immediate")

    def running(self) -> bool:
        cmd = [os.path.join(self.bin, "pg_ctl"), "-D", self.data, "status"]
        if os.getuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, timeout=30).returncode == 0

    def stop(self):
        if os.path.exists(os.path.join(self.data, "PG_VERSION")) and self.running():
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "-t", "60", "stop")

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


class OwnServices:
    """A test class that starts its own PostgreSQL and Redis (it crashes them) in setUpClass.
    Its `_release` is the whole cleanup, run at the end and by a setUpClass that fails part-way."""

    @classmethod
    def tearDownClass(cls):
        cls._release()


def release_harness(h, pg=None, redis=None):
    """Drops the databases of harness `h` (None: never made), first starting again the PostgreSQL
    or Redis of the class that a failed fault left stopped: the cleanup needs both."""
    if h is None:
        return
    if pg is not None and not pg.running():
        pg.start()
    if redis is not None and redis.proc is None:
        redis.start()
    h.teardown()
