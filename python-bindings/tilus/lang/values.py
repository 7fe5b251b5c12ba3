"""Values and types of the kernel DSL (docs/python.md, "Writing kernels in
Python"): the handles tracing returns (Scalar, Expr for the grid, pointers,
global/shared/register tensors, Tile), their types and MLIR spellings, the
attribute text, and DSLError located at the user's Python line. The
instructions that make them are in kernel.py."""

import contextlib
import inspect
import math
import os
import struct

from ..types import DType

_HERE = os.path.dirname(os.path.abspath(__file__))
_SKIP = (_HERE, os.path.dirname(os.path.abspath(contextlib.__file__)) + os.sep + "contextlib.py")


# --- Locations and errors ----------------------------------------------------


def _caller():
    """(file, line, col) of the innermost frame outside tilus.lang."""
    f = inspect.currentframe()
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if os.path.dirname(path) != _SKIP[0] and path != _SKIP[1]:
            break
        f = f.f_back
    if f is None:
        return ("<unknown>", 0, 0)
    line, col = f.f_lineno, 1
    try:
        pos = list(f.f_code.co_positions())[f.f_lasti // 2]
        if pos[0] is not None:
            line = pos[0]
        if pos[2] is not None:
            col = pos[2] + 1
    except (AttributeError, IndexError):
        pass
    return (f.f_code.co_filename, line, col)


def _loc_text(where):
    file, line, col = where
    name = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{name}":{line}:{col})'


class DSLError(Exception):
    """Misuse of the DSL (a wrong type, shape or layout), located at the
    Python line that made it: `.file`, `.line`, `.col`, `.message`."""

    def __init__(self, message, where=None):
        where = where or _caller()
        self.file, self.line, self.col = where
        self.message = message
        super().__init__(f"{self.file}:{self.line}:{self.col}: error: {message}")


# --- Types -------------------------------------------------------------------


class PointerType:
    """The type of a pointer kernel argument: `tilus.pointer(tilus.float16)`."""

    def __init__(self, dtype):
        if not isinstance(dtype, DType):
            raise TypeError(f"pointer() takes a tilus dtype, not {dtype!r}")
        self.dtype = dtype

    @property
    def mlir(self):
        return f"!tilus.ptr<{self.dtype.mlir}>"

    def __eq__(self, other):
        return isinstance(other, PointerType) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("ptr", self.dtype))

    def __repr__(self):
        return f"pointer({self.dtype.name})"


def pointer(dtype):
    """The type of a pointer parameter, for annotations."""
    return PointerType(dtype)


def _layout_text(layout):
    if layout is None:
        return None
    if isinstance(layout, str):
        return layout
    return str(layout)  # a tilus.Layout


class TensorType:
    """A register, shared or global tensor type. `layout` is the layout's
    text (None for a row-major global tensor); -1 in a global shape is a
    size known at run time."""

    def __init__(self, kind, dtype, shape, layout=None):
        self.kind = kind
        self.dtype = dtype
        self.shape = tuple(int(d) for d in shape)
        self.layout = _layout_text(layout)

    @property
    def mlir(self):
        dims = ", ".join(str(d) for d in self.shape)
        lay = "#tilus.row_major" if self.layout is None else f'#tilus.layout<"{self.layout}">'
        return f"!tilus.{self.kind}<{self.dtype.mlir}, array<i64: {dims}>, {lay}>"

    @property
    def rank(self):
        return len(self.shape)

    def __eq__(self, other):
        return isinstance(other, TensorType) and self.mlir == other.mlir

    def __hash__(self):
        return hash(self.mlir)

    def __repr__(self):
        return self.mlir


def _type_text(t):
    if isinstance(t, str):
        return t
    return t.mlir


# --- Values ------------------------------------------------------------------


class Value:
    """An SSA value of the kernel being traced. Values are handles: `out=`
    forms and `assign` rebind them to a new SSA value, and loops and ifs
    carry every handle rebound inside them (docs/python.md)."""

    def __init__(self, kernel, name, type):
        self._k = kernel
        self.name = name
        self.type = type
        kernel._tr.values.append(self)

    def handle(self):
        """A new handle to this value: rebinding one leaves the other alone
        (an if's branch that may replace a value: `part = x.handle()`, then
        `part.assign(...)` inside it)."""
        return type(self)(self._k, self.name, self.type)

    def assign(self, other):
        """Rebinds this handle to `other`'s value (same type), emitting nothing."""
        if not isinstance(other, Value) or other.type != self.type:
            raise DSLError(f"assign: {getattr(other, 'type', other)!r} is not of type "
                           f"{_type_text(self.type)}")
        self.name = other.name
        return self

    def __repr__(self):
        return f"{type(self).__name__}({self.name}: {_type_text(self.type)})"

    def __bool__(self):
        raise DSLError("a traced value has no truth value at trace time: "
                       "use self.if_then(cond) for run-time conditions")


class Scalar(Value):
    """A scalar (index, integer or float). Arithmetic emits arith ops:
    + - * // % (index and unsigned: divui/remui; signed: floordivsi/remsi),
    / of floats; < <= > >= and .eq() .ne() give an i1 Scalar (index and
    unsigned compare unsigned)."""

    @property
    def dtype(self):
        return self.type

    def _bin(self, other, op, reverse=False):
        k = self._k
        constant = other if isinstance(other, int) and not isinstance(other, bool) else None
        other = k._scalar_operand(other, self.dtype)
        a, b = (other, self) if reverse else (self, other)
        r = k._arith_binary(op, a, b)
        if op == "add" and constant is not None:
            # For a slice's extent: start:start + 16 spans 16. Keyed by SSA
            # names, which are never reused: a handle rebound since (assign,
            # loops) no longer matches.
            r._plus = (self.name, constant, r.name)
        return r

    def __add__(self, o): return self._bin(o, "add")
    def __radd__(self, o): return self._bin(o, "add", True)
    def __sub__(self, o): return self._bin(o, "sub")
    def __rsub__(self, o): return self._bin(o, "sub", True)
    def __mul__(self, o): return self._bin(o, "mul")
    def __rmul__(self, o): return self._bin(o, "mul", True)
    def __floordiv__(self, o): return self._bin(o, "floordiv")
    def __rfloordiv__(self, o): return self._bin(o, "floordiv", True)
    def __truediv__(self, o): return self._bin(o, "div")
    def __rtruediv__(self, o): return self._bin(o, "div", True)
    def __mod__(self, o): return self._bin(o, "mod")
    def __rmod__(self, o): return self._bin(o, "mod", True)
    def __lt__(self, o): return self._bin(o, "lt")
    def __le__(self, o): return self._bin(o, "le")
    def __gt__(self, o): return self._bin(o, "gt")
    def __ge__(self, o): return self._bin(o, "ge")
    def eq(self, o): return self._bin(o, "eq")
    def ne(self, o): return self._bin(o, "ne")
    __hash__ = Value.__hash__


class Expr:
    """An affine expression of the kernel's integer parameters: what integer
    parameters give under + - * // % and cdiv. It is symbolic (for
    self.attrs.blocks, the grid map) and is emitted as i32 arith ops only
    where it is used as an operand."""

    def __init__(self, op, args):
        self.op = op
        self.args = args

    def _bin(self, other, op, reverse=False):
        if not isinstance(other, (int, Expr)) or isinstance(other, bool):
            return NotImplemented
        return Expr(op, (other, self) if reverse else (self, other))

    def __add__(self, o): return self._bin(o, "+")
    def __radd__(self, o): return self._bin(o, "+", True)
    def __sub__(self, o): return self._bin(o, "-")
    def __rsub__(self, o): return self._bin(o, "-", True)
    def __mul__(self, o): return self._bin(o, "*")
    def __rmul__(self, o): return self._bin(o, "*", True)
    def __floordiv__(self, o): return self._bin(o, "floordiv")
    def __rfloordiv__(self, o): return self._bin(o, "floordiv", True)
    def __mod__(self, o): return self._bin(o, "mod")
    def __rmod__(self, o): return self._bin(o, "mod", True)

    def affine(self):
        """The affine-map text (symbols s<k>)."""
        if self.op == "sym":
            return f"s{self.args[0]}"
        a, b = (x.affine() if isinstance(x, Expr) else str(x) for x in self.args)
        return f"({a} {self.op} {b})"


def _strip(text):
    """Drops the outermost parentheses of an affine expression."""
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, c in enumerate(text):
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and i < len(text) - 1:
                return text
        return text[1:-1]
    return text


def cdiv(a, b):
    """Ceiling division: of ints, of parameter expressions (affine ceildiv
    in the grid), or of index Scalars (arith.ceildivui)."""
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    if isinstance(a, ParamScalar):
        a = a.symbol
    if isinstance(a, Expr) or isinstance(b, Expr):
        if not isinstance(b, int):
            raise DSLError("cdiv of a parameter expression needs an int divisor")
        return Expr("ceildiv", (a, b))
    if isinstance(a, Scalar):
        return a._bin(b, "ceildiv")
    raise DSLError(f"cdiv({a!r}, {b!r}): unsupported operands")


class ParamScalar(Scalar):
    """An integer kernel parameter: arithmetic on it gives an Expr (symbolic,
    usable in self.attrs.blocks); as an operand it is the i32 value."""

    def __init__(self, kernel, name, type, index):
        super().__init__(kernel, name, type)
        self.symbol = Expr("sym", (index,))
        self.symbol.param = self

    def _bin(self, other, op, reverse=False):
        sym = {"add": "+", "sub": "-", "mul": "*", "floordiv": "floordiv", "mod": "mod"}
        if op in sym and isinstance(other, (int, Expr)) and not isinstance(other, bool):
            return self.symbol._bin(other, sym[op], reverse)
        if isinstance(other, ParamScalar) and op in sym:
            return self.symbol._bin(other.symbol, sym[op], reverse)
        return super()._bin(other, op, reverse)


class Pointer(Value):
    """A pointer parameter."""

    @property
    def dtype(self):
        return self.type.dtype


class _Tensor(Value):
    @property
    def dtype(self):
        return self.type.dtype

    @property
    def shape(self):
        return self.type.shape

    @property
    def layout(self):
        return self.type.layout

    @property
    def rank(self):
        return len(self.type.shape)


class _Memory(_Tensor):
    def __getitem__(self, index):
        """A Tile of this tensor for load_*/store_*/copy_async: one index per
        dimension, leading ints or Scalars (each drops its dimension, as in
        numpy) then slices start:stop with a static extent: both ints, stop
        omitted on a static dimension, or stop = start + constant
        (`g[om:om + 16, 0:128]`, `s[stage, 0:16, 0:64]`)."""
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) != self.rank:
            raise DSLError(f"indexing a tensor of rank {self.rank} with {len(index)} indices")
        offsets, shape = [], []
        for d, i in enumerate(index):
            if isinstance(i, slice):
                start, extent = _slice_extent(i, self.shape[d], d)
                offsets.append(start)
                shape.append(extent)
            elif isinstance(i, (int, Scalar)) and not isinstance(i, bool):
                # As in numpy, an integer drops its dimension; a tile may
                # have a lower rank than its tensor only by leading ones.
                if shape:
                    raise DSLError(f"index {d} is an integer after a slice: a tile drops "
                                   f"only leading dimensions (write i:i + 1 to keep it)")
                offsets.append(i)
            else:
                raise DSLError(f"index {d} is {i!r}: an int, a Scalar or a slice")
        if not shape:
            raise DSLError("a tile needs at least one slice")
        return Tile(self, offsets, shape)


def _slice_extent(i, size, d):
    if i.step is not None:
        raise DSLError(f"slice {d} has a step: tiles are contiguous")
    start = 0 if i.start is None else i.start
    stop = i.stop
    if isinstance(start, int) and isinstance(stop, int):
        extent = stop - start
    elif stop is None and isinstance(start, int) and isinstance(size, int) and size >= 0:
        extent = size - start
    elif (isinstance(stop, Scalar) and isinstance(start, Scalar)
          and getattr(stop, "_plus", None) is not None
          and stop._plus[0] == start.name and stop._plus[2] == stop.name):
        extent = stop._plus[1]
    else:
        raise DSLError(f"slice {d}: the extent must be static: ints, or start:start + n "
                       f"with n an int and start one value (bind it first: r = bi * 16; "
                       f"g[r:r + 16])")
    if extent <= 0:
        raise DSLError(f"slice {d} is empty (extent {extent})")
    return start, extent


class Tile:
    """A region of a global or shared tensor (tensor[...]): offsets and a
    static shape, for load_global/load_shared, store_global/store_shared and
    copy_async in place of (tensor, offsets[, shape])."""

    def __init__(self, tensor, offsets, shape):
        self.tensor, self.offsets, self.shape = tensor, offsets, shape

    def __repr__(self):
        return f"Tile({self.tensor!r}, shape {self.shape})"


class GlobalTensor(_Memory):
    """A tensor in global memory (view_global, allocate_global)."""


class SharedTensor(_Memory):
    """A tensor in shared memory (allocate_shared)."""


class RegisterTensor(_Tensor):
    """A register tensor of the whole block. + - * / (with tensors or
    scalars, broadcasting as the verifier does), unary -, and the methods
    below emit the ops."""

    def __getitem__(self, index):
        raise DSLError("register tensors are not indexed (the VM has no instruction that "
                       "slices one): index the global or shared tensor the tile is loaded "
                       "from, or use view/reshape/permute")

    def _bin(self, op, other, reverse=False):
        k = self._k
        if reverse:
            if op in ("add", "mul"):
                return getattr(k, op)(self, other)
            if op == "sub":
                return k.add(k.neg(self), other)
            raise DSLError(f"a scalar {op} a register tensor: write the tensor on the left "
                           f"(tilus.{op} takes the scalar as its rhs)")
        return getattr(k, op)(self, other)

    def __add__(self, o): return self._bin("add", o)
    def __radd__(self, o): return self._bin("add", o, True)
    def __sub__(self, o): return self._bin("sub", o)
    def __rsub__(self, o): return self._bin("sub", o, True)
    def __mul__(self, o): return self._bin("mul", o)
    def __rmul__(self, o): return self._bin("mul", o, True)
    def __truediv__(self, o): return self._bin("div", o)
    def __rtruediv__(self, o): return self._bin("div", o, True)
    def __mod__(self, o): return self._bin("mod", o)
    def __neg__(self): return self._k.neg(self)
    __hash__ = Value.__hash__

    def to(self, dtype):
        return self._k.cast(self, dtype)


class Attr:
    """Attribute text passed through as it is: Attr('array<i64: 1, 2>')."""

    def __init__(self, text):
        self.text = text


def _float_text(v, mlir_type="f64"):
    """A float literal; infinities and NaN as the bit pattern of the type."""
    v = float(v)
    if math.isfinite(v):
        return "%.17e" % v if v != 0 else ("-0.0" if math.copysign(1, v) < 0 else "0.0")
    if mlir_type == "f32":
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", v))[0]
    if mlir_type == "f16":
        return "0x%04X" % struct.unpack("<H", struct.pack("<e", v))[0]
    if mlir_type == "bf16":
        return "0x%04X" % (struct.unpack("<I", struct.pack("<f", v))[0] >> 16)
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]


def _attr_text(v):
    if isinstance(v, Attr):
        return v.text
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v} : i64"
    if isinstance(v, float):
        return f"{_float_text(v)} : f64"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "array<i64: " + ", ".join(str(int(x)) for x in v) + ">"
    raise DSLError(f"cannot write {v!r} as an MLIR attribute (use tilus.lang.Attr('text'))")


def _attrs_text(attrs):
    if not attrs:
        return ""
    items = []
    for name in sorted(attrs):
        v = attrs[name]
        items.append(name if v is None else f"{name} = {_attr_text(v)}")
    return " {" + ", ".join(items) + "}"


def _broadcast(shapes):
    """numpy's rules on one rank; None if they do not broadcast."""
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        return None
    out = []
    for d in range(rank):
        ext = {s[d] for s in shapes} - {1}
        if len(ext) > 1:
            return None
        out.append(ext.pop() if ext else 1)
    return tuple(out)


# --- The tracer --------------------------------------------------------------
