#!/usr/bin/env bash
# Download throughput of a large file over loopback: a file written into the server's folder
# store is fetched through a signed link (GET {prefix}/storage/download, the route results are
# downloaded by), the way a client downloads a finished order's result, with
# `curl -o /dev/null`; prints MB/s (10^6 bytes) of every round and their median.
#
# Environment (all optional):
#   MEDIAGEN_BIN            server binary (default: build-bench/mediagen, else build/mediagen)
#   MEDIAGEN_DATABASE_URL   running PostgreSQL database to use (migrated here). Unset: a database
#                           is made in MEDIAGEN_TEST_PG_ADMIN_URL's server when that is set (and
#                           dropped at the end), else a throwaway PostgreSQL is started.
#   MEDIAGEN_REDIS_URL      running Redis (else MEDIAGEN_TEST_REDIS_URL, else a throwaway one)
#   MEDIAGEN_API_PREFIX     public path prefix (default /api)
#   BENCH_FILE_MB           file size in MB (default 40)
#   BENCH_ROUNDS            downloads measured, after one warm-up (default 5)
#   BENCH_SMOKE=1           a seconds-long check that the bench works: a 1 MB file, one round,
#                           its size and bytes checked (the figure means nothing then)
# Needs: curl, python3, sha256sum; for throwaway services PostgreSQL and redis-server.
# Exit status: 0 on success, 1 when a download came back wrong, 2 on a setup failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
PATH="$PATH:/usr/sbin:/sbin"
# shellcheck source=lib_services.sh
source "$here/lib_services.sh"

die() { echo "download_bench: $*" >&2; exit 2; }
log() { echo "download_bench: $*" >&2; }

smoke="${BENCH_SMOKE:-0}"
size_mb="${BENCH_FILE_MB:-40}"
rounds="${BENCH_ROUNDS:-5}"
if [[ "$smoke" == 1 ]]; then
  size_mb=1
  rounds=1
fi
api_prefix="${MEDIAGEN_API_PREFIX:-/api}"
[[ "$size_mb" =~ ^[0-9]+$ && "$size_mb" -gt 0 ]] || die "BENCH_FILE_MB must be a positive integer"
[[ "$rounds" =~ ^[0-9]+$ && "$rounds" -gt 0 ]] || die "BENCH_ROUNDS must be a positive integer"
missing="$(bench_missing_tools curl python3 sha256sum)"
[[ -z "$missing" ]] || die "missing tool(s): $missing"
mediagen_bin="$(bench_server_bin "$repo_root")" || die "no server binary: build it first or set MEDIAGEN_BIN"

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/mediagen-download-bench.XXXXXX")"
chmod 0755 "$work_dir"
server_pid=""
own_services=0
made_db=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$server_pid" 2>/dev/null && kill -KILL "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -n "$made_db" ]]; then
    psql -X -q "$MEDIAGEN_TEST_PG_ADMIN_URL" -c "DROP DATABASE IF EXISTS $made_db" >/dev/null 2>&1 || true
  fi
  ((own_services)) && stop_services "$work_dir/services"
  rm -rf "$work_dir"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

pick_port() { bench_free_port; }

setup_services() {
  if [[ -z "${MEDIAGEN_DATABASE_URL:-}" && -n "${MEDIAGEN_TEST_PG_ADMIN_URL:-}" ]]; then
    made_db="mediagen_dlbench_$(random_hex 4)"
    psql -X -q -v ON_ERROR_STOP=1 "$MEDIAGEN_TEST_PG_ADMIN_URL" -c "CREATE DATABASE $made_db" >/dev/null ||
      die "CREATE DATABASE failed"
    export MEDIAGEN_DATABASE_URL="${MEDIAGEN_TEST_PG_ADMIN_URL%/*}/$made_db"
  fi
  if [[ -z "${MEDIAGEN_REDIS_URL:-}" && -n "${MEDIAGEN_TEST_REDIS_URL:-}" ]]; then
    export MEDIAGEN_REDIS_URL="$MEDIAGEN_TEST_REDIS_URL"
  fi
  mkdir -p "$work_dir/services"
  if [[ -z "${MEDIAGEN_DATABASE_URL:-}" ]]; then
    local pg_port
    pg_port="$(pick_port)" || die "no free port for PostgreSQL"
    own_services=1
    start_postgres "$work_dir/services" "$pg_port" || die "PostgreSQL did not start"
    psql -X -q -v ON_ERROR_STOP=1 "postgresql://postgres@127.0.0.1:$pg_port/postgres" \
      -c "CREATE DATABASE mediagen_bench" >/dev/null || die "CREATE DATABASE failed"
    export MEDIAGEN_DATABASE_URL="postgresql://postgres@127.0.0.1:$pg_port/mediagen_bench"
  fi
  if [[ -z "${MEDIAGEN_REDIS_URL:-}" ]]; then
    local redis_port
    redis_port="$(pick_port)" || die "no free port for Redis"
    own_services=1
    start_redis "$work_dir/services" "$redis_port" || die "Redis did not start"
    export MEDIAGEN_REDIS_URL="redis://127.0.0.1:$redis_port/0"
  fi
}

# The public address from the server's "listening" line.
start_server() {
  local line=""
  mkdir -p "$work_dir/storage" "$work_dir/server"
  export MEDIAGEN_API_PREFIX="$api_prefix" MEDIAGEN_STORAGE_DIR="$work_dir/storage"
  export MEDIAGEN_REDIS_PREFIX="mg_dlbench_$(random_hex 4):"
  export MEDIAGEN_SECRET="$(random_hex 32)" MEDIAGEN_PUSHER_APP_SECRET="$(random_hex 16)"
  (cd "$work_dir/server" && "$mediagen_bin" migrate >migrate.out 2>migrate.err) ||
    { cat "$work_dir/server/migrate.err" >&2; die "mediagen migrate failed"; }
  (cd "$work_dir/server" && MEDIAGEN_LISTEN=127.0.0.1:0 MEDIAGEN_ADMIN_LISTEN=127.0.0.1:0 \
    exec "$mediagen_bin" serve --no-migrate >serve.out 2>serve.err) &
  server_pid=$!
  for _ in $(seq 1 300); do
    line="$(grep -m 1 -E '"msg"[[:space:]]*:[[:space:]]*"listening"' "$work_dir/server/serve.err" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { tail -n 30 "$work_dir/server/serve.err" >&2; die "mediagen serve exited"; }
    sleep 0.1
  done
  [[ -n "$line" ]] || die "no \"listening\" line from mediagen serve within 30 s"
  PUBLIC="$(printf '%s' "$line" | sed -nE 's/.*"public"[[:space:]]*:[[:space:]]*"([0-9.]+:[0-9]+)".*/\1/p')"
  [[ -n "$PUBLIC" ]] || die "cannot read the public address from: $line"
}

# A signed download link (src/storage/link_signer.cpp: HMAC-SHA256, base64url without padding).
signed_link() {
  local key="$1" expires
  expires=$(($(date +%s) + 3600))
  python3 - "$MEDIAGEN_SECRET" "$key" "$expires" "http://$PUBLIC$api_prefix/storage/download" <<'EOF'
import base64, hashlib, hmac, sys, urllib.parse
secret, key, expires, base = sys.argv[1:]
mac = hmac.new(secret.encode(), f"mediagen-link-v1\n{len(key)}:{key}\n{expires}\n1".encode(), hashlib.sha256).digest()
query = {"path": key, "expires": expires, "download": 1,
         "signature": base64.urlsafe_b64encode(mac).rstrip(b"=").decode()}
print(base + "?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote, safe=""))
EOF
}

setup_services
start_server
key="orders/5b0c8f0e-7f51-4d8e-9c47-2a4f3c1d9e60/bench.mp3"
bytes=$((size_mb * 1000000))
mkdir -p "$(dirname "$work_dir/storage/$key")"
head -c "$bytes" /dev/urandom >"$work_dir/storage/$key"
url="$(signed_link "$key")"
log "server $mediagen_bin on $PUBLIC; file $size_mb MB; $rounds round(s)"

# The warm-up (and the smoke check) keeps the bytes and compares them with the file.
out="$(curl -sS -o "$work_dir/fetched" -w '%{http_code} %{size_download}' "$url")" || die "curl failed"
[[ "$out" == "200 $bytes" ]] || { echo "download_bench: the download answered '$out', expected '200 $bytes'" >&2; exit 1; }
[[ "$(sha256sum <"$work_dir/fetched")" == "$(sha256sum <"$work_dir/storage/$key")" ]] ||
  { echo "download_bench: the downloaded bytes differ" >&2; exit 1; }
rm -f "$work_dir/fetched"

speeds=()
for i in $(seq 1 "$rounds"); do
  out="$(curl -sS -o /dev/null -w '%{http_code} %{size_download} %{time_total}' "$url")" || die "curl failed"
  read -r code got secs <<<"$out"
  [[ "$code" == 200 && "$got" == "$bytes" ]] || { echo "download_bench: round $i answered $code with $got bytes" >&2; exit 1; }
  speeds+=("$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.1f", b / 1e6 / s }')")
  echo "round $i: ${size_mb} MB in ${secs} s: ${speeds[-1]} MB/s"
done
median="$(printf '%s\n' "${speeds[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
echo "download ${size_mb} MB over loopback (curl -o /dev/null), median of $rounds: $median MB/s"
