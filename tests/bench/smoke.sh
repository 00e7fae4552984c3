#!/usr/bin/env bash
# Runs one benchmark of this folder in its smoke mode (BENCH_SMOKE=1: tiny sizes, seconds long)
# and checks that it printed every one of its figures as a number (smoke_figures.py). No time or
# ratio is judged: a smoke run only proves that the bench still runs. ctest runs one per bench
# (tests/bench/CMakeLists.txt, label "bench").
#
#   tests/bench/smoke.sh NAME
#
# NAME: http orders realtime compat preview download compare (the *_bench.sh scripts, compare.sh)
#       music sfx speech stitch (their scripts, with the programs in MUSIC_BENCH_BIN ...)
#       chunker multipart voice (the programs alone: CHUNKER_BENCH_BIN, MULTIPART_BENCH_BIN,
#       VOICE_BENCH_BIN)
# The server is MEDIAGEN_BIN. Exit status: the bench's when it failed, 1 when a figure is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
name="${1:?usage: smoke.sh NAME}"
export BENCH_SMOKE=1

program() {
  local var="$1"
  [[ -n "${!var:-}" && -x "${!var}" ]] || { echo "smoke: $name: set $var to the built program" >&2; exit 2; }
  printf '%s\n' "${!var}"
}

case "$name" in
  http|orders|realtime|compat|preview|download) cmd=(bash "$here/${name}_bench.sh") ;;
  music|sfx|speech|stitch) cmd=(bash "$here/${name}_bench.sh") ;;
  # The smoke run compares the server with itself through the shortest bench.
  compare) cmd=(bash "$here/compare.sh" "${MEDIAGEN_BIN:?}" "${MEDIAGEN_BIN:?}" download) ;;
  chunker) cmd=("$(program CHUNKER_BENCH_BIN)" --megabytes 0.25 --repeat 1) ;;
  multipart) cmd=("$(program MULTIPART_BENCH_BIN)" --megabytes 1 --repeat 1) ;;
  voice) cmd=("$(program VOICE_BENCH_BIN)" --catalogue 1000 --repeat 1 --describe 2 --sample-seconds 5) ;;
  *) echo "smoke: unknown bench '$name'" >&2; exit 2 ;;
esac

# The throwaway services' data needs no disk: in memory when /dev/shm has room (1 GiB free), it
# leaves the disk to the suite's other tests and nothing waits on its writeback when it is removed.
if [[ -z "${TMPDIR:-}" && -d /dev/shm && -w /dev/shm ]] &&
  (($(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') > 1048576)); then
  export TMPDIR=/dev/shm
fi
out="$(mktemp "${TMPDIR:-/tmp}/mediagen-smoke-$name.XXXXXX")"
trap 'rm -f "$out"' EXIT
started=$SECONDS
rc=0
# The report goes to the log as it comes (ctest shows it on a failure) and to the check.
"${cmd[@]}" | tee "$out" || rc=$?
if ((rc != 0)); then
  echo "smoke: $name: the bench exited with status $rc" >&2
  exit "$rc"
fi
python3 "$here/smoke_figures.py" "$name" "$out"
echo "smoke: $name: every figure printed ($((SECONDS - started)) s)"
