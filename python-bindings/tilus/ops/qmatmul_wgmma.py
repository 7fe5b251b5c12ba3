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
[128, block_m] through transpose_shared). Each k tile's weights, less their
group's zero points where the kernel takes them, are scaled by their group's
scales before the product (f16), so the accumulator runs through the whole K
range; a bias joins the f32 accumulator before C is stored. Per k tile kb: wait for tile kb and synchronize
(every warpgroup has finished the product of tile kb - 1), refill that
stage with tile kb + stages - 1, load and dequantize the weights, start the
product and wait for it at once (docs/hopper.md says why).

Limits: f16 or bf16 activations, no split-K (the stream-K grid,
_WgmmaStreamK, shares k tiles between blocks instead); M rows are
zero-filled past the edge.
"""

from types import SimpleNamespace

import tilus

from .qmatmul import (TILE_K, TILE_N, QuantizedMatmul, QuantizedMatmulBF16, check_group_size,
                      is_stream_k)


class _Wgmma:
    """The wgmma variant's layouts and trace, mixed into the f16 and bf16
    templates (their weight format and dequantization are shared)."""

    def __init__(self, wtype, group_size=128, offset=0, warpgroups=1, block_m=128,
                 stages=4, zeros=False, bias=False):
        check_group_size(group_size)
        if block_m % 8 or not 8 <= block_m <= 256:
            raise ValueError("block_m is wgmma's N: a multiple of 8 from 8 to 256")
        if stages < 2:
            raise ValueError("the loop reads one stage while the next fills: stages >= 2")
        super().__init__(wtype, group_size=group_size, offset=offset, warps=4 * warpgroups,
                         n_tiles=2, stages=stages, zeros=zeros, bias=bias)
        self.bm = block_m
        # Every group size is scaled before the product: R = self.rows groups
        # per k tile (one for G >= 128), the weights regrouped as reg_wg.
        self.shared_x = tilus.mma_shared(block_m, TILE_K, self.a_dtype.bits, stages=stages)
        self.reg_d = self._accumulator(block_m)
        # One value per row of C^T [bn, cols] (per column of C: a bias, a
        # group's scales) as the accumulator holds it, its column factors
        # dropped; and as the row [1, bn] it loads as.
        W = self.warps
        self.reg_row = f"spatial({W},1).local(2,1).reduce(spatial(8,4,1),dims=[1])"
        self.reg_row_t = f"spatial(1,{W}).local(1,2).reduce(spatial(1,8,4),dims=[2])"

    @property
    def reg_wt(self):
        """The weights [bn, 128] as wgmma's register operand: reg_w
        transposed (a relabelling of the same registers)."""
        return str(tilus.Layout.parse(self.reg_w).transpose())

    @property
    def reg_ct(self):
        """C's tile [bm, bn]: the accumulator's layout transposed."""
        return str(tilus.Layout.parse(self.reg_d).transpose())

    def _accumulator(self, cols):
        """The layout of C^T [bn, cols] as wgmma's accumulator holds it: warp
        w's 16 rows of each warpgroup's 64, in 16 x 8 tiles across cols."""
        return (f"spatial({self.warps},1).local(1,{cols // 8}).local(2,1).spatial(8,4)"
                f".local(1,2)")

    # How A's tiles arrive: by cp.async here, by TMA in the warp-specialized
    # variants (_WgmmaWS), whose tensor map is built from the kernel's own m
    # and k.
    a_by_tma = False

    def _operands(self, a, w, scales, c, m, n, k, zeros=None, bias=None):
        """The kernel's operands: KT (the number of k tiles); the global
        views gA of A [M, K], gW of the packed weights, gS (and gZ) of the
        scales (and zeros) [K / G, 1, N], gB of the bias [1, N] (or None)
        and gC of C; the stage buffers sX of A (and sXT: it read as [128,
        block_m]), sW of the weights, sS (and sZ) of the scales (and
        zeros). A's rows are KT * 128 long for cp.async, which then proves
        them 16-byte aligned (with k itself it copied A element by element:
        3-10x slower at M = 64-128), and k long for TMA, whose map takes the
        kernel's k."""
        S, W, bn, tb, R, G = (self.stages, self.warps, self.bn, self.tile_bytes, self.rows,
                              self.group)
        f16 = self.atype
        M, K = self.index(m), self.index(k)
        KT, NT = K // TILE_K, self.index(n) // TILE_N
        N = NT * TILE_N
        sX = self._a_stages()

        def groups(dtype=f16):
            return self.allocate_shared(dtype, [S, R, 1, bn], f"local({S},{R},1,{bn})")
        return SimpleNamespace(
            KT=KT, gA=self.view_global(a, [M, K if self.a_by_tma else KT * TILE_K]),
            gW=self.view_global(w, [KT, NT * tb]),
            gS=self.view_global(scales, [K // G, 1, N]),
            gZ=self.view_global(zeros, [K // G, 1, N]) if self.zeros else None,
            gB=self.view_global(bias, [1, N]) if self.bias else None,
            gC=self.view_global(c, [M, N]), sX=sX, sXT=self.transpose_shared(sX),
            sW=self.allocate_shared(tilus.uint8, [S, 1, W * 2 * tb],
                                    f"local({S},1,{W * 2 * tb})"),
            sS=groups(), sZ=groups(self.zero_dtype) if self.zeros else None)

    def _copy_groups(self, o, stage, t, on):
        """Copies k tile t's scales (and zeros) [R, 1, bn] into `stage`."""
        R, row = self.rows, self._group_row(t)
        self.copy_async(o.sS, o.gS, [stage, 0, 0, 0], [row, 0, on], [R, 1, self.bn])
        if self.zeros:
            self.copy_async(o.sZ, o.gZ, [stage, 0, 0, 0], [row, 0, on], [R, 1, self.bn])

    def _dequantize(self, o, raw, stage):
        """The k tile's weights, from their packed bytes `raw`, less the
        zeros and times the scales of their groups in `stage` (f16), as
        wgmma's register operand a [bn, 128]."""
        R, bn = self.rows, self.bn
        wg = self.reshape(self._weights(raw), [R, TILE_K // R, bn], self.reg_wg)
        if self.zeros:
            wg = wg - self._load_zeros(o.sZ, [stage, 0, 0, 0])
        wg = wg * self.load_shared(o.sS, [stage, 0, 0, 0], [R, 1, bn], self.reg_g)
        wf = self.reshape(wg, [TILE_K, bn], self.reg_w)
        return self.permute(wf, [1, 0], self.reg_wt)

    def _bias_rows(self, o, on):
        """The bias of columns on.. of C as the rows [bn, 1] of the
        accumulator C^T (reg_row, f32): loaded once as the row [1, bn],
        then relabelled."""
        row = self.load_global(o.gB, [0, on], [1, self.bn], self.reg_row_t)
        return self.permute(row, [1, 0], self.reg_row).to(tilus.float32)

    def _store_c(self, o, total, om, on):
        """C's tile [bm, bn] at (om, on): the accumulator C^T [bn, bm] (plus
        the bias, in f32) in the activation type."""
        self.store_global(self._c_tile(o, total, on), o.gC, [om, on])

    def _c_tile(self, o, total, on):
        """C's tile [bm, bn] in the activation type from the accumulator
        C^T [bn, bm] (f32) plus the bias of columns on.."""
        if self.bias:
            total = total + self._bias_rows(o, on)
        return self.permute(total, [1, 0], self.reg_ct).to(self.atype)

    def _a_stages(self):
        """A's stage buffers [stages, block_m, 128] in the layout wgmma reads."""
        return self.allocate_shared(self.a_dtype, [self.stages, self.bm, TILE_K],
                                    self.shared_x)

    @property
    def shared_bytes(self):
        return self.stages * (self.bm * TILE_K * self.a_dtype.bits // 8
                              + self.warps * self.nt * self.tile_bytes
                              + self.group_bytes)

    # parameters(): QuantizedMatmul's without split-K, (a, [a_scales], w,
    # scales, [zeros], [bias], c, m, n, k).

    def _trace(self, a, w, scales, c, m, n, k, zeros=None, bias=None):
        S, W, bn, bm, tb = self.stages, self.warps, self.bn, self.bm, self.tile_bytes
        f32 = tilus.float32
        self.attrs.name = "qmatmul"
        self.attrs.blocks = [tilus.cdiv(m, bm), n // bn]
        self.attrs.warps = W
        bi, bj = self.block_indices()
        om, on = bi * bm, bj * bn
        o = self._operands(a, w, scales, c, m, n, k, zeros, bias)
        KT, sX, sXT, sW = o.KT, o.sX, o.sXT, o.sW
        acc = self.allocate_register(f32, [bn, bm], self.reg_d, init=0.0)
        ow = bj * (W * 2 * tb)
        reg_raw = self.reg_raw

        def fill(stage, tile):
            self.copy_async(sX, o.gA, [stage, 0, 0], [om, tile * TILE_K], [bm, TILE_K])
            self.copy_async(sW, o.gW, [stage, 0, 0], [tile, ow], [1, W * 2 * tb])
            self._copy_groups(o, stage, tile, on)
            self.copy_async_commit_group()

        def weights(stage):
            """The k tile's weights in `stage`, dequantized, as wgmma's a [bn, 128]."""
            raw = self.load_shared(sW, [stage, 0, 0], [1, W * 2 * tb], reg_raw)
            return self._dequantize(o, raw, stage)

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
            # (the verifier's rule; measured: wrong results). Other
            # warpgroups overlap meanwhile.
            self.wgmma_wait_group(0)
        self.copy_async_wait_group(0)
        self._store_c(o, self.wgmma_wait_group(0, acc), om, on)


# The warp-specialized data-parallel blocks from this height on (those of
# prefill) stage C through shared memory: at M = 2048-8192 the products ran
# 0.82-0.97x the time of the register stores; at M = 256 with 128-row blocks
# (one wave) they ran 1.03-1.06x (bench/README.md, "Twenty-first run").
STAGED_FROM = 192


class _WgmmaWS(_Wgmma):
    """The wgmma variant warp-specialized (prefill): a producer warpgroup
    brings each k tile into a stage, A's rows by TMA (128-byte swizzle, the
    layout wgmma reads; rows past M arrive as zeros) and the packed weights
    and scales by cp.async from all its threads; `warpgroups` consumer
    warpgroups dequantize the weights into registers and run the products.
    They meet only at mbarriers: full[s] completes when A's bytes have
    landed and every producer thread has arrived; empty[s] when every
    consumer thread has retired its product of the stage. A producer
    thread's arrival for tile t is made by the hardware once its copies of
    t have landed (copy_async_mbarrier_arrive, async_arrive, the default),
    so it never waits for its own copies and every stage can be in flight:
    0.95-0.97x the time of the lagged arrival for FP8 x and u8 weights at
    M = 4096, the same elsewhere (bench/README.md, "Twentieth run"). With
    async_arrive=False it arrives for tile t once its cp.async group of t
    has completed (copy_async_wait_group), `lag` tiles behind the one it
    issues, so that lag + 1 tiles of weights are in flight and the
    consumers hear of each tile lag tiles late; with async_arrive, `lag`
    only decides overlap's default and limit (below). No block-wide
    barrier: a warpgroup dequantizes while the others' products run. With
    set_registers the producer gives registers back (40) for the consumers'
    accumulators. Output tiles go in groups of group_m tile rows
    (_tile_origin).

    overlap (the default with one consumer warpgroup, where the lag leaves
    a stage to wait on: lag <= stages - 2): each consumer decodes the next
    k tile while the product of this one runs, its register operand kept
    live to the wait that retires it. With one consumer warpgroup nothing
    else overlaps the product: 0.88-0.94x the time at M = 128-192 (bench/
    README.md, "Nineteenth run"). With two, which overlap each other
    already, it was 0.99-1.08x (measured again there; first in the "Ninth
    run"), so they keep the plain loop. Also measured and not kept:
    consumer warpgroups of their own taking turns to issue (mbarriers
    between them)."""

    a_by_tma = True

    def __init__(self, wtype, group_size=128, offset=0, warpgroups=2, block_m=256,
                 stages=4, lag=1, set_registers=True, group_m=4, zeros=False, bias=False,
                 overlap=None, async_arrive=True, staged_epilogue=None):
        super().__init__(wtype, group_size=group_size, offset=offset, warpgroups=warpgroups,
                         block_m=block_m, stages=stages, zeros=zeros, bias=bias)
        # C through shared memory (_store_c_staged): by default for the
        # blocks of prefill (STAGED_FROM rows).
        if staged_epilogue and not self._staging_fits():
            raise ValueError("staged_epilogue: f16 and bf16 x stage C in A's first stage "
                             "buffer, which takes two consumer warpgroups (128 columns)")
        self.staged = (block_m >= STAGED_FROM and self._staging_fits()
                       if staged_epilogue is None else staged_epilogue)
        if not 0 <= lag < stages:
            raise ValueError("lag: from 0 to stages - 1 tiles")
        self.lag, self.group_m = lag, group_m
        # Decode the next k tile while the product of this one runs (one
        # warpgroup only: two overlap each other's decode and product).
        self.overlap = warpgroups == 1 and lag <= stages - 2 if overlap is None else overlap
        if self.overlap and lag > stages - 2:
            raise ValueError("overlap: a consumer waits for tile t + 1 before it releases "
                             "tile t, so the producer's lag is at most stages - 2")
        self.consumers = warpgroups
        self.async_arrive = async_arrive
        self.registers = self.warpgroup_registers(warpgroups) if set_registers else None

    def _tile_origin(self, M, tn):
        """The first row of C this block computes and its column block, the
        blocks in groups of group_m tile rows (grouped_tile), so that the
        blocks resident at once read a few row blocks of A and many column
        blocks of W rather than all of A (A's tile is the larger one per
        block: at M = 4096 launch order streams the whole of A, 64 MB, from
        DRAM once per wave)."""
        bi, bj = self.block_indices()
        tm = tilus.cdiv(M, self.bm)
        row, col = self.grouped_tile(bj * tm + bi, tm, tn, self.group_m)
        return row * self.bm, col

    def _trace(self, a, w, scales, c, m, n, k, a_scales=None, zeros=None, bias=None):
        W, bn, bm, tb = self.warps, self.bn, self.bm, self.tile_bytes
        self.attrs.name = "qmatmul"
        self.attrs.blocks = [tilus.cdiv(m, bm), n // bn]
        self.attrs.warps = W + 4
        o = self._operands(a, w, scales, c, m, n, k, zeros, bias)
        if self.staged:
            o.gCt = self._tma_c(c, m, n)
        KT = o.KT
        om, bj = self._tile_origin(self.index(m), self.index(n) // bn)
        on = bj * bn
        full, empty = self._stage_barriers()
        ow = bj * (W * 2 * tb)

        with self.thread_group(0, 128):                 # the producer
            if self.registers:
                self.set_max_registers(self.registers[0], "dec")
            for t in self.range(KT):
                self._produce(o, full, empty, t, t, om, on, ow)
            self._produce_rest(full, KT)

        with self.thread_group(128, 128 * self.consumers):     # the consumers
            gT = (self.view_global(a_scales, [1, self.index(m)]) if a_scales is not None
                  else None)
            self._consume(o, full, empty, om, on, gT)

    def _stage_barriers(self):
        """full[s] and empty[s] for each stage, initialized: full counts
        the producer's 128 threads, empty every consumer thread."""
        S = self.stages
        full = self.allocate_shared(tilus.int64, [S], f"local({S})")
        empty = self.allocate_shared(tilus.int64, [S], f"local({S})")
        for s in range(S):
            self.mbarrier_init(full, [s], 128)
            self.mbarrier_init(empty, [s], 128 * self.consumers)
        return full, empty

    def _produce(self, o, full, empty, i, kt, om, on, ow):
        """The producer's copies of k tile kt of the output tile at (om, on)
        (its packed weights from byte ow of a row), the block's unit i, into
        stage i % stages; its arrival on full for unit i, made when the
        copies land (async_arrive), or for unit i - lag."""
        S, L, W, tb = self.stages, self.lag, self.warps, self.tile_bytes
        stage = i % S
        with self.if_then(i >= S):
            self.mbarrier_wait(empty, [stage], (i // S + 1) % 2)
        # No producer thread falls two phases of empty[stage] behind
        # (docs/hopper.md, the two hang rules).
        self.synchronize()
        self._load_a(o.sX, o.gA, full, stage, om, kt)
        self.copy_async(o.sW, o.gW, [stage, 0, 0], [kt, ow], [1, W * 2 * tb])
        self._copy_groups(o, stage, kt, on)
        if self.async_arrive:
            self.copy_async_mbarrier_arrive(full, [stage])
            return
        self.copy_async_commit_group()
        if L == 0:
            self.copy_async_wait_group(0)
            self.mbarrier_arrive(full, [stage])
        else:
            self.copy_async_wait_group(L)
            with self.if_then(i >= L):
                self.mbarrier_arrive(full, [(i - L) % S])

    def _produce_rest(self, full, count):
        """The producer's arrivals for its last `lag` units of `count`; with
        async_arrive, its wait for its last copies."""
        L = self.lag
        if self.async_arrive:
            # Every copy has landed before the producer leaves.
            self.copy_async_commit_group()
            self.copy_async_wait_group(0)
            return
        if L:
            self.copy_async_wait_group(0)
            # Index arithmetic is unsigned: count - L would wrap for count < L.
            for i in self.range(self.max(count, L) - L, count):
                self.mbarrier_arrive(full, [i % self.stages])

    def _decode_unit(self, o, full, i):
        """The block's unit i's weights (stage i % stages, once it is full),
        dequantized: wgmma's register operand."""
        S, W, tb = self.stages, self.warps, self.tile_bytes
        cur = i % S
        self.mbarrier_wait(full, [cur], (i // S) % 2)
        raw = self.load_shared(o.sW, [cur, 0, 0], [1, W * 2 * tb], self.reg_raw)
        return self._dequantize(o, raw, cur)

    def _consume_units(self, o, full, empty, lo, hi, base, acc):
        """The consumers' products of units lo .. hi - 1 (the block's units
        lo - base ..) into acc. With overlap, unit u + 1's weights are
        decoded while u's product runs: its register operand is kept live
        to the wait that retires it (docs/hopper.md), so the decode takes
        other registers."""
        if not self.overlap:
            for u in self.range(lo, hi):
                self._consume_unit(o, full, empty, u - base, acc)
            return
        S = self.stages
        wt = self.allocate_register(self.atype, [self.bn, TILE_K], self.reg_wt, init=0.0)
        with self.if_then(lo < hi):
            wt.assign(self._decode_unit(o, full, lo - base))
        for u in self.range(lo, hi):
            i = u - base
            cur = i % S
            self._start_product(o, wt, cur, acc)
            nxt = wt.handle()
            with self.if_then(u + 1 < hi):
                nxt.assign(self._decode_unit(o, full, i + 1))
            self.wgmma_wait_group(0, wt)
            self.mbarrier_arrive(empty, [cur])
            wt.assign(nxt)

    def _start_product(self, o, wt, stage, acc):
        """Issues acc += wt x A's tile in `stage` (wgmma, committed, not
        waited for)."""
        self.wgmma_fence()
        acc.assign(self.wgmma_mma(wt, o.sXT[stage, 0:TILE_K, 0:self.bm], acc))
        self.wgmma_commit_group()

    def _consume_unit(self, o, full, empty, i, acc):
        """The consumers' product of the block's unit i (stage i % stages)
        into acc, waited for, and the stage released."""
        cur = i % self.stages
        self._start_product(o, self._decode_unit(o, full, i), cur, acc)
        # Nothing between the product and its wait (the verifier's rule for a
        # register operand); the other warpgroups' products run meanwhile.
        self.wgmma_wait_group(0)
        self.mbarrier_arrive(empty, [cur])

    def _load_a(self, sX, gA, full, stage, om, t):
        """The producer's copy of A's k tile t, rows om.., into stage `stage`."""
        self.tma_load(sX, gA, full, [stage], [stage, 0, 0], [om, t * TILE_K],
                      [self.bm, TILE_K])

    def _consume(self, o, full, empty, om, on, gT=None):
        """The consumers' loop over the k tiles, and their store of C."""
        if self.registers:
            self.set_max_registers(self.registers[1], "inc")
        acc = self.allocate_register(tilus.float32, [self.bn, self.bm], self.reg_d, init=0.0)

        self._consume_units(o, full, empty, 0, o.KT, 0, acc)
        total = self.wgmma_wait_group(0, acc)
        if self.staged:
            self._store_c_staged(o, total, om, on)
        else:
            self._store_c(o, total, om, on)

    def _staging_fits(self):
        """Whether C's tile [bm, bn] fits A's first stage buffer [bm, 128]
        (same shape: two consumer warpgroups)."""
        return self.bn == TILE_K

    def _tma_c(self, c, m, n):
        """C [M, N] as tma_store writes it: a view whose sizes are the
        kernel's own m and n (the tensor map is built from them)."""
        return self.view_global(c, [self.index(m), self.index(n)])

    def _store_c_staged(self, o, total, om, on):
        """C's tile [bm, bn] (plus the bias) written through shared memory:
        into A's first stage buffer, whose tile has the same shape, 16-bit
        elements and layout (stmatrix, transposing), then by one tma_store
        that returns once it has read the tile (async_writes). From
        registers each warp instruction writes two bytes into each of 32
        rows (the accumulator is C transposed). Every k tile has been read
        by then (the producer loads no more), but the other warpgroup's last
        product may still read the stage: the consumers synchronize first."""
        ct = self._c_tile(o, total, on)
        self.synchronize()
        self.store_shared(ct, o.sX, [0, 0, 0])
        self.tma_store(o.sX, o.gCt, [0, 0, 0], [om, on], [self.bm, self.bn],
                       async_writes=True)


class _WgmmaStreamK(_WgmmaWS):
    """The warp-specialized variant on a stream-K grid (decode and small
    prefill, M <= 256): `blocks` blocks (the runner passes the SM count,
    at most the units) share the units of work, the k tiles of every output
    tile in turn (tile-major), block p taking units [p U / P, (p + 1) U /
    P). A data-parallel grid of T tiles runs ceil(T / SMs) waves whatever
    their fill (N = 10240, M = 256, 256-row blocks: 80 blocks on 132 SMs);
    here every SM gets within one k tile of U / P.

    A block's units cover a run of tiles, the first and last perhaps in
    part. A tile one block covers whole it stores; a tile shared by blocks
    first .. last (in order) each stores its f32 sum into partials[j] (j =
    p - first, [j, M, N] as split-K's) and counts itself on the tile's
    counter (acquire-release); the last to arrive adds partials 0 .. j in
    order (the same sum whichever arrives last), stores the tile and zeros
    the counter for the next launch. Stages and phases run on from one tile
    to the next, as in the persistent matmul (docs/hopper.md)."""

    def parameters(self):
        """QuantizedMatmul's, with the f32 partials [J, M, N] and the i32
        counters (one per output tile, zero) after c, and the number of
        blocks last (stream_k_plan; the grid: blocks past one per unit of
        work do nothing)."""
        p = super().parameters()
        at = [name for name, _ in p].index("c") + 1
        return (p[:at] + [("partials", tilus.pointer(tilus.float32)),
                          ("counters", tilus.pointer(tilus.int32))]
                + p[at:] + [("blocks", tilus.int32)])

    def _trace(self, a, w, scales, c, m, n, k, zeros=None, bias=None, partials=None,
               counters=None, blocks=None):
        W, bn, bm, tb = self.warps, self.bn, self.bm, self.tile_bytes
        self.attrs.name = "qmatmul"
        self.attrs.blocks = [blocks]
        self.attrs.warps = W + 4
        o = self._operands(a, w, scales, c, m, n, k, zeros, bias)
        KT, M = o.KT, self.index(m)
        TM, TN = tilus.cdiv(M, bm), self.index(n) // bn
        units, p = TM * TN * KT, self.block_indices()
        # At most one block per unit (the launchers give no more); any past
        # that get the empty range at the end, rather than ranges past it.
        P = self.min(self.index(blocks), units)
        start, end = self.min(p, P) * units // P, self.min(p + 1, P) * units // P

        def owner(u):
            """The block whose units hold unit u."""
            return ((u + 1) * P - 1) // units

        def tile(t):
            """Output tile t's first row and column of C, and its units."""
            return (t % TM) * bm, (t // TM) * bn, self.max(start, t * KT), \
                self.min(end, t * KT + KT)

        tiles = (start // KT, tilus.cdiv(end, KT))
        full, empty = self._stage_barriers()

        with self.thread_group(0, 128):                 # the producer
            if self.registers:
                self.set_max_registers(self.registers[0], "dec")
            for t in self.range(*tiles):
                om, on, lo, hi = tile(t)
                ow = (t // TM) * (W * 2 * tb)
                for u in self.range(lo, hi):          # the block's unit u - start
                    self._produce(o, full, empty, u - start, u - t * KT, om, on, ow)
            self._produce_rest(full, end - start)

        with self.thread_group(128, 128 * self.consumers):     # the consumers
            if self.registers:
                self.set_max_registers(self.registers[1], "inc")
            gP = self.view_global(partials, [P, M, TN * bn], dtype=tilus.float32)
            gN = self.view_global(counters, [TM * TN], dtype=tilus.int32)
            for t in self.range(*tiles):
                om, on, lo, hi = tile(t)
                acc = self.allocate_register(tilus.float32, [bn, bm], self.reg_d, init=0.0)
                self._consume_units(o, full, empty, lo, hi, start, acc)
                done = self.wgmma_wait_group(0, acc)
                first, last = owner(t * KT), owner(t * KT + KT - 1)
                with self.if_then(first.eq(last)):          # the whole tile is ours
                    self._store_c(o, done, om, on)
                with self.otherwise():
                    self.store_global(self.permute(done, [1, 0], self.reg_ct), gP,
                                      [p - first, om, on])
                    arrived = self.atomic_rmw(gN, [t], 1, order="acq_rel")
                    with self.if_then(arrived.eq(last - first)):
                        self._sum_partials(o, gP, last - first + 1, om, on)
                        self.atomic_rmw(gN, [t], 0, kind="exchange")   # for the next launch

    # Rows of C per pass of the fix-up: each thread holds 8 x this / 16
    # values of a partial and of the sum (within the consumers' registers,
    # which the accumulator's layout for the whole tile would not be).
    FIXUP_ROWS = 32

    def _sum_partials(self, o, gP, count, om, on):
        """C's tile at (om, on) as the sum of partials 0 .. count - 1 in
        order (plus the bias), FIXUP_ROWS rows at a time, in a layout of
        its own: each thread 8 consecutive columns of a row."""
        g, bm, bn, rows = self.consumers, self.bm, self.bn, self.FIXUP_ROWS
        chunk = f"local({rows // 16},1).spatial(16,{8 * g}).local(1,8)"
        row = f"reduce(spatial(16,{8 * g}),dims=[0]).local(1,8)"
        bias = (self.load_global(o.gB, [0, on], [1, bn], row).to(tilus.float32)
                if self.bias else None)
        for r in self.range(0, bm, rows):
            total = self.load_global(gP, [0, om + r, on], [rows, bn], chunk)
            for j in self.range(1, count):
                total.assign(total + self.load_global(gP, [j, om + r, on], [rows, bn], chunk))
            if bias is not None:
                total = total + bias
            self.store_global(total.to(self.atype), o.gC, [om + r, on])


def stream_k_plan(m, n, k, cfg, sms):
    """(blocks, partial slots J, counters) for launching the stream-K
    configuration `cfg` at M = m, N = n, K = k on a GPU of `sms` SMs: at
    most one block per unit; the partials f32 [J, m, n], J bounding the
    blocks that share a tile (all but its first and last block cover at
    least U // P of its k tiles); the counters i32, one per output tile."""
    tiles = -(-m // cfg[1]) * (n // (64 * cfg[0]))
    kt = k // TILE_K
    units = tiles * kt
    if not units:
        raise ValueError(f"stream_k_plan: M = {m}, N = {n}, K = {k} has no work to share")
    blocks = min(sms, units)
    share = min(blocks, max(1, (kt - 2) // (units // blocks) + 2))
    return blocks, share, tiles


class QuantizedMatmulWgmmaWS(_WgmmaWS, QuantizedMatmul):
    """f16 activations, warp-specialized."""


class QuantizedMatmulWgmmaWSBF16(_WgmmaWS, QuantizedMatmulBF16):
    """bf16 activations, warp-specialized."""


class QuantizedMatmulWgmmaSK(_WgmmaStreamK, QuantizedMatmul):
    """f16 activations, warp-specialized on a stream-K grid."""


class QuantizedMatmulWgmmaSKBF16(_WgmmaStreamK, QuantizedMatmulBF16):
    """bf16 activations, warp-specialized on a stream-K grid."""


class QuantizedMatmulWgmma(_Wgmma, QuantizedMatmul):
    """f16 activations."""


class QuantizedMatmulWgmmaBF16(_Wgmma, QuantizedMatmulBF16):
    """bf16 activations."""


def wgmma_program(wtype, group_size, offset, cfg, activation=None, zeros=False, bias=False):
    """The wgmma template instance of configuration (warpgroups, block_m,
    stages), or of the warp-specialized variant's (warpgroups, block_m,
    stages, lag), for f16 (None) or bf16 activations, with zero points and
    a bias where asked."""
    bf16 = activation == tilus.bfloat16
    kw = dict(group_size=group_size, offset=offset, warpgroups=cfg[0], block_m=cfg[1],
              stages=cfg[2], zeros=zeros, bias=bias)
    if is_stream_k(cfg):
        cls = QuantizedMatmulWgmmaSKBF16 if bf16 else QuantizedMatmulWgmmaSK
        return cls(wtype, lag=cfg[3], **kw)
    if len(cfg) == 4:
        cls = QuantizedMatmulWgmmaWSBF16 if bf16 else QuantizedMatmulWgmmaWS
        return cls(wtype, lag=cfg[3], **kw)
    cls = QuantizedMatmulWgmmaBF16 if bf16 else QuantizedMatmulWgmma
    return cls(wtype, **kw)


# The largest block_m per number of warpgroups whose registers fit (ptxas,
# sm_90a): block_m / 2 accumulator registers per thread beside the
# weights' 32 and the addresses, within 65536 / (128 * warpgroups) registers
# (at most 255): 4 warpgroups leave 128 per thread, 8 only 64 (spills); one
# warpgroup at 256 rows spilled too. The warp-specialized variant has one
# warpgroup more (the producer), and ptxas budgets every thread alike: 2
# consumer warpgroups get 168 registers (enough for 256 rows), 3 get 128.
_MAX_BLOCK_M = {1: 192, 2: 256, 4: 128}
_MAX_BLOCK_M_WS = {1: 256, 2: 256, 3: 128}
# The FP8 variant keeps a part's product beside every part's total: two
# consumer warpgroups up to 256 rows (two parts of 128), one up to 256.
_MAX_BLOCK_M_FP8 = {1: 256, 2: 256}


def wgmma_fits(cfg, n, k, wtype, group_size=128, fp8=False, zeros=False):
    """Whether (warpgroups, block_m, stages), or the warp-specialized
    (warpgroups, block_m, stages, lag), tiles N (64 * warpgroups columns
    per block) and K (tiles of 128) within a block's registers
    (_MAX_BLOCK_M) and shared memory (f16 or bf16 activations alike; the
    shared_bytes of the instance, and the mbarriers; zeros: True for zero
    values of two bytes, tilus.uint8 for codes). fp8: the FP8-activation
    variant's (qmatmul_fp8, warp-specialized only): up to 256 rows, in
    parts of at most 128 rows of a multiple of 8 each, one-byte A."""
    from .qmatmul import MAX_BLOCK_SHARED
    ws = len(cfg) == 4 or is_stream_k(cfg)          # warp-specialized, either grid
    g, bm, st = cfg[:3]
    limits = _MAX_BLOCK_M_WS if ws else _MAX_BLOCK_M
    if fp8:
        limits = _MAX_BLOCK_M_FP8 if ws else {}
    if bm % 8 or not 8 <= bm <= limits.get(g, 0) \
            or st < 2 or ws and not 0 <= cfg[3] < st or fp8 and bm % (8 * -(-bm // 128)):
        return False
    rows = max(1, TILE_K // group_size)
    zero_bytes = 0 if not zeros else 1 if zeros == tilus.uint8 else 2
    shared = st * (bm * TILE_K * (1 if fp8 else 2)
                   + 4 * g * 2 * TILE_K * TILE_N * wtype.bits // 8
                   + rows * 64 * g * (2 + zero_bytes) + (16 if ws else 0))
    if fp8 and bm >= STAGED_FROM:   # a part of C staged (qmatmul_fp8's epilogue)
        shared += bm // -(-bm // 128) * 64 * g * 2
    return n % (64 * g) == 0 and k % TILE_K == 0 and shared <= MAX_BLOCK_SHARED
