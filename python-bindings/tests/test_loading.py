"""Finding the libraries, versions, runtime-only mode, the install, and the
ctypes declarations."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tilus
from tilus import _lib

from conftest import REPO, build_dir, requires_compiler

PKG = Path(tilus.__file__).resolve().parent


def test_version_matches_version_h():
    header = (REPO / "include" / "tilus-c" / "Version.h").read_text()
    expected = re.search(r'#define TILUS_VERSION_STRING "([0-9.]+)"', header).group(1)
    assert tilus.__version__ == expected
    assert tilus.version()[1] == expected


@requires_compiler
def test_both_libraries_report_the_version():
    pkg, runtime, compiler = tilus.version()
    assert pkg == runtime == compiler


def _run(code, env_extra, cwd=None, pythonpath=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILUS_LIBRARY_DIR", "TILUS_BUILD_DIR", "PYTHONPATH")}
    env.update(env_extra)
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                          capture_output=True, text=True)


def _copy_package(tmp_path):
    dest = tmp_path / "site" / "tilus"
    shutil.copytree(PKG, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest.parent


def test_runtime_only_mode(tmp_path):
    """With libTilusRuntime.so alone, artifacts load and compiling raises a
    clear LibraryNotFoundError."""
    runtime = Path(_lib.runtime_path())
    libs = tmp_path / "libs"
    libs.mkdir()
    shutil.copy(runtime, libs / f"libTilusRuntime.so.{tilus.__version__.split('.')[0]}")
    site = _copy_package(tmp_path)
    artifact = REPO / "examples" / "tutorial" / "axpy.mlir"
    code = f"""
import tilus
assert not tilus.has_compiler()
try:
    tilus.compile({str(artifact)!r})
except tilus.LibraryNotFoundError as e:
    print("compile:", e)
try:
    tilus.local(2)
except tilus.LibraryNotFoundError as e:
    print("layout: raised")
a = tilus.Artifact(b"tilus-artifact 1\\ntarget sm_80\\nkernel k\\n block 32 1 1\\n grid 1\\nend\\nptx:\\n.visible .entry k()\\n{{\\n ret;\\n}}\\n")
print("artifact:", a.target, [k.name for k in a.kernels])
"""
    r = _run(code, {"TILUS_LIBRARY_DIR": str(libs)}, cwd=tmp_path, pythonpath=site)
    assert r.returncode == 0, r.stderr
    assert "compile: cannot load libTilus.so" in r.stdout
    assert "TILUS_LIBRARY_DIR" in r.stdout
    assert "layout: raised" in r.stdout
    assert "artifact: sm_80 ['k']" in r.stdout


def test_library_dir_env_wins(tmp_path):
    site = _copy_package(tmp_path)
    shared = build_dir() / "lib" / "Shared"
    code = "import tilus; from tilus import _lib; print(_lib.runtime_path())"
    r = _run(code, {"TILUS_LIBRARY_DIR": str(shared)}, cwd=tmp_path, pythonpath=site)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().startswith(str(shared.resolve()))


def test_version_mismatch_is_refused(tmp_path):
    code = """
import tilus
from tilus import _lib
_lib.__version__ = "9.9.9"
try:
    _lib.runtime_lib()
except tilus.LibraryNotFoundError as e:
    print(e)
"""
    r = _run(code, {"TILUS_LIBRARY_DIR": str(build_dir() / "lib" / "Shared")},
             pythonpath=PKG.parent)
    assert r.returncode == 0, r.stderr
    assert "is Tilus 0.2.0, but the Python package is 9.9.9" in r.stdout


@requires_compiler
def test_installed_package_finds_its_libraries(tmp_path):
    """cmake --install puts the package in <prefix>/lib/python3/dist-packages,
    which finds <prefix>/lib's libraries without any environment."""
    cmake = shutil.which("cmake")
    if not cmake or not (build_dir() / "cmake_install.cmake").is_file():
        pytest.skip("no cmake or no build tree to install")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", str(build_dir()), "--prefix", str(prefix)],
                   check=True, capture_output=True)
    site = prefix / "lib" / "python3" / "dist-packages"
    assert (site / "tilus" / "__init__.py").is_file()
    assert (site / "tilus" / "ops" / "tuned.json").is_file()      # package data too
    code = f"""
import tilus
from tilus import _lib
print(_lib.compiler_path()); print(_lib.runtime_path())
a = tilus.compile({str(REPO / 'examples' / 'tutorial' / 'axpy.mlir')!r}, cache=False)
print(a.kernels[0].name)
"""
    r = _run(code, {}, cwd=tmp_path, pythonpath=site)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split()
    assert lines[0].startswith(str((prefix / "lib").resolve()))
    assert lines[1].startswith(str((prefix / "lib").resolve()))
    assert lines[2] == "axpy"


def test_every_c_function_used_is_declared():
    """Every tilus* function the package calls through a library object has
    argtypes and restype declared for that library (no implicit int)."""
    called = {"runtime": set(), "compiler": set()}
    for path in PKG.glob("*.py"):
        text = path.read_text()
        for name in re.findall(r"\b(tilus[A-Z]\w*)\(", text):
            # Which library a module uses: modules over libTilus.so vs the runtime.
            which = "runtime" if path.name in ("artifact.py", "runtime.py") else "compiler"
            called[which].add(name)
        for name in re.findall(r'getattr\(_lib\.runtime_lib\(\), "(tilus\w+)"', text):
            called["runtime"].add(name)
    text = (PKG / "runtime.py").read_text()
    called["runtime"] |= set(re.findall(r'_call\("(tilus\w+)"', text))
    called["compiler"] |= {"tilusLayoutCreateLocal", "tilusLayoutCreateSpatial",
                           "tilusLayoutCreateColumnLocal", "tilusLayoutCreateColumnSpatial"}
    called["compiler"].discard("tilusGetVersion")
    assert called["runtime"] <= set(_lib.RUNTIME_FUNCTIONS), \
        called["runtime"] - set(_lib.RUNTIME_FUNCTIONS)
    assert called["compiler"] <= set(_lib.COMPILER_FUNCTIONS), \
        called["compiler"] - set(_lib.COMPILER_FUNCTIONS)
    lib = _lib.runtime_lib()
    for name, (restype, argtypes) in _lib.RUNTIME_FUNCTIONS.items():
        fn = getattr(lib, name)
        assert fn.argtypes == argtypes, name
        assert fn.restype == restype, name


@requires_compiler
def test_compiler_functions_exist_and_are_declared():
    lib = _lib.compiler_lib()
    for name, (restype, argtypes) in _lib.COMPILER_FUNCTIONS.items():
        fn = getattr(lib, name)
        assert fn.argtypes == argtypes, name
        assert fn.restype == restype, name
