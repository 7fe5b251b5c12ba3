"""The weight-only quantized matmul template (issue 14; docs/quantized-matmul.md):
C[M, N] = A[M, K] x dequant(W)[K, N] (+ bias) in f16 (or bf16:
QuantizedMatmulBF16), W of any 1-8-bit type with scales (and optional zero
points) per group of G rows of K (G 32, 64 or a multiple of 128; K: per
channel).

The weight format does not depend on the configuration: W is cut into tiles
of 128 (K) x 8 (N), each packed (tilus.weight_pack) so that lane l of a warp
finds its 32 elements -- those of the mma.sync m16n8k16 B fragments of the
tile's 8 k steps -- as 4*b contiguous bytes at l*4*b; the tiles are stored
[K/128, N/8, 128*b] (bytes). Any configuration reads the same bytes.

A block of `warps` warps computes a (16 * m_tiles) x (warps * n_tiles * 8) tile of C;
each warp owns n_tiles n-tiles of 8 columns and runs the whole K range (of
its split, with split_k > 1). K goes by tiles of 128 through a `stages`-deep
cp.async pipeline into shared memory (A's rows past M are zero-filled; the
scales ride along): per k tile, A [16 * m_tiles, 128] by ldmatrix, the warp's packed bytes by one 4b-byte
shared load per n-tile, View as the weight type, Cast to f16 (less the
offset), one Dot over the 8 k steps into a fresh f32 tile, and that tile
times the group's scales (broadcast over the rows) added to the accumulator.
With split_k > 1 each block stores its f32 tile into `partials` [split_k,
M, N] and counts itself in its tile's i32 counter (acquire-release); the last
of the tile's blocks to arrive sums the partials in split order (so results
do not depend on timing), writes C and resets the counter. The counters
must be zero before the launch and are zero again after it; nothing needs
zeroing per call.
"""

from typing import Optional

import tilus

TILE_K = 128
TILE_N = 8
# The packed weight format's version: 2 interleaves the 1-, 2- and 4-bit
# integer tiles (interleaved() below), 3 the 4-bit float tiles too, 4 the
# 6-bit float tiles; bytes of those types packed in an earlier format
# decode wrongly (format_since).
WEIGHT_FORMAT = 4
# The register layout of one packed tile (the mma.sync B fragments of its 8 k steps).
TILE_LAYOUT = "local(8,1).local(2,1).column_spatial(4,8).local(2,1)"
# The tile as the mma.sync m16n8k32 s8 B fragments of its 4 k steps (the
# int8-activation format), and its 32-bit words (four consecutive rows each).
S8_TILE_WORDS = "local(4,1).local(2,1).column_spatial(4,8)"
S8_TILE_LAYOUT = S8_TILE_WORDS + ".local(4,1)"
# 0x80808080 as an i32: the sign bit of each byte of a word.
BYTE_SIGNS = -0x7F7F7F80


def interleaved(wtype):
    """For integers of 1, 2 or 4 bits and floats of 4 or 6 bits without inf
    or NaN encodings (as stored):
    the tile as [64, 2, 8] (row k = 2 * r + p at [r, p]) in a layout with
    the same lanes and elements as TILE_LAYOUT whose p digit sits 16/b slots
    above the rest of its word (b = 1, 2, 4), or 4 slots above for 6-bit
    floats. The two weights of an mma register then lie 16 bits apart, and
    the cast takes them with one mask, or a 4-bit float's fields with two
    shifts and two LOP3; a 6-bit float's lie 24 bits apart, at the same bit
    of their bytes, and one PRMT brings both into place for those shifts
    (lib/Conversion/Patterns/Compute/FastCast.c). None for the other types,
    whose tiles keep TILE_LAYOUT."""
    steps = _interleave_steps(wtype)
    if not steps:
        return None
    return f"local({8 // steps},1,1).local(1,2,1).local({steps},1,1).local(2,1,1).column_spatial(4,1,8)"


def _interleave_steps(wtype):
    """k steps (of 4 elements, 2 slots each) between an mma pair's two slots
    in an interleaved tile, or 0 for a plain one."""
    if isinstance(wtype, tilus.FloatDType):
        # Only formats without inf or NaN take the pairs' cast (FastCast.c);
        # e5m0 keeps the plain tile.
        plain = wtype.has_inf or wtype.has_nan
        return 2 if wtype.bits in (4, 6) and not plain else 0
    if isinstance(wtype, tilus.IntDType) and wtype.bits in (1, 2, 4):
        return 32 // wtype.bits // 4      # a word's k steps
    return 0


def format_since(wtype):
    """The weight format in which the packing of `wtype` (as stored) last
    changed: a state dict packed in an earlier one decodes wrongly, one packed
    in this or a later one up to WEIGHT_FORMAT reads the same."""
    if not _interleave_steps(wtype):
        return 1
    if isinstance(wtype, tilus.FloatDType):
        return 3 if wtype.bits == 4 else 4
    return 2


def _row_order(wtype):
    """perm: the interleaved tile packs as TILE_LAYOUT packs rows perm of a
    tile (a tile's row i of the packed input is its row perm[i])."""
    import numpy as np
    steps = _interleave_steps(wtype)
    perm = np.empty(TILE_K, dtype=np.int64)
    for slot in range(32):
        s, h, p = slot // 4, slot // 2 % 2, slot % 2        # TILE_LAYOUT's digits
        # the interleaved layout's digits of the same slot: s_hi, p, s_lo, h
        s_hi, p3, s_lo, h3 = slot // (4 * steps), slot // (2 * steps) % 2, slot // 2 % steps, slot % 2
        s3 = s_hi * steps + s_lo
        for tq in range(4):
            perm[16 * s + 8 * h + 2 * tq + p] = 16 * s3 + 8 * h3 + 2 * tq + p3
    return perm


def _log_step(row_bytes):
    return 0 if row_bytes >= 128 else (128 // row_bytes).bit_length() - 1


def group_size_ok(group_size):
    """Whether the template takes groups of `group_size` rows: 32 or 64
    (scaled before the Dot), or a multiple of 128 (after it)."""
    return group_size in (32, 64) or (group_size > 0 and group_size % TILE_K == 0)


def check_group_size(group_size):
    """ValueError unless group_size_ok(group_size)."""
    if not group_size_ok(group_size):
        raise ValueError(f"group_size {group_size}: 32, 64 or a multiple of {TILE_K} "
                         f"(K itself for per-channel scales)")


class QuantizedMatmul(tilus.Kernel):
    dot_dtype = tilus.float32         # the Dot's accumulator
    weight_format = None              # the activation whose weight format it reads
    zeros_in_cast = False             # zero points subtracted by _weights, not in f16

    def __init__(self, wtype, group_size=128, offset=0, warps=4, n_tiles=1, stages=4,
                 split_k=1, k_tiles=1, activation=None, m_tiles=1, zeros=False, bias=False):
        super().__init__()
        check_group_size(group_size)
        if zeros and offset:
            raise ValueError("zero points replace the offset: pass offset 0 with zeros")
        self.atype = activation or tilus.float16         # of A, the scales and C
        self.wtype, self.group = _stored_type(wtype, offset), group_size
        self.offset = 0 if self.wtype is not wtype else offset
        # Zero points: values of A's type (zeros=True), or integer codes one
        # per byte (zeros=tilus.uint8), cast to A's type in the kernel.
        self.zero_dtype = (self.atype if zeros is True else zeros) if zeros else None
        if zeros and self.zero_dtype not in (self.atype, tilus.uint8):
            raise ValueError(f"zeros: True (values of {self.atype}) or tilus.uint8 (codes), "
                             f"not {zeros}")
        self.zeros, self.bias = bool(zeros), bias
        # Groups shorter than a k tile: R groups per tile, each scaled (f16)
        # before the Dot; otherwise a tile's product is scaled after it (f32).
        self.prescale = group_size < TILE_K
        self.rows = TILE_K // group_size if self.prescale else 1
        self.warps, self.nt, self.stages, self.split_k = warps, n_tiles, stages, split_k
        self.kpt = k_tiles                                    # k tiles per pipeline stage
        self.mt = m_tiles                                     # 16-row tiles of A per block
        self.bm = 16 * m_tiles
        W, nt, b = warps, n_tiles, wtype.bits
        self.bn = W * nt * TILE_N
        self.tile_bytes = TILE_K * TILE_N * b // 8          # 128 * b
        bk = TILE_K * k_tiles
        self.shared_a = (f"local({stages},1,1).swizzle(local({self.bm},{bk // 8}), dim=1, "
                         f"log_step={_log_step(bk * 2)}).local(1,8)")
        self.shared_w = f"local({stages},{k_tiles},{W * nt * self.tile_bytes})"
        self.reg_a = (f"reduce(spatial(1,1,{W}), dims=[2]).local({m_tiles},{TILE_K // 16})"
                      f".column_local(2,2).spatial(8,4).local(1,2)")

        self.tile_layout, self.tile3 = _tile_format(wtype, offset, self.weight_format)
        self.reg_w = f"spatial(1,{W}).local(1,{nt}).{self.tile_layout}"
        if self.tile3:
            self.reg_w3 = f"spatial(1,1,{W}).local(1,1,{nt}).{self.tile3}"
        self.reg_c = (f"local({m_tiles},1).spatial(1,{W}).local(1,{nt})"
                      f".local(2,1).spatial(8,4).local(1,2)")
        self.reg_s = f"spatial(1,{W}).local(1,{nt}).reduce(spatial(1,8,4),dims=[1]).local(1,2)"
        # The weights as [rows, 128 / rows, bn] (a relabelling of reg_w), and
        # the per-group scales or zeros [rows, 1, bn] of their columns.
        R = self.rows
        self.reg_wg = (f"spatial(1,1,{W}).local(1,1,{nt}).local({R},{8 // R},1).local(1,2,1)"
                       f".column_spatial(1,4,8).local(1,2,1)")
        self.reg_g = (f"spatial(1,1,{W}).local(1,1,{nt}).local({R},1,1)"
                      f".reduce(column_spatial(1,1,4,8),dims=[2])")

    @property
    def reg_raw(self):
        """How each lane's bytes of the warp's packed tiles lie (16-byte chunks
        of all lanes in turn, for coalescing), as a row. Asked of the layout
        library (libTilus.so) only when tracing, so that a runtime-only machine
        can enumerate configurations."""
        packed = str(tilus.weight_packed_layout(self.wtype, (TILE_K, TILE_N), self.tile_layout))
        return f"spatial(1,{self.warps}).local(1,{self.nt})." + _as_row(packed)

    @property
    def shared_bytes(self):
        """The pipeline's shared memory: per stage and k tile, A [16 * m_tiles,
        128] (of A's type), the block's packed tiles, their scales [rows, bn] f16 and
        zeros (as many)."""
        groups = self.group_bytes
        a_bytes = self.bm * TILE_K * self.a_dtype.bits // 8
        return self.stages * self.kpt * (a_bytes + self.warps * self.nt * self.tile_bytes
                                         + groups)

    @property
    def group_bytes(self):
        """The bytes of one k tile's scales (and zeros), [rows, bn] each."""
        zero_bits = self.zero_dtype.bits if self.zeros else 0
        return self.rows * self.bn * (16 + zero_bits) // 8

    def _group_row(self, tile):
        """The row of the [K / G, ...] scales (and zeros) holding k tile
        `tile`'s first group: R groups per tile, or one group of G >= 128
        rows holding it."""
        return tile * self.rows if self.prescale else tile * TILE_K // self.group

    def _load_zeros(self, sZ, offsets):
        """A k tile's zero points [rows, 1, bn] from their stage (reg_g), in
        A's type."""
        z = self.load_shared(sZ, offsets, [self.rows, 1, self.bn], self.reg_g)
        return z if self.zero_dtype == self.atype else z.to(self.atype)

    def parameters(self):
        """(a, [a_scales], w, scales, [zeros], [bias], c, [partials,
        counters], m, n, k): A, the scales, zeros, bias and C of the
        activation type (int8 A: f32 a_scales [M], f16 scales, bias and C;
        zeros of zero_dtype); zeros and bias only where built with them;
        with split_k > 1 the f32 partials [split_k, M, N] and the i32
        counters [cdiv(M, 16 * m_tiles), N / bn]."""
        p = tilus.pointer(self.atype)
        split = ([("partials", tilus.pointer(tilus.float32)),
                  ("counters", tilus.pointer(tilus.int32))] if self.split_k > 1 else [])
        return ([("a", tilus.pointer(self.a_dtype))] + self._token_scales()
                + [("w", tilus.pointer(tilus.uint8)), ("scales", p)]
                + ([("zeros", tilus.pointer(self.zero_dtype))] if self.zeros else [])
                + ([("bias", p)] if self.bias else [])
                + [("c", p)] + split + [("m", tilus.int32), ("n", tilus.int32),
                                        ("k", tilus.int32)])

    # A's element type, its shared and register layouts, and the Dot's
    # accumulator type (QuantizedMatmulI8 changes them).
    @property
    def a_dtype(self):
        return self.atype

    def _token_scales(self):
        return []

    def _weights(self, raw, zeros=None):
        """The k tile's weights as the Dot's B [128, bn] in reg_w: the
        packed bytes viewed as the weight type and cast to A's type (less the
        offset). `zeros` is for templates with zeros_in_cast only."""
        f16 = self.atype
        if self.tile3:
            # Cast where the pairs lie 16 bits apart, then the same
            # slots regrouped as the mma's registers (a relabelling).
            wf = self.view(raw, self.wtype, [TILE_K // 2, 2, self.bn], self.reg_w3).to(f16)
            wf = self.reshape(wf, [TILE_K, self.bn], self.reg_w)
        else:
            wf = self.view(raw, self.wtype, [TILE_K, self.bn], self.reg_w).to(f16)
        if self.offset:
            wf = wf - float(self.offset)
        return wf

    def __call__(self, *args):
        names = [name for name, _ in self.parameters()]
        self._trace(**dict(zip(names, args)))

    def _trace(self, a, w, scales, c, m, n, k, zeros=None, bias=None, partials=None,
               counters=None, a_scales=None):
        S, W, nt, bn, tb = self.stages, self.warps, self.nt, self.bn, self.tile_bytes
        f16, f32 = self.atype, tilus.float32
        self.attrs.name = "qmatmul"
        self.attrs.fp_contract = True           # acc + part * scale: one FFMA
        BM = self.bm
        self.attrs.blocks = [tilus.cdiv(m, BM), n // bn, self.split_k]
        self.attrs.warps = W

        # N and K as multiples of the tile (which they must be), so that the
        # compiler can prove rows 16-byte aligned and copy 16 bytes at a time.
        M = self.index(m)
        KT, NT = self.index(k) // TILE_K, self.index(n) // TILE_N
        K, N = KT * TILE_K, NT * TILE_N
        bi, bj, bs = self.block_indices()
        om, on = bi * BM, bj * bn
        per_split = KT // (self.split_k * self.kpt)          # pipeline steps per split
        k0 = bs * per_split                                   # in steps of kpt k tiles
        gA = self.view_global(a, [M, K])
        gW = self.view_global(w, [KT, NT * tb])
        G, R = self.group, self.rows
        # Scales (and zeros) as [K / G, 1, N]: a tile's R rows load as [R, 1, bn].
        gS = self.view_global(scales, [K // G, 1, N])
        gZ = self.view_global(zeros, [K // G, 1, N]) if self.zeros else None
        gC = self.view_global(c, [M, N])
        gT = self.view_global(a_scales, [M, 1]) if a_scales is not None else None
        kpt, bk = self.kpt, TILE_K * self.kpt
        sA = self.allocate_shared(self.a_dtype, [S, BM, bk], self.shared_a)
        sW = self.allocate_shared(tilus.uint8, [S, kpt, W * nt * tb], self.shared_w)
        # The scales ride the pipeline too: one 16-byte copy per 8 columns
        # instead of a bounds-checked global load per warp and k tile.
        sS = self.allocate_shared(f16, [S, kpt, R, 1, bn], f"local({S},{kpt},{R},1,{bn})")
        sZ = (self.allocate_shared(self.zero_dtype, [S, kpt, R, 1, bn],
                                   f"local({S},{kpt},{R},1,{bn})") if self.zeros else None)
        acc = self.allocate_register(f32, [BM, bn], self.reg_c, init=0.0)
        zero = self.allocate_register(self.dot_dtype, [BM, bn], self.reg_c,
                                      init=0 if self.dot_dtype is tilus.int32 else 0.0)
        ow = bj * (W * nt * tb)
        reg_raw = self.reg_raw

        def fill(stage, step):
            self.copy_async(sA, gA, [stage, 0, 0], [om, step * bk], [BM, bk])
            self.copy_async(sW, gW, [stage, 0, 0], [step * kpt, ow], [kpt, W * nt * tb])
            for j in self.range(kpt, unroll=True):
                row = self._group_row(step * kpt + j)
                self.copy_async(sS, gS, [stage, j, 0, 0, 0], [row, 0, on], [R, 1, bn])
                if self.zeros:
                    self.copy_async(sZ, gZ, [stage, j, 0, 0, 0], [row, 0, on], [R, 1, bn])
            self.copy_async_commit_group()

        for s in self.range(S - 1):
            fill(s, k0 + s)
        # Zero points subtracted in A's type after the cast (else by _weights).
        zeros_f16 = self.zeros and not self.zeros_in_cast
        for i in self.range(per_split):
            self.copy_async_wait_group(S - 2)
            self.synchronize()
            # The buffer read in the previous iteration is free: refill it.
            fill((i + (S - 1)) % S, k0 + i + (S - 1))
            cur = i % S
            for j in self.range(kpt, unroll=True):
                ra = self.load_shared(sA, [cur, 0, j * TILE_K], [BM, TILE_K], self.reg_a)
                raw = self.load_shared(sW, [cur, j, 0], [1, W * nt * tb], reg_raw)
                if self.zeros and self.zeros_in_cast:
                    wf = self._weights(raw, self._load_zeros(sZ, [cur, j, 0, 0, 0]))
                else:
                    wf = self._weights(raw)
                if zeros_f16 or self.prescale:
                    # Per group of rows: less its zero, times its scale (f16).
                    wg = self.reshape(wf, [R, TILE_K // R, bn], self.reg_wg)
                    if zeros_f16:
                        wg = wg - self._load_zeros(sZ, [cur, j, 0, 0, 0])
                    if self.prescale:
                        wg = wg * self.load_shared(sS, [cur, j, 0, 0, 0], [R, 1, bn], self.reg_g)
                    wf = self.reshape(wg, [TILE_K, bn], self.reg_w)
                if self.prescale:
                    acc.assign(self.dot(ra, wf, acc))
                else:
                    sc = self.load_shared(sS, [cur, j, 0, 0, 0], [1, bn], self.reg_s)
                    part = self.dot(ra, wf, zero)
                    if self.dot_dtype is not f32:
                        part = part.to(f32)
                    acc.assign(acc + part * sc.to(f32))
        self.copy_async_wait_group(0)
        if self.split_k == 1:
            self._store_result(acc, gC, gT, bias, N, om, on)
            return
        # Split-K: the tile's last block to arrive sums every split's partial
        # in split order, its own from its registers (the bits it stored: the
        # same sum, one tile's read fewer); the acquire-release count orders
        # the stores before it and the loads after it.
        sk = self.split_k
        gP = self.view_global(partials, [sk, M, N])
        gN = self.view_global(counters, [(M + BM - 1) // BM, N // bn])
        self.store_global(acc, gP, [bs, om, on])
        arrived = self.atomic_rmw(gN, [bi, bj], 1, order="acq_rel")
        with self.if_then(arrived.eq(sk - 1)):
            total = None
            for s in range(sk):
                part = acc.handle()
                with self.if_then(bs.ne(s)):
                    part.assign(self.load_global(gP, [s, om, on], [BM, bn], self.reg_c))
                total = part if total is None else total + part
            self._store_result(total, gC, gT, bias, N, om, on)
            self.atomic_rmw(gN, [bi, bj], 0, kind="exchange")      # for the next launch

    def _store_result(self, acc, gC, gT, bias, N, om, on):
        """C's tile: acc (times A's per-row scales, + the bias, in f32) in
        the activation type."""
        if gT is not None:
            acc = acc * self.load_global(gT, [om, 0], [self.bm, 1], self.reg_t)
        if self.bias:
            gB = self.view_global(bias, [1, N])
            acc = acc + self.load_global(gB, [0, on], [1, self.bn], self.reg_s).to(tilus.float32)
        self.store_global(acc.to(self.atype), gC, [om, on])


def _as_row(layout):
    """A rank-1 layout of local/spatial factors as the same layout of a [1, n]
    row: local(2).spatial(32).local(16) -> local(1,2).spatial(1,32).local(1,16)."""
    import re
    return re.sub(r"(local|spatial)\((\d+)\)", r"\1(1,\2)", layout)


class QuantizedMatmulBF16(QuantizedMatmul):
    """The template with bf16 activations, scales and output (bf16 mma.sync)."""

    def __init__(self, wtype, **kwargs):
        kwargs["activation"] = tilus.bfloat16
        super().__init__(wtype, **kwargs)


def int8_fits(wtype, offset):
    """Whether weights (code - offset) of an integer wtype are int8 values
    (the int8-activation template widens them to s8)."""
    return (isinstance(wtype, tilus.IntDType) and wtype.min - offset >= -128
            and wtype.max - offset <= 127)


class QuantizedMatmulI8(QuantizedMatmul):
    """The template with int8 activations and per-token scales: C[m, n] =
    a_scales[m] * sum over groups g of scales[g, n] * sum over k in g of
    A[m, k] (code[k, n] - offset), A int8 [M, K], a_scales f32 [M], scales,
    bias and C f16. The weights (integer types whose values fit int8) are
    widened to s8 in registers (FastCast.c), each k tile's products summed
    exactly in i32 by mma.sync m16n8k32 s8, then scaled in f32. Its weight
    format is the int8 one (pack(..., activation=tilus.int8)): each lane's
    bytes are the s8 B fragments of the tile's four k32 steps, and A comes
    by ldmatrix. Groups of a multiple of 128 rows (or per channel). Zero
    points as uint8 codes (zeros=tilus.uint8) of unsigned weights of at most
    7 bits: the zero is subtracted from the widened codes, exactly for zeros
    up to 128."""

    dot_dtype = tilus.int32
    weight_format = tilus.int8
    zeros_in_cast = True

    def __init__(self, wtype, **kwargs):
        if not isinstance(wtype, tilus.IntDType):
            raise ValueError(f"int8 activations need integer weights, not {wtype}")
        if _activation(kwargs.get("activation")) not in (None, tilus.float16, tilus.int8):
            raise ValueError(f"QuantizedMatmulI8 has int8 activations and f16 scales and "
                             f"output, not activation {kwargs['activation']}")
        if not int8_fits(wtype, kwargs.get("offset", 0)):
            raise ValueError(f"int8 activations: {wtype} codes less the offset "
                             f"{kwargs.get('offset', 0)} are not int8 values"
                             + (" (uint8 needs offset 128)" if wtype == tilus.uint8 else ""))
        zeros = kwargs.get("zeros")
        if zeros and not zeros_fit(wtype, tilus.int8, zeros):
            raise ValueError(
                f"int8 activations take zero points as uint8 codes (zeros=tilus.uint8), not "
                f"{zeros}" if zeros is not tilus.uint8 else
                f"int8 activations take zero points for unsigned weights of at most 7 bits "
                f"(code - zero must be an int8 value), not {wtype}")
        group = kwargs.get("group_size", 128)
        if group % TILE_K:
            raise ValueError(f"int8 activations need groups of a multiple of {TILE_K} "
                             f"rows, not {group}")
        kwargs["activation"] = tilus.float16          # scales, bias and C
        super().__init__(wtype, **kwargs)
        S, W, mt, bk = self.stages, self.warps, self.mt, TILE_K * self.kpt
        self.shared_a = (f"local({S},1,1).swizzle(local({self.bm},{bk // 16}), dim=1, "
                         f"log_step={_log_step(bk)}).local(1,16)")
        self.reg_a = (f"reduce(spatial(1,1,{W}), dims=[2]).local({mt},{TILE_K // 32})"
                      f".column_local(2,2).spatial(8,4).local(1,4)")
        # A's per-row scales [bm, 1], each held by the lanes of its row of C.
        self.reg_t = (f"local({mt},1).reduce(spatial(1,{W},1),dims=[1]).local(2,1)"
                      f".reduce(spatial(8,4,1),dims=[1])")

    @property
    def a_dtype(self):
        return tilus.int8

    def _token_scales(self):
        return [("a_scales", tilus.pointer(tilus.float32))]

    def _words(self, weights):
        """The s8 weights [128, bn] (reg_w) as the i32 words [32, bn] of four
        consecutive rows each (the same registers)."""
        return self.view(weights, tilus.int32, [TILE_K // 4, self.bn],
                         f"spatial(1,{self.warps}).local(1,{self.nt}).{S8_TILE_WORDS}")

    def _load_zeros(self, sZ, offsets):
        """A k tile's zero codes z as words [1, bn] of four equal bytes 128 -
        z, in the layout of the weights' words' columns."""
        W, nt = self.warps, self.nt
        z = self.load_shared(sZ, offsets, [1, 1, self.bn], self.reg_g)
        z = self.reshape(z, [1, self.bn],
                         f"spatial(1,{W}).local(1,{nt}).reduce(column_spatial(1,4,8),dims=[1])")
        return (128 - z.to(tilus.int32)) * 0x01010101

    def _weights(self, raw, zeros=None):
        """The weights widened to s8, less the offset, or less the zeros
        (`zeros`: _load_zeros's words)."""
        wq = self.view(raw, self.wtype, [TILE_K, self.bn], self.reg_w).to(tilus.int8)
        if not self.offset and zeros is None:
            return wq
        o, words, signs = self.offset, self._words(wq), BYTE_SIGNS
        if zeros is not None:
            # Codes c in 0..127 and zeros z in 0..128: each byte c + (128 - z)
            # lies in 0..255, so the word addition carries into no byte, and
            # ^ 0x80 gives c - z. Two integer operations per four weights.
            return self.view(self.xor(words + zeros, signs), tilus.int8, [TILE_K, self.bn],
                             self.reg_w)
        # Four bytes a word: byte b (value s) ^ 0x80 is s + 128, and s + 128 -
        # offset lies in 0..255 (int8_fits), so the word subtraction borrows
        # across no byte; ^ 0x80 again gives s - offset. Three integer
        # operations per four weights instead of one subtraction per byte.
        step = (abs(o) & 0xFF) * 0x01010101
        words = self.xor(words, signs)
        words = words - step if o > 0 else words + step
        return self.view(self.xor(words, signs), tilus.int8, [TILE_K, self.bn], self.reg_w)


def fp8_fits(wtype, offset):
    """Whether FP8 (E4M3) activations take weights code - offset of `wtype`
    (qmatmul_fp8): int2-int4 with offset 0, uint1-uint4 with offset 0 and
    uint2-uint4 with the symmetric offset 2^(b-1). Their values lie in
    [-8, 15], E4M3 bytes of sign and magnitude; the signed ones are stored
    as _fp8_recode's codes, which the kernel turns into those bytes (other
    offsets would need a subtraction per byte)."""
    if not isinstance(wtype, tilus.IntDType) or wtype.bits > 4:
        return False
    if wtype.signed or wtype.bits == 1:
        return offset == 0
    return offset in (0, 1 << (wtype.bits - 1))


def zeros_fit(wtype, activation, zeros):
    """Whether the template takes zero points of kind `zeros` (True: values
    of x's type; tilus.uint8: codes) for weights of `wtype` with `activation`
    x: f16 and bf16 x take both; int8 and FP8 x only codes, subtracted from
    the codes in the cast, of unsigned integer weights (for int8 of at most
    7 bits, so that code - zero is an int8 value)."""
    if activation not in (tilus.int8, tilus.float8_e4m3):
        return True
    return (zeros is tilus.uint8 and isinstance(wtype, tilus.IntDType) and not wtype.signed
            and (activation != tilus.int8 or wtype.bits <= 7))


def _fp8_recode(values, bits):
    """The FP8-activation format's b-bit code of signed values (numpy or
    torch): v >= 0 as itself, v < 0 as 2^(b-1) | (-1 - v), so that the code
    c of a negative value becomes its E4M3 byte with one multiply-add, c +
    (0x81 - 2^(b-1)) (qmatmul_fp8)."""
    h = 1 << (bits - 1)
    return (values < 0) * (h | (-1 - values)) + (values >= 0) * values


def _fp8_codes(codes, wtype, offset):
    """The FP8 format's unsigned b-bit codes of integer `codes` (numpy or
    torch) read as pack() reads codes: their low b bits, a signed type's as
    two's complement; the stored signed values (signed types, symmetric
    offsets) recoded by _fp8_recode."""
    b, h = wtype.bits, 1 << (wtype.bits - 1)
    codes = codes & ((1 << b) - 1)
    if wtype.signed:
        codes = (codes ^ h) - h
    if _stored_type(wtype, offset).signed:
        codes = _fp8_recode(codes - offset, b)
    return codes


def _fp8_decode(codes, bits):
    """The signed values of _fp8_recode's codes."""
    h = 1 << (bits - 1)
    return (codes >= h) * (-1 - (codes & (h - 1))) + (codes < h) * codes


def template(wtype, activation=None, **kwargs):
    """The template class for the activation type (float16, bfloat16 or
    int8)."""
    activation = _activation(activation)
    if activation in (None, tilus.float16):
        return QuantizedMatmul(wtype, **kwargs)
    if activation == tilus.bfloat16:
        return QuantizedMatmulBF16(wtype, **kwargs)
    return QuantizedMatmulI8(wtype, **kwargs)


def random_codes(rng, wtype, shape):
    """Random codes of `wtype` (numpy `rng`): the type's integer range, or
    finite encodings of a float type (NaN and inf codes become 0). Inputs
    for checks, tests and benchmarks."""
    import numpy as np
    if isinstance(wtype, tilus.FloatDType):
        codes = rng.integers(0, 1 << wtype.bits, size=shape)
        return np.where(np.isfinite(wtype.decode(codes)), codes, 0)
    return rng.integers(wtype.min, wtype.max + 1, size=shape)


def dequantize(codes, scales, wtype, offset, group_size, zeros=None):
    """The weights [K, N] (float64 numpy) of codes [K, N]: (value(code) -
    offset - zero) * the scale of the code's group of rows; value is the
    integer, or the float encoding's value; zeros (optional) [K / group_size,
    N]. The CPU reference of the kernel's arithmetic."""
    import numpy as np
    codes = np.asarray(codes)
    values = (wtype.decode(codes) if isinstance(wtype, tilus.FloatDType)
              else codes.astype(np.float64) - offset)
    if zeros is not None:
        values = values - np.repeat(np.asarray(zeros, dtype=np.float64), group_size, axis=0)
    return values * np.repeat(np.asarray(scales, dtype=np.float64), group_size, axis=0)


def _stored_type(wtype, offset):
    """The type the weights are stored as: unsigned b-bit codes with the
    symmetric offset 2^(b-1) are stored as the signed values code - offset
    (the same bits with the top one flipped), whose cast to f16 subtracts the
    offset for free (FastCast's magic number absorbs it)."""
    if (isinstance(wtype, tilus.IntDType) and not wtype.signed and wtype.bits >= 2
            and offset == 1 << (wtype.bits - 1)):
        return tilus.int_(wtype.bits)
    return wtype


def _activation(activation):
    """The activation type named by `activation` (None, a tilus dtype or its
    name): None, float16, bfloat16, int8 or float8_e4m3; ValueError for any
    other."""
    a = tilus.dtype(activation) if isinstance(activation, str) else activation
    if a is not None and a not in (tilus.float16, tilus.bfloat16, tilus.int8,
                                   tilus.float8_e4m3):
        raise ValueError(f"activations of {activation} are not supported (float16, "
                         f"bfloat16, int8, float8_e4m3)")
    return a


def _check_fp8(wtype, offset):
    if not fp8_fits(wtype, offset):
        raise ValueError(f"no FP8-activation format for {wtype} with offset {offset}: "
                         f"int2-int4 with offset 0, uint1-uint4 with offset 0, uint2-uint4 "
                         f"with the symmetric offset 2^(b-1)")


def _tile_format(wtype, offset, activation):
    """(the tile's register layout, its interleaved layout or None) of the
    weight format for `activation`: int8 activations read the tile as s8
    mma fragments (S8_TILE_LAYOUT; ValueError unless the weights' values
    fit int8), the others as f16 ones, interleaved for the 1-, 2- and 4-bit
    integers (as stored)."""
    if _activation(activation) == tilus.int8:
        if not int8_fits(wtype, offset):
            raise ValueError(f"no int8-activation format for {wtype} with offset {offset}: "
                             f"its values are not int8")
        return S8_TILE_LAYOUT, None
    return TILE_LAYOUT, interleaved(_stored_type(wtype, offset))


def pack(codes, wtype, offset=0, order="KN", activation=None):
    """uint8 [K/128, N/8, 128*b]: the format above, from element codes
    (integers; float types: their encodings, e.g. tilus.float6_e3m2.encode)
    of weights whose values are (code - offset) * scale. `order` is "KN" for
    codes [K, N] (as the matmul reads them) or "NK" for [N, K] (nn.Linear's
    weight layout, out_features x in_features). `activation` tilus.int8
    gives the int8-activation format (QuantizedMatmulI8; the same size, the
    bytes in another order), tilus.float8_e4m3 the FP8 one (qmatmul_fp8: the
    int8 format of _fp8_recode's codes); any other (None, float16, bfloat16)
    the one format of f16 and bf16 activations."""
    import numpy as np
    if order not in ("KN", "NK"):
        raise ValueError(f"pack: order is 'KN' or 'NK', not {order!r}")
    if order == "NK":
        codes = np.asarray(codes).T
    if _activation(activation) == tilus.float8_e4m3:
        # The int8 format of the FP8 codes (unsigned, _fp8_recode).
        _check_fp8(wtype, offset)
        codes = _fp8_codes(np.asarray(codes).astype(np.int64), wtype, offset)
        return pack(codes, tilus.uint_(wtype.bits), 0, activation=tilus.int8)
    stored = _stored_type(wtype, offset)
    if stored is not wtype:
        codes = np.asarray(codes).astype(np.int64) - offset
    layout, tile3 = _tile_format(wtype, offset, activation)
    if tile3:
        codes = np.asarray(codes)
        k, n = codes.shape
        if k % TILE_K:
            raise ValueError(f"pack: K = {k} is not a multiple of {TILE_K}")
        codes = codes.reshape(k // TILE_K, TILE_K, n)[:, _row_order(stored), :].reshape(k, n)
    return tilus.weight_pack(codes, stored, (TILE_K, TILE_N), layout)


def unpack(packed, wtype, k, n, offset=0, activation=None):
    """The codes [K, N] (int64 numpy) that pack(codes, wtype, offset,
    activation=activation) packed into `packed` (any shape of its K*N*b/8
    bytes)."""
    import numpy as np
    if _activation(activation) == tilus.float8_e4m3:
        _check_fp8(wtype, offset)
        codes = unpack(packed, tilus.uint_(wtype.bits), k, n, 0, tilus.int8)
        if _stored_type(wtype, offset).signed:
            codes = _fp8_decode(codes, wtype.bits) + offset
        return codes
    stored = _stored_type(wtype, offset)
    layout, tile3 = _tile_format(wtype, offset, activation)
    tiles = np.asarray(packed, dtype=np.uint8).reshape(k // TILE_K, n // TILE_N, -1)
    codes = np.asarray(tilus.weight_unpack(tiles, stored, (k, n), (TILE_K, TILE_N),
                                           layout), dtype=np.int64)
    if tile3:
        out = np.empty_like(codes.reshape(k // TILE_K, TILE_K, n))
        out[:, _row_order(stored), :] = codes.reshape(k // TILE_K, TILE_K, n)
        codes = out.reshape(k, n)
    return codes + offset if stored is not wtype else codes


class DevicePack(tilus.Kernel):
    """pack() on the GPU: codes [K, N], one per byte (uint8: the low b bits
    are the code, so signed codes are bytes of their two's complement), into
    the format above; one warp per 128 x 8 tile. Unsigned codes with the
    symmetric offset become the signed values code - offset, as pack() stores
    them. `activation` tilus.int8: the int8-activation format."""

    def __init__(self, wtype, offset=0, activation=None):
        super().__init__()
        self.wtype, self.offset = wtype, offset
        self.stored = _stored_type(wtype, offset)
        self.layout, self.tile3 = _tile_format(wtype, offset, activation)
        self.tile_bytes = TILE_K * TILE_N * wtype.bits // 8
        self.attrs.name = "qmatmul_pack"
        self.attrs.warps = 1

    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.uint8),
                 k: tilus.int32, n: tilus.int32):
        b = self.wtype.bits
        self.attrs.blocks = [k // TILE_K, n // TILE_N]
        KT, NT = self.index(k) // TILE_K, self.index(n) // TILE_N
        bi, bj = self.block_indices()
        gp = self.view_global(dst, [KT, NT, self.tile_bytes])
        r, c = bi * TILE_K, bj * TILE_N
        tile3, layout = self.tile3, self.layout
        if tile3:        # rows k = 2 r + p read as [r, p] in the interleaved layout
            gc = self.view_global(src, [KT * (TILE_K // 2), 2, NT * TILE_N])
            r2 = bi * (TILE_K // 2)
            codes = self.load_global(gc[r2:r2 + TILE_K // 2, 0:2, c:c + TILE_N], tile3)
        else:
            gc = self.view_global(src, [KT * TILE_K, NT * TILE_N])
            codes = self.load_global(gc[r:r + TILE_K, c:c + TILE_N], layout)
        # The low b bits of each byte, as pack() reads its codes; in range, the
        # casts below neither saturate nor wrap.
        codes = self.and_(codes, (1 << b) - 1)
        if self.stored is not self.wtype:             # symmetric offset: signed values
            v = (codes.to(tilus.int16) - self.offset).to(self.stored)
        else:
            # The bits as an unsigned b-bit value (signed codes are bytes of
            # their two's complement; float codes are encodings).
            v = codes.to(tilus.uint_(b))
            if isinstance(self.wtype, tilus.FloatDType):
                v = (self.view(v, self.wtype, [TILE_K // 2, 2, TILE_N], tile3) if tile3
                     else self.view(v, self.wtype, [TILE_K, TILE_N], layout))
        packed = str(tilus.weight_packed_layout(self.stored, (TILE_K, TILE_N), layout))
        q = self.view(v, tilus.uint8, [self.tile_bytes], packed)
        self.store_global(q, gp[bi, bj, 0:self.tile_bytes])


def pack_on_device(codes, wtype, offset=0, runtime=None, activation=None):
    """pack() of a CUDA uint8 tensor of codes [K, N] (one per byte), on the
    GPU: a flat uint8 tensor of K*N*b/8 bytes on the same device (the
    int8-activation format for `activation` tilus.int8, the FP8 one for
    tilus.float8_e4m3). Compiles in-process on first use (needs
    libTilus.so)."""
    import torch
    from ..artifact import TilusArgumentError
    if codes.dim() != 2 or codes.dtype != torch.uint8 or not codes.is_cuda:
        raise TilusArgumentError(f"pack_on_device: codes must be a 2-D CUDA uint8 tensor "
                                 f"[K, N], not {codes.dtype} {tuple(codes.shape)} on "
                                 f"{codes.device}")
    k, n = codes.shape
    if k % TILE_K or n % TILE_N:
        raise TilusArgumentError(f"pack_on_device: K = {k} must be a multiple of {TILE_K} "
                                 f"and N = {n} of {TILE_N}")
    runner = runtime if isinstance(runtime, QuantizedMatmulRunner) else (
        _default_runner(codes.device.index or 0) if runtime is None
        else QuantizedMatmulRunner(runtime))
    if _activation(activation) == tilus.float8_e4m3:
        # The int8 format of the FP8 codes, recoded here (_fp8_recode).
        try:
            _check_fp8(wtype, offset)
        except ValueError as e:
            raise TilusArgumentError(f"pack_on_device: {e}") from None
        codes = _fp8_codes(codes.to(torch.int16), wtype, offset).to(torch.uint8)
        return pack_on_device(codes, tilus.uint_(wtype.bits), 0, runner, tilus.int8)
    int8 = _activation(activation) == tilus.int8
    kernel = runner.load(("pack", str(wtype), offset, int8),
                         lambda: DevicePack(wtype, offset, tilus.int8 if int8 else None),
                         "qmatmul_pack")
    out = torch.empty(k * n * wtype.bits // 8, dtype=torch.uint8, device=codes.device)
    kernel(codes.contiguous(), out, k, n)
    return out


# Configurations (warps, n_tiles, stages, split_k, k_tiles), best first, from
# bench/qmatmul on the H100 (bench/README.md): the first that divides the
# shape is taken. Wide N (many column tiles) favours 4 warps of 8 n-tiles and
# no split; narrow N needs split-K for enough blocks (at N = K = 8192 a deep
# unsplit pipeline of narrow blocks is a little faster, and the tuned table
# says so, but it leaves SMs idle at N = 10240 and K = 28672: llama.py).
_WIDE = [(4, 8, 3, 1, 1), (4, 4, 3, 1, 1), (4, 2, 3, 1, 1), (4, 1, 4, 1, 1), (1, 1, 3, 1, 1)]
_NARROW = [(4, 2, 3, 4, 1), (4, 4, 3, 4, 1), (4, 1, 3, 4, 1), (4, 1, 4, 2, 1), (1, 1, 3, 1, 1)]
_WIDE_8BIT = [(4, 2, 4, 1, 1), (4, 1, 4, 1, 1), (1, 1, 3, 1, 1)]
# M > 32 (four row tiles per block, row_tiles; bench/README.md, "Seventh
# run"). Above M = 64, n_tiles 16 / 4 = 4 per warp and four stages: the
# fastest of 48 configurations (row tiles 2 or 4, n_tiles 1-4 per warp, 3 or
# 4 stages, 4 or 8 warps, split-K 1 or 2) for u4 at M = 128 and 256, N =
# 57344 and 8192, 1.3-1.6x faster than the former 8 / 4 = 2 with three
# stages, split in two at narrow N up to M = 128; for int8 activations too
# (the best of twelve in 15 of 16 cells at M = 128 and 256, uint8 at N =
# 57344, M = 128 within 14 %). At M = 33-64 it is also taken at wide N for
# f16 activations (all but u8 gained), but at narrow N it lost up to 27 % at
# N = 10240 (80 column blocks), so the narrow table stays the former one
# there, as does int8's (n_tiles 8 / 4 and four stages, within 15 % of the
# best at M = 64).
_LARGE_M = [(4, 16, 4, 1, 1), (4, 8, 3, 1, 1), (4, 4, 3, 1, 1), (1, 1, 3, 1, 1)]
_LARGE_M_SPLIT = [(4, 16, 4, 2, 1), (4, 8, 3, 4, 1), (4, 4, 3, 4, 1), (1, 1, 3, 1, 1)]
_MID_M_NARROW = [(4, 8, 3, 4, 1), (4, 4, 3, 4, 1), (4, 4, 3, 2, 1), (1, 1, 3, 1, 1)]
_MID_M_INT8 = [(4, 8, 4, 1, 1), (4, 4, 4, 1, 1), (1, 1, 3, 1, 1)]


# The most shared memory one block may have on the H100 (227 KiB).
MAX_BLOCK_SHARED = 227 << 10


def _with_row_tiles(config, m_tiles):
    """The configuration a block of m_tiles row tiles runs: n_tiles divided
    by m_tiles (at least 1)."""
    w, nt, s, sk, kpt = config
    return (w, max(1, nt // m_tiles), s, sk, kpt)


def row_tiles(m):
    """The 16-row tiles of A a block takes for M rows (the template's
    m_tiles): 1 up to 16, 2 up to 32, else 4, so that each decoded weight
    serves up to 64 rows. The runner divides the configuration's n_tiles by
    it (at least 1), which keeps the block's registers near those tuned at
    M <= 16 and its width a divisor of N."""
    return 1 if m <= 16 else 2 if m <= 32 else 4


def block_width(config):
    """The columns of C a block of (warps, n_tiles, ...) computes."""
    return config[0] * config[1] * TILE_N


def fits(config, n=None, k=None):
    """Whether (warps, n_tiles, stages, split_k, k_tiles) tiles an N x K
    weight: its block width divides N and its splits of k tiles divide K
    (either left out: not checked)."""
    _, _, _, sk, kpt = config
    return ((n is None or n % block_width(config) == 0)
            and (k is None or (k // TILE_K) % (sk * kpt) == 0))


def choose_config(m, n, k, wtype, activation=None):
    """(warps, n_tiles, stages, split_k, k_tiles) for an [m, k] x [k, n]
    product: the heuristic table above, first entry whose block (with
    row_tiles(m) row tiles, as the runner runs it) divides n and k."""
    wide = n >= 32768
    if 32 < m <= 64 and _activation(activation) == tilus.int8:
        table = _MID_M_INT8
    elif 32 < m <= 64:
        table = _LARGE_M if wide else _MID_M_NARROW
    elif m > 64:
        table = _LARGE_M if wide or m > 128 else _LARGE_M_SPLIT
    else:
        table = (_WIDE_8BIT if wtype.bits == 8 and n >= 32768 else _WIDE if n >= 32768
                 else _NARROW)
    mt = row_tiles(m)
    for cfg in table:
        if fits(_with_row_tiles(cfg, mt), n, k):
            return cfg
    raise ValueError(f"no configuration for N = {n}, K = {k}")


# The H100's SMs: a grid of at most this many blocks runs in one wave.
SMS = 132


def wave_blocks(m, n, rows):
    """The grid of a wgmma product's two-warpgroup blocks (128 columns) of
    `rows` rows at M = m, N = n; one warpgroup's grid is twice as many."""
    return -(-m // rows) * (n // 128)


# Block heights between the powers of two step by this many rows (wgmma's N
# takes any multiple of 8; 32 keeps to six kernels per shape from M = 65 to
# 256). export's M ranges follow it.
HEIGHT_STEP = 32


def own_height(m):
    """M's own block height: M rounded up to HEIGHT_STEP, at most 256 (one
    block row of M)."""
    return min(256, -(-m // HEIGHT_STEP) * HEIGHT_STEP)


# One-warpgroup blocks decode during their own product (overlap): from M = 65
# to 192 they are taken where a grid of them fills at least this much of one
# wave (bench/README.md, "Nineteenth run": N = 6144, 96 blocks, 0.73 of a wave,
# gained 1.06-1.24x cuBLAS f16 against 0.83-1.01 for the former choice).
ONE_WG_FILL = 0.7


def one_warpgroup_rows(m, n):
    """For 64 < M <= 192: the height of one-warpgroup blocks (64 columns),
    64 to M's own height in steps of HEIGHT_STEP, whose grid fills the most
    of one wave without passing it (the fewest rows on a tie), where that is
    at least ONE_WG_FILL of it; else None. N = 8192: one block row of M's
    own height (128 blocks); N = 4096, M = 160-192: two rows of 96 (128
    blocks); N = 10240: none (160 blocks of one row)."""
    cols, best = n // 64, None
    for h in range(64, own_height(m) + 1, HEIGHT_STEP):
        blocks = -(-m // h) * cols
        if blocks <= SMS and (best is None or blocks > best[0]):
            best = (blocks, h)
    return best[1] if best and best[0] >= ONE_WG_FILL * SMS else None


def block_rows(m, n, dear):
    """The block height of the wgmma product at 64 < M <= 256: of 64 (up to
    M = 128, and beyond where its grid fits one wave), 128 (beyond M = 128)
    and M's own height (M rounded up to 32: one block row, and at most six
    kernels per shape between M = 65 and 256), the one whose grid takes the
    least time. A grid of two-warpgroup blocks (128 columns) takes its waves
    of the SMS times the rows per block plus the decode's cost in rows (32;
    80 for a `dear` decode, which taller blocks amortize over more rows); a
    grid of one-warpgroup blocks (64 columns), where it fits one wave, half
    of the rows plus a larger cost (104; 196), as no other warpgroup's
    product runs during its decode. Fitted to the fourteenth run
    (bench/README.md): at N = 57344, M = 192, one block row of 192 makes 448
    blocks (4 waves) where 128-row blocks make 896 (7 waves): 0.99-1.13
    against 0.75-0.87 of cuBLAS f16; at N = 8192, M = 160, one warpgroup's
    128 blocks of 160 rows took 0.93-1.19 where 128-row blocks of two took
    0.65-0.86, and lost from M = 224."""
    own = own_height(m)
    heights = {own, 64 if m <= 128 else 128}
    if wave_blocks(m, n, 64) <= SMS:
        heights.add(64)
    cost, cost_one = (80, 196) if dear else (32, 104)

    def time(rows):
        t = grid_time(m, n, rows, cost)
        return min(t, (rows + cost_one) / 2) if 2 * wave_blocks(m, n, rows) < SMS else t
    return min(sorted(heights), key=time)


def grid_time(m, n, rows, cost):
    """block_rows' model of a grid of two-warpgroup blocks of `rows` rows:
    its waves of the SMS times the rows per block plus the decode's cost in
    rows."""
    return -(-wave_blocks(m, n, rows) // SMS) * (rows + cost)


# Beyond this M the wgmma blocks are the tallest whose three stages fit
# (prefill_heights' model was not measured there). A multiple of
# HEIGHT_STEP: export's M ranges end on one.
HEIGHTS_UP_TO = 1024


def prefill_heights(m, n, dear):
    """From M = 257 to HEIGHTS_UP_TO: the heights of two-warpgroup blocks,
    128 to 256 in steps of HEIGHT_STEP, fastest first by grid_time (the
    taller on a tie).
    At M = 320, N = 8192, K = 8192 two block rows of 160 took 0.96x cuBLAS
    f16 for u4 where rows of 256 (the former choice: the second row mostly
    past M) took 0.56; at M = 448, N = 10240, three rows of 160 (240
    blocks, two waves) 0.91 against 0.65. In 35 cells of M = 320-768 at
    three Llama shapes it was 1.0-2.8x as fast as the former choice in 33,
    0.97 and 0.99 in two (bench/README.md, "Twenty-first run")."""
    cost = 80 if dear else 32
    return sorted(range(128, 257, HEIGHT_STEP), key=lambda r: (grid_time(m, n, r, cost), -r))


def wgmma_config(m, n, k, wtype, activation=None, group_size=128, zeros=False):
    """The wgmma configuration for M > 32 with f16 or bf16 activations on
    an H100: data_parallel_config's, or from M = 65 to 256 the stream-K
    grid's where stream_k_config prefers it; None where none applies (M <=
    32, int8 activations) or nothing tiles the shape."""
    cfg = data_parallel_config(m, n, k, wtype, activation, group_size, zeros)
    if 64 < m <= 256 and _activation(activation) in (None, tilus.float16, tilus.bfloat16):
        return stream_k_config(m, n, k, wtype, group_size, zeros, cfg) or cfg
    return cfg


def data_parallel_config(m, n, k, wtype, activation=None, group_size=128, zeros=False):
    """The wgmma configuration of a grid of output tiles for M > 32 with f16
    or bf16 activations on an H100: the warp-specialized variant's
    (warpgroups, block_m, stages, lag), or where none of its fits, the plain
    variant's (warpgroups, block_m, stages); None where neither applies (M
    <= 32, int8 activations) or nothing tiles the shape.

    Up to M = 64 the block has 64 rows. From M = 65 to 192, where a grid of
    one-warpgroup blocks fills at least ONE_WG_FILL of one wave, those, of
    one_warpgroup_rows' height (each decodes during its own product:
    overlap). Otherwise block_rows picks its height
    (64, or 128 beyond M = 128, or M's own rounded up to 32) by the waves of
    its grid; one warpgroup instead of two where even its grid fits one
    wave (N = 8192, M = 64: 128 blocks of 64 columns). From M = 257 to
    HEIGHTS_UP_TO, the height prefill_heights ranks fastest whose three
    stages fit; beyond, the most rows whose three stages fit (256 for weights
    of up to 5 bits, 192 beyond). From the probes of bench/README.md ("Ninth
    run", "Tenth run", "Fourteenth run"): at M = 65-128 this beat the plain variant's table by
    up to 1.5x (N = 10240, M = 96: 1.57 against 1.03 of cuBLAS f16 for u4).
    zeros: the kernel takes zero points (their tiles share the stages: True
    for values of x's dtype, tilus.uint8 for codes)."""
    if m <= 32 or _activation(activation) not in (None, tilus.float16, tilus.bfloat16):
        return None

    # Weights whose decode takes more than a shift and a mask (3-, 5-, 6- and
    # 7-bit codes, floats) amortize it over more rows.
    dear = isinstance(wtype, tilus.FloatDType) or wtype.bits not in (1, 2, 4, 8)
    if m <= 256:
        rows = 64 if m <= 64 else block_rows(m, n, dear)
        # Where the grid of 64-row blocks fits one wave, 128-row blocks of
        # one warpgroup make as many blocks (N = 8192, M = 96-128: 1.06-1.30
        # against 0.97-1.19 of cuBLAS f16 for u3 and f6e3m2; 5-15 % slower
        # for u4 and u8).
        one_wg_128 = -(-m // 128) * (n // 64)           # one-warpgroup blocks of 128 rows
        one_rows = one_warpgroup_rows(m, n) if 64 < m <= 192 else None
        if one_rows:
            # A grid of one-warpgroup blocks fills most of one wave, and each
            # decodes during its own product (overlap; bench/README.md,
            # "Nineteenth run": N = 8192, M = 96 and 128, 1.24-1.31x the
            # two-warpgroup 64-row blocks for u4 and u8, 1.30x the 128-row
            # block for f6e3m2 at M = 96).
            rows, one_first = one_rows, True
        elif m > 64 and rows == 64 and dear and one_wg_128 <= SMS:
            rows, one_first = 128, True
        else:
            one_first = 2 * wave_blocks(m, n, rows) < SMS
        # Two warpgroups above 128 rows: three stages, or two without lag
        # where three do not fit (6- to 8-bit weights; N = 10240, M = 256:
        # 0.74 against 0.61 of cuBLAS f16 for f6e3m2, 0.78 against 0.72 for
        # u8), else 128 rows. One warpgroup: four stages where they fit (N =
        # 8192, M = 160-192: 3-6 % faster than three).
        two = ([(2, rows, 3, 1), (2, rows, 2, 0), (2, 128, 4, 1)] if rows > 128
               else [(2, rows, 4, 1)])
        one = [(1, rows, 4, 1)] + ([(1, rows, 3, 1), (1, rows, 2, 0)] if rows > 128 else [])
        table = one + two if one_first else two + one
        table += ([(4, 128, 3), (2, 64, 4), (1, 64, 4)] if m > 64 else [(2, 64, 4), (1, 64, 4)])
    elif m <= HEIGHTS_UP_TO:
        # Four stages up to 160 rows where they fit (M = 320, 160 rows, u4:
        # 0.96-1.01x cuBLAS f16 against 0.92-0.97 with three), else three.
        table = [(2, r, s, 1) for r in prefill_heights(m, n, dear)
                 for s in ((4, 3) if r <= 160 else (3,))] + [(1, 128, 3, 1)]
    else:
        table = [(2, 256, 3, 1), (2, 192, 3, 1), (2, 128, 4, 1), (1, 128, 3, 1)]
    from .qmatmul_wgmma import wgmma_fits
    return next((c for c in table if wgmma_fits(c, n, k, wtype, group_size, zeros=zeros)), None)


# Stream-K pays for its fix-up (every block shares a tile or two with its
# neighbours: partials written and summed, most of them at the end): it is
# taken over a data-parallel grid whose last wave is not nearly full (unless
# it is one wave of one_warpgroup_rows' blocks), or whose blocks are weaker
# (one warpgroup, or fewer than 128 rows) where each stream-K block has at
# least STREAM_K_UNITS k tiles to amortize that over, or merely shorter where
# it has STREAM_K_TALL_UNITS.
STREAM_K_FILL = 0.9
STREAM_K_UNITS = 64
STREAM_K_TALL_UNITS = 128


def stream_k_config(m, n, k, wtype, group_size=128, zeros=False, dp=None):
    """The stream-K configuration (2, block_m, stages, lag, "sk") for 64 < M
    <= 256 (f16 or bf16 x on an H100) where it beats `dp`, the data-parallel
    one data_parallel_config found (or where there is none), else None: one block
    row of M's own height, 4 stages where they fit, else 3, else 2 without
    lag, else 128 rows.
    The rule (STREAM_K_FILL, STREAM_K_UNITS, STREAM_K_TALL_UNITS) is fitted
    to the Llama-3-70B shapes at M = 128, 192 and 256 (bench/README.md,
    "Eighteenth run", results/stream-k-h100.txt; x cuBLAS f16): taken at
    N = 10240 (80 blocks of 128 columns: 0.61 of a wave; M = 192: 0.75-1.04
    -> 1.07-1.26), N = 57344 below M = 256 (3.4 waves) and K = 28672 below
    M = 256 (M = 128: 1.10-1.32 -> 1.37-1.64); not at N = K = 8192, M = 192
    (31 k tiles per block: 0.92-1.00 against 0.94-1.08 for one-warpgroup
    blocks), nor at M = 256 where 128-row blocks of two warpgroups fill
    their waves, unless a stream-K block of 256 rows gets 217 k tiles (N =
    57344: 1.07-1.09 against 0.97-1.02 for u4, i4 and u3; at K = 28672 its
    108 gave 0.98-1.02 against 1.01-1.02)."""
    from .qmatmul_wgmma import stream_k_plan, wgmma_fits
    if not n or not k:
        return None                     # no work to share
    h = own_height(m)
    sk = next((c for c in [(2, h, 4, 1, "sk"), (2, h, 3, 1, "sk"), (2, h, 2, 0, "sk"),
                           (2, 128, 4, 1, "sk")]
               if wgmma_fits(c, n, k, wtype, group_size, zeros=zeros)), None)
    if sk is None or dp is None:
        return sk
    blocks = -(-m // dp[1]) * (n // (64 * dp[0]))
    fill = blocks / (-(-blocks // SMS) * SMS)
    units = stream_k_plan(m, n, k, sk, SMS)[2] * (k // TILE_K) / SMS    # per block
    weak = dp[0] == 1 or dp[1] < 128
    taller = sk[1] > dp[1] and sk[0] >= dp[0]
    # One wave of one-warpgroup blocks (one_warpgroup_rows) overlaps each
    # block's decode with its product; its idle SMs cost less than stream-K's
    # partials (N = 6144 and 7168, M = 96-192: 1.06-1.31x cuBLAS f16 against
    # stream-K's 0.90-1.14; bench/README.md, "Nineteenth run").
    one_wave = 64 < m <= 192 and dp[0] == 1 and dp[1] == one_warpgroup_rows(m, n)
    return sk if (fill < STREAM_K_FILL and not one_wave or weak and units >= STREAM_K_UNITS
                  or taller and units >= STREAM_K_TALL_UNITS) else None


def default_config(m, n, k, wtype, group_size, offset, activation, gpu, cc):
    """The mma.sync configuration for GPU `gpu` (its name) of compute
    capability `cc`: the shipped tuning table's (tilus.ops.tune), else
    choose_config's. quantized_matmul takes it where the wgmma variant does
    not apply (runner.choice); the C kernel tables (tilus.ops.export) hold
    it everywhere."""
    from .tune import shipped_table
    return (shipped_table().get(gpu, cc, m, n, k, wtype, group_size, offset, activation)
            or choose_config(m, n, k, wtype, activation))


# int8 x above this M takes the warp-specialized wgmma variant on sm_90
# (qmatmul_i8_wgmma), below it the mma.sync template (bench/README.md,
# "int8 activations on wgmma").
I8_WGMMA_ABOVE = 32


def default_choice(m, n, k, wtype, group_size, offset, activation, zeros, gpu, cc):
    """The configuration quantized_matmul takes without `config` on GPU `gpu`
    (its name) of compute capability `cc`: QuantizedMatmulRunner.choice's,
    and what the C kernel tables (tilus.ops.export) hold. For FP8 x,
    fp8_config's (its zero points are codes; None on a GPU other than sm_90
    or where no block tiles the shape); else the shipped tuning table's;
    for int8 x above M = I8_WGMMA_ABOVE on sm_90, fp8_config's blocks for
    the int8 wgmma variant where one tiles the shape;
    else on sm_90 the wgmma variant's above M = 32 for f16 or bf16 x
    (wgmma_config), else choose_config's. zeros: False, True (values of x's
    type) or tilus.uint8 (codes), as the kernel takes them: codes take less
    shared memory, so the wgmma and FP8 choices can differ."""
    if activation == tilus.float8_e4m3:
        from .qmatmul_fp8 import fp8_config
        return (fp8_config(m, n, k, wtype, group_size, tilus.uint8 if zeros else False)
                if cc == (9, 0) else None)
    from .tune import shipped_table
    tuned = shipped_table().get(gpu, cc, m, n, k, wtype, group_size, offset, activation)
    if tuned and len(tuned) == 5:            # the table holds mma.sync configurations
        return tuned
    if activation == tilus.int8 and cc == (9, 0) and m > I8_WGMMA_ABOVE:
        from .qmatmul_fp8 import fp8_config       # the same blocks: one-byte A
        cfg = fp8_config(m, n, k, wtype, group_size, tilus.uint8 if zeros else False)
        if cfg:
            return cfg
    return ((cc == (9, 0) and wgmma_config(m, n, k, wtype, activation, group_size, zeros))
            or choose_config(m, n, k, wtype, activation))


def program(wtype, group_size, offset, cfg, activation=None, m_tiles=1, zeros=False,
            bias=False):
    """The template instance that runs configuration `cfg` for blocks of
    m_tiles row tiles (its n_tiles divided by m_tiles); TilusArgumentError
    when that block needs more shared memory than one block may have."""
    w, nt, s, sk, kpt = cfg
    t = template(wtype, activation, group_size=group_size, offset=offset, warps=w,
                 n_tiles=_with_row_tiles(cfg, m_tiles)[1], stages=s, split_k=sk,
                 k_tiles=kpt, m_tiles=m_tiles, zeros=zeros, bias=bias)
    if t.shared_bytes > MAX_BLOCK_SHARED:
        from ..artifact import TilusArgumentError
        raise TilusArgumentError(f"quantized_matmul: config {cfg} needs {t.shared_bytes} "
                                 f"bytes of shared memory with {m_tiles} row tiles, more "
                                 f"than {MAX_BLOCK_SHARED}")
    return t


def instance(wtype, group_size, offset, cfg, activation=None, m_tiles=1, zeros=False,
             bias=False):
    """The template instance that runs configuration `cfg` for x of type
    `activation` (the runner's kernels and the C tables' alike): for FP8 x
    the FP8 wgmma variant; for int8 x a 4-tuple the int8 wgmma variant; a
    3- or 4-tuple the (warp-specialized) wgmma variant for f16 or bf16 x;
    a 5-tuple the mma.sync template with m_tiles row tiles (program)."""
    if _activation(activation) == tilus.float8_e4m3:
        from .qmatmul_fp8 import fp8_program
        return fp8_program(wtype, group_size, offset, cfg, bias, zeros)
    if is_stream_k(cfg) and _activation(activation) not in (None, tilus.float16,
                                                            tilus.bfloat16):
        from ..artifact import TilusArgumentError
        raise TilusArgumentError(f"quantized_matmul: the stream-K config {cfg} takes f16 or "
                                 f"bf16 x")
    if len(cfg) == 4 and _activation(activation) == tilus.int8:
        from .qmatmul_i8_wgmma import i8_program
        return i8_program(wtype, group_size, offset, cfg, bias, zeros)
    if is_wgmma(cfg):
        from .qmatmul_wgmma import wgmma_program
        return wgmma_program(wtype, group_size, offset, cfg, activation, zeros, bias)
    return program(wtype, group_size, offset, cfg, activation, m_tiles, zeros, bias)


def is_stream_k(cfg):
    """Whether `cfg` is a stream-K configuration (warpgroups, block_m,
    stages, lag, "sk") of the warp-specialized wgmma variant."""
    return len(cfg) == 5 and cfg[4] == "sk"


def is_wgmma(cfg):
    """Whether `cfg` is one of the wgmma variants': (warpgroups, block_m,
    stages), (warpgroups, block_m, stages, lag) or its stream-K form; the
    other configurations are mma.sync's 5-tuples of integers."""
    return len(cfg) in (3, 4) or is_stream_k(cfg)


def block_of(cfg, m_tiles):
    """(rows, columns) of C a block of `instance(cfg, m_tiles)` computes:
    block_m x 64 per warpgroup for the wgmma variants, 16 per row tile x
    block_width for mma.sync."""
    if is_wgmma(cfg):
        return cfg[1], 64 * cfg[0]
    return 16 * m_tiles, block_width(_with_row_tiles(cfg, m_tiles))


def split_scratch(split_k, m, n, device="cuda"):
    """(partials, counters) for launching a split_k > 1 kernel on M = m, N =
    n directly (tuning, benchmarks): f32 [split_k * m * n] and zeroed i32
    counters enough for any block shape (one per 16 x 8 tile of C). The
    counters are zero again after each launch; reuse them on one stream."""
    import torch
    return (torch.empty(split_k * m * n, dtype=torch.float32, device=device),
            torch.zeros(-(-m // 16) * (n // TILE_N), dtype=torch.int32, device=device))


def _check(x, qweight, scales, wtype, group_size, zeros=None, bias=None, offset=0,
           x_scales=None):
    """quantized_matmul's operands checked (TilusArgumentError); (M, N, K,
    the kernel's kind of zero points: False, True for values, tilus.uint8
    for codes)."""
    import torch
    from ..artifact import TilusArgumentError
    fp8 = getattr(torch, "float8_e4m3fn", None)
    if x.dim() != 2 or x.dtype not in (torch.float16, torch.bfloat16, torch.int8, fp8):
        raise TilusArgumentError(f"quantized_matmul: x must be a 2-D float16, bfloat16, "
                                 f"int8 or float8_e4m3fn tensor, not {x.dtype} of shape "
                                 f"{tuple(x.shape)}")
    m, k = x.shape
    # The type of the scales, zeros, bias and result: x's, f16 for int8 or FP8 x.
    scaled = x.dtype in (torch.int8, fp8)
    vtype = torch.float16 if scaled else x.dtype
    name = str(x.dtype).replace("torch.", "")
    if scaled and (x_scales is None or x_scales.dtype != torch.float32
                   or tuple(x_scales.shape) != (m,)):
        raise TilusArgumentError(
            f"quantized_matmul: {name} x needs x_scales, float32 [M] = [{m}] (one scale "
            f"per row), not " + ("None" if x_scales is None else
                                 f"{x_scales.dtype} {tuple(x_scales.shape)}"))
    if not scaled and x_scales is not None:
        raise TilusArgumentError(f"quantized_matmul: x_scales is for int8 or float8_e4m3fn "
                                 f"x only, x is {x.dtype}")
    if scaled and group_size % TILE_K:
        raise TilusArgumentError(f"quantized_matmul: {name} x needs group_size a multiple "
                                 f"of {TILE_K} (or K), not {group_size}")
    # The kernel's zero points (as zeros_fit and the templates take them):
    # values of x's dtype, or uint8 codes.
    zkind = False if zeros is None else tilus.uint8 if zeros.dtype == torch.uint8 else True
    if x.dtype == fp8:
        if not fp8_fits(wtype, offset):
            raise TilusArgumentError(f"quantized_matmul: float8_e4m3fn x needs weights of at "
                                     f"most 4 bits: int2-int4 with offset 0, uint1-uint4 with "
                                     f"offset 0, uint2-uint4 with the symmetric offset "
                                     f"2^(b-1); not {wtype} with offset {offset}")
        if zeros is not None and not zeros_fit(wtype, tilus.float8_e4m3, zkind):
            raise TilusArgumentError(f"quantized_matmul: float8_e4m3fn x takes zero points as "
                                     f"uint8 codes of unsigned weights (code - zero must lie "
                                     f"in -16..15), not {zeros.dtype} zeros of {wtype}")
    if x.dtype == torch.int8:
        if not isinstance(wtype, tilus.IntDType):
            raise TilusArgumentError(f"quantized_matmul: int8 x needs integer weights, not "
                                     f"{wtype}")
        if not int8_fits(wtype, offset):
            raise TilusArgumentError(f"quantized_matmul: int8 x needs integer weights whose "
                                     f"values (code - offset) are int8; {wtype} with offset "
                                     f"{offset} has values outside -128..127")
        if zeros is not None and not zeros_fit(wtype, tilus.int8, zkind):
            raise TilusArgumentError(f"quantized_matmul: int8 x takes zero points as uint8 "
                                     f"codes of unsigned weights of at most 7 bits (code - "
                                     f"zero must be an int8 value), not {zeros.dtype} zeros "
                                     f"of {wtype}")
    if scales.dim() != 2 or scales.dtype != vtype:
        raise TilusArgumentError(f"quantized_matmul: scales must be a 2-D {vtype} tensor "
                                 f"[K / group_size, N], not {scales.dtype} of "
                                 f"shape {tuple(scales.shape)}")
    n = scales.shape[1]
    if k % TILE_K or n % TILE_N:
        raise TilusArgumentError(f"quantized_matmul: K = {k} must be a multiple of {TILE_K} "
                                 f"and N = {n} of {TILE_N}")
    if not group_size_ok(group_size) or k % group_size:
        raise TilusArgumentError(f"quantized_matmul: group_size {group_size} must be 32, 64 or "
                                 f"a multiple of {TILE_K}, dividing K = {k} (use K for "
                                 f"per-channel scales)")
    if tuple(scales.shape) != (k // group_size, n):
        raise TilusArgumentError(f"quantized_matmul: scales has shape {tuple(scales.shape)}, "
                                 f"expected [K / group_size, N] = [{k // group_size}, {n}]")
    want = k * n * wtype.bits // 8
    if qweight.dtype != torch.uint8 or qweight.numel() != want:
        raise TilusArgumentError(f"quantized_matmul: qweight must hold the {want} packed bytes "
                                 f"of a [{k}, {n}] {wtype} matrix (tilus.ops.pack), not "
                                 f"{qweight.numel()} {qweight.dtype}")
    if zeros is not None:
        if zeros.dtype not in (vtype, torch.uint8) or tuple(zeros.shape) != tuple(scales.shape):
            raise TilusArgumentError(f"quantized_matmul: zeros must be [K / group_size, N] = "
                                     f"{list(scales.shape)} of {x.dtype} (values) or uint8 "
                                     f"(integer codes), not {zeros.dtype} {tuple(zeros.shape)}")
        if offset:
            raise TilusArgumentError(f"quantized_matmul: zeros replace the offset; offset "
                                     f"{offset} given with zeros")
    if bias is not None and (bias.dtype != vtype or tuple(bias.shape) != (n,)):
        raise TilusArgumentError(f"quantized_matmul: bias must be [N] = [{n}] of {vtype}, "
                                 f"not {bias.dtype} {tuple(bias.shape)}")
    for name, t in (("qweight", qweight), ("scales", scales), ("zeros", zeros), ("bias", bias),
                    ("x_scales", x_scales)):
        if t is not None and t.device != x.device:
            raise TilusArgumentError(f"quantized_matmul: {name} is on {t.device}, x on "
                                     f"{x.device}")
    return m, n, k, zkind


class QuantizedMatmulRunner:
    """Compiles (once per configuration, through tilus.compile's cache) and
    launches the template on one runtime."""

    # Zeroed split-K counters set aside, outside any capture, for the calls
    # captured into CUDA graphs (each takes its own slice, never reused): a
    # reserve of this many, replaced by a fresh one at an eager call once
    # half of it is taken.
    CAPTURE_COUNTERS = 1 << 16

    def __init__(self, runtime):
        import threading
        self.runtime = runtime
        self._kernels = {}
        self._scratch = {}         # (device, stream) -> (partials, counters), eager calls
        # device -> [zeroed counters, next free index, earlier reserves (kept
        # alive: graphs captured from them point into them)]
        self._reserve = {}
        self._reserve_lock = threading.Lock()
        self._plans = {}           # call shape and operands -> (config, kernel, scratch)
        self._sms = {}             # device -> its SM count
        # Zero-code tensors of int8 or FP8 x found within their limit:
        # (pointer, version, size, limit).
        self._zeros_ok = set()

    # Zero-code tensors remembered as checked; past it the set starts over
    # (they are checked again, nothing fails).
    ZEROS_CHECKED = 4096

    def _check_zero_codes(self, zeros, limit, why):
        """int8 and FP8 x subtract zero codes from the codes in the cast,
        which holds only zeros up to `limit`; a larger one would give wrong
        sums. Checked once per tensor and version (torch bumps it on
        in-place writes) on an eager call: the check reads the maximum back
        to the host, which a CUDA-graph capture does not allow, so a capture
        relies on an eager call before it."""
        import torch
        from ..artifact import TilusArgumentError
        key = (zeros.data_ptr(), zeros._version, zeros.numel(), limit)
        if key in self._zeros_ok or torch.cuda.is_current_stream_capturing():
            return
        top = int(zeros.max())
        if top > limit:
            raise TilusArgumentError(f"quantized_matmul: {why} takes zero codes of at most "
                                     f"{limit}; zeros hold {top}")
        if len(self._zeros_ok) >= self.ZEROS_CHECKED:
            self._zeros_ok.clear()
        self._zeros_ok.add(key)

    def scratch(self, x, partials, counters):
        """Split-K's (partials, counters) on x's device and current stream:
        at least `partials` f32 and `counters` i32 elements, the counters
        zero (every launch leaves them zero again).

        Eager calls share one pair per stream (launches on a stream run in
        order), grown by replacing it. A call being captured into a CUDA
        graph gets a pair of its own, which no other call or graph touches,
        so graphs may replay on any stream at once: partials from the
        graph's memory (not kept: the graph keeps the memory, and whatever
        reuses it inside the graph runs after this call's kernel), counters
        from a slice of a zeroed reserve set aside by an earlier eager call
        and kept by the runner (or, without one or once it is used up,
        zeroed inside the graph before the kernel). An eager call that finds
        less than half of the reserve left sets aside a fresh one, so that
        a serving stack capturing graph after graph, with eager warm-up calls
        between, does not fall back to zeroing inside its graphs."""
        import torch
        device = x.device
        with torch.cuda.device(device):
            capturing = torch.cuda.is_current_stream_capturing()
            stream = torch.cuda.current_stream(device)
        if capturing:
            p = torch.empty(partials, dtype=torch.float32, device=device)
            with self._reserve_lock:
                reserve = self._reserve.get(device)
                if reserve is not None and reserve[1] + counters <= reserve[0].numel():
                    c = reserve[0][reserve[1]:reserve[1] + counters]
                    reserve[1] += counters
                else:
                    c = None
            if c is None:
                c = torch.zeros(counters, dtype=torch.int32, device=device)
            return p, c
        half = self.CAPTURE_COUNTERS // 2
        have = self._reserve.get(device)
        if have is None or have[0].numel() - have[1] < half:
            reserve = torch.zeros(self.CAPTURE_COUNTERS, dtype=torch.int32, device=device)
            # Zero before any graph may replay, on whichever stream.
            torch.cuda.synchronize(device)
            with self._reserve_lock:
                have = self._reserve.get(device)
                if have is None or have[0].numel() - have[1] < half:
                    self._reserve[device] = [reserve, 0,
                                             have[2] + [have[0]] if have else []]
        key = (device, stream.cuda_stream)
        have = self._scratch.get(key)
        if have is None or have[0].numel() < partials or have[1].numel() < counters:
            grow = (max(partials, have[0].numel() if have else 0),
                    max(counters, have[1].numel() if have else 0))
            have = (torch.empty(grow[0], dtype=torch.float32, device=device),
                    torch.zeros(grow[1], dtype=torch.int32, device=device))
            self._scratch[key] = have
        return have

    def sms(self, device):
        """The number of SMs of `device` (a stream-K grid's blocks)."""
        count = self._sms.get(device)
        if count is None:
            import torch
            count = self._sms[device] = torch.cuda.get_device_properties(
                device).multi_processor_count
        return count

    def tuned(self, m, n, k, wtype, group_size, offset, activation=None):
        """The shipped table's configuration for this GPU and shape, or None."""
        from .tune import shipped_table
        rt = self.runtime
        return shipped_table().get(rt.device_name, rt.compute_capability, m, n, k, wtype,
                                   group_size, offset, activation)

    def load(self, key, make, name):
        """The loaded kernel `name` of the DSL program `make()` for this
        runtime's device: made and compiled (through tilus.compile's cache)
        only the first time `key` is asked."""
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = self.runtime.kernel(
                make().compile(target=self.runtime.target), name)
        return kernel

    def kernel(self, wtype, group_size, offset, cfg, activation=None, m_tiles=1, zeros=False,
               bias=False):
        """The loaded kernel of configuration `cfg` (instance: any variant;
        an mma.sync one for blocks of m_tiles row tiles) with zero points and
        a bias where asked; TilusArgumentError (on first use, before
        compiling) when an mma.sync block needs more shared memory than one
        block may have."""
        mt = None if is_wgmma(cfg) else m_tiles          # only mma.sync has row tiles
        return self.load((str(wtype), group_size, offset, tuple(cfg), str(activation), mt,
                          str(zeros), bias),
                         lambda: instance(wtype, group_size, offset, cfg, activation, m_tiles,
                                          zeros, bias), "qmatmul")

    def _config(self, m, n, k, wtype, group_size, offset, activation, config, zeros=False):
        """The configuration of a call: `config` checked against the shape
        (a (warpgroups, block_m, stages) one takes the wgmma variant, a
        (warpgroups, block_m, stages, lag) one the warp-specialized, for
        int8 x the int8 wgmma variant; FP8 x: _fp8_config), else
        default_choice's. zeros: the kind of zero points."""
        from ..artifact import TilusArgumentError
        from .qmatmul_wgmma import wgmma_fits
        if activation == tilus.float8_e4m3:
            return self._fp8_config(m, n, k, wtype, group_size, config, zeros)
        mt = row_tiles(m)
        if config is not None and is_wgmma(config):
            if activation == tilus.int8 and len(config) != 4:
                kind = "stream-K" if is_stream_k(config) else "plain wgmma"
                raise TilusArgumentError(f"quantized_matmul: the {kind} config {config} "
                                         f"takes f16 or bf16 x (int8 x: a warp-specialized "
                                         f"(warpgroups, block_m, stages, lag))")
            if is_stream_k(config) and not (n and k):
                raise TilusArgumentError(f"quantized_matmul: the stream-K config {config} "
                                         f"needs N and K above 0 (N = {n}, K = {k})")
            if self.runtime.compute_capability != (9, 0):
                raise TilusArgumentError(f"quantized_matmul: the wgmma config {config} "
                                         f"needs an sm_90 GPU")
            if activation == tilus.int8:
                if not wgmma_fits(config, n, k, wtype, group_size, fp8=True,
                                  zeros=tilus.uint8 if zeros else False):
                    raise TilusArgumentError(
                        f"quantized_matmul: wgmma config {config} does not tile N = {n}, "
                        f"K = {k} within the registers and shared memory of a block for "
                        f"int8 x")
                return config
            if not wgmma_fits(config, n, k, wtype, group_size, zeros=zeros):
                raise TilusArgumentError(f"quantized_matmul: wgmma config {config} does "
                                         f"not tile N = {n}, K = {k} within the registers "
                                         f"and shared memory of a block")
            return config
        if config is not None:
            _, nt_, _, sk_, kpt_ = config
            eff = _with_row_tiles(config, mt)
            if not fits(eff, n, k):
                raise TilusArgumentError(f"quantized_matmul: config {config} does not divide "
                                         f"N = {n} by {block_width(eff)} columns (n_tiles "
                                         f"{nt_} // {mt} row tiles for M = {m}) or K = {k} "
                                         f"by {sk_ * kpt_} x {TILE_K}")
        if config is not None:
            return config
        rt = self.runtime
        return default_choice(m, n, k, wtype, group_size, offset, activation, zeros,
                              rt.device_name, rt.compute_capability)

    def _fp8_config(self, m, n, k, wtype, group_size, config, zeros=False):
        """FP8 activations: the warp-specialized wgmma variant only (sm_90),
        `config` (warpgroups, block_m, stages, lag) checked, else
        fp8_config's (zeros: with zero codes)."""
        from ..artifact import TilusArgumentError
        from .qmatmul_wgmma import wgmma_fits
        rt = self.runtime
        if rt.compute_capability != (9, 0):
            raise TilusArgumentError("quantized_matmul: float8_e4m3fn x needs an sm_90 GPU "
                                     "(wgmma)")
        zeros = tilus.uint8 if zeros else False      # the only zeros FP8 x takes
        if config is None:
            config = default_choice(m, n, k, wtype, group_size, 0, tilus.float8_e4m3, zeros,
                                    rt.device_name, rt.compute_capability)
            if config is None:
                raise TilusArgumentError(f"quantized_matmul: no FP8 configuration tiles "
                                         f"N = {n} (a multiple of 64) and K = {k}")
        elif len(config) != 4 or not wgmma_fits(config, n, k, wtype, group_size, fp8=True,
                                                 zeros=zeros):
            raise TilusArgumentError(f"quantized_matmul: config {config} is not an FP8 "
                                     f"(warpgroups, block_m, stages, lag) that tiles N = {n}, "
                                     f"K = {k} within a block's registers and shared memory")
        return config

    def choice(self, m, n, k, wtype, group_size, offset, activation=None, zeros=False):
        """The configuration a call of this shape takes without `config`
        (with zero points if `zeros`): default_choice's on this GPU (the
        tuned table's, the wgmma variants' on sm_90 above M = 32 for f16,
        bf16 and int8 x, fp8_config's for FP8 x, else choose_config's)."""
        return self._config(m, n, k, wtype, group_size, offset, _activation(activation),
                            None, zeros)

    def _plan(self, m, n, k, wtype, group_size, offset, activation, zeros, bias, config,
              device):
        """(configuration, loaded kernel, scratch) for a call: scratch is
        None, or (partial f32 elements, counters, the arguments after k) for
        split-K and stream-K kernels."""
        cfg = self._config(m, n, k, wtype, group_size, offset, activation, config, zeros)
        mt = row_tiles(m)
        kern = self.kernel(wtype, group_size, offset, cfg, activation, mt, zeros, bias)
        if is_stream_k(cfg):
            from .qmatmul_wgmma import stream_k_plan
            blocks, share, tiles = stream_k_plan(m, n, k, cfg, self.sms(device))
            return cfg, kern, (share * m * n, tiles, (blocks,))
        if len(cfg) == 5 and cfg[3] > 1:
            bm, bn = block_of(cfg, mt)
            return cfg, kern, (cfg[3] * m * n, -(-m // bm) * (n // bn), ())
        return cfg, kern, None

    def __call__(self, x, qweight, scales, zeros=None, bias=None, *, wtype, group_size=128,
                 offset=0, out=None, config=None, x_scales=None):
        import torch
        from ..artifact import TilusArgumentError
        m, n, k, zkind = _check(x, qweight, scales, wtype, group_size, zeros, bias, offset,
                                x_scales)
        activation = {torch.bfloat16: tilus.bfloat16, torch.int8: tilus.int8,
                      getattr(torch, "float8_e4m3fn", None): tilus.float8_e4m3}.get(
            x.dtype, tilus.float16)
        otype = scales.dtype                     # x's, or f16 for int8 or FP8 x
        if out is not None and (tuple(out.shape) != (m, n) or out.dtype != otype
                                or out.device != x.device or not out.is_contiguous()):
            raise TilusArgumentError(f"quantized_matmul: out must be a contiguous {otype} "
                                     f"tensor [{m}, {n}] on {x.device}, not {out.dtype} "
                                     f"{tuple(out.shape)} on {out.device}")
        if config is not None:
            config = tuple(v if v == "sk" else int(v) for v in config)
        if m == 0:           # nothing to launch; a configuration is still checked
            self._config(m, n, k, wtype, group_size, offset, activation, config,
                         zeros is not None)
            return out if out is not None else torch.empty(0, n, dtype=otype, device=x.device)
        if zeros is not None and activation == tilus.int8:
            self._check_zero_codes(zeros, 128, "int8 x (code - zero must be an int8 value)")
        elif zeros is not None and activation == tilus.float8_e4m3:
            self._check_zero_codes(zeros, 16, "float8_e4m3fn x (code - zero must lie in "
                                              "-16..15, an E4M3 byte's sign and magnitude)")
        # The configuration and loaded kernel of this call's shape and
        # operands, found once (the table, the checks, compiling).
        plan_key = (m, n, k, wtype, group_size, offset, activation, zkind,
                    bias is not None, config)
        plan = self._plans.get(plan_key)
        if plan is None:
            plan = self._plans[plan_key] = self._plan(m, n, k, wtype, group_size, offset,
                                                      activation, zkind, bias is not None,
                                                      config, x.device)
        cfg, kern, scratch = plan
        if out is None:
            out = torch.empty(m, n, dtype=otype, device=x.device)
        args = [x] + ([x_scales] if x_scales is not None else []) + [qweight, scales]
        if zeros is not None:
            args.append(zeros)
        if bias is not None:
            args.append(bias)
        args.append(out)
        if scratch is None:
            kern(*args, m, n, k)
        else:
            kern(*args, *self.scratch(x, scratch[0], scratch[1]), m, n, k, *scratch[2])
        return out


def quantized_matmul(x, qweight, scales, zeros=None, bias=None, *, wtype, group_size=128,
                     offset=0, out=None, config=None, runtime=None, x_scales=None):
    """x [M, K] f16 or bf16 (CUDA) times the weights ((code - offset - zero)
    * scale, codes packed by tilus.ops.pack from [K, N]), plus bias -> [M, N]
    of x's dtype. `scales` is [K / group_size, N] of x's dtype (f16 for int8
    and FP8 x); group_size 32, 64 or a multiple of 128, dividing K (K: per
    channel). `zeros` (optional, GPTQ/AWQ style) is [K / group_size, N]:
    values of x's dtype, or uint8 integer codes (cast in the kernel); the
    offset is then 0. `bias` (optional) is [N] of x's dtype.

    With int8 x (quantize_activations), x_scales f32 [M] gives row m's
    scale: the result is x_scales[m] * (x x weights) (+ bias), f16, with f16
    scales and bias; integer weights whose values fit int8, packed in the
    int8 format (pack(..., activation=tilus.int8): the bytes of the f16
    format give wrong results, and their size cannot tell), groups of a
    multiple of 128 rows, zeros only as uint8 codes of unsigned weights of
    at most 7 bits, each at most 128 (s8 mma.sync, exact i32 sums per k
    tile). With float8_e4m3fn x and x_scales likewise (sm_90): integer
    weights of at most 4 bits (fp8_fits) in the FP8 format (pack(...,
    activation=tilus.float8_e4m3)), groups of a multiple of 128 rows, zeros
    only as uint8 codes of at most 16 of unsigned weights (qmatmul_fp8; its
    configuration (warpgroups, block_m, stages, lag) from fp8_config). The
    zero codes' limits are checked once per tensor and version, on eager
    calls.

    `config` overrides the choice (QuantizedMatmulRunner.choice): the
    shipped tuning table (tilus.ops.tune) for this GPU and shape, the
    warp-specialized wgmma variant's (warpgroups, block_m, stages, lag) on
    an H100 above M = 32 for f16 or bf16 x (wgmma_config; the same with
    "sk" appended runs it on a stream-K grid; a 3-tuple (warpgroups,
    block_m, stages) asks for the plain wgmma variant), else
    choose_config's (warps, n_tiles, stages, split_k, k_tiles).
    Compiles in-process on first use (needs libTilus.so); `runtime` defaults
    to a tilus.Runtime on x's device, created once and kept by the runner."""
    if runtime is None:
        runtime = _default_runner(x.device.index or 0)
    elif not isinstance(runtime, QuantizedMatmulRunner):
        runtime = QuantizedMatmulRunner(runtime)
    return runtime(x, qweight, scales, zeros, bias, wtype=wtype, group_size=group_size,
                   offset=offset, out=out, config=config, x_scales=x_scales)


def quantize_activations(x):
    """Per-row symmetric int8 quantization of a 2-D float tensor x: (q int8,
    scales f32 [M]) with q = round(x / scale) and scale = max |x| / 127 per
    row (1 for a row of zeros), so that x ~ q * scale[:, None]."""
    import torch
    xf = x.float()
    amax = xf.abs().amax(dim=1)
    scale = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    q = torch.clamp(torch.round(xf / scale[:, None]), -127, 127).to(torch.int8)
    return q, scale


_runners = {}


def _default_runner(device):
    # One runner (runtime and loaded kernels) per device for the process, as
    # torch keeps one context per device.
    if device not in _runners:
        _runners[device] = QuantizedMatmulRunner(tilus.Runtime(device))
    return _runners[device]


def _stored_scales(scales, amax, top, round_scales):
    """The scales as `round_scales` stores them, each at least amax / top (a
    scale rounded down would push its group's largest weight past the format)
    and positive (a group of tiny weights takes the smallest stored value)."""
    import numpy as np
    r = np.asarray(round_scales(scales), dtype=np.float64)
    smallest = np.asarray(round_scales(np.array([2.0 ** -149, 2.0 ** -133, 2.0 ** -24])),
                          dtype=np.float64)
    smallest = smallest[smallest > 0]
    if smallest.size == 0:
        raise ValueError("quantize: round_scales maps every small scale to 0")
    r[r == 0] = smallest.min()
    for _ in range(256):
        if not np.all(np.isfinite(r)):
            raise ValueError("quantize: a group's scale does not fit the stored scale type "
                             "(its largest weight is too large)")
        low = amax / r > top
        if not np.any(low):
            return r
        # Up by at least one unit of the stored type: 1/64 is more than the
        # relative spacing of normal f16 and bf16 values; subnormals double.
        up = np.asarray(round_scales(r[low] * (1 + 2.0 ** -6)), dtype=np.float64)
        stuck = up <= r[low]
        up[stuck] = np.asarray(round_scales(r[low][stuck] * 2), dtype=np.float64)
        r[low] = up
    raise ValueError("quantize: could not round the scales to the stored type")


def quantize(weight, wtype, group_size=128, round_scales=None):
    """Round-to-nearest quantization of a float weight [N, K] (nn.Linear's
    layout) for tests and demos: (codes [K, N] int64 numpy, scales
    [K / group_size, N] float32 numpy, offset). Integers are symmetric
    (unsigned ones with the offset 2^(b-1)); floats scale the group's
    largest magnitude to the format's largest value. `round_scales` maps the
    scales to the values they will be stored as (e.g. f16), so that the codes
    are rounded against those."""
    import numpy as np
    w = np.asarray(weight, dtype=np.float64).T                     # [K, N]
    k, n = w.shape
    g = w.reshape(k // group_size, group_size, n)
    amax = np.abs(g).max(axis=1)
    amax[amax == 0] = 1.0
    top = wtype.max if isinstance(wtype, tilus.FloatDType) else (1 << (wtype.bits - 1)) - 1
    scales = amax / top
    if round_scales is not None:
        scales = _stored_scales(scales, amax, top, round_scales)
    scaled = g / scales[:, None, :]
    if isinstance(wtype, tilus.FloatDType):
        codes = np.asarray(wtype.encode(np.clip(scaled, -top, top).reshape(k, n)))
        return codes.reshape(k, n), scales.astype(np.float32), 0
    q = np.clip(np.rint(scaled), -top - 1, top).reshape(k, n).astype(np.int64)
    offset = 0 if wtype.signed else 1 << (wtype.bits - 1)
    return q + offset, scales.astype(np.float32), offset


def quantize_asymmetric(weight, wtype, group_size=128, round_scales=None):
    """Round-to-nearest quantization with zero points (GPTQ/AWQ style) of a
    float weight [N, K] to an unsigned integer type: (codes [K, N] int64,
    scales [K / group_size, N] float32, zeros [K / group_size, N] int64), the
    weights being (code - zero) * scale; each group's range [min, max] maps
    onto the type's codes. `round_scales` as in quantize()."""
    import numpy as np
    if not isinstance(wtype, tilus.IntDType) or wtype.signed:
        raise ValueError(f"quantize_asymmetric: an unsigned integer type, not {wtype}")
    w = np.asarray(weight, dtype=np.float64).T                     # [K, N]
    k, n = w.shape
    g = w.reshape(k // group_size, group_size, n)
    # The range holds 0, so that the zero is a code (GPTQ's convention).
    lo, hi = np.minimum(g.min(axis=1), 0), np.maximum(g.max(axis=1), 0)
    span = hi - lo
    span[span == 0] = 1.0
    top = (1 << wtype.bits) - 1
    scales = span / top
    if round_scales is not None:
        scales = _stored_scales(scales, span, top, round_scales)
    zeros = np.clip(np.rint(-lo / scales), 0, top)
    q = np.clip(np.rint(g / scales[:, None, :]) + zeros[:, None, :], 0, top)
    return (q.reshape(k, n).astype(np.int64), scales.astype(np.float32),
            zeros.astype(np.int64))


_torch_ops = None


def _register_torch_ops():
    """The torch custom operators (registered on first use; the torch
    registry is process-wide, so once): (quantized_matmul, the int8 one)."""
    global _torch_ops
    if _torch_ops is None:
        import torch

        @torch.library.custom_op("tilus::quantized_matmul", mutates_args=(),
                                 device_types="cuda")
        def op(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor,
               zeros: Optional[torch.Tensor], bias: Optional[torch.Tensor], wtype: str,
               group_size: int, offset: int) -> torch.Tensor:
            return quantized_matmul(x, qweight, scales, zeros, bias, wtype=tilus.dtype(wtype),
                                    group_size=group_size, offset=offset)

        @op.register_fake
        def _(x, qweight, scales, zeros, bias, wtype, group_size, offset):
            return x.new_empty(x.shape[0], scales.shape[1])

        @torch.library.custom_op("tilus::quantized_matmul_int8", mutates_args=(),
                                 device_types="cuda")
        def op8(x: torch.Tensor, x_scales: torch.Tensor, qweight: torch.Tensor,
                scales: torch.Tensor, bias: Optional[torch.Tensor], wtype: str,
                group_size: int, offset: int,
                zeros: Optional[torch.Tensor] = None) -> torch.Tensor:
            return quantized_matmul(x, qweight, scales, zeros, bias, wtype=tilus.dtype(wtype),
                                    group_size=group_size, offset=offset, x_scales=x_scales)

        @op8.register_fake
        def _(x, x_scales, qweight, scales, bias, wtype, group_size, offset, zeros=None):
            return scales.new_empty(x.shape[0], scales.shape[1])

        _torch_ops = (op, op8)
    return _torch_ops


def torch_op():
    """quantized_matmul as the torch custom operator tilus::quantized_matmul,
    so that models calling it trace through torch.compile: (x, qweight,
    scales, zeros, bias, wtype name, group_size, offset) -> [M, N] of x's
    dtype (zeros and bias may be None)."""
    return _register_torch_ops()[0]


def torch_op_int8():
    """quantized_matmul with int8 (or float8_e4m3fn) x and its row scales as
    the torch custom operator tilus::quantized_matmul_int8: (x, x_scales,
    qweight, scales, bias, wtype name, group_size, offset, zeros=None) ->
    [M, N] f16 (bias and zeros may be None; zeros: uint8 codes);
    qweight in the int8 format (pack(..., activation=tilus.int8)), or the
    FP8 one for FP8 x."""
    return _register_torch_ops()[1]
