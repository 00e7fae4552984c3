# A one-node OpenStack Swift cluster on loopback with its S3 API (s3api + tempauth), for the
# tests: the S3 object store is tested against a real object store that checks V4 signatures.
# Source this file after install.sh and services.sh (require_programs, free_port); every function takes the state
# directory it owns. Needs the Debian packages swift-proxy, swift-account, swift-container,
# swift-object and memcached (tempauth keeps its state in memcache), and the package's
# /etc/swift/swift.conf (hash path settings, storage policy 0), which is read, not changed.
#
#   start_swift DIR PORT   writes configs and rings into DIR, starts memcached, the account,
#                          container and object servers on free loopback ports and the proxy on
#                          PORT, and waits until a signed S3 request succeeds. Logs: DIR/log/.
#   stop_swift DIR         stops what start_swift started (by the pids it kept in DIR/run/).
#   swift_env DIR          prints the client settings as KEY=VALUE lines:
#     MEDIAGEN_TEST_S3_ENDPOINT    http://127.0.0.1:PORT (path-style addressing)
#     MEDIAGEN_TEST_S3_REGION      the region s3api signs for (SWIFT_S3_REGION, default us-east-1)
#     MEDIAGEN_TEST_S3_ACCESS_KEY  test:tester (tempauth user "tester" of account "test")
#     MEDIAGEN_TEST_S3_SECRET_KEY  the user's key
#     MEDIAGEN_TEST_S3_PROXY_CONF  the proxy's configuration: a fault test starts a proxy of its
#                                  own from it (on another port), to stop or kill without
#                                  disturbing the tests that share the cluster
#
# Every server runs in one process (workers = 0): a proxy's pid is the proxy.

_SWIFT_ACCESS_KEY="test:tester"
_SWIFT_SECRET_KEY="testing-secret"

# The user the servers run as: Swift drops privileges to "user" from its configs; running as
# root is allowed, so the caller's own user is kept and DIR needs no chown.
_swift_user() { id -un; }

_swift_write_configs() {
  local dir="$1" port="$2" aport="$3" cport="$4" oport="$5" mport="$6" region="$7" user
  user="$(_swift_user)"
  local common="[DEFAULT]
bind_ip = 127.0.0.1
workers = 0
user = $user
swift_dir = $dir/etc
devices = $dir/srv
mount_check = false
log_name = %s
log_level = INFO
"
  printf "${common}bind_port = %s\n\n[pipeline:main]\npipeline = account-server\n\n[app:account-server]\nuse = egg:swift#account\n" \
    account "$aport" >"$dir/etc/account-server.conf"
  printf "${common}bind_port = %s\n\n[pipeline:main]\npipeline = container-server\n\n[app:container-server]\nuse = egg:swift#container\n" \
    container "$cport" >"$dir/etc/container-server.conf"
  printf "${common}bind_port = %s\n\n[pipeline:main]\npipeline = object-server\n\n[app:object-server]\nuse = egg:swift#object\n" \
    object "$oport" >"$dir/etc/object-server.conf"
  # s3api before tempauth (it turns the S3 signature into tempauth's check); slo and copy carry
  # multipart uploads; path-style only (no storage_domain).
  cat >"$dir/etc/proxy-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $port
workers = 0
user = $user
swift_dir = $dir/etc
log_name = proxy
log_level = INFO

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
node_timeout = 10
conn_timeout = 1

[filter:s3api]
use = egg:swift#s3api
location = $region
s3_acl = false
dns_compliant_bucket_names = true
allow_multipart_uploads = true

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = $_SWIFT_SECRET_KEY .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$mport

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
[filter:versioned_writes]
use = egg:swift#versioned_writes
EOF
}

# One replica, one device per ring (a folder in DIR/srv), 2^6 partitions: enough for tests and
# quick to build. Swift's own RingBuilder (what swift-ring-builder runs) builds the three rings in
# one process: nine swift-ring-builder commands cost about 7 s of interpreter start-up.
_swift_build_rings() {
  local dir="$1" aport="$2" cport="$3" oport="$4"
  /usr/bin/python3 - "$dir/etc" "$aport" "$cport" "$oport" <<'PY' ||
import sys
from swift.common.ring import RingBuilder
etc = sys.argv[1]
for name, port in zip(("account", "container", "object"), sys.argv[2:]):
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({"region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port),
                     "device": "d1", "weight": 1})
    builder.rebalance()
    builder.save("%s/%s.builder" % (etc, name))
    builder.get_ring().save("%s/%s.ring.gz" % (etc, name))
PY
    { echo "swift: building the rings failed" >&2; return 1; }
}

# _swift_spawn DIR NAME COMMAND...: runs a server in the background, output in DIR/log/NAME.log.
_swift_spawn() {
  local dir="$1" name="$2"
  shift 2
  "$@" >>"$dir/log/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/run/$name.pid"
}

_swift_listening() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# _swift_curl DIR SECRET CURL-ARGS... PATH: a signed S3 request. The access key holds a colon,
# which curl's --user would take for the end of the name: the key goes in the URL, %-encoded.
# s3api wants x-amz-content-sha256, which curl 7.88 does not add by itself.
_swift_curl() {
  local dir="$1" secret="$2"
  shift 2
  local path="${*: -1}"
  curl -s --max-time 10 --aws-sigv4 "aws:amz:$(cat "$dir/region"):s3" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "${@:1:$#-1}" \
    "http://${_SWIFT_ACCESS_KEY//:/%3A}:$secret@127.0.0.1:$(cat "$dir/port")$path"
}

start_swift() {
  local dir="$1" port="$2" region="${SWIFT_S3_REGION:-us-east-1}"
  require_programs swift-proxy-server swift-account-server swift-container-server swift-object-server memcached
  [ $? = 0 ] || return 1
  if [ ! -r /etc/swift/swift.conf ]; then
    echo "/etc/swift/swift.conf is missing: reinstall the swift package" >&2
    return 1
  fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [ -f "$dir/run/proxy.pid" ] && kill -0 "$(cat "$dir/run/proxy.pid")" 2>/dev/null; then
    return 0
  fi
  # Object metadata lives in extended attributes: refuse early on a file system without them.
  mkdir -p "$dir/etc" "$dir/srv/d1" "$dir/log" "$dir/run"
  python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.swift.probe", b"1")' "$dir/srv/d1" ||
    { echo "swift: $dir does not support extended attributes (user.*)" >&2; return 1; }
  local aport cport oport mport
  aport="$(free_port)"
  cport="$(free_port)"
  oport="$(free_port)"
  mport="$(free_port)"
  echo "$port" >"$dir/port"
  echo "$region" >"$dir/region"
  _swift_write_configs "$dir" "$port" "$aport" "$cport" "$oport" "$mport" "$region"
  _swift_spawn "$dir" memcached memcached -l 127.0.0.1 -p "$mport" -U 0 -m 16 -u "$(_swift_user)"
  # The storage servers do not read the rings: they start while the rings are built; the proxy
  # loads them, so it starts after. -v: log to the console (DIR/log/NAME.log) besides syslog.
  local server
  for server in account container object; do
    _swift_spawn "$dir" "$server" "swift-$server-server" "$dir/etc/$server-server.conf" -v
  done
  _swift_build_rings "$dir" "$aport" "$cport" "$oport" || { stop_swift "$dir"; return 1; }
  _swift_spawn "$dir" proxy swift-proxy-server "$dir/etc/proxy-server.conf" -v
  _swift_wait_ready "$dir" "$aport" "$cport" "$oport" "$mport" || { stop_swift "$dir"; return 1; }
}

_swift_wait_ready() {
  local dir="$1" i p name status
  shift
  for i in $(seq 1 300); do
    for name in memcached account container object proxy; do
      kill -0 "$(cat "$dir/run/$name.pid")" 2>/dev/null ||
        { echo "swift: $name exited while starting" >&2; tail -n 30 "$dir/log/$name.log" >&2; return 1; }
    done
    local up=1
    for p in "$@"; do _swift_listening "$p" || up=0; done
    if [ "$up" = 1 ]; then
      # Listing the buckets goes through s3api, tempauth and the account server.
      status="$(_swift_curl "$dir" "$_SWIFT_SECRET_KEY" -o /dev/null -w '%{http_code}' / || true)"
      [ "$status" = 200 ] && return 0
    fi
    sleep 0.1
  done
  echo "swift did not answer a signed request on port $(cat "$dir/port") (last status: ${status:-none})" >&2
  tail -n 30 "$dir/log/proxy.log" >&2
  return 1
}

stop_swift() {
  local dir="$1" name pid i
  [ -d "$dir/run" ] || return 0
  for name in proxy object container account memcached; do
    [ -f "$dir/run/$name.pid" ] || continue
    pid="$(cat "$dir/run/$name.pid")"
    # A proxy a fault test left stopped must be continued to hear the TERM.
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  for name in proxy object container account memcached; do
    [ -f "$dir/run/$name.pid" ] || continue
    pid="$(cat "$dir/run/$name.pid")"
    for i in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -f "$dir/run/$name.pid"
  done
}

swift_env() {
  local dir="$1"
  echo "MEDIAGEN_TEST_S3_ENDPOINT=http://127.0.0.1:$(cat "$dir/port")"
  echo "MEDIAGEN_TEST_S3_REGION=$(cat "$dir/region")"
  echo "MEDIAGEN_TEST_S3_ACCESS_KEY=$_SWIFT_ACCESS_KEY"
  echo "MEDIAGEN_TEST_S3_SECRET_KEY=$_SWIFT_SECRET_KEY"
  echo "MEDIAGEN_TEST_S3_PROXY_CONF=$dir/etc/proxy-server.conf"
}
