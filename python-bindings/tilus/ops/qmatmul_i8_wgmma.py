"""The quantized matmul with int8 activations on wgmma (W-int A8, sm_90a;
docs/quantized-matmul.md, "int8 activations"): C[m, n] = a_scales[m] * sum over
groups g of scales[g, n] * sum over k in g of A[m, k] * w[k, n], A int8 [M, K],
a_scales f32 [M], w = code - offset (or code - zero) of integer weights whose
values are int8, scales f16 per group of a multiple of 128 rows, C f16.

It is the FP8 variant (qmatmul_fp8: warp-specialized, A's rows by TMA in parts
of at most 128, the weights decoded in registers as wgmma's register operand,
m64nNk32) with s8 operands and s32 products: the weights widened to s8 as the
mma.sync template for int8 activations does (QuantizedMatmulI8._weights: the
same weight format, one copy for every M), each k tile's product from zero
converted to f32 and added to the total times its group's scales. An s8 x s8
product of a k tile is exact in s32 (at most 128 x 128 x 128 in magnitude).
"""

import tilus

from .qmatmul import QuantizedMatmulI8, int8_fits, zeros_fit
from .qmatmul_fp8 import QuantizedMatmulWgmmaFP8


class QuantizedMatmulWgmmaI8(QuantizedMatmulWgmmaFP8):
    """int8 activations with per-token f32 scales, integer weights whose
    values are int8, group-scaled, warp-specialized wgmma."""

    product_dtype = tilus.int32
    unit = 1.0

    @staticmethod
    def _check_weights(wtype, offset, group_size, zeros):
        """ValueError unless int8 activations take these weights (the mma.sync
        template's rules: QuantizedMatmulI8)."""
        if not int8_fits(wtype, offset):
            raise ValueError(f"no int8-activation format for {wtype} with offset {offset}: "
                             f"its values are not int8")
        if zeros and not zeros_fit(wtype, tilus.int8, zeros):
            raise ValueError(f"int8 activations take zero points as uint8 codes "
                             f"(zeros=tilus.uint8) of unsigned weights of at most 7 bits, "
                             f"not {zeros} zeros of {wtype}")

    @property
    def a_dtype(self):
        return tilus.int8

    def _weights(self, raw, zeros=None):
        return QuantizedMatmulI8._weights(self, raw, zeros)


def i8_program(wtype, group_size, offset, cfg, bias=False, zeros=False):
    """The int8-activation wgmma template of configuration (warpgroups,
    block_m, stages, lag), with a bias and zero points (tilus.uint8 codes)
    where asked."""
    g, bm, st, lag = cfg
    return QuantizedMatmulWgmmaI8(wtype, group_size=group_size, offset=offset, warpgroups=g,
                                  block_m=bm, stages=st, lag=lag, zeros=zeros, bias=bias)
