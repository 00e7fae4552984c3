#!/usr/bin/env python3
"""Open-loop soak: two `mediagen serve` instances sharing PostgreSQL, Redis and the S3 store,
under a fixed-rate realistic mix for as long as asked, then the checks that say it held.

    python3 tests/soak/soak.py --minutes 60 --rate 200 --out DIR

Needs what the end-to-end harness needs (MEDIAGEN_BIN, MEDIAGEN_TEST_PG_ADMIN_URL,
MEDIAGEN_TEST_REDIS_URL, and MEDIAGEN_TEST_S3_* for the S3 store; without them the store is a
directory). scripts/soak builds a Release binary, starts the services and calls this.

Writes DIR/resources.csv, latency.csv, p99.csv, instances.csv, soak.png and summary.txt. Exits
non-zero when a server died or printed a sanitizer report, an answer was a 5xx, a transport
failure or not the route's expected status, an invariant broke, a 201 has no order, a finished
order lacks a file, an order's webhook missed its final event, or memory or descriptors grew
past the stated bounds (see LIMITS)."""

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))

from harness import Harness  # noqa: E402
from soak_checks import final_checks, settle  # noqa: E402
from soak_client import Pool  # noqa: E402
from soak_load import MIX, Load, Stats, new_rng, preview_keys_needed, schedule  # noqa: E402
from soak_watch import Recorder, drift, plot  # noqa: E402
import programs  # noqa: E402
import realtime_support  # noqa: E402
import webhook_support  # noqa: E402

# After the warm-up, the fitted line may rise over the measured span by at most this share of
# its starting level, or these absolute amounts when those are larger (a short run's noise).
LIMITS = {"rss_share": 0.10, "rss_mib": 24.0, "fd_share": 0.10, "fd_count": 16}


class Context:
    """What every request needs: the servers' pools, the account and its objects."""

    def __init__(self, servers, key, template, hostile_key, hostile_template):
        self.pools = [Pool("127.0.0.1", s.public_port) for s in servers]
        self.key, self.template = key, template
        self.hostile_key, self.hostile_template = hostile_key, hostile_template
        self.app_key = realtime_support.APP_KEY
        self.socket_instance = {}
        self._hostile = {}
        self.webhook_url = self.upload = self.openai_voice = self.el_voice = None

    def hostile_pool(self, source):
        if source not in self._hostile:
            target = self.pools[len(self._hostile) % len(self.pools)]
            self._hostile[source] = Pool(target.host, target.port, source)
        return self._hostile[source]


def voice_sample():
    """A spoken WAV for the voice search uploads, made once."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "sample.wav")
        subprocess.run([programs.program("espeak-ng"), "-w", wav, "A quiet voice reads a short line."],
                       check=True, timeout=60, capture_output=True)
        with open(wav, "rb") as f:
            data = f.read()
    boundary = "soak-boundary-7f3a"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"task_type\"\r\n\r\nvoice_search\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"input_files[]\"; filename=\"s.wav\"\r\n"
            f"Content-Type: audio/wav\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", body


def account(h, server, balance):
    """A user, a full key and a provider_b template of theirs."""
    user = h.create_user(balance=str(balance))
    key = h.create_key(user["id"], preset="full")["key"]
    voices = server.api("GET", "/voices/provider_b?per_page=100&language=en", key).body["data"]
    voice = (voices.get("voices") or voices.get("items"))[0]["voice_id"]
    r = server.api("POST", "/templates", key, body={
        "service_key": "provider_b", "name": "soak",
        "config": {"tts_settings": {"mode": "mode_v1", "model_id": "b-standard", "voice_id": voice}}})
    assert r.status in (200, 201), r
    return user, key, r.body["data"]["id"]


def prepare(h, receiver, rate):
    env = realtime_support.realtime_env(MEDIAGEN_WEBHOOK_ALLOW_HOSTS=f"127.0.0.1:{receiver.port}")
    h.cli("admin", "seed-demo", "--skip-voice-features")
    h.cli("admin", "voices", "features", "--service", "provider_d")  # what the voice searches rank
    servers = [h.start_server(env, name="soak-a"), h.start_server(env, name="soak-b")]
    user, key, template = account(h, servers[0], 10 ** 12)
    _, hostile_key, hostile_template = account(h, servers[0], 0)
    ctx = Context(servers, key, template, hostile_key, hostile_template)
    ctx.preview_keys = [h.create_key(user["id"], preset="full")["key"] for _ in range(preview_keys_needed(rate))]
    ctx.webhook_url = f"{receiver.base}/ok/soak"
    ctx.upload = voice_sample()
    models = servers[0].request("GET", "/v1/audio/voices?model=provider_b/b-standard",
                                {"Authorization": f"Bearer {key}"}).body
    ctx.openai_voice = models["voices"][0]["id"]
    ctx.el_voice = servers[0].request("GET", "/v1/voices", {"xi-api-key": key}).body["voices"][0]["voice_id"]
    return servers, user, ctx


async def run(h, servers, ctx, ns, recorder):
    stats = Stats()
    rng = new_rng(ns.seed)
    load = Load(ctx, stats, rng)
    await load.open_sockets(ns.sockets)
    stop = asyncio.Event()
    started = time.monotonic()
    pids = [s.proc.pid for s in servers]

    async def sampler():
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), ns.interval)
            except asyncio.TimeoutError:
                pass
            db = await asyncio.to_thread(db_figures, h)
            recorder.sample((time.monotonic() - started) / 60.0, pids, db, stats.take_interval(), stats, MIX)

    watcher = asyncio.get_running_loop().create_task(sampler())
    pending = await schedule(load, ns.rate, ns.minutes * 60.0, rng, stop)
    if pending:
        await asyncio.wait(pending, timeout=60)
    stop.set()
    await watcher
    for sock in load.sockets:
        sock.close()
    return stats, load, time.monotonic() - started


def db_figures(h):
    row = h.psql_value(
        "SELECT (SELECT count(*) FROM order_items WHERE status IN ('pending', 'processing')) || ',' ||"
        " (SELECT count(*) FROM webhook_messages WHERE status = 'pending') || ',' ||"
        " (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()) ")
    return tuple(int(v) for v in row.split(","))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=200.0, help="requests started per second")
    ap.add_argument("--sockets", type=int, default=40, help="realtime subscribers held open")
    ap.add_argument("--interval", type=float, default=None, help="seconds between samples")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "build", "soak"))
    ns = ap.parse_args()
    ns.interval = ns.interval or min(60.0, max(5.0, ns.minutes * 60.0 / 12.0))
    ns.seed = ns.seed if ns.seed is not None else int(time.time())
    ns.out = os.path.abspath(ns.out)
    print(f"soak: {ns.minutes:g} min at {ns.rate:g} requests/s, two instances, {ns.sockets} subscribers, "
          f"a sample every {ns.interval:g} s, seed {ns.seed}, figures in {ns.out}", flush=True)
    webhook_support.ensure_packages()
    h = Harness("soak", "s3" if os.environ.get("MEDIAGEN_TEST_S3_ENDPOINT") else None)
    receiver = webhook_support.Receiver()
    recorder = Recorder(ns.out)
    problems = []
    try:
        h.setup()
        servers, user, ctx = prepare(h, receiver, ns.rate)
        stats, load, seconds = asyncio.run(run(h, servers, ctx, ns, recorder))
        settle(h, user["id"], problems)
        recorder.sample(seconds / 60.0 + 0.01, [s.proc.pid for s in servers], db_figures(h), {}, stats, MIX)
        recorder.close()
        report = final_checks(h, servers, user["id"], stats, load, receiver, problems)
        slopes = drift(recorder.rows, warmup_minutes=max(ns.interval / 60.0, ns.minutes * 0.2))
        report += slope_report(slopes, problems)
        report.insert(0, f"soak: {ns.minutes:g} min at {ns.rate:g}/s: {load.scheduled} requests started on schedule "
                         f"({load.scheduled / (ns.minutes * 60.0):.1f}/s), {stats.requests} answered or failed, "
                         f"seed {ns.seed}")
        plot(ns.out, f"{ns.minutes:g} min at {ns.rate:g} requests/s, two instances", programs.program("gnuplot"))
        report.append(f"plot: {os.path.join(ns.out, 'soak.png')}")
    except Exception as e:
        problems.append(f"the soak could not run: {type(e).__name__}: {e}")
        traceback.print_exc()
        report = []
        h.dump_logs()
    finally:
        receiver.stop()
        try:
            h.teardown()
        except Exception as e:  # a server that never started cannot be asked for its metrics
            problems.append(f"teardown: {type(e).__name__}: {e}")
    report += [f"PROBLEM: {p}" for p in problems] or ["soak: every check held"]
    with open(os.path.join(ns.out, "summary.txt"), "w") as f:
        f.write("\n".join(report) + "\n")
    print("\n".join(report), flush=True)
    return 1 if problems else 0


def slope_report(slopes, problems):
    lines = []
    for s in slopes:
        name = "AB"[s["instance"]]
        lines.append(f"instance {name}: RSS {s['rss_start']:.1f} MiB at the end of the warm-up, fitted slope "
                     f"{s['rss_slope_mib_h']:+.2f} MiB/h ({s['rss_rise']:+.2f} MiB over {s['span_min']:.1f} min); "
                     f"descriptors {s['fd_start']:.0f}, slope {s['fd_slope_h']:+.2f}/h ({s['fd_rise']:+.1f})")
        if s["rss_rise"] > max(LIMITS["rss_share"] * s["rss_start"], LIMITS["rss_mib"]):
            problems.append(f"instance {name}: RSS grew {s['rss_rise']:.1f} MiB after the warm-up")
        if s["fd_rise"] > max(LIMITS["fd_share"] * s["fd_start"], LIMITS["fd_count"]):
            problems.append(f"instance {name}: descriptors grew {s['fd_rise']:.1f} after the warm-up")
    return lines


if __name__ == "__main__":
    sys.exit(main())
