#!/usr/bin/env bash
# The main job: sets up, builds, then compiles every program in examples/ with
# tilus-opt (parse, verify, print) and shows what it produced.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
status=0
for example in "$root"/examples/*.mlir; do
  echo "=== tilus-opt examples/$(basename "$example")"
  if ! "$build/tools/tilus-opt/tilus-opt" "$example"; then
    status=1
  fi
done
exit $status
