"""SQL for the e2e harness over PostgreSQL's wire protocol (version 3, simple query), in place of a
psql process per statement: the suite ran about 8,800 of them, 6 core-minutes of psql start-up
alone. Each call is still its own connection, closed after it, so a call behaves as `psql -c`
did: its statements are one implicit transaction unless it says BEGIN/COMMIT, nothing of a
session outlives it, and other sessions see the same backends come and go.

Output is psql's `-X -q -A -t -F '\t'`: one line per row of every statement that returns rows,
fields tab-separated, NULL as an empty field. An error raises Refused with psql's text
("ERROR:  ...", "DETAIL:  ..."). Only trust authentication over TCP is spoken: for a URL with a
password, query parameters or no host, Unsupported tells the caller to run psql instead."""

from __future__ import annotations

import socket
import struct
import urllib.parse

PROTOCOL_3 = 196608


class Unsupported(Exception):
    """A URL or an authentication method this client does not speak."""


class Refused(Exception):
    """The server answered with an error (or the connection failed); str() is psql's text."""


def _target(url: str):
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("postgres", "postgresql") or u.password or u.query or u.fragment or not u.hostname:
        raise Unsupported(url)
    return u.hostname, u.port or 5432, urllib.parse.unquote(u.username or "postgres"), \
        urllib.parse.unquote(u.path.lstrip("/")) or urllib.parse.unquote(u.username or "postgres")


def _error_text(body: bytes) -> str:
    fields = {}
    for part in body.split(b"\0"):
        if part:
            fields[chr(part[0])] = part[1:].decode("utf-8", "replace")
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
        params = b"".join(k + b"\0" + v.encode() + b"\0" for k, v in (
            (b"user", user), (b"database", db), (b"client_encoding", "UTF8"), (b"application_name", "psql")))
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
                raise Refused(f"psql: error: {e}") from None
            if not data:
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
        out, error = [], None
        while True:
            kind, payload = self._message()
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
                if error is not None:
                    raise Refused(error)
                return "".join(out)

    def close(self):
        try:
            self.sock.sendall(b"X" + struct.pack("!i", 4))
        except OSError:
            pass
        self.sock.close()


def run(url: str, sql: str, timeout: float = 60.0) -> str:
    """What `psql -X -q -A -t -F '\\t' -d URL -c SQL` prints; Refused for what it would fail on."""
    conn = _Conn(url, timeout)
    try:
        return conn.query(sql)
    finally:
        conn.close()
