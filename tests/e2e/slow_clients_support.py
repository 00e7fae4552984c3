"""Clients of the slow-client drill (test_chaos_slow_clients): slow-header and slow-body senders
and idle Pusher sockets by the thousand, on one asyncio loop in a thread of their own, plus
honest clients timed on threads and a sampler of the server's descriptors and memory.

slowhttptest's -H and -B modes are what these senders do, but slowhttptest cannot send an API
key (a slow body without one is refused 401 before the body is read, so the body timeout is never
reached), cannot spread its sockets over source addresses, and reports only per-second totals, not
when each connection was closed. These senders record, per connection, its first byte, when the
server closed it and what it answered first."""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import resource
import struct
import threading
import time
from dataclasses import dataclass, field

from hostile_support import fd_count
from realtime_support import rss_kib, sign
from ws_client import jdump


def raise_fd_limit(wanted: int):
    """This process holds every attacking socket: its soft descriptor limit goes up to what the
    hard one allows (the server raises its own at start)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def source_addresses(subnet: int, count: int, per_address: int = 100) -> list[str]:
    """Loopback source addresses 127.<subnet>.x.y, `per_address` sockets each: the attack comes
    from many clients, none of them the honest clients' 127.0.0.1."""
    n = (count + per_address - 1) // per_address
    return [f"127.{subnet}.{1 + i // 250}.{1 + i % 250}" for i in range(n)]


def percentile(values, q: float):
    """The q-quantile (0..1) of the values, nearest rank; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


# --------------------------------------------------------------------------- the loop


class Loop:
    """An asyncio loop on a daemon thread; coroutines are handed to it from the test's thread."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def submit(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro, timeout: float):
        return self.submit(coro).result(timeout)

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


# --------------------------------------------------------------------------- slow HTTP senders


@dataclass
class Slow:
    kind: str
    first_byte: float | None = None
    closed: float | None = None      # when the server closed (EOF or reset); None: it never did
    answer: bytes = b""
    error: str = ""

    def status(self) -> str:
        """The first answer's status code, or "none" when the server closed without one."""
        if not self.answer.startswith(b"HTTP/1.1 "):
            return "none" if not self.answer else "garbage"
        return self.answer[9:12].decode("latin-1")


def slow_header_request() -> tuple[bytes, bytes]:
    """slowhttptest -H: a request line and a header, then one more header line per tick; the
    blank line that ends the header never comes."""
    return b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n", b"X-Slow: a\r\n"


def slow_body_request(path: str, key: str, length: int = 4096) -> tuple[bytes, bytes]:
    """slowhttptest -B: a complete header of a JSON POST with a valid key and a Content-Length,
    then a few body bytes per tick."""
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{\"input_text\": \"")
    return head.encode(), b"aa"


async def slow_sender(rec: Slow, host, port, source, first: bytes, piece: bytes, interval: float,
                      give_up: float, opened: asyncio.Semaphore):
    """Sends `first`, then `piece` every `interval` seconds, until the server closes the
    connection (recorded) or `give_up` seconds have passed since the first byte (closed stays
    None: the server never cut the sender off)."""
    async with opened:
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        except OSError as e:
            rec.error = f"connect: {e!r}"
            return
    try:
        writer.write(first)
        rec.first_byte = time.monotonic()
        while time.monotonic() - rec.first_byte < give_up:
            try:
                data = await asyncio.wait_for(reader.read(4096), interval)
            except asyncio.TimeoutError:
                writer.write(piece)
                await writer.drain()
                continue
            if not data:
                rec.closed = time.monotonic()
                return
            rec.answer += data
    except (ConnectionError, OSError):
        rec.closed = time.monotonic()
    finally:
        writer.close()


# --------------------------------------------------------------------------- idle Pusher sockets


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame (payloads here are small)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    return head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload))


async def read_frame(reader):
    """(opcode, payload) of the next server frame."""
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", await reader.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", await reader.readexactly(8))[0]
    if b1 & 0x80:
        await reader.readexactly(4)
    return b0 & 0x0F, await reader.readexactly(n)


@dataclass
class Idle:
    subscribed: bool = False
    pings: int = 0                   # server pusher:ping frames answered with pusher:pong
    closed: str = ""                 # how the server ended the socket, if it did
    answered_at_end: bool = False    # a final pusher:ping got its pusher:pong
    problems: list = field(default_factory=list)


class IdleSockets:
    """Pusher sockets that complete the handshake, subscribe to a private channel with the
    signature the auth endpoint issues, then stay silent, answering the server's pings. `finish`
    asks each for a last pusher:ping round trip and closes it."""

    def __init__(self, loop: Loop, host, port, path, channel):
        self.loop, self.host, self.port, self.path, self.channel = loop, host, port, path, channel
        self.sockets: list[Idle] = []
        self._stop = None
        self._tasks = []

    def open(self, count: int, sources: list[str], timeout: float):
        """Opens them all; returns when every one is subscribed (or has failed)."""
        async def start():
            self._stop = asyncio.Event()
            gate = asyncio.Semaphore(100)
            ready = []
            for i in range(count):
                rec = Idle()
                self.sockets.append(rec)
                fut = asyncio.get_running_loop().create_future()
                ready.append(fut)
                self._tasks.append(asyncio.create_task(self._run(rec, sources[i % len(sources)], gate, fut)))
            await asyncio.gather(*ready)
        self.loop.run(start(), timeout)

    def finish(self, timeout: float):
        async def stop():
            self._stop.set()
            await asyncio.gather(*self._tasks)
        self.loop.run(stop(), timeout)

    async def _run(self, rec: Idle, source, gate, ready):
        try:
            async with gate:
                reader, writer = await asyncio.open_connection(self.host, self.port, local_addr=(source, 0))
                await self._handshake(rec, reader, writer)
        except (OSError, asyncio.IncompleteReadError, ValueError) as e:
            rec.problems.append(f"setup: {e!r}")
            ready.set_result(None)
            return
        ready.set_result(None)
        try:
            await self._serve(rec, reader, writer)
        except (OSError, asyncio.IncompleteReadError) as e:
            rec.closed = rec.closed or f"dropped: {e!r}"
        finally:
            writer.close()

    async def _handshake(self, rec: Idle, reader, writer):
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ValueError(f"handshake answered {head[:60]!r}")
        op, payload = await asyncio.wait_for(read_frame(reader), 60)
        established = json.loads(payload)
        socket_id = json.loads(established["data"])["socket_id"]
        writer.write(client_frame(0x1, jdump({"event": "pusher:subscribe", "data": {
            "channel": self.channel, "auth": sign(socket_id, self.channel)}})))
        while not rec.subscribed:
            op, payload = await asyncio.wait_for(read_frame(reader), 60)
            event = json.loads(payload).get("event") if op == 0x1 else None
            if event == "pusher_internal:subscription_succeeded":
                rec.subscribed = True
            elif event != "pusher:ping":
                raise ValueError(f"subscription answered {payload[:200]!r}")

    async def _serve(self, rec: Idle, reader, writer):
        """Answers pings until asked to stop, then one round trip and a close. A frame read is
        never cancelled half way (that would lose the frame's head), only waited for again."""
        stopping = asyncio.create_task(self._stop.wait())
        asked, frame = False, None
        while True:
            frame = frame or asyncio.create_task(read_frame(reader))
            done, _ = await asyncio.wait({frame} if asked else {frame, stopping}, timeout=60 if asked else None,
                                         return_when=asyncio.FIRST_COMPLETED)
            if not done:
                rec.problems.append("no pusher:pong to the final ping")
                frame.cancel()
                return
            if frame in done:
                op, payload = frame.result()
                frame = None
                if not self._answer(rec, writer, op, payload, asked):
                    return
            if not asked and stopping.done():
                writer.write(client_frame(0x1, jdump({"event": "pusher:ping", "data": {}})))
                asked = True

    @staticmethod
    def _answer(rec: Idle, writer, op, payload, asked) -> bool:
        """Handles one server frame; False when the socket is done."""
        if op == 0x8:
            rec.closed = f"close frame {payload[:2].hex()} {payload[2:80]!r}"
            return False
        if op == 0x9:
            writer.write(client_frame(0xA, payload))
        elif op == 0x1:
            event = json.loads(payload).get("event")
            if event == "pusher:ping":
                rec.pings += 1
                writer.write(client_frame(0x1, jdump({"event": "pusher:pong", "data": {}})))
            elif event == "pusher:pong" and asked:
                rec.answered_at_end = True
                writer.write(client_frame(0x8, struct.pack(">H", 1000)))
                return False
            else:
                rec.problems.append(f"unexpected frame {payload[:200]!r}")
        return True


# --------------------------------------------------------------------------- measuring the server


class Sampler:
    """Samples the server's open descriptors and RSS every `every` seconds on a thread: the peaks."""

    def __init__(self, pid: int, every: float = 0.25):
        self.pid, self.every = pid, every
        self.fd_peak = self.rss_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                self.fd_peak = max(self.fd_peak, fd_count(self.pid))
                self.rss_peak = max(self.rss_peak, rss_kib(self.pid))
            except (OSError, AssertionError):
                return  # the process is gone: the test reports it
            self._stop.wait(self.every)

    def stop(self):
        self._stop.set()
        self._thread.join(10)


class Honest:
    """Runs `round_fn` every `pace` seconds on a thread until stopped (and at least `min_rounds`
    times). round_fn returns [(label, seconds, problem or None), ...]."""

    def __init__(self, round_fn, pace: float, min_rounds: int = 0):
        self.round_fn, self.pace, self.min_rounds = round_fn, pace, min_rounds
        self.results: list = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def _run(self):
        rounds = 0
        while rounds < self.min_rounds or not self._stop.is_set():
            started = time.monotonic()
            try:
                self.results += self.round_fn()
            except Exception as e:  # any failure is an honest request that did not succeed
                self.results.append(("round", time.monotonic() - started, f"{type(e).__name__}: {e}"))
            rounds += 1
            left = max(0.0, self.pace - (time.monotonic() - started))
            if rounds < self.min_rounds:
                time.sleep(left)  # the paced rounds that must run whether or not stop was asked
            else:
                self._stop.wait(left)

    def stop(self, timeout: float = 300):
        self._stop.set()
        self._thread.join(timeout)
        return self.results

    def latencies(self):
        return [s for _, s, p in self.results if p is None]

    def problems(self):
        return [f"{label}: {p}" for label, _, p in self.results if p is not None]
