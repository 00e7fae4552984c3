#!/usr/bin/env bash
# tests/fuzz/run.sh [OPTIONS] SECONDS [TARGET...]
# tests/fuzz/run.sh [OPTIONS] --budget TOTAL [TARGET...]
# Builds the libFuzzer targets in build-fuzz/ (clang, ASan+UBSan; configured on first use) and
# runs each over a temporary copy of its seed corpus (tests/fuzz/corpus/<target>), two at a time:
# for SECONDS each, or for an even share of TOTAL seconds (at least 5 each), so that the step
# takes about TOTAL/2 of wall time whatever the number of targets. Without TARGET, every target
# of tests/fuzz/CMakeLists.txt runs.
#
#   --merge     fold the inputs that found new coverage into tests/fuzz/corpus/<target>/, to be
#               committed (libFuzzer -merge=1 on edges: only inputs that reach new code, named
#               by SHA-1); --keep is the older name of the same option
#   --seed N    the first target's libFuzzer -seed (the next ones N+1, ...); default: changes
#               every run. Each summary line prints its seed.
#
# One summary line per target; exits non-zero when any target found a crash, leak, timeout or
# OOM, after copying the reproducer to tests/fuzz/findings/<target>/ and printing the command that
# replays it and the start of its report.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/scripts/lib/install.sh"

usage() {
  echo "usage: tests/fuzz/run.sh [--merge] [--seed N] (SECONDS | --budget TOTAL) [TARGET...]" >&2
  exit 2
}
is_count() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; }

keep=0 seconds="" budget="" seed=""
while [ $# -gt 0 ]; do
  case "$1" in
    --merge|--keep) keep=1 ;;
    --seed) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage; seed="$2"; shift ;;
    --budget) [ $# -ge 2 ] && is_count "$2" || usage; budget="$2"; shift ;;
    -*) usage ;;
    *) break ;;
  esac
  shift
done
if [ -z "$budget" ]; then
  [ $# -ge 1 ] && is_count "$1" || usage
  seconds="$1"
  shift
fi

# Every target the build defines (mediagen_fuzz_target(NAME ...)), in the order written there.
mapfile -t all_targets < <(sed -n 's/^mediagen_fuzz_target(\([a-z0-9_]*\).*/\1/p' "$root/tests/fuzz/CMakeLists.txt")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "unknown target: $t (known: ${all_targets[*]})" >&2; exit 2; }
done
if [ -n "$budget" ]; then
  seconds=$((budget / ${#targets[@]}))
  [ "$seconds" -ge 5 ] || seconds=5
fi
# A seed nobody chose: the time, so two runs explore differently; printed to replay a run.
[ -n "$seed" ] || seed=$(( $(date +%s) % 1000000000 ))

# Longest input per target: room for real examples, small enough to keep executions fast.
max_len() {
  case "$1" in
    fuzz_http_request|fuzz_router) echo 16384 ;;
    fuzz_chunker) echo 12288 ;;
    fuzz_mp3|fuzz_audio_intake|fuzz_clone_form|fuzz_audio_out) echo 32768 ;;
    fuzz_pusher_message|fuzz_fanout|fuzz_utf8_json|fuzz_s3_xml|fuzz_order_create|fuzz_pusher_session) echo 4096 ;;
    *) echo 2048 ;;
  esac
}

require_programs cmake clang++ llvm-symbolizer
build="$root/build-fuzz"
# Fresh clones elsewhere reuse the compiler cache: paths are taken relative to the checkout.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DMEDIAGEN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ >/dev/null
fi
cmake --build "$build" -j 2 --target "${targets[@]}"

export ASAN_OPTIONS="detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer)"
work="$(mktemp -d -t mediagen-fuzz.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# One target: a copy of the seeds as the working corpus, crashes into its own directory; with
# --keep, what it found that adds coverage goes back into the seeds.
run_one() {
  local t="$1" target_seed="$2" dir="$work/$1" seeds="$root/tests/fuzz/corpus/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp -R "$seeds/." "$dir/corpus/" 2>/dev/null || true
  "$build/$t" "$dir/corpus" -seed="$target_seed" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len "$t")" -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
    >"$dir/log" 2>&1 && echo 0 >"$dir/status" || echo $? >"$dir/status"
  if [ "$keep" = 1 ] && [ "$(cat "$dir/status")" = 0 ]; then
    mkdir -p "$seeds"
    # Edges only (no hit counters or value profile): fewer inputs, each reaching code the others do not.
    "$build/$t" -merge=1 -use_counters=0 -use_value_profile=0 -max_len="$(max_len "$t")" -timeout=10 \
      -rss_limit_mb=2048 "$seeds" "$dir/corpus" \
      >"$dir/merge.log" 2>&1 || echo "$t: merge failed, see nothing kept" >>"$dir/merge.log"
  fi
}

# Two at a time (the machine has two cores): the next starts as soon as one ends.
echo "fuzzing ${#targets[@]} target(s) for ${seconds}s each, seeds from $seed (replay: --seed $seed)"
started=$(date +%s)
running=0 index=0
for t in "${targets[@]}"; do
  if [ "$running" -ge 2 ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" $((seed + index)) &
  running=$((running + 1)) index=$((index + 1))
done
wait

# The first line of a sanitizer, libFuzzer or property report in a log.
report_start() {
  grep -n -m1 -E '^==[0-9]+== ?ERROR|runtime error:|fuzz property violated|^ERROR: libFuzzer' "$1" | cut -d: -f1
}

failed=0 index=0
for t in "${targets[@]}"; do
  dir="$work/$t" target_seed=$((seed + index))
  index=$((index + 1))
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
  artifact="$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | head -n 1)"
  if [ "$(cat "$dir/status")" = 0 ] && [ -z "$artifact" ]; then
    kept=""
    if [ "$keep" = 1 ]; then
      added="$(sed -n 's/.*MERGE-OUTER: \([0-9]*\) new files.*/\1/p' "$dir/merge.log" | tail -n 1)"
      kept="  kept ${added:-0} new input(s) in tests/fuzz/corpus/$t/"
    fi
    printf '%-24s ok      %10s execs in %ss  seed %s%s\n' "$t" "${execs:-?}" "$seconds" "$target_seed" "$kept"
    continue
  fi
  failed=1
  kind="$(basename "${artifact:-exit-$(cat "$dir/status")}" | sed 's/-[0-9a-f]*$//')"
  printf '%-24s FAILED  %s after %s execs  seed %s\n' "$t" "$kind" "${execs:-?}" "$target_seed"
  if [ -n "$artifact" ]; then
    # In the checkout, beside the corpus: the temporary directory goes at exit. Once fixed, the
    # reproducer becomes tests/fuzz/corpus/<target>/regress-<name> (README.md).
    mkdir -p "$root/tests/fuzz/findings/$t"
    kept="tests/fuzz/findings/$t/$(basename "$artifact")"
    cp "$artifact" "$root/$kept"
    echo "  reproducer: $kept"
    echo "  replay:     build-fuzz/$t $kept"
  fi
  start="$(report_start "$dir/log")"
  [ -z "$start" ] && start=1
  sed -n "${start},$((start + 24))p" "$dir/log" | sed 's/^/  | /'
done
echo "fuzzing took $(( $(date +%s) - started ))s of wall time"
exit "$failed"
