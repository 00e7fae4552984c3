#!/usr/bin/env bash
# Installs the pinned packages next to this script (tests/e2e/npm_ensure.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../npm_ensure.sh" "$here"
