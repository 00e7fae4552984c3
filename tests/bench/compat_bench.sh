#!/usr/bin/env bash
# Time to first byte on the OpenAI-compatible speech endpoint (issue 19, "Done means" 3):
# POST /v1/audio/speech with a 5,000-character English text, mp3, printing in the same run the
# time to the first audio byte beside the time to synthesize the whole text (the full transfer,
# and the order's own completion). Throwaway PostgreSQL and Redis on loopback; the server under
# test is MEDIAGEN_BIN (default build/mediagen; use a Release build for figures).
# Environment: BENCH_ROUNDS (default 3, medians), BENCH_WORKERS (worker counts, default "1 2"),
# BENCH_MODEL (default provider_b/b-standard), BENCH_SMOKE=1 (a check that the bench works: one
# round, no target judged; with scripts/test's MEDIAGEN_TEST_PG_ADMIN_URL and
# MEDIAGEN_TEST_REDIS_URL set it uses those servers instead of starting its own).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export MEDIAGEN_BIN="${MEDIAGEN_BIN:-$root/build/mediagen}"
if [[ "${BENCH_SMOKE:-0}" == 1 && -n "${MEDIAGEN_TEST_PG_ADMIN_URL:-}" && -n "${MEDIAGEN_TEST_REDIS_URL:-}" ]]; then
  # The harness makes a database and a Redis prefix of its own there.
  exec python3 "$root/tests/bench/compat_bench.py"
fi
# shellcheck source=../../scripts/lib/services.sh
source "$root/scripts/lib/services.sh"
state="$(mktemp -d "${TMPDIR:-/tmp}/mediagen-compat-bench.XXXXXX")"
chmod 755 "$state"
trap 'stop_redis "$state/redis"; stop_postgres "$state/postgres"; rm -rf "$state"' EXIT
pg_port="$(free_port)"
redis_port="$(free_port)"
start_postgres "$state/postgres" "$pg_port" fast
start_redis "$state/redis" "$redis_port" fast
export MEDIAGEN_TEST_PG_ADMIN_URL="postgresql://postgres@127.0.0.1:$pg_port/postgres"
export MEDIAGEN_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
python3 "$root/tests/bench/compat_bench.py"
