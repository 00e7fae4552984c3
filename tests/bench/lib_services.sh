# shellcheck shell=bash
# Throwaway PostgreSQL and Redis for the benchmark, bound to loopback only.
# Source this file, then:
#   start_postgres DIR PORT [fast]  # cluster in DIR/pgdata, superuser "postgres",
#                                   # trust auth, always without fsync
#                                   # -> postgresql://postgres@127.0.0.1:PORT/postgres
#   start_redis DIR PORT [fast]     # no persistence -> redis://127.0.0.1:PORT/0
#   stop_services DIR               # stops whatever of the two was started under DIR
#   bench_server_bin ROOT           # the server binary a bench runs
#   bench_missing_tools TOOL...     # the tools that are not on PATH
#   bench_free_port                 # a free loopback port for a service (scripts/lib/free_port.py)
# The optional "fast" is accepted for interface compatibility with
# scripts/lib/services.sh, which the benchmark prefers when it exists.
# DIR must exist. When running as root, the PostgreSQL part runs as the
# system user "postgres" (initdb refuses root), so DIR is made traversable.

_mg_pg_bindir() {
  if [[ -n "${PG_BIN:-}" ]]; then
    printf '%s\n' "$PG_BIN"
    return
  fi
  if [[ -x /usr/lib/postgresql/15/bin/initdb ]]; then
    printf '%s\n' /usr/lib/postgresql/15/bin
    return
  fi
  local d
  d="$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)"
  if [[ -x "$d" ]]; then
    dirname "$d"
    return
  fi
  if command -v pg_config >/dev/null 2>&1; then
    pg_config --bindir
    return
  fi
  return 1
}

# Runs a command as the PostgreSQL owner: "postgres" when we are root, else us.
_mg_as_pg() {
  if [[ "$(id -u)" -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start_postgres() {
  local dir="$1" port="$2" bindir
  bindir="$(_mg_pg_bindir)" || { echo "start_postgres: PostgreSQL binaries not found (set PG_BIN)" >&2; return 1; }
  mkdir -p "$dir/pgdata" "$dir/pgsock"
  if [[ "$(id -u)" -eq 0 ]]; then
    chmod 0755 "$dir"
    chown postgres: "$dir/pgdata" "$dir/pgsock"
    if ! runuser -u postgres -- test -x "$dir/pgdata"; then
      echo "start_postgres: user postgres cannot reach $dir (make its parent directories world-searchable)" >&2
      return 1
    fi
  fi
  chmod 0700 "$dir/pgdata"
  _mg_as_pg "$bindir/initdb" -D "$dir/pgdata" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$dir/initdb.log" 2>&1 || { echo "start_postgres: initdb failed, see $dir/initdb.log" >&2; cat "$dir/initdb.log" >&2; return 1; }
  touch "$dir/postgres.log"
  if [[ "$(id -u)" -eq 0 ]]; then
    chown postgres: "$dir/postgres.log"
  fi
  _mg_as_pg "$bindir/pg_ctl" -D "$dir/pgdata" -l "$dir/postgres.log" -w -t 60 \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $dir/pgsock -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || { echo "start_postgres: server did not start" >&2; tail -n 20 "$dir/postgres.log" >&2; return 1; }
  printf '%s\n' "$port" >"$dir/postgres.port"
}

start_redis() {
  local dir="$1" port="$2"
  command -v redis-server >/dev/null 2>&1 || { echo "start_redis: redis-server not found" >&2; return 1; }
  mkdir -p "$dir/redis"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$dir/redis" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    || { echo "start_redis: redis-server failed" >&2; return 1; }
  for _ in $(seq 1 100); do
    if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
      printf '%s\n' "$port" >"$dir/redis.port"
      return 0
    fi
    sleep 0.1
  done
  echo "start_redis: no PONG on port $port" >&2
  tail -n 20 "$dir/redis.log" >&2 2>/dev/null || true
  return 1
}

stop_services() {
  local dir="$1" bindir pid
  if [[ -f "$dir/redis.pid" ]]; then
    pid="$(cat "$dir/redis.pid")"
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$dir/redis.pid"
  fi
  if [[ -f "$dir/pgdata/postmaster.pid" ]]; then
    bindir="$(_mg_pg_bindir)" || true
    if [[ -n "$bindir" ]]; then
      _mg_as_pg "$bindir/pg_ctl" -D "$dir/pgdata" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    fi
  fi
  return 0
}

# The server binary a bench runs: $MEDIAGEN_BIN, else build-bench/mediagen, else build/mediagen.
# Prints its path; fails when there is none.
bench_server_bin() {
  local root="$1" candidate
  if [[ -n "${MEDIAGEN_BIN:-}" ]]; then
    [[ -x "$MEDIAGEN_BIN" ]] || return 1
    echo "$MEDIAGEN_BIN"
    return 0
  fi
  for candidate in "$root/build-bench/mediagen" "$root/build/mediagen"; do
    if [[ -x "$candidate" ]]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# A free loopback port below the ephemeral range: no client of a bench running beside this one can
# take it as its source port before the service binds it.
bench_free_port() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/free_port.py"
}

# Prints the tools among the arguments that are not on PATH (nothing when all are).
bench_missing_tools() {
  local tool missing=()
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  echo "${missing[*]}"
}
