#!/usr/bin/env bash
# The GPU suite, run on the GPU machine from artifacts built elsewhere
# (scripts/gpu-artifacts.sh): builds the runtime and the suite with the host
# C compiler (no MLIR needed), runs the suite, then again under
# compute-sanitizer memcheck and racecheck, then the runtime's own smoke
# test. Without a GPU every test reports skipped (exit 77).
#
#   scripts/gpu-test.sh [ARTIFACT_DIR]     (default build/gpu-artifacts)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
artifacts=${1:-$root/build/gpu-artifacts}
work=$(mktemp -d)
cc=${CC:-cc}
if [ ! -d "$artifacts" ]; then
  echo "gpu-test: no artifacts in $artifacts; run scripts/gpu-artifacts.sh first" >&2
  exit 2
fi
"$cc" -std=c11 -O2 -g -Wall -Wextra -I"$root/include" "$root"/runtime/*.c \
  "$root/test/gpu/GpuSuite.c" -ldl -lm -o "$work/tilus-gpu-suite"

set +e
"$work/tilus-gpu-suite" "$artifacts"
status=$?
set -e
if [ $status -eq 77 ]; then exit 77; fi
sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ $status -eq 0 ] && [ -x "$sanitizer" ]; then
  for tool in memcheck racecheck; do
    echo "=== compute-sanitizer --tool $tool"
    "$sanitizer" --tool $tool --error-exitcode 3 "$work/tilus-gpu-suite" "$artifacts" \
      > "$work/$tool.log" 2>&1 || status=$?
    tail -n 3 "$work/$tool.log"
  done
fi
echo "=== runtime smoke test"
bash "$root/test/gpu/runtime/run.sh" || status=$?
exit $status
