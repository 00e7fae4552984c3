#!/usr/bin/env bash
# Usage: npm_ensure.sh FOLDER
# Installs the pinned npm packages of FOLDER (its package-lock.json) with `npm ci` when
# node_modules is missing or was installed from another lockfile or Node.js version. Once
# installed, the end-to-end tests that use them run offline.
set -euo pipefail

dir="$(cd "${1:?usage: npm_ensure.sh FOLDER}" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../../scripts/lib/install.sh"
require_programs node npm flock sha256sum
cd "$dir"

# Test modules run in parallel and each may call this: one installs, the others wait for it and
# then find the stamp current (the lock is on the folder's own package.json, so no lock file is
# left behind).
exec 9<"$dir/package.json"
flock 9

stamp_file="node_modules/.mediagen-stamp"
want_stamp="$(sha256sum package-lock.json | cut -d' ' -f1) node-$(node --version)"
have_stamp=""
if [[ -f "$stamp_file" ]]; then
  have_stamp="$(cat "$stamp_file")"
fi
if [[ "$have_stamp" != "$want_stamp" ]]; then
  echo "npm_ensure.sh: installing the packages of $(basename "$dir") (npm ci)" >&2
  # --ignore-scripts: no package needs one (playwright-core's browser download is not used).
  npm ci --no-audit --no-fund --ignore-scripts >&2
  printf '%s\n' "$want_stamp" >"$stamp_file"
fi
