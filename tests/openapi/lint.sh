#!/usr/bin/env bash
# Lints openapi/openapi.yaml and its Russian variant openapi/openapi.ru.yaml
# with the Redocly CLI and validates openapi/asyncapi.yaml with the AsyncAPI
# parser (the validator the AsyncAPI CLI runs, without the CLI's 1,300
# packages), all at the versions pinned in package-lock.json. Exits non-zero
# when a description has errors, when the Russian variant has more Redocly
# warnings than the English one, or when the Russian variant is not exactly
# what openapi/i18n/build.mjs makes from openapi.yaml and the translation table
# (stale file, untranslated or unused texts: see build.mjs --check), or when
# that check no longer catches those faults (i18n_selftest.sh).
#
# Usage: tests/openapi/lint.sh [extra redocly lint options]
# Needs node (>= 20.19) and npm. Installs node_modules next to this script
# with `npm ci` when they are missing or do not match package-lock.json.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

source "$here/../../scripts/lib/install.sh"
require_programs node npm npx sha256sum

# node_modules is reused while it was installed from this exact lockfile with
# this Node.js version; otherwise it is reinstalled from scratch.
stamp_file="node_modules/.mediagen-lint-stamp"
want_stamp="$(sha256sum package-lock.json | cut -d' ' -f1) node-$(node --version)"
have_stamp=""
if [[ -f "$stamp_file" ]]; then
  have_stamp="$(cat "$stamp_file")"
fi
if [[ ! -x node_modules/.bin/redocly || ! -d node_modules/@asyncapi/parser || "$have_stamp" != "$want_stamp" ]]; then
  echo "lint.sh: installing lint tools (npm ci)" >&2
  # --ignore-scripts: no package needs one.
  npm ci --no-audit --no-fund --ignore-scripts >&2
  printf '%s\n' "$want_stamp" >"$stamp_file"
fi

# No telemetry and no update checks: the lint must work offline.
export REDOCLY_TELEMETRY=off
export REDOCLY_SUPPRESS_UPDATE_NOTICE=true

status=0
npx --no-install redocly lint --config "$here/redocly.yaml" "$@" \
  ../../openapi/openapi.yaml ../../openapi/openapi.ru.yaml || status=1

# A translation must not bring warnings of its own (the Redocly exit status
# only counts errors).
warnings_of() {
  npx --no-install redocly lint --config "$here/redocly.yaml" --format=json "$1" 2>/dev/null |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).totals.warnings))'
}
en_warnings="$(warnings_of ../../openapi/openapi.yaml)" || status=1
ru_warnings="$(warnings_of ../../openapi/openapi.ru.yaml)" || status=1
echo "lint.sh: Redocly warnings: openapi.yaml ${en_warnings:-?}, openapi.ru.yaml ${ru_warnings:-?}" >&2
if [[ -z "$en_warnings" || -z "$ru_warnings" || "$ru_warnings" -gt "$en_warnings" ]]; then
  echo "lint.sh: openapi.ru.yaml must have no more Redocly warnings than openapi.yaml" >&2
  status=1
fi

node ../../openapi/i18n/build.mjs --check || status=1
# ...and that check still catches what it is meant to catch.
bash "$here/i18n_selftest.sh" || status=1
node validate_asyncapi.mjs ../../openapi/asyncapi.yaml || status=1
exit "$status"
