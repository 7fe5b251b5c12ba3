#!/usr/bin/env bash
# Installs what Tilus-MLIR needs on Debian 12 (bookworm), if it is missing:
# LLVM/MLIR 22 (headers, C API, mlir-opt, FileCheck, lit), CMake and Ninja.
set -euo pipefail

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools cmake ninja-build python3)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
