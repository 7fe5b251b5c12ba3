"""Weight packing, against WeightPack.h's C, its unit test's hand-computed
bytes, and a numpy reference of the packing rule."""

import ctypes
import math

import numpy as np
import pytest

import tilus
from tilus import _lib
from tilus.weight_pack import compact_bits, expand_bits

from conftest import requires_compiler

pytestmark = requires_compiler

FIG2 = "local(2,1).column_spatial(4,8).local(2,1)"


def reference_pack(values, bits, tile, layout):
    """WeightPack.h's rule, from its header: thread t's n = m*b/8 bytes hold
    its m elements (slot order, least significant bits first); its byte j
    sits at local(n2).spatial(T).local(n1)(t, j) of the tile (n1 =
    gcd(n, 16), n2 = n / n1); tiles in row-major order."""
    K, N = values.shape
    BK, BN = tile
    T, m = layout.num_threads, layout.local_size
    n = m * bits // 8
    n1 = math.gcd(n, 16)
    n2 = n // n1
    byte_layout = tilus.local(n2).spatial(T).local(n1)
    table = layout.table()
    out = np.zeros((K // BK, N // BN, T * n), dtype=np.uint8)
    for tr in range(K // BK):
        for tc in range(N // BN):
            tile_values = values[tr * BK:(tr + 1) * BK, tc * BN:(tc + 1) * BN]
            for t in range(T):
                elems = [int(tile_values[tuple(table[t, i])]) for i in range(m)]
                stream = compact_bits(elems, bits)
                for j in range(n):
                    out[tr, tc, byte_layout(t, j)[0]] = stream[j]
    return out


def test_compact_bits_layout():
    # Element j at bits [j*b, (j+1)*b), least significant first.
    assert list(compact_bits([1, 2, 3], 6)) == [0b10000001, 0b00110000, 0b0000]
    assert list(compact_bits([1, 0, 1, 1, 0, 0, 0, 1], 1)) == [0b10001101]
    v = np.arange(-32, 32)
    assert np.array_equal(expand_bits(compact_bits(v, 6), 6, 64, signed=True), v)


def test_figure2_int6_bytes():
    """test/unit/WeightPackTest.c's hand-computed case: element (r, c) holds
    (r*16 + c) & 63; tile (1, 1), thread 5 holds rows 18, 19, 26, 27 of
    column 9, its bytes j at tile offset 32*j + 5."""
    layout = tilus.Layout.parse(FIG2)
    values = (np.arange(32)[:, None] * 16 + np.arange(16)[None, :]) & 63
    packed = tilus.weight_pack(values, tilus.uint6, tile=(16, 8), layout=layout)
    assert packed.shape == (2, 2, 96) and packed.dtype == np.uint8
    tile = packed[1, 1]
    bits = int(tile[5]) | int(tile[37]) << 8 | int(tile[69]) << 16
    for i, row in enumerate([18, 19, 26, 27]):
        assert (bits >> (6 * i)) & 63 == (row * 16 + 9) & 63
    assert str(tilus.weight_packed_layout(tilus.uint6, (16, 8), layout)) == "local(3).spatial(32)"
    back = tilus.weight_unpack(packed, tilus.uint6, shape=(32, 16), tile=(16, 8), layout=FIG2)
    assert np.array_equal(back, values)


def _c_pack(compact, rows, cols, tile, bits, layout, unpack=False):
    lib = _lib.compiler_lib()
    p = _lib.TilusWeightPacking(rows, cols, tile[0], tile[1], bits, layout._ptr)
    src = np.ascontiguousarray(compact, dtype=np.uint8)
    dst = np.zeros_like(src)
    fn = lib.tilusWeightUnpack if unpack else lib.tilusWeightPack
    assert fn(ctypes.byref(p), src.ctypes.data, dst.ctypes.data, None)
    return dst


@pytest.mark.parametrize("dtype", [tilus.uint1, tilus.uint2, tilus.uint3, tilus.int4,
                                   tilus.uint5, tilus.int6, tilus.uint7, tilus.uint8,
                                   tilus.float6_e3m2, tilus.float4_e2m1],
                         ids=lambda d: d.name)
def test_pack_equals_c_and_reference(dtype):
    layout = tilus.Layout.parse("spatial(8,4).local(2,8)")   # 16 x 32, m = 16
    rng = np.random.default_rng(dtype.bits)
    if isinstance(dtype, tilus.FloatDType):
        values = dtype.encode(rng.normal(size=(32, 64)))
    elif dtype.signed:
        values = rng.integers(dtype.min, dtype.max + 1, size=(32, 64))
    else:
        values = rng.integers(0, dtype.max + 1, size=(32, 64))
    packed = tilus.weight_pack(values, dtype, tile=(16, 32), layout=layout)
    compact = compact_bits(values, dtype.bits)
    c = _c_pack(compact, 32, 64, (16, 32), dtype.bits, layout)
    assert packed.tobytes() == c.tobytes()
    assert np.array_equal(packed, reference_pack(values, dtype.bits, (16, 32), layout))
    assert not np.array_equal(packed.reshape(-1), compact)
    back = tilus.weight_unpack(packed, dtype, shape=(32, 64), tile=(16, 32), layout=layout)
    assert np.array_equal(back, values)
    raw = tilus.weight_unpack(packed, dtype, shape=(32, 64), tile=(16, 32), layout=layout,
                              compact=True)
    assert raw.tobytes() == compact.tobytes()
    again = tilus.weight_pack(compact, dtype, tile=(16, 32), layout=layout, compact=True,
                              shape=(32, 64))
    assert again.tobytes() == packed.tobytes()


def test_errors_carry_the_c_message():
    layout = tilus.Layout.parse("local(2,1).spatial(8,4).local(1,2)")   # 16 x 8
    with pytest.raises(tilus.LayoutError, match=r"do not divide the matrix \[30, 16\]"):
        tilus.weight_pack(np.zeros((30, 16), int), tilus.uint4, (16, 8), layout)
    with pytest.raises(tilus.LayoutError, match="4 x 3 bits, not whole bytes"):
        tilus.weight_pack(np.zeros((32, 16), int), tilus.uint3, (16, 8), layout)
    with pytest.raises(tilus.LayoutError, match=r"not the tile's \[16, 16\]"):
        tilus.weight_pack(np.zeros((32, 32), int), tilus.uint4, (16, 16), layout)
    with pytest.raises(ValueError, match="1- to 8-bit"):
        tilus.weight_pack(np.zeros((32, 16), int), tilus.float16, (16, 8), layout)
    with pytest.raises(ValueError, match="expected"):
        tilus.weight_unpack(np.zeros(7, np.uint8), tilus.uint4, (32, 16), (16, 8), layout)


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    values = torch.randint(-32, 32, (32, 16))
    packed = tilus.weight_pack(values, tilus.int6, (16, 8), FIG2)
    assert isinstance(packed, torch.Tensor) and packed.dtype == torch.uint8
    assert packed.numpy().tobytes() == tilus.weight_pack(values.numpy(), tilus.int6, (16, 8),
                                                         FIG2).tobytes()
    back = tilus.weight_unpack(packed, tilus.int6, (32, 16), (16, 8), FIG2)
    assert torch.equal(back, values.to(back.dtype))
