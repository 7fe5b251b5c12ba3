"""The weight pre-transform ("Change Layout", paper section 6.2) through
include/tilus-c/WeightPack.h.

    packed = tilus.weight_pack(w, tilus.int6, tile=(16, 8), layout=reg_layout)
    w2 = tilus.weight_unpack(packed, tilus.int6, shape=w.shape, tile=(16, 8),
                             layout=reg_layout)

`w` is a [K, N] array of element values (integers, or float encodings for
`!tilus.float` types, e.g. from `tilus.float6_e3m2.encode`), one per array
element; they are compacted to b-bit storage (element j at bits [j*b,
(j+1)*b), least significant first) and packed. Pass `compact=True` when the
array already holds the compact bytes (uint8, K*N*b/8 of them). The result
is uint8 [K/BK, N/BN, T*n] (n = m*b/8 bytes per thread).
"""

import ctypes

from . import _lib
from .layout import Layout, LayoutError
from .types import dtype as _dtype

__all__ = ["weight_pack", "weight_unpack", "weight_packed_layout", "compact_bits",
           "expand_bits"]


def _packing(rows, cols, tile, dt, layout):
    if not isinstance(layout, Layout):
        layout = Layout.parse(str(layout))
    tr, tc = (int(t) for t in tile)
    p = _lib.TilusWeightPacking(int(rows), int(cols), tr, tc, dt.bits, layout._ptr)
    return p, layout


def compact_bits(values, bits):
    """Packs integers (their low `bits` bits) into a compact uint8 stream,
    element j at bits [j*bits, (j+1)*bits), least significant bit first."""
    import numpy as np
    v = np.asarray(values).reshape(-1).astype(np.int64) & ((1 << bits) - 1)
    bitplanes = ((v[:, None] >> np.arange(bits)) & 1).astype(np.uint8).reshape(-1)
    pad = (-bitplanes.size) % 8
    if pad:
        bitplanes = np.concatenate([bitplanes, np.zeros(pad, np.uint8)])
    return np.packbits(bitplanes, bitorder="little")


def expand_bits(data, bits, count, signed=False):
    """The inverse of compact_bits: `count` elements of `bits` bits (int64)."""
    import numpy as np
    stream = np.unpackbits(np.asarray(data, dtype=np.uint8).reshape(-1), bitorder="little")
    planes = stream[: count * bits].reshape(count, bits).astype(np.int64)
    v = (planes << np.arange(bits)).sum(axis=1)
    if signed:
        v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
    return v


def _to_numpy(array):
    """(numpy array, _Torch or None) of a numpy array or a torch tensor (on
    any device)."""
    import numpy as np
    t = type(array)
    if t.__module__.startswith("torch"):
        import torch
        # A CUDA tensor is packed on the host (a copy each way); the result
        # goes back to its device.
        return array.detach().cpu().contiguous().numpy(), _Torch(torch, array.device)
    return np.asarray(array), None


class _Torch:
    """Makes the result a torch tensor on the input's device."""

    def __init__(self, torch, device):
        self.torch, self.device = torch, device

    def from_numpy(self, out):
        return self.torch.from_numpy(out).to(self.device)


def weight_packed_layout(dtype, tile, layout):
    """The uint8 layout local(n2).spatial(T).local(n1) of one packed tile."""
    dt = _dtype(dtype)
    p, keep = _packing(tile[0], tile[1], tile, dt, layout)
    err = _lib.TilusLayoutError()
    ptr = _lib.compiler_lib().tilusWeightPackedLayout(ctypes.byref(p), ctypes.byref(err))
    del keep
    if not ptr:
        raise LayoutError(err.message.decode(errors="replace"))
    return Layout._wrap(ptr)


def weight_pack(array, dtype, tile, layout, *, compact=False, shape=None):
    """Packs a [K, N] weight matrix of `dtype` elements (1 to 8 bits) for
    tiles `tile` = (BK, BN) loaded with register layout `layout` (a Layout or
    its text). Returns uint8 [K/BK, N/BN, T*n] (a CPU torch tensor when given
    one). With `compact=True`, `array` is the compact byte stream and `shape`
    gives (K, N)."""
    import numpy as np
    dt = _dtype(dtype)
    if not 1 <= dt.bits <= 8:
        raise ValueError(f"weight_pack packs 1- to 8-bit elements, not {dt.name}")
    a, torch = _to_numpy(array)
    if compact:
        if shape is None:
            raise ValueError("weight_pack(compact=True) needs shape=(K, N)")
        rows, cols = shape
        src = np.ascontiguousarray(a, dtype=np.uint8).reshape(-1)
    else:
        if a.ndim != 2:
            raise ValueError(f"weight_pack expects a [K, N] matrix, not shape {a.shape}")
        rows, cols = a.shape
        src = compact_bits(a, dt.bits)
    p, keep = _packing(rows, cols, tile, dt, layout)
    lib = _lib.compiler_lib()
    err = _lib.TilusLayoutError()
    size = lib.tilusWeightPackedSize(ctypes.byref(p), ctypes.byref(err))
    if size == 0:
        raise LayoutError(err.message.decode(errors="replace"))
    if src.size < size:
        raise ValueError(f"weight_pack: {src.size} bytes of compact weights, {size} needed")
    dst = np.empty(size, dtype=np.uint8)
    if not lib.tilusWeightPack(ctypes.byref(p), src.ctypes.data, dst.ctypes.data,
                               ctypes.byref(err)):
        raise LayoutError(err.message.decode(errors="replace"))
    del keep
    tr, tc = tile
    out = dst.reshape(rows // tr, cols // tc, -1)
    return torch.from_numpy(out) if torch is not None else out


def weight_unpack(packed, dtype, shape, tile, layout, *, compact=False):
    """The inverse of weight_pack: the [K, N] matrix (int64 values; signed
    for signed integer types, encodings for float types), or with
    `compact=True` the compact uint8 byte stream."""
    import numpy as np
    dt = _dtype(dtype)
    a, torch = _to_numpy(packed)
    rows, cols = shape
    p, keep = _packing(rows, cols, tile, dt, layout)
    lib = _lib.compiler_lib()
    err = _lib.TilusLayoutError()
    size = lib.tilusWeightPackedSize(ctypes.byref(p), ctypes.byref(err))
    if size == 0:
        raise LayoutError(err.message.decode(errors="replace"))
    src = np.ascontiguousarray(a, dtype=np.uint8).reshape(-1)
    if src.size != size:
        raise ValueError(f"weight_unpack: {src.size} packed bytes, {size} expected")
    dst = np.empty(size, dtype=np.uint8)
    if not lib.tilusWeightUnpack(ctypes.byref(p), src.ctypes.data, dst.ctypes.data,
                                 ctypes.byref(err)):
        raise LayoutError(err.message.decode(errors="replace"))
    del keep
    if compact:
        out = dst
    else:
        out = expand_bits(dst, dt.bits, rows * cols, signed=getattr(dt, "signed", False)
                          ).reshape(rows, cols)
    return torch.from_numpy(out) if torch is not None else out
