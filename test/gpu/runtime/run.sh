#!/usr/bin/env bash
# GPU smoke test of the runtime (runtime/) and of tilus-run.
#
# Builds the runtime, tilus-run and RuntimeSmokeTest.c with the host C
# compiler (no CMake, no MLIR needed), compiles kernels.cu to sm_80 PTX with
# nvcc (the driver JIT-compiles it for the GPU present) and to a cubin for the
# GPU present, wraps each in an artifact (kernels.tilus.in + the image), then:
#   1. runs the smoke test (JIT, cubin, workspace, shared memory, errors);
#   2. runs RuntimeGraphTest.c: launches with a caller workspace captured
#      into a CUDA graph and replayed with new inputs, and 8 threads
#      launching on one runtime, each with its own stream and workspace;
#   3. runs saxpy through tilus-run and compares its output file with the CPU
#      reference byte for byte, then times it;
#   4. reruns the smoke and graph tests under compute-sanitizer memcheck (if
#      present).
# Prints SKIPPED and exits 77 when there is no nvcc, driver or GPU.
#
# Environment: CC (default cc), NVCC (default $CUDA_HOME/bin/nvcc),
# CUDA_HOME (default /usr/local/cuda), TILUS_GPU_TEST_DIR (scratch directory,
# default a new temporary one).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$cuda/bin/nvcc}
cc=${CC:-cc}
work=${TILUS_GPU_TEST_DIR:-$(mktemp -d)}
mkdir -p "$work"

step() { echo "=== $*"; }

if ! command -v "$nvcc" >/dev/null 2>&1; then
  echo "SKIPPED: no nvcc at $nvcc"
  exit 77
fi

step "building the runtime, tilus-run, the smoke and graph tests with $cc"
# -pthread: each runtime holds a pthread mutex (and the graph test starts
# threads).
cflags=(-std=c11 -O2 -g -Wall -Wextra -Werror -pedantic -pthread -I"$root/include")
"$cc" "${cflags[@]}" "$root"/runtime/*.c "$here/RuntimeSmokeTest.c" \
  -ldl -lm -o "$work/tilus-runtime-gpu-test"
"$cc" "${cflags[@]}" "$root"/runtime/*.c "$here/RuntimeGraphTest.c" \
  -ldl -lm -o "$work/tilus-runtime-graph-test"
"$cc" "${cflags[@]}" -I"$root/lib" "$root"/runtime/*.c "$root"/lib/Utils/ReadFile.c \
  "$root/tools/tilus-run/tilus-run.c" -ldl -o "$work/tilus-run"
smoke=$work/tilus-runtime-gpu-test
graph=$work/tilus-runtime-graph-test

# Which GPU and driver? (Exits 77 itself when there is none.)
set +e
probe=$("$smoke" --probe)
status=$?
set -e
if [ "$status" -eq 77 ]; then
  echo "$probe"
  exit 77
fi
[ "$status" -eq 0 ] || { echo "$probe"; exit 1; }
read -r arch driver <<<"$probe"
echo "compute capability $arch, driver CUDA version $driver"

step "compiling kernels.cu to sm_80 PTX"
"$nvcc" -ptx -arch=sm_80 "$here/kernels.cu" -o "$work/kernels.ptx"
release=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r nvccMajor nvccMinor <<<"$release"
nvccVersion=$((nvccMajor * 1000 + nvccMinor * 10))
# A driver older than nvcc rejects PTX of a newer ISA version even when the
# code uses nothing new; lower the declared version to what it reads (these
# kernels use only old instructions). Newest PTX ISA per driver version:
ptxIsaFor() {
  local v=$1
  if [ "$v" -ge 13000 ]; then echo 9.0
  elif [ "$v" -ge 12090 ]; then echo 8.8
  elif [ "$v" -ge 12080 ]; then echo 8.7
  elif [ "$v" -ge 12050 ]; then echo 8.5
  elif [ "$v" -ge 12040 ]; then echo 8.4
  elif [ "$v" -ge 12030 ]; then echo 8.3
  elif [ "$v" -ge 12020 ]; then echo 8.2
  elif [ "$v" -ge 12010 ]; then echo 8.1
  elif [ "$v" -ge 12000 ]; then echo 8.0
  else echo 7.0
  fi
}
olderDriver=0
if [ "$driver" -lt "$nvccVersion" ]; then
  olderDriver=1
  isa=$(ptxIsaFor "$driver")
  echo "note: the driver ($driver) is older than nvcc ($nvccVersion): PTX .version lowered to $isa"
  sed -i "s/^\.version .*/.version $isa/" "$work/kernels.ptx"
fi
{ cat "$here/kernels.tilus.in"; echo "ptx:"; cat "$work/kernels.ptx"; } \
  >"$work/kernels.tilus"

# A cubin for the GPU present, when its architecture is an artifact target
# and the driver is as new as the compiler that makes the cubin.
cubinArtifact=()
case "$arch" in
  80 | 89 | 90)
    if [ "$olderDriver" -eq 0 ]; then
      step "compiling kernels.cu to an sm_$arch cubin"
      "$nvcc" -cubin -arch="sm_$arch" "$here/kernels.cu" -o "$work/kernels.cubin"
      { sed "s/^target .*/target sm_$arch/" "$here/kernels.tilus.in"
        echo "cubin:"; cat "$work/kernels.cubin"; } >"$work/kernels-cubin.tilus"
      cubinArtifact=("$work/kernels-cubin.tilus")
    fi
    ;;
esac

step "smoke test"
"$smoke" "$work/kernels.tilus" ${cubinArtifact[@]+"${cubinArtifact[@]}"}

step "CUDA graphs and threads"
"$graph" "$work/kernels.tilus"

step "tilus-run saxpy against the CPU reference"
n=100003
"$smoke" --write-saxpy-files "$work" "$n" 1.75
"$work/tilus-run" "$work/kernels.tilus" saxpy inout:f32:"$work/y.bin" \
  in:f32:"$work/x.bin" f32:1.75 "i32:$n"
cmp "$work/y.bin" "$work/expected.bin"
echo "tilus-run output matches the CPU reference ($n floats, bit for bit)"
"$work/tilus-run" --time --repeat 100 "$work/kernels.tilus" saxpy \
  zero:$((4 * n)) zero:$((4 * n)) f32:1 "i32:$n"
# A rejected launch is an error message and exit status 1, not a crash.
set +e
"$work/tilus-run" "$work/kernels.tilus" saxpy zero:4 zero:4 f32:1 i32:0
status=$?
set -e
[ "$status" -eq 1 ] || { echo "expected exit status 1, got $status"; exit 1; }

sanitizer=${COMPUTE_SANITIZER:-$cuda/bin/compute-sanitizer}
if [ -x "$sanitizer" ]; then
  step "smoke test under compute-sanitizer memcheck"
  # API errors are not reported: the smoke test provokes one on purpose (bad
  # PTX) and checks the status of every other call itself. Memory errors and
  # device-memory leaks remain fatal.
  "$sanitizer" --tool memcheck --leak-check full --report-api-errors no \
    --error-exitcode 1 \
    "$smoke" "$work/kernels.tilus" ${cubinArtifact[@]+"${cubinArtifact[@]}"}
  step "graph and thread test under compute-sanitizer memcheck"
  "$sanitizer" --tool memcheck --leak-check full --error-exitcode 1 \
    "$graph" "$work/kernels.tilus"
else
  echo "note: no compute-sanitizer at $sanitizer; memcheck run skipped"
fi

echo "runtime GPU smoke test: PASSED"
