"""The server's wall clock for the seeded model test (test_model.py): libfaketime, preloaded into the
server and into the CLI commands that compare times, reads an offset from a file at every call,
so a jump moves a running server at once; steady clocks stay real (timers, leases' waits). Leases,
stitch deadlines and plan periods are PostgreSQL's now() and do not move; what moves, and what the
model predicts, is what the server compares with its own clock: a key's expires_at (spec 7.1:
401 once past it) and a gift code's cancel window and activatable_at (spec 3.4).

Jumps go forward only, in steps of 25 minutes, and every deadline the model sets is 40 or 60
minutes away: a jump never lands within 10 minutes of one, far beyond the real time a seed takes."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

from programs import program

JUMP_MINUTES = (25, 50, 75)
KEY_LIFETIME_MINUTES = 40


def iso(epoch):
    return datetime.fromtimestamp(int(epoch), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def epoch_of(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class ServerClock:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mg_model_clock_")
        self.file = os.path.join(self.dir, "offset")
        self.offset = 0
        # (time.monotonic() when set, offset): when each offset took effect, to place a moment of
        # real time on the server's clock.
        self.history = [(time.monotonic(), 0)]
        self._write()
        # The library's path as the faketime program preloads it (its multi-threaded variant).
        self.preload = subprocess.run(
            [program("faketime"), "-m", "-f", "+0", sys.executable, "-c", "import os; print(os.environ['LD_PRELOAD'])"],
            capture_output=True, text=True, check=True, timeout=30).stdout.strip()

    def env(self):
        asan = os.environ.get("ASAN_OPTIONS", "")
        return {"LD_PRELOAD": self.preload, "FAKETIME_TIMESTAMP_FILE": self.file, "FAKETIME_NO_CACHE": "1",
                "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                # libasan must come first among the preloads unless told not to check.
                "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}

    def now(self):
        """The server's wall clock, as the model reckons it."""
        return time.time() + self.offset

    def jump(self, seconds):
        self.offset += seconds
        self._write()
        self.history.append((time.monotonic(), self.offset))

    def readings_between(self, start, end):
        """What the server's clock read between two moments of real time (time.monotonic()), as
        (low, high) ranges of its wall clock, one per offset in force then."""
        wall = time.time() - time.monotonic()
        ranges = []
        for i, (since, offset) in enumerate(self.history):
            until = self.history[i + 1][0] if i + 1 < len(self.history) else float("inf")
            lo, hi = max(since, start), min(until, end)
            if lo <= hi:
                ranges.append((lo + wall + offset, hi + wall + offset))
        return ranges

    def _write(self):
        tmp = self.file + ".new"
        with open(tmp, "w", encoding="ascii") as f:
            f.write(f"+{self.offset}\n")
        os.replace(tmp, self.file)  # a reader never sees half a line

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class ClockOps:
    """Operations mixed into model_ops.Operations: a jump of the server's clock, then the answers
    that depend on it."""

    expiring_key = None
    key_expires = None

    def op_clock_jump(self, index):
        clock = self.t.clock
        if self.expiring_key is None:
            self.key_expires = int(clock.now()) + KEY_LIFETIME_MINUTES * 60
            made = self.t.h.create_key(self.user_id, preset="full", expires_at=iso(self.key_expires))
            self.expiring_key = made["key"]
        minutes = self.rng.choice(JUMP_MINUTES)
        clock.jump(minutes * 60)
        expired = clock.now() >= self.key_expires
        r = self.get("/orders?per_page=1", self.expiring_key)
        if self.trace is not None:
            self.trace.answered(r.status)
        self.t.assertEqual(r.status, 401 if expired else 200,
                           f"a key expiring at {iso(self.key_expires)}, server clock {iso(clock.now())}: {r}")
        return None, f"+{minutes} min, key {'expired' if expired else 'valid'}"
