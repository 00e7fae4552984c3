"""The soak's growth check (tests/soak/soak_watch.drift): descriptors that climb steadily are a
leak; one sample with many requests in flight is not."""

from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "soak"))
from soak_watch import drift  # noqa: E402


def samples(fds):
    """One instance sampled every 10 s at a steady RSS."""
    return [(i / 6, 0, 100.0, float(v)) for i, v in enumerate(fds)]


class DriftTest(unittest.TestCase):
    def test_a_peak_of_requests_in_flight_is_not_growth(self):
        # The 2-minute run that failed: 99 descriptors for one sample near the end, 67 at rest.
        fds = [73, 67, 68, 68, 74, 69, 70, 79, 74, 77, 99, 93, 67]
        (d,) = drift(samples(fds), warmup_minutes=0.4)
        self.assertLess(d["fd_rise"], 16)

    def test_a_steady_leak_is_growth(self):
        fds = [60 + 2 * i for i in range(13)]  # two descriptors lost every 10 s
        (d,) = drift(samples(fds), warmup_minutes=0.4)
        self.assertGreater(d["fd_rise"], 16)

    def test_a_leak_under_noisy_peaks_is_growth(self):
        fds = [60 + 2 * i + (25 if i % 4 == 3 else 0) for i in range(13)]
        (d,) = drift(samples(fds), warmup_minutes=0.4)
        self.assertGreater(d["fd_rise"], 16)


if __name__ == "__main__":
    unittest.main()
