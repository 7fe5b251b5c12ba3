#!/usr/bin/env bash
# Sets up, builds and runs every test: the lit suite (IR tests with FileCheck,
# the mlir-opt --irdl-file check and the C unit tests). Ends with a line
# "N passed, N failed" (skipped tests, such as GPU tests on a machine without
# a GPU, are counted apart and never as passed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh"

log=$(mktemp)
set +e
/usr/lib/llvm-22/bin/lit -v "$build/test" 2>&1 | tee "$log"
lit_status=${PIPESTATUS[0]}
set -e
# lit's summary lines look like "  Passed     : 17 (89.47%)".
count() { sed -n "s/^ *$1 *: *\([0-9][0-9]*\).*/\1/p" "$log" | tail -n 1; }
passed=$(( $(count Passed || true) + 0 ))
failed=$(( $(count Failed || true) + 0 ))
xfail=$(( $(count 'Unexpectedly Passed' || true) + 0 ))
failed=$(( failed + xfail ))
unsupported=$(( $(count Unsupported || true) + 0 ))
echo
echo "$passed passed, $failed failed, $unsupported skipped"
rm -f "$log"
exit "$lit_status"
