#!/usr/bin/env bash
# ptxas-all.sh SRC_ROOT WORK_DIR: lowers every kernel of test/gpu/kernels and
# examples/ for sm_80, sm_89, sm_90 and sm_90a and assembles the PTX.
set -u
root=$1
work=$2
ok=0
bad=0
for kernel in "$root"/test/gpu/kernels/*.mlir "$root"/examples/*.mlir; do
  name=$(basename "$kernel" .mlir)
  for target in sm_80 sm_89 sm_90 sm_90a; do
    if tilus-opt "$kernel" --lower-to-nvvm --emit-ptx --target=$target \
         -o "$work/$name.$target.ptx" &&
       ptxas -arch=$target "$work/$name.$target.ptx" -o "$work/$name.$target.cubin"; then
      ok=$((ok + 1))
    else
      echo "FAILED: $name for $target"
      bad=$((bad + 1))
    fi
  done
done
echo "ptxas-all: $ok assembled, $bad failed"
