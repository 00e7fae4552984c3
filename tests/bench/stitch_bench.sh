#!/usr/bin/env bash
# Stitch benchmark (issue 14, "Done means" 1): the peak RSS of stitching a maximum-size order
# (200 chunks x 330 s, about 530 MB of MP3) against a small one (10 chunks x 330 s). The stitch
# streams, so both peaks should be about the same. Also prints the time and MB/s of each.
#
# Builds nothing. Build the program first in a Release tree:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON
#   ninja -C build-bench stitch_bench
#
# Environment (all optional):
#   STITCH_BENCH_BIN  the program (default: build-bench/stitch_bench)
#   STITCH_BENCH_WHOLE=1  also run the stitch as it was before it streamed (needs about 1.1 GB of
#                     memory), for comparison
#   STITCH_BENCH_DIR  where the chunks and the track are written (default: a temporary folder;
#                     needs about 2 x 530 MB free for the large run)
#   BENCH_SMOKE=1     a seconds-long check that the bench runs: 2 and 4 chunks of 5 s
# Exit status: the program's, 2 on setup errors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
bin="${STITCH_BENCH_BIN:-$repo_root/build-bench/stitch_bench}"
[[ -x "$bin" ]] || { echo "stitch_bench: no program at $bin (see the header)" >&2; exit 2; }
dir="${STITCH_BENCH_DIR:-$(mktemp -d)}"
trap 'rm -rf "$dir"' EXIT
small=10 large=200 seconds=330
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  small=2 large=4 seconds=5
fi

echo "== small order: $small chunks"
"$bin" --chunks "$small" --chunk-seconds "$seconds" --dir "$dir/small"
echo "== maximum-size order: $large chunks"
"$bin" --chunks "$large" --chunk-seconds "$seconds" --dir "$dir/large"
if [[ "${STITCH_BENCH_WHOLE:-0}" == 1 ]]; then
  echo "== maximum-size order, the stitch before it streamed (all in memory)"
  "$bin" --chunks "$large" --chunk-seconds "$seconds" --dir "$dir/whole" --whole
fi
