"""The model test's check of a webhook's signed time across jumps of the server's clock
(tests/e2e/model_hooks.signed_in_time): a delivery signed just before a jump and received just
after it is in time; a timestamp from a clock that missed a jump, or one signed too long ago, is
not."""

from __future__ import annotations

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from model_clock import ServerClock  # noqa: E402
from model_hooks import TOLERANCE_SECONDS, signed_in_time  # noqa: E402

JUMP = 1500  # the model's shortest jump, 25 minutes


class SignedInTimeTest(unittest.TestCase):
    def setUp(self):
        self.clock = ServerClock()
        self.addCleanup(self.clock.remove)
        self.base = time.monotonic()
        # Offset 0 since 100 s ago, one jump of 25 minutes 10 s ago.
        self.clock.history = [(self.base - 100, 0), (self.base - 10, JUMP)]
        self.wall = time.time() - time.monotonic()

    def delivery(self, signed_at, offset, arrived_at):
        """Signed at real moment signed_at (monotonic) with the server's clock at offset, received
        at arrived_at."""
        return {"mono": arrived_at * 1000, "headers": {"webhook-timestamp": str(int(signed_at + self.wall + offset))}}

    def test_a_delivery_in_flight_across_a_jump_is_in_time(self):
        # Seed 328's case: signed 0.4 s before the jump, received after it.
        self.assertTrue(signed_in_time(self.delivery(self.base - 10.4, 0, self.base - 9.9), self.clock))

    def test_a_delivery_signed_after_the_jump_is_in_time(self):
        self.assertTrue(signed_in_time(self.delivery(self.base - 5, JUMP, self.base - 4.5), self.clock))

    def test_a_clock_that_missed_the_jump_is_caught(self):
        self.assertFalse(signed_in_time(self.delivery(self.base - 5, 0, self.base - 4.5), self.clock))

    def test_a_clock_ahead_of_the_server_is_caught(self):
        self.assertFalse(signed_in_time(self.delivery(self.base - 50, JUMP, self.base - 49.5), self.clock))

    def test_a_signature_older_than_the_tolerance_is_caught(self):
        self.clock.history = [(self.base - 1000, 0)]
        late = TOLERANCE_SECONDS + 20
        self.assertFalse(signed_in_time(self.delivery(self.base - late, 0, self.base), self.clock))
        self.assertTrue(signed_in_time(self.delivery(self.base - TOLERANCE_SECONDS + 20, 0, self.base), self.clock))


if __name__ == "__main__":
    unittest.main()
