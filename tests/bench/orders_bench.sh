#!/usr/bin/env bash
# Orders benchmarks (performance anchors G5, G3, G6, G7). Every figure is printed beside its raw
# anchor, measured in the same run on the same throwaway PostgreSQL (fsync and
# synchronous_commit on) and Redis:
#   G5  POST {prefix}/orders, a 5-chunk text (5 paragraphs of ~1,000 characters, paragraph mode),
#       wrk -t2 -c8 with 1 user and with 8 users, server with MEDIAGEN_WORKERS=0, against the raw
#       order transaction (order_create.sql: wallet UPDATE, order INSERT, 5 chunk rows in one
#       INSERT, COMMIT) in pgbench -c8 -M prepared on a copy of the same database.
#       Target >= 0.60. Also per order: write transactions (xids, must be 1), all transactions
#       (pg_stat_database.xact_commit, single-statement reads count too) and statements
#       (mediagen_db_queries_total).
#   G3  GET {prefix}/orders/{id} (an order of 5 chunks), wrk -t2 -c64 --latency, against
#       pgbench -S -M prepared -c8 (scale 10). Target >= 0.25, p99 <= 10 ms. Also the route's own
#       SQL (order_get.sql) in pgbench, to tell the SQL's share of the gap from the server's:
#       target >= 0.70 of it.
#   G6  claim cycles while a filled queue drains (claim_bench.sql: the worker's claim
#       transaction + the completion UPDATE), claims/s in the first and last third, EXPLAIN of
#       the claim; beside the raw claim + complete cycle on a minimal jobs table with a partial
#       index (claim_raw.sql, P10); then the claim with one big order (2,000 chunks) at the head
#       of the queue, and with the partial index replaced by a plain one (the P7 shape).
#       Target: first/last third flat, >= 0.60 of the raw cycle, WAL <= 2x raw, big order >= 0.85.
#   G7  server CPU (its process and its speech helpers) per character of whole speech orders (~5,000 English characters,
#       synthesis, MP3, stitching, storing; two orders at once), with 1 worker and with 2,
#       against `espeak-ng --stdout | lame -b 64 -q 5` (the engine's MP3 settings) on the same
#       text and voice. Target <= 1.15x; wall throughput of 2 workers >= 1.8x one worker.
#
# Builds nothing. Build the server first in a Release tree:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON
#   ninja -C build-bench mediagen
# Environment (all optional):
#   MEDIAGEN_BIN       server binary (default: build-bench/mediagen, else build/mediagen)
#   BENCH_PARTS        subset of "g5 g3 g6 g7" (default all)
#   BENCH_DURATION     seconds per measured run (default 8); BENCH_WARMUP (default 2)
#   BENCH_QUEUE_ITEMS  chunks queued for G6 (default 100000)
#   BENCH_BIG_ORDER_CHUNKS  chunks of the one big order put at the head of the G6 queue (2000)
#   BENCH_SPEECH_ROUNDS  rounds of two orders per worker count in G7 (default 3, median)
#   BENCH_KEEP_TMP     keep the work directory (logs, server output)
#   BENCH_SMOKE=1      a check that the bench works, in about a minute: 1-s runs without warm-up
#                      (G6's 3 s at 400 cycles/s), 2 users instead of 8, a queue of 4,000 chunks,
#                      one speech round of 400 characters, pgbench scale 1, fsync off, and no wait
#                      for the statistics of G5's transactions (the figures mean nothing then)
# Needs: wrk, pgbench, psql, curl, python3, espeak-ng, lame, PostgreSQL 15 and redis-server.
# Takes about 4 minutes. Exit status: 0 when everything ran (a missed target is reported, not
# an error), 1 when a run failed its checks, 2 on a setup failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
PATH="$PATH:/usr/sbin:/sbin"

parts="${BENCH_PARTS:-g5 g3 g6 g7}"
duration="${BENCH_DURATION:-8}"
warmup="${BENCH_WARMUP:-2}"
queue_items="${BENCH_QUEUE_ITEMS:-100000}"
speech_rounds="${BENCH_SPEECH_ROUNDS:-3}"
big_order_chunks="${BENCH_BIG_ORDER_CHUNKS:-2000}"
api_prefix="${MEDIAGEN_API_PREFIX:-/api}"
smoke="${BENCH_SMOKE:-0}"
max_users=8 raw_jobs=200000 pgbench_scale=10 speech_text_chars=5000 idle_secs=2 raw_rounds=3 pg_mode=""
claim_secs="" claim_rate=()
if [[ "$smoke" == 1 ]]; then
  duration=1 warmup=0 queue_items=4000 speech_rounds=1 big_order_chunks=50
  max_users=2 raw_jobs=4000 pgbench_scale=1 speech_text_chars=400 idle_secs=0.5 raw_rounds=1 pg_mode=fast
  # A G6 run with thirds needs two progress lines (3 s), at a rate that cannot drain the queue.
  claim_secs=3 claim_rate=(-R 400)
fi

die() { echo "orders_bench: $*" >&2; exit 2; }
log() { echo "orders_bench: $*" >&2; }
has_part() { [[ " $parts " == *" $1 "* ]]; }

for p in $parts; do
  case "$p" in g5|g3|g6|g7) ;; *) die "unknown part '$p' in BENCH_PARTS (use: g5 g3 g6 g7)";; esac
done
[[ "$duration" =~ ^[1-9][0-9]*$ ]] || die "BENCH_DURATION must be a positive integer"
[[ "$warmup" =~ ^[0-9]+$ ]] || die "BENCH_WARMUP must be a non-negative integer"
[[ "$queue_items" =~ ^[1-9][0-9]*$ ]] || die "BENCH_QUEUE_ITEMS must be a positive integer"
[[ "$speech_rounds" =~ ^[1-9][0-9]*$ ]] || die "BENCH_SPEECH_ROUNDS must be a positive integer"
[[ "$big_order_chunks" =~ ^[1-9][0-9]*$ ]] || die "BENCH_BIG_ORDER_CHUNKS must be a positive integer"

# shellcheck source=lib_services.sh
source "$here/lib_services.sh"
bin="$(bench_server_bin "$repo_root")" || die "no server binary (set MEDIAGEN_BIN or build build-bench/mediagen)"
missing="$(bench_missing_tools wrk pgbench psql curl python3 espeak-ng lame redis-server)"
[[ -z "$missing" ]] || die "missing tool(s): $missing"

# shellcheck source=../../scripts/lib/services.sh
source "$repo_root/scripts/lib/services.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/mg-bench.XXXXXX")"
chmod 0755 "$work"
server_pid=""
failed=0

stop_server() {
  [[ -n "$server_pid" ]] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$server_pid" 2>/dev/null && kill -KILL "$server_pid" 2>/dev/null
  fi
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_server
  stop_redis "$work/redis" || true
  stop_postgres "$work/pg" || true
  if [[ -n "${BENCH_KEEP_TMP:-}" ]]; then log "kept $work"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------------ helpers ----
pg_port="$(free_port)"
redis_port="$(free_port)"
db_url() { printf 'postgresql://postgres@127.0.0.1:%s/%s\n' "$pg_port" "$1"; }
q() { local db="$1"; shift; psql -X -q -At -v ON_ERROR_STOP=1 "$(db_url "$db")" "$@"; }
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$1"; }
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.3f", a / b }'; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

export MEDIAGEN_REDIS_URL="redis://127.0.0.1:$redis_port/0"
MEDIAGEN_REDIS_PREFIX="mg_bench_$(random_hex 4):"
MEDIAGEN_SECRET="$(random_hex 32)"
MEDIAGEN_PUSHER_APP_SECRET="$(random_hex 16)"
export MEDIAGEN_REDIS_PREFIX MEDIAGEN_SECRET MEDIAGEN_PUSHER_APP_SECRET
export MEDIAGEN_API_PREFIX="$api_prefix"
export MEDIAGEN_STORAGE_DIR="$work/storage"
export MEDIAGEN_IO_THREADS="${MEDIAGEN_IO_THREADS:-1}"
mkdir -p "$MEDIAGEN_STORAGE_DIR"

# The CLI against one database.
mg() { local db="$1"; shift; MEDIAGEN_DATABASE_URL="$(db_url "$db")" "$bin" "$@"; }

# new_database NAME [seeded]: a copy of a migrated database (seeded: of a copy of it that also ran
# seed-demo), both made once: a migration or a seed-demo run takes seconds, more in a sanitizer
# build, a copy a fraction of one.
have_template=0 have_seeded=0
new_database() {
  local from=mg_template
  if ((!have_template)); then
    q postgres -c "CREATE DATABASE mg_template" >/dev/null
    mg mg_template migrate >"$work/migrate.out" 2>&1 || { cat "$work/migrate.out" >&2; die "migrate failed"; }
    have_template=1
  fi
  if [[ "${2:-}" == seeded ]]; then
    if ((!have_seeded)); then
      q postgres -c "CREATE DATABASE mg_seeded TEMPLATE mg_template" >/dev/null
      mg mg_seeded admin seed-demo --skip-voice-features >/dev/null || die "seed-demo failed"
      have_seeded=1
    fi
    from=mg_seeded
  fi
  q postgres -c "CREATE DATABASE $1 TEMPLATE $from" >/dev/null
}

# Creates a user with a balance that never runs out and a full key; prints "id key".
new_user() {
  local db="$1" out id key
  out="$(mg "$db" admin user create --email "bench-$(random_hex 6)@example.com" --name Bench \
    --balance 1000000000000000)" || die "user create failed"
  id="$(json_get id <<<"$out")"
  out="$(mg "$db" admin key create --user "$id" --preset full --name bench)" || die "key create failed"
  key="$(json_get key <<<"$out")"
  echo "$id $key"
}

PUBLIC=""; ADMIN=""
start_server() {
  local db="$1" workers="$2" err line=""
  err="$work/serve-$1-w$2-$(random_hex 2).err"
  MEDIAGEN_DATABASE_URL="$(db_url "$db")" MEDIAGEN_WORKERS="$workers" \
    MEDIAGEN_LISTEN=127.0.0.1:0 MEDIAGEN_ADMIN_LISTEN=127.0.0.1:0 \
    "$bin" serve --no-migrate >"$work/serve.out" 2>"$err" &
  server_pid=$!
  for _ in $(seq 1 300); do
    line="$(grep -m 1 -E '"msg"[[:space:]]*:[[:space:]]*"listening"' "$err" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$err" >&2; server_pid=""; die "server exited before listening"; }
    sleep 0.1
  done
  [[ -n "$line" ]] || { tail -n 20 "$err" >&2; die "server did not listen within 30 s"; }
  PUBLIC="$(json_get public <<<"$line")"
  ADMIN="$(json_get admin <<<"$line")"
}

# api METHOD PATH KEY [BODY-FILE] -> body on stdout; the status must be 2xx.
api() {
  local method="$1" path="$2" key="$3" file="${4:-}" out code
  out="$(mktemp "$work/api.XXXXXX")"
  local -a data=()
  [[ -n "$file" ]] && data=(-H 'Content-Type: application/json' --data-binary "@$file")
  code="$(curl -sS -o "$out" -w '%{http_code}' -X "$method" -H "X-API-KEY: $key" "${data[@]}" \
    "http://$PUBLIC$api_prefix$path")" || die "$method $path: curl failed"
  [[ "$code" == 2* ]] || { cat "$out" >&2; echo >&2; die "$method $path answered $code"; }
  cat "$out"
  rm -f "$out"
}

metric() {
  curl -fsS "http://$ADMIN/metrics" | awk -v n="$1" '$0 ~ "^" n "([{ ])" { s += $NF } END { printf "%.0f\n", s }'
}

# Converts a wrk time (812.00us, 1.23ms, 1.01s) to milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN { if (match(v, /^[0-9.]+/) == 0) { print "nan"; exit }
    n = substr(v, 1, RLENGTH) + 0; u = substr(v, RLENGTH + 1)
    f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : -1
    if (f < 0) print "nan"; else printf "%.2f", n * f }'
}

# run_wrk OUT wrk-args...: fills W_RPS W_P50 W_P99 W_REQ W_BAD (non-2xx + socket errors).
run_wrk() {
  local out="$1"; shift
  wrk "$@" >"$out" 2>&1 || { cat "$out" >&2; die "wrk failed"; }
  W_RPS="$(awk '/^Requests\/sec:/ { print $2 }' "$out")"
  W_REQ="$(awk '/requests in/ { print $1; exit }' "$out")"
  W_P50="$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")"
  W_P99="$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")"
  W_BAD="$(awk '/Non-2xx or 3xx responses:/ { n += $NF } /Socket errors:/ { gsub(",", ""); n += $4 + $6 + $8 + $10 }
    END { print n + 0 }' "$out")"
  if [[ "$W_BAD" != 0 ]]; then
    failed=1
    log "wrk saw $W_BAD non-2xx answers or socket errors ($out):"
    grep -E 'Non-2xx|Socket errors' "$out" >&2 || true
  fi
}

# run_pgbench OUT pgbench-args...: fills PG_TPS (excluding connection time) and PG_LAT (ms).
run_pgbench() {
  local out="$1"; shift
  pgbench "$@" >"$out" 2>&1 || { tail -n 20 "$out" >&2; failed=1; log "pgbench reported errors ($out)"; }
  PG_TPS="$(awk '/^tps = / { printf "%.1f", $3; exit }' "$out")"
  PG_LAT="$(awk '/^latency average = / { print $4; exit }' "$out")"
  PG_TXNS="$(awk '/^number of transactions actually processed: / { print $6; exit }' "$out")"
  [[ -n "$PG_TPS" ]] || { tail -n 20 "$out" >&2; die "no tps in pgbench output ($out)"; }
}

# Mean of pgbench -P 1 progress rates over the first and the last third of the run (the first
# and the last line of a run too short for three).
progress_thirds() {
  awk '/^progress: / { for (i = 1; i <= NF; i++) if ($i == "tps,") v[++n] = $(i - 1) }
    END { t = int(n / 3); if (t < 1 && n >= 2) t = 1; if (t < 1) { print "- -"; exit }
      for (i = 1; i <= t; i++) a += v[i]; for (i = n - t + 1; i <= n; i++) b += v[i]
      printf "%.0f %.0f\n", a / t, b / t }' "$1"
}

wal_lsn() { q postgres -c "SELECT pg_current_wal_lsn()"; }
wal_bytes() { q postgres -c "SELECT pg_wal_lsn_diff('$2', '$1')::bigint"; }
# The server's CPU ticks and those of its speech helpers (its child processes, alive all along).
cpu_ticks() {
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v p="$1" '$1 == p || $4 == p { s += $14 + $15 } END { print s + 0 }'
}
clk_tck="$(getconf CLK_TCK)"
now() { date +%s.%N; }

# The English prose of speech_bench.cpp: whole sentences, in order, round after round.
make_text() {  # make_text CHARS MODE (ordinary: paragraphs as they come; paragraphs5: 5 of CHARS/5)
  python3 - "$1" "$2" <<'EOF'
import sys
paragraphs = [
    ["The harbour town woke slowly that morning.",
     "Fishing boats rocked against the old stone pier, and a thin mist hung over the water while the first shops opened their shutters.",
     "Somewhere a radio played a song nobody could quite name."],
    ["Maria had walked the same road for eleven years.",
     "She knew every crack in the pavement, every loose tile on the bakery roof, and the exact moment when the church bell would ring the hour.",
     "Today, however, something felt different, as if the town itself were holding its breath."],
    ["At the end of the street a small crowd had gathered around a wooden crate.",
     "Children pushed forward to see, while their parents argued about who had left it there and what it might contain.",
     "The label was written in a language none of them could read."],
    ["When the lid was finally lifted, the crate held nothing but carefully folded maps: hundreds of them, each one showing the same coastline, drawn by a different hand.",
     "Some were precise and modern; others looked centuries old, their ink faded to a pale brown."],
]
chars, mode = int(sys.argv[1]), sys.argv[2]
sentences = [(i == 0, s) for p in paragraphs for i, s in enumerate(p)]
def fill(limit, start):
    text, k = "", start
    while True:
        first, s = sentences[k % len(sentences)]
        sep = "" if not text else (" " if mode == "paragraphs5" or not first else "\n\n")
        if len(text) + len(sep) + len(s) > limit:
            return text, k
        text += sep + s
        k += 1
if mode == "paragraphs5":
    out, k = [], 0
    for _ in range(5):
        p, k = fill(chars // 5, k)
        out.append(p)
    sys.stdout.write("\n\n".join(out))
else:
    sys.stdout.write(fill(chars, 0)[0])
EOF
}

# order_body TEMPLATE TEXT-FILE MODE > body.json
order_body() {
  python3 -c 'import json,sys
body = {"template_id": sys.argv[1], "input_text": open(sys.argv[2], encoding="utf-8").read()}
if sys.argv[3] == "paragraph": body["config_override"] = {"generation_mode": "paragraph"}
print(json.dumps(body))' "$1" "$2" "$3"
}

# new_template KEY MODEL -> template id (provider_a, its first en-us library voice)
template_voice=""
new_template() {
  local key="$1" model="$2"
  [[ -n "$template_voice" ]] ||
    template_voice="$(api GET "/voices/provider_a/library?page_size=1&locale=en-us" "$key" | json_get data.voices.0.voice_id)"
  python3 -c 'import json,sys; print(json.dumps({"service_key": "provider_a", "name": "bench",
    "config": {"tts_settings": {"mode": "mode_v1", "model_id": sys.argv[1], "voice_id": sys.argv[2]}}}))' \
    "$model" "$template_voice" >"$work/template.json"
  api POST /templates "$key" "$work/template.json" | json_get data.id
}

# ------------------------------------------------------------------- start ----
log "PostgreSQL on 127.0.0.1:$pg_port (${pg_mode:-fsync and synchronous_commit on}), Redis on 127.0.0.1:$redis_port"
start_postgres "$work/pg" "$pg_port" ${pg_mode:+"$pg_mode"} || die "PostgreSQL did not start"
start_redis "$work/redis" "$redis_port" fast || die "Redis did not start"
log "server $bin; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

declare -A R  # results for the summary

# ---------------------------------------------------------------- G5 + G3 ----
if has_part g5 || has_part g3; then
  new_database mg_orders seeded
  users=(); keys=()
  for ((u = 0; u < max_users; u++)); do
    read -r id key < <(new_user mg_orders)
    users+=("$id"); keys+=("$key")
  done
  make_text 5000 paragraphs5 >"$work/order5.txt"
  start_server mg_orders 0
  bodies=()
  for i in "${!keys[@]}"; do
    template="$(new_template "${keys[$i]}" a-v3)"
    order_body "$template" "$work/order5.txt" paragraph >"$work/order-body-$i.json"
    bodies+=("$work/order-body-$i.json")
    api POST /orders "${keys[$i]}" "$work/order-body-$i.json" >"$work/first-order-$i.json"
  done
  first_order="$(json_get data.id <"$work/first-order-0.json")"
  chunks="$(q mg_orders -c "SELECT count(*) FROM order_items WHERE order_id = '$first_order'")"
  [[ "$chunks" == 5 ]] || die "the order text makes $chunks chunks, not 5"
  stop_server
  # The raw transaction runs on an exact copy: same tables, indexes, users, wallets.
  q postgres -c "CREATE DATABASE mg_raw TEMPLATE mg_orders" >/dev/null
  start_server mg_orders 0
fi

if has_part g5; then
  # Everything the raw transaction writes, copied from the order the server made.
  mapfile -t -d '' order_vars < <(q mg_orders -F $'\t' -c "
    SELECT o.asset_id, o.price_units, o.api_key_id, o.template_id, o.service_key, o.model_id, o.generation_mode,
      o.capacity, o.price_per_1k_minor, o.tokens_from_payg, o.config_snapshot::text, o.config_override::text,
      o.engine_request::text FROM orders o WHERE o.id = '$first_order'" | python3 -c 'import sys
sys.stdout.write("\0".join(sys.stdin.read().rstrip("\n").split("\t")) + "\0")')
  names=(asset price key_id template service model mode capacity rate tokens config override engine)
  raw_args=()
  for i in "${!names[@]}"; do raw_args+=(-D "${names[$i]}=${order_vars[$i]}"); done
  raw_args+=(-D "input_text=$(cat "$work/order5.txt")")
  for c in 0 1 2 3 4; do
    IFS=$'\t' read -r len tok money < <(q mg_orders -F $'\t' -c "SELECT original_text_length, price_units, payg_minor
      FROM order_items WHERE order_id = '$first_order' AND chunk_index = $c")
    raw_args+=(-D "p$c=$(q mg_orders -c "SELECT t.text FROM order_items i JOIN order_item_texts t ON t.item_id = i.id WHERE i.order_id = '$first_order' AND i.chunk_index = $c")")
    raw_args+=(-D "l$c=$len" -D "t$c=$tok" -D "m$c=$money")
  done

  cat >"$work/post.lua" <<'EOF'
-- POST with a key per request: thread t of n takes the keys k with k % n == t (all when fewer).
local next_index = 0
function setup(thread)
  thread:set("thread_index", next_index)
  next_index = next_index + 1
end
function init(args)
  local path, threads = args[1], tonumber(args[2])
  local total = (#args - 2) / 2
  requests = {}
  for k = 0, total - 1 do
    if total < threads or k % threads == thread_index then
      local f = assert(io.open(args[4 + 2 * k], "rb"))
      local body = f:read("*a")
      f:close()
      requests[#requests + 1] = wrk.format("POST", path,
        { ["X-API-KEY"] = args[3 + 2 * k], ["Content-Type"] = "application/json" }, body)
    end
  end
  count = 0
end
function request()
  count = count + 1
  return requests[count % #requests + 1]
end
EOF

  xact_commits() { q postgres -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'mg_orders'"; }
  commits0="$(xact_commits)"
  orders_all0="$(q mg_orders -c "SELECT count(*) FROM orders")"
  for n_users in 1 "$max_users"; do
    wrk_args=(-t2 -c8 -s "$work/post.lua" "http://$PUBLIC$api_prefix/orders" -- "$api_prefix/orders" 2)
    for ((i = 0; i < n_users; i++)); do wrk_args+=("${keys[$i]}" "${bodies[$i]}"); done
    ((warmup > 0)) && run_wrk "$work/wrk-post-warm-$n_users.txt" -d"${warmup}s" "${wrk_args[@]}"
    orders0="$(q mg_orders -c "SELECT count(*) FROM orders")"
    lsn0="$(wal_lsn)"
    xid0="$(q postgres -c "SELECT txid_current()")"
    stmts0="$(metric mediagen_db_queries_total)"
    ticks0="$(cpu_ticks "$server_pid")"
    log "G5: POST /orders, $n_users user(s): wrk -t2 -c8 -d${duration}s"
    run_wrk "$work/wrk-post-$n_users.txt" -d"${duration}s" --latency "${wrk_args[@]}"
    last_post="$(now)"
    ticks1="$(cpu_ticks "$server_pid")"
    stmts1="$(metric mediagen_db_queries_total)"
    xid1="$(q postgres -c "SELECT txid_current()")"
    lsn1="$(wal_lsn)"
    orders1="$(q mg_orders -c "SELECT count(*) FROM orders")"
    made=$((orders1 - orders0))
    R[g5_wal_$n_users]="$(calc "$(wal_bytes "$lsn0" "$lsn1") / $made" 0)"
    R[g5_rps_$n_users]="$W_RPS"; R[g5_p50_$n_users]="$W_P50"; R[g5_p99_$n_users]="$W_P99"
    R[g5_writes_$n_users]="$(ratio $((xid1 - xid0 - 1)) "$made")"
    R[g5_stmts_$n_users]="$(ratio $((stmts1 - stmts0)) "$made")"
    R[g5_made_$n_users]="$made"
    R[g5_cpu_$n_users]="$(calc "($ticks1 - $ticks0) * 1000 / $clk_tck / $made" 3)"

    last=$((users[n_users - 1]))
    log "G5: raw order transaction, $n_users user(s): pgbench -c8 -j2 -T$duration -M prepared"
    pg_args=(-n -M prepared -c 8 -j 2 -f "$here/order_create.sql" -D "uid_lo=${users[0]}" -D "uid_hi=$last" "${raw_args[@]}")
    ((warmup > 0)) && run_pgbench "$work/pgbench-order-warm-$n_users.txt" "${pg_args[@]}" -T "$warmup" "$(db_url mg_raw)"
    lsn0="$(wal_lsn)"
    run_pgbench "$work/pgbench-order-$n_users.txt" "${pg_args[@]}" -T "$duration" "$(db_url mg_raw)"
    lsn1="$(wal_lsn)"
    R[g5_raw_$n_users]="$PG_TPS"; R[g5_rawlat_$n_users]="$PG_LAT"
    R[g5_rawwal_$n_users]="$(calc "$(wal_bytes "$lsn0" "$lsn1") / $PG_TXNS" 0)"
  done
  ((users[max_users - 1] - users[0] == max_users - 1)) ||
    log "warning: user ids are not consecutive; the raw $max_users-user run debits other ids"
  # An idle backend publishes its statistics within 10 s: wait until the last POST is that old
  # (a smoke run prints whatever has arrived; its figures mean nothing anyway).
  [[ "$smoke" == 1 ]] || sleep "$(calc "$last_post + 11 - $(now)" 3 | awk '{ print ($1 > 0) ? $1 : 0 }')"
  commits1="$(xact_commits)"
  orders_all1="$(q mg_orders -c "SELECT count(*) FROM orders")"
  R[g5_commits]="$(ratio $((commits1 - commits0)) $((orders_all1 - orders_all0)))"
fi

if has_part g3; then
  log "G3: initialising pgbench scale $pgbench_scale"
  q postgres -c "CREATE DATABASE mg_pgbench" >/dev/null
  pgbench -i -s "$pgbench_scale" -q -I dtGvp "$(db_url mg_pgbench)" >"$work/pgbench-init.txt" 2>&1 || { cat "$work/pgbench-init.txt" >&2; die "pgbench -i failed"; }
  url="http://$PUBLIC$api_prefix/orders/$first_order"
  api GET "/orders/$first_order" "${keys[0]}" >/dev/null
  ((warmup > 0)) && run_wrk "$work/wrk-get-warm.txt" -t2 -c64 -d"${warmup}s" -H "X-API-KEY: ${keys[0]}" "$url"
  stmts0="$(metric mediagen_db_queries_total)"
  ticks0="$(cpu_ticks "$server_pid")"
  log "G3: GET /orders/{id}: wrk -t2 -c64 -d${duration}s --latency"
  run_wrk "$work/wrk-get.txt" -t2 -c64 -d"${duration}s" --latency -H "X-API-KEY: ${keys[0]}" "$url"
  ticks1="$(cpu_ticks "$server_pid")"
  stmts1="$(metric mediagen_db_queries_total)"
  R[g3_cpu]="$(calc "($ticks1 - $ticks0) * 1000 / $clk_tck / $W_REQ" 4)"
  R[g3_rps]="$W_RPS"; R[g3_p50]="$W_P50"; R[g3_p99]="$W_P99"
  R[g3_stmts]="$(ratio $((stmts1 - stmts0)) "$W_REQ")"
  log "G3: pgbench -S -M prepared -c8 -j2 -T$duration"
  ((warmup > 0)) && run_pgbench "$work/pgbench-s-warm.txt" -n -S -M prepared -c 8 -j 2 -T "$warmup" "$(db_url mg_pgbench)"
  run_pgbench "$work/pgbench-s.txt" -n -S -M prepared -c 8 -j 2 -T "$duration" "$(db_url mg_pgbench)"
  R[g3_raw]="$PG_TPS"; R[g3_rawlat]="$PG_LAT"
  log "G3: the route's own statement: pgbench -M prepared -c8 -j2 -T$duration (order_get.sql)"
  run_pgbench "$work/pgbench-get.txt" -n -M prepared -c 8 -j 2 -f "$here/order_get.sql" -D "order=$first_order" \
    -D "user=${users[0]}" \
    -T "$duration" "$(db_url mg_orders)"
  R[g3_sql]="$PG_TPS"
fi
stop_server

# ---------------------------------------------------------------------- G6 ----
claim_explain() {
  q mg_claim -c "BEGIN" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
    WITH picked AS (
      SELECT id FROM order_items WHERE status = 'pending' ORDER BY queued_at, chunk_index LIMIT 1 FOR UPDATE SKIP LOCKED),
     claimed AS (
      UPDATE order_items i SET status = 'processing', lease_token = gen_random_uuid(),
       locked_until = now() + 60000 * interval '1 millisecond', claims = i.claims + 1, updated_at = now()
      FROM picked WHERE i.id = picked.id RETURNING i.id, i.order_id, i.chunk_index, i.item_type),
     started AS (
      UPDATE orders SET status = 'in_progress', updated_at = now()
      WHERE id = (SELECT order_id FROM claimed) AND status IN ('created', 'pending') RETURNING id)
    SELECT c.id::text, c.order_id::text, t.text, c.chunk_index, c.item_type, o.user_id, o.task_type,
     o.engine_request::text, EXISTS (SELECT 1 FROM started)
    FROM claimed c JOIN orders o ON o.id = c.order_id LEFT JOIN order_item_texts t ON t.item_id = c.id" -c "ROLLBACK"
}

# Shared buffers (hit + read) of the whole statement: the first Buffers line of a plan.
plan_buffers() {
  awk '/Buffers: shared/ { for (i = 1; i <= NF; i++) if ($i ~ /^(hit|read)=/) { split($i, kv, "="); n += kv[2] }
    print n; exit }' "$1"
}

if has_part g6; then
  new_database mg_claim
  read -r claim_user _ < <(new_user mg_claim)
  n_orders=$(((queue_items + 4) / 5))
  chunk_text="$(make_text 1000 ordinary | tr '\n' ' ')"
  log "G6: queueing $((n_orders * 5)) chunks of ${#chunk_text} characters"
  # Like the server's: an order's chunks share its creation time as queued_at; orders are 1 ms apart.
  q mg_claim -v uid="$claim_user" -v n="$n_orders" -v txt="$chunk_text" >/dev/null <<'EOF'
INSERT INTO orders (user_id, task_type, service_key, model_id, asset_id, engine_request, created_at, updated_at)
SELECT :uid, 'tts', 'provider_a', 'a-v3', (SELECT id FROM currency_assets WHERE is_default AND deleted_at IS NULL),
  '{"engine": "espeak", "voice": "en-us", "variant": "", "language": "en", "settings": {}}',
  now() - (:n - g) * interval '1 millisecond', now() - (:n - g) * interval '1 millisecond'
FROM generate_series(1, :n) g;
WITH ins AS (
INSERT INTO order_items (order_id, item_type, chunk_index, original_text_length, current_text_length,
  free_length, billable_length, max_billable_length, max_raw_length, raw_length, capacity_unit, price_units,
  payg_minor, remaining_locked, queued_at)
SELECT o.id, 'chunk', c, 1000, 1000, 1000, 1000, 1000, 5000, 1000, 'chars', 1000, 150, 1000, o.created_at
FROM orders o CROSS JOIN generate_series(0, 4) c ORDER BY o.created_at, c RETURNING id)
INSERT INTO order_item_texts (item_id, text) SELECT id, :'txt' FROM ins;
VACUUM ANALYZE orders;
VACUUM ANALYZE order_items;
VACUUM ANALYZE order_item_texts;
CHECKPOINT;
EOF
  claim_explain >"$work/explain-before.txt"
  claim_args=(-n -M prepared -c 8 -j 2 -P 1 "${claim_rate[@]}" -f "$here/claim_bench.sql" -D lease=60000)
  g6_secs="${claim_secs:-$duration}"
  log "G6: claim cycles: pgbench -c8 -j2 -T$g6_secs -P 1 (claim_bench.sql)"
  lsn0="$(wal_lsn)"
  run_pgbench "$work/pgbench-claim.txt" "${claim_args[@]}" -T "$g6_secs" "$(db_url mg_claim)"
  lsn1="$(wal_lsn)"
  R[g6_tps]="$PG_TPS"; R[g6_lat]="$PG_LAT"
  R[g6_wal]="$(calc "$(wal_bytes "$lsn0" "$lsn1") / $PG_TXNS" 0)"
  read -r 'R[g6_first]' 'R[g6_last]' < <(progress_thirds "$work/pgbench-claim.txt")
  R[g6_left]="$(q mg_claim -c "SELECT count(*) FROM order_items WHERE status = 'pending'")"
  R[g6_done]="$(q mg_claim -c "SELECT count(*) FROM order_items WHERE status = 'completed'")"
  claim_explain >"$work/explain-after.txt"

  log "G6: raw claim + complete (P10 shape): $raw_jobs jobs"
  q mg_claim -v jobs="$raw_jobs" >/dev/null <<'EOF'
CREATE TABLE jobs (id bigserial PRIMARY KEY, state text NOT NULL DEFAULT 'queued', order_id bigint, payload text);
INSERT INTO jobs (order_id, payload) SELECT g / 5, repeat('x', 200) FROM generate_series(1, :jobs) g;
CREATE INDEX jobs_queued ON jobs (id) WHERE state = 'queued';
VACUUM ANALYZE jobs;
CHECKPOINT;
EOF
  lsn0="$(wal_lsn)"
  run_pgbench "$work/pgbench-claim-raw.txt" -n -M prepared -c 8 -j 2 -P 1 "${claim_rate[@]}" -f "$here/claim_raw.sql" \
    -T "$g6_secs" "$(db_url mg_claim)"
  lsn1="$(wal_lsn)"
  R[g6_raw]="$PG_TPS"
  R[g6_raw_wal]="$(calc "$(wal_bytes "$lsn0" "$lsn1") / $PG_TXNS" 0)"
  read -r 'R[g6_raw_first]' 'R[g6_raw_last]' < <(progress_thirds "$work/pgbench-claim-raw.txt")
  big_secs=$(((duration + 1) / 2))
  plain_secs="${claim_secs:-$big_secs}"

  # One big order at the head of the queue: its chunks share one queued_at, so a claim that
  # orders by more than the index gives must read and sort all of them.
  big=$big_order_chunks
  log "G6: one order of $big chunks at the head of the queue, ${big_secs}s"
  q mg_claim -v uid="$claim_user" -v k="$big" -v txt="$chunk_text" >/dev/null <<'EOF2'
WITH o AS (
  INSERT INTO orders (user_id, task_type, service_key, model_id, asset_id, created_at, updated_at)
  SELECT :uid, 'tts', 'provider_a', 'a-v3', (SELECT id FROM currency_assets WHERE is_default AND deleted_at IS NULL),
    now() - interval '1 day', now() - interval '1 day'
  RETURNING id, created_at),
ins AS (
INSERT INTO order_items (order_id, item_type, chunk_index, original_text_length, current_text_length,
  free_length, billable_length, max_billable_length, max_raw_length, raw_length, capacity_unit, price_units,
  payg_minor, remaining_locked, queued_at)
SELECT o.id, 'chunk', c, 1000, 1000, 1000, 1000, 1000, 5000, 1000, 'chars', 1000, 150, 1000, o.created_at
FROM o CROSS JOIN generate_series(0, :k - 1) c RETURNING id)
INSERT INTO order_item_texts (item_id, text) SELECT id, :'txt' FROM ins;
ANALYZE order_items;
EOF2
  claim_explain >"$work/explain-big.txt"
  R[g6_big_ms]="$(awk '/Execution Time:/ { print $3 }' "$work/explain-big.txt")"
  R[g6_big_buffers]="$(plan_buffers "$work/explain-big.txt")"
  R[g6_small_ms]="$(awk '/Execution Time:/ { print $3 }' "$work/explain-after.txt")"
  R[g6_small_buffers]="$(plan_buffers "$work/explain-after.txt")"
  run_pgbench "$work/pgbench-claim-big.txt" "${claim_args[@]}" -T "$big_secs" "$(db_url mg_claim)"
  R[g6_big]="$PG_TPS"

  # The P7 shape: the same claim when the queue index also holds finished rows.
  log "G6: the same claim with a plain (not partial) index, ${plain_secs}s"
  q mg_claim -c "CREATE INDEX order_items_queued_all ON order_items (queued_at, chunk_index)" \
    -c "DROP INDEX order_items_queue" -c "ANALYZE order_items" >/dev/null
  run_pgbench "$work/pgbench-claim-plain.txt" "${claim_args[@]}" -T "$plain_secs" "$(db_url mg_claim)"
  R[g6_plain]="$PG_TPS"
  read -r 'R[g6_plain_first]' 'R[g6_plain_last]' < <(progress_thirds "$work/pgbench-claim-plain.txt")
fi

# ---------------------------------------------------------------------- G7 ----
if has_part g7; then
  # The other parts' databases go first, and their dirty pages with a checkpoint: autovacuum on
  # G6's drained queue (or a checkpoint of it) would otherwise run during the rounds, on the cores
  # that two workers need. In one full run G7 gave 1.415x where G7-only runs gave 1.64x-2.04x.
  for db in mg_claim mg_orders mg_raw mg_pgbench; do
    q postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
  done
  q postgres -c "CHECKPOINT" >/dev/null
  new_database mg_speech seeded
  read -r _ speech_key < <(new_user mg_speech)
  make_text "$speech_text_chars" ordinary >"$work/speech.txt"
  speech_chars="$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' "$work/speech.txt")"
  declare -A CPU WALL
  # Between its POSTs and its end a round starts no process: the two orders go out in one curl,
  # their ids are read by bash, the polls go over one psql session into a variable, and the pause
  # between polls is a read that times out. A process per poll (psql, a subshell, sleep) or per
  # id (python3) costs milliseconds of CPU each on some virtual machines, taken from the two cores
  # that two workers need (one worker leaves a core free for them): 2 workers measured 1.51x one
  # worker with a psql process per poll, 1.64x-1.72x with one session, on the same machine.
  coproc POLL { psql -X -q -At -v ON_ERROR_STOP=1 "$(db_url mg_speech)" 2>&1; }
  # Kept apart: bash unsets POLL once the session has ended and been reaped.
  poll_pid="$POLL_PID" poll_out="${POLL[0]}" poll_in="${POLL[1]}"
  poll() {  # poll SQL: its answer, one line, in POLLED
    local line
    POLLED=""
    printf '%s;\n\\echo __polled__\n' "$1" >&"$poll_in"
    while IFS= read -r -t 10 line <&"$poll_out"; do
      [[ "$line" == __polled__ ]] && break
      POLLED+="$line"
    done
  }
  mkfifo "$work/pause.fifo"
  exec {pause_fd}<>"$work/pause.fifo"  # never written: a read on it waits for its timeout
  pause() { read -r -t "$1" -u "$pause_fd" _ || true; }
  order_id_of() {  # order_id_of FILE: data.id of a POST /orders answer, in ORDER_ID
    local body=""
    IFS= read -r -d '' body <"$1" || true
    [[ "$body" =~ \"data\":\{\"id\":\"([0-9a-f-]{36})\" ]] || die "no order id in: ${body:0:300}"
    ORDER_ID="${BASH_REMATCH[1]}"
  }
  for w in 1 2; do
    start_server mg_speech "$w"
    [[ -n "${speech_template:-}" ]] || speech_template="$(new_template "$speech_key" a-v4)"
    order_body "$speech_template" "$work/speech.txt" ordinary >"$work/speech-body.json"
    speech_url="http://$PUBLIC$api_prefix/orders"
    cpus=(); walls=()
    # What the idle server burns (timers, the queue's wake-ups) is taken off the orders' CPU.
    sleep 0.5
    t0="$(now)"; c0="$(cpu_ticks "$server_pid")"
    sleep "$idle_secs"
    idle=$(($(cpu_ticks "$server_pid") - c0)); idle_secs="$(calc "$(now) - $t0" 6)"
    for ((round = 1; round <= speech_rounds; round++)); do
      # The server's CPU is read first: reading every process's stat takes tens of milliseconds
      # here, which the round's wall time must not include.
      c0="$(cpu_ticks "$server_pid")"; t0="$(now)"
      codes="$(curl -sS --no-progress-meter -Z --parallel-immediate -X POST -H "X-API-KEY: $speech_key" \
        -H 'Content-Type: application/json' --data-binary "@$work/speech-body.json" -w '%{http_code} ' \
        -o "$work/speech-a.json" -o "$work/speech-b.json" "$speech_url" "$speech_url")" ||
        die "the speech orders' POSTs failed"
      [[ "$codes" =~ ^2[0-9][0-9]\ 2[0-9][0-9]\ $ ]] || die "the speech orders were refused ($codes): $(cat "$work/speech-a.json" "$work/speech-b.json")"
      order_id_of "$work/speech-a.json"; ids="'$ORDER_ID'"
      order_id_of "$work/speech-b.json"; ids+=", '$ORDER_ID'"
      state=""
      for ((i = 0; i < 1200; i++)); do
        poll "SELECT count(*) FILTER (WHERE status = 'completed') || ' ' || count(*) FILTER (WHERE status IN ('failed', 'partially_completed')) || ' ' || COALESCE(extract(epoch FROM max(terminal_at)), 0) FROM orders WHERE id IN ($ids)"
        state="$POLLED"
        [[ -n "$state" ]] || die "the polling psql session ended"
        [[ "$state" == "2 0 "* ]] && break
        [[ "$state" == *" 0 "* ]] || die "a speech order failed: $(q mg_speech -c "SELECT status, failure_reason FROM order_items WHERE order_id IN ($ids)")"
        pause 0.05
      done
      [[ "$state" == "2 0 "* ]] || die "the speech orders did not complete within 60 s"
      c1="$(cpu_ticks "$server_pid")"; polled="$(calc "$(now) - $t0" 6)"
      cpus+=("$(calc "(($c1 - $c0) - $idle * $polled / $idle_secs) / $clk_tck" 4)")
      # The round ends when the second order did, by its own row: not when a poll saw it.
      walls+=("$(calc "${state##* } - $t0" 2)")
    done
    CPU[$w]="$(echo "${cpus[*]}" | median)"; WALL[$w]="$(echo "${walls[*]}" | median)"
    log "G7: $w worker(s): CPU ${cpus[*]} s, wall ${walls[*]} s"
    stop_server
  done
  exec {poll_in}>&- {pause_fd}>&-
  wait "$poll_pid" || true
  speech_chunks="$(q mg_speech -c "SELECT count(*) / count(DISTINCT order_id) FROM order_items")"
  IFS=$'\t' read -r voice variant < <(q mg_speech -F $'\t' -c "SELECT engine_request->>'voice', engine_request->>'variant' FROM orders LIMIT 1")
  espeak_voice="$voice${variant:++$variant}"
  raw_cpus=(); raw_walls=()
  for ((round = 0; round < raw_rounds; round++)); do
    /usr/bin/time -f '%U %S %e' -o "$work/raw-time.txt" bash -c \
      'espeak-ng -v "$1" --stdout -f "$2" | lame --quiet -b 64 -q 5 - "$3"' _ "$espeak_voice" "$work/speech.txt" "$work/raw.mp3" ||
      die "the raw pipeline failed (voice $espeak_voice)"
    raw_cpus+=("$(awk '{ print $1 + $2 }' "$work/raw-time.txt")")
    raw_walls+=("$(awk '{ print $3 }' "$work/raw-time.txt")")
  done
  R[g7_raw_wall]="$(echo "${raw_walls[*]}" | median)"
  # Two raw pipelines at once: how far two workers can scale on this box at this moment.
  pair_walls=()
  for ((round = 0; round < raw_rounds; round++)); do
    t0="$(now)"
    for x in a b; do
      bash -c 'espeak-ng -v "$1" --stdout -f "$2" | lame --quiet -b 64 -q 5 - "$3"' _ "$espeak_voice" \
        "$work/speech.txt" "$work/raw-$x.mp3" &
    done
    wait
    pair_walls+=("$(calc "$(now) - $t0" 3)")
  done
  R[g7_raw_pair]="$(echo "${pair_walls[*]}" | median)"
  [[ -s "$work/raw.mp3" ]] || die "the raw pipeline wrote no MP3"
  R[g7_raw]="$(echo "${raw_cpus[*]}" | median)"
fi

# ----------------------------------------------------------------- summary ----
echo
echo "orders_bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $duration s per run after ${warmup} s warm-up"
echo "PostgreSQL $(q postgres -c 'SHOW server_version'), fsync on, synchronous_commit $(q postgres -c 'SHOW synchronous_commit'), shared_buffers $(q postgres -c 'SHOW shared_buffers')"
row() { printf '%-52s %12s %12s %8s  %s\n' "$@"; }
# check VALUE OP BOUND: "ok" or "MISS" for the target column.
check() {
  awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN { if (v == "" || v == "-" || v == "nan") { print "?   "; exit }
    ok = (op == ">=") ? (v + 0 >= b + 0) : (op == "<=") ? (v + 0 <= b + 0) : (v + 0 == b + 0)
    print ok ? "ok  " : "MISS" }'
}
echo
row "figure" "ours" "raw anchor" "ratio" "target"
if has_part g5; then
  for n in 1 "$max_users"; do
    row "G5 POST /orders (5 chunks), wrk -c8, $n user(s) [req/s]" "${R[g5_rps_$n]}" "${R[g5_raw_$n]}" \
      "$(ratio "${R[g5_rps_$n]}" "${R[g5_raw_$n]}")" \
      "$(check "$(ratio "${R[g5_rps_$n]}" "${R[g5_raw_$n]}")" ">=" 0.60) >= 0.60 (raw: order_create.sql, pgbench -c8)"
    row "   latency p50 / p99 [ms]; raw average" "${R[g5_p50_$n]}/${R[g5_p99_$n]}" "${R[g5_rawlat_$n]}" "" ""
    row "   write transactions per order (xids)" "${R[g5_writes_$n]}" "1" "" \
      "$(check "$(calc "${R[g5_writes_$n]}" 1)" "==" 1) must be 1"
    row "   statements per order (db_queries_total)" "${R[g5_stmts_$n]}" "3" "" "raw: UPDATE, 2 INSERTs (+ BEGIN, COMMIT)"
    row "   WAL bytes per order" "${R[g5_wal_$n]}" "${R[g5_rawwal_$n]}" "$(ratio "${R[g5_wal_$n]}" "${R[g5_rawwal_$n]}")" ""
    row "   server process CPU per order [ms]" "${R[g5_cpu_$n]}" "" "" ""
  done
  row "   PG transactions per order (xact_commit)" "${R[g5_commits]}" "1" "" "single-statement reads count too"
fi
if has_part g3; then
  row "G3 GET /orders/{id}, wrk -c64 [req/s]" "${R[g3_rps]}" "${R[g3_raw]}" "$(ratio "${R[g3_rps]}" "${R[g3_raw]}")" \
    "$(check "$(ratio "${R[g3_rps]}" "${R[g3_raw]}")" ">=" 0.25) >= 0.25 (raw: pgbench -S -M prepared -c8, scale $pgbench_scale)"
  row "   latency p50 / p99 [ms]; raw average" "${R[g3_p50]}/${R[g3_p99]}" "${R[g3_rawlat]}" "" \
    "$(check "${R[g3_p99]}" "<=" 10) p99 <= 10 ms"
  row "   statements per GET" "${R[g3_stmts]}" "1" "" ""
  row "   server process CPU per GET [ms]" "${R[g3_cpu]}" "" "" ""
  row "   order_get.sql (the route's SQL), pgbench -c8" "${R[g3_rps]}" "${R[g3_sql]}" "$(ratio "${R[g3_rps]}" "${R[g3_sql]}")" \
    "SQL ceiling: $(ratio "${R[g3_sql]}" "${R[g3_raw]}") of pgbench -S; the route: $(check "$(ratio "${R[g3_rps]}" "${R[g3_sql]}")" ">=" 0.70) >= 0.70 of its SQL"
fi
if has_part g6; then
  row "G6 claim+complete cycles/s, pgbench -c8" "${R[g6_tps]}" "${R[g6_raw]}" "$(ratio "${R[g6_tps]}" "${R[g6_raw]}")" \
    "$(check "$(ratio "${R[g6_tps]}" "${R[g6_raw]}")" ">=" 0.60) >= 0.60 (raw: claim_raw.sql, jobs + partial index)"
  row "   WAL bytes per cycle (incl. page images)" "${R[g6_wal]}" "${R[g6_raw_wal]}" "$(ratio "${R[g6_wal]}" "${R[g6_raw_wal]}")" \
    "$(check "$(ratio "${R[g6_wal]}" "${R[g6_raw_wal]}")" "<=" 2.0) <= 2.0, both right after a CHECKPOINT"
  row "   first third / last third [cycles/s]" "${R[g6_first]}/${R[g6_last]}" "${R[g6_raw_first]}/${R[g6_raw_last]}" \
    "$(ratio "${R[g6_last]}" "${R[g6_first]}")" "$(check "$(ratio "${R[g6_last]}" "${R[g6_first]}")" ">=" 0.70) last/first >= 0.70 (P7 fell to ~0.35)"
  row "   claim EXPLAIN ANALYZE: 5-chunk head [ms/buffers]" "${R[g6_small_ms]}/${R[g6_small_buffers]}" "" "" ""
  row "   ... head order of $big_order_chunks chunks [ms/buffers]" "${R[g6_big_ms]}/${R[g6_big_buffers]}" "" "" \
    "a big order must not cost more per claim"
  row "   cycles/s with that order at the head" "${R[g6_big]}" "" "$(ratio "${R[g6_big]}" "${R[g6_tps]}")" \
    "$(check "$(ratio "${R[g6_big]}" "${R[g6_tps]}")" ">=" 0.85) >= 0.85 of the run above"
  row "   plain index instead of partial [cycles/s]" "${R[g6_plain]}" "" "$(ratio "${R[g6_plain]}" "${R[g6_tps]}")" \
    "the P7 shape, first/last ${R[g6_plain_first]}/${R[g6_plain_last]}"
  row "   queue: chunks completed / still pending" "${R[g6_done]}/${R[g6_left]}" "" "" "pending > 0: never ran dry"
fi
if has_part g7; then
  total_chars=$((speech_chars * 2))
  raw_per_k="$(calc "${R[g7_raw]} * 1000 / $speech_chars" 4)"
  for w in 1 2; do
    per_k="$(calc "${CPU[$w]} * 1000 / $total_chars" 4)"
    row "G7 speech CPU s per 1,000 chars, $w worker(s)" "$per_k" "$raw_per_k" "$(ratio "$per_k" "$raw_per_k")" \
      "$(check "$(ratio "$per_k" "$raw_per_k")" "<=" 1.15) <= 1.15 (raw: espeak-ng -v $espeak_voice --stdout | lame -b 64 -q 5)"
  done
  row "   wall for 2 orders of $speech_chars chars [s], 1 / 2 workers" "${WALL[1]}/${WALL[2]}" \
    "$(calc "2 * ${R[g7_raw_wall]}" 2)/${R[g7_raw_pair]}" "$(ratio "${WALL[1]}" "${WALL[2]}")" \
    "$(check "$(ratio "${WALL[1]}" "${WALL[2]}")" ">=" 1.8) >= 1.8; raw: 2 pipelines one after the other / at once ($(ratio "$(calc "2 * ${R[g7_raw_wall]}" 3)" "${R[g7_raw_pair]}")x)"
  row "   chunks per order" "$speech_chunks" "1" "" "raw: the whole text at once"
fi
if has_part g6; then
  echo
  echo "EXPLAIN of the claim with a full queue (ANALYZE, rolled back):"
  sed 's/^/  /' "$work/explain-before.txt"
  echo "after the run:"
  sed 's/^/  /' "$work/explain-after.txt"
  echo "with an order of $big_order_chunks chunks at the head of the queue:"
  sed 's/^/  /' "$work/explain-big.txt"
  grep -q order_items_queue "$work/explain-before.txt" || { failed=1; log "the claim does not use order_items_queue"; }
  [[ "${R[g6_left]}" != 0 ]] || { failed=1; log "the queue ran dry during the claim run: raise BENCH_QUEUE_ITEMS"; }
fi
exit "$failed"
