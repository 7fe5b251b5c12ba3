#!/usr/bin/env bash
# Builds tilus-opt and compiles every kernel of the GPU suite (and the
# benchmarks') into kernel artifacts for sm_80 and sm_90a, in
# build/gpu-artifacts (or $1). Run it where MLIR is installed; the artifacts
# then travel to the GPU machine (scripts/gpu-test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:-$build/gpu-artifacts}
"$root/scripts/build.sh" >/dev/null
PATH="$build/tools/tilus-opt:$PATH" bash "$root/test/gpu/build-artifacts.sh" "$root" "$out"
