#!/usr/bin/env bash
# Chunk preview latency (5,000 and 50,000 characters) against a Release build, with a throwaway
# PostgreSQL and Redis. MEDIAGEN_BIN overrides the binary (default build/mediagen).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/scripts/lib/services.sh"
state="$(mktemp -d /tmp/mediagen-preview-bench.XXXXXX)"
chmod 755 "$state"
trap 'stop_redis "$state/redis"; stop_postgres "$state/postgres"; rm -rf "$state"' EXIT
pg_port="$(free_port)"
redis_port="$(free_port)"
start_postgres "$state/postgres" "$pg_port" fast
start_redis "$state/redis" "$redis_port" fast
export MEDIAGEN_BIN="${MEDIAGEN_BIN:-$root/build/mediagen}"
export MEDIAGEN_TEST_PG_ADMIN_URL="postgresql://postgres@127.0.0.1:$pg_port/postgres"
export MEDIAGEN_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
python3 "$root/tests/bench/preview_bench.py"
