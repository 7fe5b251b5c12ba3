#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and builds Tilus-MLIR into build/ (or $BUILD_DIR).
# Arguments are CMake options for the build tree, e.g. -DTILUS_SANITIZE=ON;
# $JOBS limits the parallel jobs (default: one per core).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
  # Not configured, or a configure that failed (no compiler, a missing
  # package) left a cache behind: configure from scratch, since CMake
  # reuses a cache's failed results (e.g. an unknown executable format,
  # "The install of the tilus-opt target requires changing an RPATH").
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
elif [ $# -gt 0 ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}"
