#!/usr/bin/env bash
# tests/fuzz/run.sh SECONDS [TARGET...]: builds the libFuzzer targets in build-fuzz/ (clang,
# ASan+UBSan; configured on first use) and runs each for SECONDS over a temporary copy of its seed
# corpus (tests/fuzz/corpus/<target>), two at a time. One summary line per target; exits non-zero
# when any target found a crash, leak, timeout or OOM, after printing the reproducer and the
# start of its report. Without TARGET, every target runs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/scripts/lib/install.sh"

usage() { echo "usage: tests/fuzz/run.sh SECONDS [TARGET...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
seconds="$1"
shift
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || usage

all_targets=(fuzz_pusher_message fuzz_http_request fuzz_download_link fuzz_chunker fuzz_fanout fuzz_mp3
  fuzz_params fuzz_broadcasting_auth fuzz_utf8_json fuzz_preview_codec fuzz_prompt_words fuzz_sfx_prompt fuzz_music_prompt
  fuzz_audio_intake fuzz_multipart fuzz_order_form fuzz_clone_form fuzz_ledger_query fuzz_quote_token fuzz_gift_code
  fuzz_catalog_headers fuzz_speech_request fuzz_audio_out fuzz_upstream_answers fuzz_s3_xml
  fuzz_ban_event fuzz_key_invalidation)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "unknown target: $t (known: ${all_targets[*]})" >&2; exit 2; }
done

# Longest input per target: room for real examples, small enough to keep executions fast.
max_len() {
  case "$1" in
    fuzz_http_request) echo 16384 ;;
    fuzz_chunker) echo 12288 ;;
    fuzz_mp3|fuzz_audio_intake|fuzz_clone_form|fuzz_audio_out) echo 32768 ;;
    fuzz_pusher_message|fuzz_fanout|fuzz_utf8_json|fuzz_s3_xml) echo 4096 ;;
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

# One target: a copy of the seeds as the working corpus, crashes into its own directory.
run_one() {
  local t="$1" dir="$work/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp -R "$root/tests/fuzz/corpus/$t/." "$dir/corpus/" 2>/dev/null || true
  "$build/$t" "$dir/corpus" -seed=1337 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len "$t")" -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
    >"$dir/log" 2>&1 && echo 0 >"$dir/status" || echo $? >"$dir/status"
}

# Two at a time (the machine has two cores): the next starts as soon as one ends.
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge 2 ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait

# The first line of a sanitizer, libFuzzer or property report in a log.
report_start() {
  grep -n -m1 -E '^==[0-9]+== ?ERROR|runtime error:|fuzz property violated|^ERROR: libFuzzer' "$1" | cut -d: -f1
}

failed=0
for t in "${targets[@]}"; do
  dir="$work/$t"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)"
  artifact="$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | head -n 1)"
  if [ "$(cat "$dir/status")" = 0 ] && [ -z "$artifact" ]; then
    printf '%-24s ok      %10s execs in %ss\n' "$t" "${execs:-?}" "$seconds"
    continue
  fi
  failed=1
  kind="$(basename "${artifact:-exit-$(cat "$dir/status")}" | sed 's/-[0-9a-f]*$//')"
  printf '%-24s FAILED  %s after %s execs\n' "$t" "$kind" "${execs:-?}"
  if [ -n "$artifact" ]; then
    # Kept beside the build: the temporary directory goes at exit.
    mkdir -p "$build/fuzz-findings"
    kept="$build/fuzz-findings/$t-$(basename "$artifact")"
    cp "$artifact" "$kept"
    echo "  reproducer: $kept"
    echo "  rerun:      $build/$t $kept"
  fi
  start="$(report_start "$dir/log")"
  [ -z "$start" ] && start=1
  sed -n "${start},$((start + 24))p" "$dir/log" | sed 's/^/  | /'
done
exit "$failed"
