"""Fixtures of the Python tests (scripts/pytest.sh runs them; docs/python.md).

Environment:
  TILUS_LIBRARY_DIR   where libTilus.so / libTilusRuntime.so are (else the
                      package's own search: build/lib/Shared of this checkout)
  TILUS_BUILD_DIR     the build tree (default <repo>/build): the fake driver
                      is <build>/python-bindings/libtilus-fake-cuda.so
  TILUS_FAKE_DRIVER   another fake libcuda (else the build's, else compiled
                      here with cc)
  TILUS_TEST_ARTIFACT_DIR  precompiled artifacts for runtime-only machines
                      (tests/make_artifacts.py writes them)
"""

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

import tilus  # noqa: E402
from tilus import _lib  # noqa: E402


def build_dir():
    return Path(os.environ.get("TILUS_BUILD_DIR") or REPO / "build")


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    """Every test session compiles into a cache of its own."""
    old = os.environ.get("TILUS_CACHE_DIR")
    os.environ["TILUS_CACHE_DIR"] = str(tmp_path_factory.mktemp("tilus-cache"))
    yield
    if old is None:
        os.environ.pop("TILUS_CACHE_DIR", None)
    else:
        os.environ["TILUS_CACHE_DIR"] = old


requires_compiler = pytest.mark.skipif(not _lib.has_compiler(),
                                       reason="runtime-only mode: libTilus.so is not available")


class FakeDriver:
    """The recording fake libcuda, opened by path (the runtime's dlopen of the
    same path shares its state)."""

    def __init__(self, path):
        self.path = str(path)
        self.lib = ctypes.CDLL(self.path)
        self.lib.fakeReset.restype = None
        self.lib.fakeReset.argtypes = []
        self.lib.fakeSetComputeCapability.restype = None
        self.lib.fakeSetComputeCapability.argtypes = [ctypes.c_int, ctypes.c_int]
        self.lib.fakeSetLaunchResult.restype = None
        self.lib.fakeSetLaunchResult.argtypes = [ctypes.c_int]
        self.lib.fakeSetParamSizes.restype = None
        self.lib.fakeSetParamSizes.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int)]

    def _var(self, name, ctype):
        return ctype.in_dll(self.lib, name)

    def reset(self):
        self.lib.fakeReset()

    def set_param_sizes(self, sizes):
        self.lib.fakeSetParamSizes(len(sizes), (ctypes.c_int * max(len(sizes), 1))(*sizes))

    @property
    def launch_count(self):
        return self._var("fakeLaunchCount", ctypes.c_int).value

    @property
    def module_loads(self):
        return self._var("fakeModuleLoads", ctypes.c_int).value

    @property
    def malloc_count(self):
        return self._var("fakeMallocCount", ctypes.c_int).value

    @property
    def grid(self):
        return tuple(self._var("fakeGrid", ctypes.c_uint * 3))

    @property
    def block(self):
        return tuple(self._var("fakeBlock", ctypes.c_uint * 3))

    @property
    def shared(self):
        return self._var("fakeShared", ctypes.c_uint).value

    @property
    def stream(self):
        return self._var("fakeStream", ctypes.c_void_p).value or 0

    def param_bytes(self, i, size):
        params = self._var("fakeParams", (ctypes.c_ubyte * 8) * 64)
        return bytes(params[i][:size])


def _fake_driver_path(tmp_path_factory):
    env = os.environ.get("TILUS_FAKE_DRIVER")
    if env:
        return env
    built = build_dir() / "python-bindings" / "libtilus-fake-cuda.so"
    if built.is_file():
        return built
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no fake CUDA driver: build the tree or set TILUS_FAKE_DRIVER")
    out = tmp_path_factory.mktemp("fake-cuda") / "libtilus-fake-cuda.so"
    subprocess.run([cc, "-std=c11", "-O1", "-shared", "-fPIC", str(HERE / "fake_libcuda.c"),
                    "-o", str(out)], check=True)
    return out


@pytest.fixture(scope="session")
def _fake_driver_session(tmp_path_factory):
    return FakeDriver(_fake_driver_path(tmp_path_factory))


@pytest.fixture
def fake_driver(_fake_driver_session):
    _fake_driver_session.reset()
    yield _fake_driver_session
    _fake_driver_session.reset()


@pytest.fixture
def fake_runtime(fake_driver):
    rt = tilus.Runtime(driver_library=fake_driver.path)
    yield rt
    rt.close()


def example(name):
    return REPO / "examples" / name


def artifact_for(source, target="sm_90a"):
    """The artifact of examples/<source> for `target`: compiled when libTilus.so
    is there, else read from $TILUS_TEST_ARTIFACT_DIR (runtime-only mode)."""
    if _lib.has_compiler():
        return tilus.compile(example(source), target=target)
    directory = os.environ.get("TILUS_TEST_ARTIFACT_DIR")
    stem = Path(source).stem
    if directory and (Path(directory) / f"{stem}.{target}.tilus").is_file():
        return tilus.Artifact.from_file(Path(directory) / f"{stem}.{target}.tilus")
    pytest.skip(f"runtime-only mode and no {stem}.{target}.tilus in $TILUS_TEST_ARTIFACT_DIR")


def cuda_torch():
    """torch with a CUDA device, or skip."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch


def fake_artifact(kernels, target="sm_90a"):
    """Artifact text of `kernels`: (name, manifest lines) pairs, with a PTX
    that declares each entry (the fake driver never reads it)."""
    lines = ["tilus-artifact 1", f"target {target}"]
    for name, body in kernels:
        lines.append(f"kernel {name}")
        lines += ["  " + b for b in body]
        lines.append("end")
    lines.append("ptx:")
    lines.append(".version 8.0")
    for name, _ in kernels:
        lines.append(f".visible .entry {name}()\n{{\n  ret;\n}}")
    return ("\n".join(lines) + "\n").encode()


# The register layout of examples/weight_pack_i6.mlir's (and the paper's
# Figure 2's) int6 weight tiles.
FIG2_LAYOUT = "local(2,1).column_spatial(4,8).local(2,1)"
