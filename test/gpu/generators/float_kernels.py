"""Decode and encode of each low-precision float format, one module per
format (float_eXmY; test/gpu/suite/ drives them):
    decode: packed bytes -> View as !tilus.float<e, m> -> Cast to f32
    encode: f32 -> Cast to !tilus.float<e, m> -> View as bytes
Each of the 32 threads of a block holds k elements, k * (1 + e + m) bits =
b whole bytes, so the View is a per-thread reinterpretation."""

import math

import tilus

from .low_precision import FLOAT_FORMATS


def _per_thread(fmt):
    """(k elements, b bytes) per thread: the fewest elements of whole bytes."""
    k = 8 // math.gcd(fmt.bits, 8)
    return k, k * fmt.bits // 8


class _FloatCodec(tilus.Kernel):
    def __init__(self, fmt):
        super().__init__()
        self.fmt = fmt
        self.k, self.b = _per_thread(fmt)
        self.attrs.warps = 1
        self.bytes_layout = f"spatial(32).local({self.b})"
        self.elems_layout = f"spatial(32).local({self.k})"


class Decode(_FloatCodec):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.float32),
                 nbytes: tilus.int32, n: tilus.int32):
        tb, te = 32 * self.b, 32 * self.k          # bytes, elements per block
        self.attrs.name = "decode"
        self.attrs.blocks = [tilus.cdiv(nbytes, tb)]
        NB, N = self.index(nbytes), self.index(n)
        bi = self.block_indices()
        ob, oe = bi * tb, bi * te
        gs = self.view_global(src, [NB])
        gd = self.view_global(dst, [N])
        raw = self.load_global(gs, [ob], [tb], self.bytes_layout)
        v = self.view(raw, self.fmt, [te], self.elems_layout)
        self.store_global(v.to(tilus.float32), gd, [oe])


class Encode(_FloatCodec):
    def __call__(self, src: tilus.pointer(tilus.float32), dst: tilus.pointer(tilus.uint8),
                 n: tilus.int32, nbytes: tilus.int32):
        tb, te = 32 * self.b, 32 * self.k
        self.attrs.name = "encode"
        self.attrs.blocks = [tilus.cdiv(n, te)]
        NB, N = self.index(nbytes), self.index(n)
        bi = self.block_indices()
        ob, oe = bi * tb, bi * te
        gs = self.view_global(src, [N])
        gd = self.view_global(dst, [NB])
        x = self.load_global(gs, [oe], [te], self.elems_layout)
        v = x.to(self.fmt)
        self.store_global(self.view(v, tilus.uint8, [tb], self.bytes_layout), gd, [ob])


MODULES = {f"float_e{e}m{m}": [Decode(tilus.float_(e, m)), Encode(tilus.float_(e, m))]
           for e, m in FLOAT_FORMATS}
