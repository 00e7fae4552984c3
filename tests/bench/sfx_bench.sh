#!/usr/bin/env bash
# Sound-effect engine benchmark (issue 15). Runs the sfx_bench program and prints, for every
# recipe, milliseconds of CPU and wall time per second of audio rendered at --seconds (10):
# synthesis (sfx_render) and MP3 encoding (encode_mp3) separately, and as an anchor the `lame`
# program encoding the same PCM from a WAV with the engine's settings; then the median and the
# worst recipe of each. Every figure is the best of BENCH_REPEAT runs.
#
# Builds nothing. Build the program first in a Release tree:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON
#   ninja -C build-bench sfx_bench
#
# Environment (all optional):
#   SFX_BENCH_BIN   the program (default: build-bench/sfx_bench, else build/sfx_bench)
#   BENCH_REPEAT    runs per figure (default 3)
#   BENCH_SMOKE=1   a seconds-long check that the bench runs: 0.5 s per recipe, one run per figure
# Arguments go to the program: --seconds S (10; 0.5..22).
# Needs lame on PATH for the anchor (Debian: lame); without it the anchor column is skipped.
# Exit status: the program's (0 = ran), 2 on setup errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"

die() { echo "sfx_bench: $*" >&2; exit 2; }

bin="${SFX_BENCH_BIN:-}"
if [[ -z "$bin" ]]; then
  for candidate in "$repo_root/build-bench/sfx_bench" "$repo_root/build/sfx_bench"; do
    if [[ -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi
[[ -n "$bin" && -x "$bin" ]] ||
  die "no sfx_bench program (set SFX_BENCH_BIN, or build it: cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON && ninja -C build-bench sfx_bench)"
repeat="${BENCH_REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive integer"
smoke=()
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  repeat=1
  smoke=(--seconds 0.5)
fi

command -v lame >/dev/null 2>&1 || echo "sfx_bench: lame not found: the anchor is skipped" >&2
echo "sfx_bench: $(lame --version 2>/dev/null | head -n1 || echo 'lame: not installed')"
echo "sfx_bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$bin" --repeat "$repeat" "${smoke[@]}" "$@"
