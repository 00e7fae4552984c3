# Installs the Debian packages the project needs, only those missing (apt-get update once).
# Source it and call: install_packages build|run|test|bench
#
# Libraries are listed by package. Programs are listed as program:package, one list per use:
# every program a script or a test runs must stand here, and tests/tools/install_list_test.py
# fails when a test names one that does not (a fresh machine has none of them).

_packages_build=(g++ pkg-config libboost1.81-all-dev nlohmann-json3-dev
  libpqxx-dev libhiredis-dev libssl-dev libspdlog-dev libhowardhinnant-date-dev libcli11-dev tzdata
  libespeak-ng-dev espeak-ng-data libmp3lame-dev zlib1g-dev ca-certificates
  libfluidsynth-dev fluid-soundfont-gm libfftw3-dev
  libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libmagic-dev libcurl4-openssl-dev libexpat1-dev)
# libclang-rt-14-dev is libFuzzer and the sanitizer runtimes (clang only recommends it);
# python3-yaml reads openapi/openapi.yaml for the route matrices (tests/e2e/route_matrix.py).
_packages_test=(libgtest-dev libgmock-dev googletest libmpg123-dev libclang-rt-14-dev python3-yaml)
_packages_bench=()

# The programs the scripts run (build, services, seeding). lld links (cmake/Linker.cmake); npm
# bundles the documentation viewer at configure time (cmake/EmbedDocs.cmake; a build without it
# serves /docs unrendered).
_programs_build=(cmake:cmake ninja:ninja-build ccache:ccache ld.lld:lld python3:python3 curl:curl node:nodejs npm:npm
  psql:postgresql-client pg_ctl:postgresql initdb:postgresql redis-server:redis-server
  redis-cli:redis-tools runuser:util-linux flock:util-linux sha256sum:coreutils)
# The programs the tests run: the e2e harness (tests/e2e/programs.py) and the test scripts
# (tests/fuzz/run.sh builds with clang and symbolizes reports with llvm-symbolizer; the audio
# intake unit tests encode their sample files with ffmpeg; the voice search e2e tests speak theirs
# with espeak-ng; the stand-in upstream provider makes its MP3 with espeak-ng and lame; the S3
# tests run a one-node OpenStack Swift cluster, scripts/lib/swift.sh, whose tempauth wants memcached;
# the documentation test renders /docs in headless Chromium; the metrics test runs promtool; the
# README's quick start runs curl and jq; docker/build-rootfs runs mmdebstrap and strip, the image
# test boots its tarball with unshare, mount and chroot; tests/docker/lint.sh checks the compose
# file with docker-compose; the model test jumps the server's wall clock with faketime;
# scripts/soak plots its figures with gnuplot).
_programs_test=(mpg123:mpg123 node:nodejs npm:npm npx:npm bash:bash clang++:clang llvm-symbolizer:llvm
  ffmpeg:ffmpeg ffprobe:ffmpeg espeak-ng:espeak-ng lame:lame pg_dump:postgresql-client
  swift-proxy-server:swift-proxy swift-account-server:swift-account
  swift-container-server:swift-container swift-object-server:swift-object memcached:memcached
  chromium:chromium promtool:prometheus jq:jq
  mmdebstrap:mmdebstrap strip:binutils unshare:util-linux mount:mount umount:mount chroot:coreutils tar:tar
  docker-compose:docker-compose faketime:faketime gnuplot:gnuplot-nox)
# The programs the benchmarks run. The tests run every bench in its smoke mode (tests/bench/smoke.sh),
# so the test use installs them too. /usr/bin/time is the orders bench's.
_programs_bench=(nginx:nginx wrk:wrk espeak-ng:espeak-ng lame:lame fluidsynth:fluidsynth pgbench:postgresql
  time:time)

# package_list build|test|bench: the library packages of that use, one a line (docker/Dockerfile's
# build stage installs the build list from here).
package_list() {
  case "${1:-build}" in
    build) printf '%s\n' "${_packages_build[@]}" ;;
    test) printf '%s\n' "${_packages_test[@]}" ;;
    bench) printf '%s\n' "${_packages_bench[@]}" ;;
  esac
}

# install_programs build|run|test|bench: the program:package pairs of that use, one a line.
install_programs() {
  local pairs=("${_programs_build[@]}")
  case "${1:-run}" in
    test|bench) pairs+=("${_programs_test[@]}" "${_programs_bench[@]}") ;;
  esac
  printf '%s\n' "${pairs[@]}"
}

install_packages() {
  local wanted=("${_packages_build[@]}")
  case "${1:-run}" in
    test) wanted+=("${_packages_test[@]}") ;;
    bench) wanted+=("${_packages_test[@]}" "${_packages_bench[@]}") ;;
  esac
  local missing=() p pair
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # A program counts as present when it is on PATH (node may come from elsewhere); pg_ctl and
  # initdb live in PostgreSQL's versioned bin directory, and `time` is also a shell keyword, so
  # their package is what is checked.
  while IFS= read -r pair; do
    local prog="${pair%%:*}" pkg="${pair#*:}"
    case "$prog" in
      pg_ctl|initdb|time) dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" && continue ;;
      *) command -v "$prog" >/dev/null 2>&1 && continue ;;
    esac
    [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
  done < <(install_programs "${1:-run}")
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# require_programs NAME...: fails with the fix when a program a script runs is not installed.
require_programs() {
  local prog
  for prog in "$@"; do
    command -v "$prog" >/dev/null 2>&1 ||
      { echo "$prog is not installed: add its package to scripts/lib/install.sh" >&2; return 2; }
  done
}
