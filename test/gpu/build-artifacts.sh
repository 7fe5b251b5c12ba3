#!/usr/bin/env bash
# build-artifacts.sh SRC_ROOT OUT_DIR: compiles every kernel the GPU suite
# runs (test/gpu/kernels, examples/, and the generated float-format and
# low-precision matmul kernels, the widening casts, the pre-transform, and
# the dequantization and matmul benchmarks' kernels, and the quantized
# matmul's kernel table for C, OUT_DIR/qmatmul-table)
# with the tilus-opt on PATH into OUT_DIR/<name>.<target>.tilus, for sm_80
# and sm_90a. The generated kernels are DSL programs (test/gpu/generate.py)
# traced with the libTilus.so of tilus-opt's build tree (or BUILD_DIR's, or
# TILUS_LIBRARY_DIR), by $PYTHON or the first python3 with numpy.
set -euo pipefail
root=$1
out=$2
tilus_opt=$(command -v tilus-opt) || { echo "build-artifacts.sh: no tilus-opt on PATH" >&2; exit 2; }
# tilus-opt is <build>/tools/tilus-opt/tilus-opt.
build=${BUILD_DIR:-$(cd "$(dirname "$tilus_opt")/../.." && pwd)}
python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import numpy' >/dev/null 2>&1; then
      python=$candidate
      break
    fi
  done
fi
if [ -z "$python" ]; then
  echo "build-artifacts.sh: no python3 with numpy (scripts/setup.sh installs python3-numpy)" >&2
  exit 2
fi
mkdir -p "$out/generated"
TILUS_LIBRARY_DIR=${TILUS_LIBRARY_DIR:-$build/lib/Shared} \
  PYTHONPATH=$root/python-bindings${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 \
  "$python" "$root/test/gpu/generate.py" "$out/generated"
for kernel in "$root"/test/gpu/kernels/*.mlir "$root"/examples/*.mlir \
    "$root"/examples/tutorial/*.mlir "$root"/bench/norms/*.mlir \
    "$out"/generated/*.mlir; do
  name=$(basename "$kernel" .mlir)
  # A kernel whose first line is "// targets: sm_90a" (wgmma) builds for
  # that target only.
  targets="sm_80 sm_90a"
  if head -n 1 "$kernel" | grep -q '^// targets: sm_90a$'; then
    targets=sm_90a
  fi
  for target in $targets; do
    tilus-opt "$kernel" --lower-to-nvvm --emit-artifact --target=$target \
      -o "$out/$name.$target.tilus"
  done
done
# The quantized matmul's kernel table for C (test/gpu/suite/QmatmulTests.c).
TILUS_LIBRARY_DIR=${TILUS_LIBRARY_DIR:-$build/lib/Shared} \
  PYTHONPATH=$root/python-bindings${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 \
  "$python" -m tilus.ops.export "$out/qmatmul-table" --weights uint3:0,uint8:128,uint4:8,uint4:0 \
  --shapes 256x1024 --activations float16,int8,float8_e4m3 --variants plain,bias,codes >/dev/null
echo "built $(ls "$out"/*.tilus | wc -l) artifacts in $out"
