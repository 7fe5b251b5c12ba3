"""Launches on a real GPU: with DeviceArrays (no torch) and with torch CUDA
tensors. Skipped without a CUDA driver and device (and, for the torch tests,
without torch built with CUDA). On a machine without libTilus.so (runtime
only), the artifacts come from $TILUS_TEST_ARTIFACT_DIR, written by
tests/make_artifacts.py."""

import re

import numpy as np
import pytest

import tilus

from conftest import FIG2_LAYOUT, artifact_for, cuda_torch, requires_compiler


@pytest.fixture(scope="module")
def gpu():
    try:
        rt = tilus.Runtime()
    except tilus.TilusRuntimeError as e:
        pytest.skip(f"no CUDA device: {e}")
    yield rt
    rt.close()


def target_of(rt):
    return "sm_90a" if rt.compute_capability == (9, 0) else "sm_80"


def test_axpy_with_device_arrays(gpu):
    a = artifact_for("tutorial/axpy.mlir", target_of(gpu))
    k = gpu.kernel(a, "axpy")
    n = 1000                       # not a multiple of 512: the last block is masked
    rng = np.random.default_rng(0)
    x = rng.normal(size=n).astype(np.float32)
    y = rng.normal(size=n).astype(np.float32)
    dx, dy = gpu.to_device(x), gpu.to_device(y)
    k(dx, dy, 2.5, n)
    gpu.synchronize()
    assert np.allclose(dy.numpy(), 2.5 * x + y, rtol=1e-6, atol=1e-6)


def test_axpy_with_torch(gpu):
    torch = cuda_torch()
    a = artifact_for("tutorial/axpy.mlir", target_of(gpu))
    k = gpu.kernel(a, "axpy")
    n = 5000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    expected = 0.5 * x + y
    k(x, y, 0.5, n)               # torch's current stream
    torch.cuda.synchronize()
    assert torch.allclose(y, expected)
    # On a side stream, as torch code does.
    s = torch.cuda.Stream()
    y2 = torch.zeros(n, device="cuda")
    with torch.cuda.stream(s):
        k(x, y2, 3.0, n)
    s.synchronize()
    assert torch.allclose(y2, 3.0 * x)
    k(x, y2, 1.0, n, stream=s)
    s.synchronize()
    assert torch.allclose(y2, 4.0 * x)


def test_torch_argument_errors(gpu):
    torch = cuda_torch()
    a = artifact_for("tutorial/axpy.mlir", target_of(gpu))
    k = gpu.kernel(a, "axpy")
    x = torch.zeros(64, device="cuda")
    with pytest.raises(tilus.TilusRuntimeError,
                       match="argument 1 of kernel 'axpy' is a torch.float16 tensor, but "
                             "parameter 1 has type 'ptr f32'"):
        k(x, torch.zeros(64, device="cuda", dtype=torch.float16), 1.0, 64)
    with pytest.raises(tilus.TilusRuntimeError, match="on cpu"):
        k(x, torch.zeros(64), 1.0, 64)
    with pytest.raises(tilus.TilusRuntimeError, match="non-contiguous"):
        k(x, torch.zeros(64, 2, device="cuda")[:, 0], 1.0, 64)
    with pytest.raises(tilus.TilusRuntimeError, match="takes 4 arguments"):
        k(x, x, 1.0)


def test_matmul_f16_with_torch(gpu):
    torch = cuda_torch()
    a = artifact_for("matmul_naive_f16.mlir", target_of(gpu))
    k = gpu.kernel(a, "matmul")
    M, N, K = 64, 32, 64
    A = torch.randn(M, K, device="cuda", dtype=torch.float16)
    B = torch.randn(K, N, device="cuda", dtype=torch.float16)
    C = torch.empty(M, N, device="cuda", dtype=torch.float16)
    k(A, B, C, M, N // 8, K // 16)
    torch.cuda.synchronize()
    assert torch.allclose(C.float(), A.float() @ B.float(), rtol=2e-2, atol=2e-2)


# The host packing reads the layout through libTilus.so: these two need the
# compiler library (a self-contained one carries it to the GPU machine).
@requires_compiler
def test_weight_pack_kernel_equals_host_packing(gpu):
    """examples/weight_pack_i6.mlir's `pack` on the GPU gives the bytes of
    tilus.weight_pack on the host."""
    a = artifact_for("weight_pack_i6.mlir", target_of(gpu))
    K, N = 64, 32
    values = np.random.default_rng(1).integers(-32, 32, size=(K, N))
    compact = tilus.compact_bits(values, 6)
    src = gpu.to_device(compact)
    dst = gpu.empty(compact.size, np.uint8)
    gpu.kernel(a, "pack")(src, dst, K, N)
    gpu.synchronize()
    host = tilus.weight_pack(values, tilus.int6, (16, 8), FIG2_LAYOUT)
    assert dst.numpy().tobytes() == host.tobytes()
    back = gpu.empty(compact.size, np.uint8)
    gpu.kernel(a, "unpack")(dst, back, K, N)
    gpu.synchronize()
    assert back.numpy().tobytes() == compact.tobytes()


@requires_compiler
def test_weight_pack_with_torch_uint8(gpu):
    torch = cuda_torch()
    a = artifact_for("weight_pack_i6.mlir", target_of(gpu))
    K, N = 32, 16
    values = torch.randint(-32, 32, (K, N))
    compact = torch.from_numpy(tilus.compact_bits(values.numpy(), 6))
    src = compact.cuda()
    dst = torch.empty_like(src)
    gpu.kernel(a, "pack")(src, dst, K, N)
    torch.cuda.synchronize()
    assert torch.equal(dst.cpu(), tilus.weight_pack(values, tilus.int6, (16, 8),
                                                    FIG2_LAYOUT).reshape(-1))


def test_custom_op_eager_and_under_torch_compile(gpu):
    """tilus.custom_op: the tutorial's axpy as a torch operator, called
    eagerly, inside a torch.compile'd function (fullgraph: no graph break),
    and refusing names that do not fit the kernel."""
    torch = cuda_torch()
    k = gpu.kernel(artifact_for("tutorial/axpy.mlir", target_of(gpu)), "axpy")
    op = tilus.custom_op("tilus_test::axpy", k, names=("x", "y", "a", "n"),
                         mutates_args=("y",))
    schema = str(torch.ops.tilus_test.axpy.default._schema)
    # y is written (an alias annotation with "!"); torch spells int as SymInt.
    assert re.fullmatch(r"tilus_test::axpy\(Tensor x, Tensor\(a\d+!\) y, float a, "
                        r"(Sym)?[Ii]nt n\) -> \(\)", schema), schema
    n = 3000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    want = 1.5 * x + y
    op(x, y, 1.5, n)
    torch.cuda.synchronize()
    assert torch.allclose(y, want)

    def f(x, y):
        z = y * 2                      # a torch op before and after the kernel
        op(x, z, -0.5, x.numel())
        return z + 1

    compiled = torch.compile(f, fullgraph=True)
    y = torch.randn(n, device="cuda")
    got = compiled(x, y)
    torch.cuda.synchronize()
    assert torch.allclose(got, 2 * y - 0.5 * x + 1, rtol=1e-5, atol=1e-5)
    with pytest.raises(tilus.TilusArgumentError, match="not a pointer parameter"):
        tilus.custom_op("tilus_test::bad1", k, names=("x", "y", "a", "n"), mutates_args=("a",))
    with pytest.raises(tilus.TilusArgumentError, match="not the string 'y'"):
        tilus.custom_op("tilus_test::bad3", k, names=("x", "y", "a", "n"), mutates_args="y")
    with pytest.raises(tilus.TilusArgumentError, match="3 names for kernel 'axpy'"):
        tilus.custom_op("tilus_test::bad2", k, names=("x", "y", "a"), mutates_args=())
    # A wrong tensor inside the operator is the launch's own error.
    with pytest.raises(tilus.TilusArgumentError, match="parameter 0 has type 'ptr f32'"):
        op(x.half(), y, 1.0, n)


def test_dlpack_object_over_a_torch_tensor(gpu):
    """An argument known only through __dlpack__ (here delegating to a torch
    tensor, as JAX or CuPy arrays would give one)."""
    torch = cuda_torch()
    k = gpu.kernel(artifact_for("tutorial/axpy.mlir", target_of(gpu)), "axpy")

    class Only:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    n = 1000
    x = torch.randn(n, device="cuda")
    y = torch.randn(2 * 1024, device="cuda")
    want = y.clone()
    want[1024:1024 + n] += 3.0 * x
    k(Only(x), Only(y[1024:]), 3.0, n)               # an aligned view: DLPack's data/byte_offset
    torch.cuda.synchronize()
    assert torch.allclose(y, want)
    # A view 4 bytes in is refused before the launch (the kernel would fault).
    with pytest.raises(tilus.TilusRuntimeError, match="not 16-byte aligned"):
        k(Only(x), Only(y[1:]), 3.0, n)
    with pytest.raises(tilus.TilusRuntimeError, match="not 16-byte aligned"):
        k(x, y[1:], 3.0, n)
    with pytest.raises(tilus.TilusArgumentError, match="DLPack tensor on device"):
        k(Only(x.cpu()), Only(y), 1.0, n)


@requires_compiler
def test_tutorial_torch_example(gpu):
    """examples/python/axpy_torch.py (docs/tutorial.md, section 9) runs: it
    compiles in-process and asserts against torch itself."""
    cuda_torch()
    import importlib.util
    from conftest import REPO
    spec = importlib.util.spec_from_file_location(
        "axpy_torch", REPO / "examples" / "python" / "axpy_torch.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main()


@requires_compiler
def test_weight_pack_of_a_cuda_tensor(gpu):
    """A CUDA tensor is packed (on the host) and comes back on its device,
    byte for byte the CPU tensor's packing."""
    torch = cuda_torch()
    values = torch.randint(-32, 32, (32, 16))
    on_gpu = tilus.weight_pack(values.cuda(), tilus.int6, (16, 8), FIG2_LAYOUT)
    assert on_gpu.is_cuda
    assert torch.equal(on_gpu.cpu(), tilus.weight_pack(values, tilus.int6, (16, 8), FIG2_LAYOUT))
    back = tilus.weight_unpack(on_gpu, tilus.int6, (32, 16), (16, 8), FIG2_LAYOUT)
    assert back.is_cuda and torch.equal(back.cpu(), values)
