"""Helpers for the ElevenLabs-compatible surface: driving ElevenLabs' official JavaScript SDK
(elevenlabs_sdk/sdk.mjs, installed by its ensure.sh) and reading what comes back with ffprobe."""

import json
import os
import subprocess
import tempfile

from harness import http_request
from programs import program

SDK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "elevenlabs_sdk")

# Three sentences the chunker keeps apart once the lead chunk is short; plain text, so the
# characters of the timestamps are exactly this text.
SPOKEN = ("The first sentence is short. The second sentence follows it closely and says a little more. "
          "A third sentence closes the text.")


def ensure_sdk():
    p = subprocess.run([program("bash"), os.path.join(SDK_DIR, "ensure.sh")], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise AssertionError(f"elevenlabs_sdk/ensure.sh failed: {p.stderr[-2000:]}")


def sdk_call(server, key, call, args=None, want_audio=False):
    """Runs one SDK call: (its JSON report, the audio bytes or None)."""
    host, port = server.public
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "audio.bin") if want_audio else None
        spec = {"baseUrl": f"http://{host}:{port}", "apiKey": key, "call": call, "args": args or {}, "out": out}
        p = subprocess.run([program("node"), os.path.join(SDK_DIR, "sdk.mjs"), json.dumps(spec)], cwd=SDK_DIR,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-2000:]
        report = json.loads(p.stdout.strip().splitlines()[-1])
        audio = None
        if report["ok"] and out and os.path.exists(out):
            with open(out, "rb") as f:
                audio = f.read()
        return report, audio


def xi(server, method, path, key, body=None, timeout=120.0):
    host, port = server.public
    return http_request(host, port, method, path, {"xi-api-key": key} if key else {}, body, timeout)


def probe(audio: bytes, demuxer: str, extra=()):
    """ffprobe's view of the first audio stream: {sample_rate, bit_rate, codec_name, duration}."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.bin")
        with open(src, "wb") as f:
            f.write(audio)
        p = subprocess.run([program("ffprobe"), "-v", "error", "-f", demuxer, *extra, "-show_streams", "-show_format",
                            "-of", "json", src], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr[-500:]
        info = json.loads(p.stdout)
        return info["streams"][0], info["format"]


def decoded_seconds(audio: bytes, demuxer: str, extra=()):
    """How long the audio plays: every sample ffmpeg decodes, at 48 kHz (asserts it decodes)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.bin")
        with open(src, "wb") as f:
            f.write(audio)
        p = subprocess.run([program("ffmpeg"), "-v", "error", "-nostdin", "-f", demuxer, *extra, "-i", src,
                            "-f", "s16le", "-ac", "1", "-ar", "48000", "-"], capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr[-500:]
        return len(p.stdout) / 2 / 48000
