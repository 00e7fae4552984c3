"""What the route matrix modules share: an account with one real object of every kind, the call
of a matrix request, and the state a refused call must leave untouched."""

from __future__ import annotations

import hashlib
import io
import json
import math
import secrets
import struct
import time
import wave

from harness import API, http_request
from realtime_support import redis_command
from route_matrix import fill

INPUT_TEXT = "Matrix fixture text. It is spoken by the demo engine."
POLICY_TERM = "matrixbannedterm"
ACTIVE_STATUSES = "('created', 'pending', 'in_progress', 'processing')"


def tone_wav(seconds: float = 3.0) -> bytes:
    """A short WAV (a 220 Hz tone): audio by its content, which is all a clone upload checks."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(22050)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 220 * i / 22050)))
                               for i in range(int(22050 * seconds))))
    return out.getvalue()


def multipart(fields, files=()):
    """Headers and body of a multipart/form-data request: fields [(name, text)], files
    [(name, filename, bytes)]."""
    boundary = "----mg" + secrets.token_hex(12)
    out = bytearray()
    for name, value in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        out += value.encode("utf-8") + b"\r\n"
    for name, filename, data in files:
        out += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return {"Content-Type": f"multipart/form-data; boundary={boundary}"}, bytes(out)


def call(server, req, fx, key=None, *, bearer=False, method="GET", headers=None, ip=None, files=()):
    """Sends the matrix request `req` filled with the fixtures `fx`, with `key` in X-API-KEY (or
    `Authorization: Bearer` when `bearer`), and returns the Response."""
    h = dict(headers or {})
    if key is not None and req.xi:
        h["xi-api-key"] = key
    elif key is not None:
        h["Authorization" if bearer else "X-API-KEY"] = f"Bearer {key}" if bearer else key
    if ip is not None:
        h["X-Forwarded-For"] = ip
    path = fill(req.path, fx)
    path = path if req.root else API + path
    body = fill(req.body, fx)
    if req.form or files:
        form_headers, body = multipart(fill(list(req.form), fx), files)
        h.update(form_headers)
    host, port = server.admin if req.admin else server.public
    return http_request(host, port, method, path, h, body, timeout=60)


# --------------------------------------------------------------------------- state


def db_fingerprint(h, skip=()):
    """{table: md5 of its rows} for every table of the database: any write shows."""
    tables = [t for t in h.psql_value(
        "SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'").split()
        if t not in skip]
    parts = " UNION ALL ".join(
        f"SELECT '{t}', md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) FROM {t} x" for t in tables)
    return dict(h.psql_rows(parts))


def redis_state(h, rate=True):
    """{key: DUMP} of every Redis key of the suite; with `rate` False, without the request windows
    (`rl:`, and the preview throttles' `throttle:*:rl:`), which count every request that passed
    the permission check, refused later or not."""
    keys = sorted(redis_command(h.redis_url, "KEYS", h.redis_prefix + "*"))
    if not rate:
        keys = [k for k in keys if not (k.startswith((h.redis_prefix + "rl:").encode()) or b":rl:" in k)]
    dumps = {k: redis_command(h.redis_url, "DUMP", k) for k in keys}
    # A key that expired between KEYS and DUMP is gone, not changed: time's doing, not a call's.
    return {k: v for k, v in dumps.items() if v is not None}


def redis_unchanged(before, after):
    """Keys a call added or changed (expired keys are time's doing, not the call's)."""
    return sorted(k.decode() for k, v in after.items() if before.get(k) != v)


def table_diff(before, after):
    return sorted(t for t in set(before) | set(after) if before.get(t) != after.get(t))


# --------------------------------------------------------------------------- fixtures


class AccountFixtures:
    """Mixin of an E2ETestCase whose server runs workers: `make_account()` gives an account with
    one real object of every kind a route names, and the key that made them."""

    @classmethod
    def seed_catalogue(cls):
        cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        cls.h.cli("admin", "plan", "upsert", "--code", "matrix", "--name", "matrix", "--tokens", "100000")

    @classmethod
    def api_ok(cls, method, path, key, body=None, headers=None, status=(200, 201)):
        r = cls.server.api(method, path, key, body=body, headers=headers)
        assert r.status in status, f"{method} {path}: {r!r}"
        return r.body["data"] if isinstance(r.body, dict) else r.body

    @classmethod
    def make_account(cls, label):
        h = cls.h
        user = h.create_user(email=f"{label}-{time.time_ns()}@example.com", name=f"Matrix {label}",
                             balance=1_000_000)
        uid = user["id"]
        h.cli("admin", "user", "wallet", "--user", str(uid), "on")
        h.cli("admin", "subscription", "grant", "--user", str(uid), "--plan", "matrix")
        h.cli("admin", "reseller", "enable", "--user", str(uid), "--balance", 1_000_000, "--cancel-window-minutes", 60)
        key = h.create_key(uid, preset="full", scopes="reseller.read,reseller.write")["key"]
        voices = cls.api_ok("GET", "/voices/provider_b?per_page=100&language=en", key)
        voice = (voices.get("voices") or voices.get("items"))[0]["voice_id"]
        template_body = {"service_key": "provider_b", "name": f"Matrix {label} template",
                         "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard", "voice_id": voice}}}
        template = cls.api_ok("POST", "/templates", key, template_body)["id"]
        spare = cls.api_ok("POST", "/templates", key, {**template_body, "name": f"Matrix {label} spare"})["id"]
        text = f"{INPUT_TEXT} {label}"
        created = cls.api_ok("POST", "/orders", key, {"template_id": template, "input_text": text})
        preview = cls.api_ok("POST", "/orders/chunks/preview", key, {"template_id": template, "input_text": text})
        headers, body = multipart([("name", f"Matrix {label} clone")], [("files[]", "tone.wav", tone_wav())])
        clone = cls.api_ok("POST", "/voices/provider_c/clones", key, body, headers)["id"]
        gift = cls.api_ok("POST", "/reseller/codes", key, {"nominal": 100})["uuid"]
        # A ready clone whose voice_id only this account may speak with (a tone is no voice to
        # analyse, so it is written ready here; nothing of it is ever spoken).
        clone_voice = h.psql_value(
            "INSERT INTO voice_clones (id, user_id, service_key, name, status, voice_id, profile, sample_count)"
            f" VALUES (gen_random_uuid(), {uid}, 'provider_d', 'Matrix {label} ready clone', 'ready',"
            " md5(random()::text), '{}'::jsonb, 1) RETURNING voice_id")
        order = cls.wait_order(key, created["id"])
        return {
            "key": key, "user_id": uid, "email": user["email"], "template": template, "spare_template": spare,
            "order": order["id"], "item": order["items"][0]["id"], "file": order["result"]["files"][0],
            "input_text": text, "preview": preview["preview_id"],
            "text_hash": hashlib.sha256(text.encode()).hexdigest(), "clone": clone, "voice": voice,
            "clone_voice": clone_voice,
            "gift": gift, "socket": f"{secrets.randbelow(10**9)}.{secrets.randbelow(10**9)}",
        }

    @classmethod
    def settled(self):
        """The database once no background work moves it (orders, chunks and clones made by the
        allowed calls of the previous route run on the workers)."""
        deadline = time.monotonic() + 300
        while True:
            active = int(self.h.psql_value(
                f"SELECT (SELECT count(*) FROM orders WHERE status IN {ACTIVE_STATUSES})"
                f" + (SELECT count(*) FROM order_items WHERE status IN {ACTIVE_STATUSES})"
                f" + (SELECT count(*) FROM voice_clones WHERE status IN ('pending', 'processing'))"
                f" + (SELECT count(*) FROM orders WHERE stitch_until IS NOT NULL)"))
            if active == 0:
                first = db_fingerprint(self.h)
                time.sleep(0.3)
                second = db_fingerprint(self.h)
                if first == second:
                    return second
            assert time.monotonic() < deadline, "background work did not settle"
            time.sleep(0.2)

    @classmethod
    def wait_order(cls, key, order_id, timeout=120.0):
        deadline = time.monotonic() + timeout
        while True:
            order = cls.api_ok("GET", f"/orders/{order_id}", key)
            if order["status"] == "completed":
                return order
            assert order["status"] not in ("failed", "partially_completed", "cancelled"), order
            assert time.monotonic() < deadline, f"order not completed in {timeout}s: {json.dumps(order)[:500]}"
            time.sleep(0.2)
