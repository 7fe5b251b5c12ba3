"""Layouts through the C layout algebra (include/tilus-c/Layout.h).

    >>> import tilus
    >>> l = tilus.local(2, 1).spatial(8, 4).local(1, 2)   # composition, left to right
    >>> l.shape, l.num_threads, l.local_size
    ((16, 8), 32, 4)
    >>> l(5, 3)                                           # f(t, i): a logical index
    (9, 3)
    >>> str(l)
    'local(2,1).spatial(8,4).local(1,2)'

`a.b` in the text form (and `a.spatial(..)` here) is the composition a.b of
docs/layouts.md: h(t, i) = a(t / Tb, i / mb) * Sb + b(t % Tb, i % mb), so the
factor on the right is the innermost one. `a * b` is the same composition,
`a / b` the division (the h with h.b == a).
"""

import ctypes

from . import _lib

__all__ = ["Layout", "LayoutError", "local", "spatial", "column_local", "column_spatial",
           "compose", "reduce", "swizzle", "broadcast"]


class LayoutError(ValueError):
    """An operation of the layout algebra failed; the message is the C's."""


def _shape(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    try:
        dims = [int(s) for s in shape]
    except TypeError:
        raise TypeError("a layout shape is a list of integers") from None
    if not dims:
        raise LayoutError("a layout needs at least one dimension")
    return (ctypes.c_int64 * len(dims))(*dims), len(dims)


def _take(pointer, err=None, what="layout operation"):
    if not pointer:
        message = err.message.decode(errors="replace") if err is not None else ""
        raise LayoutError(message or f"{what} failed")
    return Layout._wrap(pointer)


class Layout:
    """An immutable layout f(t, i) -> logical index, owning a C TilusLayout."""

    __slots__ = ("_ptr", "_destroy", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("build layouts with tilus.local(..), tilus.spatial(..) or Layout.parse(text)")

    @classmethod
    def _wrap(cls, pointer):
        self = object.__new__(cls)
        self._ptr = ctypes.c_void_p(pointer)
        # Keep the function: at interpreter exit the module may be gone first.
        self._destroy = _lib.compiler_lib().tilusLayoutDestroy
        return self

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._destroy(ptr)
            self._ptr = None

    @property
    def _as_parameter_(self):
        return self._ptr

    # --- construction -------------------------------------------------------

    @staticmethod
    def parse(text):
        """Parses the text form (docs/layouts.md), e.g.
        "local(2,1).spatial(8,4).local(1,2)" or "swizzle(local(8,64), dim=1)"."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        err = _lib.TilusLayoutError()
        buf = ctypes.create_string_buffer(data, len(data))
        return _take(_lib.compiler_lib().tilusLayoutParse(buf, len(data), ctypes.byref(err)),
                     err, "parsing")

    def _chain(self, primitive, shape):
        return compose(self, primitive(*shape))

    def local(self, *shape):
        """self . local(shape)"""
        return self._chain(local, shape)

    def spatial(self, *shape):
        """self . spatial(shape)"""
        return self._chain(spatial, shape)

    def column_local(self, *shape):
        return self._chain(column_local, shape)

    def column_spatial(self, *shape):
        return self._chain(column_spatial, shape)

    repeat = local
    column_repeat = column_local

    def compose(self, other):
        return compose(self, other)

    def __mul__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return compose(self, other)

    def __truediv__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        err = _lib.TilusLayoutError()
        return _take(_lib.compiler_lib().tilusLayoutDivide(self, other, ctypes.byref(err)),
                     err, "division")

    def divides(self, other):
        """Whether `other / self` exists."""
        return bool(_lib.compiler_lib().tilusLayoutIsDivisibleBy(other, self))

    def reduce(self, dims):
        return reduce(self, dims)

    def swizzle(self, dim, log_step=0):
        return swizzle(self, dim, log_step)

    def broadcast(self, rank):
        return broadcast(self, rank)

    def transpose(self):
        """The layout with its last two dimensions exchanged."""
        return transpose(self)

    # --- queries ------------------------------------------------------------

    @property
    def rank(self):
        return int(_lib.compiler_lib().tilusLayoutGetRank(self))

    @property
    def shape(self):
        lib = _lib.compiler_lib()
        return tuple(int(lib.tilusLayoutGetDim(self, d)) for d in range(self.rank))

    @property
    def num_threads(self):
        return int(_lib.compiler_lib().tilusLayoutGetNumThreads(self))

    @property
    def local_size(self):
        return int(_lib.compiler_lib().tilusLayoutGetLocalSize(self))

    @property
    def num_elements(self):
        return int(_lib.compiler_lib().tilusLayoutGetNumElements(self))

    @property
    def contiguity(self):
        """The largest v such that every aligned group of v local slots holds v
        consecutive elements of a row (tilusLayoutGetContiguity)."""
        return int(_lib.compiler_lib().tilusLayoutGetContiguity(self))

    def __call__(self, thread, local_index=0):
        """f(thread, local_index): the logical index, a tuple of rank ints."""
        t, i = int(thread), int(local_index)
        if not (0 <= t < self.num_threads and 0 <= i < self.local_size):
            raise IndexError(f"({t}, {i}) is outside the layout's {self.num_threads} threads "
                             f"x {self.local_size} local slots")
        out = (ctypes.c_int64 * self.rank)()
        _lib.compiler_lib().tilusLayoutEvaluate(self, t, i, out)
        return tuple(out)

    evaluate = __call__

    def locate(self, index):
        """The lowest (thread, local slot) holding logical `index`, or None when
        the index is outside the shape."""
        index = tuple(int(x) for x in index)
        if len(index) != self.rank:
            raise LayoutError(f"index {index} has rank {len(index)}, the layout {self.rank}")
        t, i = ctypes.c_int64(), ctypes.c_int64()
        found = _lib.compiler_lib().tilusLayoutLocate(
            self, (ctypes.c_int64 * len(index))(*index), ctypes.byref(t), ctypes.byref(i))
        return (t.value, i.value) if found else None

    def table(self):
        """numpy int64 array [num_threads, local_size, rank] of f(t, i)."""
        import numpy as np
        T, m, r = self.num_threads, self.local_size, self.rank
        out = np.empty((T, m, r), dtype=np.int64)
        evaluate = _lib.compiler_lib().tilusLayoutEvaluate
        buf = (ctypes.c_int64 * r)()
        for t in range(T):
            for i in range(m):
                evaluate(self, t, i, buf)
                out[t, i] = buf[:]
        return out

    def __eq__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return bool(_lib.compiler_lib().tilusLayoutEqual(self, other))

    def __hash__(self):
        # Equal layouts have the same shape, T and m (the canonical text may
        # still differ for swizzles, so it is not part of the hash).
        return hash((self.shape, self.num_threads, self.local_size))

    def __str__(self):
        lib = _lib.compiler_lib()
        p = lib.tilusLayoutPrint(self)
        if not p:
            raise MemoryError("tilusLayoutPrint failed")
        try:
            return ctypes.string_at(p).decode()
        finally:
            _lib.libc_free(p)

    def __repr__(self):
        return f"tilus.Layout.parse({str(self)!r})"

    def __reduce__(self):
        return (Layout.parse, (str(self),))


def _primitive(name):
    def make(*shape):
        dims, rank = _shape(shape)
        err = _lib.TilusLayoutError()
        fn = getattr(_lib.compiler_lib(), name)
        return _take(fn(rank, dims, ctypes.byref(err)), err, name)
    return make


local = _primitive("tilusLayoutCreateLocal")
local.__doc__ = "local(n1, .., nr): one thread, row-major over its local slots."
spatial = _primitive("tilusLayoutCreateSpatial")
spatial.__doc__ = "spatial(n1, .., nr): one slot per thread, row-major over threads."
column_local = _primitive("tilusLayoutCreateColumnLocal")
column_local.__doc__ = "column_local(..): local, first dimension fastest."
column_spatial = _primitive("tilusLayoutCreateColumnSpatial")
column_spatial.__doc__ = "column_spatial(..): spatial, first dimension fastest."
local.__name__, spatial.__name__ = "local", "spatial"
column_local.__name__, column_spatial.__name__ = "column_local", "column_spatial"


def compose(*layouts):
    """layouts[0] . layouts[1] . ... (the last is the innermost factor)."""
    if not layouts:
        raise LayoutError("compose needs at least one layout")
    lib = _lib.compiler_lib()
    result = layouts[0]
    for other in layouts[1:]:
        result = _take(lib.tilusLayoutCompose(result, other), None, "composition")
    return result


def reduce(layout, dims):
    """Drops output dimensions `dims` (spatial digits along them become
    replication)."""
    dims = [int(d) for d in (dims if isinstance(dims, (list, tuple)) else [dims])]
    err = _lib.TilusLayoutError()
    arr = (ctypes.c_int64 * max(len(dims), 1))(*dims)
    return _take(_lib.compiler_lib().tilusLayoutReduce(layout, len(dims), arr, ctypes.byref(err)),
                 err, "reduce")


def swizzle(layout, dim, log_step=0):
    """x[dim] ^= (r >> log_step) mod n_dim (a layout with one thread)."""
    err = _lib.TilusLayoutError()
    return _take(_lib.compiler_lib().tilusLayoutSwizzle(layout, int(dim), int(log_step),
                                                        ctypes.byref(err)), err, "swizzle")


def transpose(layout):
    """`layout` with its last two dimensions exchanged (rank >= 2)."""
    err = _lib.TilusLayoutError()
    return _take(_lib.compiler_lib().tilusLayoutTranspose(layout, ctypes.byref(err)),
                 err, "transpose")


# wgmma's swizzle modes by row width in bytes (0: none), as the descriptor
# encodes them (tilus-c/Layout.h, TilusMmaSwizzle).
_MMA_SWIZZLE = {128: 1, 64: 2, 32: 3, 0: 0}


def mma_shared(rows, k, element_bits, *, k_dim=1, swizzle=128, stages=None):
    """The shared layout wgmma reads for a K-major tile of `rows` (M or N) x
    `k` elements of `element_bits` (8 or 16) bits: shape [rows, k] with
    k_dim=1, [k, rows] with k_dim=0; rows of `swizzle` bytes (128, 64, 32)
    swizzled in 16-byte chunks, or core matrices without one (0). With
    `stages`, a leading dimension of that many tiles, outermost."""
    if swizzle not in _MMA_SWIZZLE:
        raise LayoutError(f"wgmma swizzles rows of 128, 64 or 32 bytes (or 0: none), "
                          f"not {swizzle}")
    err = _lib.TilusLayoutError()
    tile = _take(_lib.compiler_lib().tilusLayoutCreateMmaShared(
        int(rows), int(k), int(k_dim), int(element_bits), _MMA_SWIZZLE[swizzle],
        ctypes.byref(err)), err, "wgmma layout")
    if stages is None:
        return tile
    return local(int(stages), 1, 1) * tile


def broadcast(layout, rank):
    """Prepends dimensions of size 1 up to `rank`."""
    err = _lib.TilusLayoutError()
    return _take(_lib.compiler_lib().tilusLayoutBroadcast(layout, int(rank), ctypes.byref(err)),
                 err, "broadcast")
