"""The quantized matmul template (tilus.ops.qmatmul, docs/quantized-matmul.md):
every weight type of the paper's Figure 10 compiles to one kernel with the
expected launch shape; round-to-nearest quantization; and, on a GPU, results
against an f64 reference on ragged M for several types, group sizes and
configurations, bit-exact where every product and sum is representable."""

import os

import numpy as np
import pytest

import tilus
from tilus.ops import qmatmul, qmatmul_fp8, qmatmul_i8_wgmma, qmatmul_wgmma

from conftest import cuda_torch, requires_compiler

FIG10 = ([tilus.uint_(b) for b in range(1, 9)] + [tilus.int_(b) for b in range(2, 9)]
         + [tilus.float_(e, m) for e, m in [(4, 3), (5, 2), (3, 3), (3, 2), (2, 3), (2, 2),
                                            (2, 1), (1, 2), (1, 1), (2, 0)]])


@requires_compiler
@pytest.mark.parametrize("wtype", FIG10, ids=str)
def test_every_figure10_type_compiles(wtype):
    k = qmatmul.QuantizedMatmul(wtype, warps=4, n_tiles=2, stages=3, split_k=2)
    art = k.compile(target="sm_90a")
    (info,) = art.kernels
    assert info.name == "qmatmul" and info.block == (128, 1, 1)
    assert info.grid == ("s6 ceildiv 16", "s7 floordiv 64", "2")
    # split_k 2: the f32 partials and i32 counters after C.
    assert [p.describe() for p in info.params] == ["ptr f16", "ptr ui8", "ptr f16", "ptr f16",
                                                  "ptr f32", "ptr i32", "i32", "i32", "i32"]
    assert info.shared_bytes == k.shared_bytes


@requires_compiler
@pytest.mark.parametrize("make", [
    lambda: qmatmul.QuantizedMatmul(tilus.uint4, 128, 8, warps=4, n_tiles=2, stages=3,
                                    split_k=2),
    lambda: qmatmul.template(tilus.int4, tilus.int8, warps=4),
    lambda: qmatmul_wgmma.wgmma_program(tilus.uint4, 128, 8, (1, 64, 4)),
    lambda: qmatmul_wgmma.wgmma_program(tilus.float6_e3m2, 128, 0, (2, 64, 4)),
    lambda: qmatmul_wgmma.wgmma_program(tilus.uint4, 128, 8, (4, 128, 3), tilus.bfloat16),
    lambda: qmatmul_wgmma.wgmma_program(tilus.uint4, 128, 8, (2, 128, 4, 1)),
    lambda: qmatmul_fp8.fp8_program(tilus.int4, 128, 0, (2, 256, 3, 1)),
    lambda: qmatmul_wgmma.wgmma_program(tilus.uint4, 32, 0, (2, 128, 4, 1), None, True, True),
    lambda: qmatmul_wgmma.wgmma_program(tilus.uint3, 128, 0, (1, 64, 4), None, True, True),
    lambda: qmatmul.QuantizedMatmul(tilus.uint4, 64, 0, warps=4, n_tiles=2, zeros=tilus.uint8),
    lambda: qmatmul_wgmma.wgmma_program(tilus.uint4, 128, 0, (2, 128, 4, 1), None, tilus.uint8),
    lambda: qmatmul_i8_wgmma.i8_program(tilus.uint4, 128, 8, (2, 160, 4, 2), True),
], ids=["mma_sync", "int8", "wgmma_1x64", "wgmma_2x64_f6", "wgmma_4x128_bf16", "wgmma_ws",
        "fp8", "wgmma_ws_zeros_bias", "wgmma_1x64_zeros_bias", "mma_sync_zero_codes",
        "wgmma_ws_zero_codes", "int8_wgmma"])
def test_kernels_take_no_slow_copy(make, tmp_path):
    """No shipped variant copies a tile element by element: the lowering's
    remark for a copy_async without provably aligned chunks stays silent
    (the plain wgmma variant once viewed A with the kernel's k, lost
    cp.async for A and ran 3-10x slower at M = 64-128)."""
    import subprocess
    from conftest import build_dir
    opt = build_dir() / "tools" / "tilus-opt" / "tilus-opt"
    if not opt.is_file():
        pytest.skip("no tilus-opt in the build tree")
    src = tmp_path / "k.mlir"
    src.write_text(make().mlir())
    r = subprocess.run([str(opt), str(src), "--lower-to-nvvm", "--target=sm_90a",
                        "--tilus-remarks", "-o", "/dev/null"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "copy_async" not in r.stderr, r.stderr


@requires_compiler
@pytest.mark.parametrize("wtype", [tilus.uint4, tilus.int8, tilus.float6_e3m2], ids=str)
def test_bf16_activations_compile(wtype):
    art = qmatmul.template(wtype, tilus.bfloat16, warps=4, split_k=2).compile(target="sm_90a")
    assert [p.describe() for p in art.kernels[0].params][:4] == ["ptr bf16", "ptr ui8",
                                                                "ptr bf16", "ptr bf16"]
    with pytest.raises(ValueError, match="not supported"):
        qmatmul.template(wtype, tilus.float32)


@requires_compiler
@pytest.mark.parametrize("wtype,cfg", [(tilus.uint4, (2, 256, 3, 1)),
                                       (tilus.float6_e3m2, (2, 192, 3, 1)),
                                       (tilus.uint2, (1, 128, 4, 0))], ids=str)
def test_warp_specialized_wgmma_compiles(wtype, cfg):
    """The warp-specialized variant: a producer warpgroup beside the
    consumers, A's tiles by TMA (one tensor map over a, the kernel's first
    argument, [M, K] from m and k), register-operand wgmma, mbarriers."""
    from tilus.ops.qmatmul_wgmma import wgmma_fits, wgmma_program
    assert wgmma_fits(cfg, 57344, 8192, wtype)
    kern = wgmma_program(wtype, 128, 0, cfg)
    art = kern.compile(target="sm_90a")
    (info,) = art.kernels
    assert info.block == (128 * (cfg[0] + 1), 1, 1)
    assert info.grid == (f"s4 ceildiv {cfg[1]}", f"s5 floordiv {64 * cfg[0]}")
    assert info.shared_bytes >= kern.shared_bytes
    ptx = art.image
    assert "wgmma.mma_async.sync.aligned" in ptx and "cp.async.bulk.tensor.2d" in ptx
    assert "mbarrier.try_wait.parity" in ptx and "setmaxnreg" in ptx
    # Three stages of 256 rows with 6-bit weights, or a lag of all the
    # stages, do not fit.
    assert not wgmma_fits((2, 256, 3, 1), 57344, 8192, tilus.float6_e3m2)
    assert not wgmma_fits((2, 128, 3, 3), 57344, 8192, wtype)


@requires_compiler
@pytest.mark.parametrize("wtype,offset", [(tilus.uint4, 8), (tilus.int4, 0), (tilus.uint3, 4),
                                          (tilus.float6_e3m2, 0), (tilus.uint8, 128),
                                          (tilus.uint1, 0), (tilus.int6, 0),
                                          (tilus.float4_e2m1, 0)], ids=str)
def test_device_pack_compiles(wtype, offset):
    art = qmatmul.DevicePack(wtype, offset).compile(target="sm_90a")
    (info,) = art.kernels
    assert info.name == "qmatmul_pack" and info.block == (32, 1, 1)
    assert info.grid == ("s2 floordiv 128", "s3 floordiv 8")


@requires_compiler
def test_pack_from_nn_linear_order():
    """Codes in nn.Linear's [N, K] order pack to the bytes of their transpose."""
    rng = np.random.default_rng(6)
    codes_nk = rng.integers(0, 8, size=(16, 256))
    assert np.array_equal(qmatmul.pack(codes_nk, tilus.uint3, 4, order="NK"),
                          qmatmul.pack(codes_nk.T, tilus.uint3, 4))
    with pytest.raises(ValueError, match="order is 'KN' or 'NK'"):
        qmatmul.pack(codes_nk, tilus.uint3, order="nk")


@requires_compiler
def test_symmetric_unsigned_codes_are_stored_signed():
    """uint4 with offset 8 is packed as int4 values code - 8, whose cast
    absorbs the offset: the same bytes as packing the int4 values."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 16, size=(256, 16))
    assert qmatmul.QuantizedMatmul(tilus.uint4, offset=8).wtype == tilus.int4
    assert qmatmul.QuantizedMatmul(tilus.uint4, offset=3).wtype == tilus.uint4
    assert np.array_equal(qmatmul.pack(codes, tilus.uint4, 8),
                          qmatmul.pack(codes - 8, tilus.int4))


@requires_compiler
@pytest.mark.parametrize("wtype,offset", [(tilus.uint4, 8), (tilus.uint4, 3), (tilus.int2, 0),
                                          (tilus.uint1, 0), (tilus.uint3, 4),
                                          (tilus.float6_e3m2, 0), (tilus.uint8, 128),
                                          (tilus.float4_e2m1, 0), (tilus.float4_e1m2, 0)],
                         ids=str)
def test_unpack_inverts_pack(wtype, offset):
    rng = np.random.default_rng(wtype.bits)
    codes = qmatmul.random_codes(rng, wtype, (256, 24))
    packed = qmatmul.pack(codes, wtype, offset)
    assert packed.size == 256 * 24 * wtype.bits // 8
    assert np.array_equal(qmatmul.unpack(packed, wtype, 256, 24, offset), codes)


@requires_compiler
def test_interleaved_tiles_put_each_mma_pair_16_bits_apart():
    """For 1-, 2- and 4-bit integers and 4-bit floats the two weights of an
    mma.sync B register (rows k, k + 1 of a column) are packed 16 bits apart
    in one 32-bit word, which the cast takes with one mask (no PRMT in the
    kernel); for 6-bit floats 24 bits apart, at the same bit of their bytes
    (one PRMT brings them 16 apart); other widths keep TILE_LAYOUT."""
    from tilus.layout import Layout
    mma = Layout.parse(qmatmul.TILE_LAYOUT)
    for wtype in (tilus.uint1, tilus.int2, tilus.uint4, tilus.int4, tilus.float4_e2m1,
                  tilus.float4_e1m2, tilus.float6_e3m2, tilus.float6_e2m3):
        b, tile = wtype.bits, Layout.parse(qmatmul.interleaved(wtype))
        for lane in (0, 5, 31):
            bit_of = {}
            for i in range(32):
                r, p, n = tile(lane, i)
                bit_of[2 * r + p, n] = b * i
            for i in range(0, 32, 2):                      # an mma register's pair
                k, n = mma(lane, i)
                lo, hi = bit_of[k, n], bit_of[k + 1, n]
                if b == 6:
                    assert hi - lo == 24, (wtype, lane, i)
                else:
                    assert hi - lo == 16 and lo // 32 == hi // 32, (wtype, lane, i)
    assert qmatmul.interleaved(tilus.uint3) is None and qmatmul.interleaved(tilus.uint8) is None
    assert (qmatmul.interleaved(tilus.float5_e2m2) is None
            and qmatmul.interleaved(tilus.float3_e1m1) is None)
    # e5m0 has inf encodings, which the pairs' cast does not take: plain tile.
    e5m0 = tilus.float_(5, 0)
    assert qmatmul.interleaved(e5m0) is None and qmatmul.format_since(e5m0) == 1

    def ptx_of(n_tiles):
        p = tilus.compile(qmatmul.QuantizedMatmul(tilus.uint4, offset=8, n_tiles=n_tiles).mlir(),
                          ptx_only=True, cache=False)
        return p if isinstance(p, str) else p.decode()
    # The LOP3 per pair, no PRMT. With 8 column tiles per warp (attrs.fp_contract)
    # the bias addition moves into the accumulator (MmaDot.c): no f16x2
    # arithmetic is left; with 1 (2 pairs of B per added mma) it stays.
    wide, narrow = ptx_of(8), ptx_of(1)
    assert "lop3.b32" in wide and "prmt" not in wide and "prmt" not in narrow
    assert "add.rn.f16x2" not in wide and "fma.rn.f16x2" not in wide
    assert "add.rn.f16x2" in narrow


@requires_compiler
@pytest.mark.parametrize("wtype", [tilus.int4, tilus.uint3, tilus.float6_e3m2], ids=str)
def test_quantize_round_to_nearest(wtype):
    rng = np.random.default_rng(4)
    w = rng.normal(size=(24, 256))                          # [N, K]
    codes, scales, offset = qmatmul.quantize(w, wtype, 128)
    assert codes.shape == (256, 24) and scales.shape == (2, 24)
    if isinstance(wtype, tilus.IntDType) and not wtype.signed:
        assert codes.min() >= 0
    back = qmatmul.dequantize(codes, scales, wtype, offset, 128)
    step = np.repeat(scales, 128, axis=0)
    # Within half a step of the grid around each value (a step at most the
    # largest gap of the format for floats).
    gap = 0.5 if not isinstance(wtype, tilus.FloatDType) else np.max(np.diff(
        np.unique(wtype.values()[np.isfinite(wtype.values())])))
    assert np.all(np.abs(back - w.T) <= gap * step + 1e-12)


@requires_compiler
@pytest.mark.parametrize("cfg", [(1, 64, 4), (2, 128, 4, 1)], ids=["plain", "ws"])
@pytest.mark.parametrize("zeros,bias", [(True, False), (False, True), (True, True),
                                        (tilus.uint8, True)],
                         ids=["zeros", "bias", "zeros-bias", "codes-bias"])
def test_wgmma_zeros_and_bias_compile(cfg, zeros, bias):
    """The wgmma variants take zero points (values, or uint8 codes) and a
    bias as the mma.sync template does: (a, w, scales, [zeros], [bias], c,
    m, n, k); the zeros' tiles ride the stages beside the scales
    (shared_bytes, wgmma_fits)."""
    from tilus.ops.qmatmul_wgmma import wgmma_fits, wgmma_program
    k = wgmma_program(tilus.uint4, 32, 0, cfg, None, zeros, bias)
    (info,) = k.compile(target="sm_90a").kernels
    zero_param = ["ptr ui8" if zeros == tilus.uint8 else "ptr f16"] if zeros else []
    assert [p.describe() for p in info.params] == (
        ["ptr f16", "ptr ui8", "ptr f16"] + zero_param + ["ptr f16"] * bias
        + ["ptr f16", "i32", "i32", "i32"])
    plain = wgmma_program(tilus.uint4, 32, 0, cfg)
    (plain_info,) = plain.compile(target="sm_90a").kernels
    # stages x [4, 1, bn] zeros of 2 bytes (values) or 1 (codes)
    tiles = cfg[2] * 4 * 64 * cfg[0] * (0 if not zeros else 1 if zeros == tilus.uint8 else 2)
    assert k.shared_bytes - plain.shared_bytes == tiles
    assert info.shared_bytes - plain_info.shared_bytes == tiles
    # Four zeros tiles of 2 x 64 columns per stage: where the stages fill a
    # block without them, they no longer fit with them.
    assert wgmma_fits((2, 256, 3, 1), 8192, 8192, tilus.uint5, 32)
    assert not wgmma_fits((2, 256, 3, 1), 8192, 8192, tilus.uint5, 32, zeros=True)


@requires_compiler
@pytest.mark.parametrize("group,zeros,bias", [(32, False, False), (64, True, False),
                                              (128, True, True), (256, False, True)],
                         ids=["g32", "g64-zeros", "g128-zeros-bias", "g256-bias"])
def test_groups_zeros_and_bias_compile(group, zeros, bias):
    """Zero points and a bias are operands only where the kernel is built
    with them: (a, w, scales, [zeros], [bias], c, m, n, k). Groups of 32 and
    64 rows scale the weights before the Dot (f16x2 multiplies, no f32 tile
    per group); the regrouping of the weights is a relabelling (no PRMT,
    shuffle or shared store)."""
    k = qmatmul.QuantizedMatmul(tilus.uint4, group_size=group, n_tiles=2, zeros=zeros,
                                bias=bias)
    art = k.compile(target="sm_90a")
    (info,) = art.kernels
    assert [p.describe() for p in info.params] == (
        ["ptr f16", "ptr ui8", "ptr f16"] + ["ptr f16"] * (zeros + bias)
        + ["ptr f16", "i32", "i32", "i32"])
    assert info.shared_bytes == k.shared_bytes
    ptx = tilus.compile(k.mlir(), ptx_only=True, cache=False)
    ptx = ptx if isinstance(ptx, str) else ptx.decode()
    assert "prmt" not in ptx and "shfl" not in ptx and "st.shared" not in ptx
    assert ("mul.f16x2" in ptx or "mul.rn.f16x2" in ptx) == (group < 128)
    assert ("sub.f16x2" in ptx or "sub.rn.f16x2" in ptx) == zeros


def test_template_argument_errors():
    with pytest.raises(ValueError, match="group_size 96: 32, 64 or a multiple of 128"):
        qmatmul.QuantizedMatmul(tilus.uint4, group_size=96)
    with pytest.raises(ValueError, match="zero points replace the offset"):
        qmatmul.QuantizedMatmul(tilus.uint4, offset=8, zeros=True)


@pytest.mark.parametrize("wtype", [tilus.uint4, tilus.uint3, tilus.uint8], ids=str)
def test_quantize_asymmetric_round_to_nearest(wtype):
    """Each group's range (with 0 in it) maps onto the codes: every weight
    within half a step of its dequantized value, zeros codes of the type; a
    group of one sign is still covered."""
    rng = np.random.default_rng(wtype.bits)
    w = rng.normal(size=(24, 256)) + np.linspace(-1, 3, 24)[:, None]   # [N, K]
    w[3] = np.abs(w[3]) + 1.0                                  # all positive
    codes, scales, zeros = qmatmul.quantize_asymmetric(w, wtype, 64)
    assert codes.shape == (256, 24) and scales.shape == zeros.shape == (4, 24)
    top = (1 << wtype.bits) - 1
    assert codes.min() >= 0 and codes.max() <= top and zeros.min() >= 0 and zeros.max() <= top
    back = qmatmul.dequantize(codes, scales, wtype, 0, 64, zeros)
    step = np.repeat(scales, 64, axis=0)
    assert np.all(np.abs(back - w.T) <= 0.5 * step * (1 + 1e-6))
    with pytest.raises(ValueError, match="an unsigned integer type"):
        qmatmul.quantize_asymmetric(w, tilus.int4)


def test_choose_config_divides_the_shape():
    for n, k in [(57344, 8192), (8192, 8192), (10240, 8192), (8192, 28672), (256, 1024),
                 (24, 384)]:
        w, nt, s, sk, kpt = qmatmul.choose_config(16, n, k, tilus.uint4)
        assert n % (w * nt * 8) == 0 and (k // 128) % (sk * kpt) == 0
        # Larger M: the block the runner runs (n_tiles over the row tiles).
        for m in (24, 100, 300):
            for act in (None, tilus.int8):
                cfg = qmatmul.choose_config(m, n, k, tilus.uint3, act)
                assert qmatmul.fits(qmatmul._with_row_tiles(cfg, qmatmul.row_tiles(m)), n, k)
    # At N = 256 the 4-column-tile int8 block (128 columns with 4 row tiles)
    # fits although its 16 n_tiles would not (512 columns).
    assert qmatmul.choose_config(300, 256, 1024, tilus.uint3, tilus.int8) == (4, 16, 4, 1, 1)


def test_one_warpgroup_rows_fill_one_wave():
    """One-warpgroup blocks from M = 65 to 192: the height (64 to M's own,
    steps of 32) whose grid fills the most of one wave, the fewest rows on
    a tie, where that is at least 0.7 of it; and stream-K does not take over
    such a grid for its idle SMs alone."""
    rows = qmatmul.one_warpgroup_rows
    for m in (65, 96, 128, 160, 192):
        own = qmatmul.own_height(m)
        assert rows(m, 8192) == own                     # one row of 128 blocks
        assert rows(m, 6144) == own                     # 96 blocks: 0.73 of a wave
        assert rows(m, 10240) is None                   # 160 blocks even in one row
        # N = 2048: 64 blocks in two rows of 64; 96 in three from M = 129.
        assert rows(m, 2048) == (None if m <= 128 else 64)
        assert rows(m, 4096) == (64 if m <= 128 else 96)    # two rows of 64 blocks
        assert qmatmul.wgmma_config(m, 6144, 4096, tilus.uint4) == (1, own, 4, 1)
        # With K = 28672 each stream-K block gets 81 k tiles or more: stream-K.
        assert qmatmul.is_stream_k(qmatmul.wgmma_config(m, 6144, 28672, tilus.uint4))


def test_data_parallel_config_fills_one_wave():
    """M = 33-256: the warp-specialized variant, its block height from
    block_rows (the least waves times rows), one warpgroup where even its
    grid fits one wave; two stages where three of 256 rows do not fit;
    one block row of one-warpgroup blocks of M's own height (up to 192)
    where it fills nearly one wave; else 128-row blocks of one warpgroup for
    a dear decode where 64-row ones fit one wave."""
    u4, f6 = tilus.uint4, tilus.float6_e3m2
    assert qmatmul.data_parallel_config(32, 8192, 8192, u4) is None
    for m in (33, 64):
        assert qmatmul.data_parallel_config(m, 8192, 8192, u4) == (1, 64, 4, 1)     # 64 blocks
        assert qmatmul.data_parallel_config(m, 10240, 8192, u4) == (2, 64, 4, 1)    # 80 blocks
        assert qmatmul.data_parallel_config(m, 57344, 8192, u4) == (2, 64, 4, 1)    # M's own
    for m in (65, 96, 128):
        # M's own height, rounded up to 32.
        own = 96 if m <= 96 else 128
        # One block row of one-warpgroup blocks fills 0.97 of a wave (128
        # blocks), and each decodes during its own product.
        for wtype, k in ((u4, 8192), (f6, 8192), (tilus.uint3, 28672)):
            assert qmatmul.data_parallel_config(m, 8192, k, wtype) == (1, own, 4, 1)
        # At N = 4096 one row would be 64 blocks: 64-row blocks, 128 of them.
        for wtype in (u4, f6):
            assert qmatmul.data_parallel_config(m, 4096, 4096, wtype) == (1, 64, 4, 1)
        # N = 2048: no grid of them fills 0.7 of a wave; a dearer decode where
        # 64-row blocks fit one wave takes 128 rows, one warpgroup.
        assert qmatmul.data_parallel_config(m, 2048, 4096, f6) == (1, 128, 4, 1)
        # 80 blocks, not 160.
        assert qmatmul.data_parallel_config(m, 10240, 8192, u4) == (2, own, 4, 1)
        assert qmatmul.data_parallel_config(m, 57344, 8192, u4) == (2, own, 4, 1)
    # Above 192 rows the one-warpgroup rule stops (224: two warpgroups).
    assert qmatmul.data_parallel_config(224, 8192, 8192, u4) == (2, 128, 4, 1)
    for m in (129, 256):
        own = 160 if m == 129 else 256
        # One warpgroup's 128 blocks of M's own rows, or two's of 128 rows.
        assert qmatmul.data_parallel_config(m, 8192, 8192, u4) == ((1, 160, 4, 1) if m == 129
                                                           else (2, 128, 4, 1))
        assert qmatmul.data_parallel_config(m, 10240, 8192, u4) == (2, own, 3, 1)
        assert qmatmul.data_parallel_config(m, 10240, 8192, f6) == (2, own, 3 if m == 129 else 2,
                                                             1 if m == 129 else 0)
    # Beyond 256 rows: two block rows of 160 (prefill_heights).
    assert qmatmul.data_parallel_config(300, 8192, 8192, f6) == (2, 160, 4, 1)
    # N not a multiple of 128: one warpgroup (64 columns a block).
    assert qmatmul.data_parallel_config(100, 8256, 8192, u4)[0] == 1


def test_stream_k_config_where_the_grid_falls_short():
    """From M = 65 to 256, wgmma_config takes the stream-K grid where the
    data-parallel one's last wave is far from full (N = 10240: 80 blocks of
    128 columns; N = 57344 below M = 256: 3.4 waves) or its blocks are
    weaker with many k tiles per stream-K block (K = 28672), or shorter
    with even more (N = 57344, M = 256); not where 128-row blocks of two
    warpgroups fill their waves (M = 256, N = K = 8192 or K = 28672) or a
    block would get few k tiles (N = K = 8192)."""
    u4, f6 = tilus.uint4, tilus.float6_e3m2
    sk = qmatmul.is_stream_k
    for m in (96, 128, 192):
        for n, k in [(10240, 8192), (57344, 8192), (8192, 28672)]:
            cfg = qmatmul.wgmma_config(m, n, k, u4)
            assert cfg == (2, qmatmul.own_height(m), 4, 1, "sk"), (m, n, k)
        assert not sk(qmatmul.wgmma_config(m, 8192, 8192, u4))
    # Six-bit weights: three stages of 192 rows, two without lag of 256.
    assert qmatmul.wgmma_config(192, 10240, 8192, f6) == (2, 192, 3, 1, "sk")
    assert qmatmul.wgmma_config(256, 10240, 8192, f6) == (2, 256, 2, 0, "sk")
    assert qmatmul.wgmma_config(256, 10240, 8192, u4) == (2, 256, 3, 1, "sk")
    for n, k in [(8192, 8192), (8192, 28672)]:
        assert qmatmul.wgmma_config(256, n, k, u4) == (2, 128, 4, 1)
    # Taller blocks than the data-parallel grid's, with 217 k tiles each.
    assert qmatmul.wgmma_config(256, 57344, 8192, u4) == (2, 256, 3, 1, "sk")
    # Not for M <= 64 or above 256, nor for int8 x.
    for m in (64, 300):
        assert not sk(qmatmul.wgmma_config(m, 10240, 8192, u4))
    assert qmatmul.wgmma_config(128, 10240, 8192, u4, tilus.int8) is None
    with pytest.raises(tilus.TilusArgumentError, match="takes f16 or bf16 x"):
        qmatmul.instance(u4, 128, 8, (2, 128, 4, 1, "sk"), tilus.int8)
    # No work to share (N or K of 0): the data-parallel grid, which stores
    # zeros (and the bias); stream_k_plan refuses.
    assert qmatmul.stream_k_config(100, 0, 1024, u4) is None
    assert not sk(qmatmul.wgmma_config(100, 10240, 0, u4))
    from tilus.ops.qmatmul_wgmma import stream_k_plan
    with pytest.raises(ValueError, match="no work to share"):
        stream_k_plan(100, 10240, 0, (2, 128, 4, 1, "sk"), 132)


def test_stream_k_plan_bounds_the_sharing():
    """stream_k_plan's partial slots: at least the most blocks that share
    one tile (counted by the kernel's own owner rule), at most one block
    per unit of work."""
    from tilus.ops.qmatmul_wgmma import stream_k_plan
    rng = np.random.default_rng(5)
    for _ in range(3000):
        g, bm = int(rng.integers(1, 3)), int(rng.choice([64, 96, 128, 192, 256]))
        m, n = int(rng.integers(1, 600)), 64 * g * int(rng.integers(1, 200))
        k, sms = 128 * int(rng.integers(1, 80)), int(rng.choice([1, 7, 114, 132]))
        blocks, share, tiles = stream_k_plan(m, n, k, (g, bm, 3, 1, "sk"), sms)
        kt = k // 128
        units = tiles * kt
        assert tiles == -(-m // bm) * (n // (64 * g)) and blocks == min(sms, units)

        def owner(u):
            return ((u + 1) * blocks - 1) // units
        most = max(owner(t * kt + kt - 1) - owner(t * kt) + 1 for t in range(tiles))
        assert most <= share <= blocks, (m, n, k, g, bm, sms)


def test_block_rows_counts_waves():
    """block_rows, at the points the fourteenth run measured: M's own height
    where it takes fewer waves (N = 57344, M = 192: 4 waves of 192 rows
    against 7 of 128), or where one warpgroup's grid of it fits one wave
    (N = 8192, M = 192), 128 rows where two M's own rows of one warpgroup
    are more (N = 8192, M = 224) or where the decode is cheap and the waves
    nearly even (u4 at M = 256: 7 x 128 against 4 x 256 rows), M's own for
    a dear decode there; 64 rows where their grid fits one wave (N =
    4096)."""
    for m, n, dear, rows in [(192, 57344, False, 192), (192, 57344, True, 192),
                             (136, 57344, False, 160), (192, 8192, False, 192),
                             (192, 8192, True, 192), (224, 8192, False, 128),
                             (224, 8192, True, 128), (256, 57344, False, 128),
                             (256, 57344, True, 256), (192, 10240, False, 192),
                             (192, 4096, False, 64), (96, 8192, False, 64),
                             (72, 57344, False, 96)]:
        assert qmatmul.block_rows(m, n, dear) == rows, (m, n, dear)
    # Every configuration it leads to is one wgmma_fits takes (registers,
    # shared memory) for the types it stands for.
    from tilus.ops.qmatmul_wgmma import wgmma_fits
    for m in range(65, 257, 3):
        for n in (4096, 8192, 10240, 28672, 57344, 128256):
            for wtype in (tilus.uint4, tilus.uint8, tilus.float6_e3m2, tilus.uint3):
                for zeros in (False, True, tilus.uint8):
                    cfg = qmatmul.wgmma_config(m, n, 8192, wtype, None, 128, zeros)
                    assert cfg and wgmma_fits(cfg, n, 8192, wtype, 128, zeros=zeros), (m, n)


I8_TYPES = [(tilus.uint4, 8), (tilus.int4, 0), (tilus.uint3, 4), (tilus.uint8, 128),
            (tilus.uint1, 0), (tilus.int2, 0), (tilus.int6, 0), (tilus.uint7, 64),
            (tilus.uint4, 7), (tilus.uint2, 1), (tilus.int4, -1)]


@requires_compiler
@pytest.mark.parametrize("wtype,offset", I8_TYPES, ids=str)
def test_int8_activations_compile_to_s8_mma(wtype, offset):
    """int8 x: the weights widened to s8 in registers (no local memory) for
    mma.sync m16n8k32, A by ldmatrix."""
    t = qmatmul.template(wtype, tilus.int8, offset=offset, warps=4, n_tiles=2, split_k=2)
    art = t.compile(target="sm_90a")
    assert [p.describe() for p in art.kernels[0].params] == [
        "ptr i8", "ptr f32", "ptr ui8", "ptr f16", "ptr f16", "ptr f32", "ptr i32", "i32",
        "i32", "i32"]
    assert art.kernels[0].shared_bytes == t.shared_bytes
    ptx = t.compile(target="sm_90a", ptx_only=True)
    assert "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" in ptx
    assert "m16n8k16" not in ptx and ".local" not in ptx and "[%SP" not in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx


@requires_compiler
@pytest.mark.parametrize("wtype", [tilus.uint4, tilus.uint3, tilus.uint7], ids=str)
def test_int8_zero_codes_compile(wtype):
    """int8 x with uint8 zero codes: a zeros parameter after the scales, one
    byte per column and group through the stages, and still only s8 mma.sync
    in registers."""
    t = qmatmul.template(wtype, tilus.int8, zeros=tilus.uint8, warps=4, n_tiles=2, split_k=2)
    plain = qmatmul.template(wtype, tilus.int8, warps=4, n_tiles=2, split_k=2)
    art = t.compile(target="sm_90a")
    assert [p.describe() for p in art.kernels[0].params] == [
        "ptr i8", "ptr f32", "ptr ui8", "ptr f16", "ptr ui8", "ptr f16", "ptr f32", "ptr i32",
        "i32", "i32", "i32"]
    assert art.kernels[0].shared_bytes == t.shared_bytes == plain.shared_bytes + 4 * 64
    ptx = t.compile(target="sm_90a", ptx_only=True)
    assert "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" in ptx
    assert "m16n8k16" not in ptx and ".local" not in ptx and "[%SP" not in ptx


@requires_compiler
@pytest.mark.parametrize("wtype,offset", I8_TYPES, ids=str)
def test_int8_format_round_trip(wtype, offset):
    """The int8-activation format: unpack inverts pack; the same bytes as
    the f16 format, in another order (for these types)."""
    rng = np.random.default_rng(wtype.bits)
    codes = qmatmul.random_codes(rng, wtype, (256, 64))
    p8 = qmatmul.pack(codes, wtype, offset, activation=tilus.int8)
    p16 = qmatmul.pack(codes, wtype, offset)
    assert p8.size == p16.size and not np.array_equal(p8, p16)
    assert np.array_equal(qmatmul.unpack(p8, wtype, 256, 64, offset, activation=tilus.int8),
                          codes)


@requires_compiler
def test_int8_template_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="need integer weights"):
        qmatmul.template(tilus.float6_e3m2, tilus.int8)
    with pytest.raises(ValueError, match="uint8 needs offset 128"):
        qmatmul.template(tilus.uint8, tilus.int8)
    with pytest.raises(ValueError, match=r"are not int8 values$"):
        qmatmul.template(tilus.uint4, tilus.int8, offset=200)
    with pytest.raises(ValueError, match="has int8 activations"):
        qmatmul.QuantizedMatmulI8(tilus.uint4, activation=tilus.bfloat16)
    with pytest.raises(ValueError, match="not supported"):
        qmatmul.pack(np.zeros((128, 8), np.int64), tilus.uint4, activation="float32")
    with pytest.raises(ValueError, match="no int8-activation format for uint8 with offset 0"):
        qmatmul.pack(np.zeros((128, 8), np.int64), tilus.uint8, activation=tilus.int8)
    with pytest.raises(ValueError, match="groups of a multiple of 128"):
        qmatmul.template(tilus.uint4, tilus.int8, offset=8, group_size=64)
    for zeros in (True, tilus.float16, tilus.int8):
        with pytest.raises(ValueError, match=r"zero points as uint8 codes \(zeros=tilus.uint8\), "
                                             f"not {zeros}"):
            qmatmul.template(tilus.uint4, tilus.int8, zeros=zeros)
    for wtype in (tilus.int4, tilus.uint8):
        with pytest.raises(ValueError, match=f"unsigned weights of at most 7 bits.*not {wtype}"):
            qmatmul.template(wtype, tilus.int8, zeros=tilus.uint8,
                             offset=128 if wtype == tilus.uint8 else 0)
    with pytest.raises(ValueError, match=r"zeros: True \(values of float16\) or tilus.uint8"):
        qmatmul.QuantizedMatmul(tilus.uint4, zeros=tilus.int8)
    assert qmatmul.int8_fits(tilus.uint8, 128) and not qmatmul.int8_fits(tilus.uint8, 127)
    assert qmatmul.int8_fits(tilus.uint7, 0) and not qmatmul.int8_fits(tilus.float8_e4m3, 0)


# --- on the GPU ---------------------------------------------------------------

def _reference(a, codes, scales, wtype, offset, group):
    return a.astype(np.float64) @ qmatmul.dequantize(codes, scales, wtype, offset, group)


@pytest.fixture(scope="module")
def runner():
    torch = cuda_torch()
    if not tilus.has_compiler():
        pytest.skip("runtime-only mode: libTilus.so is not available")
    return qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))


CASES = [  # wtype, offset, group, config (None: the heuristic)
    (tilus.uint4, 8, 128, None), (tilus.int4, 0, 128, (4, 2, 3, 2, 1)),
    (tilus.uint8, 128, 256, None), (tilus.uint3, 4, 128, (8, 1, 4, 4, 1)),
    (tilus.float6_e3m2, 0, 128, (4, 1, 3, 1, 2)), (tilus.uint2, 1, 1024, None),
    (tilus.int6, 0, 128, (1, 1, 3, 1, 1)), (tilus.float8_e4m3, 0, 512, None),
    (tilus.uint1, 0, 128, (4, 1, 3, 1, 1)), (tilus.int2, 0, 256, (8, 2, 4, 2, 1)),
]


def _check_against_f64(runner, wtype, offset, group, config, m, n, k, seed):
    """Random codes, scales and f16 x: the runner's product within 1e-3 of
    the f64 reference's largest element."""
    torch = cuda_torch()
    rng = np.random.default_rng(seed)
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    scales = (rng.random((k // group, n)) * 0.02 + 0.005).astype(np.float16)
    a = rng.normal(size=(m, k)).astype(np.float16)
    want = _reference(a, codes, scales, wtype, offset, group)
    qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset).reshape(-1)).cuda()
    got = runner(torch.from_numpy(a).cuda(), qw, torch.from_numpy(scales).cuda(),
                 wtype=wtype, group_size=group, offset=offset, config=config)
    torch.cuda.synchronize()
    err = np.abs(got.cpu().numpy().astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


@pytest.mark.parametrize("wtype,offset,group,config", CASES,
                         ids=[f"{c[0]}-g{c[2]}-{c[3]}" for c in CASES])
@pytest.mark.parametrize("m", [1, 5, 16, 24, 33])
def test_against_f64(runner, wtype, offset, group, config, m):
    _check_against_f64(runner, wtype, offset, group, config, m, 256, 1024,
                       m * 7 + wtype.bits)


# wtype, group, zeros (None, "values" of x's dtype, "codes" as uint8), bias, config
GROUP_CASES = [
    (tilus.uint4, 32, None, False, None), (tilus.uint4, 64, "codes", True, None),
    (tilus.uint4, 128, "values", True, (4, 2, 3, 2, 1)), (tilus.uint3, 64, "values", False,
                                                          (4, 1, 4, 1, 2)),
    (tilus.float6_e3m2, 32, None, True, (4, 2, 3, 4, 1)), (tilus.uint8, 256, "codes", True, None),
    (tilus.int4, 64, None, True, (8, 1, 3, 2, 1)), (tilus.uint2, 32, "codes", False, None),
    # without split-K: the bias in the only block's epilogue
    (tilus.uint4, 128, "codes", True, (4, 2, 3, 1, 1)), (tilus.uint4, 32, "values", True,
                                                         (4, 1, 4, 1, 2)),
]


@pytest.mark.parametrize("wtype,group,zeros,bias,config", GROUP_CASES,
                         ids=[f"{c[0]}-g{c[1]}-{c[2]}-{'bias' if c[3] else 'nobias'}-{c[4]}"
                              for c in GROUP_CASES])
@pytest.mark.parametrize("m", [1, 21])
def test_groups_zeros_bias_against_f64(runner, wtype, group, zeros, bias, config, m):
    """Groups of 32 to 256 rows, zero points as values (fractional) or
    integer codes, a bias with and without split-K (added by the block that
    writes C), on ragged M."""
    _check_groups(runner, wtype, group, zeros, bias, config, m, 256, 1024,
                  m * 13 + group + wtype.bits)


def _check_groups(runner, wtype, group, zeros, bias, config, m, n, k, seed, bf16=False):
    """Random codes, scales (and zeros: "values" of x's dtype, or "codes"
    as uint8; bias) and x: the runner's product within 1e-3 of the f64
    reference's largest element (8e-3 for bf16, which keeps 8 significant
    bits)."""
    torch = cuda_torch()
    rng = np.random.default_rng(seed)
    dtype = torch.bfloat16 if bf16 else torch.float16
    # Operands rounded to x's dtype first, so that the reference sees them.
    rounded = lambda v: torch.from_numpy(v).to(dtype).double().numpy()  # noqa: E731
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    scales = rounded(rng.random((k // group, n)) * 0.02 + 0.005)
    z = None
    if zeros == "codes":
        z = rng.integers(0, 1 << wtype.bits, size=(k // group, n)).astype(np.uint8)
    elif zeros == "values":
        z = rounded(rng.random((k // group, n)) * (1 << wtype.bits))
    b = rounded(rng.normal(size=n)) if bias else None
    a = rounded(rng.normal(size=(m, k)))
    want = a @ qmatmul.dequantize(codes, scales, wtype, 0, group, z)
    if b is not None:
        want = want + b

    def dev(v):
        return None if v is None else torch.from_numpy(v).to(
            torch.uint8 if v.dtype == np.uint8 else dtype).cuda()
    qw = torch.from_numpy(qmatmul.pack(codes, wtype).reshape(-1)).cuda()
    got = runner(dev(a), qw, dev(scales), dev(z), dev(b), wtype=wtype, group_size=group,
                 config=config)
    torch.cuda.synchronize()
    assert got.dtype == dtype
    err = np.abs(got.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= (8e-3 if bf16 else 1e-3), err


def test_zeros_bit_exact_when_representable(runner):
    """Integer activations, uint4 codes, integer zeros and scale 1 in groups
    of 32: every product and partial sum is an integer, exact in the f32
    accumulator, and the result is rounded to f16 once, as the expected
    value is; with and without split-K."""
    torch = cuda_torch()
    rng = np.random.default_rng(9)
    m, n, k = 5, 64, 512
    codes = rng.integers(0, 16, size=(k, n))
    z = rng.integers(0, 16, size=(k // 32, n)).astype(np.uint8)
    a = rng.integers(-1, 2, size=(m, k)).astype(np.float16)
    b = rng.integers(-8, 8, size=n).astype(np.float16)
    want = (a.astype(np.int64) @ (codes - np.repeat(z.astype(np.int64), 32, axis=0))
            + b.astype(np.int64)).astype(np.float16)
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4).reshape(-1)).cuda()
    for config in [(4, 1, 3, 1, 1), (4, 1, 3, 2, 1)]:
        got = runner(torch.from_numpy(a).cuda(), qw, torch.ones(k // 32, n, dtype=torch.float16,
                                                                device="cuda"),
                     torch.from_numpy(z).cuda(), torch.from_numpy(b).cuda(), wtype=tilus.uint4,
                     group_size=32, config=config)
        torch.cuda.synchronize()
        assert np.array_equal(got.cpu().numpy(), want), config


@pytest.mark.parametrize("wtype,offset,config", [(tilus.uint4, 8, None),
                                                  (tilus.int8, 0, (4, 2, 3, 2, 1)),
                                                  (tilus.float6_e3m2, 0, (4, 1, 4, 1, 1))],
                         ids=["uint4", "int8-splitk", "f6e3m2"])
@pytest.mark.parametrize("m", [1, 19])
def test_bf16_activations_against_f64(runner, wtype, offset, config, m):
    """bf16 x, scales and output: within 8e-3 of the largest output (bf16
    keeps 8 significant bits, so its rounding alone is up to 2^-9 of it)."""
    torch = cuda_torch()
    rng = np.random.default_rng(11 + m)
    n, k, group = 256, 1024, 128
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    a = torch.from_numpy(rng.normal(size=(m, k))).bfloat16()
    s = torch.from_numpy(rng.random((k // group, n)) * 0.02 + 0.005).bfloat16()
    want = _reference(a.double().numpy(), codes, s.double().numpy(), wtype, offset, group)
    qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset).reshape(-1)).cuda()
    got = runner(a.cuda(), qw, s.cuda(), wtype=wtype, group_size=group, offset=offset,
                 config=config)
    torch.cuda.synchronize()
    assert got.dtype == torch.bfloat16
    err = np.abs(got.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= 8e-3, err


# The wgmma variant (sm_90; qmatmul_wgmma): wtype, offset, group, config
# ((warpgroups, block_m, stages); None: the runner's choice, the
# warp-specialized variant above M = 32 on an H100).
WGMMA_CASES = [
    (tilus.uint4, 8, 128, None), (tilus.int4, 0, 32, (1, 64, 4)),
    (tilus.uint3, 4, 64, (2, 256, 3)), (tilus.float6_e3m2, 0, 128, (4, 128, 3)),
    (tilus.uint8, 128, 256, (2, 128, 3)), (tilus.uint1, 0, 128, (2, 64, 4)),
    (tilus.float8_e4m3, 0, 512, None), (tilus.uint2, 1, 1024, (1, 64, 3)),
    (tilus.int6, 0, 128, None),
]


@pytest.mark.parametrize("wtype,offset,group,config", WGMMA_CASES,
                         ids=[f"{c[0]}-g{c[2]}-{c[3]}" for c in WGMMA_CASES])
@pytest.mark.parametrize("m", [33, 100, 256])
def test_wgmma_against_f64(runner, wtype, offset, group, config, m):
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    n, k = 512, 1024
    _check_against_f64(runner, wtype, offset, group, config, m, n, k, m * 5 + wtype.bits)
    if config is None:      # the warp-specialized wgmma variant ran
        cfg = runner._plans[(m, n, k, wtype, group, offset, tilus.float16, False, False,
                             None)][0]
        assert cfg == qmatmul.wgmma_config(m, n, k, wtype) and _warp_specialized(cfg)


def _warp_specialized(cfg):
    """Whether `cfg` runs the warp-specialized wgmma kernel: on a grid of
    output tiles (warpgroups, block_m, stages, lag) or a stream-K one (the
    same and "sk")."""
    return len(cfg) == 4 or qmatmul.is_stream_k(cfg)


def _check_bf16_u4(runner, seed, m, n, k, config, group=128):
    """u4 weights (offset 8) with random bf16 x and scales through `config`:
    a bf16 result within 8e-3 of the f64 reference. Returns the operands on
    the GPU (a, packed weights, scales) and the group."""
    torch = cuda_torch()
    rng = np.random.default_rng(seed)
    codes = qmatmul.random_codes(rng, tilus.uint4, (k, n))
    a = torch.from_numpy(rng.normal(size=(m, k))).bfloat16()
    s = torch.from_numpy(rng.random((k // group, n)) * 0.02 + 0.005).bfloat16()
    want = _reference(a.double().numpy(), codes, s.double().numpy(), tilus.uint4, 8, group)
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4, 8).reshape(-1)).cuda()
    got = runner(a.cuda(), qw, s.cuda(), wtype=tilus.uint4, group_size=group, offset=8,
                 config=config)
    torch.cuda.synchronize()
    err = np.abs(got.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert got.dtype == torch.bfloat16 and err <= 8e-3, err
    return a, qw, s, group


def test_wgmma_bf16_and_refusals(runner):
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    n = 256
    a, qw, s, group = _check_bf16_u4(runner, 3, 70, n, 512, (2, 64, 4))
    # A wgmma config that does not tile N: refused by name.
    with pytest.raises(tilus.TilusArgumentError, match="does not tile N = 256"):
        runner(a.cuda(), qw, s.cuda(), wtype=tilus.uint4, group_size=group, offset=8,
               config=(8, 64, 3))
    # Registers: four warpgroups leave 128 per thread, too few for 192 rows.
    with pytest.raises(tilus.TilusArgumentError, match="within the registers"):
        runner(a.cuda(), qw, s.cuda(), wtype=tilus.uint4, group_size=group, offset=8,
               config=(4, 192, 3))


# The warp-specialized wgmma variant (qmatmul_wgmma._WgmmaWS): config
# (warpgroups, block_m, stages, lag); None: the runner's choice, which takes
# it above M = 128 on an H100. Lag 0 and lag stages - 1 are the producer's
# two extremes; one warpgroup and three are the consumer counts it takes.
WS_CASES = [
    (tilus.uint4, 8, 128, None), (tilus.int4, 0, 32, (2, 128, 4, 1)),
    (tilus.uint3, 4, 64, (2, 256, 3, 1)), (tilus.float6_e3m2, 0, 128, (2, 192, 3, 1)),
    (tilus.uint8, 128, 256, (1, 128, 3, 2)), (tilus.uint1, 0, 128, (2, 128, 3, 0)),
    (tilus.float8_e4m3, 0, 512, None), (tilus.uint2, 1, 1024, (3, 128, 3, 1)),
    (tilus.int6, 0, 128, (2, 64, 2, 1)), (tilus.uint4, 8, 64, (2, 160, 3, 1)),
    (tilus.float6_e3m2, 0, 128, (2, 96, 4, 1)), (tilus.uint8, 128, 128, (2, 224, 3, 1)),
    (tilus.int4, 0, 128, (1, 192, 4, 1)), (tilus.uint4, 8, 128, (2, 128, 4, 3)),
]


@pytest.mark.parametrize("wtype,offset,group,config", WS_CASES,
                         ids=[f"{c[0]}-g{c[2]}-{c[3]}" for c in WS_CASES])
@pytest.mark.parametrize("m,k", [(129, 1024), (300, 2048), (520, 128)])
def test_wgmma_ws_against_f64(runner, wtype, offset, group, config, m, k):
    """Ragged M (rows past it arrive as zeros by TMA and are not stored),
    one k tile (fewer than the producer's lag: its last arrivals start at
    tile 0, not at KT - lag) and many."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    if k % group:
        pytest.skip("K must be a multiple of the group")
    n = 768
    _check_against_f64(runner, wtype, offset, group, config, m, n, k, m * 7 + wtype.bits)
    if config is None:
        assert _warp_specialized(runner._plans[(m, n, k, wtype, group, offset, tilus.float16,
                                                False, False, None)][0])


# Zero points and a bias in the wgmma variants: wtype, group, zeros, bias,
# config (a 3-tuple: the plain variant; a 4-tuple: the warp-specialized;
# None: the runner's choice, warp-specialized above M = 32), bf16.
WGMMA_ZB_CASES = [
    (tilus.uint4, 128, "values", True, None, False),
    (tilus.uint4, 32, "codes", False, None, False),
    (tilus.uint3, 64, "values", True, (2, 256, 3, 1), False),
    (tilus.uint8, 128, "codes", True, (1, 128, 3, 2), False),
    (tilus.uint2, 256, None, True, (2, 128, 3, 0), False),
    (tilus.float6_e3m2, 128, None, True, (4, 128, 3), False),
    (tilus.uint4, 64, "values", True, (2, 64, 4), False),
    (tilus.uint4, 128, "values", True, (2, 128, 4, 1), True),
    (tilus.uint4, 32, "codes", True, (1, 64, 4), True),
    (tilus.uint3, 128, "codes", True, (2, 224, 3, 1), True),
]


@pytest.mark.parametrize("wtype,group,zeros,bias,config,bf16", WGMMA_ZB_CASES,
                         ids=[f"{c[0]}-g{c[1]}-{c[2]}-{'bias' if c[3] else 'nobias'}-{c[4]}"
                              f"{'-bf16' if c[5] else ''}" for c in WGMMA_ZB_CASES])
@pytest.mark.parametrize("m", [40, 129, 300])
def test_wgmma_zeros_bias_against_f64(runner, wtype, group, zeros, bias, config, bf16, m):
    """The wgmma variants with zero points (values or uint8 codes) and a
    bias, on ragged M; without a config the runner takes the
    warp-specialized variant for them as for plain products."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    n, k = 512, 1024
    _check_groups(runner, wtype, group, zeros, bias, config, m, n, k,
                  m * 3 + group + wtype.bits, bf16)
    if config is None:
        act = tilus.bfloat16 if bf16 else tilus.float16
        kind = {None: False, "values": True, "codes": tilus.uint8}[zeros]
        cfg = runner._plans[(m, n, k, wtype, group, 0, act, kind, bias, None)][0]
        assert cfg == qmatmul.wgmma_config(m, n, k, wtype, act, group, kind)
        assert _warp_specialized(cfg)


@pytest.mark.parametrize("wtype,offset,m,n,block", [
    (tilus.uint4, 8, 72, 17920, (2, 96)), (tilus.float6_e3m2, 0, 200, 17920, (2, 224)),
    (tilus.uint3, 4, 150, 8192, (1, 160))])
def test_wgmma_own_height_against_f64(runner, wtype, offset, m, n, block):
    """Where M's own height takes fewer waves (N = 17920: 140 blocks of 128
    columns), or one warpgroup's grid of it fits one wave (N = 8192), the
    runner takes it (block_rows), and the rows past M, read as zeros, are
    not stored."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    k = 256
    _check_against_f64(runner, wtype, offset, 128, None, m, n, k, m + wtype.bits)
    cfg = runner._plans[(m, n, k, wtype, 128, offset, tilus.float16, False, False, None)][0]
    assert cfg[:2] == block and _warp_specialized(cfg)


# The stream-K grid (qmatmul_wgmma._WgmmaStreamK): wtype, group, zeros,
# bias, config, bf16, and the shapes (M, N, K) it runs: N = 256, K = 1024
# at M = 100 gives 16 blocks of one k tile each, 8 of them sharing a tile;
# K = 128 one k tile per output tile (no tile shared); N = 768, K = 2048 a
# few blocks per tile, ragged M (rows past it summed as zeros, not stored).
SK_CASES = [
    (tilus.uint4, 128, None, False, (2, 128, 4, 1, "sk"), False),
    (tilus.int4, 32, None, True, (2, 96, 4, 1, "sk"), False),
    (tilus.uint3, 64, "values", True, (2, 256, 3, 1, "sk"), False),
    (tilus.float6_e3m2, 128, None, True, (2, 192, 3, 1, "sk"), True),
    (tilus.uint8, 128, "codes", True, (2, 224, 2, 0, "sk"), False),
    (tilus.uint2, 256, "codes", False, (1, 128, 3, 2, "sk"), True),
    (tilus.uint4, 64, "values", False, (1, 96, 4, 1, "sk"), False),
    (tilus.float6_e3m2, 128, None, True, (1, 128, 3, 1, "sk"), True),
]


@pytest.mark.parametrize("wtype,group,zeros,bias,config,bf16", SK_CASES,
                         ids=[f"{c[0]}-g{c[1]}-{c[2]}-{'bias' if c[3] else 'nobias'}-{c[4]}"
                              f"{'-bf16' if c[5] else ''}" for c in SK_CASES])
@pytest.mark.parametrize("m,n,k", [(100, 256, 1024), (200, 512, 128), (129, 768, 2048)])
def test_wgmma_stream_k_against_f64(runner, wtype, group, zeros, bias, config, bf16, m, n, k):
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    if k % group:
        pytest.skip("K must be a multiple of the group")
    _check_groups(runner, wtype, group, zeros, bias, config, m, n, k,
                  m * 11 + group + wtype.bits, bf16)


def test_wgmma_stream_k_repeats_exactly(runner):
    """A tile's partials are summed in block order whichever block arrives
    last, so launches give the same bits; and each leaves its counters zero
    for the next (a count left behind would skip a tile's sum)."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    torch = cuda_torch()
    m, n, k = 150, 512, 4096
    rng = np.random.default_rng(17)
    codes = qmatmul.random_codes(rng, tilus.uint4, (k, n))
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4, 8).reshape(-1)).cuda()
    s = torch.from_numpy(rng.random((k // 128, n)) * 0.02 + 0.005).half().cuda()
    a = torch.from_numpy(rng.normal(size=(m, k))).half().cuda()
    cfg = (2, 160, 4, 1, "sk")
    first = runner(a, qw, s, wtype=tilus.uint4, group_size=128, offset=8, config=cfg)
    for _ in range(20):
        again = runner(a, qw, s, wtype=tilus.uint4, group_size=128, offset=8, config=cfg)
        assert torch.equal(first, again)
    want = _reference(a.double().cpu().numpy(), codes, s.double().cpu().numpy(),
                      tilus.uint4, 8, 128)
    err = np.abs(first.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


def _launch_stream_k(runner, m, n, k, cfg, sms, extra, seed):
    """u4 weights through the stream-K kernel of `cfg`, launched directly
    on stream_k_plan's blocks for `sms` SMs plus `extra`: the product within
    1e-3 of the f64 reference and the counters left zero. Returns the
    plan's (blocks, partial slots, counters)."""
    torch = cuda_torch()
    from tilus.ops.qmatmul_wgmma import stream_k_plan
    plan = blocks, share, tiles = stream_k_plan(m, n, k, cfg, sms)
    rng = np.random.default_rng(seed)
    codes = qmatmul.random_codes(rng, tilus.uint4, (k, n))
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4, 8).reshape(-1)).cuda()
    s = torch.from_numpy(rng.random((k // 128, n)) * 0.02 + 0.005).half().cuda()
    a = torch.from_numpy(rng.normal(size=(m, k))).half().cuda()
    kern = runner.kernel(tilus.uint4, 128, 8, cfg)
    c = torch.full((m, n), float("nan"), dtype=torch.float16, device="cuda")
    partials = torch.empty(share * m * n, dtype=torch.float32, device="cuda")
    counters = torch.zeros(tiles, dtype=torch.int32, device="cuda")
    kern(a, qw, s, c, partials, counters, m, n, k, blocks + extra)
    torch.cuda.synchronize()
    want = _reference(a.double().cpu().numpy(), codes, s.double().cpu().numpy(),
                      tilus.uint4, 8, 128)
    err = np.abs(c.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= 1e-3 and int(counters.abs().sum()) == 0, err
    return plan


def test_wgmma_stream_k_more_blocks_than_units(runner):
    """Launched directly with more blocks than units of work (the runner and
    the C tables give at most one per unit), the blocks past them do
    nothing: the product is still right."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    blocks, _, tiles = _launch_stream_k(runner, 70, 256, 512, (2, 96, 4, 1, "sk"), 1000, 13,
                                        29)
    assert blocks == tiles * 512 // 128 == 8


@pytest.mark.parametrize("warpgroups", [2, 1])
@pytest.mark.parametrize("blocks", [2, 3, 5])
def test_wgmma_stream_k_few_blocks(runner, blocks, warpgroups):
    """Launched directly on 2, 3 or 5 blocks, each block runs 12-64 units
    across one or more output tiles, so its stages' phases turn over many
    times and tiles are shared by two or three blocks; the product is still
    right and the counters are left zero. One consumer warpgroup decodes
    each next unit of a tile during a product (overlap; each tile's first
    decode runs alone)."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    used, _, tiles = _launch_stream_k(runner, 150, 256, 4096,
                                      (warpgroups, 160, 4, 1, "sk"), blocks, 0, 31 + blocks)
    assert used == blocks and tiles == 256 // (64 * warpgroups)


def test_wgmma_overlap_default():
    """The consumer decodes the next k tile during a product by default
    with one consumer warpgroup (two overlap each other instead), where
    the producer's lag leaves it a stage to wait on (lag <= stages - 2)."""
    ws = qmatmul_wgmma.QuantizedMatmulWgmmaWS
    assert ws(tilus.uint4, offset=8, warpgroups=1, block_m=64, stages=4, lag=1).overlap
    assert ws(tilus.uint4, offset=8, warpgroups=1, block_m=64, stages=2, lag=0).overlap
    assert not ws(tilus.uint4, offset=8, warpgroups=2, block_m=64, stages=4, lag=1).overlap
    assert not ws(tilus.uint4, offset=8, warpgroups=1, block_m=64, stages=3, lag=2).overlap
    with pytest.raises(ValueError, match="lag is at most stages - 2"):
        ws(tilus.uint4, offset=8, warpgroups=1, block_m=64, stages=3, lag=2, overlap=True)


@pytest.mark.parametrize("cfg,m,n,k", [((1, 192, 4, 1), 150, 512, 4096),
                                       ((1, 64, 4, 1), 70, 256, 128),
                                       ((1, 128, 4, 1, "sk"), 150, 768, 2048),
                                       ((1, 128, 3, 1), 100, 256, 2048),
                                       ((1, 64, 2, 0), 64, 256, 1024),
                                       ((1, 96, 2, 0, "sk"), 96, 512, 1024)])
def test_wgmma_overlap_same_bits(runner, cfg, m, n, k):
    """Decoding the next k tile during the product (overlap) runs the same
    products in the same order: the same bits as the loop that waits first,
    on ragged M, a single k tile, a stream-K grid whose blocks share tiles,
    and the producer's largest lag that overlap allows (stages - 2: the
    consumer waits for tile t + 1 with only tile t unreleased); both within
    1e-3 of the f64 reference."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    torch = cuda_torch()
    from tilus.ops.qmatmul_wgmma import stream_k_plan
    rng = np.random.default_rng(m + k)
    codes = qmatmul.random_codes(rng, tilus.float6_e3m2, (k, n))
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.float6_e3m2, 0).reshape(-1)).cuda()
    s = torch.from_numpy(rng.random((k // 128, n)) * 0.02 + 0.005).half().cuda()
    a = torch.from_numpy(rng.normal(size=(m, k))).half().cuda()
    cls = (qmatmul_wgmma.QuantizedMatmulWgmmaSK if len(cfg) == 5
           else qmatmul_wgmma.QuantizedMatmulWgmmaWS)
    outs = []
    for overlap in (False, True):
        kern = runner.load(("overlap test", cfg, overlap),
                           lambda: cls(tilus.float6_e3m2, warpgroups=cfg[0], block_m=cfg[1],
                                       stages=cfg[2], lag=cfg[3], overlap=overlap), "qmatmul")
        c = torch.full((m, n), float("nan"), dtype=torch.float16, device="cuda")
        if len(cfg) == 5:
            blocks, share, tiles = stream_k_plan(m, n, k, cfg, 132)
            partials = torch.empty(share * m * n, dtype=torch.float32, device="cuda")
            counters = torch.zeros(tiles, dtype=torch.int32, device="cuda")
            kern(a, qw, s, c, partials, counters, m, n, k, blocks)
        else:
            kern(a, qw, s, c, m, n, k)
        outs.append(c)
    torch.cuda.synchronize()
    assert torch.equal(outs[0], outs[1])
    want = _reference(a.double().cpu().numpy(), codes, s.double().cpu().numpy(),
                      tilus.float6_e3m2, 0, 128)
    err = np.abs(outs[1].double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


def test_wgmma_heights_beyond_256():
    """From M = 257 to HEIGHTS_UP_TO the block height is the one
    prefill_heights' model ranks fastest (not a second block row of 256
    mostly past M); beyond, the tallest whose stages fit."""
    cfg = qmatmul.wgmma_config
    assert cfg(320, 8192, 8192, tilus.uint4) == (2, 160, 4, 1)
    assert cfg(320, 10240, 8192, tilus.uint4) == (2, 128, 4, 1)
    assert cfg(384, 57344, 8192, tilus.uint4) == (2, 192, 3, 1)
    assert cfg(448, 10240, 8192, tilus.float6_e3m2) == (2, 160, 4, 1)
    assert cfg(448, 8192, 8192, tilus.uint8) == (2, 224, 3, 1)
    assert cfg(1056, 8192, 8192, tilus.uint4) == (2, 256, 3, 1)
    assert cfg(4096, 57344, 8192, tilus.uint4) == (2, 256, 3, 1)
    assert cfg(4096, 57344, 8192, tilus.float6_e3m2) == (2, 192, 3, 1)
    assert qmatmul.prefill_heights(320, 8192, False)[0] == 160


@pytest.mark.parametrize("wtype,offset,m,rows", [(tilus.uint4, 8, 320, 160),
                                                 (tilus.uint8, 128, 448, 224)])
def test_wgmma_heights_beyond_256_on_gpu(runner, wtype, offset, m, rows):
    """The runner's own choice at M = 320 (two block rows of 160) and 448
    (of 224, its C staged) against the f64 reference."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    torch = cuda_torch()
    n, k = 8192, 1024
    assert runner.choice(m, n, k, wtype, 128, offset)[1] == rows
    rng = np.random.default_rng(m)
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset).reshape(-1)).cuda()
    s = torch.from_numpy(rng.random((k // 128, n)) * 0.02 + 0.005).half().cuda()
    a = torch.from_numpy(rng.normal(size=(m, k))).half().cuda()
    got = runner(a, qw, s, wtype=wtype, group_size=128, offset=offset)
    want = _reference(a.double().cpu().numpy(), codes, s.double().cpu().numpy(), wtype,
                      offset, 128)
    err = np.abs(got.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


def test_wgmma_staged_epilogue_ptx():
    """C through shared memory (stmatrix, then a TMA store that waits for
    its reads only) by default from 192-row blocks, from registers below;
    f16 x needs two consumer warpgroups for it (A's first stage buffer)."""
    ws, fp8 = qmatmul_wgmma.QuantizedMatmulWgmmaWS, qmatmul_fp8.QuantizedMatmulWgmmaFP8
    for kern, staged in [(ws(tilus.uint4, offset=8, block_m=256, stages=3), True),
                         (ws(tilus.uint4, offset=8, block_m=128, stages=4), False),
                         (fp8(tilus.int4, 128, 0, block_m=256, stages=3), True),
                         (fp8(tilus.int4, 128, 0, block_m=128, stages=4), False)]:
        assert kern.staged == staged
        ptx = kern.compile(target="sm_90a", ptx_only=True)
        assert ("cp.async.bulk.wait_group.read 0;" in ptx) == staged
        assert ("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx) == staged
        assert ("st.global" in ptx) != staged
    assert fp8(tilus.int4, 128, 0, block_m=256, stages=3).shared_bytes == fp8(
        tilus.int4, 128, 0, block_m=256, stages=3, staged_epilogue=False).shared_bytes + 32768
    with pytest.raises(ValueError, match="two consumer warpgroups"):
        ws(tilus.uint4, offset=8, warpgroups=1, block_m=256, stages=3, staged_epilogue=True)


@pytest.mark.parametrize("act,wtype,offset,cfg,m,bias", [
    ("f16", tilus.uint4, 8, (2, 256, 3, 1), 300, True),
    ("bf16", tilus.float6_e3m2, 0, (2, 192, 3, 1), 200, False),
    ("fp8", tilus.int4, 0, (2, 256, 3, 1), 270, True),
    ("fp8", tilus.uint4, 8, (1, 128, 4, 1), 130, False),
    ("f16", tilus.uint8, 128, (2, 224, 3, 1), 450, True)])
def test_wgmma_staged_epilogue_same_bits(runner, act, wtype, offset, cfg, m, bias):
    """The epilogue through shared memory and a TMA store writes the same
    bits as the one from registers, on ragged M (the TMA store clips the
    rows past M), with a bias; within 1e-3 of the f64 reference (8e-3 for
    bf16 outputs, whose significand has 8 bits)."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    torch = cuda_torch()
    n, k = 384 if cfg[0] == 2 else 192, 1024
    rng = np.random.default_rng(m + cfg[1])
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    fp8 = act == "fp8"
    packed = qmatmul.pack(codes, wtype, offset, activation=tilus.float8_e4m3 if fp8 else None)
    qw = torch.from_numpy(packed.reshape(-1)).cuda()
    dt = torch.bfloat16 if act == "bf16" else torch.float16
    s = torch.from_numpy(rng.random((k // 128, n)) * 0.02 + 0.005).to(dt).cuda()
    a = torch.from_numpy(rng.normal(size=(m, k))).to(dt).cuda()
    b = torch.from_numpy(rng.normal(size=n)).to(dt).cuda() if bias else None
    head = [a]
    if fp8:
        head = [a.float().to(torch.float8_e4m3fn),
                torch.from_numpy(rng.random(m) + 0.5).float().cuda()]
    outs = []
    for staged in (False, True):
        def make(staged=staged):
            kw = dict(group_size=128, offset=offset, warpgroups=cfg[0], block_m=cfg[1],
                      stages=cfg[2], lag=cfg[3], bias=bias, staged_epilogue=staged)
            if fp8:
                return qmatmul_fp8.QuantizedMatmulWgmmaFP8(wtype, **kw)
            cls = (qmatmul_wgmma.QuantizedMatmulWgmmaWSBF16 if act == "bf16"
                   else qmatmul_wgmma.QuantizedMatmulWgmmaWS)
            return cls(wtype, **kw)
        kern = runner.load(("staged test", act, str(wtype), cfg, bias, staged), make, "qmatmul")
        c = torch.full((m, n), float("nan"), dtype=dt, device="cuda")
        kern(*head, qw, s, *([b] if bias else []), c, m, n, k)
        outs.append(c)
    torch.cuda.synchronize()
    assert not torch.isnan(outs[1]).any()
    assert torch.equal(outs[0], outs[1])
    x = head[0].double().cpu().numpy() * (head[1].double().cpu().numpy()[:, None] if fp8 else 1)
    want = _reference(x, codes, s.double().cpu().numpy(), wtype, offset, 128)
    if bias:
        want = want + b.double().cpu().numpy()
    err = np.abs(outs[1].double().cpu().numpy() - want).max() / np.abs(want).max()
    assert err <= (8e-3 if act == "bf16" else 1e-3), err


def test_wgmma_ws_bf16(runner):
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("the wgmma variant needs an sm_90 GPU")
    a, qw, s, group = _check_bf16_u4(runner, 5, 333, 256, 1024, (2, 128, 4, 1))
    # A lag of stages or more, or shared memory beyond a block's: refused.
    for cfg in [(2, 128, 4, 4), (2, 256, 4, 1)]:
        with pytest.raises(tilus.TilusArgumentError, match="within the registers"):
            runner(a.cuda(), qw, s.cuda(), wtype=tilus.uint4, group_size=group, offset=8,
                   config=cfg)


PACK_TYPES = [(tilus.uint4, 8), (tilus.int4, 0), (tilus.uint3, 4), (tilus.float6_e3m2, 0),
              (tilus.uint8, 128), (tilus.uint1, 0), (tilus.int6, 0), (tilus.int2, 0),
              (tilus.float4_e2m1, 0)]
PACK_CASES = ([(w, o, None) for w, o in PACK_TYPES]
              + [(w, o, tilus.int8) for w, o in PACK_TYPES if qmatmul.int8_fits(w, o)])


@pytest.mark.parametrize("wtype,offset,activation", PACK_CASES,
                         ids=[f"{w}-{'int8' if a else 'f16'}" for w, _, a in PACK_CASES])
def test_device_pack_equals_host_pack(runner, wtype, offset, activation):
    """pack_on_device gives pack()'s bytes (codes one per byte; signed codes
    as their two's complement bytes), in both formats."""
    torch = cuda_torch()
    rng = np.random.default_rng(wtype.bits)
    codes = qmatmul.random_codes(rng, wtype, (256, 64))
    on_gpu = qmatmul.pack_on_device(torch.from_numpy((codes & 0xFF).astype(np.uint8)).cuda(),
                                    wtype, offset, runtime=runner, activation=activation)
    assert np.array_equal(on_gpu.cpu().numpy(),
                          qmatmul.pack(codes, wtype, offset, activation=activation).reshape(-1))


def test_bit_exact_when_representable(runner):
    """Integer activations and weights, scale 1: every product and partial sum
    is an integer below 2048, so the f16 result is exact."""
    torch = cuda_torch()
    rng = np.random.default_rng(5)
    m, n, k = 7, 64, 256
    codes = rng.integers(-8, 8, size=(k, n))
    a = rng.integers(-1, 2, size=(m, k)).astype(np.float16)
    scales = np.ones((k // 128, n), np.float16)
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.int4).reshape(-1)).cuda()
    for config in [None, (4, 2, 3, 1, 1), (4, 1, 4, 2, 1)]:
        got = runner(torch.from_numpy(a).cuda(), qw, torch.from_numpy(scales).cuda(),
                     wtype=tilus.int4, config=config)
        torch.cuda.synchronize()
        assert np.array_equal(got.cpu().numpy(), (a.astype(np.int64) @ codes).astype(np.float16))


I8_CASES = [  # wtype, offset, group, bias, config (None: the heuristic)
    (tilus.uint4, 8, 128, False, None), (tilus.int4, 0, 256, True, (4, 2, 3, 2, 1)),
    (tilus.uint8, 128, 128, True, None), (tilus.uint3, 4, 128, False, (8, 1, 4, 4, 1)),
    (tilus.uint1, 0, 1024, False, (4, 1, 3, 1, 1)), (tilus.int2, 0, 128, True, (8, 2, 4, 2, 1)),
    (tilus.int6, 0, 128, False, (4, 2, 3, 1, 2)), (tilus.uint7, 64, 512, True, (4, 4, 3, 1, 1)),
    # offsets no stored type absorbs: subtracted on the words
    (tilus.uint4, 7, 128, True, None), (tilus.uint2, 1, 256, False, (4, 2, 3, 2, 1)),
    (tilus.int4, -1, 128, False, (4, 1, 3, 1, 1)),
]


@pytest.mark.parametrize("wtype,offset,group,bias,config", I8_CASES,
                         ids=[f"{c[0]}-g{c[2]}-{'bias' if c[3] else 'nobias'}-{c[4]}"
                              for c in I8_CASES])
@pytest.mark.parametrize("m", [1, 19, 40])
def test_int8_activations_against_f64(runner, wtype, offset, group, bias, config, m):
    """int8 x with per-row scales (quantize_activations of random f16 rows)
    against the f64 product of the same int8 rows, scales and weights, on
    ragged M (40: on an H100 without a config, the wgmma variant)."""
    torch = cuda_torch()
    rng = np.random.default_rng(m * 5 + wtype.bits + group)
    n, k = 256, 1024
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    scales = (rng.random((k // group, n)) * 0.02 + 0.005).astype(np.float16)
    x = torch.from_numpy(rng.normal(size=(m, k)).astype(np.float16)).cuda()
    xq, xs = qmatmul.quantize_activations(x)
    b = rng.normal(size=n).astype(np.float16) if bias else None
    a = xq.cpu().numpy().astype(np.float64) * xs.cpu().numpy().astype(np.float64)[:, None]
    want = a @ qmatmul.dequantize(codes, scales, wtype, offset, group)
    if b is not None:
        want = want + b.astype(np.float64)
    qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset, activation=tilus.int8)
                          .reshape(-1)).cuda()
    got = runner(xq, qw, torch.from_numpy(scales).cuda(), None,
                 None if b is None else torch.from_numpy(b).cuda(), wtype=wtype,
                 group_size=group, offset=offset, config=config, x_scales=xs)
    torch.cuda.synchronize()
    assert got.dtype == torch.float16 and tuple(got.shape) == (m, n)
    err = np.abs(got.cpu().numpy().astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


I8_ZERO_CASES = [  # wtype, group, bias, config (None: the heuristic)
    (tilus.uint4, 128, False, None), (tilus.uint4, 256, True, (4, 2, 3, 2, 1)),
    (tilus.uint3, 128, True, (8, 1, 4, 4, 1)), (tilus.uint7, 1024, False, (4, 4, 3, 1, 1)),
    (tilus.uint2, 128, False, (4, 2, 3, 1, 2)), (tilus.uint1, 512, True, (4, 1, 3, 1, 1)),
]


@pytest.mark.parametrize("wtype,group,bias,config", I8_ZERO_CASES,
                         ids=[f"{c[0]}-g{c[1]}-{'bias' if c[2] else 'nobias'}-{c[3]}"
                              for c in I8_ZERO_CASES])
@pytest.mark.parametrize("m", [1, 19, 40])
def test_int8_zero_codes_against_f64(runner, wtype, group, bias, config, m):
    """int8 x with uint8 zero codes (GPTQ/AWQ style: code - zero per group
    and column), against the f64 product, on ragged M; the zeros span the
    whole code range and 128 (the largest the s8 subtraction takes)."""
    torch = cuda_torch()
    rng = np.random.default_rng(m * 7 + wtype.bits + group)
    n, k = 256, 1024
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    zeros = rng.integers(0, 1 << wtype.bits, size=(k // group, n))
    zeros[0, :4] = 128
    scales = (rng.random((k // group, n)) * 0.02 + 0.005).astype(np.float16)
    x = torch.from_numpy(rng.normal(size=(m, k)).astype(np.float16)).cuda()
    xq, xs = qmatmul.quantize_activations(x)
    b = rng.normal(size=n).astype(np.float16) if bias else None
    a = xq.cpu().numpy().astype(np.float64) * xs.cpu().numpy().astype(np.float64)[:, None]
    want = a @ qmatmul.dequantize(codes, scales, wtype, 0, group, zeros)
    if b is not None:
        want = want + b.astype(np.float64)
    qw = torch.from_numpy(qmatmul.pack(codes, wtype, activation=tilus.int8).reshape(-1)).cuda()
    got = runner(xq, qw, torch.from_numpy(scales).cuda(),
                 torch.from_numpy(zeros.astype(np.uint8)).cuda(),
                 None if b is None else torch.from_numpy(b).cuda(), wtype=wtype,
                 group_size=group, config=config, x_scales=xs)
    torch.cuda.synchronize()
    got = got.cpu().numpy().astype(np.float64)
    # The columns whose first group's zero is 128 are far larger than the
    # rest: each set of columns against its own largest value.
    for cols in (slice(0, 4), slice(4, None)):
        err = np.abs(got[:, cols] - want[:, cols]).max() / np.abs(want[:, cols]).max()
        assert err <= 1e-3, (cols, err)


# int8 x on wgmma (qmatmul_i8_wgmma), which the runner takes above M = 32 on an
# H100: the cases of the mma.sync template with warp-specialized configs
# (warpgroups, block_m, stages, lag; None: the runner's, fp8_config's blocks).
I8_WS_CASES = [  # wtype, offset, group, bias, config
    (tilus.uint4, 8, 128, False, None), (tilus.int4, 0, 256, True, (2, 256, 3, 1)),
    (tilus.uint8, 128, 128, True, None), (tilus.uint3, 4, 128, False, (1, 128, 4, 1)),
    (tilus.int6, 0, 1024, False, (2, 128, 4, 1)), (tilus.uint7, 64, 512, True, (2, 192, 3, 1)),
    (tilus.uint4, 7, 128, True, (2, 64, 8, 3)), (tilus.int2, 0, 128, False, (2, 256, 4, 2)),
    (tilus.uint8, 128, 128, False, (2, 192, 4, 2)), (tilus.int4, 0, 256, True, (2, 96, 4, 1)),
]
I8_WS_ZERO_CASES = [  # wtype, group, bias, config
    (tilus.uint4, 128, True, None), (tilus.uint7, 256, False, (2, 256, 4, 2)),
    (tilus.uint3, 1024, True, (2, 128, 4, 1)),
]


@pytest.mark.parametrize("wtype,offset,group,bias,config", I8_WS_CASES,
                         ids=[f"{c[0]}-{c[1]}-g{c[2]}-{'bias' if c[3] else 'nobias'}-{c[4]}"
                              for c in I8_WS_CASES])
@pytest.mark.parametrize("m", [65, 129, 300])
def test_int8_wgmma_against_f64(runner, wtype, offset, group, bias, config, m):
    """Ragged M (TMA's zero rows are not stored), within 1e-3 of the f64
    product; without a config the runner takes the wgmma variant."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("int8 x on wgmma needs an sm_90 GPU")
    test_int8_activations_against_f64(runner, wtype, offset, group, bias, config, m)
    if config is None:
        cfg = runner._plans[(m, 256, 1024, wtype, group, offset, tilus.int8, False, bias,
                             None)][0]
        assert len(cfg) == 4


@pytest.mark.parametrize("wtype,group,bias,config", I8_WS_ZERO_CASES,
                         ids=[f"{c[0]}-g{c[1]}-{'bias' if c[2] else 'nobias'}-{c[3]}"
                              for c in I8_WS_ZERO_CASES])
@pytest.mark.parametrize("m", [65, 300])
def test_int8_wgmma_zero_codes_against_f64(runner, wtype, group, bias, config, m):
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("int8 x on wgmma needs an sm_90 GPU")
    test_int8_zero_codes_against_f64(runner, wtype, group, bias, config, m)


def test_int8_zero_codes_bit_exact_when_representable(runner):
    """uint4 codes less uint8 zeros (0 to 15, and 128) with int8 rows and
    power-of-two scales: exact in i32 and in every scaling, so the f16
    result is the exact value rounded once; with and without split-K, and
    through the torch operator."""
    torch = cuda_torch()
    rng = np.random.default_rng(23)
    n, k = 64, 256
    codes = rng.integers(0, 16, size=(k, n))
    zeros = rng.integers(0, 16, size=(k // 128, n))
    zeros[1, 3] = 128
    s = np.ldexp(1.0, rng.integers(-6, -3, size=(k // 128, n))).astype(np.float16)
    w = (codes - np.repeat(zeros, 128, axis=0)) * np.repeat(s.astype(np.float64), 128, axis=0)
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4, activation=tilus.int8)
                          .reshape(-1)).cuda()
    zt, st = torch.from_numpy(zeros.astype(np.uint8)).cuda(), torch.from_numpy(s).cuda()
    for m in (5, 37):
        xq = rng.integers(-127, 128, size=(m, k)).astype(np.int8)
        xs = np.ldexp(1.0, rng.integers(-3, 3, size=m)).astype(np.float32)
        want = ((xq.astype(np.float64) @ w) * xs[:, None]).astype(np.float16)
        xt, xst = torch.from_numpy(xq).cuda(), torch.from_numpy(xs).cuda()
        for config in [(4, 1, 3, 1, 1), (4, 2, 3, 2, 1)]:
            got = runner(xt, qw, st, zt, wtype=tilus.uint4, config=config, x_scales=xst)
            torch.cuda.synchronize()
            assert np.array_equal(got.cpu().numpy(), want), (m, config)
        got = qmatmul.torch_op_int8()(xt, xst, qw, st, None, "uint4", 128, 0, zt)
        torch.cuda.synchronize()
        assert np.array_equal(got.cpu().numpy(), want), m


def test_int8_activations_bit_exact_when_representable(runner):
    """int8 rows, int4 and uint4 weights, power-of-two weight and row scales:
    each k tile's sum is exact in i32 and in f32, every scaling is exact, and
    the two k tiles' sums add exactly, so the f16 result is the exact value
    rounded once; with and without split-K, at M = 5 and 37."""
    torch = cuda_torch()
    rng = np.random.default_rng(21)
    n, k = 64, 256
    for wtype, offset in [(tilus.int4, 0), (tilus.uint4, 8)]:
        codes = qmatmul.random_codes(rng, wtype, (k, n))
        s = np.ldexp(1.0, rng.integers(-6, -3, size=(k // 128, n))).astype(np.float16)
        w = (codes - offset) * np.repeat(s.astype(np.float64), 128, axis=0)
        qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset, activation=tilus.int8)
                              .reshape(-1)).cuda()
        for m in (5, 37):
            xq = rng.integers(-127, 128, size=(m, k)).astype(np.int8)
            xs = np.ldexp(1.0, rng.integers(-3, 3, size=m)).astype(np.float32)
            want = ((xq.astype(np.float64) @ w) * xs[:, None]).astype(np.float16)
            for config in [(4, 1, 3, 1, 1), (4, 2, 3, 2, 1)]:
                got = runner(torch.from_numpy(xq).cuda(), qw, torch.from_numpy(s).cuda(),
                             wtype=wtype, offset=offset, config=config,
                             x_scales=torch.from_numpy(xs).cuda())
                torch.cuda.synchronize()
                assert np.array_equal(got.cpu().numpy(), want), (wtype, m, config)


@pytest.mark.parametrize("activation", ["int8", "float8_e4m3"])
def test_int8_torch_op(runner, activation):
    """tilus::quantized_matmul_int8 gives the runner's result, for int8 x
    and (on sm_90) FP8 x."""
    torch = cuda_torch()
    fp8 = activation == "float8_e4m3"
    if fp8 and runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    rng = np.random.default_rng(5 if fp8 else 4)
    m, n, k = 3, 128, 512
    codes = qmatmul.random_codes(rng, tilus.uint4, (k, n))
    scales = torch.from_numpy((rng.random((k // 128, n)) * 0.02 + 0.005).astype(np.float16)).cuda()
    if fp8:
        x = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        xs = torch.rand(m, device="cuda") + 0.5
    else:
        x, xs = qmatmul.quantize_activations(torch.randn(m, k, device="cuda"))
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4, 8, activation=tilus.dtype(activation))
                          .reshape(-1)).cuda()
    got = qmatmul.torch_op_int8()(x, xs, qw, scales, None, "uint4", 128, 8)
    want = qmatmul.quantized_matmul(x, qw, scales, wtype=tilus.uint4, offset=8, x_scales=xs)
    torch.cuda.synchronize()
    assert torch.equal(got, want)


def test_int8_argument_errors(runner):
    torch = cuda_torch()
    x = torch.zeros(4, 256, dtype=torch.int8, device="cuda")
    xs = torch.ones(4, dtype=torch.float32, device="cuda")
    s = torch.ones(2, 64, dtype=torch.float16, device="cuda")
    qw = torch.zeros(256 * 64 // 2, dtype=torch.uint8, device="cuda")
    with pytest.raises(tilus.TilusArgumentError, match=r"int8 x needs x_scales, float32 \[M\] "
                                                       r"= \[4\].*not None"):
        runner(x, qw, s, wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match="not torch.float16 .4,."):
        runner(x, qw, s, wtype=tilus.int4, x_scales=xs.half())
    with pytest.raises(tilus.TilusArgumentError, match="x_scales is for int8 or float8_e4m3fn x only"):
        runner(x.half(), qw, s, wtype=tilus.int4, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="values outside -128..127"):
        runner(x, torch.zeros(256 * 64, dtype=torch.uint8, device="cuda"), s,
               wtype=tilus.uint8, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="int8 x needs integer weights, not"):
        runner(x, qw, s, wtype=tilus.float4_e2m1, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="int8 x takes zero points as uint8 "
                                                       "codes.*not torch.float16 zeros of uint4"):
        runner(x, qw, s, s, wtype=tilus.uint4, x_scales=xs)
    z8 = torch.zeros(2, 64, dtype=torch.uint8, device="cuda")
    with pytest.raises(tilus.TilusArgumentError, match="not torch.uint8 zeros of int4"):
        runner(x, qw, s, z8, wtype=tilus.int4, x_scales=xs)
    # Zero codes above 128: refused on the eager call, accepted once lowered
    # in place (a new version of the same tensor).
    z8[1, 5] = 129
    with pytest.raises(tilus.TilusArgumentError, match="zero codes of at most 128.*hold 129"):
        runner(x, qw, s, z8, wtype=tilus.uint4, x_scales=xs)
    z8[1, 5] = 128
    assert tuple(runner(x, qw, s, z8, wtype=tilus.uint4, x_scales=xs).shape) == (4, 64)
    with pytest.raises(tilus.TilusArgumentError, match="group_size a multiple of 128"):
        runner(x, qw, torch.ones(4, 64, dtype=torch.float16, device="cuda"), wtype=tilus.int4,
               group_size=64, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="scales must be a 2-D torch.float16"):
        runner(x, qw, s.bfloat16(), wtype=tilus.int4, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="x_scales is on cpu"):
        runner(x, qw, s, wtype=tilus.int4, x_scales=xs.cpu())


def test_argument_errors(runner):
    torch = cuda_torch()
    x = torch.zeros(4, 256, dtype=torch.float16, device="cuda")
    s = torch.ones(2, 64, dtype=torch.float16, device="cuda")
    qw = torch.zeros(256 * 64 // 2, dtype=torch.uint8, device="cuda")
    with pytest.raises(tilus.TilusArgumentError, match="scales must be a 2-D torch.float16"):
        runner(x, qw, s.bfloat16(), wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match="x must be a 2-D float16, bfloat16, int8 or float8_e4m3fn"):
        runner(x.float(), qw, s, wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match="expected .K / group_size, N. = .1, 64."):
        runner(x, qw, s, wtype=tilus.int4, group_size=256)
    with pytest.raises(tilus.TilusArgumentError, match="must hold the 8192 packed bytes"):
        runner(x, qw[:100], s, wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match="group_size 96 must be 32, 64 or a "
                                                       "multiple of 128"):
        runner(x, qw, s, wtype=tilus.int4, group_size=96)
    with pytest.raises(tilus.TilusArgumentError, match=r"zeros must be \[K / group_size, N\] = "
                                                       r"\[2, 64\]"):
        runner(x, qw, s, s[:1], wtype=tilus.uint4)
    with pytest.raises(tilus.TilusArgumentError, match="zeros replace the offset"):
        runner(x, qw, s, s, wtype=tilus.uint4, offset=8)
    with pytest.raises(tilus.TilusArgumentError, match=r"bias must be \[N\] = \[64\]"):
        runner(x, qw, s, None, s[0, :32], wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match="scales is on cpu"):
        runner(x, qw, s.cpu(), wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match=r"out must be a contiguous .*\[4, 64\]"):
        runner(x, qw, s, wtype=tilus.int4, out=torch.empty(4, 32, dtype=torch.float16,
                                                          device="cuda"))
    with pytest.raises(tilus.TilusArgumentError, match="does not divide N = 64 by 128"):
        runner(x, qw, s, wtype=tilus.int4, config=(8, 2, 3, 1, 1))
    # At M = 20 a block takes 2 row tiles and n_tiles 6 // 2 = 3: 96 columns.
    x20 = torch.zeros(20, 256, dtype=torch.float16, device="cuda")
    with pytest.raises(tilus.TilusArgumentError, match=r"by 96 columns \(n_tiles 6 // 2"):
        runner(x20, qw, s, wtype=tilus.int4, config=(4, 6, 3, 1, 1))
    with pytest.raises(tilus.TilusArgumentError, match="bytes of shared memory with 4 row"):
        runner(torch.zeros(64, 256, dtype=torch.float16, device="cuda"), qw, s,
               wtype=tilus.int4, config=(1, 8, 16, 1, 2))
    empty = runner(x[:0], qw, s, wtype=tilus.int4)
    assert empty.shape == (0, 64)
    # An empty call still checks its configuration; any iterable is one.
    with pytest.raises(tilus.TilusArgumentError, match="does not divide N = 64 by 128"):
        runner(x[:0], qw, s, wtype=tilus.int4, config=(8, 2, 3, 1, 1))
    assert runner(x, qw, s, wtype=tilus.int4, config=(v for v in (4, 1, 3, 1, 1))).shape == \
        (4, 64)


# --- tuning (tilus.ops.tune) -------------------------------------------------

from tilus.ops import tune  # noqa: E402


def test_tuning_space_respects_shape_and_shared_memory():
    all_u4 = tune.configurations(tilus.uint4)
    assert len(all_u4) >= 100                                  # the issue's space size
    assert all(qmatmul.QuantizedMatmul(tilus.uint4, warps=w, n_tiles=nt, stages=s, split_k=sk,
                                       k_tiles=kpt).shared_bytes <= tune.MAX_SHARED
               for w, nt, s, sk, kpt in all_u4)
    u8 = tune.configurations(tilus.uint8)
    assert (8, 4, 4, 1, 1) in all_u4 and (8, 4, 4, 1, 1) not in u8   # 8-bit tiles are larger
    narrow = tune.configurations(tilus.uint4, n=96, k=384)     # 96 = 4 x 3 x 8, 3 k tiles
    assert narrow and all(96 % (w * nt * 8) == 0 and 3 % (sk * kpt) == 0
                          for w, nt, s, sk, kpt in narrow)
    assert {(c[0], c[1]) for c in narrow} == {(4, 1), (2, 1), (2, 2)}
    assert {c[3] for c in narrow} == {1}


def test_m_buckets():
    assert [tune.m_bucket(m) for m in (1, 16, 17, 32, 33, 200, 256, 257)] == [
        "16", "16", "32", "32", "64", "256", "256", "large"]


def test_table_round_trip_and_version(tmp_path):
    t = tune.Table()
    t.set("GPU X", (9, 0), 5, 4096, 1024, tilus.uint4, 128, 8, (4, 2, 3, 1, 1), 12.345)
    assert t.get("GPU X", (9, 0), 16, 4096, 1024, tilus.uint4, 128, 8) == (4, 2, 3, 1, 1)
    assert t.get("GPU X", (9, 0), 17, 4096, 1024, tilus.uint4, 128, 8) is None   # bucket 32
    assert t.get("GPU Y", (9, 0), 5, 4096, 1024, tilus.uint4, 128, 8) is None
    t.save(tmp_path / "t.json")
    back = tune.Table.load(tmp_path / "t.json")
    assert back.entries == t.entries and back.version == tilus.__version__
    stale = tune.Table(t.entries, version="0.0.1")
    assert stale.get("GPU X", (9, 0), 5, 4096, 1024, tilus.uint4, 128, 8) is None
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a tuning table"):
        tune.Table.load(tmp_path / "bad.json")


def test_shipped_table_holds_the_h100_sweep():
    t = tune.shipped_table()
    h100 = ("NVIDIA H100 80GB HBM3", (9, 0))
    cfg = t.get(*h100, 16, 57344, 8192, tilus.uint4, 128, 8)
    assert cfg is not None and len(cfg) == 5
    w, nt, s, sk, kpt = cfg
    assert 57344 % (w * nt * 8) == 0 and 64 % (sk * kpt) == 0


@requires_compiler
def test_two_step_tuning_artifacts(tmp_path):
    """compile_space saves every candidate; load_space (runtime only) gives
    the same artifacts back, keyed by configuration."""
    cfgs = tune.configurations(tilus.int4, n=256, k=1024)[:6]
    arts = tune.compile_space(tilus.int4, cfgs, out_dir=tmp_path, processes=1)
    back = tune.load_space(tmp_path, tilus.int4)
    assert set(back) == set(cfgs)
    assert all(back[c].data == arts[c].data for c in cfgs)
    assert tune.load_space(tmp_path, tilus.uint4) == {}


@requires_compiler
def test_tune_cli_build_writes_candidates_and_check_weights(tmp_path):
    assert tune._main(["build", str(tmp_path), "--types", "uint2"]) == 0
    cands = [f for f in tmp_path.iterdir() if f.suffix == ".tilus"]
    assert len(cands) == len(tune.configurations(tilus.uint2))
    widths = {tune.check_width(c) for c in tune.configurations(tilus.uint2)}
    assert {f.name for f in tmp_path.glob("check_*.npy")} == {
        f"check_uint2_o2_n{cn}.npy" for cn in widths}
    for cn in widths:
        packed = np.load(tmp_path / f"check_uint2_o2_n{cn}.npy")
        assert np.array_equal(packed, qmatmul.pack(tune.check_codes(tilus.uint2, cn),
                                                   tilus.uint2, 2))


def test_tuning_in_runtime_only_mode(tmp_path):
    """The GPU step of two-step tuning needs only libTilusRuntime.so: the space,
    the saved candidates and the table, with no compiler library."""
    import shutil
    import subprocess
    import sys
    from tilus import _lib
    from conftest import REPO
    libs = tmp_path / "libs"
    libs.mkdir()
    shutil.copy(_lib.runtime_path(),
                libs / f"libTilusRuntime.so.{tilus.__version__.split('.')[0]}")
    # A copy of the package, away from the build tree it would find otherwise.
    site = tmp_path / "site"
    shutil.copytree(REPO / "python-bindings" / "tilus", site / "tilus",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cands = tmp_path / "cands"
    cands.mkdir()
    code = f"""
import tilus
from tilus.ops import tune
assert not tilus.has_compiler()
cfgs = tune.configurations(tilus.uint4, 57344, 8192)
print(len(cfgs), len(tune.load_space({str(cands)!r}, tilus.uint4, offset=8)))
print(tune.shipped_table().get("NVIDIA H100 80GB HBM3", (9, 0), 16, 57344, 8192,
                               tilus.uint4, 128, 8) is not None)
"""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILUS_LIBRARY_DIR", "TILUS_BUILD_DIR", "PYTHONPATH")}
    env.update(TILUS_LIBRARY_DIR=str(libs), PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # The same space as with the compiler library (344 points fit this shape).
    want = len(tune.configurations(tilus.uint4, 57344, 8192))
    assert want == 344
    assert r.stdout.split() == [str(want), "0", "True"]


# --- tilus.nn.QuantizedLinear (a torch module over the operator) ---------------

@pytest.mark.parametrize("wtype", [tilus.uint4, tilus.int8, tilus.float6_e3m2], ids=str)
def test_quantized_linear_matches_its_dequantized_weight(runner, wtype):
    """from_linear (round to nearest), forward on a 3-D input with bias, against
    the f64 product with dequantized_weight(); the same under torch.compile
    (fullgraph: the operator tilus::quantized_matmul is traced, not broken on)."""
    torch = cuda_torch()
    import tilus.nn
    torch.manual_seed(0)
    linear = torch.nn.Linear(1024, 256, bias=True).half().cuda()
    q = tilus.nn.QuantizedLinear.from_linear(linear, wtype, group_size=128)
    w = q.dequantized_weight()
    # Round to nearest: within half of the format's largest gap (1 for
    # integers), in units of the group's scale, of the original weights.
    step = q.scales.float().repeat_interleave(128, dim=0).T
    gap = 1.0
    if isinstance(wtype, tilus.FloatDType):
        v = wtype.values()
        gap = float(np.max(np.diff(np.unique(v[np.isfinite(v)]))))
    assert torch.all((w - linear.weight.float()).abs() <= 0.5 * gap * step + 1e-3 * step)
    x = torch.randn(3, 5, 1024, dtype=torch.float16, device="cuda")
    want = x.double() @ w.double().T + linear.bias.double()
    for fn in (q, torch.compile(q, fullgraph=True)):
        y = fn(x)
        torch.cuda.synchronize()
        assert y.shape == (3, 5, 256) and y.dtype == torch.float16
        err = ((y.double() - want).abs().max() / want.abs().max()).item()
        assert err <= 1e-3, err


def _u4_weights(rng, k, n):
    """Random uint4 weights (offset 8) with group-128 scales: (the weights
    dequantized, f64 [K, N]; the packed bytes and the scales on the GPU)."""
    torch = cuda_torch()
    codes = qmatmul.random_codes(rng, tilus.uint4, (k, n))
    scales = (rng.random((k // 128, n)) * 0.02 + 0.005).astype(np.float16)
    return (qmatmul.dequantize(codes, scales, tilus.uint4, 8, 128),
            torch.from_numpy(qmatmul.pack(codes, tilus.uint4, 8).reshape(-1)).cuda(),
            torch.from_numpy(scales).cuda())


def test_capture_counters_are_replaced_when_low():
    """A runner whose reserve of capture counters is half taken sets aside a
    fresh one at the next eager call; the graphs captured from the old one
    keep their counters (the old reserve stays allocated) and replay right,
    and no counter is left nonzero."""
    torch = cuda_torch()
    if not tilus.has_compiler():
        pytest.skip("runtime-only mode: libTilus.so is not available")
    r = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    r.CAPTURE_COUNTERS = 32
    rng = np.random.default_rng(13)
    m, n, k = 2, 512, 1024
    w, qw, s = _u4_weights(rng, k, n)
    x = torch.zeros(m, k, dtype=torch.float16, device="cuda")

    def call():                       # 512 / 32 = 16 output tiles: 16 counters
        return r(x, qw, s, wtype=tilus.uint4, offset=8, config=(4, 1, 4, 2, 2))

    graphs, ys, reserves = [], [], []
    for _ in range(3):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            call()                    # the eager warm-up before each capture
        torch.cuda.current_stream().wait_stream(side)
        reserves.append(r._reserve[x.device][0])
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            ys.append(call())
        graphs.append(g)
    # 16 of 32 taken: the second warm-up still found half; the third did not.
    assert reserves[0] is reserves[1] and reserves[2] is not reserves[1]
    kept = r._reserve[x.device][2]
    assert r._reserve[x.device][1] == 16 and len(kept) == 1 and kept[0] is reserves[0]
    for i in [2, 0, 1, 2]:
        a = rng.normal(size=(m, k)).astype(np.float16)
        x.copy_(torch.from_numpy(a))
        graphs[i].replay()
        torch.cuda.synchronize()
        want = a.astype(np.float64) @ w
        err = np.abs(ys[i].double().cpu().numpy() - want).max() / np.abs(want).max()
        assert err <= 1e-3, (i, err)
    assert all(int(t.abs().sum()) == 0 for t in reserves)


def test_split_k_in_a_cuda_graph(runner):
    """Split-K (the last block of each tile sums the partials and resets its
    counter) captured into two CUDA graphs: each captured call has counters
    of its own, zeroed before the capture and never zeroed inside the graph,
    so right results on every replay, in any order, show that each launch
    leaves its counters zero; they are zero after the replays; eager calls
    still agree."""
    torch = cuda_torch()
    rng = np.random.default_rng(12)
    m, n, k = 3, 512, 2048
    w, qw, s = _u4_weights(rng, k, n)
    xs = [torch.zeros(m, k, dtype=torch.float16, device="cuda") for _ in range(2)]
    configs = [(4, 2, 3, 4, 1), (4, 1, 4, 2, 2)]

    def call(i):
        return runner(xs[i], qw, s, wtype=tilus.uint4, offset=8, config=configs[i])

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(2):
            call(i)                     # loads the kernels, sets the counters aside
    torch.cuda.current_stream().wait_stream(side)
    reserve = runner._reserve[xs[0].device]
    first = reserve[1]
    graphs, ys = [], []
    for i in range(2):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            ys.append(call(i))
        graphs.append(g)
    # Both calls took slices of the reserve (1 x 512/64 and 1 x 512/32 tiles).
    assert reserve[1] - first == 8 + 16
    slices = reserve[0][first:reserve[1]]
    for i in [0, 1, 1, 0, 0, 1]:
        a = rng.normal(size=(m, k)).astype(np.float16)
        xs[i].copy_(torch.from_numpy(a))
        graphs[i].replay()
        torch.cuda.synchronize()
        want = a.astype(np.float64) @ w
        err = np.abs(ys[i].double().cpu().numpy() - want).max() / np.abs(want).max()
        assert err <= 1e-3, (i, err)
    assert int(slices.abs().sum()) == 0
    for i in range(2):
        eager = call(i)
        torch.cuda.synchronize()
        want = xs[i].double().cpu().numpy() @ w
        err = np.abs(eager.double().cpu().numpy() - want).max() / np.abs(want).max()
        assert err <= 1e-3, err


@pytest.mark.parametrize("group", [32, 128])
def test_quantized_linear_with_zero_points(runner, group):
    """from_linear(zero_points=True): uint4 codes with per-group zeros (as
    f16 values), the bias added in the kernel; against the f64 product with
    dequantized_weight(), eager and under torch.compile."""
    torch = cuda_torch()
    import tilus.nn
    torch.manual_seed(1)
    linear = torch.nn.Linear(512, 128, bias=True).half().cuda()
    q = tilus.nn.QuantizedLinear.from_linear(linear, tilus.uint4, group_size=group,
                                             zero_points=True)
    assert q.zeros is not None and q.offset == 0 and "zeros" in q.state_dict()
    w = q.dequantized_weight()
    step = q.scales.float().repeat_interleave(group, dim=0).T
    assert torch.all((w - linear.weight.float()).abs() <= 0.5 * step + 1e-3 * step)
    x = torch.randn(7, 512, dtype=torch.float16, device="cuda")
    want = x.double() @ w.double().T + linear.bias.double()
    for fn in (q, torch.compile(q, fullgraph=True)):
        y = fn(x)
        torch.cuda.synchronize()
        err = ((y.double() - want).abs().max() / want.abs().max()).item()
        assert err <= 1e-3, err


@requires_compiler
def test_pipeline_steps_per_split_count_k_tiles_per_stage():
    """Each of the split_k blocks runs K / 128 / (split_k * k_tiles) pipeline
    steps: the number of k tiles divided by both (a split of K / 128 / split_k
    steps of k_tiles tiles each read past K; masked, but twice the work)."""
    import re
    text = qmatmul.QuantizedMatmul(tilus.int4, split_k=2, k_tiles=2).mlir()
    const = dict(re.findall(r"(%\w+) = arith.constant (\d+) : index", text))
    divs = re.findall(r"(%\w+) = arith.divui (%\w+), (%\w+) : index", text)
    defs = {r: (a, b) for r, a, b in divs}
    kt = [r for r, (a, b) in defs.items() if const.get(b) == "128"]
    assert kt, text
    by = sorted(int(const[b]) for r, (a, b) in defs.items() if a in kt and b in const)
    assert by == [4], by


def test_quantized_linear_state_dict_names_its_weight_format():
    """The packed format's number travels with the weights; for the types
    whose packing changed in format 2, 3 or 4, a state dict without it (packed
    before) or with an earlier one is refused, and so is a later format. Other types load either way, and a partial
    dict that does not hold the layer passes it by."""
    torch = pytest.importorskip("torch")
    import tilus.nn
    q = tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8)
    sd = q.state_dict()
    assert int(sd["weight_format"][0]) == qmatmul.WEIGHT_FORMAT
    tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8).load_state_dict(sd)
    old = {k: v for k, v in sd.items() if k != "weight_format"}
    with pytest.raises(RuntimeError, match="quantize the layer again"):
        tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8).load_state_dict(old)
    sd["weight_format"] = torch.tensor([1])
    with pytest.raises(RuntimeError, match="in format 1"):
        tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8).load_state_dict(sd)
    model = torch.nn.Sequential(tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8))
    model.load_state_dict({}, strict=False)                    # a shard without it
    u3 = tilus.nn.QuantizedLinear(256, 16, tilus.uint3, offset=4)
    u3_old = {k: v for k, v in u3.state_dict().items() if k != "weight_format"}
    tilus.nn.QuantizedLinear(256, 16, tilus.uint3, offset=4).load_state_dict(u3_old)
    # Format 3 changed the 4-bit floats only, 4 the 6-bit floats: a format-2
    # dict of uint4 reads the same, one of float4_e2m1 does not; a later
    # format is refused.
    sd["weight_format"] = torch.tensor([2])
    tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8).load_state_dict(sd)
    f4 = tilus.nn.QuantizedLinear(256, 16, tilus.float4_e2m1).state_dict()
    tilus.nn.QuantizedLinear(256, 16, tilus.float4_e2m1).load_state_dict(f4)
    f4["weight_format"] = torch.tensor([2])
    with pytest.raises(RuntimeError, match="changed in format 3"):
        tilus.nn.QuantizedLinear(256, 16, tilus.float4_e2m1).load_state_dict(f4)
    f4["weight_format"] = torch.tensor([3])              # 4 changed the 6-bit floats only
    tilus.nn.QuantizedLinear(256, 16, tilus.float4_e2m1).load_state_dict(f4)
    f6 = tilus.nn.QuantizedLinear(256, 16, tilus.float6_e3m2).state_dict()
    f6["weight_format"] = torch.tensor([3])
    with pytest.raises(RuntimeError, match="changed in format 4"):
        tilus.nn.QuantizedLinear(256, 16, tilus.float6_e3m2).load_state_dict(f6)
    sd["weight_format"] = torch.tensor([qmatmul.WEIGHT_FORMAT + 1])
    with pytest.raises(RuntimeError, match=f"in format {qmatmul.WEIGHT_FORMAT + 1}"):
        tilus.nn.QuantizedLinear(256, 16, tilus.uint4, offset=8).load_state_dict(sd)


# --- kernel tables for C (tilus.ops.export) ------------------------------------

from tilus.ops import export  # noqa: E402


def test_export_ranges_follow_the_runner():
    """Each range of M gets the configuration and row tiles that
    quantized_matmul takes anywhere inside it on an H100 (the wgmma
    variant's above M = 32 for f16, zero points or not, and for int8 x,
    fp8_config's for FP8 x, else default_config's); equal neighbours are
    merged. Every M of every range (to well past the last boundary) takes
    the range's choice."""
    from tilus.ops.qmatmul_fp8 import fp8_config
    for wtype, act, zeros in [(tilus.uint4, None, False), (tilus.uint4, None, True),
                              (tilus.uint3, tilus.int8, False)]:
        for n, k in [(57344, 8192), (256, 1024)]:
            rows = export.entries(wtype, 8, n, k, 128, act, zeros)
            assert rows[0][0] == 1 and rows[-1][1] == 0
            for (lo, hi, cfg, mt), nxt in zip(rows, rows[1:] + [None]):
                assert nxt is None or nxt[0] == hi + 1
                for m in {lo, (lo + hi) // 2 if hi else lo + 7, hi or 4 * lo}:
                    wgmma = act is None and qmatmul.wgmma_config(m, n, k, wtype, act, 128,
                                                                 zeros)
                    if act == tilus.int8 and m > qmatmul.I8_WGMMA_ABOVE:
                        # int8 x on wgmma: the FP8 variant's blocks.
                        wgmma = fp8_config(m, n, k, wtype, 128, False)
                    assert cfg == (wgmma or qmatmul.default_config(
                        m, n, k, wtype, 128, 8, act, *export.H100))
                    wg = m > 32 and act is None or m > qmatmul.I8_WGMMA_ABOVE and \
                        act == tilus.int8
                    # wgmma (the warp-specialized 4-tuples wherever they fit,
                    # on a stream-K grid for f16 x at some M from 65 to 256,
                    # f16 and int8 x above M = 32) or mma.sync (5-tuples).
                    assert qmatmul.is_wgmma(cfg) == wg and len(cfg) in (4, 5)
                    assert not qmatmul.is_stream_k(cfg) or act is None and 64 < m <= 256
                    assert mt == qmatmul.row_tiles(m)
    # Every M, not samples: the runner's choice stays the range's across each
    # range (fp8_config's above M = 256 changes with the waves at narrow N).
    for wtype, off, act, zeros in [(tilus.uint4, 8, None, False),
                                   (tilus.uint4, 0, None, tilus.uint8),
                                   (tilus.uint4, 8, tilus.int8, False),
                                   (tilus.uint4, 0, tilus.int8, tilus.uint8),
                                   (tilus.int4, 0, tilus.float8_e4m3, False),
                                   (tilus.uint4, 0, tilus.float8_e4m3, tilus.uint8)]:
        for n, k in [(1024, 4096), (4096, 4096), (10240, 8192), (57344, 8192)]:
            rows = export.entries(wtype, off, n, k, 128, act, zeros)
            for lo, hi, cfg, mt in rows:
                for m in range(lo, (hi or 2 * lo) + 1):
                    assert qmatmul.default_choice(m, n, k, wtype, 128, off, act, zeros,
                                                  *export.H100) == cfg, (act, n, m)


@requires_compiler
def test_export_writes_a_table_the_c_runtime_reads(tmp_path):
    count = export.export(str(tmp_path), [(tilus.uint4, 8), (tilus.float6_e3m2, 0)],
                          [(256, 1024)], activations=("float16", "int8", "float8_e4m3"),
                          variants=("plain", "zeros"), processes=1)
    lines = (tmp_path / export.TABLE_FILE).read_text().splitlines()
    assert lines[0] == export.HEADER
    rows = [ln.split() for ln in lines if not ln.startswith("#")][1:]
    assert len(rows) == count
    # f16: both types, plain only for uint4 (zeros replace its offset), both
    # variants for the float; int8 and FP8: uint4 plain only.
    kinds = {(r[0], r[3], r[4]) for r in rows}
    assert kinds == {("uint4", "float16", "0"), ("float6_e3m2", "float16", "0"),
                     ("float6_e3m2", "float16", "1"), ("uint4", "int8", "0"),
                     ("uint4", "float8_e4m3", "0")}
    # FP8: fp8_config's blocks, as tall as M's range up to 64 rows; at N =
    # 256, 64-row blocks fit one wave up to M = 64 x 66 (one warpgroup's, of
    # 64 columns, up to 2048), then taller blocks do.
    fp8 = sorted((int(r[6]), int(r[7]), int(r[11])) for r in rows if r[3] == "float8_e4m3")
    assert fp8 == [(1, 16, 16), (17, 32, 32), (33, 2048, 64), (2049, 4224, 64),
                   (4225, 8448, 128), (8449, 0, 256)]
    first = {"int8": "ptr i8", "float8_e4m3": "ptr float8_e4m3"}
    for r in rows:
        art = tilus.Artifact.from_file(tmp_path / r[13])
        names = [p.describe() for p in art.kernels[0].params]
        assert names[0] == first.get(r[3], "ptr f16")
        assert (names[1] == "ptr f32") == (r[3] in first)
        # Split-K and stream-K (split_k -132, at most one block per SM)
        # take partials; stream-K its blocks last.
        assert ("ptr f32" in names[2:]) == (int(r[10]) > 1 or int(r[10]) < 0)
        assert (int(r[10]) < 0) == (len(names) == names.index("i32") + 4)
        assert int(r[10]) in (-qmatmul.SMS, 1) or int(r[10]) > 1
    with pytest.raises(SystemExit, match="bad --shapes"):
        export.main([str(tmp_path), "--weights", "uint4:8", "--shapes", "256by1024"])
    with pytest.raises(SystemExit, match="N x K = 256x1000 with group 128: K must be"):
        export.main([str(tmp_path), "--weights", "uint4:8", "--shapes", "256x1000"])
    with pytest.raises(SystemExit, match="256x384 with group 256"):
        export.main([str(tmp_path), "--weights", "uint4:8", "--shapes", "256x384",
                     "--group", "256"])


def test_export_chooses_as_the_runner_with_zero_codes():
    """Zero codes take less shared memory than values, so the runner's wgmma
    and FP8 choices can differ between the two; the table's entries follow
    the kind of zero points (the runner passes tilus.uint8 for codes)."""
    from tilus.ops.qmatmul_fp8 import fp8_config
    last = export.entries(tilus.uint4, 0, 8192, 1024, 128, tilus.float8_e4m3,
                          tilus.uint8)[-1]
    assert last[2] == fp8_config(300, 8192, 1024, tilus.uint4, 128, tilus.uint8) \
        == (2, 256, 4, 2)
    assert export.entries(tilus.uint4, 0, 8192, 1024, 128, tilus.float8_e4m3)[-1][2] \
        == (2, 256, 3, 1)
    for zeros in (True, tilus.uint8):
        rows = export.entries(tilus.uint5, 0, 10240, 8192, 32, None, zeros)
        cfg = next(c for lo, hi, c, _ in rows if lo <= 200 <= (hi or 200))
        assert cfg == qmatmul.wgmma_config(200, 10240, 8192, tilus.uint5, None, 32, zeros)
    assert export.entries(tilus.uint5, 0, 10240, 8192, 32, None, True) != \
        export.entries(tilus.uint5, 0, 10240, 8192, 32, None, tilus.uint8)


@requires_compiler
def test_export_zero_codes(tmp_path, monkeypatch):
    """Zero points as values (zeros 1) and as uint8 codes (zeros 2): f16
    takes both, int8 and FP8 only codes; each kernel's zeros parameter has
    that type, after x (and x's row scales), the weights and the scales."""
    kinds_asked = set()
    real_entries = export.entries

    def spy(*args):
        kinds_asked.add(args[6])
        return real_entries(*args)
    monkeypatch.setattr(export, "entries", spy)
    count = export.export(str(tmp_path), [(tilus.uint4, 0), (tilus.int4, 0)], [(256, 1024)],
                          activations=("float16", "int8", "float8_e4m3"),
                          variants=("zeros", "codes"), processes=1)
    # Each variant's choice sees its kind of zero points (values or codes).
    assert kinds_asked == {True, tilus.uint8}
    lines = (tmp_path / export.TABLE_FILE).read_text().splitlines()
    rows = [ln.split() for ln in lines if not ln.startswith("#")][1:]
    assert len(rows) == count
    # int4: f16 only (int8 and FP8 take zero codes of unsigned weights).
    assert {(r[0], r[3], r[4]) for r in rows} == {
        ("uint4", "float16", "1"), ("uint4", "float16", "2"), ("uint4", "int8", "2"),
        ("uint4", "float8_e4m3", "2"), ("int4", "float16", "1"), ("int4", "float16", "2")}
    for r in rows:
        names = [p.describe() for p in
                 tilus.Artifact.from_file(tmp_path / r[13]).kernels[0].params]
        at = 4 if r[3] in ("int8", "float8_e4m3") else 3
        assert names[at] == ("ptr ui8" if r[4] == "2" else "ptr f16"), (r, names)


# --- FP8 (E4M3) activations (qmatmul_fp8) --------------------------------------

FP8_TYPES = [(tilus.int4, 0), (tilus.uint4, 8), (tilus.uint4, 0), (tilus.int3, 0),
             (tilus.uint3, 4), (tilus.int2, 0), (tilus.uint2, 2), (tilus.uint1, 0)]


@pytest.mark.parametrize("wtype,offset", FP8_TYPES, ids=[f"{w}-{o}" for w, o in FP8_TYPES])
def test_fp8_format_round_trip(wtype, offset):
    """unpack inverts pack in the FP8 format; it is the int8 format of the
    recoded codes: a negative value v of b bits as 2^(b-1) | (-1 - v)."""
    rng = np.random.default_rng(wtype.bits + offset)
    codes = qmatmul.random_codes(rng, wtype, (256, 64))
    packed = qmatmul.pack(codes, wtype, offset, activation=tilus.float8_e4m3)
    # Signed codes given as their two's complement bits (as pack_on_device
    # takes them) pack the same.
    assert np.array_equal(qmatmul.pack(codes & 0xFF, wtype, offset,
                                       activation=tilus.float8_e4m3), packed)
    assert np.array_equal(qmatmul.unpack(packed, wtype, 256, 64, offset,
                                         activation=tilus.float8_e4m3), codes)
    v = codes - offset
    h = 1 << (wtype.bits - 1)
    recoded = np.where(v < 0, h | (-1 - v), v) if (wtype.signed or offset) else codes
    assert np.array_equal(packed, qmatmul.pack(recoded, tilus.uint_(wtype.bits), 0,
                                               activation=tilus.int8))


@requires_compiler
@requires_compiler
def test_int8_wgmma_template_compiles_and_refuses():
    """The int8 wgmma variant's PTX: s8 wgmma from a register operand into
    s32, converted to f32 for the group scales, TMA, setmaxnreg, no local
    memory; and what it refuses, by name (the mma.sync template's rules)."""
    k = qmatmul_i8_wgmma.QuantizedMatmulWgmmaI8(tilus.uint4, 128, 8, warpgroups=2,
                                                block_m=160, stages=4, lag=2, bias=True)
    assert k.parts == 2 and k.shared_bytes <= qmatmul.MAX_BLOCK_SHARED
    art = k.compile(target="sm_90a")
    assert [p.describe() for p in art.kernels[0].params] == [
        "ptr i8", "ptr f32", "ptr ui8", "ptr f16", "ptr f16", "ptr f16", "i32", "i32", "i32"]
    ptx = art.image
    assert "wgmma.mma_async.sync.aligned.m64n80k32.s32.s8.s8" in ptx
    assert ptx.count("wgmma.mma_async") == 8          # 2 parts x 4 k steps
    assert "cvt.rn.f32.s32" in ptx and "cp.async.bulk.tensor" in ptx and "setmaxnreg" in ptx
    assert ".local" not in ptx
    with pytest.raises(ValueError, match="no int8-activation format for uint8 with offset 0"):
        qmatmul_i8_wgmma.QuantizedMatmulWgmmaI8(tilus.uint8, 128, 0)
    with pytest.raises(ValueError, match="no int8-activation format for float6_e3m2"):
        qmatmul_i8_wgmma.QuantizedMatmulWgmmaI8(tilus.float6_e3m2, 128, 0)
    with pytest.raises(ValueError, match="multiple of 128"):
        qmatmul_i8_wgmma.QuantizedMatmulWgmmaI8(tilus.uint4, 64, 8)
    for wtype, zeros in [(tilus.int4, tilus.uint8), (tilus.uint4, True),
                         (tilus.uint4, tilus.float16)]:
        with pytest.raises(ValueError, match="zero points as uint8 codes"):
            qmatmul_i8_wgmma.QuantizedMatmulWgmmaI8(wtype, 128, 0, zeros=zeros)


def test_fp8_template_compiles_and_refuses():
    """The FP8 variant's PTX: e4m3 wgmma from a register operand, TMA,
    setmaxnreg, the first k step of each product from zero (scale-d 0), the
    block in parts of 128 rows; and what it refuses, by name."""
    k = qmatmul_fp8.QuantizedMatmulWgmmaFP8(tilus.int4, 128, 0, warpgroups=2, block_m=256,
                                            stages=4, lag=2)
    assert k.parts == 2 and k.shared_bytes <= qmatmul.MAX_BLOCK_SHARED
    art = k.compile(target="sm_90a")
    assert art.kernels[0].block == (384, 1, 1)
    ptx = art.image
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
    assert "cp.async.bulk.tensor" in ptx and "setmaxnreg" in ptx
    assert ptx.count("wgmma.mma_async") == 8          # 2 parts x 4 k steps
    for bad in [(tilus.uint5, 0), (tilus.int4, 3), (tilus.float4_e2m1, 0), (tilus.uint4, 4),
                (tilus.uint1, 1)]:
        assert not qmatmul.fp8_fits(*bad)
        with pytest.raises(ValueError, match="at most 4 bits"):
            qmatmul_fp8.QuantizedMatmulWgmmaFP8(bad[0], 128, bad[1])
        with pytest.raises(ValueError, match="no FP8-activation format"):
            qmatmul.pack(np.zeros((128, 8), dtype=np.int64), *bad,
                         activation=tilus.float8_e4m3)
    with pytest.raises(ValueError, match="multiple of 128"):
        qmatmul_fp8.QuantizedMatmulWgmmaFP8(tilus.int4, 64, 0)
    for wtype, zeros in [(tilus.int4, tilus.uint8), (tilus.uint4, True),
                         (tilus.uint4, tilus.float16)]:
        with pytest.raises(ValueError, match=f"zero points as uint8 codes.*not {zeros} zeros "
                                             f"of {wtype}"):
            qmatmul_fp8.QuantizedMatmulWgmmaFP8(wtype, 128, 0, zeros=zeros)
    assert qmatmul_fp8.fp8_config(4096, 57344, 8192, tilus.uint4, zeros=tilus.uint8) == (
        2, 256, 4, 2)
    z = qmatmul_fp8.fp8_program(tilus.uint4, 128, 0, (2, 256, 3, 1), zeros=tilus.uint8)
    plain = qmatmul_fp8.fp8_program(tilus.uint4, 128, 0, (2, 256, 3, 1))
    assert z.shared_bytes == plain.shared_bytes + 3 * 128       # a byte per column and stage
    assert [p.describe() for p in z.compile(target="sm_90a").kernels[0].params] == [
        "ptr float8_e4m3", "ptr f32", "ptr ui8", "ptr f16", "ptr ui8", "ptr f16", "i32", "i32",
        "i32"]
    assert qmatmul_fp8.fp8_config(4096, 57344, 8192, tilus.int4) == (2, 256, 3, 1)
    assert qmatmul_fp8.fp8_config(16, 57344, 8192, tilus.int4) == (2, 16, 8, 2)
    # 64 blocks of two warpgroups would leave half of 132 SMs idle: one.
    assert qmatmul_fp8.fp8_config(16, 8192, 8192, tilus.int4) == (1, 16, 8, 2)
    assert qmatmul_fp8.fp8_config(16, 10240, 8192, tilus.int4) == (2, 16, 8, 2)
    assert qmatmul_fp8.fp8_config(100, 57344, 8192, tilus.int4) == (2, 128, 4, 1)
    # Narrow N: the lowest block whose grid fits one wave of 132 SMs.
    assert qmatmul_fp8.fp8_config(128, 8192, 8192, tilus.int4) == (2, 64, 8, 3)
    assert qmatmul_fp8.fp8_config(256, 8192, 8192, tilus.int4) == (2, 128, 4, 1)
    assert qmatmul_fp8.fp8_config(256, 10240, 8192, tilus.int4) == (2, 256, 3, 1)
    assert qmatmul_fp8.fp8_config(128, 10240, 8192, tilus.int4) == (2, 128, 4, 1)
    # Between the powers of two, M's own height (rounded up to 32) where the
    # lower ones do not fit one wave: four stages.
    assert qmatmul_fp8.fp8_config(96, 57344, 8192, tilus.int4) == (2, 96, 4, 1)
    assert qmatmul_fp8.fp8_config(150, 57344, 8192, tilus.int4) == (2, 160, 4, 2)
    assert qmatmul_fp8.fp8_config(192, 10240, 8192, tilus.int4) == (2, 192, 4, 2)
    assert qmatmul_fp8.fp8_config(192, 8192, 8192, tilus.int4) == (2, 128, 4, 1)
    assert qmatmul_fp8.fp8_config(40, 64, 8192, tilus.int4) == (1, 64, 8, 3)   # N = 64
    assert qmatmul_fp8.fp8_config(4096, 96, 8192, tilus.int4) is None
    assert not qmatmul_wgmma.wgmma_fits((2, 256, 6, 1), 8192, 8192, tilus.int4,
                                        fp8=True)                    # 247 KB of stages
    # 200 rows do not split into parts of at most 128 of a multiple of 8.
    assert not qmatmul_wgmma.wgmma_fits((2, 200, 3, 1), 8192, 8192, tilus.int4, fp8=True)
    assert qmatmul_wgmma.wgmma_fits((2, 208, 3, 1), 8192, 8192, tilus.int4, fp8=True)


def _fp8_inputs(rng, m, k, exact=False):
    """E4M3 codes of A [m, k] (no NaN) and row scales: random finite codes,
    or (exact) integers in [-16, 16] and powers of two."""
    e4m3 = tilus.float8_e4m3
    if exact:
        a = e4m3.encode(rng.integers(-16, 17, size=(m, k)).astype(np.float64))
        ts = np.ldexp(1.0, rng.integers(-3, 3, size=m)).astype(np.float32)
    else:
        a = rng.integers(0, 256, size=(m, k))
        a = np.where((a & 0x7F) == 0x7F, 0, a)
        ts = (rng.random(m) + 0.5).astype(np.float32)
    return np.asarray(a, dtype=np.uint8), ts


def _run_fp8(runner, a, ts, codes, scales, wtype, offset, group, config, bias=None,
             zeros=None):
    torch = cuda_torch()
    qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset, activation=tilus.float8_e4m3)
                          .reshape(-1)).cuda()
    got = runner(torch.from_numpy(a).cuda().view(torch.float8_e4m3fn), qw,
                 torch.from_numpy(scales).cuda(),
                 None if zeros is None else torch.from_numpy(zeros.astype(np.uint8)).cuda(),
                 bias=None if bias is None else torch.from_numpy(bias).cuda(), wtype=wtype,
                 group_size=group, offset=offset, config=config,
                 x_scales=torch.from_numpy(ts).cuda())
    torch.cuda.synchronize()
    return got.cpu().numpy()


FP8_CASES = [  # wtype, offset, group, config (None: fp8_config)
    (tilus.int4, 0, 128, None), (tilus.uint4, 8, 256, (2, 128, 4, 1)),
    (tilus.uint4, 0, 128, (2, 256, 3, 1)), (tilus.int3, 0, 128, (2, 256, 4, 2)),
    (tilus.int2, 0, 512, (1, 128, 4, 1)), (tilus.uint2, 2, 128, None),
    (tilus.uint1, 0, 128, (2, 192, 4, 1)), (tilus.uint3, 4, 1024, (2, 64, 2, 1)),
    # M's own heights (fp8_config between the powers of two)
    (tilus.int4, 0, 128, (2, 160, 4, 2)), (tilus.uint4, 8, 256, (2, 96, 4, 1)),
]


@pytest.mark.parametrize("wtype,offset,group,config", FP8_CASES,
                         ids=[f"{c[0]}-{c[1]}-g{c[2]}-{c[3]}" for c in FP8_CASES])
@pytest.mark.parametrize("m,k", [(129, 1024), (300, 2048), (520, 128), (7, 512)])
def test_fp8_activations_against_f64(runner, wtype, offset, group, config, m, k):
    """Random E4M3 rows and row scales, ragged M (TMA's zero rows are not
    stored), one k tile and many: within 1e-3 of the f64 reference's
    largest element."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    if k % group:
        pytest.skip("K must be a multiple of the group")
    rng = np.random.default_rng(m + k + wtype.bits)
    n = 384
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    scales = (rng.random((k // group, n)) * 0.02 + 0.005).astype(np.float16)
    a, ts = _fp8_inputs(rng, m, k)
    want = (tilus.float8_e4m3.decode(a) @ qmatmul.dequantize(codes, scales, wtype, offset,
                                                              group)) * ts[:, None]
    got = _run_fp8(runner, a, ts, codes, scales, wtype, offset, group, config)
    assert got.shape == (m, n)
    err = np.abs(got.astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


@pytest.mark.parametrize("config", [None, (1, 128, 4, 1), (2, 256, 3, 1), (2, 64, 8, 3)],
                         ids=str)
@pytest.mark.parametrize("m", [7, 300])
def test_fp8_activations_with_bias(runner, config, m):
    """A bias after the tokens' scales, in every part of the block: within
    1e-3 of the f64 reference x_scales[m] * (x W) + bias."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    rng = np.random.default_rng(m + 17)
    n, k = 384, 1024
    codes = qmatmul.random_codes(rng, tilus.int4, (k, n))
    scales = (rng.random((k // 128, n)) * 0.02 + 0.005).astype(np.float16)
    a, ts = _fp8_inputs(rng, m, k)
    bias = (rng.normal(size=n) * 4).astype(np.float16)
    want = (tilus.float8_e4m3.decode(a) @ qmatmul.dequantize(codes, scales, tilus.int4, 0, 128)
            ) * ts[:, None] + bias.astype(np.float64)
    got = _run_fp8(runner, a, ts, codes, scales, tilus.int4, 0, 128, config, bias)
    err = np.abs(got.astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


FP8_ZERO_CASES = [  # wtype, group, config (None: fp8_config), bias
    (tilus.uint4, 128, None, False), (tilus.uint4, 256, (2, 256, 3, 1), True),
    (tilus.uint3, 128, (1, 128, 4, 1), False), (tilus.uint2, 512, (2, 64, 8, 3), True),
    (tilus.uint1, 128, (2, 192, 4, 1), False), (tilus.uint4, 1024, (2, 256, 3, 1), True),
    (tilus.uint4, 128, (2, 192, 4, 2), True), (tilus.uint3, 256, (2, 224, 4, 2), False),
]


@pytest.mark.parametrize("wtype,group,config,bias", FP8_ZERO_CASES,
                         ids=[f"{c[0]}-g{c[1]}-{c[2]}-{'bias' if c[3] else 'nobias'}"
                              for c in FP8_ZERO_CASES])
@pytest.mark.parametrize("m", [7, 300])
def test_fp8_zero_codes_against_f64(runner, wtype, group, config, bias, m):
    """FP8 x with uint8 zero codes over the whole code range (the weights
    c - z in -(2^b - 1)..2^b - 1, sign and magnitude in E4M3): within 1e-3
    of the f64 reference."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    rng = np.random.default_rng(m + 3 * wtype.bits + group)
    n, k = 384, 1024
    codes = qmatmul.random_codes(rng, wtype, (k, n))
    zeros = rng.integers(0, 1 << wtype.bits, size=(k // group, n))
    scales = (rng.random((k // group, n)) * 0.02 + 0.005).astype(np.float16)
    a, ts = _fp8_inputs(rng, m, k)
    b = (rng.normal(size=n) * 4).astype(np.float16) if bias else None
    want = (tilus.float8_e4m3.decode(a) @ qmatmul.dequantize(codes, scales, wtype, 0, group,
                                                              zeros)) * ts[:, None]
    if b is not None:
        want = want + b.astype(np.float64)
    got = _run_fp8(runner, a, ts, codes, scales, wtype, 0, group, config, b, zeros)
    err = np.abs(got.astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= 1e-3, err


def test_fp8_zero_codes_bit_exact_when_representable(runner):
    """Integer E4M3 rows, uint4 codes less zeros 0..16 (every difference
    -16..15 occurs; GPTQ's original format stores zeros up to 2^b),
    power-of-two scales: the f16 result is the exact value rounded once, by
    the runner and through the torch operator."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    rng = np.random.default_rng(34)
    n, k = 128, 512
    codes = rng.integers(0, 16, size=(k, n))
    zeros = rng.integers(0, 17, size=(k // 128, n))
    zeros[0, :17] = np.arange(17)
    s = np.ldexp(1.0, rng.integers(-8, -5, size=(k // 128, n))).astype(np.float16)
    w = (codes - np.repeat(zeros, 128, axis=0)) * np.repeat(s.astype(np.float64), 128, axis=0)
    a, ts = _fp8_inputs(rng, 200, k, exact=True)
    want = ((tilus.float8_e4m3.decode(a) @ w) * ts[:, None]).astype(np.float16)
    got = _run_fp8(runner, a, ts, codes, s, tilus.uint4, 0, 128, None, zeros=zeros)
    assert np.array_equal(got, want)
    torch = cuda_torch()
    qw = torch.from_numpy(qmatmul.pack(codes, tilus.uint4, activation=tilus.float8_e4m3)
                          .reshape(-1)).cuda()
    got = qmatmul.torch_op_int8()(torch.from_numpy(a).cuda().view(torch.float8_e4m3fn),
                                  torch.from_numpy(ts).cuda(), qw, torch.from_numpy(s).cuda(),
                                  None, "uint4", 128, 0,
                                  torch.from_numpy(zeros.astype(np.uint8)).cuda())
    assert np.array_equal(got.cpu().numpy(), want)


def test_fp8_activations_bit_exact_when_representable(runner):
    """Integer E4M3 rows in [-16, 16], power-of-two weight and row scales:
    every k tile's sum is an integer that f32 holds, every scaling is exact,
    so the f16 result is the exact value rounded once (the E4M3 subnormal
    weights and their 2^9 included)."""
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    rng = np.random.default_rng(33)
    n, k = 128, 512
    for wtype, offset in [(tilus.int4, 0), (tilus.uint4, 8), (tilus.uint4, 0)]:
        codes = qmatmul.random_codes(rng, wtype, (k, n))
        s = np.ldexp(1.0, rng.integers(-8, -5, size=(k // 128, n))).astype(np.float16)
        w = (codes - offset) * np.repeat(s.astype(np.float64), 128, axis=0)
        a, ts = _fp8_inputs(rng, 200, k, exact=True)
        want = ((tilus.float8_e4m3.decode(a) @ w) * ts[:, None]).astype(np.float16)
        got = _run_fp8(runner, a, ts, codes, s, wtype, offset, 128, None)
        assert np.array_equal(got, want), wtype


def test_fp8_device_pack_and_argument_errors(runner):
    """pack_on_device gives pack()'s FP8 bytes; what the runner refuses."""
    torch = cuda_torch()
    if runner.runtime.compute_capability != (9, 0):
        pytest.skip("FP8 activations need an sm_90 GPU")
    rng = np.random.default_rng(8)
    for wtype, offset in [(tilus.int4, 0), (tilus.uint4, 8), (tilus.uint2, 0)]:
        codes = qmatmul.random_codes(rng, wtype, (256, 64))
        on_gpu = qmatmul.pack_on_device(torch.from_numpy((codes & 0xFF).astype(np.uint8)).cuda(),
                                        wtype, offset, runtime=runner,
                                        activation=tilus.float8_e4m3)
        assert np.array_equal(on_gpu.cpu().numpy(),
                              qmatmul.pack(codes, wtype, offset, activation=tilus.float8_e4m3)
                              .reshape(-1)), wtype
    x = torch.zeros(4, 256, device="cuda").to(torch.float8_e4m3fn)
    xs = torch.ones(4, dtype=torch.float32, device="cuda")
    s = torch.ones(2, 128, dtype=torch.float16, device="cuda")
    qw = torch.zeros(256 * 128 // 2, dtype=torch.uint8, device="cuda")
    with pytest.raises(tilus.TilusArgumentError, match="float8_e4m3fn x needs x_scales"):
        runner(x, qw, s, wtype=tilus.int4)
    with pytest.raises(tilus.TilusArgumentError, match="at most 4 bits"):
        runner(x, torch.zeros(256 * 128, dtype=torch.uint8, device="cuda"), s,
               wtype=tilus.uint8, offset=128, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="float8_e4m3fn x takes zero points as "
                                                       "uint8 codes.*not torch.float16 zeros"):
        runner(x, qw, s, s, wtype=tilus.uint4, x_scales=xs)
    z8 = torch.zeros(2, 128, dtype=torch.uint8, device="cuda")
    with pytest.raises(tilus.TilusArgumentError, match="not torch.uint8 zeros of int4"):
        runner(x, qw, s, z8, wtype=tilus.int4, x_scales=xs)
    # A zero code above 16 (c - z below -16) is refused on the eager call.
    z8[1, 7] = 17
    with pytest.raises(tilus.TilusArgumentError, match="float8_e4m3fn x .*at most 16; zeros "
                                                       "hold 17"):
        runner(x, qw, s, z8, wtype=tilus.uint4, x_scales=xs)
    with pytest.raises(tilus.TilusArgumentError, match="not an FP8"):
        runner(x, qw, s, wtype=tilus.int4, x_scales=xs, config=(4, 2, 3, 1, 1))
    with pytest.raises(tilus.TilusArgumentError, match="no FP8 configuration tiles N = 72"):
        runner(x, torch.zeros(256 * 72 // 2, dtype=torch.uint8, device="cuda"),
               torch.ones(2, 72, dtype=torch.float16, device="cuda"), wtype=tilus.int4,
               x_scales=xs)
