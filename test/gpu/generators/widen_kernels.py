"""The widening casts of every low-precision type (widen_<type>): kernels
to_f16, to_bf16 and to_f32 (and to_i8 for the integer types), packed bytes
-> View as the type -> Cast to the wide type -> store. 32 threads of 32 elements each (4 * bits bytes, so
elements of 3, 5, 6 and 7 bits straddle the 32-bit words the fast casts cut
them from). test/gpu/suite/ feeds every encoding."""

import tilus

from .low_precision import TYPES


class _Widen(tilus.Kernel):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.attrs.warps = 1

    def widen(self, src, dst, n):
        bits = self.dtype.bits
        self.attrs.blocks = [tilus.cdiv(n, 1024)]
        N = self.index(n)
        bi = self.block_indices()
        ob, oe = bi * (128 * bits), bi * 1024
        gs = self.view_global(src, [N * bits // 8])
        gd = self.view_global(dst, [N])
        raw = self.load_global(gs, [ob], [128 * bits], f"spatial(32).local({4 * bits})")
        v = self.view(raw, self.dtype, [1024], "spatial(32).local(32)")
        self.store_global(v.to(dst.dtype), gd, [oe])


# One class per wide type: the destination's pointer type is an annotation.
class ToF16(_Widen):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.float16),
                 n: tilus.int32):
        self.widen(src, dst, n)


class ToBf16(_Widen):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.bfloat16),
                 n: tilus.int32):
        self.widen(src, dst, n)


class ToF32(_Widen):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.float32),
                 n: tilus.int32):
        self.widen(src, dst, n)


class ToI8(_Widen):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.int8),
                 n: tilus.int32):
        self.widen(src, dst, n)


MODULES = {f"widen_{name}": [ToF16(t), ToBf16(t), ToF32(t)]
           + ([] if isinstance(t, tilus.FloatDType) else [ToI8(t)])
           for name, t in TYPES.items()}
