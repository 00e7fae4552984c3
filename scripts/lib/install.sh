# Installs the Debian packages the project needs, only those missing (apt-get update once).
# Source it and call: install_packages build|run|test|bench

_packages_build=(cmake ninja-build g++ ccache pkg-config libboost1.81-all-dev nlohmann-json3-dev
  libpqxx-dev libhiredis-dev libssl-dev libspdlog-dev libhowardhinnant-date-dev libcli11-dev tzdata
  libespeak-ng-dev espeak-ng-data libmp3lame-dev
  postgresql redis-server python3 curl ca-certificates)
_packages_test=(libgtest-dev libgmock-dev googletest libmpg123-dev)
_packages_bench=(nginx wrk espeak-ng lame)

install_packages() {
  local wanted=("${_packages_build[@]}")
  case "${1:-run}" in
    test) wanted+=("${_packages_test[@]}") ;;
    bench) wanted+=("${_packages_test[@]}" "${_packages_bench[@]}") ;;
  esac
  local missing=() p
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${1:-}" = test ] && ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
