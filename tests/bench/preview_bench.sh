#!/usr/bin/env bash
# Chunk preview latency (5,000 and 50,000 characters) against a Release build, with a throwaway
# PostgreSQL and Redis. MEDIAGEN_BIN overrides the binary (default build/mediagen), BENCH_ROUNDS
# the rounds per size (40). BENCH_SMOKE=1: a check that the bench works, 2 rounds per size; with
# scripts/test's MEDIAGEN_TEST_PG_ADMIN_URL and MEDIAGEN_TEST_REDIS_URL set it uses those servers
# instead of starting its own.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export MEDIAGEN_BIN="${MEDIAGEN_BIN:-$root/build/mediagen}"
if [[ "${BENCH_SMOKE:-0}" == 1 && -n "${MEDIAGEN_TEST_PG_ADMIN_URL:-}" && -n "${MEDIAGEN_TEST_REDIS_URL:-}" ]]; then
  # The harness makes a database and a Redis prefix of its own there.
  exec python3 "$root/tests/bench/preview_bench.py"
fi
source "$root/scripts/lib/services.sh"
state="$(mktemp -d "${TMPDIR:-/tmp}/mediagen-preview-bench.XXXXXX")"
chmod 755 "$state"
trap 'stop_redis "$state/redis"; stop_postgres "$state/postgres"; rm -rf "$state"' EXIT
pg_port="$(free_port)"
redis_port="$(free_port)"
start_postgres "$state/postgres" "$pg_port" fast
start_redis "$state/redis" "$redis_port" fast
export MEDIAGEN_TEST_PG_ADMIN_URL="postgresql://postgres@127.0.0.1:$pg_port/postgres"
export MEDIAGEN_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
python3 "$root/tests/bench/preview_bench.py"
