"""Time to first byte of POST /v1/audio/speech for a 5,000-character text, beside the time to
synthesize the whole text, measured in the same run (compat_bench.sh starts the services).

Environment: BENCH_ROUNDS (3), BENCH_WORKERS (worker counts, "1 2"), BENCH_MODEL
(provider_b/b-standard: 3,000 characters a chunk, so 5,000 characters are 2 chunks), BENCH_SMOKE=1
(a check that the bench works: one round, and a first byte that comes late is reported, not
failed: a smoke run judges no time).
Per round: the first audio byte (the head goes out once the first chunk is made), the last byte
(every chunk made and sent), and the order's completion as GET /orders/{id} reports it (chunks
made and stitched). Medians over BENCH_ROUNDS rounds.
"""

import http.client
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from harness import Harness  # noqa: E402

SMOKE = os.environ.get("BENCH_SMOKE") == "1"
ROUNDS = 1 if SMOKE else int(os.environ.get("BENCH_ROUNDS", "3"))
WORKER_COUNTS = os.environ.get("BENCH_WORKERS", "1 2").split()
SENTENCE = "The quick brown fox jumps over the lazy dog near the riverbank, and then it rests. "
MODEL = os.environ.get("BENCH_MODEL", "provider_b/b-standard")


def text_of(size: int, salt: int) -> str:
    body = f"Variant {salt}. " + SENTENCE * (size // len(SENTENCE) + 1)
    return body[:size]


def one_round(server, key, voice, text):
    host, port = server.public
    conn = http.client.HTTPConnection(host, port, timeout=600)
    body = json.dumps({"model": MODEL, "voice": voice, "input": text, "response_format": "mp3"})
    started = time.perf_counter()
    conn.request("POST", "/v1/audio/speech", body=body,
                 headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise SystemExit(f"unexpected {resp.status}: {resp.read()[:500]!r}")
    first = resp.read(1)
    ttfb = time.perf_counter() - started
    rest = resp.read()
    whole = time.perf_counter() - started
    order_id = resp.getheader("X-Order-Id")
    conn.close()
    while True:
        order = server.api("GET", f"/orders/{order_id}", key).body["data"]
        if order["status"] in ("completed", "result_delivered", "failed", "partially_completed"):
            break
        time.sleep(0.05)
    completed = time.perf_counter() - started
    chunks = len({i["chunk_index"] for i in order["items"]})
    return ttfb, whole, completed, len(first) + len(rest), chunks, order["status"]


def measure(h, key_of, workers):
    server = h.start_server({"MEDIAGEN_WORKERS": workers})
    try:
        key = key_of()
        host, port = server.public
        conn = http.client.HTTPConnection(host, port, timeout=30)
        conn.request("GET", f"/v1/audio/voices?model={MODEL}", headers={"Authorization": f"Bearer {key}"})
        voices = json.loads(conn.getresponse().read())["voices"]
        voice = ([v for v in voices if v["language"] == "en"] or voices)[0]["id"]
        rows = [one_round(server, key, voice, text_of(5000, i)) for i in range(ROUNDS)]
    finally:
        server.stop()
    print(f"\nPOST /v1/audio/speech, 5,000 characters, {MODEL}, mp3, {workers} worker(s), {ROUNDS} rounds, loopback")
    print(f"{'round':>5} {'chunks':>6} {'first byte s':>13} {'last byte s':>12} {'order done s':>13} {'bytes':>9} status")
    for i, (ttfb, whole, done, size, chunks, status) in enumerate(rows):
        print(f"{i + 1:>5} {chunks:>6} {ttfb:>13.2f} {whole:>12.2f} {done:>13.2f} {size:>9} {status}")
    ttfb = statistics.median(r[0] for r in rows)
    whole = statistics.median(r[1] for r in rows)
    done = statistics.median(r[2] for r in rows)
    print(f"median: first byte {ttfb:.2f} s; whole text synthesized and sent {whole:.2f} s; "
          f"order completed {done:.2f} s; first byte / whole = {ttfb / whole:.2f}")
    if ttfb >= whole:
        print("TARGET MISSED: the first byte did not arrive before the whole text was synthesized")
        return SMOKE
    return True


def main():
    h = Harness("compat_bench").setup()
    try:
        h.cli("admin", "seed-demo", "--skip-voice-features")
        user = h.create_user(email="bench@example.com", balance="100000000")
        key = h.create_key(user["id"], preset="full")["key"]
        ok = all([measure(h, lambda: key, workers) for workers in WORKER_COUNTS])
        return 0 if ok else 1
    finally:
        h.teardown()


if __name__ == "__main__":
    sys.exit(main())
