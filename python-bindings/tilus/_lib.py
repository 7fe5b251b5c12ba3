"""Finding and loading libTilus.so and libTilusRuntime.so through ctypes.

Every C function the package calls is declared here with its argtypes and
restype (none is left to ctypes' implicit int), on the library that exports
it:

- libTilusRuntime.so: artifacts, the runtime, tilusF16FromDouble, ...
- libTilus.so: tilusCompile, the layout algebra, float formats, weight packing.

Search order for a library (the first directory holding it wins):

1. $TILUS_LIBRARY_DIR (one directory, or several separated by os.pathsep);
2. the build tree of a source checkout: <repo>/build/lib/Shared, where the
   package is <repo>/python-bindings/tilus ($TILUS_BUILD_DIR names another
   build directory);
3. an install: <prefix>/lib, the package being installed at
   <prefix>/lib/python3/dist-packages/tilus;
4. the system loader (ldconfig, LD_LIBRARY_PATH): "libTilus.so.0".

Without libTilus.so (e.g. on a serving machine that only launches), the
package works in runtime-only mode: everything but compiling, layouts, float
formats and weight packing. Those raise `LibraryNotFoundError` on first use.
"""

import ctypes
import os
import threading
from pathlib import Path

from ._version import __version__

_SOVERSION = __version__.split(".")[0]


class LibraryNotFoundError(ImportError):
    """A Tilus shared library could not be found or loaded, or its version
    differs from the package's."""


# --- Plain C structs --------------------------------------------------------


class MlirStringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class MlirLogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


MlirStringCallback = ctypes.CFUNCTYPE(None, MlirStringRef, ctypes.c_void_p)


class TilusCompileOptions(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("sourceName", ctypes.c_char_p),
                ("ptxOnly", ctypes.c_bool)]


class TilusLayoutError(ctypes.Structure):
    _fields_ = [("message", ctypes.c_char * 256)]


class TilusFloatFormat(ctypes.Structure):
    _fields_ = [("exponentBits", ctypes.c_int), ("mantissaBits", ctypes.c_int)]


class TilusWeightPacking(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int64), ("cols", ctypes.c_int64),
                ("tileRows", ctypes.c_int64), ("tileCols", ctypes.c_int64),
                ("bits", ctypes.c_int), ("layout", ctypes.c_void_p)]


class TilusRuntimeErrorStruct(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("cudaResult", ctypes.c_int),
                ("message", ctypes.c_char * 512)]


class TilusParamInfo(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("bitWidth", ctypes.c_int),
                ("byteSize", ctypes.c_int), ("signedness", ctypes.c_int),
                ("typeName", ctypes.c_char_p), ("elementType", ctypes.c_char_p)]


class _ArgValue(ctypes.Union):
    _fields_ = [("pointer", ctypes.c_uint64), ("integer", ctypes.c_int64),
                ("real", ctypes.c_double), ("bits", ctypes.c_uint16)]


class TilusArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("value", _ArgValue)]


class TilusLaunchConfig(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_int), ("grid", ctypes.c_uint32 * 3),
                ("block", ctypes.c_uint32 * 3), ("sharedBytes", ctypes.c_uint32),
                ("workspaceBytes", ctypes.c_uint64)]


class TilusRuntimeOptions(ctypes.Structure):
    _fields_ = [("device", ctypes.c_int), ("driverLibrary", ctypes.c_char_p)]


# TilusArgKind
ARG_POINTER, ARG_INTEGER, ARG_FLOAT, ARG_F16_BITS, ARG_BF16_BITS = range(5)
# TilusParamKind
PARAM_POINTER, PARAM_INTEGER, PARAM_FLOAT = range(3)

_p = ctypes.c_void_p
_i64 = ctypes.c_int64
_i64p = ctypes.POINTER(ctypes.c_int64)
_LErr = ctypes.POINTER(TilusLayoutError)
_RErr = ctypes.POINTER(TilusRuntimeErrorStruct)
_Args = ctypes.POINTER(TilusArg)
_b = ctypes.c_bool
_i = ctypes.c_int
_s = ctypes.c_char_p

# name: (restype, argtypes)
RUNTIME_FUNCTIONS = {
    "tilusGetVersion": (_s, []),
    "tilusStatusGetName": (_s, [_i]),
    "tilusF16FromDouble": (ctypes.c_uint16, [ctypes.c_double]),
    "tilusBF16FromDouble": (ctypes.c_uint16, [ctypes.c_double]),
    "tilusArtifactParse": (_p, [_p, ctypes.c_size_t, _RErr]),
    "tilusArtifactLoadFile": (_p, [_s, _RErr]),
    "tilusArtifactDestroy": (None, [_p]),
    "tilusArtifactGetTarget": (_s, [_p]),
    "tilusArtifactGetImageKind": (_i, [_p]),
    "tilusArtifactGetImage": (_p, [_p, ctypes.POINTER(ctypes.c_size_t)]),
    "tilusArtifactGetNumKernels": (_i, [_p]),
    "tilusArtifactFindKernel": (_i, [_p, _s]),
    "tilusKernelGetName": (_s, [_p, _i]),
    "tilusKernelGetBlock": (None, [_p, _i, ctypes.POINTER(ctypes.c_uint32)]),
    "tilusKernelGetNumGridDims": (_i, [_p, _i]),
    "tilusKernelGetGridExpr": (_s, [_p, _i, _i]),
    "tilusKernelGetSharedBytes": (ctypes.c_uint32, [_p, _i]),
    "tilusKernelGetWorkspaceBytes": (ctypes.c_uint64, [_p, _i]),
    "tilusKernelGetNumParams": (_i, [_p, _i]),
    "tilusKernelGetParam": (TilusParamInfo, [_p, _i, _i]),
    "tilusArtifactCheckLaunch": (_i, [_p, _s, _Args, _i,
                                      ctypes.POINTER(TilusLaunchConfig), _RErr]),
    "tilusAffineExprEvaluate": (_i, [_s, _i64p, _i, _i64p, _RErr]),
    "tilusRuntimeCreateWithOptions": (_p, [ctypes.POINTER(TilusRuntimeOptions), _RErr]),
    "tilusRuntimeDestroy": (None, [_p]),
    "tilusRuntimeGetDeviceName": (_s, [_p]),
    "tilusRuntimeGetComputeCapability": (None, [_p, ctypes.POINTER(_i), ctypes.POINTER(_i)]),
    "tilusRuntimeGetDriverVersion": (_i, [_p]),
    "tilusRuntimeLoadArtifact": (_i, [_p, _p, _RErr]),
    "tilusRuntimeGetNumCachedModules": (_i, [_p]),
    "tilusRuntimeGetKernel": (_p, [_p, _p, _s, _RErr]),
    "tilusRuntimeLaunchKernel": (_i, [_p, _p, _Args, _i, _p, _RErr]),
    "tilusRuntimeLaunchKernelWithWorkspace": (_i, [_p, _p, _Args, _i, _p,
                                                   ctypes.c_uint64, ctypes.c_uint64,
                                                   _RErr]),
    "tilusLoadedKernelGetWorkspaceBytes": (ctypes.c_uint64, [_p]),
    "tilusRuntimeGetWorkspaceBytes": (ctypes.c_uint64, [_p]),
    "tilusRuntimeMalloc": (_i, [_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64), _RErr]),
    "tilusRuntimeFree": (_i, [_p, ctypes.c_uint64, _RErr]),
    "tilusRuntimeCopyToDevice": (_i, [_p, ctypes.c_uint64, _p, ctypes.c_size_t, _RErr]),
    "tilusRuntimeCopyToHost": (_i, [_p, _p, ctypes.c_uint64, ctypes.c_size_t, _RErr]),
    "tilusRuntimeMemset": (_i, [_p, ctypes.c_uint64, ctypes.c_uint8, ctypes.c_size_t, _RErr]),
    "tilusRuntimeSynchronize": (_i, [_p, _RErr]),
    "tilusRuntimeStreamCreate": (_i, [_p, ctypes.POINTER(_p), _RErr]),
    "tilusRuntimeStreamSynchronize": (_i, [_p, _p, _RErr]),
    "tilusRuntimeStreamDestroy": (_i, [_p, _p, _RErr]),
}

COMPILER_FUNCTIONS = {
    "tilusGetVersion": (_s, []),
    # Target.h
    "tilusCompile": (MlirLogicalResult, [MlirStringRef, ctypes.POINTER(TilusCompileOptions),
                                         MlirStringCallback, _p, MlirStringCallback, _p]),
    "tilusTargetIsSupported": (_b, [MlirStringRef]),
    # FloatFormat.h (structs of two ints pass by value)
    "tilusFloatFormatIsValid": (_b, [TilusFloatFormat]),
    "tilusFloatFormatGetBitWidth": (_i, [TilusFloatFormat]),
    "tilusFloatFormatGetBias": (_i, [TilusFloatFormat]),
    "tilusFloatFormatHasInfinity": (_b, [TilusFloatFormat]),
    "tilusFloatFormatHasNaN": (_b, [TilusFloatFormat]),
    "tilusFloatFormatDecode": (ctypes.c_double, [TilusFloatFormat, ctypes.c_uint32]),
    "tilusFloatFormatEncode": (ctypes.c_uint32, [TilusFloatFormat, ctypes.c_double]),
    # Layout.h
    "tilusLayoutCreateLocal": (_p, [_i64, _i64p, _LErr]),
    "tilusLayoutCreateSpatial": (_p, [_i64, _i64p, _LErr]),
    "tilusLayoutCreateColumnLocal": (_p, [_i64, _i64p, _LErr]),
    "tilusLayoutCreateColumnSpatial": (_p, [_i64, _i64p, _LErr]),
    "tilusLayoutClone": (_p, [_p]),
    "tilusLayoutDestroy": (None, [_p]),
    "tilusLayoutCompose": (_p, [_p, _p]),
    "tilusLayoutDivide": (_p, [_p, _p, _LErr]),
    "tilusLayoutBroadcast": (_p, [_p, _i64, _LErr]),
    "tilusLayoutReduce": (_p, [_p, _i64, _i64p, _LErr]),
    "tilusLayoutSwizzle": (_p, [_p, _i64, _i64, _LErr]),
    "tilusLayoutTranspose": (_p, [_p, _LErr]),
    "tilusLayoutCreateMmaShared": (_p, [_i64, _i64, _i64, _i64, ctypes.c_int, _LErr]),
    "tilusLayoutGetRank": (_i64, [_p]),
    "tilusLayoutGetDim": (_i64, [_p, _i64]),
    "tilusLayoutGetNumThreads": (_i64, [_p]),
    "tilusLayoutGetLocalSize": (_i64, [_p]),
    "tilusLayoutGetNumElements": (_i64, [_p]),
    "tilusLayoutEvaluate": (None, [_p, _i64, _i64, _i64p]),
    "tilusLayoutLocate": (_b, [_p, _i64p, _i64p, _i64p]),
    "tilusLayoutEqual": (_b, [_p, _p]),
    "tilusLayoutGetContiguity": (_i64, [_p]),
    "tilusLayoutIsDivisibleBy": (_b, [_p, _p]),
    # Returns malloc'ed memory: a void pointer, freed with libc's free.
    "tilusLayoutPrint": (_p, [_p]),
    "tilusLayoutParse": (_p, [_p, ctypes.c_size_t, _LErr]),
    # WeightPack.h
    "tilusWeightPackedSize": (ctypes.c_size_t, [ctypes.POINTER(TilusWeightPacking), _LErr]),
    "tilusWeightPackedLayout": (_p, [ctypes.POINTER(TilusWeightPacking), _LErr]),
    "tilusWeightPack": (_b, [ctypes.POINTER(TilusWeightPacking), _p, _p, _LErr]),
    "tilusWeightUnpack": (_b, [ctypes.POINTER(TilusWeightPacking), _p, _p, _LErr]),
    # Ops.h: the op schema (a constant table; tilus.lang reads it)
    "tilusOpSchemaGetNumOps": (ctypes.c_ssize_t, []),
    "tilusOpSchemaGetAt": (_p, [ctypes.c_ssize_t]),
}


def _package_dir():
    return Path(__file__).resolve().parent


def search_dirs():
    """The directories searched for the libraries, in order."""
    dirs = []
    env = os.environ.get("TILUS_LIBRARY_DIR")
    if env:
        dirs += [Path(d) for d in env.split(os.pathsep) if d]
    pkg = _package_dir()
    repo = pkg.parent.parent
    if (repo / "python-bindings").is_dir() and pkg.parent.name == "python-bindings":
        build = os.environ.get("TILUS_BUILD_DIR")
        dirs.append(Path(build) / "lib" / "Shared" if build else repo / "build" / "lib" / "Shared")
    # <prefix>/lib/python3/dist-packages/tilus -> <prefix>/lib
    if pkg.parent.name in ("dist-packages", "site-packages") and len(pkg.parents) >= 3:
        dirs.append(pkg.parents[2])
    return dirs


def find_library(stem):
    """The path of lib<stem>.so found by the search (or the bare soname for
    the system loader) and the list of places tried."""
    names = [f"lib{stem}.so.{_SOVERSION}", f"lib{stem}.so"]
    tried = []
    for d in search_dirs():
        for n in names:
            candidate = d / n
            tried.append(str(candidate))
            if candidate.is_file():
                return str(candidate), tried
    tried.append(f"{names[0]} (system loader)")
    return names[0], tried


def _declare(lib, functions):
    for name, (restype, argtypes) in functions.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


class _Loaded:
    def __init__(self, stem, functions):
        self.stem = stem
        self.functions = functions
        self.lock = threading.Lock()
        self.lib = None
        self.path = None
        self.error = None

    def get(self):
        if self.lib is not None:
            return self.lib
        with self.lock:
            if self.lib is not None:
                return self.lib
            if self.error is not None:
                raise LibraryNotFoundError(self.error)
            path, tried = find_library(self.stem)
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                self.error = (f"cannot load lib{self.stem}.so (tried {', '.join(tried)}): {e}; "
                              f"set TILUS_LIBRARY_DIR to the directory that holds it")
                raise LibraryNotFoundError(self.error) from None
            try:
                _declare(lib, self.functions)
            except AttributeError as e:
                self.error = f"{path} is not a Tilus library of this version: {e}"
                raise LibraryNotFoundError(self.error) from None
            version = lib.tilusGetVersion().decode()
            if version != __version__ and not os.environ.get("TILUS_SKIP_VERSION_CHECK"):
                self.error = (f"{path} is Tilus {version}, but the Python package is "
                              f"{__version__}; point TILUS_LIBRARY_DIR at a matching build")
                raise LibraryNotFoundError(self.error)
            # The resolved file, for the compile cache's key.
            try:
                self.path = _loaded_path(lib, path)
            except OSError:
                self.path = path
            self.lib = lib
            return lib


def _loaded_path(lib, fallback):
    """The file the dynamic loader actually mapped for `lib` (dladdr on one of
    its symbols), so that a library found by the system loader has a path."""
    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
    libc = ctypes.CDLL(None)
    dladdr = libc.dladdr
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    dladdr.restype = ctypes.c_int
    info = DlInfo()
    address = ctypes.cast(lib.tilusGetVersion, ctypes.c_void_p).value
    if dladdr(address, ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(info.dli_fname.decode())
    return os.path.realpath(fallback)


_runtime = _Loaded("TilusRuntime", RUNTIME_FUNCTIONS)
_compiler = _Loaded("Tilus", COMPILER_FUNCTIONS)


def runtime_lib():
    """libTilusRuntime.so, loaded on first use."""
    return _runtime.get()


def compiler_lib():
    """libTilus.so, loaded on first use; raises LibraryNotFoundError in
    runtime-only mode."""
    return _compiler.get()


def compiler_path():
    compiler_lib()
    return _compiler.path


def runtime_path():
    runtime_lib()
    return _runtime.path


def has_compiler():
    """Whether libTilus.so can be loaded (False: runtime-only mode)."""
    try:
        compiler_lib()
        return True
    except LibraryNotFoundError:
        return False


_libc = None


def libc_free(pointer):
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None)
        _libc.free.argtypes = [ctypes.c_void_p]
        _libc.free.restype = None
    _libc.free(pointer)
