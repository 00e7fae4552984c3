#!/usr/bin/env bash
# Runs benchmarks of this folder against two server binaries in one run, one right after the
# other on the same machine, and prints the two reports merged line by line: a line both runs
# printed alike appears once, a line whose figures differ appears as a "before" / "after" pair.
#
#   tests/bench/compare.sh BEFORE_BIN AFTER_BIN [BENCH...]
#
# BENCH is any of http, orders, realtime (default: all three; G1/G2, G3/G5/G6/G7, G10). Each is
# run by its own script with MEDIAGEN_BIN set to the binary; their environment knobs pass through.
# COMPARE_ROUNDS=N (default 1) runs each pair N times, before and after alternating, and prints
# every round: on a shared machine one round is noise, the spread of several is the figure.
# Build the two binaries in Release trees first (see orders_bench.sh), e.g. one from a worktree
# of the previous commit. Exit status: 0 when every run finished, 1 when one failed its checks,
# 2 on a usage or setup failure. The raw reports stay in the printed work directory. BENCH_SMOKE=1
# passes on to the benches (their seconds-long smoke modes) and keeps no reports.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() { echo "usage: $0 BEFORE_BIN AFTER_BIN [http|orders|realtime ...]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
before="$(realpath "$1")"
after="$(realpath "$2")"
shift 2
[[ -x "$before" && -x "$after" ]] || { echo "compare: both binaries must exist and be executable" >&2; exit 2; }
benches=("$@")
[[ ${#benches[@]} -gt 0 ]] || benches=(http orders realtime)
for b in "${benches[@]}"; do
  [[ -f "$here/${b}_bench.sh" ]] || usage
done

work="$(mktemp -d "${TMPDIR:-/tmp}/mediagen-bench-compare.XXXXXX")"
echo "compare: reports in $work" >&2
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  trap 'rm -rf "$work"' EXIT
fi
status=0
rounds="${COMPARE_ROUNDS:-1}"
for b in "${benches[@]}"; do
 for round in $(seq 1 "$rounds"); do
  for side in before after; do
    bin="$before"
    [[ "$side" == after ]] && bin="$after"
    echo "compare: $b, $side ($bin)" >&2
    rc=0
    MEDIAGEN_BIN="$bin" bash "$here/${b}_bench.sh" >"$work/$b-$side.txt" 2>"$work/$b-$side.log" || rc=$?
    cp "$work/$b-$side.txt" "$work/$b-$side-$round.txt"
    if [[ $rc -ne 0 ]]; then
      echo "compare: $b ($side) exited with $rc; see $work/$b-$side.log" >&2
      [[ $rc -ge 2 ]] && status=2
      [[ $status -eq 0 ]] && status=1
    fi
  done
  echo
  echo "=== $b, round $round of $rounds: before = $before"
  echo "=== $b, round $round of $rounds: after  = $after"
  python3 - "$work/$b-before.txt" "$work/$b-after.txt" <<'EOF'
import sys
a = open(sys.argv[1], errors="replace").read().splitlines()
b = open(sys.argv[2], errors="replace").read().splitlines()
if len(a) != len(b):
    # The reports differ in shape: print them one after the other.
    print("--- before"); print("\n".join(a)); print("--- after"); print("\n".join(b))
    sys.exit(0)
for x, y in zip(a, b):
    if x == y:
        print("         " + x)
    else:
        print("before   " + x)
        print("after    " + y)
EOF
 done
done
exit "$status"
