"""SIGTERM drains and exits 0 (CONTRACTS: stop accepting, finish in-flight requests, exit 0)."""

import signal
import socket
import time
import unittest

from harness import E2ETestCase

GRACE = 4


class ShutdownTests(E2ETestCase):
    start_server = False
    srv_env = {"MEDIAGEN_SHUTDOWN_GRACE_SECONDS": str(GRACE), "MEDIAGEN_IDLE_TIMEOUT_SECONDS": "60",
           "MEDIAGEN_READ_TIMEOUT_SECONDS": "30"}

    @classmethod
    def prepare(cls):
        cls.user, cls.key = cls.h.user_and_key("full")

    def start(self):
        s = self.h.start_server(self.srv_env)
        time.sleep(0.3)  # the race right after start-up has its own test below
        return s

    def test_sigterm_right_after_listening(self):
        for i in range(4):
            s = self.h.start_server(self.srv_env)
            s.signal(signal.SIGTERM)
            code = s.wait_exit(GRACE + 3)
            self.assertEqual(code, 0, f"attempt {i + 1}: SIGTERM just after the listening line gave exit "
                                      f"{code}\n{s.log_tail()}")

    def test_idle_keep_alive_connections(self):
        s = self.start()
        conns = []
        for _ in range(3):
            c = s.raw()
            c.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(c.read_response().status, 200)
            conns.append(c)
        started = time.monotonic()
        s.signal(signal.SIGTERM)
        code = s.wait_exit(GRACE + 3)
        elapsed = time.monotonic() - started
        self.assertIsNotNone(code, f"still running {GRACE + 3}s after SIGTERM")
        self.assertEqual(code, 0, s.log_tail())
        self.assertLess(elapsed, GRACE + 3)
        for c in conns:
            self.assertIsNotNone(c.wait_closed(1), "keep-alive connection not closed")
            c.close()

    def test_partial_request_in_flight(self):
        s = self.start()
        c = s.raw()
        c.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # headers not finished
        time.sleep(0.2)
        s.signal(signal.SIGTERM)
        code = s.wait_exit(GRACE + 3)
        self.assertIsNotNone(code, f"still running {GRACE + 3}s after SIGTERM with a half-sent request")
        self.assertEqual(code, 0, s.log_tail())
        c.close()

    def test_in_flight_request_is_finished(self):
        s = self.start()
        c = s.raw()
        # the request has started arriving (its header block is not finished) when SIGTERM comes
        c.send(b"GET /api/key HTTP/1.1\r\nHost: x\r\nX-API-KEY: " + self.key["key"].encode() + b"\r\n")
        time.sleep(0.3)
        s.signal(signal.SIGTERM)
        time.sleep(0.3)
        c.send(b"\r\n")
        r = c.read_response(timeout=GRACE)
        self.assertIsNotNone(r, "request in flight at SIGTERM was dropped")
        self.assertEqual(r.status, 200, r)
        self.assertIsNotNone(c.wait_closed(GRACE + 1), "connection kept open while draining")
        code = s.wait_exit(GRACE + 3)
        self.assertEqual(code, 0, s.log_tail())

    def test_stops_accepting(self):
        s = self.start()
        c = s.raw()
        c.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # keeps the server draining for a while
        s.signal(signal.SIGTERM)
        time.sleep(0.5)
        if s.alive():
            try:
                with socket.create_connection(s.public, timeout=2) as sock:
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    sock.settimeout(2)
                    try:
                        data = sock.recv(100)
                    except (ConnectionResetError, socket.timeout):
                        data = b""
                    self.assertEqual(data, b"", "a new connection was served after SIGTERM")
            except ConnectionRefusedError:
                pass
        code = s.wait_exit(GRACE + 3)
        self.assertEqual(code, 0, s.log_tail())
        c.close()


if __name__ == "__main__":
    unittest.main()
