"""The external programs the end-to-end tests run, resolved in one place.

Each program a test runs is named in PROGRAMS and called through `program(name)`. The harness
checks them all before the first test (`require_all`), so a machine without one fails at once
with the fix, not half way through a run. tests/tools/install_list_test.py checks that every
name here is installed by scripts/lib/install.sh.
"""

from __future__ import annotations

import shutil

# name -> what the tests use it for
PROGRAMS = {
    "psql": "creates and reads the test databases",
    "mpg123": "decodes MP3 independently of the server",
    "redis-server": "a private Redis that a test can kill",
    "node": "runs the pusher-js and Laravel Echo clients",
    "bash": "runs the clients' install script",
    "espeak-ng": "speaks the voice search samples and the stand-in upstream provider's answers",
    "lame": "encodes the stand-in upstream provider's MP3",
    "pg_dump": "dumps a test database to search it for secrets",
    "swift-proxy-server": "a Swift proxy of an S3 fault test's own, to stop and restart",
    "chromium": "renders GET /docs headless, driven through playwright-core (test_docs.py)",
    "promtool": "checks a live /metrics with `promtool check metrics` (test_metrics_promtool.py)",
    "curl": "the README quick start's requests",
    "jq": "the README quick start's JSON",
    "tar": "unpacks the runtime image's tarball",
    "unshare": "boots the runtime image in a mount namespace of its own",
    "mount": "gives the booted image /dev and /proc; mounts the combined-faults drill's small storage disk",
    "umount": "takes the combined-faults drill's storage disk away again",
    "chroot": "runs the image's programs inside it as its user",
    "ffmpeg": "converts speech into the audio formats uploads are tested with (WAV, MP3, Ogg Opus, FLAC, M4A)",
    "ffprobe": "reads what the compatible surfaces answer: sample rate, bitrate and codec of the audio",
    "faketime": "moves the server's wall clock while it runs (libfaketime), for the model test's clock jumps",
    "gnuplot": "draws scripts/soak's figures (tests/soak)",
}


class MissingProgram(RuntimeError):
    pass


def _missing(name: str) -> str:
    return f"{name} is not installed: add its package to scripts/lib/install.sh"


def program(name: str) -> str:
    """The absolute path of an external program the tests run."""
    if name not in PROGRAMS:
        raise MissingProgram(f"{name} is not declared in tests/e2e/programs.py PROGRAMS; declare it "
                             "there and add its package to scripts/lib/install.sh")
    path = shutil.which(name)
    if not path:
        raise MissingProgram(_missing(name))
    return path


def require_all() -> None:
    """Fails with every missing program named, before any test runs."""
    missing = [name for name in PROGRAMS if not shutil.which(name)]
    if missing:
        raise MissingProgram("; ".join(_missing(name) for name in missing))
