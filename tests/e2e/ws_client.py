"""A minimal WebSocket client (RFC 6455) in the standard library, for the hostile realtime cases:
it sends exactly the frames it is told (masked, any opcode, any payload, fragments) and reports
what comes back, down to the close code.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import struct
import time

from harness import OwnsSocket

TIMEOUT = 10.0


def b(x) -> bytes:
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


def jdump(obj) -> bytes:
    """Compact JSON with non-ASCII kept as UTF-8 (what a client library sends)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _strings(obj):
    """Every string in a parsed JSON value, keys included."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


class WsClosed(AssertionError):
    def __init__(self, code, reason=b""):
        super().__init__(f"socket closed with {code} {reason!r}")
        self.code = code
        self.reason = reason


class WsClient(OwnsSocket):
    """A minimal RFC 6455 client: handshake, masked frames of any content, unmasked server frames,
    close codes. Server text frames are checked to be valid UTF-8 JSON as they arrive."""

    def __init__(self, host, port, path, timeout=TIMEOUT, extra_headers=()):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.buf = b""
        self.closed_code = None
        self.problems: list[str] = []
        key = base64.b64encode(os.urandom(16))
        req = [b"GET " + b(path) + b" HTTP/1.1", b"Host: 127.0.0.1", b"Upgrade: websocket", b"Connection: Upgrade",
               b"Sec-WebSocket-Key: " + key, b"Sec-WebSocket-Version: 13"]
        req += [b(n) + b": " + b(v) for n, v in extra_headers]
        self.sock.sendall(b"\r\n".join(req) + b"\r\n\r\n")
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buf:
            if not self._fill(deadline):
                raise WsClosed(None, b"closed during the handshake")
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.head = head
        if self.status == 101:
            accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
            fields = {}
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                fields[name.strip().lower()] = value.strip()
            if fields.get(b"sec-websocket-accept") != accept:
                self.problems.append("bad Sec-WebSocket-Accept")

    # -- raw I/O

    def _fill(self, deadline) -> bool:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("websocket: nothing within the timeout")
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("websocket: nothing within the timeout") from None
        except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError):
            return False
        if not chunk:
            return False
        self.buf += chunk
        return True

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True) -> bool:
        head = bytes([(0x80 if fin else 0) | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(c ^ mask[i % 4] for i, c in enumerate(payload)) if n < 65536 else _mask_big(payload, mask)
        try:
            self.sock.sendall(head + mask + masked)
            return True
        except OSError:
            return False

    def send_text(self, text) -> bool:
        return self.send_frame(0x1, b(text))

    def send_json(self, obj) -> bool:
        return self.send_frame(0x1, jdump(obj))

    def _frame(self, deadline):
        while True:
            if len(self.buf) >= 2:
                b0, b1 = self.buf[0], self.buf[1]
                n = b1 & 0x7F
                off = 2
                if n == 126:
                    if len(self.buf) < 4:
                        n = None
                    else:
                        n, off = struct.unpack(">H", self.buf[2:4])[0], 4
                elif n == 127:
                    if len(self.buf) < 10:
                        n = None
                    else:
                        n, off = struct.unpack(">Q", self.buf[2:10])[0], 10
                if b1 & 0x80:
                    self.problems.append("server frame is masked")
                    off += 4
                if n is not None and len(self.buf) >= off + n:
                    payload = self.buf[off:off + n]
                    self.buf = self.buf[off + n:]
                    return bool(b0 & 0x80), b0 & 0x0F, payload
            if not self._fill(deadline):
                return None

    def recv(self, timeout=None):
        """The next message: ('text', str), ('binary', bytes); raises WsClosed on a close frame or
        EOF and TimeoutError when nothing arrives."""
        deadline = time.monotonic() + (timeout or self.timeout)
        parts, kind = [], None
        while True:
            f = self._frame(deadline)
            if f is None:
                self.closed_code = self.closed_code or 1006
                raise WsClosed(1006, b"connection dropped without a close frame")
            fin, op, payload = f
            if op == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                self.closed_code = code
                try:
                    self.send_frame(0x8, payload[:2])
                except OSError:
                    pass
                raise WsClosed(code, payload[2:])
            if op == 0x9:
                self.send_frame(0xA, payload)
                continue
            if op == 0xA:
                continue
            if op in (0x1, 0x2):
                kind, parts = op, [payload]
            elif op == 0x0:
                parts.append(payload)
            if fin and kind is not None:
                data = b"".join(parts)
                if kind == 0x2:
                    return "binary", data
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    self.problems.append(f"server text frame is not UTF-8: {data[:200]!r}")
                    text = data.decode("utf-8", "replace")
                return "text", text

    def event(self, timeout=None) -> dict:
        """The next text frame as a Pusher frame (dict); its `data` parsed when it is a string."""
        kind, payload = self.recv(timeout)
        if kind != "text":
            self.problems.append("server sent a binary frame")
            return {}
        try:
            frame = json.loads(payload)
        except ValueError:
            self.problems.append(f"server frame is not JSON: {payload[:300]!r}")
            return {}
        for st in _strings(frame):
            try:
                st.encode("utf-8")
            except UnicodeEncodeError:
                self.problems.append(f"server frame carries a lone surrogate: {payload[:300]!r}")
        if isinstance(frame, dict) and isinstance(frame.get("data"), str):
            try:
                frame["data"] = json.loads(frame["data"])
            except ValueError:
                self.problems.append(f"frame data is not JSON text: {payload[:300]!r}")
        return frame

    def events_until(self, pred, timeout=None, limit=50) -> list[dict]:
        got = []
        deadline = time.monotonic() + (timeout or self.timeout)
        while len(got) < limit:
            f = self.event(max(0.05, deadline - time.monotonic()))
            got.append(f)
            if pred(f, got):
                return got
        raise AssertionError(f"condition not met in {got}")

    def connected(self) -> str:
        f = self.event()
        if f.get("event") != "pusher:connection_established":
            raise AssertionError(f"first frame {f}")
        return f["data"]["socket_id"]

    def round_trip(self, timeout=None):
        """pusher:ping -> pusher:pong; the frames seen before the pong are returned."""
        self.send_json({"event": "pusher:ping", "data": {}})
        return self.events_until(lambda f, _: f.get("event") == "pusher:pong", timeout)

    def wait_close(self, timeout=None):
        """The close code the server sends (frames before it are skipped), or 1006 on a bare drop."""
        deadline = time.monotonic() + (timeout or self.timeout)
        try:
            while True:
                self.recv(max(0.05, deadline - time.monotonic()))
        except WsClosed as e:
            return e.code



def _mask_big(payload: bytes, mask: bytes) -> bytes:
    n = len(payload)
    reps = mask * (n // 4 + 1)
    return (int.from_bytes(payload, "big") ^ int.from_bytes(reps[:n], "big")).to_bytes(n, "big")
