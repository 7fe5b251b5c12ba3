#!/usr/bin/env bash
# The main job: sets up, builds, then compiles every program in examples/
# with tilus-opt: parse and verify (the IR is printed), lower to the
# llvm/nvvm dialects, and emit the kernel artifact (manifest + PTX) for
# sm_90a into build/examples/, whose manifest is shown. Where ptxas is
# installed, the PTX is assembled for all four targets as a check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
opt="$build/tools/tilus-opt/tilus-opt"
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
mkdir -p "$build/examples"
status=0
for example in "$root"/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  echo "=== tilus-opt examples/$name.mlir"
  "$opt" "$example" || { status=1; continue; }
  artifact="$build/examples/$name.sm_90a.tilus"
  echo "=== tilus-opt examples/$name.mlir --lower-to-nvvm --emit-artifact --target=sm_90a"
  if ! "$opt" "$example" --lower-to-nvvm --emit-artifact --target=sm_90a -o "$artifact"; then
    status=1
    continue
  fi
  sed '/^ptx:$/q' "$artifact"
  echo "($(sed -n '/^ptx:$/,$p' "$artifact" | wc -l) lines of PTX in $artifact)"
  if [ -x "$ptxas" ]; then
    for target in sm_80 sm_89 sm_90 sm_90a; do
      "$opt" "$example" --lower-to-nvvm --emit-ptx --target=$target -o "$build/examples/$name.$target.ptx"
      if "$ptxas" -arch=$target "$build/examples/$name.$target.ptx" -o /dev/null; then
        echo "ptxas -arch=$target: ok"
      else
        status=1
      fi
    done
  fi
done
exit $status
