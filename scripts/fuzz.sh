#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (clang-22, ASan + UBSan) and runs
# them (docs/reliability.md, "Fuzzing").
#
#   scripts/fuzz.sh [MINUTES] [HARNESS...]   share MINUTES (default 2) among
#                                             the harnesses (default: all)
#   scripts/fuzz.sh --smoke [HARNESS...]     20 s each, for CI
#
# Harnesses: layout types pipeline runtime. Seeds are made at run time from
# the repository (layout texts, types and MLIR of test/ and examples/, and
# artifacts that the built tilus-opt writes for the examples); the corpus
# each harness grows is kept in $FUZZ_BUILD_DIR/fuzz-work/corpus. Every
# crash, timeout, out-of-memory or leak input is kept in
# fuzz-findings/<harness>/. Ends with one line per harness and
# "N passed, N failed"; the exit status is non-zero when anything was found.
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz/), FUZZ_JOBS (build jobs,
# default 2), FUZZ_SECONDS (seconds per harness; overrides MINUTES).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
findings=$root/fuzz-findings
all_harnesses=(layout types pipeline runtime)

smoke=false
minutes=2
harnesses=()
for arg in "$@"; do
  case $arg in
    --smoke) smoke=true ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    layout|types|pipeline|runtime) harnesses+=("$arg") ;;
    *[!0-9]*|'') echo "fuzz.sh: unknown argument '$arg'" >&2; exit 2 ;;
    *) minutes=$arg ;;
  esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all_harnesses[@]}")
if [ -n "${FUZZ_SECONDS:-}" ]; then
  seconds=$FUZZ_SECONDS
elif $smoke; then
  seconds=20
else
  seconds=$(( minutes * 60 / ${#harnesses[@]} ))
  [ "$seconds" -ge 1 ] || seconds=1
fi

# Tools: what scripts/setup.sh installs, plus clang-22 with its sanitizer
# and libFuzzer runtimes.
"$root/scripts/setup.sh"
packages=(clang-22 libclang-rt-22-dev libfuzzer-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fuzz.sh: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DTILUS_BUILD_FUZZERS=ON >/dev/null
fi
cmake --build "$build" -j "${FUZZ_JOBS:-2}" --target tilus-fuzzers tilus-opt

# UBSan's reports with their stack (the build makes them fatal already).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

work=$build/fuzz-work
seeds=$work/seeds
rm -rf "$seeds" "$work/logs"
mkdir -p "$work/logs" "$work/corpus"
for h in "${all_harnesses[@]}"; do mkdir -p "$seeds/$h" "$work/corpus/$h"; done

# A seed file named by its content, so that duplicates collapse.
seed() { # seed HARNESS < content
  local tmp
  tmp=$(mktemp "$seeds/$1/.tmp.XXXXXX")
  cat > "$tmp"
  if [ -s "$tmp" ]; then
    mv "$tmp" "$seeds/$1/$(sha1sum "$tmp" | cut -c1-16)"
  else
    rm -f "$tmp"
  fi
}

mlir_files=()
while IFS= read -r f; do mlir_files+=("$f"); done < <(
  find "$root/test" "$root/examples" -name '*.mlir' | sort)

# layout: the texts inside #tilus.layout<"..."> and the layout strings of the
# layout unit tests, alone and in pairs "F|G" for the algebra.
layouts=$work/layouts.txt
{
  grep -ho '#tilus\.layout<"[^"]*">' "${mlir_files[@]}" |
    sed 's/^#tilus\.layout<"//; s/">$//'
  grep -hoE '"(local|spatial|column_local|column_spatial|reduce|swizzle|repeat)\([^"]*"' \
    "$root"/test/unit/layout/*.c | tr -d '"'
} | sort -u > "$layouts"
prev=
while IFS= read -r text; do
  printf '%s' "$text" | seed layout
  [ -z "$prev" ] || printf '%s|%s' "$prev" "$text" | seed layout
  prev=$text
done < "$layouts"

# types: the right-hand sides of type aliases, inline pointer and float
# types, and the layout attributes.
{
  grep -hE '^[!#][A-Za-z0-9_]+ *= *[!#]tilus\.' "${mlir_files[@]}" | sed 's/^[^=]*= *//'
  grep -hoE '!tilus\.(ptr|float)<[^<>]*>' "${mlir_files[@]}"
  grep -ho '#tilus\.layout<"[^"]*">' "${mlir_files[@]}"
  echo '#tilus.row_major'
} | sort -u | while IFS= read -r text; do printf '%s' "$text" | seed types; done

# pipeline: every chunk (between '// -----' lines) of every .mlir file, up to
# the harness's 16 KiB.
for f in "${mlir_files[@]}"; do
  awk -v dir="$seeds/pipeline" -v base="$(basename "$f" .mlir)" '
    /^\/\/ -----/ { n++; next }
    { out = sprintf("%s/.chunk.%s.%d", dir, base, n); print > out }' "$f"
done
for chunk in "$seeds"/pipeline/.chunk.*; do
  [ -e "$chunk" ] || continue
  [ "$(wc -c < "$chunk")" -le 16384 ] && seed pipeline < "$chunk"
  rm -f "$chunk"
done

# runtime: the artifacts tilus-opt writes for the examples and the GPU test
# kernels (two targets), and the grid expressions of the runtime's unit test.
opt=$build/tools/tilus-opt/tilus-opt
for f in "$root"/examples/*.mlir "$root"/test/gpu/kernels/*.mlir; do
  for target in sm_80 sm_90a; do
    # Leaks are findings for the harnesses, not for this seed maker.
    ASAN_OPTIONS=detect_leaks=0 "$opt" "$f" --lower-to-nvvm --emit-artifact \
      --target=$target 2>/dev/null | seed runtime || true
  done
done
sed -n 's/^ *{"\([^"]*\)", .*/\1/p' "$root/test/unit/runtime/RuntimeGridTest.c" |
  while IFS= read -r text; do printf '%s' "$text" | seed runtime; done

dict_of() {
  case $1 in
    layout) echo "$root/fuzz/layout.dict" ;;
    types|pipeline) echo "$root/fuzz/mlir.dict" ;;
    runtime) echo "$root/fuzz/artifact.dict" ;;
  esac
}

# Runs one harness; prints its summary line and returns non-zero on a finding.
run_harness() {
  local h=$1
  local bin=$build/fuzz/tilus-fuzz-$h log=$work/logs/$h.log
  local out=$findings/$h
  mkdir -p "$out"
  local before
  before=$(ls "$out" | grep -cE '^(crash|timeout|oom|leak)-' || true)
  local status=0
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -dict="$(dict_of "$h")" -artifact_prefix="$out/" -print_final_stats=1 \
    "$work/corpus/$h" "$seeds/$h" > "$log" 2>&1 || status=$?
  local after
  after=$(ls "$out" | grep -cE '^(crash|timeout|oom|leak)-' || true)
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  local corpus
  corpus=$(ls "$work/corpus/$h" | wc -l)
  if [ "$status" -eq 0 ] && [ "$after" -eq "$before" ]; then
    echo "PASS: $h (${seconds} s, ${runs:-?} runs, corpus $corpus)"
    return 0
  fi
  local saved
  saved=$(ls -t "$out" | grep -E '^(crash|timeout|oom|leak)-' | head -n 1 || true)
  echo "FAIL: $h (exit $status; ${saved:+fuzz-findings/$h/$saved; }log $log)"
  # The sanitizer or assertion report, for CI logs.
  grep -E '^(==[0-9]+==|SUMMARY|layout fuzzer|type/attribute fuzzer|pipeline fuzzer|runtime fuzzer|.*runtime error)' \
    "$log" | head -n 8 | sed 's/^/  /'
  return 1
}

passed=0
failed=0
summary=()
for h in "${harnesses[@]}"; do
  if line=$(run_harness "$h"); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  echo "$line"
  summary+=("$(head -n 1 <<< "$line")")
done
echo
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
