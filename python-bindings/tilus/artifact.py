"""Kernel artifacts (docs/artifact.md) read through libTilusRuntime.so.

No GPU is needed: `Artifact.from_bytes` / `from_file` parse the manifest, the
`kernels` describe every kernel, and `check_launch` runs the runtime's
pre-launch checks (argument kinds and ranges, grid evaluation).
"""

import ctypes
import os
from dataclasses import dataclass
from typing import Optional, Tuple

from . import _lib
from .types import DType, dtype as _dtype

__all__ = ["Artifact", "KernelInfo", "Param", "TilusRuntimeError", "LaunchConfig"]

STATUS_NAMES = [
    "TilusStatusSuccess", "TilusStatusInvalidArgument", "TilusStatusIOError",
    "TilusStatusParseError", "TilusStatusNoSuchKernel", "TilusStatusArgumentMismatch",
    "TilusStatusGridError", "TilusStatusUnsupported", "TilusStatusDriverNotFound",
    "TilusStatusNoDevice", "TilusStatusCudaError", "TilusStatusOutOfMemory",
]


class TilusRuntimeError(RuntimeError):
    """A runtime call failed. `.status` is the status name
    ("TilusStatusArgumentMismatch"), `.code` its number, `.message` the
    runtime's one-line message, `.cuda_result` the driver's CUresult for
    TilusStatusCudaError (else 0)."""

    def __init__(self, status, message, code=None, cuda_result=0):
        self.status = status
        self.message = message
        self.code = STATUS_NAMES.index(status) if code is None and status in STATUS_NAMES else code
        self.cuda_result = cuda_result
        super().__init__(f"{status}: {message}")

    def __reduce__(self):
        return (type(self), (self.status, self.message, self.code, self.cuda_result))


class TilusArgumentError(TilusRuntimeError, TypeError):
    """An argument the Python side refuses before calling the runtime (a
    tensor of the wrong dtype, device or strides): status
    TilusStatusArgumentMismatch, as the runtime's own argument checks."""

    def __init__(self, message):
        super().__init__("TilusStatusArgumentMismatch", message)

    def __reduce__(self):
        return (type(self), (self.message,))


def raise_for(code, err):
    """Raises the TilusRuntimeError of a failed call's status and error struct."""
    if code == 0:
        return
    lib = _lib.runtime_lib()
    name = lib.tilusStatusGetName(code)
    name = name.decode() if name else f"TilusStatus{code}"
    raise TilusRuntimeError(name, err.message.decode(errors="replace"), code, err.cudaResult)


@dataclass(frozen=True)
class Param:
    """One kernel parameter, from the artifact's `param` line."""
    index: int
    kind: str                     # "pointer", "integer" or "float"
    type_name: str                # "ptr", "i32", "bf16", ...
    element_type: Optional[str]   # for pointers, the element type's spelling ("f16")
    bits: int
    byte_size: int
    signed: Optional[bool]        # integers: True (si), False (ui), None (signless)

    @property
    def dtype(self) -> Optional[DType]:
        """The DType of the value (scalars) or of the elements (pointers)."""
        spelling = self.element_type if self.kind == "pointer" else self.type_name
        try:
            return _dtype(spelling)
        except ValueError:
            return None

    def describe(self):
        return f"ptr {self.element_type}" if self.kind == "pointer" else self.type_name


@dataclass(frozen=True)
class KernelInfo:
    """What an artifact says about one kernel."""
    index: int
    name: str
    block: Tuple[int, int, int]
    grid: Tuple[str, ...]         # the grid's affine expressions, as written
    shared_bytes: int
    workspace_bytes: int
    params: Tuple[Param, ...]


@dataclass(frozen=True)
class LaunchConfig:
    kernel: int
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    shared_bytes: int
    workspace_bytes: int


def _str(p):
    return p.decode() if p else ""


class Artifact:
    """A parsed kernel artifact. `.data` holds its bytes."""

    def __init__(self, data, diagnostics=()):
        if isinstance(data, str):
            data = data.encode()
        self.data = bytes(data)
        self.diagnostics = list(diagnostics)
        lib = _lib.runtime_lib()
        err = _lib.TilusRuntimeErrorStruct()
        buf = ctypes.create_string_buffer(self.data, len(self.data))
        ptr = lib.tilusArtifactParse(buf, len(self.data), ctypes.byref(err))
        if not ptr:
            raise_for(err.code or 3, err)
        self._ptr = ctypes.c_void_p(ptr)
        self._destroy = lib.tilusArtifactDestroy
        self._kernels = None

    @classmethod
    def from_bytes(cls, data):
        return cls(data)

    @classmethod
    def from_file(cls, path):
        with open(os.fspath(path), "rb") as f:
            return cls(f.read())

    def save(self, path):
        with open(os.fspath(path), "wb") as f:
            f.write(self.data)

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._destroy(ptr)
            self._ptr = None

    @property
    def _as_parameter_(self):
        return self._ptr

    def __reduce__(self):
        return (Artifact, (self.data, self.diagnostics))

    @property
    def target(self):
        return _str(_lib.runtime_lib().tilusArtifactGetTarget(self))

    @property
    def image_kind(self):
        return "cubin" if _lib.runtime_lib().tilusArtifactGetImageKind(self) == 1 else "ptx"

    @property
    def image(self):
        """The module image: PTX text (str) or cubin bytes."""
        size = ctypes.c_size_t()
        p = _lib.runtime_lib().tilusArtifactGetImage(self, ctypes.byref(size))
        raw = ctypes.string_at(p, size.value)
        return raw.decode() if self.image_kind == "ptx" else raw

    @property
    def kernels(self):
        if self._kernels is None:
            lib = _lib.runtime_lib()
            kernels = []
            for k in range(lib.tilusArtifactGetNumKernels(self)):
                block = (ctypes.c_uint32 * 3)()
                lib.tilusKernelGetBlock(self, k, block)
                grid = tuple(_str(lib.tilusKernelGetGridExpr(self, k, d))
                             for d in range(lib.tilusKernelGetNumGridDims(self, k)))
                params = []
                for j in range(lib.tilusKernelGetNumParams(self, k)):
                    info = lib.tilusKernelGetParam(self, k, j)
                    kind = {0: "pointer", 1: "integer", 2: "float"}[info.kind]
                    params.append(Param(
                        index=j, kind=kind, type_name=_str(info.typeName),
                        element_type=_str(info.elementType) if kind == "pointer" else None,
                        bits=info.bitWidth, byte_size=info.byteSize,
                        signed=({0: None, 1: True, 2: False}[info.signedness]
                                if kind == "integer" else None)))
                kernels.append(KernelInfo(
                    index=k, name=_str(lib.tilusKernelGetName(self, k)), block=tuple(block),
                    grid=grid, shared_bytes=int(lib.tilusKernelGetSharedBytes(self, k)),
                    workspace_bytes=int(lib.tilusKernelGetWorkspaceBytes(self, k)),
                    params=tuple(params)))
            self._kernels = tuple(kernels)
        return self._kernels

    def kernel_info(self, name):
        for k in self.kernels:
            if k.name == name:
                return k
        names = ", ".join(k.name for k in self.kernels)
        raise TilusRuntimeError("TilusStatusNoSuchKernel",
                                f"the artifact has no kernel '{name}' (it has: {names})")

    def check_launch(self, name, *args):
        """The runtime's checks of a launch of `name` with `args` (ints,
        floats, and pointers as ints or tensors), with no GPU: the grid,
        block and memory the launch would use, or TilusRuntimeError."""
        from .runtime import _convert_args
        info = self.kernel_info(name)
        c_args, _ = _convert_args(info, args, device=None)
        config = _lib.TilusLaunchConfig()
        err = _lib.TilusRuntimeErrorStruct()
        code = _lib.runtime_lib().tilusArtifactCheckLaunch(
            self, name.encode(), c_args, len(args), ctypes.byref(config), ctypes.byref(err))
        raise_for(code, err)
        return LaunchConfig(config.kernel, tuple(config.grid), tuple(config.block),
                            config.sharedBytes, config.workspaceBytes)

    def __repr__(self):
        names = ", ".join(k.name for k in self.kernels)
        return f"<tilus.Artifact {self.target} [{names}]>"


def evaluate_grid_expr(text, symbols):
    """Evaluates one grid expression with s<k> = symbols[k]."""
    lib = _lib.runtime_lib()
    syms = (ctypes.c_int64 * max(len(symbols), 1))(*[int(s) for s in symbols])
    result = ctypes.c_int64()
    err = _lib.TilusRuntimeErrorStruct()
    raise_for(lib.tilusAffineExprEvaluate(text.encode(), syms, len(symbols),
                                          ctypes.byref(result), ctypes.byref(err)), err)
    return result.value
