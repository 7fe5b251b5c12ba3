"""wgmma from Python: the shared layouts it reads (tilus.mma_shared,
Layout.transpose), the DSL's wgmma and transpose_shared methods, and the
Hopper matmul example (examples/python/matmul_wgmma_f16.py): its PTX, the
refusal on targets without wgmma, and, on an sm_90 GPU, its product against
numpy on non-square shapes (multiples of the tile) of random integers,
whose f32 sums are exact."""

import numpy as np
import pytest

import tilus
from tilus.lang import DSLError

from conftest import requires_compiler
from test_dsl import load_example


@requires_compiler
def test_mma_shared_layouts():
    assert str(tilus.mma_shared(64, 64, 16)) == "swizzle(local(64,8),dim=1,log_step=0).local(1,8)"
    assert str(tilus.mma_shared(64, 64, 16, swizzle=0)) == "local(8,8).local(8,8)"
    assert str(tilus.mma_shared(64, 64, 16, stages=3)) == \
        "local(3,1,1).swizzle(local(1,64,8),dim=2,log_step=0).local(1,1,8)"
    for swizzle in (128, 64, 32, 0):
        a = tilus.mma_shared(64, 128, 16, swizzle=swizzle)
        assert a.transpose() == tilus.mma_shared(64, 128, 16, k_dim=0, swizzle=swizzle)
        assert a.transpose().transpose() == a
    with pytest.raises(tilus.LayoutError, match="multiple of 8 rows"):
        tilus.mma_shared(12, 64, 16)
    with pytest.raises(tilus.LayoutError, match="128, 64 or 32 bytes"):
        tilus.mma_shared(64, 64, 16, swizzle=16)
    with pytest.raises(tilus.LayoutError, match="not 4-bit"):
        tilus.mma_shared(64, 64, 4)


class _BadB(tilus.Kernel):
    def __call__(self, p: tilus.pointer(tilus.float16)):
        self.attrs.blocks = [1]
        self.attrs.warps = 4
        a = self.allocate_shared(tilus.float16, [64, 16], tilus.mma_shared(64, 16, 16, swizzle=32))
        b = self.allocate_register(tilus.float16, [16, 8], "spatial(16,8)", value=1.0)
        d = self.allocate_register(tilus.float32, [64, 8],
                                   "spatial(4,1).local(2,1).spatial(8,4).local(1,2)", value=0.0)
        self.wgmma_mma(a, b, d)


@requires_compiler
def test_wgmma_dsl_refuses_a_register_b():
    with pytest.raises(DSLError, match="b is a shared tensor"):
        _BadB().mlir()


@requires_compiler
def test_wgmma_persistent_epilogue_ptx():
    """The staged epilogue: two m64n128k16 products per k step (the column
    parts), stmatrix into the staging buffer, and the TMA store of each
    part's boxes; without it, two-element stores to global memory."""
    mod = load_example("matmul_wgmma_f16")
    ptx = mod.MatmulWgmmaPersistent().compile(target="sm_90a", ptx_only=True)
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16") == 8
    assert "stmatrix.sync.aligned" in ptx
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 4
    assert "st.global" not in ptx
    ptx = mod.MatmulWgmmaPersistent(staged_epilogue=False).compile(target="sm_90a",
                                                                   ptx_only=True)
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 4
    assert "st.global.b32" in ptx and "global.shared::cta.tile.bulk_group" not in ptx
    with pytest.raises(ValueError, match="parts of a multiple of 16"):
        mod.MatmulWgmmaPersistent(128, 200)


def test_wgmma_example_ptx_and_targets():
    mod = load_example("matmul_wgmma_f16")
    k = mod.MatmulWgmma()
    ptx = k.compile(target="sm_90a", ptx_only=True)
    # 4 k steps of m64n256k16 per k tile of 64, A and B from descriptors.
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 4
    assert "fence.proxy.async.shared::cta;" in ptx
    assert ".extern .shared .align 1024 .b8 __tilus_dynamic_shared[];" in ptx
    with pytest.raises(tilus.CompileError, match="wgmma needs the sm_90a target"):
        k.compile(target="sm_80", ptx_only=True)
    with pytest.raises(ValueError, match="stages >= 3"):
        mod.MatmulWgmma(stages=2)


@pytest.fixture(scope="module")
def hopper():
    try:
        rt = tilus.Runtime()
    except tilus.TilusRuntimeError as e:
        pytest.skip(f"no CUDA device: {e}")
    if rt.compute_capability != (9, 0):
        rt.close()
        pytest.skip("wgmma needs an sm_90 GPU")
    yield rt
    rt.close()


def check_tma_matmul(hopper, art, name, shape, seed, *extra):
    """Runs a TMA example kernel (it takes M, N and K, then `extra`) on
    small-integer inputs and compares with numpy exactly (the f32 sums are
    exact); the output starts as NaN, so every element must be written."""
    m, n, k = shape
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=(m, k)).astype(np.float16)
    w = rng.integers(-3, 4, size=(n, k)).astype(np.float16)
    kernel = hopper.kernel(art, name)
    da, dw = hopper.to_device(a), hopper.to_device(w)
    dc = hopper.to_device(np.full((m, n), np.nan, np.float16))
    kernel(da, dw, dc, m, n, k, *extra)
    hopper.synchronize()
    want = (a.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
    assert np.array_equal(dc.numpy(), want)


@requires_compiler
@pytest.mark.parametrize("config,shape", [
    ((128, 256, 64, 2, 4), (256, 512, 320)),
    ((128, 128, 64, 2, 3), (384, 256, 192)),
    ((64, 64, 128, 1, 3), (192, 128, 512)),
], ids=["128x256x64", "128x128x64-3stages", "64x64x128-1wg"])
def test_wgmma_matmul_on_gpu(hopper, config, shape):
    mod = load_example("matmul_wgmma_f16")
    bm, bn, bk = config[:3]
    m, n, k = shape
    rng = np.random.default_rng(sum(shape))
    a = rng.integers(-3, 4, size=(m, k)).astype(np.float16)
    w = rng.integers(-3, 4, size=(n, k)).astype(np.float16)
    kernel = hopper.kernel(mod.MatmulWgmma(*config).compile(target="sm_90a"), "matmul_wgmma")
    da, dw = hopper.to_device(a), hopper.to_device(w)
    dc = hopper.empty((m, n), np.float16)
    kernel(da, dw, dc, m // bm, n // bn, k // bk)
    hopper.synchronize()
    # The f32 sums are exact; both sides round them to f16 once.
    want = (a.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
    assert np.array_equal(dc.numpy(), want)


@requires_compiler
@pytest.mark.parametrize("config,shape", [
    ((128, 256, 64, 2, 4), (256, 512, 320)),
    ((128, 128, 64, 2, 3), (384, 256, 192)),
    ((64, 64, 128, 1, 3), (192, 128, 512)),
    ((64, 64, 64, 1, 4), (64, 64, 64)),
], ids=["128x256x64", "128x128x64-3stages", "64x64x128-1wg", "one-tile"])
def test_wgmma_tma_matmul_on_gpu(hopper, config, shape):
    """The example's TMA variant (tilus.tma_load into the swizzled layouts,
    one mbarrier per stage) against numpy, exactly; K of 1 to 5 tiles, so
    the stages' phases wrap."""
    mod = load_example("matmul_wgmma_f16")
    art = mod.MatmulWgmmaTma(*config).compile(target="sm_90a")
    assert b"tensormap 0 2 2 s3 s5 box" in art.data
    check_tma_matmul(hopper, art, "matmul_wgmma_tma", shape, sum(shape) + 1)


@requires_compiler
@pytest.mark.parametrize("config,shape", [
    ((128, 256, 64, 2, 4), (256, 512, 640)),
    ((128, 128, 64, 2, 6), (384, 256, 192)),
    ((64, 64, 64, 1, 3), (64, 128, 64)),
    ((64, 128, 64, 1, 4), (64, 256, 8192)),
], ids=["128x256x64", "128x128x64-6stages", "one-k-tile", "long-k"])
def test_wgmma_ws_matmul_on_gpu(hopper, config, shape):
    """The warp-specialized example (a producer thread group issuing TMA, a
    consumer group on wgmma, mbarriers between) against numpy, exactly;
    10 k tiles through 4 stages make both barriers' phases wrap. The long K
    (128 k tiles) hung before the producer synchronized after its waits and
    before group barriers were convergent (docs/hopper.md, thread groups)."""
    mod = load_example("matmul_wgmma_f16")
    art = mod.MatmulWgmmaWS(*config).compile(target="sm_90a")
    check_tma_matmul(hopper, art, "matmul_wgmma_ws", shape, sum(shape) + 2)


@requires_compiler
@pytest.mark.parametrize("config,shape,blocks", [
    ((128, 256, 64, 2, 4, 16), (512, 512, 2048), 3),
    ((128, 128, 64, 2, 4, 2), (640, 384, 320), 4),
    ((64, 128, 64, 1, 3, 8), (192, 256, 192), 132),
    ((128, 256, 64, 2, 4, 16, True), (256, 512, 1024), 2),
    ((128, 192, 64, 2, 4, 4), (384, 576, 320), 5),
    ((128, 256, 64, 2, 4, 16, False, False), (256, 768, 448), 2),
], ids=["3-blocks-long-k", "uneven-groups", "more-blocks-than-tiles", "setmaxnreg",
        "parts-of-96", "register-epilogue"])
def test_wgmma_persistent_matmul_on_gpu(hopper, config, shape, blocks):
    """The persistent example against numpy, exactly: blocks taking several
    output tiles each (stages and phases running on across tiles), tile
    groups that do not divide the tile rows, idle blocks, registers moved
    from the producer to the consumers (set_max_registers), the staged
    epilogue's column parts of 96 (the 64-byte swizzle) and the epilogue
    from registers (staged_epilogue=False)."""
    mod = load_example("matmul_wgmma_f16")
    art = mod.MatmulWgmmaPersistent(*config).compile(target="sm_90a")
    check_tma_matmul(hopper, art, "matmul_wgmma_persistent", shape, sum(shape) + 3, blocks)


@requires_compiler
@pytest.mark.parametrize("config,shape,blocks", [
    ((128, 256, 64, 2, 4, 16), (512, 512, 2048), 4),
    ((128, 128, 64, 2, 4, 2), (768, 384, 320), 6),
    ((64, 128, 64, 1, 3, 8), (256, 256, 192), 132),
], ids=["2-clusters-long-k", "uneven-groups", "more-clusters-than-tiles"])
def test_wgmma_cluster_matmul_on_gpu(hopper, config, shape, blocks):
    """The cluster example against numpy, exactly: W tiles shared by TMA
    multicast between the two blocks of a cluster, stages released on both
    blocks' barriers, several output tiles per cluster, idle clusters."""
    mod = load_example("matmul_wgmma_f16")
    art = mod.MatmulWgmmaCluster(*config).compile(target="sm_90a")
    assert b"cluster 2 1 1" in art.data
    check_tma_matmul(hopper, art, "matmul_wgmma_cluster", shape, sum(shape) + 4, blocks)
