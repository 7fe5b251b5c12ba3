"""Element types: tilus.float16, tilus.int6, tilus.float6_e3m2, ...

A `DType` has a `.name` (the Python name, "float6_e3m2"), `.bits`, `.mlir`
(how the dialect spells it in types, "f16", "i6", "ui4",
"!tilus.float<3, 2>") and `.artifact` (how an artifact's `param ptr` line
spells it, "f16", "float6_e3m2"). Two dtypes are equal when they are the same
type; they hash accordingly.

Signed integers are spelled `iN` (the dialect reads `iN` and `siN` alike, as
two's-complement signed: docs/types.md); `.spellings` lists every spelling of
a type, which kernel parameter checks accept.

`FloatDType` (the `!tilus.float<e, m>` formats) encodes and decodes through
include/tilus-c/FloatFormat.h (libTilus.so).
"""

__all__ = ["DType", "IntDType", "FloatDType", "float_", "int_", "uint_", "dtype"]


class DType:
    """An element type."""

    __slots__ = ("name", "bits", "mlir", "artifact", "spellings", "kind")

    def __init__(self, name, bits, mlir, kind, spellings=(), artifact=None):
        self.name = name
        self.bits = bits
        self.mlir = mlir
        self.kind = kind  # "int", "uint", "float" (IEEE and bf16), "tilus_float"
        self.artifact = artifact or mlir
        self.spellings = frozenset((mlir, self.artifact) + tuple(spellings))

    def __eq__(self, other):
        return isinstance(other, DType) and (self.kind, self.bits, self.mlir) == (
            other.kind, other.bits, other.mlir)

    def __hash__(self):
        return hash((self.kind, self.bits, self.mlir))

    def __repr__(self):
        return f"tilus.{self.name}"

    def __str__(self):
        return self.name

    @property
    def is_subbyte(self):
        return self.bits < 8

    @property
    def nbytes_per_element(self):
        """Bytes per element for whole-byte types; sub-byte types raise."""
        if self.bits % 8:
            raise ValueError(f"{self.name} has {self.bits} bits: not a whole number of bytes")
        return self.bits // 8

    def numpy_dtype(self):
        """The numpy dtype holding one element, or None: sub-byte types are
        stored packed in uint8 (docs/types.md, Storage), bfloat16 in uint16."""
        import numpy as np
        table = {"f16": np.float16, "f32": np.float32, "f64": np.float64,
                 "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
                 "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}
        t = table.get(self.mlir)
        return np.dtype(t) if t is not None else None


class IntDType(DType):
    __slots__ = ()

    @property
    def signed(self):
        return self.kind == "int"

    @property
    def min(self):
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self):
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1


class FloatDType(DType):
    """A `!tilus.float<e, m>` format: sign, e exponent bits, m mantissa bits."""

    __slots__ = ("exponent_bits", "mantissa_bits", "_table")

    def __init__(self, exponent_bits, mantissa_bits):
        bits = 1 + exponent_bits + mantissa_bits
        name = f"float{bits}_e{exponent_bits}m{mantissa_bits}"
        super().__init__(name, bits, f"!tilus.float<{exponent_bits}, {mantissa_bits}>",
                         "tilus_float", artifact=name)
        self.exponent_bits = exponent_bits
        self.mantissa_bits = mantissa_bits
        self._table = None

    def _format(self):
        from . import _lib
        return _lib.compiler_lib(), _lib.TilusFloatFormat(self.exponent_bits, self.mantissa_bits)

    @property
    def bias(self):
        lib, f = self._format()
        return lib.tilusFloatFormatGetBias(f)

    @property
    def has_inf(self):
        lib, f = self._format()
        return bool(lib.tilusFloatFormatHasInfinity(f))

    @property
    def has_nan(self):
        lib, f = self._format()
        return bool(lib.tilusFloatFormatHasNaN(f))

    def values(self):
        """float64 array of the value of every encoding 0 .. 2^bits - 1."""
        import numpy as np
        if self._table is None:
            lib, f = self._format()
            table = np.array([lib.tilusFloatFormatDecode(f, b) for b in range(1 << self.bits)],
                             dtype=np.float64)
            table.setflags(write=False)
            self._table = table
        return self._table

    @property
    def max(self):
        """The largest finite value."""
        import numpy as np
        v = self.values()
        return float(np.max(v[np.isfinite(v)]))

    def decode(self, bits):
        """The values (float64) of encodings `bits` (an integer or an integer
        array; only the low `self.bits` bits are read)."""
        import numpy as np
        b = np.asarray(bits)
        if b.dtype.kind not in "iub":
            raise TypeError(f"{self.name}.decode expects integers, not {b.dtype}")
        result = self.values()[b.astype(np.int64) & ((1 << self.bits) - 1)]
        return float(result) if np.ndim(bits) == 0 else result

    def encode(self, values):
        """The encodings (uint8) of `values` (a number or array), rounded to
        nearest even as FloatFormat.h specifies."""
        import numpy as np
        lib, f = self._format()
        v = np.asarray(values, dtype=np.float64)
        flat = v.reshape(-1)
        out = np.empty(flat.shape, dtype=np.uint8)
        encode = lib.tilusFloatFormatEncode
        # One C call per distinct bit pattern (weights repeat a lot; bit
        # patterns keep -0 and NaNs apart from +0 and each other).
        if flat.size:
            uniq, inverse = np.unique(np.ascontiguousarray(flat).view(np.uint64),
                                      return_inverse=True)
            codes = np.array([encode(f, float(x)) for x in uniq.view(np.float64)],
                             dtype=np.uint8)
            out[:] = codes[inverse.reshape(-1)]
        return int(out[0]) if v.ndim == 0 else out.reshape(v.shape)


def _int(bits, signed=True):
    if signed:
        return IntDType(f"int{bits}", bits, f"i{bits}", "int", spellings=(f"si{bits}",))
    return IntDType(f"uint{bits}", bits, f"ui{bits}", "uint")


float16 = DType("float16", 16, "f16", "float")
bfloat16 = DType("bfloat16", 16, "bf16", "float")
float32 = DType("float32", 32, "f32", "float")
float64 = DType("float64", 64, "f64", "float")
boolean = IntDType("boolean", 1, "i1", "int")

_ints = {bits: _int(bits) for bits in (2, 3, 4, 5, 6, 7, 8, 16, 32, 64)}
_uints = {bits: _int(bits, False) for bits in (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64)}
int2, int3, int4, int5, int6, int7, int8 = (_ints[b] for b in range(2, 9))
int16, int32, int64 = _ints[16], _ints[32], _ints[64]
uint1, uint2, uint3, uint4, uint5, uint6, uint7, uint8 = (_uints[b] for b in range(1, 9))
uint16, uint32, uint64 = _uints[16], _uints[32], _uints[64]
index = IntDType("index", 64, "index", "int")

_floats = {}


def float_(exponent_bits, mantissa_bits):
    """The `!tilus.float<e, m>` format (3 to 8 bits in all, e >= 1)."""
    e, m = int(exponent_bits), int(mantissa_bits)
    if e < 1 or m < 0 or not 3 <= 1 + e + m <= 8:
        raise ValueError(f"float_({e}, {m}): Tilus floats have 3 to 8 bits, e >= 1 and m >= 0")
    key = (e, m)
    if key not in _floats:
        _floats[key] = FloatDType(e, m)
    return _floats[key]


def int_(bits):
    """The signed integer type of `bits` bits (2..8, 16, 32, 64)."""
    if bits not in _ints:
        raise ValueError(f"no signed integer type of {bits} bits (2..8, 16, 32, 64)")
    return _ints[bits]


def uint_(bits):
    """The unsigned integer type of `bits` bits (1..8, 16, 32, 64)."""
    if bits not in _uints:
        raise ValueError(f"no unsigned integer type of {bits} bits (1..8, 16, 32, 64)")
    return _uints[bits]


# Every float format by name: float8_e4m3, float6_e3m2, float4_e2m1, ...
_named_floats = {}
for _bits in range(3, 9):
    for _e in range(1, _bits):
        _f = float_(_e, _bits - 1 - _e)
        _named_floats[_f.name] = _f
globals().update(_named_floats)

_all_types = ([float16, bfloat16, float32, float64, boolean, index] + list(_ints.values())
              + list(_uints.values()) + list(_named_floats.values()))
_by_spelling = {}
for _t in _all_types:
    for _s in _t.spellings | {_t.name}:
        _by_spelling.setdefault(_s, _t)
_by_spelling["i1"] = boolean


def dtype(spelling):
    """The DType of a name or spelling: "float16", "f16", "ui4", "si6",
    "float6_e3m2", "!tilus.float<3, 2>" or a DType (returned as is)."""
    if isinstance(spelling, DType):
        return spelling
    s = str(spelling).strip()
    if s.startswith("!tilus.float<") and s.endswith(">"):
        parts = [p.split(":")[0].strip() for p in s[len("!tilus.float<"):-1].split(",")]
        if len(parts) == 2:
            return float_(int(parts[0]), int(parts[1]))
    if s in _by_spelling:
        return _by_spelling[s]
    raise ValueError(f"unknown Tilus element type '{spelling}'")


NAMES = sorted({t.name for t in _all_types})
del _bits, _e, _f, _t, _s
