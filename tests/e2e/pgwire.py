"""SQL for the e2e harness over PostgreSQL's wire protocol (version 3, simple query), in place of a
psql process per statement: the suite ran about 8,800 of them, 6 core-minutes of psql start-up
alone. A call behaves as `psql -c` did: its statements are one implicit transaction unless it says
BEGIN/COMMIT, and nothing of its session outlives it. The session itself is kept for the next call
to the same URL: a new backend costs about 55 ms of CPU on a machine whose page faults are dear,
and the suite made about 10,000 of them. After each call the session is reset (`DISCARD ALL`);
a call that leaves a transaction open, or fails on the connection, closes it instead, which rolls
back as psql's exit did. A kept session that the server ended while it was idle (a terminated
backend, a restart) has something to read before the next call: that call opens a new one; a
backend terminated an instant before the call answers FATAL 57P01 before it reads the query, and
the call is sent again on a new session. Kept
sessions name themselves APPLICATION_NAME, which tests that signal "every other backend" of a
database leave out.

Output is psql's `-X -q -A -t -F '\t'`: one line per row of every statement that returns rows,
fields tab-separated, NULL as an empty field. An error raises Refused with psql's text
("ERROR:  ...", "DETAIL:  ..."). Only trust authentication over TCP is spoken: for a URL with a
password, query parameters or no host, Unsupported tells the caller to run psql instead."""

from __future__ import annotations

import select
import socket
import struct
import threading
import urllib.parse

PROTOCOL_3 = 196608
APPLICATION_NAME = "e2e harness"


class Unsupported(Exception):
    """A URL or an authentication method this client does not speak."""


class Refused(Exception):
    """The server answered with an error (or the connection failed); str() is psql's text."""


class _Terminated(Refused):
    """The session was terminated (FATAL 57P01) before it answered anything else: an idle kept
    session whose end had not reached us yet, so the call never ran."""


def _target(url: str):
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("postgres", "postgresql") or u.password or u.query or u.fragment or not u.hostname:
        raise Unsupported(url)
    return u.hostname, u.port or 5432, urllib.parse.unquote(u.username or "postgres"), \
        urllib.parse.unquote(u.path.lstrip("/")) or urllib.parse.unquote(u.username or "postgres")


def _error_fields(body: bytes) -> dict:
    fields = {}
    for part in body.split(b"\0"):
        if part:
            fields[chr(part[0])] = part[1:].decode("utf-8", "replace")
    return fields


def _error_text(body: bytes) -> str:
    fields = _error_fields(body)
    lines = [f"{fields.get('S', 'ERROR')}:  {fields.get('M', '')}"]
    if "D" in fields:
        lines.append(f"DETAIL:  {fields['D']}")
    if "H" in fields:
        lines.append(f"HINT:  {fields['H']}")
    return "\n".join(lines)


class _Conn:
    def __init__(self, url: str, timeout: float):
        host, port, user, db = _target(url)
        try:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            raise Refused(f'psql: error: connection to server at "{host}", port {port} failed: {e}') from None
        self.sock.settimeout(timeout)
        self.buf = bytearray()
        self.status = b"I"  # ReadyForQuery's transaction status after the last call
        self.alive = True  # False once the connection failed under a call
        params = b"".join(k + b"\0" + v.encode() + b"\0" for k, v in (
            (b"user", user), (b"database", db), (b"client_encoding", "UTF8"), (b"application_name", APPLICATION_NAME)))
        body = struct.pack("!i", PROTOCOL_3) + params + b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        while True:
            kind, payload = self._message()
            if kind == b"R":
                if struct.unpack("!i", payload[:4])[0] != 0:
                    self.close()
                    raise Unsupported("authentication other than trust")
            elif kind == b"E":
                self.close()
                raise Refused(f"psql: error: {_error_text(payload)}")
            elif kind == b"Z":
                return

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            try:
                data = self.sock.recv(65536)
            except OSError as e:
                self.alive = False
                raise Refused(f"psql: error: {e}") from None
            if not data:
                self.alive = False
                raise Refused("psql: error: server closed the connection unexpectedly")
            self.buf += data
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def _message(self):
        head = self._read(5)
        return head[:1], self._read(struct.unpack("!i", head[1:])[0] - 4)

    def query(self, sql: str) -> str:
        text = sql.encode("utf-8") + b"\0"
        self.sock.sendall(b"Q" + struct.pack("!i", len(text) + 4) + text)
        out, error, first = [], None, True
        while True:
            kind, payload = self._message()
            if first and kind == b"E":
                fields = _error_fields(payload)
                if fields.get("V") == "FATAL" and fields.get("C") == "57P01":
                    self.alive = False
                    raise _Terminated(_error_text(payload))
            first = False
            if kind == b"D":
                n, at, fields = struct.unpack("!h", payload[:2])[0], 2, []
                for _ in range(n):
                    size = struct.unpack("!i", payload[at:at + 4])[0]
                    at += 4
                    if size < 0:
                        fields.append("")
                    else:
                        fields.append(payload[at:at + size].decode("utf-8", "replace"))
                        at += size
                out.append("\t".join(fields) + "\n")
            elif kind == b"E":
                error = _error_text(payload)
            elif kind == b"G":  # COPY FROM STDIN: psql -c has no data to give either
                self.sock.sendall(b"f" + struct.pack("!i", 4 + 1) + b"\0")
            elif kind == b"d":  # COPY TO STDOUT: psql prints the rows as they come
                out.append(payload.decode("utf-8", "replace"))
            elif kind == b"Z":
                self.status = payload[:1]
                if error is not None:
                    raise Refused(error)
                return "".join(out)

    def close(self):
        try:
            self.sock.sendall(b"X" + struct.pack("!i", 4))
        except OSError:
            pass
        self.sock.close()


_idle: dict[str, _Conn] = {}
_idle_lock = threading.Lock()


def _take(url: str, timeout: float) -> tuple[_Conn, bool]:
    """A session for the URL, and whether it was kept from an earlier call."""
    with _idle_lock:
        conn = _idle.pop(url, None)
    if conn is not None:
        # An idle session has nothing to say unless the server ended it (FATAL, then EOF).
        readable, _, _ = select.select([conn.sock], [], [], 0)
        if not readable:
            conn.sock.settimeout(timeout)
            return conn, True
        conn.close()
    return _Conn(url, timeout), False


def _give_back(url: str, conn: _Conn):
    if conn.status != b"I":
        conn.close()  # a transaction left open: closing rolls it back, as psql's exit did
        return
    try:
        conn.query("DISCARD ALL")
    except (Refused, OSError):
        conn.close()
        return
    with _idle_lock:
        extra = _idle.get(url)
        if extra is None:
            _idle[url] = conn
    if extra is not None:
        conn.close()


def run(url: str, sql: str, timeout: float = 60.0) -> str:
    """What `psql -X -q -A -t -F '\\t' -d URL -c SQL` prints; Refused for what it would fail on."""
    conn, kept = _take(url, timeout)
    try:
        try:
            out = conn.query(sql)
        except _Terminated:
            if not kept:
                raise
            conn.close()
            conn = _Conn(url, timeout)
            out = conn.query(sql)
    except Refused:
        # An SQL error leaves a usable session; a broken connection leaves none.
        if conn.status == b"I" and conn.alive:
            _give_back(url, conn)
        else:
            conn.close()
        raise
    except BaseException:
        conn.close()
        raise
    _give_back(url, conn)
    return out
