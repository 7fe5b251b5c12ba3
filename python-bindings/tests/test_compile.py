"""tilus.compile, its diagnostics, the on-disk cache and compile_many."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tilus
from tilus import compiler

from conftest import REPO, build_dir, example, requires_compiler

pytestmark = requires_compiler

AXPY = example("tutorial/axpy.mlir")
TILUS_OPT = build_dir() / "tools" / "tilus-opt" / "tilus-opt"

BROKEN = """func.func @k(%x: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64,
    tilus.grid = affine_map<()[s0] -> (1)>} {
  %a = "tilus.nonsense"() : () -> index
  %b = "tilus.block_indices"(%x) : (!tilus.ptr<f32>) -> index
  return
}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILUS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def count_calls(monkeypatch):
    calls = []
    real = compiler._tilus_compile

    def counting(*args):
        calls.append(args[1:])
        return real(*args)
    monkeypatch.setattr(compiler, "_tilus_compile", counting)
    return calls


def tilus_opt(source, *flags):
    if not TILUS_OPT.is_file():
        pytest.skip("no tilus-opt in the build tree")
    return subprocess.run([str(TILUS_OPT), str(source), "--lower-to-nvvm", *flags, "-o", "-"],
                          check=True, capture_output=True).stdout


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
def test_artifact_equals_tilus_opt(target, cache):
    a = tilus.compile(AXPY, target=target)
    assert a.data == tilus_opt(AXPY, "--emit-artifact", f"--target={target}")
    assert a.target == target
    k = a.kernels[0]
    assert k.name == "axpy" and k.block == (128, 1, 1) and k.grid == ("s3 ceildiv 512",)
    assert [p.describe() for p in k.params] == ["ptr f32", "ptr f32", "f32", "i32"]
    assert k.params[0].dtype == tilus.float32


def test_text_path_and_ptx_only(cache):
    text = AXPY.read_text()
    assert tilus.compile(text).data == tilus.compile(str(AXPY)).data == tilus.compile(AXPY).data
    ptx = tilus.compile(AXPY, target="sm_80", ptx_only=True)
    assert isinstance(ptx, str) and ".entry axpy" in ptx
    assert ptx.encode() == tilus_opt(AXPY, "--emit-ptx", "--target=sm_80")
    with pytest.raises(FileNotFoundError):
        tilus.compile("no/such/kernel.mlir")
    with pytest.raises(ValueError, match="unknown target 'sm_70'"):
        tilus.compile(AXPY, target="sm_70")


def test_compile_error_has_every_diagnostic(cache):
    with pytest.raises(tilus.CompileError) as info:
        tilus.compile(BROKEN, source_name="broken.mlir")
    e = info.value
    assert e.diagnostics, str(e)
    d = e.diagnostics[0]
    assert (d.file, d.line, d.severity) == ("broken.mlir", 3, "error")
    assert d.col > 0 and "nonsense" in d.message
    assert all(str(x) in str(e) for x in e.diagnostics)
    assert str(e).startswith("compiling broken.mlir for sm_90a failed:")


def test_verifier_errors_are_parsed(cache):
    text = AXPY.read_text().replace("tilus.block_size = 128", "tilus.block_size = 100")
    with pytest.raises(tilus.CompileError) as info:
        tilus.compile(text, source_name="axpy100.mlir")
    diags = info.value.diagnostics
    assert any(d.file == "axpy100.mlir" and d.line and d.severity == "error" for d in diags)


def test_parse_diagnostics():
    diags = compiler.parse_diagnostics(
        "k.mlir:3:7: error: bad op\n  continued\nk.mlir:4:1: note: see here\nplain line\n")
    assert diags[0] == compiler.Diagnostic("k.mlir", 3, 7, "error", "bad op\n  continued")
    assert diags[1].severity == "note" and diags[1].line == 4
    assert diags[2] == compiler.Diagnostic(None, None, None, "error", "plain line")


def test_second_compile_reads_the_cache(cache, count_calls):
    first = tilus.compile(AXPY, target="sm_80")
    assert len(count_calls) == 1
    files = list(cache.glob("*/*.tilus"))
    assert len(files) == 1 and files[0].read_bytes() == first.data
    second = tilus.compile(AXPY, target="sm_80")
    assert len(count_calls) == 1          # no tilusCompile: read from disk
    assert second.data == first.data
    # Another target, ptx_only or source is another key.
    tilus.compile(AXPY, target="sm_90a")
    tilus.compile(AXPY, target="sm_80", ptx_only=True)
    tilus.compile(AXPY.read_text() + "\n// changed\n", target="sm_80")
    assert len(count_calls) == 4
    tilus.compile(AXPY, target="sm_80", cache=False)
    assert len(count_calls) == 5
    # A corrupt entry is compiled again (and rewritten).
    files[0].write_bytes(b"garbage")
    assert tilus.compile(AXPY, target="sm_80").data == first.data
    assert len(count_calls) == 6
    assert files[0].read_bytes() == first.data
    assert tilus.clear_cache() >= 4
    assert not list(cache.glob("*/*.tilus"))


def test_cache_key_depends_on_the_library(cache, monkeypatch):
    text = AXPY.read_bytes()
    key = compiler.cache_key(text, "sm_90a", False, "-")
    assert key == compiler.cache_key(text, "sm_90a", False, "-")
    assert key != compiler.cache_key(text, "sm_90", False, "-")
    real = compiler._library_identity
    monkeypatch.setattr(compiler, "_library_identity",
                        lambda: dict(real(), mtime_ns=real()["mtime_ns"] + 1))
    assert key != compiler.cache_key(text, "sm_90a", False, "-")


def test_failures_are_not_cached(cache, count_calls):
    for _ in range(2):
        with pytest.raises(tilus.CompileError):
            tilus.compile(BROKEN)
    assert len(count_calls) == 2


def test_compile_many_in_processes(cache):
    items = [AXPY, {"source": AXPY, "target": "sm_80"},
             {"source": example("matmul_naive_f16.mlir"), "target": "sm_89"},
             {"source": AXPY, "ptx_only": True}]
    results = tilus.compile_many(items, processes=2)
    assert results[0].data == tilus.compile(AXPY).data
    assert results[1].target == "sm_80"
    assert results[2].target == "sm_89" and results[2].kernels[0].name == "matmul"
    assert isinstance(results[3], str) and ".entry axpy" in results[3]
    # The workers wrote the cache.
    assert len(list(cache.glob("*/*"))) >= 4


def test_compile_many_traces_kernels_in_the_workers(cache):
    """DSL kernels are traced in the worker processes: the artifacts are those
    of their traced sources, in order, and a tracing error comes back as one."""
    from tilus.ops import qmatmul
    kernels = [qmatmul.QuantizedMatmul(tilus.uint4, offset=8, warps=w, n_tiles=2, stages=3)
               for w in (2, 7)]
    results = tilus.compile_many(kernels, processes=2)
    assert [r.data for r in results] == [tilus.compile(k.mlir()).data for k in kernels]
    bad = qmatmul.QuantizedMatmul(tilus.uint4, offset=8, warps=4, n_tiles=8, stages=8,
                                  k_tiles=2)          # 2 x 150 KiB of shared memory
    out = tilus.compile_many([bad, kernels[0]], processes=2, return_exceptions=True)
    assert isinstance(out[0], tilus.CompileError) and "shared memory" in str(out[0])
    assert out[1].data == results[0].data


def test_compile_many_errors(cache):
    with pytest.raises(tilus.CompileError) as info:
        tilus.compile_many([AXPY, {"source": BROKEN, "source_name": "b.mlir"}], processes=2)
    assert info.value.diagnostics[0].file == "b.mlir"
    out = tilus.compile_many([BROKEN, AXPY], processes=1, return_exceptions=True)
    assert isinstance(out[0], tilus.CompileError) and isinstance(out[1], tilus.Artifact)
    assert tilus.compile_many([]) == []


def test_compile_many_unguarded_script_fails_instead_of_hanging(cache, tmp_path):
    """A script calling compile_many without the __main__ guard makes each
    spawned worker re-run it and die while starting; the call must raise a
    RuntimeError that says so, not wait for workers forever."""
    script = tmp_path / "unguarded.py"
    script.write_text("import sys\nimport tilus\n"
                      f"tilus.compile_many([open({str(AXPY)!r}).read()] * 2, processes=2)\n"
                      "print('compiled')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO / "python-bindings"), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode != 0 and "compiled" not in run.stdout
    # The error's line (multiprocessing's resource tracker may warn after it).
    error = [ln for ln in run.stderr.splitlines() if ln.startswith("RuntimeError:")]
    assert error and "__name__ == \"__main__\"" in error[-1], run.stderr


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TILUS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tilus.cache_dir() == tmp_path / "tilus"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tilus.cache_dir() == tmp_path / "home" / ".cache" / "tilus"
