#!/usr/bin/env bash
# Runs the Python package's tests (python-bindings/tests) against a build tree:
#   scripts/pytest.sh [pytest arguments...]
# BUILD_DIR (default build/) holds the libraries (lib/Shared) and the fake CUDA
# driver (python-bindings/); PYTHON (default: the first of python3 on PATH and
# /usr/bin/python3 that has numpy and pytest) runs them. Ends with pytest's
# summary line ("N passed, N skipped in ..."), which scripts/test.sh counts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import numpy, pytest' >/dev/null 2>&1; then
      python=$candidate
      break
    fi
  done
fi
if [ -z "$python" ]; then
  echo "pytest.sh: no python3 with numpy and pytest (scripts/setup.sh installs python3-numpy and python3-pytest)" >&2
  exit 2
fi

export TILUS_LIBRARY_DIR=${TILUS_LIBRARY_DIR:-$build/lib/Shared}
export TILUS_BUILD_DIR=$build
export PYTHONPATH=$root/python-bindings${PYTHONPATH:+:$PYTHONPATH}
# No cache files or bytecode left in the source tree.
export PYTHONDONTWRITEBYTECODE=1
cd "$root"
exec "$python" -m pytest -p no:cacheprovider -rs "$@" python-bindings/tests
