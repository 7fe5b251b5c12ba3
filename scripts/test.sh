#!/usr/bin/env bash
# Sets up, builds and runs every test: the lit suite (IR tests with FileCheck,
# the mlir-opt --irdl-file check and the C unit tests), first on the normal
# build (build/ or $BUILD_DIR), with the Python package's pytest tests
# (scripts/pytest.sh), then the lit suite again on a build with AddressSanitizer,
# LeakSanitizer and UBSan ($ASAN_BUILD_DIR, default <build dir>-asan), then a
# fuzz smoke test of every harness (scripts/fuzz.sh --smoke). Ends
# with one line "N passed, N failed, N skipped" over all runs (skipped tests,
# such as GPU tests on a machine without a GPU, are never counted as passed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
asan_build=${ASAN_BUILD_DIR:-$build-asan}

passed=0 failed=0 skipped=0 status=0

# Adds one run's counts to the totals; a run that failed in another way
# (exit status $4 non-zero, no failed test counted) counts as one failure.
tally() {
  passed=$(( passed + $1 ))
  failed=$(( failed + $2 ))
  skipped=$(( skipped + $3 ))
  if [ "$4" -ne 0 ]; then
    status=1
    if [ "$2" -eq 0 ]; then failed=$(( failed + 1 )); fi
  fi
}

# Runs the lit suite of the build tree $1 and tallies it.
run_lit() {
  local log rc
  log=$(mktemp)
  set +e
  /usr/lib/llvm-22/bin/lit -v "$1/test" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  # lit's summary lines look like "  Passed     : 17 (89.47%)".
  count() { sed -n "s/^ *$1 *: *\([0-9][0-9]*\).*/\1/p" "$log" | tail -n 1; }
  local p f=0 u k
  p=$(( $(count Passed || true) + 0 ))
  for k in Failed 'Unexpectedly Passed' Unresolved 'Timed Out'; do
    f=$(( f + $(count "$k" || true) + 0 ))
  done
  u=$(( $(count Unsupported || true) + 0 ))
  rm -f "$log"
  tally "$p" "$f" "$u" "$rc"
}

# Step 1: the normal build.
"$root/scripts/build.sh"
run_lit "$build"

# Step 1b: the Python package's tests (python-bindings/tests, pytest), on the
# normal build only: an unsanitized python cannot load the sanitized
# libraries. Each pytest test counts; skipped ones (GPU, torch) as skipped.
py_log=$(mktemp)
set +e
BUILD_DIR=$build "$root/scripts/pytest.sh" -q 2>&1 | tee "$py_log"
py_rc=${PIPESTATUS[0]}
set -e
# pytest's last line: "3 failed, 80 passed, 8 skipped, 1 error in 2.1s".
py_summary=$(grep -E '^[=]* *[0-9]+ [a-z]+.* in [0-9.]+s' "$py_log" | tail -n 1)
py_count() { sed -n "s/.*\b\([0-9][0-9]*\) $1.*/\1/p" <<<"$py_summary" | head -n 1; }
py_passed=$(( $(py_count passed || true) + 0 ))
py_failed=$(( $(py_count failed || true) + $(py_count 'errors\?' || true) + 0 ))
py_skipped=$(( $(py_count skipped || true) + 0 ))
rm -f "$py_log"
tally "$py_passed" "$py_failed" "$py_skipped" "$py_rc"

# Step 2: the same tests under ASan+LSan+UBSan (test/lit.cfg.py sets the
# sanitizer options and test/sanitizers/lsan.supp for the sanitized tree).
BUILD_DIR=$asan_build "$root/scripts/build.sh" -DTILUS_SANITIZE=ON
run_lit "$asan_build"

# Step 3: a fuzz smoke test, every harness of fuzz/ for 20 s (clang-22,
# ASan + UBSan; scripts/fuzz.sh installs what it needs). Each harness counts
# as one test.
fuzz_log=$(mktemp)
set +e
"$root/scripts/fuzz.sh" --smoke 2>&1 | tee "$fuzz_log"
fuzz_rc=${PIPESTATUS[0]}
set -e
fuzz_passed=$(sed -n 's/^\([0-9][0-9]*\) passed, [0-9][0-9]* failed$/\1/p' "$fuzz_log" | tail -n 1)
fuzz_failed=$(sed -n 's/^[0-9][0-9]* passed, \([0-9][0-9]*\) failed$/\1/p' "$fuzz_log" | tail -n 1)
rm -f "$fuzz_log"
tally "${fuzz_passed:-0}" "${fuzz_failed:-0}" 0 "$fuzz_rc"

echo
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
