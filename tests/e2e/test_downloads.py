"""Large downloads through signed links (spec 4.3): files stream from the store in bounded pieces,
a client that reads slowly keeps its download however long it takes, a cut download resumes
with Range, HEAD answers from the size without reading the file, and slow downloads do not hold
their files in the server's memory.

The files are written straight into the store (its folder, or its bucket with
MEDIAGEN_E2E_STORAGE=s3) and the links signed the way the server signs them (MEDIAGEN_SECRET), so
no order or database row is involved.

Long: `test_slow_downloads_...` paces its clients for about 45 seconds (ten 40 MB downloads at 1 MB/s
beside a 3 MB one at 200 KB/s and a client that stops reading, all at once); ctest labels the
module `long`."""

import base64
import hashlib
import hmac
import os
import socket
import threading
import time
import urllib.parse

from harness import API, E2ETestCase, RawConn, poll
from hostile_support import soak_asan_options
from realtime_support import rss_kib

MB = 1_000_000
LARGE = 40 * MB
MEDIUM = 3 * MB
FOLDER = "orders/5b0c8f0e-7f51-4d8e-9c47-2a4f3c1d9e60"


def sign(secret: str, key: str, expires: int, download: bool) -> str:
    """The link signature of src/storage/link_signer.cpp: HMAC-SHA256, base64url without padding."""
    message = f"mediagen-link-v1\n{len(key)}:{key}\n{expires}\n{'1' if download else '0'}".encode()
    mac = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def proc_field(pid: int, name: str, field: str) -> int:
    """A number from /proc/<pid>/<name> (status: kB; io: bytes)."""
    with open(f"/proc/{pid}/{name}", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/{name}")


class Download:
    """One GET of a link over a raw socket, read at a paced rate and hashed as it arrives (the
    bytes are not kept). `stop_after` stops reading after that many body bytes, leaving the
    connection open; `cut_after` closes it there."""

    def __init__(self, port, target, rate=None, headers=None, stop_after=None, cut_after=None, rcvbuf=None):
        self.port, self.target, self.rate, self.headers = port, target, rate, headers or {}
        self.stop_after, self.cut_after, self.rcvbuf = stop_after, cut_after, rcvbuf
        self.status = None
        self.head = {}
        self.received = 0
        self.sha = hashlib.sha256()
        self.seconds = None
        self.error = None
        self.sock = None

    def _read_head(self, buf):
        while b"\r\n\r\n" not in buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError(f"connection closed before the head: {buf!r}")
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ")[1])
        self.head = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        return rest

    def _take(self, data):
        self.sha.update(data)
        self.received += len(data)

    def run(self):
        try:
            self._run()
        except Exception as e:  # reported by the test that reads .error
            self.error = repr(e)

    def _run(self):
        started = time.monotonic()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.rcvbuf:
            # Before connecting, so that the window the server sees stays small.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        self.sock.settimeout(60)
        self.sock.connect(("127.0.0.1", self.port))
        extra = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        self.sock.sendall(f"GET {self.target} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode())
        self._take(self._read_head(b""))
        length = int(self.head["content-length"])
        limit = min(x for x in (length, self.stop_after, self.cut_after) if x is not None)
        while self.received < limit:
            chunk = self.sock.recv(min(65536, limit - self.received))
            if not chunk:
                break
            self._take(chunk)
            if self.rate:
                ahead = started + self.received / self.rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
        self.seconds = time.monotonic() - started
        if self.cut_after is not None or self.stop_after is None:
            self.sock.close()

    def drain(self, timeout=30.0):
        """For a stopped client: reads what is left until the server closes; True on a close."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    return True
                self._take(chunk)
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
        finally:
            self.sock.close()


class DownloadTests(E2ETestCase):
    # A small ASan quarantine: RSS then shows what the server holds, not what ASan keeps.
    server_env = {"ASAN_OPTIONS": soak_asan_options()}

    @classmethod
    def prepare(cls):
        cls.files = {}
        for name, size in (("large.mp3", LARGE), ("medium.mp3", MEDIUM)):
            data = os.urandom(size)
            cls.h.files.write(f"{FOLDER}/{name}", data)
            cls.files[name] = (size, hashlib.sha256(data).hexdigest(), data)

    def link(self, name, download=True):
        key = f"{FOLDER}/{name}"
        expires = int(time.time()) + 3600
        query = urllib.parse.urlencode({"path": key, "expires": expires, "download": int(download),
                                        "signature": sign(self.server.env["MEDIAGEN_SECRET"], key, expires, download)},
                                       quote_via=urllib.parse.quote, safe="")
        return f"{API}/storage/download?{query}"

    def fetch(self, name, **kw):
        d = Download(self.server.public_port, self.link(name), **kw)
        d.run()
        self.assertIsNone(d.error)
        return d

    def test_head_gives_the_size_without_reading_the_file(self):
        pid = self.server.proc.pid
        before = proc_field(pid, "io", "rchar")
        with RawConn("127.0.0.1", self.server.public_port) as c:
            for _ in range(3):
                self.assertTrue(c.send(f"HEAD {self.link('large.mp3')} HTTP/1.1\r\nHost: x\r\n\r\n".encode()))
                r = c.read_response(timeout=10, head_request=True)
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.headers["content-length"], str(LARGE))
                self.assertEqual(r.headers["content-type"], "audio/mpeg")
                self.assertEqual(r.headers["accept-ranges"], "bytes")
            # No body followed the heads: the connection is quiet, and still serves.
            self.assertTrue(c.send(f"HEAD {self.link('medium.mp3')} HTTP/1.1\r\nHost: x\r\n\r\n".encode()))
            r = c.read_response(timeout=10, head_request=True)
            self.assertEqual((r.status, r.headers["content-length"]), (200, str(MEDIUM)))
            self.assertEqual(c.buf, b"")
        # Three heads of a 40 MB file read (far) less than one 256 KiB piece of it.
        self.assertLess(proc_field(pid, "io", "rchar") - before, 256 * 1024)

    def test_a_cut_download_resumes_with_range_to_the_exact_rest(self):
        size, digest, data = self.files["large.mp3"]
        first = self.fetch("large.mp3", cut_after=5 * MB + 12345)
        self.assertEqual((first.status, first.received), (200, 5 * MB + 12345))
        rest = self.fetch("large.mp3", headers={"Range": f"bytes={first.received}-"})
        self.assertEqual(rest.status, 206)
        self.assertEqual(rest.head["content-range"], f"bytes {first.received}-{size - 1}/{size}")
        self.assertEqual(rest.received, size - first.received)
        self.assertEqual(rest.sha.hexdigest(), hashlib.sha256(data[first.received:]).hexdigest())
        whole = hashlib.sha256(data[:first.received])
        whole.update(data[first.received:])
        self.assertEqual(whole.hexdigest(), digest)
        self.assertServerAlive()

    def test_a_read_that_fails_mid_stream_closes_that_connection_only(self):
        path = f"{FOLDER}/cut.mp3"
        self.h.files.write(path, os.urandom(20 * MB))
        stopped = Download(self.server.public_port, self.link("cut.mp3"), stop_after=MB, rcvbuf=64 * 1024)
        self.addCleanup(lambda: stopped.sock and stopped.sock.close())
        stopped.run()
        self.assertIsNone(stopped.error)
        # Cut under the reader (the store itself never does): a folder's file is truncated in place
        # and its next piece comes back short; an S3 object is replaced and the reader, pinned to
        # the version it opened, is refused the next range.
        self.h.files.write(path, b"")
        self.assertTrue(stopped.drain(), "the connection stayed open after a failed read")
        self.assertLess(stopped.received, 20 * MB)
        self.assertTrue(poll(lambda: any("download cut" in line for line in self.server.log_lines()), timeout=10))
        # Everything else goes on: another download on another connection.
        self.assertEqual(self.fetch("medium.mp3").sha.hexdigest(), self.files["medium.mp3"][1])
        self.assertServerAlive()

    def test_streamed_bodies_keep_the_connection_alive(self):
        size, _, data = self.files["medium.mp3"]
        with RawConn("127.0.0.1", self.server.public_port, timeout=30) as c:
            requests = [("GET", {}, data), ("HEAD", {}, b""), ("GET", {"Range": "bytes=-1000"}, data[-1000:]),
                        ("GET", {"Range": f"bytes={size}-"}, None)]
            for method, headers, want in requests:
                extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                self.assertTrue(c.send(f"{method} {self.link('medium.mp3')} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode()))
                r = c.read_response(timeout=30, head_request=method == "HEAD")
                self.assertIsNotNone(r, method)
                if want is None:
                    self.assertEqual((r.status, r.headers["content-range"]), (416, f"bytes */{size}"))
                else:
                    self.assertEqual(r.body, want, (method, headers))
                    self.assertNotIn("connection", r.headers)

    def test_slow_downloads_complete_and_do_not_hold_files_in_memory(self):
        size, digest, _ = self.files["large.mp3"]
        pid = self.server.proc.pid
        # Warm-up: one fast download, so the baseline includes what any download leaves behind.
        self.assertEqual(self.fetch("medium.mp3").sha.hexdigest(), self.files["medium.mp3"][1])
        baseline_rss, baseline_hwm = proc_field(pid, "status", "VmRSS"), proc_field(pid, "status", "VmHWM")

        port = self.server.public_port
        large = [Download(port, self.link("large.mp3"), rate=MB, rcvbuf=64 * 1024) for _ in range(10)]
        medium = Download(port, self.link("medium.mp3"), rate=200_000, rcvbuf=64 * 1024)
        # Reads 1 MB, then nothing: the server must give up on it once writes stop moving.
        stalled = Download(port, self.link("large.mp3"), stop_after=MB, rcvbuf=64 * 1024)
        clients = large + [medium, stalled]
        self.addCleanup(lambda: [d.sock.close() for d in clients if d.sock])
        threads = [threading.Thread(target=d.run, daemon=True) for d in clients]
        for t in threads:
            t.start()
        peak_rss = baseline_rss
        while any(t.is_alive() for t in threads[:-1]):
            peak_rss = max(peak_rss, rss_kib(pid))
            time.sleep(0.2)
        for t in threads:
            t.join(timeout=120)
        hwm = proc_field(pid, "status", "VmHWM")

        for d in clients:
            self.assertIsNone(d.error)
            self.assertIn(d.status, (200,))
        for d in large:
            self.assertEqual((d.received, d.sha.hexdigest()), (size, digest))
        self.assertEqual((medium.received, medium.sha.hexdigest()), (MEDIUM, self.files["medium.mp3"][1]))
        # Longer than the single 10-second deadline a response once had.
        self.assertGreater(medium.seconds, 12)
        self.assertTrue(stalled.drain(), "the stalled client's connection is still open")
        self.assertLess(stalled.received, size)

        growth_kib = peak_rss - baseline_rss
        print(f"\nRSS: baseline {baseline_rss} KiB, peak {peak_rss} KiB (+{growth_kib} KiB) during ten 40 MB "
              f"downloads at 1 MB/s; VmHWM {baseline_hwm} -> {hwm} KiB")
        self.assertLess(growth_kib * 1024, size, "ten slow downloads grew RSS by a file's size")
        self.assertLess((hwm - baseline_rss) * 1024, size, "the peak RSS grew by a file's size")
        self.assertServerAlive()


if __name__ == "__main__":
    import unittest
    unittest.main()
