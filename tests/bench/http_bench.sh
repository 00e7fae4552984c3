#!/usr/bin/env bash
# HTTP throughput and latency of mediagen against a minimal nginx baseline.
#
# Drives `wrk -t2 -c64 -d10s --latency` against, in one run:
#   nginx    nginx with one worker answering `return 200 '{"ok":true}'`
#   healthz  mediagen GET /healthz      (public, no key, tiny JSON)
#   key      mediagen GET {prefix}/key  (authenticated, served from the key cache)
#   user     mediagen GET {prefix}/user (authenticated; the profile from its cache, read from
#            PostgreSQL only when a change dropped it)
#   ai304    mediagen GET {prefix}/ai/models with the current ETag in If-None-Match
#            (a 304 from the in-memory AI catalogue)
# and prints req/s, p50, p99 and the ratios to nginx, the auth cost
# (1 - rps(key) / rps(healthz)), rps(ai304) / rps(key) (target >= 0.8) and the
# change of the key-cache, database and Redis counters of /metrics across the
# /key and the ai304 runs (0 expected for a hot key and a current catalogue).
#
# Environment (all optional):
#   MEDIAGEN_BIN            server binary (default: build/mediagen of this repo)
#   MEDIAGEN_DATABASE_URL   running PostgreSQL database to use; it is migrated and
#                           gets a bench user and key. Unset: a throwaway
#                           PostgreSQL is started under a temp dir.
#   MEDIAGEN_REDIS_URL      running Redis; unset: a throwaway Redis is started.
#   MEDIAGEN_IO_THREADS     server I/O threads (default 1, like the one nginx worker)
#   MEDIAGEN_API_PREFIX     public path prefix (default /api)
#   BENCH_DURATION          seconds per measured run (default 10)
#   BENCH_WARMUP            seconds of warm-up per target (default 2)
#   BENCH_THREADS, BENCH_CONNECTIONS   wrk -t / -c (default 2 / 64)
#   BENCH_TARGETS           subset of "nginx healthz key user ai304" (default all five;
#                           "nginx" alone needs no mediagen binary)
#   BENCH_SMOKE=1           a seconds-long check that the bench works: 1 s per target, no
#                           warm-up, wrk -t1 -c4 (the figures mean nothing then)
# Needs: wrk, nginx, curl; for throwaway services PostgreSQL 15 and redis-server.
# Exit status: 0 on success, 1 when a target failed its check or wrk saw
# non-2xx answers or socket errors, 2 on a missing tool or a setup failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
PATH="$PATH:/usr/sbin:/sbin"

duration="${BENCH_DURATION:-10}"
warmup="${BENCH_WARMUP:-2}"
threads="${BENCH_THREADS:-2}"
connections="${BENCH_CONNECTIONS:-64}"
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  duration=1 warmup=0 threads=1 connections=4
fi
targets="${BENCH_TARGETS:-nginx healthz key user ai304}"
io_threads="${MEDIAGEN_IO_THREADS:-1}"
api_prefix="${MEDIAGEN_API_PREFIX:-/api}"
mediagen_bin="${MEDIAGEN_BIN:-$repo_root/build/mediagen}"

die() { echo "http_bench: $*" >&2; exit 2; }
log() { echo "http_bench: $*" >&2; }

has_target() { [[ " $targets " == *" $1 "* ]]; }

for t in $targets; do
  case "$t" in nginx|healthz|key|user|ai304) ;; *) die "unknown target '$t' in BENCH_TARGETS (use: nginx healthz key user ai304)";; esac
done
[[ "$duration" =~ ^[0-9]+$ && "$duration" -gt 0 ]] || die "BENCH_DURATION must be a positive integer (seconds)"
[[ "$warmup" =~ ^[0-9]+$ ]] || die "BENCH_WARMUP must be a non-negative integer (seconds)"

missing=()
for tool in nginx wrk curl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  die "missing tool(s): ${missing[*]} (on Debian: apt-get install -y nginx-light wrk curl, or nginx)"
fi

need_mediagen=0
for t in healthz key user ai304; do has_target "$t" && need_mediagen=1; done
if ((need_mediagen)); then
  [[ -x "$mediagen_bin" ]] || die "server binary not found or not executable: $mediagen_bin (build it first or set MEDIAGEN_BIN)"
fi

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/mediagen-bench.XXXXXX")"
# The throwaway PostgreSQL runs as user postgres when we are root: it must be
# able to reach its data directory inside work_dir.
chmod 0755 "$work_dir"
nginx_pid=""
server_pid=""
wrk_pid=""
own_services=0

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "$wrk_pid" ]] && kill -0 "$wrk_pid" 2>/dev/null; then
    kill -TERM "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" 2>/dev/null || true
  fi
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$server_pid" 2>/dev/null && kill -KILL "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -n "$nginx_pid" ]] && kill -0 "$nginx_pid" 2>/dev/null; then
    kill -QUIT "$nginx_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$nginx_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$nginx_pid" 2>/dev/null && kill -KILL "$nginx_pid" 2>/dev/null
    wait "$nginx_pid" 2>/dev/null || true
  fi
  if ((own_services)); then
    if declare -F stop_services >/dev/null; then
      stop_services "$work_dir/services" || true
    else
      stop_redis "$work_dir/services" 2>/dev/null || true
      stop_postgres "$work_dir/services" || true
    fi
  fi
  if [[ -n "${BENCH_KEEP_TMP:-}" ]]; then
    log "kept $work_dir"
  else
    rm -rf "$work_dir"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free loopback TCP port below the ephemeral range (scripts/lib/free_port.py says why).
pick_port() { python3 "$repo_root/scripts/lib/free_port.py"; }

# Value of a top-level scalar field in a one-line JSON document (numbers and
# plain strings only; enough for the CLI outputs used here).
json_field() {
  local name="$1" doc="$2"
  printf '%s' "$doc" | sed -nE 's/.*"'"$name"'"[[:space:]]*:[[:space:]]*("([^"\\]*)"|(-?[0-9]+)).*/\2\3/p' | head -n 1
}

# Converts a wrk time such as 812.00us, 1.23ms, 1.01s, 2.00m to milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (match(v, /^[0-9.]+/) == 0) { print "nan"; exit }
    n = substr(v, 1, RLENGTH) + 0; u = substr(v, RLENGTH + 1)
    if (u == "us") f = 0.001; else if (u == "ms") f = 1; else if (u == "s") f = 1000;
    else if (u == "m") f = 60000; else if (u == "h") f = 3600000; else { print "nan"; exit }
    printf "%.3f\n", n * f }'
}

# Fills R_RPS R_P50 R_P99 R_NON2XX R_SOCKERR R_REQUESTS from a wrk output file.
parse_wrk() {
  local file="$1" p50 p99
  R_RPS="$(awk '/^Requests\/sec:/ {print $2; exit}' "$file")"
  p50="$(awk '$1 == "50%" {print $2; exit}' "$file")"
  p99="$(awk '$1 == "99%" {print $2; exit}' "$file")"
  R_P50="$(to_ms "${p50:-x}")"
  R_P99="$(to_ms "${p99:-x}")"
  R_NON2XX="$(awk '/Non-2xx or 3xx responses:/ {print $NF; exit}' "$file")"
  R_NON2XX="${R_NON2XX:-0}"
  R_SOCKERR="$(awk '/Socket errors:/ {gsub(",", ""); print $4 + $6 + $8 + $10; exit}' "$file")"
  R_SOCKERR="${R_SOCKERR:-0}"
  R_REQUESTS="$(awk '/requests in/ {print $1; exit}' "$file")"
  [[ -n "$R_RPS" ]] || R_RPS="nan"
}

# Sum of all samples of a metric family (any labels) in Prometheus text.
metric_sum() {
  local name="$1" file="$2"
  awk -v n="$name" '
    $0 ~ "^" n "([{ ])" { s += $NF; found = 1 }
    END { if (found) printf "%.0f\n", s; else print "absent" }' "$file"
}

# HDR2: a second request header (the If-None-Match of ai304); WANT: the status a target answers.
declare -A URL HDR HDR2 WANT RPS P50 P99 NON2XX SOCKERR
failed=0

# ---------------------------------------------------------------- nginx ----
start_nginx() {
  local dir="$work_dir/nginx" port
  mkdir -p "$dir/logs" "$dir/tmp"
  for _ in 1 2 3 4 5; do
    port="$(pick_port)" || die "no free loopback port for nginx"
    cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    default_type application/json;
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port;
        location / {
            return 200 '{"ok":true}';
        }
    }
}
EOF
    nginx -p "$dir" -e "$dir/logs/error.log" -c "$dir/nginx.conf" >"$dir/logs/stdout.log" 2>&1 &
    nginx_pid=$!
    for _ in $(seq 1 50); do
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then
        URL[nginx]="http://127.0.0.1:$port/"
        HDR[nginx]=""
        return 0
      fi
      kill -0 "$nginx_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -QUIT "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    nginx_pid=""
    if ! grep -q "Address already in use" "$dir/logs/error.log" "$dir/logs/stdout.log" 2>/dev/null; then
      cat "$dir/logs/error.log" "$dir/logs/stdout.log" >&2 2>/dev/null || true
      die "nginx did not start"
    fi
    log "port $port was taken, retrying"
  done
  die "nginx could not bind a port"
}

# ------------------------------------------------------------- services ----
setup_services() {
  if [[ -n "${MEDIAGEN_DATABASE_URL:-}" && -n "${MEDIAGEN_REDIS_URL:-}" ]]; then
    return 0
  fi
  if [[ -f "$repo_root/scripts/lib/services.sh" ]]; then
    # shellcheck source=/dev/null
    source "$repo_root/scripts/lib/services.sh"
  fi
  if ! declare -F start_postgres >/dev/null || ! declare -F start_redis >/dev/null ||
     ! { declare -F stop_services >/dev/null ||
         { declare -F stop_postgres >/dev/null && declare -F stop_redis >/dev/null; }; }; then
    # shellcheck source=lib_services.sh
    source "$here/lib_services.sh"
  fi
  mkdir -p "$work_dir/services"
  own_services=1
  if [[ -z "${MEDIAGEN_DATABASE_URL:-}" ]]; then
    local pg_port
    pg_port="$(pick_port)" || die "no free port for PostgreSQL"
    log "starting a throwaway PostgreSQL on 127.0.0.1:$pg_port"
    start_postgres "$work_dir/services" "$pg_port" fast || die "PostgreSQL did not start"
    command -v psql >/dev/null 2>&1 || die "psql not found"
    psql -X -q -v ON_ERROR_STOP=1 "postgresql://postgres@127.0.0.1:$pg_port/postgres" \
      -c "CREATE DATABASE mediagen_bench" >/dev/null || die "CREATE DATABASE failed"
    export MEDIAGEN_DATABASE_URL="postgresql://postgres@127.0.0.1:$pg_port/mediagen_bench"
  fi
  if [[ -z "${MEDIAGEN_REDIS_URL:-}" ]]; then
    local redis_port
    redis_port="$(pick_port)" || die "no free port for Redis"
    log "starting a throwaway Redis on 127.0.0.1:$redis_port"
    start_redis "$work_dir/services" "$redis_port" fast || die "Redis did not start"
    export MEDIAGEN_REDIS_URL="redis://127.0.0.1:$redis_port/0"
  fi
}

# ------------------------------------------------------------- mediagen ----
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

start_mediagen() {
  local out user_id key line public admin
  mkdir -p "$work_dir/mediagen/storage"
  export MEDIAGEN_API_PREFIX="$api_prefix"
  export MEDIAGEN_REDIS_PREFIX="${MEDIAGEN_REDIS_PREFIX:-mg_bench_$(random_hex 4):}"
  export MEDIAGEN_STORAGE_DIR="${MEDIAGEN_STORAGE_DIR:-$work_dir/mediagen/storage}"
  export MEDIAGEN_SECRET="${MEDIAGEN_SECRET:-$(random_hex 32)}"
  export MEDIAGEN_PUSHER_APP_SECRET="${MEDIAGEN_PUSHER_APP_SECRET:-$(random_hex 16)}"
  export MEDIAGEN_IO_THREADS="$io_threads"
  cd "$work_dir/mediagen"

  "$mediagen_bin" migrate >"$work_dir/mediagen/migrate.out" 2>"$work_dir/mediagen/migrate.err" ||
    { cat "$work_dir/mediagen/migrate.err" >&2; die "mediagen migrate failed"; }

  out="$("$mediagen_bin" admin user create --email "bench-$(random_hex 6)@example.com" --name "Bench" 2>"$work_dir/mediagen/cli.err")" ||
    { cat "$work_dir/mediagen/cli.err" >&2; die "admin user create failed"; }
  user_id="$(json_field id "$out")"
  [[ "$user_id" =~ ^[0-9]+$ ]] || die "admin user create: no id in: $out"

  out="$("$mediagen_bin" admin key create --user "$user_id" --preset full --name bench 2>"$work_dir/mediagen/cli.err")" ||
    { cat "$work_dir/mediagen/cli.err" >&2; die "admin key create failed"; }
  key="$(json_field key "$out")"
  [[ -n "$key" ]] || die "admin key create: no key in its output"

  MEDIAGEN_LISTEN=127.0.0.1:0 MEDIAGEN_ADMIN_LISTEN=127.0.0.1:0 \
    "$mediagen_bin" serve --no-migrate >"$work_dir/mediagen/serve.out" 2>"$work_dir/mediagen/serve.err" &
  server_pid=$!
  cd "$here"

  line=""
  for _ in $(seq 1 300); do
    line="$(grep -m 1 -E '"msg"[[:space:]]*:[[:space:]]*"listening"' "$work_dir/mediagen/serve.err" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      tail -n 30 "$work_dir/mediagen/serve.err" >&2 || true
      server_pid=""
      die "mediagen serve exited before listening"
    fi
    sleep 0.1
  done
  [[ -n "$line" ]] || { tail -n 30 "$work_dir/mediagen/serve.err" >&2; die "no \"listening\" line from mediagen serve within 30 s"; }
  public="$(json_field public "$line")"
  admin="$(json_field admin "$line")"
  [[ "$public" =~ ^[0-9.]+:[0-9]+$ && "$admin" =~ ^[0-9.]+:[0-9]+$ ]] ||
    die "cannot read the bound addresses from: $line"
  log "mediagen listening: public $public, admin $admin, io threads $io_threads"

  URL[healthz]="http://$public/healthz";          HDR[healthz]=""
  URL[key]="http://$public$api_prefix/key";       HDR[key]="X-API-KEY: $key"
  URL[user]="http://$public$api_prefix/user";     HDR[user]="X-API-KEY: $key"
  ADMIN_URL="http://$admin"
  if has_target ai304; then
    "$mediagen_bin" admin ai-model set --key bench-model --price-input 100 --price-output 400 \
      >/dev/null 2>"$work_dir/mediagen/cli.err" || { cat "$work_dir/mediagen/cli.err" >&2; die "admin ai-model set failed"; }
    local etag
    etag="$(curl -sS -o /dev/null -D - -H "X-API-KEY: $key" "http://$public$api_prefix/ai/models" |
      tr -d '\r' | awk 'tolower($1) == "etag:" {print $2; exit}')"
    [[ -n "$etag" ]] || die "GET $api_prefix/ai/models answered no ETag"
    URL[ai304]="http://$public$api_prefix/ai/models"; HDR[ai304]="X-API-KEY: $key"
    HDR2[ai304]="If-None-Match: $etag"; WANT[ai304]=304
  fi
}

# The -H arguments of a target.
target_headers() {
  local t="$1"
  HDR_ARGS=()
  [[ -n "${HDR[$t]:-}" ]] && HDR_ARGS+=(-H "${HDR[$t]}")
  [[ -n "${HDR2[$t]:-}" ]] && HDR_ARGS+=(-H "${HDR2[$t]}")
  return 0
}

# One request to each target: it must answer 200 (ai304: 304) before it is measured.
check_target() {
  local t="$1" code body="$work_dir/check-$1.body" want="${WANT[$1]:-200}"
  target_headers "$t"
  code="$(curl -sS -o "$body" -w '%{http_code}' "${HDR_ARGS[@]}" "${URL[$t]}" 2>&1)" || code="curl failed: $code"
  if [[ "$code" != "$want" ]]; then
    echo "http_bench: $t: GET ${URL[$t]} answered $code instead of $want:" >&2
    head -c 600 "$body" >&2 2>/dev/null || true
    echo >&2
    return 1
  fi
}

run_wrk() {
  local t="$1" secs="$2" out="$3"
  target_headers "$t"
  # In the background so that a signal to this script is handled at once.
  wrk -t"$threads" -c"$connections" -d"${secs}s" --latency "${HDR_ARGS[@]}" "${URL[$t]}" >"$out" 2>&1 &
  wrk_pid=$!
  if ! wait "$wrk_pid"; then
    wrk_pid=""
    cat "$out" >&2
    die "wrk failed against ${URL[$t]}"
  fi
  wrk_pid=""
}

declare -A MDELTA
METRICS=(mediagen_key_cache_hits_total mediagen_key_cache_misses_total mediagen_db_queries_total mediagen_redis_commands_total)

scrape_metrics() {
  curl -fsS -o "$1" "$ADMIN_URL/metrics" || { log "could not scrape $ADMIN_URL/metrics"; : >"$1"; }
}

bench_target() {
  local t="$1"
  if ((warmup > 0)); then
    run_wrk "$t" "$warmup" "$work_dir/warmup-$t.txt"
  fi
  if [[ "$t" == key || "$t" == user || "$t" == ai304 ]]; then
    scrape_metrics "$work_dir/metrics-before.txt"
  fi
  log "measuring $t: wrk -t$threads -c$connections -d${duration}s --latency ${URL[$t]}"
  run_wrk "$t" "$duration" "$work_dir/wrk-$t.txt"
  if [[ "$t" == key || "$t" == user || "$t" == ai304 ]]; then
    scrape_metrics "$work_dir/metrics-after.txt"
    local m before after
    for m in "${METRICS[@]}"; do
      before="$(metric_sum "$m" "$work_dir/metrics-before.txt")"
      after="$(metric_sum "$m" "$work_dir/metrics-after.txt")"
      if [[ "$before" == absent || "$after" == absent ]]; then
        MDELTA[$t:$m]="absent"
      else
        MDELTA[$t:$m]="$((after - before))"
      fi
    done
  fi
  parse_wrk "$work_dir/wrk-$t.txt"
  RPS[$t]="$R_RPS"; P50[$t]="$R_P50"; P99[$t]="$R_P99"
  NON2XX[$t]="$R_NON2XX"; SOCKERR[$t]="$R_SOCKERR"
  if [[ "$R_NON2XX" != 0 || "$R_SOCKERR" != 0 ]]; then
    failed=1
    echo "http_bench: $t: wrk reported $R_NON2XX non-2xx/3xx responses and $R_SOCKERR socket errors out of ${R_REQUESTS:-?} requests:" >&2
    grep -E 'Non-2xx|Socket errors' "$work_dir/wrk-$t.txt" >&2 || true
  fi
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b + 0 == 0) print "-"; else printf "%.3f\n", a / b }'; }

# ------------------------------------------------------------------ run ----
if has_target nginx; then
  start_nginx
fi
if ((need_mediagen)); then
  setup_services
  start_mediagen
fi

order=()
for t in nginx healthz key user ai304; do has_target "$t" && order+=("$t"); done

for t in "${order[@]}"; do
  check_target "$t" || die "target $t is not answering 200; nothing measured"
done
for t in "${order[@]}"; do
  bench_target "$t"
done

label() {
  case "$1" in
    nginx) echo "nginx return 200";;
    healthz) echo "GET /healthz";;
    key) echo "GET $api_prefix/key";;
    user) echo "GET $api_prefix/user";;
    ai304) echo "GET $api_prefix/ai/models 304";;
  esac
}

echo
echo "wrk -t$threads -c$connections -d${duration}s --latency, warm-up ${warmup}s; mediagen io threads: $io_threads; cores: $(nproc 2>/dev/null || echo '?')"
printf '%-18s %12s %9s %9s %10s %10s %8s %8s\n' target "req/s" "p50 ms" "p99 ms" "rps/nginx" "p99/nginx" "non-2xx" "sockerr"
for t in "${order[@]}"; do
  rps_ratio="-"; p99_ratio="-"
  if has_target nginx; then
    rps_ratio="$(ratio "${RPS[$t]}" "${RPS[nginx]}")"
    p99_ratio="$(ratio "${P99[$t]}" "${P99[nginx]}")"
  fi
  printf '%-18s %12s %9s %9s %10s %10s %8s %8s\n' "$(label "$t")" "${RPS[$t]}" "${P50[$t]}" "${P99[$t]}" \
    "$rps_ratio" "$p99_ratio" "${NON2XX[$t]}" "${SOCKERR[$t]}"
done

if has_target key && has_target healthz; then
  awk -v k="${RPS[key]}" -v h="${RPS[healthz]}" 'BEGIN {
    if (k == "nan" || h == "nan" || h + 0 == 0) print "auth cost: -";
    else printf "auth cost: %.1f%% (1 - rps(key) / rps(healthz) = %.3f)\n", (1 - k / h) * 100, 1 - k / h }'
fi

if has_target key && has_target ai304; then
  awk -v a="${RPS[ai304]}" -v k="${RPS[key]}" 'BEGIN {
    if (a == "nan" || k == "nan" || k + 0 == 0) print "ai304 / key: -";
    else printf "ai304 / key: %.3f (target >= 0.8: %s)\n", a / k, (a / k >= 0.8 ? "met" : "NOT met") }'
fi

for t in key user ai304; do
  has_target "$t" || continue
  echo "metrics change during the measured $(label "$t") run (misses, db queries and redis commands should be 0):"
  for m in "${METRICS[@]}"; do
    note=""
    if [[ "$m" != mediagen_key_cache_hits_total && "${MDELTA[$t:$m]}" != 0 ]]; then
      note="  <-- expected 0"
    fi
    printf '  %-36s %s%s\n' "$m" "${MDELTA[$t:$m]}" "$note"
  done
done

if ((failed)); then
  echo "http_bench: some runs had non-2xx answers or socket errors (see above)" >&2
  exit 1
fi
