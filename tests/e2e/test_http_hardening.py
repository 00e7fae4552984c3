"""HTTP/1.1 parsing limits and timeouts, spoken over raw sockets."""

import time
import unittest

from harness import E2ETestCase, MSG_413, MSG_431, json_ct_ok

IDLE = 1
READ = 2
# an error response that ends the connection must be followed by the close well before IDLE
CLOSE_WAIT = 0.8
MSG_408 = "The request body did not arrive in time and was dropped; send the request again."


class HttpHardeningTests(E2ETestCase):
    server_env = {
        "MEDIAGEN_IDLE_TIMEOUT_SECONDS": str(IDLE),
        "MEDIAGEN_READ_TIMEOUT_SECONDS": str(READ),
    }

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    def tearDown(self):
        # after every abuse case the server is alive and answers
        self.assertServerAlive()

    def req(self, method, path, *headers, body=b"", host=True):
        lines = [f"{method} {path} HTTP/1.1"]
        if host:
            lines.append("Host: 127.0.0.1")
        lines += list(headers)
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    def assertRejected(self, conn, allowed=(400,), timeout=READ + 3):
        """Either an allowed error status followed by close, or a close without any response."""
        resp = conn.read_response(timeout=timeout)
        if resp is not None:
            self.assertIn(resp.status, allowed, resp)
            self.assertIsNotNone(conn.wait_closed(CLOSE_WAIT), "connection left open after the error response")
        return resp

    # ---------------------------------------------------------------- keep-alive

    def test_keep_alive_two_requests(self):
        with self.server.raw() as c:
            for _ in range(2):
                self.assertTrue(c.send(self.req("GET", "/healthz")))
                r = c.read_response()
                self.assertIsNotNone(r, "connection closed instead of answering")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.json(), {"status": "ok"})
            self.assertTrue(c.send(self.req("GET", "/api/key", f"X-API-KEY: {self.key['key']}")))
            r = c.read_response()
            self.assertEqual(r.status, 200, r)
            self.assertTrue(json_ct_ok(r.headers), r)

    def test_pipelined_requests(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz") + self.req("GET", "/api/user", f"X-API-KEY: {self.key['key']}")
                   + self.req("GET", "/healthz"))
            statuses = []
            for _ in range(3):
                r = c.read_response()
                self.assertIsNotNone(r, f"closed after {statuses}")
                statuses.append(r.status)
            self.assertEqual(statuses, [200, 200, 200])

    def test_get_with_small_body_keeps_framing(self):
        # A route without a request body may refuse one (413, then close) or skip it; either way the
        # body bytes must never be read as the next request.
        with self.server.raw() as c:
            c.send(self.req("GET", "/api/key", f"X-API-KEY: {self.key['key']}", "Content-Length: 5", body=b'{ }  '))
            r = c.read_response()
            self.assertIsNotNone(r)
            self.assertIn(r.status, (200, 413), r)
            if r.status == 413:
                self.assertEqual(r.json(), {"success": False, "message": MSG_413})
                self.assertIsNotNone(c.wait_closed(CLOSE_WAIT), "connection left open after 413")
                return
            c.send(self.req("GET", "/healthz"))
            r = c.read_response()
            self.assertIsNotNone(r)
            self.assertEqual(r.status, 200, r)

    def test_connection_close_honoured(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz", "Connection: close"))
            r = c.read_response()
            self.assertEqual(r.status, 200, r)
            self.assertIsNotNone(c.wait_closed(CLOSE_WAIT), "server kept the connection after Connection: close")

    def test_http10_closes(self):
        with self.server.raw() as c:
            c.send(b"GET /healthz HTTP/1.0\r\n\r\n")
            r = c.read_response()
            self.assertIsNotNone(r)
            self.assertEqual(r.status, 200, r)
            self.assertIsNotNone(c.wait_closed(CLOSE_WAIT), "HTTP/1.0 connection without keep-alive left open")

    # ---------------------------------------------------------------- malformed

    def test_malformed_request_lines(self):
        strict = (400, 501, 505)
        cases = [
            (b"GARBAGE\r\n\r\n", strict),
            (b"GET\r\n\r\n", strict),
            (b"GET /healthz\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1 extra\r\n\r\n", strict),
            (b"GET /healthz FTP/1.1\r\nHost: x\r\n\r\n", strict),
            (b"\x00\x01\x02\x03\r\n\r\n", strict),
            (b"\xff\xfe GET / HTTP/1.1\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", strict),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked, rubbish\r\n\r\n", strict),
            # a route without a body may answer before it reads the broken chunk; it must close afterwards
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n",
             strict + (200,)),
        ]
        for raw, allowed in cases:
            with self.subTest(raw=raw[:40]):
                with self.server.raw() as c:
                    c.send(raw)
                    self.assertRejected(c, allowed=allowed)
                self.assertServerAlive()

    def test_unsupported_version(self):
        with self.server.raw() as c:
            c.send(b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n")
            self.assertRejected(c, allowed=(400, 505))

    def test_content_length_and_chunked_closes(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz", "Content-Length: 4", "Transfer-Encoding: chunked",
                            body=b"0\r\n\r\n"))
            r = c.read_response(timeout=READ + 3)
            if r is not None:
                self.assertIn(r.status, (200, 400), r)
            self.assertIsNotNone(c.wait_closed(CLOSE_WAIT),
                                 "Content-Length with Transfer-Encoding must close the connection")

    def test_random_bytes(self):
        for p in (bytes(range(256)) * 4, b"\r\n" * 2000):
            with self.server.raw() as c:
                c.send(p)
                self.assertRejected(c, allowed=(400, 408))
            self.assertServerAlive()
        with self.server.raw() as c:
            c.send(b"GET " + b"/" * 3000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            r = c.read_response(timeout=READ + 3)
            if r is not None:
                self.assertIn(r.status, (400, 404, 414, 431), r)

    # ---------------------------------------------------------------- size limits

    def test_header_over_limit(self):
        big = "X-Big: " + "a" * 9000
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz", big))
            r = self.assertRejected(c, allowed=(431,))
            if r is not None:
                self.assertEqual(r.json(), {"success": False, "message": MSG_431})

    def test_many_headers_over_limit(self):
        headers = [f"X-H{i}: " + "b" * 90 for i in range(120)]
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz", *headers))
            r = self.assertRejected(c, allowed=(431,))
            if r is not None:
                self.assertEqual(r.json(), {"success": False, "message": MSG_431})

    def test_headers_just_under_limit_ok(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz", "X-Pad: " + "c" * 6000))
            r = c.read_response()
            self.assertIsNotNone(r)
            self.assertEqual(r.status, 200, r)

    def test_long_uri(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/api/" + "u" * 9000))
            self.assertRejected(c, allowed=(414, 431, 400))

    def check_413(self, *headers, method="GET", path="/api/user"):
        with self.server.raw() as c:
            start = time.monotonic()
            c.send(self.req(method, path, *headers))
            r = c.read_response(timeout=READ + 3)
            self.assertIsNotNone(r, "connection closed without a 413")
            self.assertLess(time.monotonic() - start, READ,
                            "413 must be sent without waiting for the body")
            self.assertEqual(r.status, 413, r)
            self.assertTrue(json_ct_ok(r.headers), r)
            self.assertEqual(r.json(), {"success": False, "message": MSG_413})
            self.assertIsNotNone(c.wait_closed(CLOSE_WAIT), "connection left open after 413")

    def test_413_ten_megabytes(self):
        for path in ("/api/user", "/api/key"):
            with self.subTest(path=path):
                self.check_413(f"X-API-KEY: {self.key['key']}", "Content-Length: 10485760",
                               "Content-Type: application/json", path=path)

    def test_413_without_key_precedes_auth(self):
        self.check_413("Content-Length: 10485760")

    def test_413_just_over_default_limit(self):
        self.check_413(f"X-API-KEY: {self.key['key']}", "Content-Length: 1048577")

    def test_413_with_expect_continue(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/api/user", f"X-API-KEY: {self.key['key']}", "Content-Length: 10485760",
                            "Expect: 100-continue"))
            r = c.read_response(timeout=READ + 3)
            self.assertIsNotNone(r)
            self.assertEqual(r.status, 413, "must refuse instead of answering 100 Continue")

    def test_413_chunked_over_limit(self):
        chunk = b"y" * 65536
        with self.server.raw(timeout=10) as c:
            c.send(self.req("GET", "/api/key", f"X-API-KEY: {self.key['key']}", "Transfer-Encoding: chunked"))
            sent = 0
            while sent < 2 * 1048576:
                if not c.send(b"10000\r\n" + chunk + b"\r\n"):
                    break
                sent += len(chunk)
            c.send(b"0\r\n\r\n")
            try:
                r = c.read_response(timeout=READ + 3)
            except AssertionError:
                r = None
            if r is not None:
                self.assertEqual(r.status, 413, r)
            self.assertIsNotNone(c.wait_closed(CLOSE_WAIT), "connection left open after an oversized chunked body")

    def test_405_with_large_declared_body_closes(self):
        with self.server.raw() as c:
            start = time.monotonic()
            c.send(self.req("POST", "/api/key", "Content-Length: 10485760"))
            r = c.read_response(timeout=READ + 3)
            self.assertIsNotNone(r)
            self.assertLess(time.monotonic() - start, READ)
            self.assertEqual(r.status, 405, r)
            self.assertIsNotNone(c.wait_closed(READ + 3), "unread body left on a kept-alive connection")

    # ---------------------------------------------------------------- timeouts

    def test_idle_connection_closed(self):
        with self.server.raw() as c:
            elapsed = c.wait_closed(IDLE + 4)
            self.assertIsNotNone(elapsed, "silent connection never closed")
            self.assertGreaterEqual(elapsed, IDLE - 0.5)
            self.assertLessEqual(elapsed, READ + 1.5)
            if c.buf:
                self.assertTrue(c.buf.startswith(b"HTTP/1.1 408"), c.buf[:100])

    def test_keep_alive_idle_closed(self):
        with self.server.raw() as c:
            c.send(self.req("GET", "/healthz"))
            self.assertEqual(c.read_response().status, 200)
            elapsed = c.wait_closed(IDLE + 4)
            self.assertIsNotNone(elapsed, "idle keep-alive connection never closed")
            self.assertGreaterEqual(elapsed, IDLE - 0.5)
            self.assertLessEqual(elapsed, IDLE + 1.5)

    def slow_send(self, conn, prefix: bytes, trickle: bytes, interval=0.5, limit=READ + 6):
        start = time.monotonic()
        if not conn.send(prefix):
            return 0.0
        for b in trickle:
            if conn.wait_closed(interval) is not None:
                return time.monotonic() - start
            if not conn.send(bytes([b])):
                return time.monotonic() - start
            if time.monotonic() - start > limit:
                return None
        return None

    def test_slowloris_headers(self):
        with self.server.raw() as c:
            elapsed = self.slow_send(c, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", b"X-Slow: " + b"a" * 100)
            self.assertIsNotNone(elapsed, "slow header sender never cut off")
            self.assertGreaterEqual(elapsed, READ - 0.6)
            self.assertLessEqual(elapsed, READ + 1.5)
            if c.buf:
                self.assertTrue(c.buf.startswith(b"HTTP/1.1 408"), c.buf[:100])

    def test_slowloris_body(self):
        with self.server.raw() as c:
            head = self.req("GET", "/api/key", f"X-API-KEY: {self.key['key']}", "Content-Length: 100")
            elapsed = self.slow_send(c, head, b"z" * 100)
            self.assertIsNotNone(elapsed, "slow body sender never cut off")
            self.assertLessEqual(elapsed, READ + 1.5)
            if c.buf:
                # a route that takes no body may refuse it at once; otherwise only a timeout answer fits
                self.assertTrue(c.buf.startswith(b"HTTP/1.1 408") or c.buf.startswith(b"HTTP/1.1 413"),
                                c.buf[:100])

    def test_stalled_json_body_is_408(self):
        # A JSON route whose body stops coming: the read timeout answers 408 in the plain envelope and
        # closes, never 400 (the bytes that came were not malformed, there were just too few).
        for sent in (b"", b'{"template_id": '):
            with self.server.raw() as c:
                head = self.req("POST", "/api/orders", f"X-API-KEY: {self.key['key']}",
                                "Content-Type: application/json", "Content-Length: 100")
                self.assertTrue(c.send(head + sent))
                r = c.read_response(timeout=READ + 3)
                self.assertIsNotNone(r, "no answer to a stalled body")
                self.assertEqual(r.status, 408, r)
                self.assertEqual(r.json(), {"success": False, "message": MSG_408}, r)
                self.assertIsNotNone(c.wait_closed(CLOSE_WAIT), "connection left open after the 408")
        self.assertServerAlive()

    def test_many_idle_connections_do_not_block(self):
        conns = [self.server.raw() for _ in range(100)]
        try:
            r = self.server.request("GET", "/healthz", timeout=5)
            self.assertEqual(r.status, 200)
            r = self.server.api("GET", "/user", self.key["key"])
            self.assertEqual(r.status, 200)
        finally:
            for c in conns:
                c.close()

    def test_half_request_then_close(self):
        for _ in range(20):
            with self.server.raw() as c:
                c.send(b"GET /api/user HTTP/1.1\r\nHost: x\r\nX-API-")
        self.assertServerAlive()


if __name__ == "__main__":
    unittest.main()
