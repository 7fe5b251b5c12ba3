"""Element types and the float formats, checked against FloatFormat.h's C."""

import ctypes
import math

import numpy as np
import pytest

import tilus
from tilus import _lib

from conftest import requires_compiler


def test_names_bits_and_spellings():
    assert (tilus.float16.name, tilus.float16.bits, tilus.float16.mlir) == ("float16", 16, "f16")
    assert (tilus.bfloat16.bits, tilus.bfloat16.mlir) == (16, "bf16")
    assert (tilus.float32.mlir, tilus.float64.mlir) == ("f32", "f64")
    assert (tilus.int8.mlir, tilus.int64.bits) == ("i8", 64)
    for b in range(2, 9):
        t = getattr(tilus, f"int{b}")
        assert (t.bits, t.mlir, t.signed) == (b, f"i{b}", True)
        assert f"si{b}" in t.spellings  # the dialect reads siN as iN
    for b in range(1, 9):
        t = getattr(tilus, f"uint{b}")
        assert (t.bits, t.mlir, t.signed, t.min, t.max) == (b, f"ui{b}", False, 0, (1 << b) - 1)
    assert (tilus.int6.min, tilus.int6.max) == (-32, 31)
    f = tilus.float6_e3m2
    assert (f.bits, f.exponent_bits, f.mantissa_bits) == (6, 3, 2)
    assert f.mlir == "!tilus.float<3, 2>"
    assert f.artifact == "float6_e3m2"
    assert tilus.float4_e2m1.bits == 4 and tilus.float8_e5m2.bits == 8
    assert tilus.float8_e4m3.name == "float8_e4m3"


def test_equality_and_hash():
    assert tilus.float_(3, 2) is tilus.float6_e3m2
    assert tilus.float_(3, 2) == tilus.float6_e3m2
    assert tilus.int_(6) == tilus.int6 and tilus.uint_(4) == tilus.uint4
    assert tilus.int6 != tilus.uint6
    assert tilus.float16 != tilus.bfloat16
    assert tilus.float6_e3m2 != tilus.float6_e2m3
    assert len({tilus.int8, tilus.int_(8), tilus.uint8, tilus.float_(4, 3),
                tilus.float8_e4m3}) == 3
    assert tilus.dtype("f16") == tilus.float16
    assert tilus.dtype("si6") == tilus.int6
    assert tilus.dtype("ui3") == tilus.uint3
    assert tilus.dtype("!tilus.float<3 : i64, 2 : i64>") == tilus.float6_e3m2
    assert tilus.dtype("float4_e2m1") == tilus.float4_e2m1
    with pytest.raises(ValueError):
        tilus.dtype("f17")
    with pytest.raises(ValueError):
        tilus.float_(0, 3)
    with pytest.raises(ValueError):
        tilus.float_(5, 3)  # 9 bits


def _c(fmt):
    lib = _lib.compiler_lib()
    f = _lib.TilusFloatFormat(fmt.exponent_bits, fmt.mantissa_bits)
    return lib, f


FORMATS = [(4, 3), (5, 2), (3, 2), (2, 3), (2, 1), (3, 4), (1, 1), (6, 1), (2, 2)]


@requires_compiler
@pytest.mark.parametrize("e,m", FORMATS)
def test_decode_equals_c(e, m):
    fmt = tilus.float_(e, m)
    lib, f = _c(fmt)
    codes = np.arange(1 << fmt.bits)
    ours = fmt.decode(codes)
    theirs = np.array([lib.tilusFloatFormatDecode(f, int(c)) for c in codes])
    assert np.array_equal(ours, theirs, equal_nan=True)
    assert fmt.decode(3) == theirs[3]
    # Only the low bits are read.
    assert fmt.decode(codes + (1 << fmt.bits))[5] == theirs[5]


@requires_compiler
@pytest.mark.parametrize("e,m", FORMATS)
def test_encode_equals_c(e, m):
    fmt = tilus.float_(e, m)
    lib, f = _c(fmt)
    rng = np.random.default_rng(e * 10 + m)
    values = np.concatenate([
        fmt.values(),                                  # every value exactly
        (fmt.values()[:-1] + fmt.values()[1:]) / 2,    # halfway: ties
        rng.normal(scale=fmt.max / 2, size=300),
        [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1e30, -1e30, 1e-30],
    ])
    ours = fmt.encode(values)
    theirs = np.array([lib.tilusFloatFormatEncode(f, float(v)) for v in values], dtype=np.uint8)
    assert ours.dtype == np.uint8
    assert np.array_equal(ours, theirs)
    assert fmt.encode(float(values[7])) == theirs[7]


@requires_compiler
def test_known_values():
    f4 = tilus.float4_e2m1
    assert list(f4.values()[:8]) == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert f4.max == 6 and not f4.has_inf and not f4.has_nan
    assert tilus.float6_e3m2.max == 28 and tilus.float6_e3m2.bias == 3
    e4m3 = tilus.float8_e4m3
    assert e4m3.max == 448 and e4m3.has_nan and not e4m3.has_inf
    assert e4m3.encode(math.nan) in (0x7F, 0xFF)
    e5m2 = tilus.float8_e5m2
    assert e5m2.max == 57344 and e5m2.has_inf
    assert e5m2.encode(1e9) == 0x7C
    # -0 keeps its sign; saturation where there is no inf.
    assert tilus.float6_e3m2.encode(-0.0) == 0x20
    assert tilus.float6_e3m2.encode(1e9) == 0x1F
    # Round to nearest even: 1.125 lies between 1.0 and 1.25 of e3m2 -> 1.0.
    assert tilus.float6_e3m2.decode(tilus.float6_e3m2.encode(1.125)) == 1.0
    assert tilus.float6_e3m2.decode(tilus.float6_e3m2.encode(1.375)) == 1.5


@requires_compiler
def test_round_trip_and_shapes():
    fmt = tilus.float6_e3m2
    codes = np.arange(64, dtype=np.uint8).reshape(8, 8)
    assert np.array_equal(fmt.encode(fmt.decode(codes)), codes)
    assert fmt.encode(np.zeros((0,))).shape == (0,)
    with pytest.raises(TypeError):
        fmt.decode(np.array([0.5]))


def test_numpy_dtypes():
    assert tilus.float16.numpy_dtype() == np.float16
    assert tilus.uint8.numpy_dtype() == np.uint8
    assert tilus.int6.numpy_dtype() is None
    assert tilus.bfloat16.numpy_dtype() is None
