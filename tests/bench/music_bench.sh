#!/usr/bin/env bash
# Music engine benchmark (issue 15, performance anchors M1-M3 and goal G9). Runs the music_bench
# program and prints, in one run:
#   (a) CPU seconds per second of audio of the embedded engine (compose, FluidSynth, levelling,
#       LAME in one process) for a 60-s piece, against the raw pipeline on the same notes: the
#       score as a Standard MIDI File, `fluidsynth -ni -F out.wav <soundfont> song.mid`, then
#       `lame -b 128 -q 5` (the engine's bitrate and quality); also against the raw marginal rate
#       (the pipeline's cost for a 2-s MIDI subtracted, as anchor M2); target engine/raw >= 0.9x;
#   (b) the soundfont load, paid once per process: the first generate() against later ones, the
#       per-call synthesizer set-up, and RSS after the load (G9: music worker RSS <= 250 MiB).
# Every figure is the best of BENCH_REPEAT runs.
#
# Builds nothing. Build the program first in a Release tree:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON
#   ninja -C build-bench music_bench
#
# Environment (all optional):
#   MUSIC_BENCH_BIN   the program (default: build-bench/music_bench, else build/music_bench)
#   BENCH_REPEAT      runs per figure (default 3)
#   BENCH_SMOKE=1     a seconds-long check that the bench runs: a 5-s piece, one run per figure
# Arguments go to the program: --seconds N (60), --prompt P ("epic orchestral"), --soundfont F
#   (the engine's default), --no-raw (skip the fluidsynth | lame pipeline).
# Needs fluidsynth and lame on PATH for the raw pipeline (Debian: fluidsynth lame).
# Exit status: the program's (0 = ran; a missed target is reported, not an error), 2 on setup errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"

die() { echo "music_bench: $*" >&2; exit 2; }

bin="${MUSIC_BENCH_BIN:-}"
if [[ -z "$bin" ]]; then
  for candidate in "$repo_root/build-bench/music_bench" "$repo_root/build/music_bench"; do
    if [[ -x "$candidate" ]]; then bin="$candidate"; break; fi
  done
fi
[[ -n "$bin" && -x "$bin" ]] ||
  die "no music_bench program (set MUSIC_BENCH_BIN, or build it: cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON && ninja -C build-bench music_bench)"
repeat="${BENCH_REPEAT:-3}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive integer"
smoke=()
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  repeat=1
  smoke=(--seconds 5)
fi

raw=()
for tool in fluidsynth lame; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "music_bench: $tool not found: the raw pipeline is skipped" >&2
    raw=(--no-raw)
  fi
done

echo "music_bench: $(fluidsynth --version 2>/dev/null | head -n1 || echo 'fluidsynth: not installed')"
echo "music_bench: $(lame --version 2>/dev/null | head -n1 || echo 'lame: not installed')"
echo "music_bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$bin" --repeat "$repeat" "${smoke[@]}" "${raw[@]}" "$@"
