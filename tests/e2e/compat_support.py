"""Helpers for the OpenAI-compatible speech surface (/v1/...): Bearer requests, decoding what
comes back with ffmpeg, and the first voice of a service."""

import os
import subprocess
import tempfile

from harness import http_request
from programs import program

SPEECH_TEXT = ("Hello there. This is the compatible speech endpoint talking. "
               "It speaks a second sentence so the order has something to chunk.")

# response_format -> the demuxer ffmpeg reads it with (pcm is raw s16le mono at 24 kHz).
DEMUXERS = {"mp3": "mp3", "wav": "wav", "opus": "ogg", "flac": "flac", "aac": "aac",
            "pcm": "s16le"}


def bearer(server, method, path, key, body=None, headers=None, timeout=120.0):
    h = {"Authorization": f"Bearer {key}"} if key is not None else {}
    h.update(headers or {})
    host, port = server.public
    return http_request(host, port, method, path, h, body, timeout)


def decoded_samples(audio: bytes, fmt: str) -> int:
    """How many 24 kHz mono samples ffmpeg decodes from `audio` read as `fmt` (asserts it decodes)."""
    return len(decoded_pcm(audio, fmt)) // 2


def decoded_pcm(audio: bytes, fmt: str) -> bytes:
    """`audio` read as `fmt` and decoded by ffmpeg: s16le, mono, 24 kHz (asserts it decodes)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in." + fmt)
        with open(src, "wb") as f:
            f.write(audio)
        args = [program("ffmpeg"), "-v", "error", "-nostdin", "-f", DEMUXERS[fmt]]
        if fmt == "pcm":
            args += ["-ar", "24000", "-ac", "1"]
        args += ["-i", src, "-f", "s16le", "-ac", "1", "-ar", "24000", "-"]
        p = subprocess.run(args, capture_output=True, timeout=120)
        assert p.returncode == 0, f"ffmpeg could not decode {fmt}: {p.stderr[-500:]!r}"
        return p.stdout


def first_voice(server, key, model):
    r = bearer(server, "GET", f"/v1/audio/voices?model={model}", key)
    assert r.status == 200, r
    voices = r.body["voices"]
    english = [v for v in voices if v["language"] == "en"] or voices
    return english[0]["id"]
