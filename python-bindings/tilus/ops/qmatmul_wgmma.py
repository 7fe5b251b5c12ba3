"""The quantized matmul on wgmma (sm_90a; docs/hopper.md, docs/quantized-matmul.md):
the same product and weight format as QuantizedMatmul, computed transposed,
C^T = dequant(W)^T x A^T, so that the weights, dequantized in registers, are
wgmma's register operand and the activations its shared one.

Each warp owns two 8-column n-tiles of the packed format, 16 consecutive
columns of W: the rows of W^T that warp w of a warpgroup holds in wgmma's
register operand, whose fragments are the mma.sync B fragments of the two
tiles side by side (a relabelling, no data movement). A block of
`warpgroups` warpgroups computes C's tile of block_m rows (wgmma's N, up to
256) and 64 * warpgroups columns; A's rows go through a cp.async pipeline
into the shared layout wgmma reads ([block_m, 128] per k tile, read as
[128, block_m] through transpose_shared). Each k tile's weights are scaled by
their group's scales before the product (f16), so the accumulator runs
through the whole K range. Per k tile kb: wait for tile kb and synchronize
(every warpgroup has finished the product of tile kb - 1), refill that
stage with tile kb + stages - 1, load and dequantize the weights, start the
product and wait for it at once (docs/hopper.md says why).

Limits of this first version: f16 or bf16 activations, no zero points, no
bias, no split-K; M rows are zero-filled past the edge.
"""

import tilus

from .qmatmul import TILE_K, TILE_N, QuantizedMatmul, QuantizedMatmulBF16, check_group_size


class _Wgmma:
    """The wgmma variant's layouts and trace, mixed into the f16 and bf16
    templates (their weight format and dequantization are shared)."""

    def __init__(self, wtype, group_size=128, offset=0, warpgroups=1, block_m=128,
                 stages=4):
        check_group_size(group_size)
        if block_m % 8 or not 8 <= block_m <= 256:
            raise ValueError("block_m is wgmma's N: a multiple of 8 from 8 to 256")
        if stages < 2:
            raise ValueError("the loop reads one stage while the next fills: stages >= 2")
        super().__init__(wtype, group_size=group_size, offset=offset, warps=4 * warpgroups,
                         n_tiles=2, stages=stages)
        self.bm = block_m
        W = self.warps
        # Every group size is scaled before the product: R = self.rows groups
        # per k tile (one for G >= 128), the weights regrouped as reg_wg.
        self.shared_x = tilus.mma_shared(block_m, TILE_K, self.atype.bits, stages=stages)
        # The accumulator C^T [bn, block_m]: warp w's 16 rows of each
        # warpgroup's 64, in 16 x 8 tiles across block_m.
        self.reg_d = (f"spatial({W},1).local(1,{block_m // 8}).local(2,1).spatial(8,4)"
                      f".local(1,2)")

    @property
    def shared_bytes(self):
        return self.stages * (self.bm * TILE_K * self.atype.bits // 8
                              + self.warps * self.nt * self.tile_bytes
                              + self.rows * self.bn * 2)

    def parameters(self):
        p = tilus.pointer(self.atype)
        return [("a", p), ("w", tilus.pointer(tilus.uint8)), ("scales", p), ("c", p),
                ("m", tilus.int32), ("n", tilus.int32), ("k", tilus.int32)]

    def _trace(self, a, w, scales, c, m, n, k):
        S, W, bn, bm, tb, R, G = (self.stages, self.warps, self.bn, self.bm,
                                  self.tile_bytes, self.rows, self.group)
        f16, f32 = self.atype, tilus.float32
        self.attrs.name = "qmatmul"
        self.attrs.blocks = [tilus.cdiv(m, bm), n // bn]
        self.attrs.warps = W
        M = self.index(m)
        KT, NT = self.index(k) // TILE_K, self.index(n) // TILE_N
        K, N = KT * TILE_K, NT * TILE_N
        bi, bj = self.block_indices()
        om, on = bi * bm, bj * bn
        gA = self.view_global(a, [M, K])
        gW = self.view_global(w, [KT, NT * tb])
        gS = self.view_global(scales, [K // G, 1, N])
        gC = self.view_global(c, [M, N])
        sX = self.allocate_shared(f16, [S, bm, TILE_K], self.shared_x)
        sXT = self.transpose_shared(sX)
        sW = self.allocate_shared(tilus.uint8, [S, 1, W * 2 * tb], f"local({S},1,{W * 2 * tb})")
        sS = self.allocate_shared(f16, [S, R, 1, bn], f"local({S},{R},1,{bn})")
        acc = self.allocate_register(f32, [bn, bm], self.reg_d, init=0.0)
        ow = bj * (W * 2 * tb)
        reg_raw = self.reg_raw
        reg_wt = str(tilus.Layout.parse(self.reg_w).transpose())

        def fill(stage, tile):
            self.copy_async(sX, gA, [stage, 0, 0], [om, tile * TILE_K], [bm, TILE_K])
            self.copy_async(sW, gW, [stage, 0, 0], [tile, ow], [1, W * 2 * tb])
            row = tile * R if R > 1 else tile * TILE_K // G
            self.copy_async(sS, gS, [stage, 0, 0, 0], [row, 0, on], [R, 1, bn])
            self.copy_async_commit_group()

        def weights(stage):
            """The k tile's weights in `stage`, scaled, as wgmma's a [bn, 128]."""
            raw = self.load_shared(sW, [stage, 0, 0], [1, W * 2 * tb], reg_raw)
            wg = self.reshape(self._weights(raw), [R, TILE_K // R, bn], self.reg_wg)
            wg = wg * self.load_shared(sS, [stage, 0, 0, 0], [R, 1, bn], self.reg_g)
            wf = self.reshape(wg, [TILE_K, bn], self.reg_w)
            return self.permute(wf, [1, 0], reg_wt)        # a relabelling

        for s in self.range(S - 1):
            fill(s, s)
        for kb in self.range(KT):
            # Tile kb has landed; after the barrier every warpgroup has
            # finished the product of tile kb - 1 (it waits for each product
            # at once), whose stage is refilled.
            self.copy_async_wait_group(S - 2)
            self.synchronize()
            ahead = kb + (S - 1)
            fill(ahead % S, ahead)       # past K: zero-filled, never used
            wt = weights(kb % S)
            acc.assign(self.wgmma_mma(wt, sXT[kb % S, 0:TILE_K, 0:bm], acc))
            self.wgmma_commit_group()
            # Nothing between the product and its wait: an instruction there
            # could take the registers of wt, which the product still reads
            # (ptxas would serialize). Other warpgroups overlap meanwhile.
            self.wgmma_wait_group(0)
        self.copy_async_wait_group(0)
        done = self.wgmma_wait_group(0, acc)
        ct = self.permute(done, [1, 0], str(tilus.Layout.parse(self.reg_d).transpose()))
        self.store_global(ct.to(f16), gC, [om, on])


class QuantizedMatmulWgmma(_Wgmma, QuantizedMatmul):
    """f16 activations."""


class QuantizedMatmulWgmmaBF16(_Wgmma, QuantizedMatmulBF16):
    """bf16 activations."""


def wgmma_program(wtype, group_size, offset, cfg, activation=None):
    """The wgmma template instance of configuration (warpgroups, block_m,
    stages) for f16 (None) or bf16 activations."""
    g, bm, st = cfg
    cls = QuantizedMatmulWgmmaBF16 if activation == tilus.bfloat16 else QuantizedMatmulWgmma
    return cls(wtype, group_size=group_size, offset=offset, warpgroups=g, block_m=bm,
               stages=st)


# The largest block_m per number of warpgroups whose registers fit (ptxas,
# sm_90a): block_m / 2 accumulator registers per thread beside the
# weights' 32 and the addresses, within 65536 / (128 * warpgroups) registers
# (at most 255): 4 warpgroups leave 128 per thread, 8 only 64 (spills); one
# warpgroup at 256 rows spilled too.
_MAX_BLOCK_M = {1: 192, 2: 256, 4: 128}


def wgmma_fits(cfg, n, k, wtype, group_size=128):
    """Whether (warpgroups, block_m, stages) tiles N (64 * warpgroups
    columns per block) and K (tiles of 128) within a block's registers
    (_MAX_BLOCK_M) and shared memory (f16 or bf16 activations alike; the
    shared_bytes of the instance)."""
    from .qmatmul import MAX_BLOCK_SHARED
    g, bm, st = cfg
    if bm % 8 or not 8 <= bm <= _MAX_BLOCK_M.get(g, 0) or st < 2:
        return False
    rows = max(1, TILE_K // group_size)
    shared = st * (bm * TILE_K * 2 + 4 * g * 2 * TILE_K * TILE_N * wtype.bits // 8
                   + rows * 64 * g * 2)
    return n % (64 * g) == 0 and k % TILE_K == 0 and shared <= MAX_BLOCK_SHARED
