#!/usr/bin/env bash
# Realtime benchmark: mediagen's Pusher protocol 7 WebSocket beside a minimal stand-in Pusher
# server on Node's `ws` package (realtime/standin.mjs: connection_established -> subscribe with an
# HMAC check -> subscription_succeeded; a trigger port whose frames it send()s to every subscriber
# of the channel). The clients are Node `ws` sockets (realtime/clients.mjs), run the same way
# against both servers, several processes, each from its own source address (127.0.0.N).
#
#   connect    1,000 connections, each connect + subscribe (own channel, signed with the known
#              secret) until subscription_succeeded; per second.       Target >= 2x the stand-in.
#   fan-out    1,000 subscribers of one order channel, 200 events of 164 bytes sent back to back;
#              deliveries per second, from the first trigger to the last receipt.  Target >= 2x.
#   delay      500 subscribers, one event a second for 20 s; p95 of the time from the trigger
#              (mediagen: Redis PUBLISH on {prefix}realtime with origin "bench", signed with the
#              key the server derives from MEDIAGEN_SECRET, as its own instances sign; stand-in: a
#              line on its trigger port) to the receipt.               Target p95 <= 5 ms.
#              Beside it, two figures that split that time:
#              - the server's own share, from its histogram (mediagen_realtime_fanout_seconds on
#                /metrics; the stand-in's own in the same buckets): per event, from the arrival
#                of the trigger's message until every subscriber's socket was handed the frame;
#              - the machine's floor: half a second after each event, a timestamp over loopback
#                to another idle Node process, which no Pusher server touches.
#   idle       50,000 subscribed sockets held; server RSS per socket, (after - before) / N.
#                                                                      Target <= 10 KiB each.
# The idle part needs one descriptor per socket in the server: it holds as many as the file
# limit allows (`ulimit -Hn`) and says so when that is fewer than 50,000.
#
# Builds nothing. Build the server first in a Release tree:
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEDIAGEN_BENCH=ON
#   ninja -C build-bench mediagen
# Environment (all optional):
#   MEDIAGEN_BIN         server binary (default: build-bench/mediagen, else build/mediagen)
#   MEDIAGEN_IO_THREADS  server I/O threads (default 1: the stand-in is one Node thread too)
#   BENCH_IDLE_SOCKETS   sockets of the idle part (default 50000)
#   BENCH_PROCS          client processes of the throughput parts (default 2)
#   BENCH_DELAY_SECONDS  events (one a second) of the delay part (default 20)
#   BENCH_KEEP_TMP       keep the work directory (logs, raw results)
#   BENCH_SMOKE=1        a seconds-long check that the bench works: 100 connections, 40
#                        subscribers of 50 events, 20 subscribers for 2 s of delay, 200 idle
#                        sockets, one client process; a client that waits 20 s for an event fails
#                        the run (the figures mean nothing then)
# Needs: node (20+), npm, python3, psql, PostgreSQL and redis-server. Installs the client
# harness (ws) next to it with `npm ci` on first use. Takes about 2 minutes.
# Exit status: 0 when everything ran (a missed target is reported, not an error), 1 when a part
# failed its checks, 2 on a setup failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
PATH="$PATH:/usr/sbin:/sbin"

die() { echo "realtime_bench: $*" >&2; exit 2; }
log() { echo "realtime_bench: $*" >&2; }

idle_target="${BENCH_IDLE_SOCKETS:-50000}"
procs="${BENCH_PROCS:-2}"
delay_seconds="${BENCH_DELAY_SECONDS:-20}"
# Sizes the report prints beside its figures; a smoke run shrinks them all.
sizes='"connectCount":1000,"fanoutSubscribers":1000,"fanoutEvents":200,"latencySubscribers":500'
if [[ "${BENCH_SMOKE:-0}" == 1 ]]; then
  idle_target=200 procs=1 delay_seconds=2
  sizes='"connectCount":100,"fanoutSubscribers":40,"fanoutEvents":50,"fanoutWarmup":1,"latencySubscribers":20,
    "idleWarmup":20,"settleMs":200,"waitMs":20000'
fi
[[ "$idle_target" =~ ^[1-9][0-9]*$ ]] || die "BENCH_IDLE_SOCKETS must be a positive integer"
[[ "$procs" =~ ^[1-9][0-9]*$ ]] || die "BENCH_PROCS must be a positive integer"
[[ "$delay_seconds" =~ ^[1-9][0-9]*$ ]] || die "BENCH_DELAY_SECONDS must be a positive integer"

# shellcheck source=lib_services.sh
source "$here/lib_services.sh"
bin="$(bench_server_bin "$repo_root")" || die "no server binary (set MEDIAGEN_BIN or build build-bench/mediagen)"
missing="$(bench_missing_tools node npm python3 psql redis-server)"
[[ -z "$missing" ]] || die "missing tool(s): $missing"

# The client harness, pinned by its lockfile; installed (npm ci) when missing or when the lockfile
# or Node changed, by the same script as the end-to-end tests' clients (scripts/test runs it
# before the suite, so the smoke run finds it installed).
bash "$repo_root/tests/e2e/npm_ensure.sh" "$here/realtime" || die "npm ci failed"
bench_js="$here/realtime"

# One descriptor per socket: raise the soft limit as far as the hard one goes (the servers and
# the client processes inherit it). Client processes hold at most 10,000 sockets each.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fd_limit="$(ulimit -n)"
idle_sockets="$idle_target"
if [[ "$fd_limit" != unlimited ]] && ((fd_limit - 500 < idle_sockets)); then
  idle_sockets=$((fd_limit - 500))
  log "the file limit is $fd_limit descriptors: the idle part holds $idle_sockets sockets, not $idle_target"
fi
((idle_sockets > 0)) || die "the file limit ($fd_limit) leaves no room for idle sockets"

# shellcheck source=../../scripts/lib/services.sh
source "$repo_root/scripts/lib/services.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/mg-rt-bench.XXXXXX")"
chmod 0755 "$work"
server_pid=""
standin_pid=""

stop_pid() {
  local pid="$1"
  [[ -n "$pid" ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$server_pid"
  stop_pid "$standin_pid"
  stop_redis "$work/redis" || true
  stop_postgres "$work/pg" || true
  if [[ -n "${BENCH_KEEP_TMP:-}" ]]; then log "kept $work"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
json_get() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])' "$1"; }

pg_port="$(free_port)"
redis_port="$(free_port)"
start_postgres "$work/pg" "$pg_port" fast || die "PostgreSQL did not start"
start_redis "$work/redis" "$redis_port" fast || die "Redis did not start"
db_url="postgresql://postgres@127.0.0.1:$pg_port/mg_rt_bench"
psql -X -q -v ON_ERROR_STOP=1 "postgresql://postgres@127.0.0.1:$pg_port/postgres" \
  -c "CREATE DATABASE mg_rt_bench" >/dev/null || die "CREATE DATABASE failed"

app_key="bench-app-key"
secret="$(random_hex 32)"
redis_prefix="mg_rt_bench_$(random_hex 4):"
export MEDIAGEN_DATABASE_URL="$db_url"
export MEDIAGEN_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export MEDIAGEN_REDIS_PREFIX="$redis_prefix"
export MEDIAGEN_SECRET="$(random_hex 32)"
export MEDIAGEN_STORAGE_DIR="$work/storage"
mkdir -p "$MEDIAGEN_STORAGE_DIR"
"$bin" migrate >"$work/migrate.out" 2>&1 || { cat "$work/migrate.out" >&2; die "migrate failed"; }

# ------------------------------------------------------------------ mediagen ----
# Each client process connects from one address, up to 10,000 sockets: the per-address cap is
# lifted with the total one (the stand-in has neither).
err="$work/serve.err"
MEDIAGEN_PUSHER_APP_KEY="$app_key" MEDIAGEN_PUSHER_SECRET="$secret" MEDIAGEN_WORKERS=0 \
  MEDIAGEN_IO_THREADS="${MEDIAGEN_IO_THREADS:-1}" MEDIAGEN_WS_MAX_CONNECTIONS=$((idle_sockets + 5000)) \
  MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS=$((idle_sockets + 5000)) \
  MEDIAGEN_LISTEN=127.0.0.1:0 MEDIAGEN_ADMIN_LISTEN=127.0.0.1:0 MEDIAGEN_LOG_LEVEL=info \
  "$bin" serve --no-migrate >"$work/serve.out" 2>"$err" &
server_pid=$!
line=""
for _ in $(seq 1 300); do
  line="$(grep -m 1 -E '"msg"[[:space:]]*:[[:space:]]*"listening"' "$err" 2>/dev/null || true)"
  [[ -n "$line" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$err" >&2; server_pid=""; die "mediagen exited before listening"; }
  sleep 0.1
done
[[ -n "$line" ]] || { tail -n 20 "$err" >&2; die "mediagen did not listen within 30 s"; }
public="$(json_get public <<<"$line")"
admin="$(json_get admin <<<"$line")"
log "mediagen ($bin, ${MEDIAGEN_IO_THREADS:-1} I/O thread(s)) listens on $public"

common="\"appKey\":\"$app_key\",\"secret\":\"$secret\",\"idleSockets\":$idle_sockets,\"procs\":$procs,\"latencySeconds\":$delay_seconds,$sizes"
node "$bench_js/bench.mjs" "{\"name\":\"mediagen\",\"host\":\"${public%:*}\",\"port\":${public##*:},\"pid\":$server_pid,$common,
  \"metricsUrl\":\"http://$admin/metrics\",
  \"addressBase\":2,\"trigger\":{\"kind\":\"redis\",\"host\":\"127.0.0.1\",\"port\":$redis_port,\"channel\":\"${redis_prefix}realtime\",
  \"secret\":\"$MEDIAGEN_SECRET\"}}" \
  >"$work/mediagen.json" || die "the mediagen run failed"
stop_pid "$server_pid"
server_pid=""

# ------------------------------------------------------------------ stand-in ----
node "$bench_js/standin.mjs" "{\"host\":\"127.0.0.1\",\"appKey\":\"$app_key\",\"secret\":\"$secret\"}" \
  >"$work/standin.out" 2>"$work/standin.err" &
standin_pid=$!
ports=""
for _ in $(seq 1 100); do
  ports="$(head -n 1 "$work/standin.out" 2>/dev/null || true)"
  [[ -n "$ports" ]] && break
  kill -0 "$standin_pid" 2>/dev/null || { cat "$work/standin.err" >&2; die "the stand-in exited"; }
  sleep 0.1
done
[[ -n "$ports" ]] || die "the stand-in did not listen"
sport="$(json_get port <<<"$ports")"
tport="$(json_get trigger_port <<<"$ports")"
log "stand-in listens on 127.0.0.1:$sport (trigger $tport)"
node "$bench_js/bench.mjs" "{\"name\":\"stand-in\",\"host\":\"127.0.0.1\",\"port\":$sport,\"pid\":$standin_pid,$common,
  \"metricsUrl\":\"http://127.0.0.1:$sport/metrics\",
  \"addressBase\":120,\"trigger\":{\"kind\":\"tcp\",\"host\":\"127.0.0.1\",\"port\":$tport}}" \
  >"$work/standin.json" || die "the stand-in run failed"
stop_pid "$standin_pid"
standin_pid=""

# ------------------------------------------------------------------ report ----
python3 - "$work/mediagen.json" "$work/standin.json" "$idle_target" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
target_idle = int(sys.argv[3])
failed = False

def ratio(a, b):
    return a / b if a and b else None

def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else "-"

rows = []
r = ratio(m["connect"]["per_second"], s["connect"]["per_second"])
tried = m["connect"]["opened"] + m["connect"]["failed"]
rows.append((f"connect+subscribe /s ({tried:,})", fmt(m["connect"]["per_second"], ",.0f"),
             fmt(s["connect"]["per_second"], ",.0f"), fmt(r, ".2f") + "x", ">= 2x", r is not None and r >= 2))
r = ratio(m["fanout"]["per_second"], s["fanout"]["per_second"])
rows.append((f"fan-out deliveries/s ({m['fanout']['subscribers']:,} subs)", fmt(m["fanout"]["per_second"], ",.0f"),
             fmt(s["fanout"]["per_second"], ",.0f"), fmt(r, ".2f") + "x", ">= 2x", r is not None and r >= 2))
r = ratio(m["latency"]["p95_ms"], s["latency"]["p95_ms"])
rows.append((f"p95 trigger->receipt ms ({m['latency']['subscribers']:,} subs)", fmt(m["latency"]["p95_ms"], ".2f"),
             fmt(s["latency"]["p95_ms"], ".2f"), fmt(r, ".2f") + "x", "<= 5 ms",
             m["latency"]["p95_ms"] is not None and m["latency"]["p95_ms"] <= 5))
ml, sl = m["latency"], s["latency"]
r = ratio(ml["internal_p95_ms"], sl["internal_p95_ms"])
rows.append((f"p95 server's own share ms ({ml['internal_events']} events)", fmt(ml["internal_p95_ms"], ".3f"),
             fmt(sl["internal_p95_ms"], ".3f"), fmt(r, ".2f") + "x", "<= 5 ms",
             ml["internal_within_5ms"] is not None and ml["internal_within_5ms"] >= 0.95))
held = m["idle"]["held"]
per = m["idle"]["kib_per_socket"]
rows.append((f"idle sockets held, KiB RSS each", f"{held:,} @ {fmt(per, '.2f')}",
             f"{s['idle']['held']:,} @ {fmt(s['idle']['kib_per_socket'], '.2f')}",
             fmt(ratio(per, s["idle"]["kib_per_socket"]), ".2f") + "x",
             f"{target_idle:,} @ <= 10", held >= target_idle and per is not None and per <= 10))

w = [max(len(str(row[i])) for row in rows + [("measure", "mediagen", "stand-in", "ratio", "target", "")]) for i in range(5)]
head = ("measure", "mediagen", "stand-in", "ratio", "target")
print("  ".join(h.ljust(w[i]) for i, h in enumerate(head)) + "  met")
for row in rows:
    print("  ".join(str(row[i]).ljust(w[i]) for i in range(5)) + "  " + ("yes" if row[5] else "NO"))
print(f"frame {m['frame_bytes']} bytes; delay p50/p99 mediagen {fmt(m['latency']['p50_ms'], '.2f')}/"
      f"{fmt(m['latency']['p99_ms'], '.2f')} ms, stand-in {fmt(s['latency']['p50_ms'], '.2f')}/"
      f"{fmt(s['latency']['p99_ms'], '.2f')} ms; first receipt of each event p50/max mediagen "
      f"{fmt(m['latency']['first_p50_ms'], '.2f')}/{fmt(m['latency']['first_max_ms'], '.2f')} ms, stand-in "
      f"{fmt(s['latency']['first_p50_ms'], '.2f')}/{fmt(s['latency']['first_max_ms'], '.2f')} ms; "
      f"idle RSS mediagen {m['idle']['rss_before_kib']:,} -> "
      f"{m['idle']['rss_after_kib']:,} KiB")
def per_cpu(part):
    n = part.get("opened", part.get("deliveries"))
    return n / part["server_cpu_s"] if part.get("server_cpu_s") else None
print(f"delay part: events within 5 ms in the server mediagen {fmt(100 * (ml['internal_within_5ms'] or 0), '.1f')}%, "
      f"stand-in {fmt(100 * (sl['internal_within_5ms'] or 0), '.1f')}%; the machine's floor (loopback to an idle "
      f"process) p50/p95 {fmt(ml['floor_p50_ms'], '.2f')}/{fmt(ml['floor_p95_ms'], '.2f')} ms in the mediagen run, "
      f"{fmt(sl['floor_p50_ms'], '.2f')}/{fmt(sl['floor_p95_ms'], '.2f')} ms in the stand-in's")
for name, part in (("mediagen", ml), ("stand-in", sl)):
    if part["internal_events"] != part["samples"] // max(part["subscribers"], 1):
        print(f"{name}: the server counted {part['internal_events']} events of the delay part, "
              f"its clients {part['samples'] // max(part['subscribers'], 1)}")
        failed = True
print("per server CPU-second (the clients share the machine): connect+subscribe mediagen "
      f"{fmt(per_cpu(m['connect']), ',.0f')}, stand-in {fmt(per_cpu(s['connect']), ',.0f')}; deliveries mediagen "
      f"{fmt(per_cpu(m['fanout']), ',.0f')}, stand-in {fmt(per_cpu(s['fanout']), ',.0f')}")
if held < target_idle:
    print(f"idle: {held:,} of {target_idle:,} sockets (file limit); the per-socket figure is measured on those")
for name, res in (("mediagen", m), ("stand-in", s)):
    problems = []
    if res["connect"]["failed"] or res["idle"]["failed"]:
        problems.append(f"failed sockets: connect {res['connect']['failed']}, idle {res['idle']['failed']}")
    if res["fanout"]["deliveries"] != res["fanout"]["events"] * res["fanout"]["subscribers"]:
        problems.append(f"fan-out delivered {res['fanout']['deliveries']}")
    if res.get("error"):
        problems.append(res["error"])
    if problems:
        failed = True
        print(f"{name}: " + "; ".join(problems))
sys.exit(1 if failed else 0)
EOF
