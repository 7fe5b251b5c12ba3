#!/usr/bin/env bash
# build-artifacts.sh SRC_ROOT OUT_DIR: compiles every kernel the GPU suite
# runs (test/gpu/kernels, examples/, and the generated float-format and
# low-precision matmul kernels, the widening casts, the pre-transform, and
# the dequantization and matmul benchmarks' kernels)
# with the tilus-opt on PATH into OUT_DIR/<name>.<target>.tilus, for sm_80
# and sm_90a.
set -euo pipefail
root=$1
out=$2
mkdir -p "$out/generated"
bash "$root/test/gpu/float-kernels.sh" "$out/generated"
bash "$root/test/gpu/matmul-kernels.sh" "$out/generated"
bash "$root/test/gpu/subbyte-kernels.sh" "$out/generated"
bash "$root/test/gpu/widen-kernels.sh" "$out/generated"
bash "$root/test/gpu/pack-kernels.sh" "$out/generated"
bash "$root/bench/gemm/gemm-kernels.sh" "$out/generated"
bash "$root/bench/dequant/dequant-kernels.sh" "$out/generated"
for kernel in "$root"/test/gpu/kernels/*.mlir "$root"/examples/*.mlir \
    "$root"/examples/tutorial/*.mlir "$root"/bench/norms/*.mlir \
    "$out"/generated/*.mlir; do
  name=$(basename "$kernel" .mlir)
  for target in sm_80 sm_90a; do
    tilus-opt "$kernel" --lower-to-nvvm --emit-artifact --target=$target \
      -o "$out/$name.$target.tilus"
  done
done
echo "built $(ls "$out"/*.tilus | wc -l) artifacts in $out"
