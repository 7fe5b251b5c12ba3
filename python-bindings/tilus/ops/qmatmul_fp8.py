"""The quantized matmul with FP8 activations on wgmma (W4A8; sm_90a; docs/hopper.md,
docs/quantized-matmul.md): C[m, n] = a_scales[m] * sum over groups g of
scales[g, n] * sum over k in g of A[m, k] * w[k, n], A float8_e4m3 (OCP E4M3FN)
[M, K], a_scales f32 [M], w = code - offset of integer weights whose values lie
in [-15, 15] (qmatmul.fp8_fits: integers of at most 4 bits, unsigned ones with
offset 0 or the symmetric 2^(b-1)), or w = code - zero[g, n] of unsigned ones
with uint8 zero codes of at most 16, scales f16 per group of a multiple of 128
rows, C f16.

It is the warp-specialized wgmma variant (qmatmul_wgmma._WgmmaWS) with E4M3
operands: the product is computed transposed, the weights decoded in registers
as wgmma's register operand (m64nNk32), A's rows its shared one (TMA, 128-byte
swizzle), in parts of at most 128 rows. Its weight format is the FP8 one
(pack(..., activation=tilus.float8_e4m3)): the int8-activation format, whose
lanes hold the 8-bit mma fragments, of codes that are the values themselves,
except that a negative value v of a signed b-bit type is stored as 2^(b-1) |
(-1 - v) (qmatmul._fp8_recode).

The weights go to E4M3 without conversion instructions: an integer v with
|v| <= 15 is, as the E4M3 byte sign(v) | |v|, the number v * 2^-9 exactly (a
subnormal m * 2^-9 below 8, and 8 + m = (1 + m/8) * 2^-6 above). So the codes
are spread into bytes (the cast to 8 bits, FastCast.c), a negative one becomes
sign and magnitude with a shift, a mask and a multiply-add per four weights
(_weights), and the factor 2^9 joins the scales. Each k tile's product starts from zero (wgmma's
scale-d = 0) and is added to the total times its group's scales: wgmma cannot
scale its operands by a tensor, and folding the scales into the E4M3 weights
would round them to 4 significant bits. That f32 multiply-add per accumulator
element and k tile is the price of group scales with FP8 products, and of
their accuracy with any scales: wgmma's FP8 accumulator is not an f32 sum, and
accumulating K = 1024 in it gave 1.1-1.4e-3 relative error against 0.4-0.5e-3
with the per-tile f32 sums (bench/README.md, "FP8 activations").
"""

import tilus

from .qmatmul import (BYTE_SIGNS, SMS, TILE_K, QuantizedMatmulI8, fp8_fits, own_height,
                      wave_blocks, zeros_fit)
from .qmatmul_wgmma import _WgmmaWS

FP8 = tilus.float8_e4m3
# An E4M3 byte holding a magnitude m <= 16 in its low bits reads m * 2^-9
# (0x10 is 2^-5).
_BYTE_UNIT = 2.0 ** -9


class QuantizedMatmulWgmmaFP8(_WgmmaWS, QuantizedMatmulI8):
    """FP8 (E4M3) activations with per-token f32 scales, integer weights of at
    most 4 bits, group-scaled, warp-specialized wgmma (see the module). The
    int8-activation variant (qmatmul_i8_wgmma) changes the operands' type,
    the products' (product_dtype) and the scales' unit."""

    product_dtype = tilus.float32       # a k tile's product, from zero
    unit = 1.0 / _BYTE_UNIT             # the weights' bytes read value * 2^-9

    def __init__(self, wtype, group_size=128, offset=0, warpgroups=2, block_m=128,
                 stages=4, lag=1, set_registers=True, group_m=4, parts=None, zeros=False,
                 bias=False, staged_epilogue=None):
        self._check_weights(wtype, offset, group_size, zeros)
        super().__init__(wtype, group_size=group_size, offset=offset, warpgroups=warpgroups,
                         block_m=block_m, stages=stages, lag=lag,
                         set_registers=set_registers, group_m=group_m, zeros=zeros,
                         bias=bias, staged_epilogue=staged_epilogue)
        # block_m in parts of at most 128 columns, one product and one
        # total each: a part's product (pw / 2 registers) beside every
        # part's total fits the consumers' registers up to block_m = 256.
        self.parts = parts or -(-self.bm // 128)
        if self.bm % (8 * self.parts):
            raise ValueError(f"block_m {self.bm} does not split into {self.parts} parts "
                             f"of a multiple of 8 columns")

    @staticmethod
    def _check_weights(wtype, offset, group_size, zeros):
        """ValueError unless FP8 activations take these weights."""
        if not fp8_fits(wtype, offset):
            raise ValueError(f"FP8 activations take weights of at most 4 bits: int2-int4 "
                             f"with offset 0, uint1-uint4 with offset 0 and uint2-uint4 "
                             f"with the symmetric offset 2^(b-1); not {wtype} with offset "
                             f"{offset}")
        if group_size % TILE_K:
            raise ValueError(f"FP8 activations need groups of a multiple of {TILE_K} "
                             f"rows, not {group_size}")
        if zeros and not zeros_fit(wtype, FP8, zeros):
            raise ValueError(f"FP8 activations take zero points as uint8 codes "
                             f"(zeros=tilus.uint8) of unsigned weights, not {zeros} zeros of "
                             f"{wtype}")

    @property
    def shared_bytes(self):
        """The stages', and a part of C staged for tma_store."""
        pw = self.bm // -(-self.bm // 128)
        return super().shared_bytes + (pw * self.bn * 2 if self.staged else 0)

    def _staging_fits(self):
        """C's parts have a buffer of their own (A's elements are bytes)."""
        return True

    def _a_stages(self):
        """A's stage buffers in parts, [stages, parts, pw, 128], each part a
        tile wgmma reads (the same bytes as one [block_m, 128] tile: rows of
        128 bytes, the swizzle repeating every 8)."""
        S, P = self.stages, self.parts
        pw = self.bm // P
        return self.allocate_shared(self.a_dtype, [S, P, pw, TILE_K],
                                    tilus.local(S, P, 1, 1) * tilus.mma_shared(pw, TILE_K, 8))

    def _load_a(self, sX, gA, full, stage, om, t):
        pw = self.bm // self.parts
        for h in range(self.parts):
            self.tma_load(sX, gA, full, [stage], [stage, h, 0, 0], [om + h * pw, t * TILE_K],
                          [pw, TILE_K])

    @property
    def a_dtype(self):
        return FP8

    def _weights(self, raw, zeros=None):
        """The k tile's weights [128, bn] as E4M3 bytes worth value * 2^-9
        (reg_w): the codes' bits spread into bytes (the cast to 8 bits), and
        where the stored values are signed, the code c >= h = 2^(b-1) of a
        negative value v (_fp8_recode: h | (-1 - v)) plus 0x81 - h, which is
        0x80 | (c - h + 1) = 0x80 | -v: a shift, a mask and a multiply-add
        per four weights (no byte carries into the next). With zero points
        (`zeros`: _load_zeros's words of 128 - z), the sign and magnitude of
        c - z: ten integer operations per four weights."""
        b = self.wtype.bits
        codes = self.view(raw, tilus.uint_(b), [TILE_K, self.bn], self.reg_w).to(tilus.int8)
        if zeros is not None:
            # Codes of b <= 4 bits, zeros up to 16: each byte c + 128 - z
            # lies in 112..143 (no carry), its bit 7 set where c >= z. ^ 0x80
            # gives v = c - z in two's complement; where v < 0 the byte
            # becomes ~v + 1 = |v| <= 16 (no carry either), and bit 7 its
            # sign.
            biased = self._words(codes) + zeros
            negative = self.xor(self.and_(self.shr(biased, 7), 0x01010101), 0x01010101)
            v = self.xor(biased, BYTE_SIGNS)
            magnitude = self.xor(v, negative * 0xFF) + negative
            sign_magnitude = self.or_(magnitude, self.shl(negative, 7))
            return self.view(sign_magnitude, FP8, [TILE_K, self.bn], self.reg_w)
        if self.wtype.signed:
            words = self._words(codes)
            negative = self.and_(self.shr(words, b - 1), 0x01010101)
            codes = self.view(words + negative * (0x81 - (1 << (b - 1))), tilus.int8,
                              [TILE_K, self.bn], self.reg_w)
        return self.view(codes, FP8, [TILE_K, self.bn], self.reg_w)

    def _consume(self, o, full, empty, om, on, gT=None):
        """The consumers: per k tile, the weights decoded once, then for each
        part of block_m columns its product from zero, added to the part's
        total times the tile's group scales (and 2^9); at the end the
        tokens' scales, then the bias."""
        S, W, bn, tb, P = self.stages, self.warps, self.bn, self.tile_bytes, self.parts
        f32, pw = tilus.float32, self.bm // self.parts
        self.attrs.fp_contract = True           # acc + part * scale: one FFMA
        reg_p = self._accumulator(pw)
        if self.registers:
            self.set_max_registers(self.registers[1], "inc")
        accs = [self.allocate_register(f32, [bn, pw], reg_p, init=0.0) for _ in range(P)]
        if self.staged:
            # A part of C in the output type for tma_store (A's stages hold
            # one-byte elements: not reused as in _store_c_staged).
            o.sC = self.allocate_shared(self.atype, [pw, bn], tilus.mma_shared(pw, bn, 16))
        integer = self.product_dtype == tilus.int32
        zero = self.allocate_register(self.product_dtype, [bn, pw], reg_p,
                                      init=0 if integer else 0.0)
        for kb in self.range(o.KT):
            cur = kb % S
            self.mbarrier_wait(full, [cur], (kb // S) % 2)
            raw = self.load_shared(o.sW, [cur, 0, 0], [1, W * 2 * tb], self.reg_raw)
            row = self.load_shared(o.sS, [cur, 0, 0, 0], [1, bn], self.reg_row_t)
            scale = self.permute(row, [1, 0], self.reg_row).to(f32)
            if self.unit != 1.0:
                scale = scale * self.unit
            zeros = self._load_zeros(o.sZ, [cur, 0, 0, 0]) if self.zeros else None
            wt = self.permute(self._weights(raw, zeros), [1, 0], self.reg_wt)  # a relabelling
            for h in range(P):
                self.wgmma_fence()
                part = self.wgmma_mma(wt, o.sXT[cur, h, 0:TILE_K, 0:pw], zero)
                self.wgmma_commit_group()
                # Nothing between the product and its wait (the verifier's
                # rule for a register operand); the other warpgroup's
                # products run meanwhile.
                part = self.wgmma_wait_group(0, part)
                accs[h].assign(accs[h] + (part.to(f32) if integer else part) * scale)
            self.mbarrier_arrive(empty, [cur])
        reg_pt = str(tilus.Layout.parse(reg_p).transpose())
        bias = self._bias_rows(o, on) if self.bias else None
        for h in range(P):
            acc = accs[h]
            if gT is not None:
                acc = acc * self.load_global(gT, [0, om + h * pw], [1, pw], self._reg_col(pw))
            if bias is not None:
                acc = acc + bias
            ct = self.permute(acc, [1, 0], reg_pt).to(self.atype)
            if self.staged:         # one part at a time (_store_c_staged)
                self.store_shared(ct, o.sC, [0, 0])
                self.tma_store(o.sC, o.gCt, [0, 0], [om + h * pw, on], [pw, bn],
                               async_writes=True)
            else:
                self.store_global(ct, o.gC, [om + h * pw, on])

    def _reg_col(self, pw):
        """A column's scales [1, pw] as _accumulator(pw) holds them (its row
        factors dropped)."""
        return (f"reduce(spatial({self.warps},1,1),dims=[0]).local(1,{pw // 8})"
                f".reduce(spatial(8,1,4),dims=[0]).local(1,2)")


# The configuration (warpgroups, block_m, stages, lag) for each block height,
# from the probes in bench/README.md ("FP8 activations"): small blocks with
# deep pipelines for the weights' bytes; above 128 rows, (2, 256, 3, 1) was
# faster than (2, 256, 4, 2) or within noise in four of five A/B runs of
# int4 at M = 4096, and steadier.
_FP8_BY_ROWS = {16: (2, 16, 8, 2), 32: (2, 32, 8, 2), 64: (2, 64, 8, 3),
                128: (2, 128, 4, 1), 256: (2, 256, 3, 1)}


def fp8_config(m, n, k, wtype, group_size=128, zeros=False):
    """(warpgroups, block_m, stages, lag) for FP8 activations (and int8 ones
    on wgmma); None if none fits. The block is as tall as M rounded up to
    16, 32 or 64 rows (wgmma's N: every row past M costs a full product);
    above M = 64 it is the lowest of 64, 128 and M's own height (M rounded
    up to 32, at most 256), up to that, whose grid fits one wave of the H100's SMs, else
    M's own (at N = 8192, M = 256, 128 rows: 128 blocks instead of 64 on 132
    SMs, 44.9 against 69.3 us); heights between the table's take four
    stages (lag 2 above 128 rows). Two
    warpgroups (128 columns a block), or one where that grid would leave
    more than half the SMs idle or N is not a multiple of 128 (N = 8192, K =
    28672, M = 1: 75.4 against 92.4 us)."""
    from .qmatmul_wgmma import wgmma_fits
    rows = next(r for r in (16, 32, 64, 128, 256) if m <= r or r == 256)

    if rows > 64:
        # M's own height, rounded up to 32 (at most six kernels between M =
        # 65 and 256, as for f16 x: qmatmul.block_rows): at N = 57344, M =
        # 160, 4 waves of 160 rows took 1.37-1.66x cuBLAS f16 where 256 rows
        # took 0.99-1.24 (bench/README.md, "int8 activations on wgmma").
        own = own_height(m)
        rows = next((r for r in (64, 128, own) if r <= own and wave_blocks(m, n, r) <= SMS),
                    own)
    best = _FP8_BY_ROWS.get(rows) or ((2, rows, 4, 2) if rows > 128 else (2, rows, 4, 1))
    if zeros and best == (2, 256, 3, 1):
        # With zero codes (2, 256, 3, 1) spills under ptxas 13 (36 bytes
        # stored for uint4); (2, 256, 4, 2) does not and was 4-12 % faster
        # in 15 of 15 alternated runs at M = 256 and 4096 (bench/README.md).
        best = (2, 256, 4, 2)
    one = (1,) + best[1:]
    for cfg in ((one, best) if 2 * wave_blocks(m, n, rows) < SMS else (best, one)):
        if wgmma_fits(cfg, n, k, wtype, group_size, fp8=True, zeros=zeros):
            return cfg
    return None


def fp8_program(wtype, group_size, offset, cfg, bias=False, zeros=False):
    """The FP8-activation template of configuration (warpgroups, block_m,
    stages, lag), with a bias and zero points (tilus.uint8 codes) where
    asked."""
    g, bm, st, lag = cfg
    return QuantizedMatmulWgmmaFP8(wtype, group_size=group_size, offset=offset, warpgroups=g,
                                   block_m=bm, stages=st, lag=lag, zeros=zeros, bias=bias)
