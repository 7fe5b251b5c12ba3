"""Artifacts and the launch path, end to end through the recording fake
libcuda (tests/fake_libcuda.c): no GPU needed."""

import ctypes
import pickle
import struct

import numpy as np
import pytest

import tilus

from conftest import fake_artifact

PARAMS = fake_artifact([
    ("scalars", ["block 64 1 1", "grid s0 ceildiv 64 ; s1 ; 2", "shared 1024",
                 "param i32", "param ui8", "param si8", "param f16", "param bf16",
                 "param f32", "param f64", "param i64", "param index", "param i1"]),
    ("pointers", ["block 128 1 1", "grid 1", "param ptr f16", "param ptr bf16",
                  "param ptr f32", "param ptr ui8", "param ptr i6", "param ptr float6_e3m2",
                  "param ptr i32"]),
    ("ws", ["block 32 1 1", "grid 1", "workspace 4096", "param ptr f32"]),
], target="sm_90a")


class Cai:
    """A minimal object with __cuda_array_interface__."""

    def __init__(self, ptr, typestr, shape, strides=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "typestr": typestr,
                                         "shape": shape, "strides": strides, "version": 3}


def test_artifact_accessors():
    a = tilus.Artifact.from_bytes(PARAMS)
    assert a.target == "sm_90a" and a.image_kind == "ptx" and ".entry ws" in a.image
    assert [k.name for k in a.kernels] == ["scalars", "pointers", "ws"]
    s = a.kernel_info("scalars")
    assert s.block == (64, 1, 1) and s.grid == ("s0 ceildiv 64", "s1", "2")
    assert s.shared_bytes == 1024 and s.workspace_bytes == 0
    assert [p.type_name for p in s.params] == ["i32", "ui8", "si8", "f16", "bf16", "f32",
                                               "f64", "i64", "index", "i1"]
    assert [p.byte_size for p in s.params] == [4, 1, 1, 2, 2, 4, 8, 8, 8, 1]
    assert [p.signed for p in s.params[:3]] == [None, False, True]
    assert s.params[2].dtype == tilus.int8 and s.params[3].dtype == tilus.float16
    p = a.kernel_info("pointers").params
    assert [x.element_type for x in p] == ["f16", "bf16", "f32", "ui8", "i6", "float6_e3m2",
                                           "i32"]
    assert p[5].dtype == tilus.float6_e3m2 and p[4].dtype == tilus.int6
    assert a.kernel_info("ws").workspace_bytes == 4096
    with pytest.raises(tilus.TilusRuntimeError, match="no kernel 'nope'.*scalars, pointers, ws"):
        a.kernel_info("nope")
    b = pickle.loads(pickle.dumps(a))
    assert b.data == a.data and b.kernels == a.kernels


def test_artifact_files_and_parse_errors(tmp_path):
    path = tmp_path / "k.tilus"
    tilus.Artifact.from_bytes(PARAMS).save(path)
    assert tilus.Artifact.from_file(path).data == PARAMS
    with pytest.raises(tilus.TilusRuntimeError) as info:
        tilus.Artifact(PARAMS.replace(b"block 64 1 1", b"block x 1 1"))
    assert info.value.status == "TilusStatusParseError"
    assert info.value.message.startswith("line 4:")
    assert str(info.value).startswith("TilusStatusParseError: line 4:")


def test_check_launch_without_a_driver():
    a = tilus.Artifact(PARAMS)
    cfg = a.check_launch("scalars", 130, 7, -8, 1.5, 2.0, 3.0, 4.0, 5, 6, 1)
    assert cfg.grid == (3, 7, 2) and cfg.block == (64, 1, 1) and cfg.shared_bytes == 1024
    with pytest.raises(tilus.TilusRuntimeError) as info:
        a.check_launch("scalars", 130, 7, -129, 1.5, 2.0, 3.0, 4.0, 5, 6, 1)
    assert info.value.status == "TilusStatusArgumentMismatch"
    assert "argument 2 of kernel 'scalars' is -129, which does not fit parameter type 'si8'" \
        in info.value.message
    with pytest.raises(tilus.TilusRuntimeError, match="GridError|grid"):
        a.check_launch("scalars", 0, 7, 0, 1.5, 2.0, 3.0, 4.0, 5, 6, 1)


def test_runtime_properties(fake_runtime, fake_driver):
    rt = fake_runtime
    assert rt.device_name == "Fake GPU 0"
    assert rt.compute_capability == (9, 0)
    assert rt.driver_version == 12080
    assert "Fake GPU 0" in repr(rt)


def test_no_driver_and_no_device(tmp_path, fake_driver):
    with pytest.raises(tilus.TilusRuntimeError) as info:
        tilus.Runtime(driver_library=str(tmp_path / "libcuda-missing.so"))
    assert info.value.status == "TilusStatusDriverNotFound"
    assert "libcuda-missing.so" in info.value.message
    with pytest.raises(tilus.TilusRuntimeError) as info:
        tilus.Runtime(device=3, driver_library=fake_driver.path)
    assert info.value.status in ("TilusStatusNoDevice", "TilusStatusCudaError")


def test_launch_records_grid_block_and_parameter_bytes(fake_runtime, fake_driver):
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "scalars")
    assert k is fake_runtime.kernel(a, "scalars")
    sizes = [p.byte_size for p in k.params]
    fake_driver.set_param_sizes(sizes)
    k(130, np.uint8(255), -8, np.float16(0.1), 1.5, 2.5, -0.25, -(1 << 40), 7, True,
      stream=0xABC0)
    assert fake_driver.launch_count == 1
    assert fake_driver.grid == (3, 255, 2) and fake_driver.block == (64, 1, 1)
    assert fake_driver.shared == 1024 and fake_driver.stream == 0xABC0
    got = [fake_driver.param_bytes(i, n) for i, n in enumerate(sizes)]
    assert got[0] == struct.pack("<i", 130)
    assert got[1] == b"\xff"
    assert got[2] == b"\xf8"                                   # -8 in two's complement
    assert got[3] == np.float16(0.1).tobytes()                 # exact bits of the np.float16
    assert got[4] == struct.pack("<H", 0x3FC0)                 # 1.5 in bf16
    assert got[5] == struct.pack("<f", 2.5)
    assert got[6] == struct.pack("<d", -0.25)
    assert got[7] == struct.pack("<q", -(1 << 40))
    assert got[8] == struct.pack("<q", 7)
    assert got[9] == b"\x01"
    assert fake_driver.module_loads == 1


def test_plain_python_arguments_take_the_fast_path(fake_runtime, fake_driver):
    """ints and floats only: Kernel._fast_pack packs them (one struct call);
    the bytes that reach cuLaunchKernel are the general path's."""
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "scalars")
    args = (130, 255, -8, 0.5, 1.5, 2.5, -0.25, -(1 << 40), 7, 1)
    assert k._fast_pack(args) is not None
    assert k._fast_pack(args[:-1]) is None                     # a count the runtime refuses
    assert k._fast_pack((1.5,) + args[1:]) is None             # a float for i32: explained
    sizes = [p.byte_size for p in k.params]
    fake_driver.set_param_sizes(sizes)
    k(*args, stream=0x40)
    fast = [fake_driver.param_bytes(i, n) for i, n in enumerate(sizes)]
    assert fast[0] == struct.pack("<i", 130) and fast[1] == b"\xff" and fast[2] == b"\xf8"
    assert fast[3] == struct.pack("<H", 0x3800)                # 0.5 in f16
    assert fast[7] == struct.pack("<q", -(1 << 40)) and fast[9] == b"\x01"
    k(*[np.int64(v) if type(v) is int else np.float64(v) for v in args], stream=0x40)
    assert [fake_driver.param_bytes(i, n) for i, n in enumerate(sizes)] == fast
    assert fake_driver.launch_count == 2 and fake_driver.stream == 0x40


def test_zero_dimensional_arrays_are_scalars(fake_runtime, fake_driver):
    """A 0-d numpy array has __dlpack__ but passes as the scalar it holds."""
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "scalars")
    sizes = [p.byte_size for p in k.params]
    fake_driver.set_param_sizes(sizes)
    k(np.array(130), 255, -8, np.array(0.5), 1.5, 2.5, -0.25, -(1 << 40), 7, 1)
    assert fake_driver.param_bytes(0, 4) == struct.pack("<i", 130)
    assert fake_driver.param_bytes(3, 2) == struct.pack("<H", 0x3800)        # 0.5 in f16


def test_pointer_arguments(fake_runtime, fake_driver):
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "pointers")
    fake_driver.set_param_sizes([8] * 7)
    args = [Cai(0x1000, "<f2", (4,)), Cai(0x2000, "<V2", (4,)), 0x3000,
            Cai(0x4000, "|u1", (2, 3)), Cai(0x5000, "|i1", (6,)), Cai(0x6000, "|u1", (3,)),
            fake_runtime.empty(16, np.int32)]
    k(*args)
    got = [struct.unpack("<Q", fake_driver.param_bytes(i, 8))[0] for i in range(7)]
    assert got[:6] == [0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000]
    assert got[6] == args[6].ptr and got[6] % 256 == 0
    assert fake_driver.stream == 0   # the default stream


class DLPackObject:
    """An object with only __dlpack__/__dlpack_device__, over a DLTensor built
    here (dlpack.h's layout), so that the DLPack path runs without a GPU."""

    def __init__(self, data, device, code, bits, shape, strides=None, byte_offset=0):
        from tilus.runtime import _DLTensor
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        self.t = _DLTensor(data, device, len(shape), (code, bits, 1), self.shape,
                           self.strides, byte_offset)
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams = getattr(self, "streams", []) + [stream]
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                       ctypes.c_void_p]
        return new(ctypes.addressof(self.t), b"dltensor", None)


def test_dlpack_arguments(fake_runtime, fake_driver):
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "pointers")
    fake_driver.set_param_sizes([8] * 7)
    f16 = DLPackObject(0x1000, (2, 0), 2, 16, (4, 8), strides=(8, 1))
    bf16 = DLPackObject(0x2000, (2, 0), 4, 16, (4,), byte_offset=64)
    u8 = DLPackObject(0x4000, (2, 0), 1, 8, (3, 1, 5), strides=(5, 99, 1))  # size-1 dim
    k(f16, bf16, 0x3000, u8, 0x5000, 0x6000, 0x7000)
    got = [struct.unpack("<Q", fake_driver.param_bytes(i, 8))[0] for i in range(4)]
    assert got == [0x1000, 0x2040, 0x3000, 0x4000]
    # The producer is told the consumer's stream: the legacy default (1), or
    # the launch's.
    assert f16.streams == [1]
    k(f16, bf16, 0x3000, u8, 0x5000, 0x6000, 0x7000, stream=0x5550)
    assert f16.streams == [1, 0x5550] and fake_driver.stream == 0x5550
    good = [f16, bf16, 0x3000, u8, 0x5000, 0x6000, 0x7000]

    def refused(index, value):
        args = list(good)
        args[index] = value
        with pytest.raises(tilus.TilusArgumentError) as info:
            k(*args)
        return info.value.message

    assert refused(0, DLPackObject(0x1000, (1, 0), 2, 16, (4,))) == (
        "argument 0 of kernel 'pointers' is a DLPack tensor on device (1, 0), but parameter 0 "
        "has type 'ptr f16'; pass one on CUDA device 0 (DLPack device type 2)")
    assert "on device (2, 1)" in refused(0, DLPackObject(0x1000, (2, 1), 2, 16, (4,)))
    assert "a DLPack tensor of type (code 2, 16 bits, 1 lanes), but parameter 2 has type " \
        "'ptr f32'" in refused(2, DLPackObject(0x1, (2, 0), 2, 16, (4,)))
    assert "non-contiguous DLPack tensor (strides (1, 4) elements)" in refused(
        0, DLPackObject(0x1000, (2, 0), 2, 16, (4, 8), strides=(1, 4)))
    if hasattr(np.empty(1), "__dlpack__"):       # numpy's own: a CPU tensor
        assert "on device (1, 0)" in refused(3, np.zeros(4, np.uint8))
    assert fake_driver.launch_count == 2


def test_argument_errors_name_the_parameter(fake_runtime, fake_driver):
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "pointers")
    good = [0x1000] * 7

    def call(index, value):
        args = list(good)
        args[index] = value
        with pytest.raises(tilus.TilusRuntimeError) as info:
            k(*args)
        assert info.value.status == "TilusStatusArgumentMismatch"
        return info.value.message

    # The runtime's own checks and messages.
    with pytest.raises(tilus.TilusRuntimeError,
                       match="kernel 'pointers' takes 7 arguments, but 6 were given"):
        k(*good[:6])
    assert call(2, 0) == "argument 2 of kernel 'pointers' is a null pointer"
    assert call(2, 0x1008).startswith(
        "argument 2 of kernel 'pointers' is the address 0x1008, which is not 16-byte aligned")
    assert call(1, Cai(0, "<V2", (0,))) == "argument 1 of kernel 'pointers' is a null pointer"
    # dtypes checked here, in the runtime's words.
    assert call(0, Cai(0x10, "<f4", (4,))) == (
        "argument 0 of kernel 'pointers' is an array of typestr '<f4', but parameter 0 has "
        "type 'ptr f16'")
    assert "parameter 2 has type 'ptr f32'" in call(2, Cai(0x10, "<f2", (4,)))
    assert "parameter 4 has type 'ptr i6'" in call(4, Cai(0x10, "<f2", (4,)))
    assert "non-contiguous" in call(2, Cai(0x10, "<f4", (4, 4), strides=(4, 16)))
    assert "a str" in call(3, "0x1000")
    s = fake_runtime.kernel(a, "scalars")
    with pytest.raises(tilus.TilusRuntimeError,
                       match="argument 0 of kernel 'scalars' is a float, but parameter 0 has "
                             "type 'i32'"):
        s(1.5, 1, 1, 1.0, 1.0, 1.0, 1.0, 1, 1, 1)
    with pytest.raises(tilus.TilusRuntimeError, match="is 256, which does not fit"):
        s(1, 256, 1, 1.0, 1.0, 1.0, 1.0, 1, 1, 1)
    assert fake_driver.launch_count == 0


def test_driver_errors(fake_runtime, fake_driver):
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "pointers")
    fake_driver.lib.fakeSetLaunchResult(700)
    with pytest.raises(tilus.TilusRuntimeError) as info:
        k(*[0x1000] * 7)
    e = info.value
    assert e.status == "TilusStatusCudaError" and e.cuda_result == 700
    assert "cuLaunchKernel for kernel 'pointers' failed: CUDA_ERROR_ILLEGAL_ADDRESS" in e.message


def test_target_the_device_cannot_run(fake_driver):
    fake_driver.lib.fakeSetComputeCapability(8, 0)
    with tilus.Runtime(driver_library=fake_driver.path) as rt:
        with pytest.raises(tilus.TilusRuntimeError) as info:
            rt.load(tilus.Artifact(PARAMS))
        assert info.value.status == "TilusStatusUnsupported"
        assert "sm_90a" in info.value.message
    assert rt._ptr is None


def test_workspace(fake_runtime, fake_driver):
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "ws")
    assert k.workspace_bytes == 4096
    fake_driver.set_param_sizes([8, 8])
    k(0x1000)                                   # the runtime's own workspace
    assert fake_runtime.workspace_bytes == 4096
    own = struct.unpack("<Q", fake_driver.param_bytes(1, 8))[0]
    assert own != 0
    ws = fake_runtime.empty(4096, np.uint8)
    k(0x1000, workspace=ws)
    assert struct.unpack("<Q", fake_driver.param_bytes(1, 8))[0] == ws.ptr
    small = fake_runtime.empty(16, np.uint8)
    with pytest.raises(tilus.TilusRuntimeError,
                       match="kernel 'ws' needs a workspace of 4096 bytes, but the one given "
                             "has 16"):
        k(0x1000, workspace=small)
    with pytest.raises(tilus.TilusRuntimeError, match="not 256-byte aligned"):
        k(0x1000, workspace=ws.ptr + 16)


def test_device_memory_round_trip(fake_runtime):
    x = np.arange(100, dtype=np.float32)
    d = fake_runtime.to_device(x)
    assert np.array_equal(d.numpy(), x)
    d.copy_from(x * 2)
    assert np.array_equal(d.numpy(), x * 2)
    fake_runtime.memset(d.ptr, 0, d.nbytes)
    assert not d.numpy().any()
    with pytest.raises(ValueError):
        d.copy_from(np.zeros(3, np.float32))
    d.free()
    fake_runtime.synchronize()


def test_a_compiled_kernel_through_the_fake_driver(fake_runtime, fake_driver):
    from conftest import artifact_for
    a = artifact_for("tutorial/axpy.mlir", "sm_90a")
    k = fake_runtime.kernel(a, "axpy")
    fake_driver.set_param_sizes([8, 8, 4, 4])
    x = fake_runtime.empty(1000, np.float32)
    y = fake_runtime.empty(1000, np.float32)
    k(x, y, 2.0, 1000)
    assert fake_driver.grid == (2, 1, 1) and fake_driver.block == (128, 1, 1)
    assert fake_driver.param_bytes(2, 4) == struct.pack("<f", 2.0)
    with pytest.raises(tilus.TilusRuntimeError, match="'ptr f32'"):
        k(x, fake_runtime.empty(1000, np.float16), 2.0, 1000)
    # Launching by name, and the same module for the same image.
    fake_runtime.launch(a, "axpy", x, y, 1.0, 10)
    assert fake_driver.launch_count == 2 and fake_runtime.num_cached_modules == 1
    fake_runtime.close()
    with pytest.raises(tilus.TilusRuntimeError, match="closed"):
        k(x, y, 2.0, 1000)


def test_torch_cpu_tensors_are_refused(fake_runtime, fake_driver):
    torch = pytest.importorskip("torch")
    a = tilus.Artifact(PARAMS)
    k = fake_runtime.kernel(a, "pointers")
    args = [0x1000] * 7
    args[2] = torch.zeros(4, dtype=torch.float32)
    with pytest.raises(tilus.TilusRuntimeError,
                       match="argument 2 of kernel 'pointers' is a torch.float32 tensor on cpu"):
        k(*args)
