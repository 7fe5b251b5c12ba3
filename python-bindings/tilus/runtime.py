"""Loading and launching kernels through libTilusRuntime.so (docs/runtime.md).

    rt = tilus.Runtime()                       # device 0, libcuda.so.1
    k = rt.kernel(artifact, "axpy")            # loads (JIT) once
    k(x, y, 2.0, n)                            # torch tensors, ints, floats

Arguments, per kernel parameter:

- pointer (`ptr DTYPE`): a torch tensor (on the runtime's CUDA device,
  contiguous, of a dtype that matches DTYPE: float16 for f16, bfloat16 for
  bf16, float32 for f32, int8/uint8 for packed sub-byte weights, ...), an
  object with `__cuda_array_interface__` or `__dlpack__` (checked the same
  way), or an int
  (the device address, unchecked; 0 is refused by the runtime).
- integer: a Python or numpy integer (range checked by the runtime).
- float: a Python or numpy number; numpy.float16 values pass their exact bits
  to f16 parameters.

`stream=None` launches on torch's current stream when torch is imported and a
tensor argument lives on CUDA, else on the legacy default stream; a stream can
be an int (a CUstream), a torch.cuda.Stream, or anything with `.cuda_stream`.
"""

import ctypes
import operator
import struct
import sys
import threading

from . import _lib
from .artifact import (Artifact, TilusArgumentError, TilusRuntimeError, raise_for)

__all__ = ["Runtime", "Kernel", "LoadedKernel", "DeviceArray"]


# --- argument conversion -----------------------------------------------------

# torch dtype name -> artifact element types it may be passed for.
def _is_subbyte(element_type):
    from .types import dtype
    try:
        return dtype(element_type).bits < 8
    except ValueError:
        return False


_TORCH_ACCEPTS = {
    "float16": {"f16"}, "bfloat16": {"bf16"}, "float32": {"f32"}, "float64": {"f64"},
    "int8": {"i8", "si8"}, "uint8": {"ui8", "i8"},
    "int16": {"i16", "si16"}, "uint16": {"ui16", "i16"},
    "int32": {"i32", "si32"}, "uint32": {"ui32", "i32"},
    "int64": {"i64", "si64", "index"}, "uint64": {"ui64", "i64", "index"},
    "float8_e4m3fn": {"float8_e4m3"}, "float8_e5m2": {"float8_e5m2"},
}
# Byte-sized containers of packed sub-byte elements (docs/types.md, Storage).
_PACKED_CONTAINERS = {"int8", "uint8"}

# __cuda_array_interface__ typestr (without the byte order) -> torch-like name
_TYPESTR = {"f2": "float16", "f4": "float32", "f8": "float64", "i1": "int8", "u1": "uint8",
            "i2": "int16", "u2": "uint16", "i4": "int32", "u4": "uint32", "i8": "int64",
            "u8": "uint64", "V2": "bfloat16"}


def _accepts(container, element_type):
    if element_type in _TORCH_ACCEPTS.get(container, ()):
        return True
    return container in _PACKED_CONTAINERS and _is_subbyte(element_type)


def _is_torch_tensor(x):
    t = type(x)
    return t.__module__.startswith("torch") and hasattr(x, "data_ptr") and hasattr(x, "dtype")


def _describe(kernel_name, param, what):
    return (f"argument {param.index} of kernel '{kernel_name}' is {what}, but parameter "
            f"{param.index} has type '{param.describe()}'")


def _tensor_pointer(info, param, x, device):
    name = str(x.dtype).replace("torch.", "")
    if not x.is_cuda:
        raise TilusArgumentError(_describe(info.name, param, f"a torch.{name} tensor on {x.device}")
                                 + "; pass a CUDA tensor")
    if device is not None and x.device.index != device:
        raise TilusArgumentError(_describe(info.name, param, f"a tensor on {x.device}")
                                 + f"; the runtime is on cuda:{device}")
    if not x.is_contiguous():
        raise TilusArgumentError(_describe(info.name, param,
                                           f"a non-contiguous tensor (strides {tuple(x.stride())})")
                                 + "; pass a contiguous one (.contiguous())")
    if not _accepts(name, param.element_type):
        raise TilusArgumentError(_describe(info.name, param, f"a torch.{name} tensor"))
    return x.data_ptr()


def _interface_pointer(info, param, x):
    cai = x.__cuda_array_interface__
    data = cai.get("data")
    ptr = int(data[0]) if data else 0
    typestr = cai.get("typestr", "")
    name = _TYPESTR.get(typestr[1:])
    if name is None or not _accepts(name, param.element_type):
        raise TilusArgumentError(_describe(info.name, param,
                                           f"an array of typestr '{typestr}'"))
    strides = cai.get("strides")
    if strides is not None:
        shape = cai.get("shape", ())
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
        expected, step = [], itemsize
        for n in reversed(shape):
            expected.append(step)
            step *= n
        expected.reverse()
        if any(n > 1 and s != e for n, s, e in zip(shape, strides, expected)):
            raise TilusArgumentError(_describe(info.name, param,
                                               f"a non-contiguous array (strides {tuple(strides)})"))
    return ptr


# DLPack (dlpack.h, v0.8 and later; the layout of DLTensor is stable): the
# tensor is only borrowed for the launch, so the capsule stays unconsumed and
# its deleter runs when it is collected.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA = 2
_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat"}


def _dlpack_pointer(info, param, x, device, stream=None):
    """The device address of an object with __dlpack__, checked like a torch
    tensor: on CUDA (on the runtime's device), contiguous, of a dtype the
    parameter accepts."""
    def check_device(kind, ordinal):
        if kind != _DL_CUDA or (device is not None and ordinal != device):
            raise TilusArgumentError(
                _describe(info.name, param, f"a DLPack tensor on device ({kind}, {ordinal})")
                + "; pass one on CUDA" + ("" if device is None else f" device {device}")
                + " (DLPack device type 2)")

    # Asked before the capsule is made, where the producer says.
    if hasattr(x, "__dlpack_device__"):
        check_device(*(int(v) for v in x.__dlpack_device__()))
    # The consumer's stream (DLPack: 1 is CUDA's legacy default stream), so
    # that the producer orders its pending work before the launch.
    try:
        capsule = x.__dlpack__(stream=stream if stream else 1)
    except (TypeError, ValueError, BufferError):   # a producer without the keyword
        capsule = x.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    # DLManagedTensor begins with its DLTensor.
    t = _DLTensor.from_address(get(capsule, b"dltensor"))
    check_device(t.device.device_type, t.device.device_id)
    code = _DL_CODES.get(t.dtype.code)
    name = f"{code}{t.dtype.bits}" if code and t.dtype.lanes == 1 else None   # "bfloat16"
    if name is None or not _accepts(name, param.element_type):
        raise TilusArgumentError(_describe(info.name, param, "a DLPack tensor of type "
                                           f"(code {t.dtype.code}, {t.dtype.bits} bits, "
                                           f"{t.dtype.lanes} lanes)"))
    if t.strides:
        step = 1
        for d in reversed(range(t.ndim)):
            if t.shape[d] > 1 and t.strides[d] != step:
                strides = tuple(t.strides[i] for i in range(t.ndim))
                raise TilusArgumentError(_describe(info.name, param,
                                                   f"a non-contiguous DLPack tensor "
                                                   f"(strides {strides} elements)"))
            step *= t.shape[d]
    return (t.data or 0) + t.byte_offset


def _pointer_value(info, param, x, device, stream=None):
    if _is_torch_tensor(x):
        return _tensor_pointer(info, param, x, device), x.is_cuda
    if hasattr(x, "__cuda_array_interface__"):
        return _interface_pointer(info, param, x), False
    if hasattr(x, "__dlpack__"):
        return _dlpack_pointer(info, param, x, device, stream), False
    if isinstance(x, bool):
        raise TilusArgumentError(_describe(info.name, param, "a bool"))
    try:
        value = operator.index(x)
    except TypeError:
        raise TilusArgumentError(_describe(info.name, param, f"a {type(x).__name__}")) from None
    if value < 0 or value >= 1 << 64:
        raise TilusArgumentError(_describe(info.name, param, f"{value}, not a 64-bit address"))
    return value, False


def _convert_args(info, args, device, stream=None):
    """ctypes TilusArg array for `args` against kernel `info`'s parameters, and
    whether a CUDA torch tensor was among them. Extra arguments (a count the
    runtime will refuse) are converted by their own type."""
    arr = (_lib.TilusArg * max(len(args), 1))()
    on_cuda = False
    for j, x in enumerate(args):
        a = arr[j]
        param = info.params[j] if j < len(info.params) else None
        if param is not None and param.kind == "pointer":
            a.kind = _lib.ARG_POINTER
            a.value.pointer, cuda = _pointer_value(info, param, x, device, stream)
            on_cuda = on_cuda or cuda
            continue
        if (_is_torch_tensor(x) or hasattr(x, "__cuda_array_interface__")
                or (hasattr(x, "__dlpack__") and getattr(x, "ndim", 1) != 0)):
            # A tensor for a scalar parameter: the runtime says so. (A 0-d
            # array, numpy's included, has __dlpack__ but is a scalar here.)
            a.kind = _lib.ARG_POINTER
            a.value.pointer = x.data_ptr() if _is_torch_tensor(x) else 1
            continue
        type_name = type(x).__name__
        if param is not None and param.kind == "float":
            if type_name == "float16" and param.type_name == "f16":
                import numpy as np
                a.kind = _lib.ARG_F16_BITS
                a.value.bits = int(np.asarray(x, dtype=np.float16).view(np.uint16))
                continue
            try:
                a.kind = _lib.ARG_FLOAT
                a.value.real = float(x)
                continue
            except (TypeError, ValueError):
                raise TilusArgumentError(_describe(info.name, param, f"a {type_name}")) from None
        # An integer parameter, or an extra argument.
        if isinstance(x, float) or type_name.startswith("float"):
            a.kind = _lib.ARG_FLOAT
            a.value.real = float(x)
            continue
        try:
            value = operator.index(x)
        except TypeError:
            what = f"a {type_name}"
            if param is None:
                raise TilusArgumentError(f"argument {j} of kernel '{info.name}' is {what}") from None
            raise TilusArgumentError(_describe(info.name, param, what)) from None
        if not -(1 << 63) <= value < (1 << 63):
            raise TilusArgumentError(_describe(info.name, param, f"{value}, outside int64")
                                     if param else f"argument {j} is outside int64")
        a.kind = _lib.ARG_INTEGER
        a.value.integer = value
    return arr, on_cuda


def _current_stream(device):
    """torch's current stream on `device` as a CUstream (an int)."""
    torch = sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device)
    return torch.cuda.current_stream(device).cuda_stream


def _stream_handle(stream, on_cuda, device):
    if stream is None:
        # on_cuda: a CUDA torch tensor was among the arguments, so torch is
        # imported.
        return _current_stream(device) if on_cuda else 0
    if hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    return operator.index(stream)


# --- the runtime ---------------------------------------------------------------


class Runtime:
    """A TilusRuntime over one device (its primary context, shared with
    PyTorch). `driver_library` names another libcuda (a stub for tests)."""

    def __init__(self, device=0, driver_library=None):
        lib = _lib.runtime_lib()
        self.device = int(device)
        self.driver_library = driver_library
        self._keep = driver_library.encode() if driver_library else None
        options = _lib.TilusRuntimeOptions(self.device, self._keep)
        err = _lib.TilusRuntimeErrorStruct()
        ptr = lib.tilusRuntimeCreateWithOptions(ctypes.byref(options), ctypes.byref(err))
        if not ptr:
            raise_for(err.code or 1, err)
        self._ptr = ctypes.c_void_p(ptr)
        self._destroy = lib.tilusRuntimeDestroy
        self._kernels = {}

    def close(self):
        """Destroys the runtime (its modules, kernels and workspace). Kernels
        still running must be finished first."""
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._kernels.clear()
            self._destroy(ptr)
            self._ptr = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def _as_parameter_(self):
        return self._ptr

    def _check_open(self):
        if not self._ptr:
            raise TilusRuntimeError("TilusStatusInvalidArgument", "the runtime was closed")

    def _call(self, name, *args):
        self._check_open()
        err = _lib.TilusRuntimeErrorStruct()
        code = getattr(_lib.runtime_lib(), name)(self, *args, ctypes.byref(err))
        raise_for(code, err)

    @property
    def device_name(self):
        self._check_open()
        p = _lib.runtime_lib().tilusRuntimeGetDeviceName(self)
        return p.decode() if p else ""

    @property
    def compute_capability(self):
        self._check_open()
        major, minor = ctypes.c_int(), ctypes.c_int()
        _lib.runtime_lib().tilusRuntimeGetComputeCapability(self, ctypes.byref(major),
                                                             ctypes.byref(minor))
        return major.value, minor.value

    @property
    def target(self):
        """The Tilus target to compile for this device: sm_90a for 9.x, sm_89
        for 8.9, sm_80 for other 8.x; ValueError for others."""
        major, minor = self.compute_capability
        target = {9: "sm_90a"}.get(major) or ("sm_89" if (major, minor) == (8, 9) else
                                              "sm_80" if major == 8 else None)
        if target is None:
            raise ValueError(f"no Tilus target for compute capability {major}.{minor}")
        return target

    @property
    def driver_version(self):
        self._check_open()
        return int(_lib.runtime_lib().tilusRuntimeGetDriverVersion(self))

    @property
    def num_cached_modules(self):
        self._check_open()
        return int(_lib.runtime_lib().tilusRuntimeGetNumCachedModules(self))

    @property
    def workspace_bytes(self):
        """Size of the runtime-owned workspace."""
        self._check_open()
        return int(_lib.runtime_lib().tilusRuntimeGetWorkspaceBytes(self))

    def load(self, artifact):
        """Loads (JIT-compiles) the artifact's module now."""
        artifact = _as_artifact(artifact)
        self._call("tilusRuntimeLoadArtifact", artifact)

    def kernel(self, artifact, name):
        """The loaded kernel `name` of `artifact`, a callable Kernel."""
        self._check_open()
        artifact = _as_artifact(artifact)
        info = artifact.kernel_info(name)
        err = _lib.TilusRuntimeErrorStruct()
        ptr = _lib.runtime_lib().tilusRuntimeGetKernel(self, artifact, name.encode(),
                                                       ctypes.byref(err))
        if not ptr:
            raise_for(err.code or 1, err)
        key = (ptr, info)
        if key not in self._kernels:
            self._kernels[key] = Kernel(self, ctypes.c_void_p(ptr), info)
        return self._kernels[key]

    def launch(self, artifact, name, *args, stream=None, workspace=None, workspace_bytes=None):
        return self.kernel(artifact, name)(*args, stream=stream, workspace=workspace,
                                           workspace_bytes=workspace_bytes)

    # Memory helpers (tests and tools; serving stacks use their own allocator).

    def malloc(self, nbytes):
        ptr = ctypes.c_uint64()
        self._call("tilusRuntimeMalloc", int(nbytes), ctypes.byref(ptr))
        return ptr.value

    def free(self, ptr):
        self._call("tilusRuntimeFree", int(ptr))

    def copy_to_device(self, ptr, array):
        import numpy as np
        a = np.ascontiguousarray(array)
        self._call("tilusRuntimeCopyToDevice", int(ptr), a.ctypes.data, a.nbytes)

    def copy_to_host(self, out, ptr):
        import numpy as np
        if not (isinstance(out, np.ndarray) and out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("copy_to_host needs a writeable C-contiguous numpy array")
        self._call("tilusRuntimeCopyToHost", out.ctypes.data, int(ptr), out.nbytes)
        return out

    def memset(self, ptr, value, nbytes):
        self._call("tilusRuntimeMemset", int(ptr), int(value), int(nbytes))

    def synchronize(self, stream=None):
        if stream is None:
            self._call("tilusRuntimeSynchronize")
        else:
            self._call("tilusRuntimeStreamSynchronize", ctypes.c_void_p(_stream_handle(stream, False, self.device)))

    def empty(self, shape, dtype):
        """A DeviceArray of numpy `dtype` (uninitialized)."""
        return DeviceArray(self, shape, dtype)

    def to_device(self, array):
        """A DeviceArray holding a copy of numpy `array`."""
        import numpy as np
        a = np.ascontiguousarray(array)
        d = DeviceArray(self, a.shape, a.dtype)
        if a.nbytes:
            self.copy_to_device(d.ptr, a)
        return d

    def __repr__(self):
        state = self.device_name if self._ptr else "closed"
        return f"<tilus.Runtime device {self.device}: {state}>"


def _as_artifact(a):
    if isinstance(a, Artifact):
        return a
    if isinstance(a, (bytes, bytearray)):
        return Artifact.from_bytes(a)
    return Artifact.from_file(a)


class Kernel:
    """A kernel loaded on a runtime; call it to launch."""

    def __init__(self, runtime, ptr, info):
        self.runtime = runtime
        self._ptr = ptr
        self.info = info
        # For _fast_pack: the parameters' kinds, one struct for the whole
        # TilusArg array (kind, 4 bytes of padding, the 8-byte value), and
        # the template of its value list with the kinds filled in (each
        # thread packs from a copy, into an argument array of its own).
        self._nparams = len(info.params)
        self._kinds = tuple(p.kind for p in info.params)
        codes = {"pointer": (_lib.ARG_POINTER, "Q"), "integer": (_lib.ARG_INTEGER, "q"),
                 "float": (_lib.ARG_FLOAT, "d")}
        self._struct = struct.Struct("=" + "".join("i4x" + codes[k][1] for k in self._kinds))
        assert self._struct.size == ctypes.sizeof(_lib.TilusArg) * self._nparams
        self._values = []
        for k in self._kinds:
            self._values += [codes[k][0], 0]
        self._local = threading.local()
        self._launch = _lib.runtime_lib().tilusRuntimeLaunchKernel
        self._tensor_class = None
        self._accepted = ()

    @property
    def name(self):
        return self.info.name

    @property
    def params(self):
        return self.info.params

    @property
    def workspace_bytes(self):
        return int(_lib.runtime_lib().tilusLoadedKernelGetWorkspaceBytes(self._ptr))

    def __call__(self, *args, stream=None, workspace=None, workspace_bytes=None):
        rt = self.runtime
        if workspace is None and rt._ptr:
            packed = self._fast_pack(args)
            if packed is not None:
                buf, on_cuda = packed
                handle = _stream_handle(stream, on_cuda, rt.device)
                err = self._local.err
                code = self._launch(rt._ptr, self._ptr, buf, self._nparams, handle or None, err)
                if code:
                    raise_for(code, err)
                return
        rt._check_open()
        # An explicit stream is DLPack producers' consumer stream too.
        explicit = None if stream is None else _stream_handle(stream, False, rt.device)
        c_args, on_cuda = _convert_args(self.info, args, rt.device, explicit)
        if explicit is None:
            explicit = _stream_handle(None, on_cuda, rt.device)
        handle = ctypes.c_void_p(explicit or None)
        err = _lib.TilusRuntimeErrorStruct()
        lib = _lib.runtime_lib()
        if workspace is None:
            code = lib.tilusRuntimeLaunchKernel(rt, self._ptr, c_args, len(args), handle,
                                                ctypes.byref(err))
        else:
            ws, nbytes = _workspace(self, workspace, workspace_bytes, rt.device)
            code = lib.tilusRuntimeLaunchKernelWithWorkspace(rt, self._ptr, c_args, len(args),
                                                             handle, ws, nbytes,
                                                             ctypes.byref(err))
        raise_for(code, err)

    # The hot path (bench/launch/python_launch.py measures it): the common
    # argument kinds -- CUDA torch tensors that pass every check, ints and
    # floats -- packed with one struct call into this thread's argument
    # array. Anything else (a failing check included) returns None and takes
    # the general path above, which converts and explains.
    def _fast_pack(self, args):
        if len(args) != self._nparams:
            return None
        local = self._local
        buf = getattr(local, "buf", None)
        if buf is None:
            buf = local.buf = (_lib.TilusArg * max(self._nparams, 1))()
            local.err = _lib.TilusRuntimeErrorStruct()
            local.values = list(self._values)
        values = local.values
        on_cuda = False
        for j, (x, kind) in enumerate(zip(args, self._kinds)):
            i = 2 * j + 1                  # parameter j's value in the struct's list
            t = type(x)
            if kind == "pointer":
                if t is int:
                    if not 0 < x < 1 << 64:
                        return None
                    values[i] = x
                else:
                    tensor = self._tensor_class
                    if tensor is None:
                        tensor = self._bind_torch()
                    if (tensor is False or not isinstance(x, tensor) or not x.is_cuda
                            or x.dtype not in self._accepted[j]
                            or x.get_device() != self.runtime.device or not x.is_contiguous()):
                        return None
                    values[i] = x.data_ptr()
                    on_cuda = True
            elif kind == "integer":
                if t is not int or not -(1 << 63) <= x < 1 << 63:
                    return None
                values[i] = x
            elif t is float or t is int:
                values[i] = float(x)
            else:
                return None
        self._struct.pack_into(buf, 0, *values)
        return buf, on_cuda

    def _bind_torch(self):
        """The torch.Tensor class and, per pointer parameter, the torch dtypes
        it accepts; False while torch is not imported (then tensors take the
        general path)."""
        torch = sys.modules.get("torch")
        if torch is None or not hasattr(torch, "Tensor"):
            return False
        accepted = []
        for p in self.info.params:
            names = [n for n in _TORCH_ACCEPTS if p.kind == "pointer" and _accepts(n, p.element_type)]
            accepted.append(frozenset(getattr(torch, n) for n in names if hasattr(torch, n)))
        self._accepted = accepted
        self._tensor_class = torch.Tensor
        return torch.Tensor

    def __repr__(self):
        return f"<tilus.LoadedKernel {self.name}>"


# Exported by the package as tilus.LoadedKernel (tilus.Kernel is the DSL's
# base class).
LoadedKernel = Kernel


def _workspace(kernel, workspace, nbytes, device):
    if _is_torch_tensor(workspace):
        if not workspace.is_cuda or (device is not None and workspace.device.index != device):
            raise TilusArgumentError(f"kernel '{kernel.name}': the workspace is a tensor on "
                                     f"{workspace.device}, not on cuda:{device}")
        size = workspace.numel() * workspace.element_size()
        return workspace.data_ptr(), size if nbytes is None else int(nbytes)
    if hasattr(workspace, "__cuda_array_interface__"):
        cai = workspace.__cuda_array_interface__
        size = 1
        for n in cai.get("shape", ()):
            size *= n
        typestr = cai.get("typestr", "|u1")
        size *= int(typestr[2:]) if typestr[2:].isdigit() else 1
        return int(cai["data"][0]), size if nbytes is None else int(nbytes)
    ptr = operator.index(workspace)
    return ptr, kernel.workspace_bytes if nbytes is None else int(nbytes)


class DeviceArray:
    """Device memory from tilusRuntimeMalloc with `__cuda_array_interface__`
    (so it can be a kernel argument): for tests and tools without torch."""

    def __init__(self, runtime, shape, dtype):
        import numpy as np
        self.runtime = runtime
        self.shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        self.dtype = np.dtype(dtype)
        n = 1
        for s in self.shape:
            n *= s
        self.nbytes = n * self.dtype.itemsize
        self.ptr = runtime.malloc(self.nbytes) if self.nbytes else 0

    @property
    def __cuda_array_interface__(self):
        typestr = self.dtype.str
        return {"shape": self.shape, "typestr": typestr, "data": (self.ptr, False),
                "version": 3, "strides": None}

    def numpy(self):
        import numpy as np
        out = np.empty(self.shape, dtype=self.dtype)
        if self.nbytes:
            self.runtime.copy_to_host(out, self.ptr)
        return out

    def copy_from(self, array):
        import numpy as np
        a = np.ascontiguousarray(array, dtype=self.dtype)
        if a.nbytes != self.nbytes:
            raise ValueError(f"copy_from: {a.nbytes} bytes into a buffer of {self.nbytes}")
        self.runtime.copy_to_device(self.ptr, a)

    def free(self):
        if self.ptr and self.runtime._ptr:
            self.runtime.free(self.ptr)
        self.ptr = 0

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass
