"""The soak's wire: a small asyncio HTTP/1.1 client with keep-alive pools, and a WebSocket client
that speaks the Pusher protocol the server's realtime channels use.

Written on asyncio streams rather than a thread per request so that one process can keep a fixed
schedule of hundreds of requests a second on a 2-core machine beside two servers."""

import asyncio
import base64
import json
import os
import struct

TIMEOUT = 30.0


class HttpError(Exception):
    """The connection failed or the answer was not HTTP: counted as a transport error."""


class Answer:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


async def _read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise HttpError(f"bad status line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return int(parts[1]), headers


async def _read_body(reader, headers, method):
    if method == "HEAD":
        return b""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        out = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(out)
            out += await reader.readexactly(size)
            await reader.readexactly(2)
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    return await reader.read()


class Pool:
    """Keep-alive connections to one server from one source address. A request that finds no idle
    connection opens another: the schedule never waits for a free one (open loop)."""

    # Connections kept for reuse past a burst; the rest close, so that the server's descriptor
    # count follows the load's steady concurrency rather than its highest.
    MAX_IDLE = 24

    def __init__(self, host, port, source="127.0.0.1"):
        self.host, self.port, self.source = host, port, source
        self.idle = []
        self.opened = 0

    async def _connect(self):
        self.opened += 1
        return await asyncio.open_connection(self.host, self.port, local_addr=(self.source, 0))

    async def request(self, method, path, headers=None, body=None, timeout=TIMEOUT):
        conn = self.idle.pop() if self.idle else None
        try:
            return await asyncio.wait_for(self._exchange(conn, method, path, headers or {}, body), timeout)
        except (asyncio.TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ValueError) as e:
            raise HttpError(f"{type(e).__name__}: {e}") from None

    async def _exchange(self, conn, method, path, headers, body):
        reused = conn is not None
        reader, writer = conn if conn else await self._connect()
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if data is not None:
            if not any(k.lower() == "content-type" for k in headers):
                lines.append("Content-Type: application/json")
            lines.append(f"Content-Length: {len(data)}")
        lines += [f"{k}: {v}" for k, v in headers.items()]
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (data or b""))
            await writer.drain()
            status, head = await _read_head(reader)
        except (OSError, asyncio.IncompleteReadError) as e:
            writer.close()
            if reused:  # the server closed an idle connection: one fresh attempt, as browsers do
                return await self._exchange(None, method, path, headers, body)
            raise HttpError(str(e)) from None
        payload = await _read_body(reader, head, method)
        if head.get("connection", "").lower() == "close" or "content-length" not in head and \
                head.get("transfer-encoding", "").lower() != "chunked":
            writer.close()
        elif len(self.idle) >= self.MAX_IDLE:
            writer.close()
        else:
            self.idle.append((reader, writer))
        return Answer(status, head, payload)

    def close(self):
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def raw_exchange(host, port, data, source, timeout=10.0):
    """Sends bytes as they are on a new connection and reads one answer's status (hostile clients)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=(source, 0)), timeout)
    try:
        writer.write(data)
        await writer.drain()
        status, _ = await asyncio.wait_for(_read_head(reader), timeout)
        return status
    finally:
        writer.close()


class PusherSocket:
    """One WebSocket to /app/{key}, subscribed to private channels through /broadcasting/auth."""

    def __init__(self, host, port, app_key):
        self.host, self.port, self.app_key = host, port, app_key
        self.socket_id = None
        self.events = []  # (channel, event, data)
        self.closed = False

    async def connect(self):
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write((f"GET /app/{self.app_key}?protocol=7&client=soak&version=8.4.0 HTTP/1.1\r\n"
                           f"Host: {self.host}:{self.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status, _ = await asyncio.wait_for(_read_head(self.reader), TIMEOUT)
        if status != 101:
            raise HttpError(f"WebSocket upgrade answered {status}")
        first = json.loads(await asyncio.wait_for(self._frame(), TIMEOUT))
        if first.get("event") != "pusher:connection_established":
            raise HttpError(f"no connection_established: {first}")
        self.socket_id = json.loads(first["data"])["socket_id"]

    async def _frame(self):
        while True:
            b0, b1 = await self.reader.readexactly(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            payload = await self.reader.readexactly(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                self.closed = True
                raise HttpError("closed by the server")
            if opcode == 0x9:
                await self._send(0xA, payload)
            elif opcode == 0x1:
                return payload.decode()

    async def _send(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
        self.writer.write(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        await self.writer.drain()

    async def send_json(self, obj):
        await self._send(0x1, json.dumps(obj).encode())

    async def subscribe(self, channel, auth):
        await self.send_json({"event": "pusher:subscribe", "data": {"channel": channel, "auth": auth}})

    async def unsubscribe(self, channel):
        await self.send_json({"event": "pusher:unsubscribe", "data": {"channel": channel}})

    async def listen(self):
        """Reads until closed: answers pusher:ping, keeps every channel event."""
        try:
            while True:
                msg = json.loads(await self._frame())
                event = msg.get("event", "")
                if event == "pusher:ping":
                    await self.send_json({"event": "pusher:pong", "data": {}})
                elif not event.startswith(("pusher:", "pusher_internal:")):
                    data = msg.get("data")
                    self.events.append((msg.get("channel"), event, json.loads(data) if isinstance(data, str) else data))
        except (HttpError, OSError, asyncio.IncompleteReadError, ValueError):
            self.closed = True

    def close(self):
        try:
            self.writer.close()
        except Exception:  # closing is best effort at the end of the run
            pass
