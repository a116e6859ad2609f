#!/usr/bin/env bash
# One command from a fresh clone with only Node.js: Node 24 when the machine's is older (from the npm
# registry, into .node/), pnpm, then `pnpm demo` (which installs and builds what it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
PATH="$(bash scripts/provision-node.sh 24 --or-newer):$PATH"
export PATH
echo "Running on Node $(node --version)"
if [ "$(pnpm --version 2>/dev/null || true)" != "11.29.0" ]; then
  echo "Installing pnpm 11.29.0 with npm (corepack is not needed)"
  npm install -g pnpm@11.29.0
fi
pnpm demo "$@"
