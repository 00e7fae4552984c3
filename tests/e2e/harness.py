"""Black-box end-to-end harness for the mediagen server.

Every test class gets its own PostgreSQL database (created through
MEDIAGEN_TEST_PG_ADMIN_URL, dropped at teardown; SQL goes over the wire protocol, pgwire.py,
or through psql for a URL that client does not speak) and its own Redis key prefix,
runs `mediagen migrate` and the operator CLI, and starts `mediagen serve` on
ephemeral ports.

Required environment:
    MEDIAGEN_BIN                 the binary under test
    MEDIAGEN_TEST_PG_ADMIN_URL   postgresql://user@host:port/db of a role that may CREATE DATABASE
    MEDIAGEN_TEST_REDIS_URL      redis://host:port/db

When one of them is missing the tests fail (they are never skipped).
Optional: MEDIAGEN_E2E_LOG_TAIL (lines of server log printed on failure, default 200);
MEDIAGEN_E2E_STORAGE=s3 puts each class's object store in a bucket of its own on the test S3
server (s3_support.py; then MEDIAGEN_TEST_S3_* are required). Tests reach stored files through
`Harness.files`, whatever the store. MEDIAGEN_E2E_TIME_FACTOR (default 1) stretches the harness's
waits for a slower build (TIME_FACTOR below). A ThreadSanitizer report in a server's or a
command's stderr fails the test (sanitizer_reports).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
from datetime import datetime

import pgwire
import programs
import s3_support

API = "/api"
ISO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$")
KEY_RE = re.compile(r"^mg_[A-Za-z0-9_-]{43}$")
CYRILLIC_RE = re.compile(r"[\u0400-\u04FF]")

ALL_SCOPES = [
    "orders.read", "orders.write", "orders.download", "templates.read", "templates.write",
    "voices.read", "voices.write", "billing.read", "profile.read", "reseller.read", "reseller.write",
]
READ_ONLY = {"orders.read", "orders.download", "templates.read", "voices.read", "billing.read", "profile.read"}
AUTOMATION = READ_ONLY | {"orders.write"}
FULL = set(ALL_SCOPES) - {"reseller.read", "reseller.write"}
PRESETS = {"read_only": READ_ONLY, "automation": AUTOMATION, "full": FULL}

MSG = {
    "en": {
        "missing": "API key is missing: send it in the X-API-KEY header.",
        "invalid": "API key is invalid.",
        "expired": "API key has expired.",
        "forbidden": "This API key lacks the {scope} permission.",
    },
    "ru": {
        "missing": "API-ключ не передан: отправьте его в заголовке X-API-KEY.",
        "invalid": "API-ключ недействителен.",
        "expired": "Срок действия API-ключа истёк.",
        "forbidden": "У этого API-ключа нет разрешения {scope}.",
    },
}
MSG_405 = "Method not allowed."
MSG_413 = "Request body is too large."
MSG_431 = "Request header fields are too large."
MSG_503 = "Service temporarily unavailable."

REQUIRED_ENV = ("MEDIAGEN_BIN", "MEDIAGEN_TEST_PG_ADMIN_URL", "MEDIAGEN_TEST_REDIS_URL")
# How many times slower than the ASan build the binary under test computes (scripts/test
# --tsan-e2e: 3). It stretches the allowances for work to end, not what a test asserts: a CLI
# command's run, a server's exit after SIGTERM (which waits for a voice being described) and the
# model test's settle time.
TIME_FACTOR = float(os.environ.get("MEDIAGEN_E2E_TIME_FACTOR", "1"))

# The CLI commands (their first words, e.g. admin user create) whose run in this process was
# leak-checked: LeakSanitizer's exit scan is a quarter of an ASan command's CPU (0.05 of 0.20 s),
# and fixtures run the same few commands thousands of times a suite. Each command is checked at
# its first run in every module; the later runs of it skip the scan. Servers are always checked.
_LEAK_CHECKED: set[tuple[str, ...]] = set()


class HarnessConfigError(AssertionError):
    """The environment does not describe a binary and services to test against."""


def fresh_ip() -> str:
    """A random documentation/private address, distinct per call, for X-Forwarded-For."""
    b = secrets.token_bytes(3)
    return f"10.{b[0]}.{b[1]}.{(b[2] % 250) + 2}"


def rand_path() -> str:
    return f"{API}/nope-{secrets.token_hex(6)}"


def parse_iso(value: str) -> datetime:
    return datetime.fromisoformat(value)


def json_ct_ok(headers: dict) -> bool:
    ct = headers.get("content-type", "")
    return ct.replace(" ", "").lower() == "application/json;charset=utf-8"


# --------------------------------------------------------------------------- HTTP


class Response:
    def __init__(self, status: int, headers: dict, raw: bytes):
        self.status = status
        self.headers = headers
        self.raw = raw
        self.body = raw
        ct = headers.get("content-type", "").lower()
        if "json" in ct and raw:
            try:
                self.body = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                self.body = raw

    def __iter__(self):  # allows: status, headers, body = resp
        return iter((self.status, self.headers, self.body))

    def __repr__(self):
        raw = self.raw[:2000]
        return f"<HTTP {self.status} headers={self.headers!r} body={raw!r}>"


def http_request(host: str, port: int, method: str, path: str, headers=None, body=None,
                 timeout: float = 15.0) -> Response:
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode("utf-8")
            hdrs.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            data = body.encode("utf-8")
        else:
            data = body
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        out = {}
        for k, v in resp.getheaders():
            k = k.lower()
            out[k] = v if k not in out else out[k] + ", " + v
        return Response(resp.status, out, raw)
    finally:
        conn.close()


class RawResponse:
    def __init__(self, status: int, reason: str, headers: dict, body: bytes, head: bytes):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.head = head

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def __repr__(self):
        return f"<RawResponse {self.status} {self.headers!r} {self.body[:500]!r}>"


class OwnsSocket:
    """A client holding one socket in self.sock: closed once, and usable in a with-block."""

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class RawConn(OwnsSocket):
    """A plain TCP connection for hand-made (and malformed) HTTP."""

    def __init__(self, host: str, port: int, timeout: float = 5.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.eof = False

    def send(self, data: bytes) -> bool:
        """Send everything; False when the peer has closed or reset the connection."""
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
            return False

    def _fill(self, deadline: float) -> bool:
        """Read more bytes into buf. False on EOF/reset. Raises TimeoutError at deadline."""
        if self.eof:
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out waiting for data")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("timed out waiting for data") from None
        except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError):
            self.eof = True
            return False
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def read_response(self, timeout: float = 5.0, head_request: bool = False):
        """Next response, or None when the connection closed before a complete status line+headers."""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buf:
            if not self._fill(deadline):
                return None
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        status = int(parts[1])
        reason = parts[2] if len(parts) > 2 else ""
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            k = k.strip().lower()
            v = v.strip()
            headers[k] = v if k not in headers else headers[k] + ", " + v
        self.buf = rest
        body = b""
        if head_request or status in (204, 304) or 100 <= status < 200:
            pass
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            while True:
                while b"\r\n" not in self.buf:
                    if not self._fill(deadline):
                        raise AssertionError("connection closed inside a chunked body")
                size_line, _, self.buf = self.buf.partition(b"\r\n")
                size = int(size_line.split(b";")[0].strip(), 16)
                while len(self.buf) < size + 2:
                    if not self._fill(deadline):
                        raise AssertionError("connection closed inside a chunk")
                body += self.buf[:size]
                self.buf = self.buf[size + 2:]
                if size == 0:
                    break
        elif "content-length" in headers:
            n = int(headers["content-length"])
            while len(self.buf) < n:
                if not self._fill(deadline):
                    raise AssertionError("connection closed inside a body")
            body, self.buf = self.buf[:n], self.buf[n:]
        else:
            while self._fill(deadline):
                pass
            body, self.buf = self.buf, b""
        return RawResponse(status, reason, headers, body, head)

    def wait_closed(self, timeout: float):
        """Seconds until the peer closed the connection, or None if still open after timeout.
        Bytes received meanwhile are appended to self.buf."""
        start = time.monotonic()
        deadline = start + timeout
        try:
            while self._fill(deadline):
                pass
        except TimeoutError:
            return None
        return time.monotonic() - start



# --------------------------------------------------------------------------- metrics


_SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$')
_LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"')


def parse_metrics(text: str):
    """[(name, {label: value}, float)] from Prometheus text exposition."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE_RE.match(line)
        if not m:
            continue
        labels = dict(_LABEL_RE.findall(m.group(2) or ""))
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        out.append((m.group(1), labels, value))
    return out


def metric_sum(samples, name: str, **labels) -> float:
    total = 0.0
    for n, lab, v in samples:
        if n == name and all(lab.get(k) == val for k, val in labels.items()):
            total += v
    return total


# --------------------------------------------------------------------------- Redis (cleanup only)


def _redis_cmd(sock, *args):
    payload = f"*{len(args)}\r\n".encode()
    for a in args:
        b = a if isinstance(a, bytes) else str(a).encode()
        payload += b"$" + str(len(b)).encode() + b"\r\n" + b + b"\r\n"
    sock.sendall(payload)
    f = sock.makefile("rb")
    return _redis_read(f)


def _redis_read(f):
    line = f.readline()
    if not line:
        raise ConnectionError("redis closed")
    t, rest = line[:1], line[1:-2]
    if t in (b"+", b":"):
        return rest
    if t == b"-":
        raise RuntimeError(rest.decode())
    if t == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)
        return data[:-2]
    if t == b"*":
        n = int(rest)
        return [_redis_read(f) for _ in range(max(n, 0))]
    raise RuntimeError(f"unexpected redis reply {line!r}")


def redis_delete_prefix(url: str, prefix: str):
    u = urllib.parse.urlsplit(url)
    with socket.create_connection((u.hostname or "127.0.0.1", u.port or 6379), timeout=5) as s:
        if u.password:
            if u.username:
                _redis_cmd(s, "AUTH", urllib.parse.unquote(u.username), urllib.parse.unquote(u.password))
            else:
                _redis_cmd(s, "AUTH", urllib.parse.unquote(u.password))
        db = (u.path or "/0").lstrip("/") or "0"
        _redis_cmd(s, "SELECT", db)
        cursor = b"0"
        while True:
            cursor, keys = _redis_cmd(s, "SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000")
            if keys:
                _redis_cmd(s, "DEL", *keys)
            if cursor in (b"0", 0, "0"):
                break


# --------------------------------------------------------------------------- server process


def sanitizer_reports(name: str, lines: list[str]) -> list[str]:
    """Each ThreadSanitizer report in a process's stderr lines, from its WARNING line to its SUMMARY."""
    reports, current = [], None
    for line in lines:
        if current is None and "WARNING: ThreadSanitizer:" in line:
            current = [line]
        elif current is not None:
            current.append(line)
        if current is not None and line.startswith("SUMMARY: ThreadSanitizer:"):
            reports.append(current)
            current = None
    if current is not None:  # cut short: the process died inside its report
        reports.append(current)
    return [f"{name}: ThreadSanitizer report\n" + "\n".join(r) for r in reports]


class Server:
    """One running `mediagen serve` process."""

    def __init__(self, harness: "Harness", extra_env: dict | None, args=(), name: str = "serve"):
        self.harness = harness
        self.name = name
        self.env = harness.env(extra_env)
        self.lines: list[str] = []
        self.stdout_lines: list[str] = []
        self._lock = threading.Lock()
        self._listening = threading.Event()
        self._eof = threading.Event()
        self.public = None
        self.admin = None
        self.exit_code = None
        self.proc = subprocess.Popen(
            [harness.bin, "serve", *args], env=self.env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self._t_err = threading.Thread(target=self._drain_stderr, daemon=True)
        self._t_out = threading.Thread(target=self._drain_stdout, daemon=True)
        self._t_err.start()
        self._t_out.start()

    # -- log draining

    def _drain_stderr(self):
        for raw in iter(self.proc.stderr.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self._lock:
                self.lines.append(line)
            if not self._listening.is_set() and '"listening"' in line:
                try:
                    obj = json.loads(line)
                except ValueError:
                    obj = None
                if isinstance(obj, dict) and obj.get("msg") == "listening":
                    self.public = self._hostport(obj.get("public"))
                    self.admin = self._hostport(obj.get("admin"))
                    self._listening.set()
        self._eof.set()

    def _drain_stdout(self):
        for raw in iter(self.proc.stdout.readline, b""):
            with self._lock:
                self.stdout_lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))

    @staticmethod
    def _hostport(v):
        if not isinstance(v, str) or ":" not in v:
            return None
        host, _, port = v.rpartition(":")
        host = host.strip("[]")
        return host, int(port)

    def log_tail(self, n: int | None = None) -> str:
        n = n or int(os.environ.get("MEDIAGEN_E2E_LOG_TAIL", "200"))
        with self._lock:
            lines = list(self.lines[-n:])
            out = list(self.stdout_lines[-20:])
        text = "\n".join(f"  [{self.name} stderr] {l}" for l in lines)
        if out:
            text += "\n" + "\n".join(f"  [{self.name} stdout] {l}" for l in out)
        return text

    def log_lines(self):
        with self._lock:
            return list(self.lines)

    # -- lifecycle

    def wait_listening(self, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._listening.wait(0.05):
                if self.public is None or self.admin is None:
                    raise AssertionError(
                        f"{self.name}: listening line lacks public/admin host:port\n{self.log_tail()}")
                return self
            if self.proc.poll() is not None:
                self._eof.wait(2)
                raise AssertionError(
                    f"{self.name}: exited with {self.proc.returncode} before listening\n{self.log_tail()}")
        raise AssertionError(f"{self.name}: no \"listening\" log line within {timeout}s\n{self.log_tail()}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait_exit(self, timeout: float):
        try:
            self.exit_code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self._eof.wait(5)
        return self.exit_code

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait. Returns the exit code; kills and raises if it does not exit."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        timeout *= TIME_FACTOR
        code = self.wait_exit(timeout)
        if code is None:
            self.proc.kill()
            self.proc.wait(10)
            raise AssertionError(f"{self.name}: did not exit within {timeout}s of SIGTERM\n{self.log_tail()}")
        return code

    def stop_checked(self, timeout: float = 30.0):
        code = self.stop(timeout)
        if code != 0:
            raise AssertionError(f"{self.name}: exit code {code} after SIGTERM (expected 0)\n{self.log_tail()}")

    # -- HTTP helpers

    @property
    def public_port(self) -> int:
        return self.public[1]

    @property
    def admin_port(self) -> int:
        return self.admin[1]

    def request(self, method: str, path: str, headers=None, body=None, *, admin: bool = False,
                timeout: float = 15.0) -> Response:
        host, port = self.admin if admin else self.public
        return http_request(host, port, method, path, headers, body, timeout)

    def api(self, method: str, path: str, key: str | None = None, *, ip: str | None = None,
            locale: str | None = None, tz: str | None = None, headers=None, body=None) -> Response:
        """Request below the API prefix with the usual optional headers."""
        h = {}
        if key is not None:
            h["X-API-KEY"] = key
        if ip is not None:
            h["X-Forwarded-For"] = ip
        if locale is not None:
            h["X-Locale"] = locale
        if tz is not None:
            h["X-Timezone"] = tz
        h.update(headers or {})
        return self.request(method, API + path if not path.startswith(API + "/") else path, h, body)

    def admin_get(self, path: str) -> Response:
        return self.request("GET", path, admin=True)

    def metrics(self):
        r = self.admin_get("/metrics")
        if r.status != 200:
            raise AssertionError(f"/metrics answered {r!r}")
        return parse_metrics(r.raw.decode("utf-8"))

    def race_reports(self) -> list[str]:
        """The ThreadSanitizer reports in this process's stderr (a build with MEDIAGEN_SANITIZE=thread,
        scripts/test --tsan-e2e). Whether the test stopped, killed or lost the server, a report fails
        its suite: halt_on_error ends the server at the first race, which a test that expects the
        server to die, or never asks it again, would otherwise take for its own doing."""
        if self.proc.poll() is not None:
            self._eof.wait(5)
        return sanitizer_reports(self.name, self.log_lines())

    def standing_rule_breaks(self) -> list[str]:
        """What a live server's counters say it must never have done, whatever the test did: a
        Redis command inside a database transaction (it would hold a money lock while Redis is
        waited on). A server that cannot answer /metrics any more is judged by its test."""
        try:
            inside = metric_sum(self.metrics(), "mediagen_redis_commands_in_transaction_total")
        except (OSError, AssertionError):
            return []
        return [f"{self.name}: {inside:.0f} Redis commands inside a database transaction"] if inside else []

    def raw(self, timeout: float = 5.0) -> RawConn:
        return RawConn(self.public[0], self.public[1], timeout)

    def healthy(self) -> bool:
        try:
            r = self.request("GET", "/healthz", timeout=5)
            return r.status == 200
        except OSError:
            return False


# --------------------------------------------------------------------------- harness


class Harness:
    """A fresh database + Redis prefix, the CLI, and server processes."""

    def __init__(self, label: str = "suite", storage: str | None = None):
        missing = [v for v in REQUIRED_ENV if not os.environ.get(v)]
        if missing:
            raise HarnessConfigError(
                "end-to-end tests need " + ", ".join(missing) +
                " in the environment (MEDIAGEN_BIN: the mediagen binary; MEDIAGEN_TEST_PG_ADMIN_URL: "
                "postgresql://... of a role allowed to CREATE DATABASE; MEDIAGEN_TEST_REDIS_URL: redis://...). "
                "scripts/test exports all three.")
        self.label = label
        self.bin = os.path.abspath(os.environ["MEDIAGEN_BIN"])
        if not (os.path.isfile(self.bin) and os.access(self.bin, os.X_OK)):
            raise HarnessConfigError(f"MEDIAGEN_BIN={self.bin!r} is not an executable file")
        try:
            programs.require_all()
        except programs.MissingProgram as e:
            raise HarnessConfigError(str(e)) from None
        self.psql_bin = programs.program("psql")
        self.admin_url = os.environ["MEDIAGEN_TEST_PG_ADMIN_URL"]
        if not re.match(r"^postgres(ql)?://", self.admin_url):
            raise HarnessConfigError("MEDIAGEN_TEST_PG_ADMIN_URL must be a postgresql:// URL")
        self.redis_url = os.environ["MEDIAGEN_TEST_REDIS_URL"]
        token = secrets.token_hex(6)
        self.db_name = f"mg_e2e_{token}"
        self.redis_prefix = f"mg_e2e_{token}:"
        u = urllib.parse.urlsplit(self.admin_url)
        self.db_url = urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + self.db_name, u.query, u.fragment))
        self.servers: list[Server] = []
        self.db_created = False
        # One object store per suite, shared by its servers like one deployment's.
        self.storage_dir = tempfile.mkdtemp(prefix=f"mg_e2e_{token}_storage_")
        if (storage or s3_support.storage_kind()) == "s3":
            self.files = s3_support.S3Files(s3_support.S3Client.from_env(), f"mg-e2e-{token}")
        else:
            self.files = s3_support.LocalFiles(self.storage_dir)
        self.files_created = False

    def use_cluster(self, admin_url: str):
        """Points this harness at another PostgreSQL cluster (a class's own, which it may crash),
        before setup()."""
        self.admin_url = admin_url
        u = urllib.parse.urlsplit(admin_url)
        self.db_url = urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + self.db_name, "", ""))

    # -- environment

    def env(self, extra: dict | None = None) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIAGEN_")}
        env.update({
            "MEDIAGEN_DATABASE_URL": self.db_url,
            "MEDIAGEN_REDIS_URL": self.redis_url,
            "MEDIAGEN_REDIS_PREFIX": self.redis_prefix,
            "MEDIAGEN_LISTEN": "127.0.0.1:0",
            "MEDIAGEN_ADMIN_LISTEN": "127.0.0.1:0",
            "MEDIAGEN_LOG_LEVEL": "info",
            "MEDIAGEN_STORAGE_DIR": self.storage_dir,
            "MEDIAGEN_SECRET": "e2e-link-secret-" + self.db_name,
        })
        env.update({k: v for k, v in self.files.server_env().items() if v is not None})
        for k, v in (extra or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
        return env

    # -- database

    def admin_psql(self, sql: str) -> str:
        return self._psql(self.admin_url, sql)

    def psql(self, sql: str) -> str:
        """Run SQL in this suite's database; returns unaligned tuples-only output."""
        return self._psql(self.db_url, sql)

    def psql_rows(self, sql: str) -> list[list[str]]:
        out = self.psql(sql)
        return [line.split("\t") for line in out.splitlines() if line != ""]

    def psql_value(self, sql: str) -> str:
        return self.psql(sql).strip()

    def _psql(self, url: str, sql: str) -> str:
        try:
            return pgwire.run(url, sql, timeout=60)
        except pgwire.Refused as e:
            raise AssertionError(f"psql failed for {sql!r}: {e}") from None
        except pgwire.Unsupported:
            pass
        p = subprocess.run(
            [self.psql_bin, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
            capture_output=True, text=True, timeout=60,
        )
        if p.returncode != 0:
            raise AssertionError(f"psql failed ({p.returncode}) for {sql!r}: {p.stderr.strip()}")
        return p.stdout

    def create_db(self):
        self.admin_psql(f'CREATE DATABASE "{self.db_name}"')
        self.db_created = True

    def drop_db(self):
        if not self.db_created:
            return
        try:
            self.admin_psql(f'ALTER DATABASE "{self.db_name}" ALLOW_CONNECTIONS true')
        except AssertionError:
            pass
        self.admin_psql(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        self.db_created = False

    # -- CLI

    def run_cli(self, *args, extra_env=None, timeout: float = 60.0) -> subprocess.CompletedProcess:
        env = self.env(extra_env)
        command = tuple(str(a) for a in args[:3] if not str(a).startswith("-"))
        if command in _LEAK_CHECKED:
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        _LEAK_CHECKED.add(command)
        p = subprocess.run([self.bin, *[str(a) for a in args]], env=env,
                           capture_output=True, text=True, timeout=timeout * TIME_FACTOR,
                           stdin=subprocess.DEVNULL)
        # A command expected to fail would take a race's exit for the failure it waits for.
        races = sanitizer_reports(f"`mediagen {' '.join(map(str, args))}`", p.stderr.splitlines())
        if races:
            raise AssertionError("\n".join(races))
        return p

    def cli(self, *args, extra_env=None):
        """Run a CLI command that must succeed; returns its parsed JSON stdout."""
        p = self.run_cli(*args, extra_env=extra_env)
        if p.returncode != 0:
            raise AssertionError(f"`mediagen {' '.join(map(str, args))}` exited {p.returncode}: "
                                 f"stderr={p.stderr.strip()!r} stdout={p.stdout.strip()[:500]!r}")
        try:
            return json.loads(p.stdout)
        except ValueError as e:
            raise AssertionError(f"`mediagen {' '.join(map(str, args))}` printed non-JSON stdout "
                                 f"{p.stdout[:500]!r}: {e}") from None

    def migrate(self):
        p = self.run_cli("migrate")
        if p.returncode != 0:
            raise AssertionError(f"`mediagen migrate` exited {p.returncode}: {p.stderr.strip()}")
        return p

    def create_user(self, email=None, name=None, locale=None, balance=None) -> dict:
        email = email or f"user-{secrets.token_hex(5)}@example.com"
        args = ["admin", "user", "create", "--email", email]
        if name is not None:
            args += ["--name", name]
        if locale is not None:
            args += ["--locale", locale]
        if balance is not None:
            args += ["--balance", balance]
        return self.cli(*args)

    def create_key(self, user_id, preset=None, scopes=None, name=None, expires_at=None, **limits) -> dict:
        """limits: rate_per_minute=3 -> --rate-per-minute 3, etc."""
        args = ["admin", "key", "create", "--user", user_id]
        if preset is not None:
            args += ["--preset", preset]
        if scopes is not None:
            args += ["--scopes", scopes if isinstance(scopes, str) else ",".join(scopes)]
        if name is not None:
            args += ["--name", name]
        if expires_at is not None:
            args += ["--expires-at", expires_at]
        for k, v in limits.items():
            args += ["--" + k.replace("_", "-"), v]
        return self.cli(*args)

    def user_and_key(self, preset="full", **kw):
        user = self.create_user()
        key = self.create_key(user["id"], preset=preset, **kw)
        return user, key

    def disable_key(self, key_id):
        return self.cli("admin", "key", "disable", "--id", key_id)

    def block_user(self, user_id):
        return self.cli("admin", "user", "block", "--user", user_id)

    # -- servers

    def start_server(self, extra_env=None, args=(), wait=True, name=None) -> Server:
        s = Server(self, extra_env, args, name or f"{self.label}#{len(self.servers) + 1}")
        self.servers.append(s)
        if wait:
            s.wait_listening()
        return s

    def dump_logs(self, stream=None):
        stream = stream or sys.stderr
        for s in self.servers:
            print(f"\n----- server log tail: {s.name} (db {self.db_name}) -----", file=stream)
            print(s.log_tail(), file=stream)
        stream.flush()

    # -- setup / teardown

    def setup(self, migrate: bool = True):
        if self.files.kind == "s3":
            self.files.create()
            self.files_created = True
        self.create_db()
        if migrate:
            self.migrate()
        return self

    def teardown(self):
        problems = []
        for s in self.servers:
            if s.proc.poll() is None:
                problems.extend(s.standing_rule_breaks())
                try:
                    code = s.stop(timeout=30)
                    if code != 0:
                        problems.append(f"{s.name}: exit code {code} after SIGTERM (expected 0)\n{s.log_tail()}")
                except AssertionError as e:
                    problems.append(str(e))
            problems.extend(s.race_reports())
            for f in (s.proc.stdout, s.proc.stderr):
                try:
                    f.close()
                except OSError:
                    pass
        try:
            self.drop_db()
        except AssertionError as e:
            problems.append(f"dropping {self.db_name}: {e}")
        try:
            redis_delete_prefix(self.redis_url, self.redis_prefix)
        except Exception:  # cleanup is best effort
            pass
        shutil.rmtree(self.storage_dir, ignore_errors=True)
        if self.files_created:
            try:
                self.files.remove_all()
            except (AssertionError, OSError) as e:
                problems.append(f"removing the bucket {self.files.bucket}: {e}")
        if problems:
            raise AssertionError("\n".join(problems))


# --------------------------------------------------------------------------- base test case


class E2ETestCase(unittest.TestCase):
    """One Harness (database + Redis prefix) and, unless start_server is False, one server per class."""

    server_env: dict = {}
    storage: str | None = None  # "s3" or "local" whatever MEDIAGEN_E2E_STORAGE says
    start_server = True
    migrate_first = True
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.h = Harness(cls.__name__, cls.storage)
        try:
            cls.h.setup(migrate=cls.migrate_first)
            cls.server = cls.h.start_server(cls.server_env) if cls.start_server else None
            cls.prepare()
        except BaseException:
            cls.h.dump_logs()
            try:
                cls.h.teardown()
            except AssertionError as e:
                print(e, file=sys.stderr)
            raise

    @classmethod
    def prepare(cls):
        """Hook for fixtures (users, keys) after the server is up."""

    @classmethod
    def tearDownClass(cls):
        cls.h.teardown()

    def run(self, result=None):
        if result is None:
            return super().run(result)
        before = len(result.failures) + len(result.errors)
        out = super().run(result)
        if len(result.failures) + len(result.errors) > before and hasattr(type(self), "h"):
            self.h.dump_logs()
        return out

    # -- assertion helpers

    def assertJsonResponse(self, r: Response, status: int):
        self.assertEqual(r.status, status, r)
        self.assertTrue(json_ct_ok(r.headers), f"Content-Type {r.headers.get('content-type')!r}: {r!r}")
        self.assertIsInstance(r.body, dict, r)
        return r.body

    def assert401(self, r: Response, kind: str, locale: str = "en"):
        body = self.assertJsonResponse(r, 401)
        self.assertEqual(set(body), {"success", "message", "data"}, r)
        self.assertIs(body["success"], False)
        self.assertIsNone(body["data"])
        self.assertEqual(body["message"], MSG[locale][kind], r)
        self.assertNotIn("retry-after", r.headers, r)
        self.assertNotIn("x-ratelimit-limit", r.headers, r)
        self.assertNotIn("x-ratelimit-remaining", r.headers, r)

    def assert403(self, r: Response, scope: str, locale: str = "en"):
        body = self.assertJsonResponse(r, 403)
        self.assertEqual(set(body), {"success", "message", "data"}, r)
        self.assertIs(body["success"], False)
        self.assertIsNone(body["data"])
        self.assertEqual(body["message"], MSG[locale]["forbidden"].format(scope=scope), r)
        self.assertNotIn("retry-after", r.headers, r)

    def assertSuccess(self, r: Response, status: int = 200):
        body = self.assertJsonResponse(r, status)
        self.assertEqual(set(body), {"success", "message", "data"}, r)
        self.assertIs(body["success"], True)
        self.assertIsInstance(body["message"], str)
        self.assertTrue(body["message"], r)
        return body["data"]

    def assertIso(self, value):
        self.assertIsInstance(value, str)
        self.assertRegex(value, ISO_RE)

    def assertServerAlive(self, server: Server | None = None):
        server = server or self.server
        self.assertTrue(server.alive(), f"server process exited with {server.proc.returncode}")
        self.assertTrue(server.healthy(), "GET /healthz does not answer 200")


def poll(fn, timeout: float = 2.0, interval: float = 0.05):
    """Call fn() until it returns a truthy value or timeout passes; returns the last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(interval)


def avoid_window_edge(window: float = 60.0, margin: float = 3.0):
    """Sleep past the next multiple of `window` seconds (Unix time) when it is less than `margin`
    away, so that a short burst of requests falls into one fixed counting window."""
    left = window - (time.time() % window)
    if left < margin:
        time.sleep(left + 0.1)
