#!/usr/bin/env bash
# One command from a fresh clone to a running demo: pnpm, dependencies, build, demo.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
if [ "$(pnpm --version 2>/dev/null || true)" != "10.34.9" ]; then
  echo "Installing pnpm 10.34.9 with npm (corepack is not needed)"
  npm install -g pnpm@10.34.9
fi
pnpm install --frozen-lockfile
pnpm build
pnpm demo
