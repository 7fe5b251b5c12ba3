#!/usr/bin/env bash
# The GPU suite, run on the GPU machine from artifacts built elsewhere
# (scripts/gpu-artifacts.sh): builds the runtime and the suite with the host
# C compiler (no MLIR needed), runs the suite, then again under
# compute-sanitizer memcheck, racecheck and synccheck, then the runtime's own smoke
# test. Without a GPU every test reports skipped (exit 77).
#
#   scripts/gpu-test.sh [ARTIFACT_DIR]     (default build/gpu-artifacts)
#
# SANITIZERS (default "memcheck racecheck synccheck") names the
# compute-sanitizer tools to run the suite under; empty runs none, so that a
# time-limited session can split the runs over several calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
artifacts=${1:-$root/build/gpu-artifacts}
work=$(mktemp -d)
cc=${CC:-cc}
if [ ! -d "$artifacts" ]; then
  echo "gpu-test: no artifacts in $artifacts; run scripts/gpu-artifacts.sh first" >&2
  exit 2
fi
"$cc" -std=c11 -O2 -g -Wall -Wextra -I"$root/include" -I"$root/lib" "$root"/runtime/*.c \
  "$root"/lib/Utils/*.c "$root"/lib/Layout/*.c "$root"/lib/Types/*.c \
  "$root"/test/gpu/suite/*.c -pthread -ldl -lm -o "$work/tilus-gpu-suite"
"$cc" -std=c11 -O2 -g -Wall -Wextra -I"$root/include" -I"$root/lib" "$root"/runtime/*.c \
  "$root"/lib/Utils/ReadFile.c "$root/tools/tilus-run/tilus-run.c" -pthread -ldl -o "$work/tilus-run"

set +e
"$work/tilus-gpu-suite" "$artifacts"
status=$?
set -e
if [ $status -eq 77 ]; then exit 77; fi

# Print: thread t of a spatial(4,8) tensor holds element [t/8, t%8].
for target in sm_80 sm_90a; do
  "$work/tilus-run" "$artifacts/print_f16.$target.tilus" print_f16 i32:7 \
    | grep -v '^print_f16:' | sort > "$work/print.got"
  for t in $(seq 0 31); do
    echo "[$((t / 8)), $((t % 8))] = 1.5 (thread $t)"
    echo 7
  done | sort > "$work/print.want"
  if diff -q "$work/print.got" "$work/print.want" >/dev/null; then
    echo "PASS: print_f16 [$target]"
  else
    echo "FAIL: print_f16 [$target]"; diff "$work/print.got" "$work/print.want" | head
    status=1
  fi
done
# Planted bugs: a kernel's PTX with lines removed must fail the suite. The
# wgmma kernels without their async-proxy fences (compute-sanitizer does not
# check the async proxy; this shows the suite does), the mbarrier kernel
# without its waits, and the TMA kernel without its wait or its expected
# bytes (docs/hopper.md). (Removing the wgmma waits instead is not
# caught: ptxas injects a wait before the accumulators are read, C7517.)
planted() { # STEM REMOVED-PATTERN EXPECTED-FAILING-TEST WHAT
  [ -f "$artifacts/$1.sm_90a.tilus" ] || return 0
  rm -rf "$work/planted"
  cp -r "$artifacts" "$work/planted"
  grep -v -e "$2" "$artifacts/$1.sm_90a.tilus" > "$work/planted/$1.sm_90a.tilus"
  "$work/tilus-gpu-suite" "$work/planted" > "$work/planted.log" 2>&1 || true
  if grep -q "^FAIL: $3 " "$work/planted.log"; then
    echo "PASS: planted bug ($4) fails the suite"
  else
    echo "FAIL: planted bug ($4) went unnoticed"
    grep "$1\\." "$work/planted.log" | head
    status=1
  fi
}
planted wgmma 'fence.proxy.async.shared::cta;' 'wgmma\.ss_f16' \
  'wgmma without the async-proxy fence'
planted mbarrier 'mbarrier.try_wait.parity\|TILUS_MBAR_WAIT' 'mbarrier\.mbarrier_rounds' \
  'mbarriers without their waits'
# TMA: compute-sanitizer does not see the copy engine's writes either; the
# tiles must be read only after the barrier's phase, which the copies'
# declared bytes (expect_tx) complete.
planted tma 'mbarrier.try_wait.parity\|TILUS_MBAR_WAIT' 'tma\.tma_tiles' \
  'TMA without the barrier wait'
planted tma 'mbarrier.expect_tx' 'tma\.tma_tiles' \
  'TMA without its expected bytes'
# A TMA store with async_writes returns once the copy has read its tile,
# which the kernel then zeroes: without that wait, zeros reach the output.
planted tma 'cp.async.bulk.wait_group.read 0;' 'tma\.tma_store_tiles' \
  'TMA store without its read wait'
# Multicast: half of each block's tile comes from its partner's copy; read
# without waiting for the barrier, the tile is not all there. (Removing the
# expected bytes instead could hang: a partner's bytes landing before the
# arrival leave the count negative.)
planted tma_multicast 'mbarrier.try_wait.parity\|TILUS_MBAR_WAIT' 'tma_multicast' \
  'TMA multicast without the barrier wait'
sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ $status -eq 0 ] && [ -x "$sanitizer" ]; then
  for tool in ${SANITIZERS-memcheck racecheck synccheck}; do
    echo "=== compute-sanitizer --tool $tool"
    # A bound on each tool's run (SANITIZER_TIMEOUT seconds, default 900):
    # the split-K test's blocks spin on each other, and a tool that ran
    # blocks one at a time would hang rather than fail.
    timeout "${SANITIZER_TIMEOUT:-900}" \
    "$sanitizer" --tool $tool --error-exitcode 3 "$work/tilus-gpu-suite" "$artifacts" \
      > "$work/$tool.log" 2>&1 || status=$?
    tail -n 3 "$work/$tool.log"
    # Where the tool found something: its first reports, with the test names.
    grep -B3 -E "^========= (Error|Warning|Invalid)" "$work/$tool.log" | head -n 40 || true
  done
fi
# The tutorial's host program (docs/tutorial.md) on its kernel.
"$cc" -std=c11 -O2 -Wall -Wextra -I"$root/include" "$root"/runtime/*.c \
  "$root/examples/tutorial/axpy_host.c" -pthread -ldl -o "$work/axpy-host"
for target in sm_80 sm_90a; do
  if "$work/axpy-host" "$artifacts/axpy.$target.tilus"; then
    echo "PASS: tutorial axpy [$target]"
  else
    echo "FAIL: tutorial axpy [$target]"; status=1
  fi
done
echo "=== runtime smoke test"
bash "$root/test/gpu/runtime/run.sh" || status=$?
exit $status
