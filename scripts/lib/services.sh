# Project-local PostgreSQL and Redis on loopback, for scripts/run, scripts/test and benchmarks.
# Source this file; every function takes the state directory it owns.

PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"

# Runs a command as the owner of the PostgreSQL data: initdb refuses to run as root.
_as_pg() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# start_postgres DIR PORT [fast]: initialises DIR/pg once, starts it (or reuses a running one).
# "fast" turns fsync off, and initdb's own syncing (most of its time): for throwaway test
# clusters only.
start_postgres() {
  local dir="$1" port="$2" mode="${3:-}"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  if [ ! -s "$dir/pg/PG_VERSION" ]; then
    local no_sync=()
    if [ "$mode" = fast ]; then no_sync=(--no-sync); fi
    _as_pg "$PG_BIN/initdb" -D "$dir/pg" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 "${no_sync[@]}" \
      >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; return 1; }
  fi
  if _as_pg "$PG_BIN/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    return 0
  fi
  local extra=""
  if [ "$mode" = fast ]; then extra="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
  _as_pg "$PG_BIN/pg_ctl" -D "$dir/pg" -l "$dir/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=300 $extra" \
    start >/dev/null || { tail -n 30 "$dir/postgres.log" >&2; return 1; }
}

stop_postgres() {
  local dir="$1"
  [ -d "$dir/pg" ] || return 0
  _as_pg "$PG_BIN/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1 || true
}

# start_redis DIR PORT [fast]: starts redis-server on loopback (or reuses a running one).
start_redis() {
  local dir="$1" port="$2" mode="${3:-}"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [ -f "$dir/redis.pid" ] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null; then
    return 0
  fi
  local persist=(--save 300 1)
  if [ "$mode" = fast ]; then persist=(--save ""); fi
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --appendonly no "${persist[@]}" >/dev/null
  local i
  for i in $(seq 1 100); do
    redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "redis did not start on port $port" >&2
  tail -n 20 "$dir/redis.log" >&2
  return 1
}

stop_redis() {
  local dir="$1"
  [ -f "$dir/redis.pid" ] || return 0
  local pid i
  pid="$(cat "$dir/redis.pid")"
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$dir/redis.pid"
}

# free_port: an unused TCP port on loopback, below the ephemeral range (free_port.py says why).
free_port() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/free_port.py"
}
