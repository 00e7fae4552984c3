#!/usr/bin/env bash
# Installs the pinned OpenAI SDK (openai) next to this script with
# `npm ci` when node_modules is missing or was installed from another lockfile or Node.js version.
# Once installed, the end-to-end tests run offline.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

source "$here/../../../scripts/lib/install.sh"
require_programs node npm flock sha256sum

# Test modules run in parallel and each may call this: one installs, the others wait for it and
# then find the stamp current (the lock is on this script's own file, so no lock file is left).
exec 9<"$here/ensure.sh"
flock 9

stamp_file="node_modules/.mediagen-openai-sdk-stamp"
want_stamp="$(sha256sum package-lock.json | cut -d' ' -f1) node-$(node --version)"
have_stamp=""
if [[ -f "$stamp_file" ]]; then
  have_stamp="$(cat "$stamp_file")"
fi
if [[ ! -d node_modules/openai || "$have_stamp" != "$want_stamp" ]]; then
  echo "ensure.sh: installing the OpenAI SDK (npm ci)" >&2
  npm ci --no-audit --no-fund --ignore-scripts >&2
  printf '%s\n' "$want_stamp" >"$stamp_file"
fi
