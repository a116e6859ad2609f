#!/usr/bin/env bash
# One command from a fresh clone with only Node.js: pnpm, then `pnpm demo` (which installs and builds
# what it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
if [ "$(pnpm --version 2>/dev/null || true)" != "10.34.9" ]; then
  echo "Installing pnpm 10.34.9 with npm (corepack is not needed)"
  npm install -g pnpm@10.34.9
fi
pnpm demo "$@"
