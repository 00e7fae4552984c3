"""Chunk preview latency: POST /orders/chunks/preview for 5,000 and 50,000 characters.

Starts the server under test through the e2e harness (MEDIAGEN_BIN, MEDIAGEN_TEST_PG_ADMIN_URL,
MEDIAGEN_TEST_REDIS_URL; preview_bench.sh sets them) and prints, per size, the median and p95 of
the round trip for new texts (planned) and for a repeat (served from the cache).
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from harness import Harness  # noqa: E402

# BENCH_SMOKE=1 (a check that the bench works): 2 rounds per size.
ROUNDS = 2 if os.environ.get("BENCH_SMOKE") == "1" else int(os.environ.get("BENCH_ROUNDS", "40"))
SENTENCE = "The quick brown fox jumps over the lazy dog near the riverbank. "


def text_of(size: int, salt: int) -> str:
    body = f"Variant {salt}. " + SENTENCE * (size // len(SENTENCE) + 1)
    return body[:size]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    h = Harness("preview_bench").setup()
    try:
        # The catalogue without its voice features: the preview never reads them, and describing
        # every installed voice takes minutes.
        h.cli("admin", "seed-demo", "--skip-voice-features")
        server = h.start_server({})
        user = h.create_user(email="bench@example.com")
        keys = [h.create_key(user["id"], preset="full")["key"] for _ in range(ROUNDS * 2 // 25 + 2)]
        voice = server.api("GET", "/voices/provider_a/library?page_size=1", keys[0]).body["data"]["voices"][0]
        template = server.api("POST", "/templates", keys[0], body={
            "service_key": "provider_a", "name": "bench",
            "config": {"tts_settings": {"mode": "mode_v1", "model_id": "a-v3", "voice_id": voice["voice_id"]}}}
        ).body["data"]["id"]
        used = 0

        def post(text):
            nonlocal used
            key = keys[used // 25]  # the POST throttle is 30 a minute per key
            used += 1
            started = time.perf_counter()
            r = server.api("POST", "/orders/chunks/preview", key, body={"template_id": template, "input_text": text})
            elapsed = (time.perf_counter() - started) * 1000
            if r.status != 200:
                raise SystemExit(f"unexpected {r.status}: {r.body}")
            return elapsed, r.body["data"]["summary"]["chunks"]

        print(f"POST /orders/chunks/preview, {ROUNDS} rounds per size, loopback, Release build")
        print(f"{'size (chars)':>12} {'chunks':>7} {'new p50 ms':>11} {'new p95 ms':>11} {'cached p50 ms':>14}")
        for size in (5000, 50000):
            new, chunks = [], 0
            for i in range(ROUNDS):
                ms, chunks = post(text_of(size, i))
                new.append(ms)
            repeat = [post(text_of(size, 0))[0] for _ in range(max(5, ROUNDS // 4))]
            print(f"{size:>12} {chunks:>7} {statistics.median(new):>11.2f} {pct(new, 95):>11.2f} "
                  f"{statistics.median(repeat):>14.2f}")
    finally:
        h.teardown()


if __name__ == "__main__":
    main()
