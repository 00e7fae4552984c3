#!/usr/bin/env bash
# Speech engine benchmark (issue 3, performance anchors G7/G8). Runs the speech_bench program
# and prints:
#   (a) CPU seconds per 1,000 characters of the embedded engine (libespeak-ng in its helper
#       processes, LAME in the calling thread) on a fixed ~5,000-character English text, against the raw pipeline
#       `espeak-ng -v en-us --stdout -f text.txt | lame ...` on the same text and voice: with the
#       engine's own LAME settings (like for like), with LAME's default quality, and `lame -b 128`
#       (the issue's reference); target engine/raw <= 1.10x;
#   (b) wall throughput in characters per second of 1 worker and of 2 workers calling the
#       engine at once on chunks of ~1,000 characters; target 2/1 >= 1.8x on 2 cores.
# Every figure is the best of BENCH_REPEAT runs. Other busy processes on the machine lower (b):
# the program prints how many CPUs it actually got.
#
# Builds nothing. Build the program first in a Release tree:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON
#   ninja -C build-bench speech_bench
#
# Environment (all optional):
#   SPEECH_BENCH_BIN   the program (default: build-bench/speech_bench, else build/speech_bench)
#   BENCH_REPEAT       runs per figure (default 3)
#   BENCH_SMOKE=1      a seconds-long check that the bench runs: 300 characters, 4 chunks of 100,
#                      one run per figure
# Arguments go to the program: --text-chars N (5000), --chunk-chars N (1000), --chunks N (16),
#   --voice V (en-us), --no-raw (skip the espeak-ng | lame pipeline).
# Needs espeak-ng and lame on PATH for the raw pipeline (Debian: espeak-ng lame).
# Exit status: the program's (0 = ran; a missed target is reported, not an error), 2 on setup errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"

die() { echo "speech_bench: $*" >&2; exit 2; }

bin="${SPEECH_BENCH_BIN:-}"
if [[ -z "$bin" ]]; then
  for candidate in "$repo_root/build-bench/speech_bench" "$repo_root/build/speech_bench"; do
    if [[ -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi
[[ -n "$bin" && -x "$bin" ]] ||
  die "no speech_bench program (set SPEECH_BENCH_BIN, or build it: cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON && ninja -C build-bench speech_bench)"
repeat="${BENCH_REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive integer"
smoke=()
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  repeat=1
  smoke=(--text-chars 300 --chunk-chars 100 --chunks 4)
fi

for tool in espeak-ng lame; do
  command -v "$tool" >/dev/null 2>&1 || echo "speech_bench: $tool not found: the raw pipeline is skipped" >&2
done

echo "speech_bench: $(espeak-ng --version 2>/dev/null | head -n1 || echo 'espeak-ng: not installed')"
echo "speech_bench: $(lame --version 2>/dev/null | head -n1 || echo 'lame: not installed')"
echo "speech_bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$bin" --repeat "$repeat" "${smoke[@]}" "$@"
