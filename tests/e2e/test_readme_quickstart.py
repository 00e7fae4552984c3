"""The README's quick start, run as written: the blocks marked `<!-- quickstart:sh -->` run in
order in one bash (with `set -euo pipefail`) against a fresh server, with the two variables the
README tells the reader to set (MG, KEY); the block marked `<!-- quickstart:follow.mjs -->` is
saved under that name and run by those blocks with the pinned pusher-js of tests/e2e/realtime.
The downloaded file must decode to speech."""

import os
import re
import socket
import subprocess
import tempfile
import unittest
import wave

from harness import E2ETestCase
from orders_support import OrderFixtures
from programs import program
from realtime_support import CLIENTS_DIR, ensure_clients

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
MARKER = re.compile(r"^<!-- quickstart:(\S+) -->\n```[a-z]*\n(.*?)^```$", re.M | re.S)


def quickstart_blocks(text):
    """[(kind, code)] in README order: kind is "sh" or the file name the code is saved as."""
    blocks = [(m.group(1), m.group(2)) for m in MARKER.finditer(text)]
    markers = text.count("<!-- quickstart:")
    if markers != len(blocks):
        raise AssertionError(f"{markers} quickstart markers but {len(blocks)} fenced blocks right after them")
    return blocks


def decode_mp3(path):
    """(seconds, rms of the 16-bit samples) of an MP3, decoded by mpg123 (not the server's decoder)."""
    wav = path + ".wav"
    subprocess.run([program("mpg123"), "-q", "-w", wav, path], check=True, timeout=60)
    with wave.open(wav) as w:
        seconds = w.getnframes() / w.getframerate()
        samples = memoryview(w.readframes(w.getnframes())).cast("h")
    return seconds, (sum(s * s for s in samples) / max(1, len(samples))) ** 0.5


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ReadmeQuickstartTests(OrderFixtures, E2ETestCase):
    # The README's signed link names MEDIAGEN_PUBLIC_URL: the server listens where it says.
    port = free_port()
    server_env = {"MEDIAGEN_LISTEN": f"127.0.0.1:{port}", "MEDIAGEN_PUBLIC_URL": f"http://127.0.0.1:{port}",
                  "MEDIAGEN_WORKERS": "2"}

    @classmethod
    def prepare(cls):
        cls.seed()
        ensure_clients()

    def tearDown(self):
        self.assertInvariants()

    def test_the_marked_blocks_are_the_typical_flow(self):
        with open(README, encoding="utf-8") as f:
            blocks = quickstart_blocks(f.read())
        kinds = [k for k, _ in blocks]
        self.assertEqual(kinds, ["sh", "follow.mjs", "sh", "sh", "sh"])
        code = "\n".join(c for _, c in blocks)
        for step in ("/api/voices/", "/api/templates", "/api/orders", "node follow.mjs", "/api/storage/url",
                     "curl -sSf -o hello.mp3"):
            self.assertIn(step, code)

    def test_the_quick_start_runs_as_written_and_ends_with_a_file_that_decodes(self):
        with open(README, encoding="utf-8") as f:
            blocks = quickstart_blocks(f.read())
        _, key = self.account(balance=1_000_000)
        with tempfile.TemporaryDirectory() as work:
            # `npm install pusher-js` of the README, done once by ensure.sh (pinned, offline).
            os.symlink(os.path.join(CLIENTS_DIR, "node_modules"), os.path.join(work, "node_modules"))
            script = ["set -euo pipefail"]
            for kind, code in blocks:
                if kind == "sh":
                    script.append(code)
                else:
                    with open(os.path.join(work, kind), "w", encoding="utf-8") as f:
                        f.write(code)
            env = {"PATH": os.environ["PATH"], "HOME": work,
                   "MG": f"http://127.0.0.1:{self.port}", "KEY": key}
            run = subprocess.run([program("bash"), "-c", "\n".join(script)], cwd=work, env=env,
                                 capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
            self.assertEqual(run.returncode, 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}")
            order_id = re.search(r"^order ([0-9a-f-]{36})$", run.stdout, re.M).group(1)
            # The realtime follower saw the order finish (its snapshot or the live event).
            self.assertIn("order: completed", run.stdout)
            seconds, rms = decode_mp3(os.path.join(work, "hello.mp3"))
        # "Hello from mediagen." spoken, the bracketed note not: about a second or two of speech.
        self.assertGreater(seconds, 0.8)
        self.assertLess(seconds, 4.0)
        self.assertGreater(rms, 500, "the track is near silence")
        order = self.server.api("GET", f"/orders/{order_id}", key).body["data"]
        self.assertEqual(order["status"], "result_delivered")
        self.assertEqual(len(order["result"]["files"]), 1)


if __name__ == "__main__":
    unittest.main()
