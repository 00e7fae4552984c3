#!/usr/bin/env bash
# Proves that `openapi/i18n/build.mjs --check` fails on each fault it is meant
# to catch, on a scratch copy of openapi/ (the real files are never touched):
# a stale openapi.ru.yaml, an English text without a translation, a table
# entry nothing uses, a translation left in English, and a code span changed
# by a translation. Run by lint.sh after the check of the real files.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/scripts/lib/install.sh"
require_programs node

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Same layout as the repository, so build.mjs finds js-yaml where it looks.
fresh_copy() {
  rm -rf "$scratch/openapi" "$scratch/tests"
  mkdir -p "$scratch/openapi/i18n" "$scratch/tests/openapi"
  cp "$root/openapi/openapi.yaml" "$root/openapi/openapi.ru.yaml" "$scratch/openapi/"
  cp "$root/openapi/i18n/build.mjs" "$root/openapi/i18n/ru.yaml" "$scratch/openapi/i18n/"
  cp "$here/package.json" "$scratch/tests/openapi/"
  ln -s "$here/node_modules" "$scratch/tests/openapi/node_modules"
}

failures=0
# mutate FILE SED_SCRIPT: edits the scratch copy, and fails the self-test when
# the edit matched nothing (the text it looks for has changed), so a case can
# never pass by testing an unchanged copy.
mutate() {
  local file="$scratch/$1" before
  before="$(cat "$file")"
  sed -i "$2" "$file"
  if [[ "$(cat "$file")" == "$before" ]]; then
    echo "i18n_selftest: FAIL the edit '$2' matched nothing in $1; update this test" >&2
    exit 1
  fi
}
# expect_failure NAME PATTERN: the check must exit non-zero and say PATTERN.
expect_failure() {
  local name="$1" pattern="$2" output
  if output="$(node "$scratch/openapi/i18n/build.mjs" --check 2>&1)"; then
    echo "i18n_selftest: FAIL $name: the check passed" >&2
    failures=$((failures + 1))
  elif ! grep -qF -- "$pattern" <<<"$output"; then
    echo "i18n_selftest: FAIL $name: no \"$pattern\" in:" >&2
    printf '%s\n' "$output" >&2
    failures=$((failures + 1))
  else
    echo "i18n_selftest: ok $name" >&2
  fi
}

fresh_copy
if node "$scratch/openapi/i18n/build.mjs" --check 2>/dev/null; then
  echo "i18n_selftest: ok unchanged copy passes" >&2
else
  echo "i18n_selftest: FAIL the unchanged copy does not pass the check" >&2
  failures=$((failures + 1))
fi

fresh_copy
printf '# edited by hand\n' >>"$scratch/openapi/openapi.ru.yaml"
expect_failure "stale file" "openapi/openapi.ru.yaml is stale"

fresh_copy
mutate openapi/openapi.yaml 's/^\( *description: \)The link\.$/\1The signed link./'
expect_failure "changed English text" 'no translation for: "The signed link."'
expect_failure "changed English text leaves its old entry" 'is not used by openapi.yaml (remove it): "The link."'

fresh_copy
printf -- '- en: Nothing uses this text.\n  ru: Этот текст нигде не используется.\n' >>"$scratch/openapi/i18n/ru.yaml"
expect_failure "unused entry" 'is not used by openapi.yaml (remove it): "Nothing uses this text."'

fresh_copy
mutate openapi/i18n/ru.yaml 's/^  ru: Шаблоны\.$/  ru: Templates./'
expect_failure "translation left in English" 'is not translated: "Templates."'

fresh_copy
mutate openapi/i18n/ru.yaml 's/^  ru: Только коды в этом статусе\.$/  ru: Только коды в этом статусе (`status`)./'
expect_failure "code span added" 'changes code spans or URLs'

fresh_copy
mutate openapi/i18n/ru.yaml 's/^  ru: Всегда `bytes`\.$/  ru: Всегда `байты`./'
expect_failure "code span translated" 'changes code spans or URLs'

if ((failures)); then
  echo "i18n_selftest: $failures case(s) failed" >&2
  exit 1
fi
echo "i18n_selftest: every fault is caught" >&2
