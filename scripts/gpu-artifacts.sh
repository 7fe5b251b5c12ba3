#!/usr/bin/env bash
# Compiles the GPU suite's kernels (test/gpu/kernels/*.mlir, which the
# benchmarks use too), the examples/ and any bench/*/*.mlir with tilus-opt into kernel artifacts
# for sm_80 and sm_90a, in build/gpu-artifacts (or $1). Run it where MLIR is
# installed; the artifacts then travel to the GPU machine (scripts/gpu-test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:-$build/gpu-artifacts}
"$root/scripts/build.sh" >/dev/null
mkdir -p "$out"
shopt -s nullglob
for kernel in "$root"/test/gpu/kernels/*.mlir "$root"/examples/*.mlir "$root"/bench/*/*.mlir; do
  name=$(basename "$kernel" .mlir)
  for target in sm_80 sm_90a; do
    "$build/tools/tilus-opt/tilus-opt" "$kernel" --lower-to-nvvm --emit-artifact \
      --target=$target -o "$out/$name.$target.tilus"
  done
done
echo "artifacts in $out:"
ls "$out"
