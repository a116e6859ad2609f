#!/usr/bin/env bash
# Runs CI on a clean clone of HEAD while CPU-bound processes keep every core they can busy beside it,
# the way a shared build machine or a laptop doing other work would:
#
#   scripts/ci-under-load.sh        # two CPU hogs (the default)
#   scripts/ci-under-load.sh 4      # four
#
# A pass here means no test's pass or fail depends on how fast the machine is. The hogs are killed
# when the run ends, however it ends. Prints the run's wall time and exits with CI's status.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
hogs=${1:-2}
case "$hogs" in
  '' | *[!0-9]*)
    echo "usage: $0 [number of CPU hogs, default 2]" >&2
    exit 2
    ;;
esac

clone=$(mktemp -d "${TMPDIR:-/tmp}/roundtrip-ci-under-load.XXXXXX")
hog_pids=()
cleanup() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$clone"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

git clone -q "$root" "$clone"
echo "clone of $(git -C "$clone" rev-parse --short HEAD) in $clone; starting $hogs CPU hog(s)"
for _ in $(seq 1 "$hogs"); do
  # A shell loop that never sleeps: one full core each, no memory, no I/O.
  bash -c 'while :; do :; done' &
  hog_pids+=($!)
done

start=$SECONDS
status=0
(cd "$clone" && CI=true bash .ci/run) || status=$?
echo "ci under $hogs CPU hog(s): exit status $status in $((SECONDS - start))s"
exit "$status"
