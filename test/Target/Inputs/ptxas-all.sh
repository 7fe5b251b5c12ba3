#!/usr/bin/env bash
# ptxas-all.sh SRC_ROOT WORK_DIR: lowers every kernel of test/gpu/kernels and
# examples/ for sm_80, sm_89, sm_90 and sm_90a (a kernel whose first line is
# "// targets: sm_90a" for that target only) and assembles the PTX.
set -u
root=$1
work=$2
ok=0
bad=0
for kernel in "$root"/test/gpu/kernels/*.mlir "$root"/examples/*.mlir; do
  name=$(basename "$kernel" .mlir)
  targets="sm_80 sm_89 sm_90 sm_90a"
  if head -n 1 "$kernel" | grep -q '^// targets: sm_90a$'; then
    targets=sm_90a
  fi
  for target in $targets; do
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
