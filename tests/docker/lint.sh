#!/usr/bin/env bash
# Lints the container files with real tools, since no Docker engine runs here to build them:
#   - docker/Dockerfile with dockerfile-utils (the Docker language server's linter: instructions,
#     arguments, flags, ports, JSON forms). hadolint is not a Debian 12 package, and npm's
#     `hadolint` downloads its binary from GitHub when run, which these machines cannot reach.
#   - docker/compose.yaml with dclint (the Compose specification's schema and its rules), and
#     with Debian's docker-compose (`config -q`: the file as Compose itself reads it, with the
#     secrets of docker/env.example).
#   - what neither knows: check_container_files.mjs (services, health checks, start order, the
#     non-root user, one package list for the Dockerfile and docker/build-rootfs), which must
#     also catch each of a set of broken copies.
# The npm linters are pinned by package-lock.json and installed once (`npm ci`).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/lib/install.sh"
require_programs node npm docker-compose flock sha256sum

(
  cd "$here"
  exec 9<"$here/lint.sh"
  flock 9
  stamp_file="node_modules/.mediagen-docker-lint-stamp"
  want_stamp="$(sha256sum package-lock.json | cut -d' ' -f1) node-$(node --version)"
  if [[ ! -d node_modules/dclint || "$(cat "$stamp_file" 2>/dev/null)" != "$want_stamp" ]]; then
    echo "lint.sh: installing the linters (npm ci)" >&2
    npm ci --no-audit --no-fund --ignore-scripts >&2
    printf '%s\n' "$want_stamp" >"$stamp_file"
  fi
)

cd "$root"
status=0
run() {
  echo "== $*"
  "$@" || { echo "FAILED: $*"; status=1; }
}
run "$here/node_modules/.bin/dockerfile-utils" lint docker/Dockerfile
# The project-name field is left out on purpose: Debian's docker-compose (1.29) refuses it.
run "$here/node_modules/.bin/dclint" docker/compose.yaml --max-warnings 0 --disable-rule require-project-name-field
run docker-compose -f docker/compose.yaml --env-file docker/env.example config -q
run node "$here/check_container_files.mjs" "$root"
run node "$here/check_container_files.mjs" --self-test
exit "$status"
