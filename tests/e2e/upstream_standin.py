"""A stand-in upstream speech provider for the upstream engine tests: one threaded HTTP server
on loopback that speaks both shapes mediagen calls.

  openai      POST {base}/audio/speech -> MP3 bytes; GET {base}/audio/voices -> {"voices": [...]}
              (Kokoro-FastAPI's answer); the key as "Authorization: Bearer KEY".
  elevenlabs  POST /v1/text-to-speech/{voice}/with-timestamps -> {audio_base64, alignment};
              POST /v1/sound-generation, /v1/music -> MP3 bytes; GET /v1/voices; key in xi-api-key.

The audio is real: espeak-ng speaks the text and LAME encodes it. Failures are injected by a
marker word in the text (or prompt), each on every attempt unless said otherwise:
  REFUSE400   400 with a content-policy refusal in the provider's error shape
  RATE429     429 with Retry-After: 0
  FAIL500     500
  FLAKY500    500 on the first request with this text, a normal answer after it
  SLOWREPLY   the answer waits `slow_seconds` (longer than the engine's timeout in the tests)
  RESETCONN   the connection is closed without an answer
  NOTAUDIO    200 with bytes that are not audio
  TOOSHORT    200 with 0.1 s of audio, far too short for the text
`set_down(True)` makes every request end as RESETCONN (a dead upstream). Every request is
recorded (path, JSON body, auth ok) so tests assert what reached the upstream, not when.
"""

import base64
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from programs import program

ELEVEN_VOICES = [
    {"voice_id": "21m00Tcm4TlvDq8ikWAM", "name": "Rachel", "labels": {"gender": "female", "language": "en"}},
    {"voice_id": "pNInz6obpgDQGcFmaJgB", "name": "Adam", "labels": {"gender": "male", "language": "en"}},
]
OPENAI_VOICES = ["af_bella", "am_adam"]  # Kokoro-style ids: not the spec's provider_a format


def speak_wav(text: str) -> bytes:
    p = subprocess.run([program("espeak-ng"), "--stdout", "-v", "en", text or "silence"],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def wav_to_mp3(wav: bytes) -> bytes:
    p = subprocess.run([program("lame"), "--quiet", "-b", "64", "-", "-"], input=wav, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def wav_seconds(wav: bytes) -> float:
    with tempfile.NamedTemporaryFile(suffix=".wav") as f:
        f.write(wav)
        f.flush()
        with wave.open(f.name, "rb") as w:
            return w.getnframes() / w.getframerate()


def fitted_wav(wav: bytes, seconds: float) -> bytes:
    """The speech cut or padded with silence to `seconds`."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.wav")
        with open(src, "wb") as f:
            f.write(wav)
        with wave.open(src, "rb") as w:
            params, frames = w.getparams(), w.readframes(w.getnframes())
        want = int(seconds * params.framerate) * params.sampwidth
        frames = frames[:want] + b"\0" * max(0, want - len(frames))
        out = os.path.join(tmp, "out.wav")
        with wave.open(out, "wb") as w:
            w.setparams(params)
            w.writeframes(frames)
        with open(out, "rb") as f:
            return f.read()


class StandIn:
    def __init__(self, key: str, slow_seconds: float = 6.0):
        self.key = key
        self.slow_seconds = slow_seconds
        self.requests = []
        self.down = False
        self._seen = set()
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                owner._handle(self, "GET")

            def do_POST(self):
                owner._handle(self, "POST")

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client that gave up (timeout, reset drill) is what the tests make happen

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def openai_url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def elevenlabs_url(self):
        return f"http://127.0.0.1:{self.port}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def set_down(self, down: bool):
        self.down = down

    def seen(self, path_part: str = ""):
        with self._lock:
            return [r for r in self.requests if path_part in r["path"]]

    # -- the answers

    def _handle(self, h, method):
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        eleven = not h.path.startswith("/v1/audio/")
        auth = h.headers.get("xi-api-key") if eleven else (h.headers.get("Authorization") or "").removeprefix("Bearer ")
        with self._lock:
            self.requests.append({"path": h.path, "method": method, "body": body, "auth_ok": auth == self.key})
        text = str(body.get("input") or body.get("text") or body.get("prompt") or "")
        if self.down or "RESETCONN" in text:
            return self._reset(h)
        if auth != self.key:
            # As OpenAI does, the refusal quotes the key it got: the engine must not pass it on.
            return self._json(h, 401, self._error(eleven, "invalid_api_key", f"Incorrect API key provided: {auth}"))
        if method == "GET":
            if h.path == "/v1/audio/voices":
                return self._json(h, 200, {"voices": OPENAI_VOICES})
            if h.path == "/v1/voices":
                return self._json(h, 200, {"voices": ELEVEN_VOICES})
            return self._json(h, 404, {"detail": "Not Found"})
        injected = self._injected(h, eleven, text)
        if injected is not False:
            return injected
        if h.path == "/v1/audio/speech":
            return self._bytes(h, wav_to_mp3(speak_wav(text)))
        if h.path.startswith("/v1/text-to-speech/") and h.path.endswith("/with-timestamps"):
            return self._json(h, 200, self._timed(text))
        if h.path in ("/v1/sound-generation", "/v1/music"):
            seconds = body.get("duration_seconds") or (body.get("music_length_ms") or 5000) / 1000.0
            return self._bytes(h, wav_to_mp3(fitted_wav(speak_wav(text), float(seconds))))
        return self._json(h, 404, {"detail": "Not Found"})

    def _injected(self, h, eleven, text):
        """The injected answer for a marker in text, or False for none."""
        if "REFUSE400" in text:
            return self._json(h, 400, self._error(eleven, "content_policy_violation",
                                                  "This request was rejected by our content moderation"))
        if "RATE429" in text:
            return self._json(h, 429, self._error(eleven, "rate_limit_exceeded", "Too many requests"),
                              {"Retry-After": "0"})
        if "FAIL500" in text:
            return self._json(h, 500, self._error(eleven, "server_error", "internal error"))
        if "FLAKY500" in text:
            with self._lock:
                first = text not in self._seen
                self._seen.add(text)
            if first:
                return self._json(h, 500, self._error(eleven, "server_error", "internal error"))
        if "SLOWREPLY" in text:
            time.sleep(self.slow_seconds)
        if "NOTAUDIO" in text:
            return self._bytes(h, b"<html>this is not audio at all</html>" * 20)
        if "TOOSHORT" in text:
            return self._bytes(h, wav_to_mp3(fitted_wav(speak_wav("hi"), 0.1)))
        return False

    @staticmethod
    def _error(eleven, code, message):
        if eleven:
            return {"detail": {"status": code, "message": message}}
        return {"error": {"message": message, "type": "invalid_request_error", "code": code}}

    @staticmethod
    def _timed(text):
        wav = speak_wav(text)
        seconds = wav_seconds(wav)
        n = max(1, len(text))
        return {"audio_base64": base64.b64encode(wav_to_mp3(wav)).decode(),
                "alignment": {"characters": list(text),
                              "character_start_times_seconds": [seconds * i / n for i in range(len(text))],
                              "character_end_times_seconds": [seconds * (i + 1) / n for i in range(len(text))]}}

    @staticmethod
    def _bytes(h, data: bytes):
        h.send_response(200)
        h.send_header("Content-Type", "audio/mpeg")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    @staticmethod
    def _json(h, status, obj, headers=None):
        data = json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    @staticmethod
    def _reset(h):
        # SO_LINGER 0: the close sends RST, as a crashed or reset upstream does.
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        h.close_connection = True
        h.connection.close()

