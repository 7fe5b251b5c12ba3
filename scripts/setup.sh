#!/usr/bin/env bash
# Installs what Tilus-MLIR needs to build and test on Debian 12 (bookworm), if
# it is missing, through apt-get (with sudo when not root). When everything is
# installed it only asks dpkg, and exits: no apt-get update.
set -euo pipefail

packages=(
  # LLVM/MLIR 22: headers, the MLIR C API archives, libMLIR/libLLVM and their
  # CMake packages (llvm-22-dev also brings the -dev files their CMake
  # packages look for: libffi, libxml2, zlib, zstd, z3).
  libmlir-22-dev llvm-22-dev
  # The tests' tools: mlir-opt (test/Dialect/irdl-mlir-opt.mlir), FileCheck
  # and lit (/usr/lib/llvm-22/bin/lit, run by scripts/test.sh).
  mlir-22-tools llvm-22-tools
  # The build: CMake and Ninja.
  cmake ninja-build
  # The C compiler and the C library's headers (gcc only recommends them).
  # g++ builds the one C++ file, lib/Registration/Registration.cpp (passes by
  # name, the mlir-opt plugin).
  gcc libc6-dev g++
  # libstdc++.so for the link's -lstdc++: MLIR's C API archives are C++.
  # Bookworm's gcc is gcc 12, whose driver looks for libstdc++-12-dev's files.
  libstdc++-12-dev
  # python3 runs lit and test/Layering/check-layers.py, which lists the
  # symbols of the built libraries with nm (binutils).
  python3 binutils
  # pkg-config, for test/Package/consumer.test (an out-of-tree program built
  # against the installed tilus.pc).
  pkgconf
  # The Python package's tests (python-bindings/tests, scripts/pytest.sh):
  # numpy for arrays and pytest to run them; the package itself needs only
  # python3's ctypes (and numpy for arrays). PyTorch is optional, never
  # installed here.
  python3-numpy python3-pytest
)

# One dpkg-query for all of them; a package counts only when fully installed
# ("ii"), not when removed with its configuration left behind.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null |
              awk '$2 == "ii" { print $1 }' || true)
missing=()
for p in "${packages[@]}"; do
  grep -qxF "$p" <<<"$installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: apt-get not found: install ${missing[*]} (Debian 12 package names) by hand" >&2
  exit 1
fi
as_root=()
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: not root and sudo is not installed: run, as root," >&2
    echo "  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  as_root=(sudo)
fi
echo "setup: installing ${missing[*]}"
# env passes DEBIAN_FRONTEND through sudo, which resets the environment.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
