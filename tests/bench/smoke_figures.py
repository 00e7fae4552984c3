"""The figures every benchmark of this folder prints, for its smoke run (smoke.sh).

    python3 smoke_figures.py NAME REPORT

A figure line is a regular expression matched at the start of a report line; each of its unnamed
groups is one figure and must read as a finite number (thousands separators allowed), named groups
are labels. Every figure line must match at least `count` lines of the report. A report that says a part failed, was skipped or has no value
(n/a, nan, missing) fails too. Times and ratios are not judged: a smoke run's figures come from a
sanitizer build and tiny sizes. When a bench prints a new figure, add its line here.
"""

from __future__ import annotations

import math
import re
import sys

# (figure line, how many lines of the report it must match at least)
Figures = list[tuple[str, int]]

DOWNLOAD: Figures = [
    (r"round \d+: \d+ MB in (\S+) s: (\S+) MB/s", 1),
    (r"download \d+ MB over loopback \(curl -o /dev/null\), median of \d+: (\S+) MB/s", 1),
]

HTTP: Figures = [
    (rf"{target}\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", 1)
    for target in (r"nginx return 200", r"GET /healthz", r"GET \S*/key", r"GET \S*/user", r"GET \S*/ai/models 304")
] + [
    (r"auth cost: (\S+)% \(1 - rps\(key\) / rps\(healthz\) = (\S+)\)", 1),
    (r"ai304 / key: (\S+) \(target >= 0\.8: (?:met|NOT met)\)", 1),
    # Four counters for each of the /key, /user and ai304 runs.
    (r"  (?P<counter>mediagen_\w+_total)\s+(\S+)(?:  <-- expected 0)?", 12),
]

ORDERS: Figures = [
    (r"G5 POST /orders \(5 chunks\), wrk -c8, \d+ user\(s\) \[req/s\]\s+(\S+)\s+(\S+)\s+(\S+)\s", 2),
    (r"   latency p50 / p99 \[ms\]; raw average\s+(\S+)/(\S+)\s+(\S+)\s", 3),
    (r"   write transactions per order \(xids\)\s+(\S+)\s+1\s", 2),
    (r"   statements per order \(db_queries_total\)\s+(\S+)\s+3\s", 2),
    (r"   WAL bytes per order\s+(\S+)\s+(\S+)\s+(\S+)", 2),
    (r"   server process CPU per order \[ms\]\s+(\S+)", 2),
    (r"   PG transactions per order \(xact_commit\)\s+(\S+)\s+1\s", 1),
    (r"G3 GET /orders/\{id\}, wrk -c64 \[req/s\]\s+(\S+)\s+(\S+)\s+(\S+)\s", 1),
    (r"   statements per GET\s+(\S+)\s+1", 1),
    (r"   server process CPU per GET \[ms\]\s+(\S+)", 1),
    (r"   order_get\.sql \(the route's SQL\), pgbench -c8\s+(\S+)\s+(\S+)\s+(\S+)\s+SQL ceiling: (\S+) of pgbench -S", 1),
    (r"G6 claim\+complete cycles/s, pgbench -c8\s+(\S+)\s+(\S+)\s+(\S+)\s", 1),
    (r"   WAL bytes per cycle \(incl\. page images\)\s+(\S+)\s+(\S+)\s+(\S+)\s", 1),
    (r"   first third / last third \[cycles/s\]\s+(\S+)/(\S+)\s+(\S+)/(\S+)\s+(\S+)\s", 1),
    (r"   claim EXPLAIN ANALYZE: 5-chunk head \[ms/buffers\]\s+(\S+)/(\S+)", 1),
    (r"   \.\.\. head order of \d+ chunks \[ms/buffers\]\s+(\S+)/(\S+)\s", 1),
    (r"   cycles/s with that order at the head\s+(\S+)\s+(\S+)\s", 1),
    (r"   plain index instead of partial \[cycles/s\]\s+(\S+)\s+(\S+)\s+the P7 shape, first/last (\S+)/(\S+)", 1),
    (r"   queue: chunks completed / still pending\s+(\S+)/(\S+)\s", 1),
    (r"G7 speech CPU s per 1,000 chars, [12] worker\(s\)\s+(\S+)\s+(\S+)\s+(\S+)\s", 2),
    (r"   wall for 2 orders of \d+ chars \[s\], 1 / 2 workers\s+(\S+)/(\S+)\s+(\S+)/(\S+)\s+(\S+)\s.*\((\S+)x\)", 1),
    (r"   chunks per order\s+(\S+)\s+1\s", 1),
]

REALTIME: Figures = [
    (r"connect\+subscribe /s \([\d,]+\)\s+(\S+)\s+(\S+)\s+(\S+)x\s", 1),
    (r"fan-out deliveries/s \([\d,]+ subs\)\s+(\S+)\s+(\S+)\s+(\S+)x\s", 1),
    (r"p95 trigger->receipt ms \([\d,]+ subs\)\s+(\S+)\s+(\S+)\s+(\S+)x\s", 1),
    (r"p95 server's own share ms \(\d+ events\)\s+(\S+)\s+(\S+)\s+(\S+)x\s", 1),
    (r"idle sockets held, KiB RSS each\s+(\S+) @ (\S+)\s+(\S+) @ (\S+)\s+(\S+)x\s", 1),
    (r"frame (\S+) bytes; delay p50/p99 mediagen (\S+)/(\S+) ms, stand-in (\S+)/(\S+) ms; first receipt of each "
     r"event p50/max mediagen (\S+)/(\S+) ms, stand-in (\S+)/(\S+) ms; idle RSS mediagen (\S+) -> (\S+) KiB", 1),
    (r"delay part: events within 5 ms in the server mediagen (\S+)%, stand-in (\S+)%; the machine's floor "
     r"\(loopback to an idle process\) p50/p95 (\S+)/(\S+) ms in the mediagen run, (\S+)/(\S+) ms in the "
     r"stand-in's", 1),
    (r"per server CPU-second \(the clients share the machine\): connect\+subscribe mediagen (\S+), stand-in "
     r"(\S+); deliveries mediagen (\S+), stand-in (\S+)", 1),
]

COMPAT: Figures = [
    # One table per worker count (1 and 2): its rounds, and their medians.
    (r"\s+\d+\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+) completed", 2),
    (r"median: first byte (\S+) s; whole text synthesized and sent (\S+) s; order completed (\S+) s; "
     r"first byte / whole = (\S+)", 2),
]

PREVIEW: Figures = [(rf"\s+{size}\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", 1) for size in (5000, 50000)]

CHUNKER: Figures = [
    (r"input: (\S+) bytes, (\S+) code points, valid UTF-8: yes", 1),
    (r"is_valid_utf8\s+(\S+) MB/s  \(median of \d+: (\S+) ms\)", 1),
    (r"strip_brackets\s+(\S+) MB/s  \(median of \d+: (\S+) ms\)", 1),
] + [
    (rf"plan_chunks {case}\s+(\S+) MB/s  \(median of \d+: (\S+) ms; (\S+) chunks, (\S+) chars avg, "
     r"smallest (\S+), rejoin exact\)", 1)
    for case in ("5000 chars ordinary", "5000 chars paragraph", "4000 bytes ordinary", "4000 bytes paragraph")
]

MULTIPART: Figures = [
    (rf"pieces of\s+{piece} bytes, {how}\s+(\S+) MB/s", 1) for piece in (65536, 1024) for how in ("kept", "sink")
]

VOICE: Figures = [
    (r"voice features of \S+ s of speech at (\S+) Hz: (\S+) ms CPU \(best of \d+\)", 1),
    (r"search of one query over \d+ stored voices \(top 50\): (\S+) ms wall \(best of \d+\)", 1),
    (r"catalogue: (\S+) voices, (\S+) distinct \(voice, variant\) pairs", 1),
    (r"describing a pair \(synthesis of the fixed sample \+ features, \d+ pairs\): (\S+) ms wall on 1 thread, "
     r"(\S+) ms on \d+; the whole catalogue: (\S+) s on \d+", 1),
    (r"search of one query over the real catalogue \((\S+) pairs, (\S+) voices, top 50\): (\S+) ms wall; "
     r"anchor, bare squared distances over the same pairs: (\S+) ms \((\S+)x\)", 1),
]

MUSIC: Figures = [
    (r"    first generate\(\) of 5 s:\s+(\S+) s wall, (\S+) s CPU \(loads the soundfont\)", 1),
    (r"    later generate\(\) of 5 s:\s+(\S+) s wall, (\S+) s CPU", 1),
    (r"    per-call synthesizer set-up \(sample-cache hit\): (\S+) ms", 1),
    (r"    RSS: (\S+) MiB before, (\S+) MiB after the load", 1),
    (r"    engine:\s+(\S+) s CPU, (\S+) s wall for (\S+) s: (\S+) CPU s per audio s = (\S+)x realtime", 1),
    (r"    raw pipeline:\s+(\S+) s CPU, (\S+) s wall for (\S+) s of WAV: (\S+) CPU s per audio s = (\S+)x realtime", 1),
    (r"    raw start-up:\s+(\S+) s CPU, (\S+) s wall for a 2-s MIDI \((\S+) s of WAV\)", 1),
    (r"    raw marginal:\s+(\S+) CPU s per audio s = (\S+)x realtime", 1),
    (r"    engine speed / raw speed: (\S+)x \(whole process\), (\S+)x \(raw marginal\); target >= 0\.9x", 1),
    (r"    peak RSS: (\S+) MiB", 1),
]

SFX: Figures = [
    # Every recipe's row (28 today): synth, encode and the lame anchor, CPU / wall each.
    (r"  (?P<recipe>\S.*?)\s+(\S+) /\s+(\S+)\s+(\S+) /\s+(\S+)\s+(\S+) /\s+(\S+)", 20),
] + [
    (rf"  {what}\s+median\s+(\S+) ms CPU\s+(\S+) ms wall per audio second; worst .+ (\S+) ms CPU", 1)
    for what in ("synth", "encode", "lame")
]

SPEECH: Figures = [
    (r"    engine, whole text in one call\s+(\S+) s", 1),
    (r"    engine, \d+ chunks of <= \d+ characters\s+(\S+) s", 1),
    (r"      of which espeak-ng synthesis \(helper processes\)\s+(\S+) s", 1),
    (r"      of which MP3 encoding \(caller's thread\)\s+(\S+) s", 1),
    (r"    raw pipeline, (?P<options>lame .+?)\s+(\S+) s   engine/raw (\S+)x.*", 3),
    (r"    1 worker\s+(\S+) characters/s   \((\S+) CPUs busy\)", 1),
    (r"    2 workers\s+(\S+) characters/s   \((\S+) CPUs busy\)   2/1 = (\S+)x.*", 1),
]

STITCH: Figures = [
    # The small order and the large one.
    (r"chunk: \d+ s, (\S+) bytes; \d+ chunks", 2),
    (r"track: (\S+) MB, (\S+) h, stitched in (\S+) s \((\S+) MB/s\)", 2),
    (r"peak RSS: (\S+) KiB before the stitch, (\S+) KiB at its peak \(\+(\S+) KiB\)", 2),
]

# compare.sh merges two runs of a bench: each line once when both printed it alike, else a
# "before" / "after" pair. Its smoke run compares the server with itself through the download bench.
COMPARE: Figures = [(r"(?:         |before   |after    )" + line, count) for line, count in DOWNLOAD] + [
    (r"=== download, round 1 of 1: before = \S+", 1),
    (r"=== download, round 1 of 1: after  = \S+", 1),
]

BENCHES: dict[str, Figures] = {
    "download": DOWNLOAD, "http": HTTP, "orders": ORDERS, "realtime": REALTIME, "compat": COMPAT,
    "preview": PREVIEW, "compare": COMPARE, "chunker": CHUNKER, "multipart": MULTIPART, "voice": VOICE,
    "music": MUSIC, "sfx": SFX, "speech": SPEECH, "stitch": STITCH,
}

# Words a report uses for a figure it could not make, or for a part that did not run.
NO_VALUE = re.compile(r"\b(n/a|nan|inf|failed|MISMATCH|skipped|not installed|missing)\b")


def is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text.replace(",", "")))
    except ValueError:
        return False


def problems(figures: Figures, report: list[str]) -> list[str]:
    found = [f"no value: {line.strip()}" for line in report if NO_VALUE.search(line)]
    for pattern, count in figures:
        line_re = re.compile(pattern)
        labels = set(line_re.groupindex.values())
        matched = [m for m in map(line_re.match, report) if m]
        if len(matched) < count:
            found.append(f"figure line missing ({len(matched)} of {count}): /{pattern}/")
        for m in matched:
            bad = [m.group(i) for i in range(1, line_re.groups + 1) if i not in labels and not is_number(m.group(i))]
            if bad:
                found.append(f"not a number ({', '.join(bad)}): {m.group(0).strip()}")
    return found


def main() -> int:
    name, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8", errors="replace") as f:
        report = f.read().splitlines()
    found = problems(BENCHES[name], report)
    for p in found:
        print(f"smoke: {name}: {p}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
