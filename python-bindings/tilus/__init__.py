"""Tilus-MLIR from Python: types, layouts, compilation, artifacts, the runtime
and weight packing, over libTilus.so and libTilusRuntime.so through ctypes
(docs/python.md).

The libraries load on first use (tilus._lib says where they are looked for).
Without libTilus.so the package runs in runtime-only mode: artifacts and the
runtime work; compile, layouts, float formats and weight packing raise
tilus.LibraryNotFoundError.

Modules: types, layout, compiler, artifact, runtime, weight_pack, torch_op
(torch.library custom operators; imports torch only when called), and the
kernel DSL tilus.lang (tilus.Kernel, tilus.pointer, tilus.cdiv), which builds
MLIR text for tilus.compile; nothing else depends on it.
"""

from ._version import __version__
from ._lib import LibraryNotFoundError, has_compiler
from .types import (DType, IntDType, FloatDType, float_, int_, uint_, dtype,
                    float16, bfloat16, float32, float64, boolean, index,
                    int2, int3, int4, int5, int6, int7, int8, int16, int32, int64,
                    uint1, uint2, uint3, uint4, uint5, uint6, uint7, uint8,
                    uint16, uint32, uint64)
from . import types as _types
from .layout import (Layout, LayoutError, local, spatial, column_local, column_spatial,
                     compose, reduce, swizzle, broadcast, transpose, mma_shared)
from .artifact import (Artifact, KernelInfo, Param, LaunchConfig, TilusRuntimeError,
                       TilusArgumentError)
from .compiler import (compile, compile_many, CompileError, Diagnostic, cache_dir,
                       clear_cache)
from .runtime import Runtime, LoadedKernel, DeviceArray
from .weight_pack import (weight_pack, weight_unpack, weight_packed_layout, compact_bits,
                          expand_bits)
from .torch_op import custom_op
from . import lang
# tilus.Kernel is the DSL's base class; the runtime's loaded kernel (what
# Runtime.kernel returns) is tilus.LoadedKernel (tilus.runtime.Kernel).
from .lang import Kernel, pointer, cdiv, DSLError

# float8_e4m3, float8_e5m2, float6_e3m2, float6_e2m3, float4_e2m1, ...: every
# format of 3 to 8 bits.
globals().update(_types._named_floats)


def version():
    """(package version, libTilusRuntime.so's tilusGetVersion(),
    libTilus.so's or None in runtime-only mode)."""
    from . import _lib
    rt = _lib.runtime_lib().tilusGetVersion().decode()
    comp = _lib.compiler_lib().tilusGetVersion().decode() if has_compiler() else None
    return __version__, rt, comp


__all__ = [n for n in dir() if not n.startswith("_")]
