"""Compiling Tilus programs (MLIR text) to artifacts through tilusCompile.

    artifact = tilus.compile("kernel.mlir", target="sm_90a")
    ptx = tilus.compile(text, ptx_only=True)          # the PTX text
    arts = tilus.compile_many([a, b, c], processes=4)

Results are cached on disk, in $TILUS_CACHE_DIR or else ~/.cache/tilus (under
$XDG_CACHE_HOME when set), keyed by the sha256 of the source, the target, the
options, tilusGetVersion() and the identity of the libTilus.so file loaded
(its path, size and modification time): a second compile of the same thing
reads the file and never calls tilusCompile. `cache=False` bypasses it.
"""

import ctypes
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import _lib
from .artifact import Artifact, TilusRuntimeError

__all__ = ["compile", "compile_many", "CompileError", "Diagnostic", "cache_dir", "clear_cache",
           "cache_key"]

TARGETS = ("sm_80", "sm_89", "sm_90", "sm_90a")


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic line of the compiler: `file:line:col: severity: message`.
    Lines of another form have file, line and col None and severity "error"."""
    file: Optional[str]
    line: Optional[int]
    col: Optional[int]
    severity: str
    message: str

    def __str__(self):
        if self.file is None:
            return self.message
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note|remark): (.*)$")


def parse_diagnostics(text):
    """The Diagnostics of compiler output lines."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _DIAG.match(line)
        if m:
            out.append(Diagnostic(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4),
                                  m.group(5)))
        elif out and line.startswith(" "):
            # A continuation (e.g. an op printed under its error): keep it with
            # the diagnostic it belongs to.
            d = out[-1]
            out[-1] = Diagnostic(d.file, d.line, d.col, d.severity, d.message + "\n" + line)
        else:
            out.append(Diagnostic(None, None, None, "error", line))
    return out


class CompileError(Exception):
    """tilusCompile failed. `.diagnostics` lists every Diagnostic; str() shows
    them all, one per line."""

    def __init__(self, diagnostics, source_name="-", target=None):
        self.diagnostics = list(diagnostics)
        self.source_name = source_name
        self.target = target
        lines = "\n".join(str(d) for d in self.diagnostics) or "(no diagnostic)"
        super().__init__(f"compiling {source_name} for {target} failed:\n{lines}")

    def __reduce__(self):
        return (type(self), (self.diagnostics, self.source_name, self.target))


def _read_source(source, source_name):
    """(text bytes, name) of a source given as text, bytes or a path."""
    if isinstance(source, os.PathLike):
        path = Path(source)
        return path.read_bytes(), source_name or str(path)
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), source_name or "-"
    if isinstance(source, str):
        looks_like_path = "\n" not in source and "{" not in source and (
            source.endswith(".mlir") or os.sep in source)
        if looks_like_path:
            path = Path(source)
            if not path.is_file():
                raise FileNotFoundError(f"no such Tilus source file: {source}")
            return path.read_bytes(), source_name or source
        return source.encode(), source_name or "-"
    raise TypeError(f"compile() takes MLIR text, bytes or a path, not {type(source).__name__}")


def cache_dir():
    """The cache directory (not created)."""
    env = os.environ.get("TILUS_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tilus"


def clear_cache():
    """Removes every cached result; returns how many files it removed."""
    root = cache_dir()
    removed = 0
    if root.is_dir():
        for p in root.glob("*/*"):
            if p.suffix in (".tilus", ".ptx", ".json"):
                p.unlink(missing_ok=True)
                removed += 1
    return removed


def _library_identity():
    path = _lib.compiler_path()
    st = os.stat(path)
    return {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def cache_key(text, target, ptx_only, source_name):
    """The sha256 hex key of one compilation (loads libTilus.so)."""
    lib = _lib.compiler_lib()
    fields = {
        "source": hashlib.sha256(text).hexdigest(),
        "target": target,
        "ptx_only": bool(ptx_only),
        "source_name": source_name,
        "version": lib.tilusGetVersion().decode(),
        "library": _library_identity(),
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _tilus_compile(text, target, ptx_only, source_name):
    """One call of tilusCompile: (ok, output bytes, diagnostics text). Tests
    replace it to count calls."""
    lib = _lib.compiler_lib()
    output, diags = [], []

    @_lib.MlirStringCallback
    def on_output(ref, _):
        output.append(ctypes.string_at(ref.data, ref.length) if ref.length else b"")

    @_lib.MlirStringCallback
    def on_diagnostic(ref, _):
        diags.append(ctypes.string_at(ref.data, ref.length) if ref.length else b"")

    buf = ctypes.create_string_buffer(text, len(text))
    ref = _lib.MlirStringRef(ctypes.cast(buf, ctypes.c_void_p), len(text))
    options = _lib.TilusCompileOptions(target.encode(), source_name.encode(), bool(ptx_only))
    result = lib.tilusCompile(ref, ctypes.byref(options), on_output, None, on_diagnostic, None)
    return bool(result.value), b"".join(output), b"".join(diags).decode(errors="replace")


def _write_atomically(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _compile_bytes(text, target, ptx_only, source_name, cache):
    """(output bytes, diagnostics) through the cache."""
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}': Tilus emits for {', '.join(TARGETS)}")
    entry = None
    if cache:
        key = cache_key(text, target, ptx_only, source_name)
        entry = cache_dir() / key[:2] / (key + (".ptx" if ptx_only else ".tilus"))
        try:
            data = entry.read_bytes()
            meta = entry.with_suffix(".json")
            diags = [Diagnostic(*d) for d in json.loads(meta.read_text())] \
                if meta.is_file() else []
            if not ptx_only:
                Artifact(data)  # a damaged entry is a miss
            return data, diags
        except (OSError, ValueError, TypeError, TilusRuntimeError):
            pass
    ok, data, log = _tilus_compile(text, target, ptx_only, source_name)
    diagnostics = parse_diagnostics(log)
    if not ok:
        raise CompileError(diagnostics, source_name, target)
    if entry is not None:
        try:
            if diagnostics:
                _write_atomically(entry.with_suffix(".json"), json.dumps(
                    [[d.file, d.line, d.col, d.severity, d.message] for d in diagnostics]).encode())
            _write_atomically(entry, data)
        except OSError:
            pass  # a read-only cache directory only costs the reuse
    return data, diagnostics


def compile(source, target="sm_90a", ptx_only=False, *, source_name=None, cache=True):
    """Compiles a Tilus program (MLIR text, bytes, or a path to a .mlir file)
    for `target` ("sm_80", "sm_89", "sm_90", "sm_90a"). Returns an Artifact,
    or with `ptx_only` the PTX text. Raises CompileError with the diagnostics;
    warnings of a successful compile are in the artifact's `.diagnostics`."""
    text, name = _read_source(source, source_name)
    data, diagnostics = _compile_bytes(text, target, ptx_only, name, cache)
    if ptx_only:
        return data.decode()
    return Artifact(data, diagnostics)


def _normalize(item, defaults):
    if isinstance(item, dict):
        kwargs = dict(defaults)
        kwargs.update(item)
        return kwargs
    kwargs = dict(defaults)
    kwargs["source"] = item
    return kwargs


def _compile_job(kwargs):
    """Runs in a worker: returns ("ok", bytes, diags) or ("error", exception)."""
    kwargs = dict(kwargs)
    source = kwargs.pop("source")
    try:
        if hasattr(source, "mlir"):         # a DSL kernel: traced here, in the worker
            source = source.mlir()
        text, name = _read_source(source, kwargs.pop("source_name", None))
        data, diags = _compile_bytes(text, kwargs.get("target", "sm_90a"),
                                     kwargs.get("ptx_only", False), name,
                                     kwargs.get("cache", True))
        return ("ok", data, diags)
    except Exception as e:  # noqa: BLE001 - handed back to the caller
        return ("error", e)


def compile_many(items, processes=None, *, target="sm_90a", ptx_only=False, cache=True,
                 return_exceptions=False):
    """Compiles several programs or configurations in parallel processes.

    `items`: sources (as for compile), tilus.Kernel objects (traced in the
    workers, so that tracing runs in parallel too; they must pickle, so their
    classes must be importable, not defined in `python -c` or a notebook) or
    dicts of compile()'s
    arguments ({"source": text, "target": "sm_80"}); the keyword arguments are their
    defaults. Returns the results in order. The first failure is raised
    after all are done, unless `return_exceptions`, which puts the
    exceptions in the list. `processes`: worker count (default: the CPU
    count; 1 compiles in this process). Workers are spawned, not forked: each
    imports the caller's main module, so a script that calls compile_many
    must do so under `if __name__ == "__main__":`. A worker that dies (that
    mistake, or a crash) raises RuntimeError here instead of hanging."""
    defaults = {"target": target, "ptx_only": ptx_only, "cache": cache}
    jobs = [_normalize(item, defaults) for item in items]
    if not jobs:
        return []
    n = min(processes or os.cpu_count() or 1, len(jobs))
    if n <= 1:
        outcomes = [_compile_job(j) for j in jobs]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool
        # An executor, not a Pool: a Pool replaces a worker that dies while
        # starting (the unguarded main module re-run in the child) forever.
        ctx = multiprocessing.get_context("spawn")
        try:
            with ProcessPoolExecutor(n, mp_context=ctx) as pool:
                outcomes = list(pool.map(_compile_job, jobs))
        except BrokenProcessPool as e:
            raise RuntimeError(
                "compile_many: a worker process died before its compile finished: a "
                "crash; a tilus.Kernel whose class the worker cannot import (defined in "
                "`python -c`, a notebook or under __main__'s guard); or a script that "
                "calls compile_many outside `if __name__ == \"__main__\":` (spawned "
                "workers import the main module first, so they run such a script "
                "again)") from e
    results = []
    for job, outcome in zip(jobs, outcomes):
        if outcome[0] == "error":
            if not return_exceptions:
                raise outcome[1]
            results.append(outcome[1])
        elif job.get("ptx_only"):
            results.append(outcome[1].decode())
        else:
            results.append(Artifact(outcome[1], outcome[2]))
    return results
