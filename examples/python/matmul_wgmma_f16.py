"""A Hopper f16 matmul on wgmma (sm_90a): C[M, N] = A[M, K] x W[N, K]^T
(W as nn.Linear stores it), f32 accumulation, f16 out. Each block of
`warpgroups` warpgroups computes a block_m x block_n tile of C (warpgroup g
the rows 64g.. of each 64 x warpgroups slab); K goes in tiles of block_k
through `stages` shared buffers filled by cp.async and read in place by
wgmma through matrix descriptors (docs/hopper.md).

The loop, per k tile kb (cp.async groups count tiles):
  1. wait until tile kb has landed (copy_async_wait_group), synchronize:
     every warpgroup has also finished its wgmma of tile kb - 2 (it waited
     for it at the end of the previous iteration);
  2. refill the stage of tile kb - 2 with tile kb + stages - 2;
  3. wgmma over tile kb, commit, and wait until only that group is pending.
W's tiles are stored [block_n, block_k] (K-major, as loaded) and given to
wgmma as B [block_k, block_n] through transpose_shared.

Kernel arguments: a, w, c, and the tile counts M / block_m, N / block_n,
K / block_k (so M, N and K are multiples of the tile). MatmulWgmmaTma
brings the tiles by TMA instead (docs/hopper.md) and takes M, N and K;
MatmulWgmmaWS also splits the block into a producer and consumer
warpgroups (thread groups); MatmulWgmmaPersistent runs that on a persistent
grid (it also takes the number of blocks).

    PYTHONPATH=python-bindings python3 examples/python/matmul_wgmma_f16.py [OUT_DIR]
"""

import types

import tilus


class MatmulWgmma(tilus.Kernel):
    def __init__(self, block_m=128, block_n=256, block_k=64, warpgroups=2, stages=4):
        super().__init__()
        if block_m % (64 * warpgroups) or block_n % 8 or block_n > 256 or \
                block_k not in (32,) and block_k % 64:
            raise ValueError("block_m: a multiple of 64 x warpgroups; block_n: a "
                             "multiple of 8 up to 256; block_k: 32 or a multiple of 64")
        if stages < 3:
            raise ValueError("the loop keeps two tiles in use: stages >= 3")
        self.bm, self.bn, self.bk, self.stages = block_m, block_n, block_k, stages
        self.warps = 4 * warpgroups
        S = stages
        # K rows of 128 bytes (64 elements) swizzled by 128; a k tile of 32
        # is one row of 64 bytes.
        self.k_swizzle = 64 if block_k == 32 else 128
        self.shared_a = tilus.mma_shared(block_m, block_k, 16, swizzle=self.k_swizzle, stages=S)
        self.shared_w = tilus.mma_shared(block_n, block_k, 16, swizzle=self.k_swizzle, stages=S)
        self.reg_c = self.accumulator(block_n)

    def accumulator(self, cols):
        """wgmma's accumulator [block_m, cols]: warpgroup g holds rows g
        block_m / G .., in 64-row slabs; warp w of it rows 16 w .. of each
        slab, in 16 x 8 mma.sync tiles across cols."""
        G = self.warps // 4
        return (f"spatial({G},1).local({self.bm // (64 * G)},{cols // 8})"
                f".spatial(4,1).local(2,1).spatial(8,4).local(1,2)")

    def __call__(self, a: tilus.pointer(tilus.float16), w: tilus.pointer(tilus.float16),
                 c: tilus.pointer(tilus.float16), mt: tilus.int32, nt: tilus.int32,
                 kt: tilus.int32):
        bm, bn, bk, S = self.bm, self.bn, self.bk, self.stages
        self.attrs.name = "matmul_wgmma"
        self.attrs.blocks = [mt, nt]
        self.attrs.warps = self.warps
        f16, f32 = tilus.float16, tilus.float32

        MT, NT, KT = self.index(mt), self.index(nt), self.index(kt)
        M, N, K = MT * bm, NT * bn, KT * bk
        bi, bj = self.block_indices()
        om, on = bi * bm, bj * bn
        gA = self.view_global(a, [M, K])
        gW = self.view_global(w, [N, K])
        gC = self.view_global(c, [M, N])
        sA = self.allocate_shared(f16, [S, bm, bk], self.shared_a)
        sW = self.allocate_shared(f16, [S, bn, bk], self.shared_w)
        sB = self.transpose_shared(sW)
        acc = self.allocate_register(f32, [bm, bn], self.reg_c, init=0.0)

        def load(tile, stage):
            ok = tile * bk
            self.copy_async(sA, gA, [stage, 0, 0], [om, ok], [bm, bk])
            self.copy_async(sW, gW, [stage, 0, 0], [on, ok], [bn, bk])
            self.copy_async_commit_group()

        for s in self.range(S - 2):
            load(s, s)
        for kb in self.range(KT):
            self.copy_async_wait_group(S - 3)
            self.synchronize()
            ahead = kb + (S - 2)
            load(ahead, ahead % S)          # past K: zero-filled, never read
            cur = kb % S
            self.wgmma_fence()
            acc.assign(self.wgmma_mma(sA[cur, 0:bm, 0:bk], sB[cur, 0:bk, 0:bn], acc))
            self.wgmma_commit_group()
            self.wgmma_wait_group(1)
        self.copy_async_wait_group(0)
        done = self.wgmma_wait_group(0, acc)
        self.store_global(done.to(f16), gC, [om, on])


class MatmulWgmmaTma(MatmulWgmma):
    """The same product with its tiles brought by TMA (tilus.tma_load): one
    mbarrier per stage, whose phase completes when both tiles of the stage
    have landed; thread 0 issues the copies and the stage's single arrival.
    The loop is the cp.async one's, with the barrier's phase (tile / stages,
    mod 2) in place of the copy group's count. The kernel takes M, N and K
    themselves (the runtime builds the tensor maps from them at launch),
    multiples of the tile."""

    def __init__(self, block_m=128, block_n=256, block_k=64, warpgroups=2, stages=4,
                 group_m=16):
        super().__init__(block_m, block_n, block_k, warpgroups, stages)
        self.group_m = group_m

    def tile_origin(self, pid, M, N, bm=None):
        """The row and column of C where output tile `pid` starts. Tiles are
        numbered in launch order (x fastest) and swept over groups of
        group_m tile rows, column by column within a group: the blocks
        resident at once then share a few rows of A and columns of W in the
        L2 instead of all of A (measured at 8192^3: DRAM throughput 60 % of
        peak in launch order, 24 % in groups of 16)."""
        bm, bn = bm or self.bm, self.bn
        row, col = self.grouped_tile(pid, tilus.cdiv(M, bm), tilus.cdiv(N, bn), self.group_m)
        return row * bm, col * bn

    def tma_buffers(self, a, w, c, M, N, K):
        """The views and stage buffers every TMA kernel uses: the global A,
        W and C, the stages of A and W, and W's read as B (transpose_shared)."""
        bm, bn, bk, S, f16 = self.bm, self.bn, self.bk, self.stages, tilus.float16
        gA = self.view_global(a, [M, K])
        gW = self.view_global(w, [N, K])
        # N is a multiple of the tile (the kernel's requirement); written so,
        # the epilogue may store pairs of columns (the lowering vectorizes a
        # row only where its length is a known multiple of the width).
        gC = self.view_global(c, [M, N // bn * bn])
        sA = self.allocate_shared(f16, [S, bm, bk], self.shared_a)
        sW = self.allocate_shared(f16, [S, bn, bk], self.shared_w)
        return gA, gW, gC, sA, sW, self.transpose_shared(sW)

    def tma_operands(self, a, w, c, m, n, k):
        """tma_buffers, after the number of k tiles and the block's tile."""
        M, N, K = self.index(m), self.index(n), self.index(k)
        bx, by = self.block_indices()
        om, on = self.tile_origin(by * tilus.cdiv(M, self.bm) + bx, M, N)
        buffers = self.tma_buffers(a, w, c, M, N, K)
        return (K // self.bk, om, on) + buffers

    def __call__(self, a: tilus.pointer(tilus.float16), w: tilus.pointer(tilus.float16),
                 c: tilus.pointer(tilus.float16), m: tilus.int32, n: tilus.int32,
                 k: tilus.int32):
        bm, bn, bk, S = self.bm, self.bn, self.bk, self.stages
        self.attrs.name = "matmul_wgmma_tma"
        self.attrs.blocks = [tilus.cdiv(m, bm), tilus.cdiv(n, bn)]
        self.attrs.warps = self.warps
        f16, f32 = tilus.float16, tilus.float32

        KT, om, on, gA, gW, gC, sA, sW, sB = self.tma_operands(a, w, c, m, n, k)
        bars = self.allocate_shared(tilus.int64, [S], f"local({S})")
        acc = self.allocate_register(f32, [bm, bn], self.reg_c, init=0.0)
        for s in range(S):
            self.mbarrier_init(bars, [s], 1)

        def load(tile, stage):
            ok = tile * bk
            self.tma_load(sA, gA, bars, [stage], [stage, 0, 0], [om, ok], [bm, bk])
            self.tma_load(sW, gW, bars, [stage], [stage, 0, 0], [on, ok], [bn, bk])
            self.mbarrier_arrive_expect_tx(bars, [stage], 0)

        for s in self.range(S - 2):
            with self.if_then(s < KT):
                load(s, s)
        for kb in self.range(KT):
            cur = kb % S
            self.mbarrier_wait(bars, [cur], (kb // S) % 2)
            # Every warpgroup has finished its wgmma of tile kb - 2 (it
            # waited for it at the end of the previous iteration): refill.
            self.synchronize()
            ahead = kb + (S - 2)
            with self.if_then(ahead < KT):
                load(ahead, ahead % S)
            self.wgmma_fence()
            acc.assign(self.wgmma_mma(sA[cur, 0:bm, 0:bk], sB[cur, 0:bk, 0:bn], acc))
            self.wgmma_commit_group()
            self.wgmma_wait_group(1)
        done = self.wgmma_wait_group(0, acc)
        self.store_global(done.to(f16), gC, [om, on])


class MatmulWgmmaWS(MatmulWgmmaTma):
    """Warp-specialized: a producer warpgroup (a thread group of 128 threads)
    brings the tiles by TMA while `warpgroups` consumer warpgroups (a second
    group) run wgmma on them, the two meeting only at mbarriers: full[s]
    (one arrival, the producer's, and the tiles' bytes) and empty[s] (every
    consumer thread, once it no longer reads stage s). The producer waits
    for empty[s] before it refills stage s; the consumers wait for full[s]
    before they read it, and release the stage of tile kb - 1 once
    wgmma_wait_group(1) has retired its product. Block: 128 x (warpgroups +
    1) threads. Takes M, N and K, multiples of the tile."""

    def __init__(self, block_m=128, block_n=256, block_k=64, warpgroups=2, stages=4,
                 group_m=16, set_registers=False):
        super().__init__(block_m, block_n, block_k, warpgroups, stages, group_m)
        self.consumers = warpgroups
        self.cluster_blocks = 1         # MatmulWgmmaCluster: 2
        # set_registers: the producer needs few registers, so it gives them
        # back (40 each) for the consumers to take as many as the block's
        # 64 K allow (a multiple of 8, at most 232). Off by default: with
        # these tiles the consumers fit in the 168 a thread has anyway, and
        # on the H100 it measured 1-4 % slower (bench/README.md).
        self.registers = self.warpgroup_registers(warpgroups) if set_registers else None
        # W's stage buffers and the accumulator in `parts` column parts of
        # part_n each (MatmulWgmmaPersistent: several; here one).
        self.parts, self.part_n = 1, block_n

    def producer_registers(self):
        if self.registers:
            self.set_max_registers(self.registers[0], "dec")

    def consumer_registers(self):
        if self.registers:
            self.set_max_registers(self.registers[1], "inc")

    def stage_barriers(self):
        """full[s] and empty[s] for each stage, initialized: empty[s] counts
        every consumer thread of every block that reads the stage."""
        S = self.stages
        full = self.allocate_shared(tilus.int64, [S], f"local({S})")
        empty = self.allocate_shared(tilus.int64, [S], f"local({S})")
        for s in range(S):
            self.mbarrier_init(full, [s], 1)
            self.mbarrier_init(empty, [s], 128 * self.consumers * self.cluster_blocks)
        return full, empty

    def load_w(self, t, stage, on, ok):
        """W's tile of the stage, each part into its buffer (t.sWs; see
        MatmulWgmmaCluster)."""
        pn = self.part_n
        for j, sW in enumerate(t.sWs):
            self.tma_load(sW, t.gW, t.full, [stage], [stage, 0, 0], [on + j * pn, ok],
                          [pn, self.bk])

    def release(self, t, stage):
        """The consumers no longer read `stage`."""
        self.mbarrier_arrive(t.empty, [stage])

    def produce(self, t, it, kb, om, on):
        """The producer's k tile kb of the output tile at (om, on), the
        block's it-th: once its stage is free, thread 0 brings A's and W's
        tiles into it. `t` holds the operands (tilus.Kernel attributes)."""
        S, bm, bk = self.stages, self.bm, self.bk
        stage = it % S
        with self.if_then(it >= S):
            self.mbarrier_wait(t.empty, [stage], (it // S + 1) % 2)
        # Every producer thread waits, but only thread 0 issues: a thread
        # left behind two phases of empty[stage] would read the parity as not
        # yet completed and spin forever. The group's barrier keeps all of
        # them within one tile.
        self.synchronize()
        ok = kb * bk
        self.tma_load(t.sA, t.gA, t.full, [stage], [stage, 0, 0], [om, ok], [bm, bk])
        self.load_w(t, stage, on, ok)
        self.mbarrier_arrive_expect_tx(t.full, [stage], 0)

    def consume(self, t, it, kb, accs):
        """The consumers' k tile kb, the block's it-th: wait for its stage,
        issue its products (one per column part: accs, t.sBs), and release
        the stage of the k tile before (retired by wgmma_wait_group(1))."""
        S, bm, pn, bk = self.stages, self.bm, self.part_n, self.bk
        cur = it % S
        self.mbarrier_wait(t.full, [cur], (it // S) % 2)
        self.wgmma_fence()
        for acc, sB in zip(accs, t.sBs):
            acc.assign(self.wgmma_mma(t.sA[cur, 0:bm, 0:bk], sB[cur, 0:bk, 0:pn], acc))
        self.wgmma_commit_group()
        self.wgmma_wait_group(1)
        with self.if_then(kb >= 1):
            self.release(t, (it + S - 1) % S)

    def __call__(self, a: tilus.pointer(tilus.float16), w: tilus.pointer(tilus.float16),
                 c: tilus.pointer(tilus.float16), m: tilus.int32, n: tilus.int32,
                 k: tilus.int32):
        bm, bn, G = self.bm, self.bn, self.consumers
        self.attrs.name = "matmul_wgmma_ws"
        self.attrs.blocks = [tilus.cdiv(m, bm), tilus.cdiv(n, bn)]
        self.attrs.warps = 4 * (G + 1)

        t = types.SimpleNamespace()
        KT, om, on, t.gA, t.gW, gC, t.sA, sW, sB = self.tma_operands(a, w, c, m, n, k)
        t.sWs, t.sBs = [sW], [sB]
        t.full, t.empty = self.stage_barriers()
        with self.thread_group(0, 128):                 # the producer
            self.producer_registers()
            for kb in self.range(KT):
                self.produce(t, kb, kb, om, on)
        with self.thread_group(128, 128 * G):           # the consumers
            self.consumer_registers()
            acc = self.allocate_register(tilus.float32, [bm, bn], self.reg_c, init=0.0)
            for kb in self.range(KT):
                self.consume(t, kb, kb, [acc])
            done = self.wgmma_wait_group(0, acc)
            self.store_global(done.to(tilus.float16), gC, [om, on])


class MatmulWgmmaPersistent(MatmulWgmmaWS):
    """MatmulWgmmaWS on a persistent grid: `blocks` blocks (the host passes
    the number of SMs) each take output tiles bid, bid + blocks, ... in
    turn, so a block's producer loads the next tile's first stages while its
    consumers store the last tile. Stages and phases count the block's k
    tiles across its output tiles; the consumers release the last k tile of
    each output tile too (the producer goes on). Takes M, N, K (multiples of
    the tile) and the number of blocks.

    The epilogue (staged_epilogue, the default) goes through shared memory:
    the consumers write C's tile there (stmatrix) and one thread writes it
    out by TMA (tma_store). Stored from registers instead, each warp
    instruction writes 16 bytes in each of 8 rows, and the tensor pipe idles
    meanwhile: staged, the kernel ran 1.02-1.20x as fast on the H100
    (bench/README.md). Four stages of a 128 x 256 x 64 tile take 192 KB of
    the 227 KB a block may have, too few for C's 64 KB, so the consumers keep
    the accumulator (and W's stage buffers) in `parts` column parts of at
    most 128 and stage one part at a time (32 KB)."""

    def __init__(self, block_m=128, block_n=256, block_k=64, warpgroups=2, stages=4,
                 group_m=16, set_registers=False, staged_epilogue=True):
        super().__init__(block_m, block_n, block_k, warpgroups, stages, group_m,
                         set_registers)
        self.staged = staged_epilogue
        if staged_epilogue:
            self.parts = -(-block_n // 128)
            self.part_n = block_n // self.parts
            if block_n % (16 * self.parts):
                raise ValueError("staged_epilogue: block_n in parts of a multiple of 16 "
                                 "columns, at most 128 each")
        pn = self.part_n
        self.shared_wp = tilus.mma_shared(pn, block_k, 16, swizzle=self.k_swizzle, stages=stages)
        # C's part staged for TMA: 16-byte chunks swizzled, so that the
        # stmatrix rows of one instruction fall in different banks.
        swizzle = next(w for w in (128, 64, 32) if pn * 2 % w == 0)
        self.shared_c = tilus.mma_shared(block_m, pn, 16, swizzle=swizzle)
        self.reg_cp = self.accumulator(pn)

    def tma_buffers(self, a, w, c, M, N, K):
        """The global A, W and C; the stages of A; W's stage buffers and
        their transposes (one per part); C's staging buffer (or None)."""
        bm, bk, S, f16 = self.bm, self.bk, self.stages, tilus.float16
        gA, gW = self.view_global(a, [M, K]), self.view_global(w, [N, K])
        sA = self.allocate_shared(f16, [S, bm, bk], self.shared_a)
        sWs = [self.allocate_shared(f16, [S, self.part_n, bk], self.shared_wp)
               for _ in range(self.parts)]
        if self.staged:
            # tma_store's tensor map is built from the kernel's own m and n.
            gC, sC = self.view_global(c, [M, N]), self.allocate_shared(
                f16, [bm, self.part_n], self.shared_c)
        else:
            # Written so, the lowering may store pairs of columns (it proves
            # a row's length a multiple of the width).
            gC, sC = self.view_global(c, [M, N // self.bn * self.bn]), None
        return gA, gW, gC, sA, sWs, [self.transpose_shared(x) for x in sWs], sC

    def store_c(self, t, parts, om, on):
        """C's tile at (om, on) from the accumulator's parts (f32)."""
        f16, pn = tilus.float16, self.part_n
        for j, part in enumerate(parts):
            if self.staged:
                # tma_store fences the writes for the async proxy and waits
                # until its copy is done, so sC may be written again.
                self.store_shared(part.to(f16), t.sC, [0, 0])
                self.tma_store(t.sC, t.gC, [0, 0], [om, on + j * pn], [self.bm, pn])
            else:
                self.store_global(part.to(f16), t.gC, [om, on])

    def __call__(self, a: tilus.pointer(tilus.float16), w: tilus.pointer(tilus.float16),
                 c: tilus.pointer(tilus.float16), m: tilus.int32, n: tilus.int32,
                 k: tilus.int32, blocks: tilus.int32):
        bm, bn, bk, S, G, C = (self.bm, self.bn, self.bk, self.stages, self.consumers,
                               self.cluster_blocks)
        self.attrs.name = "matmul_wgmma_cluster" if C > 1 else "matmul_wgmma_persistent"
        self.attrs.blocks = [blocks]
        self.attrs.warps = 4 * (G + 1)
        if C > 1:
            self.attrs.cluster = [C]

        M, N, K = self.index(m), self.index(n), self.index(k)
        KT = K // bk
        # A unit of work: the (C bm) x bn tile of C a cluster (or a block)
        # computes, this block its rows rank bm ...
        workers, wid, rank = self.index(blocks), self.block_indices(), 0
        if C > 1:
            workers, wid, rank = workers // C, wid // C, self.cluster_block_rank()
        units = tilus.cdiv(M, C * bm) * tilus.cdiv(N, bn)
        t = types.SimpleNamespace()
        t.gA, t.gW, t.gC, t.sA, t.sWs, t.sBs, t.sC = self.tma_buffers(a, w, c, M, N, K)
        t.full, t.empty = self.stage_barriers()
        t.rank = rank
        if C > 1:
            self.cluster_synchronize()      # every block's barriers are set

        def work(unit):
            om, on = self.tile_origin(unit, M, N, C * bm)
            if C > 1:
                om = om + rank * bm
            return om, on, (unit - wid) // workers * KT     # k tiles so far

        with self.thread_group(0, 128):                 # the producer
            self.producer_registers()
            for unit in self.range(wid, units, workers):
                om, on, base = work(unit)
                for kb in self.range(KT):
                    self.produce(t, base + kb, kb, om, on)
        with self.thread_group(128, 128 * G):           # the consumers
            self.consumer_registers()
            for unit in self.range(wid, units, workers):
                om, on, base = work(unit)
                accs = [self.allocate_register(tilus.float32, [bm, self.part_n], self.reg_cp,
                                               init=0.0) for _ in range(self.parts)]
                for kb in self.range(KT):
                    self.consume(t, base + kb, kb, accs)
                done = [self.wgmma_wait_group(0, acc) for acc in accs]
                self.release(t, (base + KT - 1) % S)
                self.store_c(t, done, om, on)
        if C > 1:
            self.cluster_synchronize()      # no block leaves while written to


class MatmulWgmmaCluster(MatmulWgmmaPersistent):
    """MatmulWgmmaPersistent in clusters of two blocks (sm_90) that share
    their W tiles: a cluster computes a (2 block_m) x block_n tile of C, its
    rank-r block the rows r block_m ..; each block loads its own A tile and
    half of the W tile, which TMA multicast writes into both blocks, so W
    crosses the L2 once per cluster instead of once per block. The
    consumers of both blocks release a stage on both blocks' empty barriers
    (remote arrivals), since either block's producer writes into both. A
    cluster barrier after the barriers are set, and another before the
    blocks leave (no block may exit while its partner can still write to
    it). Takes M (a multiple of 2 block_m), N, K and the number of blocks
    (even)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cluster_blocks = 2

    def load_w(self, t, stage, on, ok):
        """This block's half of the W tile, into both blocks: its part of
        the two, or its half of the one part."""
        if self.parts == 2:
            rows = self.part_n
            halves = [(t.sWs[r], 0, on + r * rows) for r in range(2)]
        else:
            rows = self.bn // 2
            halves = [(t.sWs[0], r * rows, on + r * rows) for r in range(2)]

        def load(r):
            sW, row, col = halves[r]
            self.tma_load(sW, t.gW, t.full, [stage], [stage, row, 0], [col, ok],
                          [rows, self.bk], multicast=True)
        with self.if_then(t.rank.eq(0)):
            load(0)
        with self.otherwise():
            load(1)

    def release(self, t, stage):
        """On both blocks' barriers: both producers write into this block."""
        for r in range(self.cluster_blocks):
            self.mbarrier_arrive_remote(t.empty, [stage], r)

if __name__ == "__main__":
    import os
    import sys
    if len(sys.argv) == 1:
        print(MatmulWgmma().mlir(), end="")
    else:
        os.makedirs(sys.argv[1], exist_ok=True)
        with open(os.path.join(sys.argv[1], "matmul_wgmma_f16.mlir"), "w") as f:
            f.write(MatmulWgmma().mlir())
        with open(os.path.join(sys.argv[1], "matmul_wgmma_tma_f16.mlir"), "w") as f:
            f.write(MatmulWgmmaTma().mlir())
        with open(os.path.join(sys.argv[1], "matmul_wgmma_ws_f16.mlir"), "w") as f:
            f.write(MatmulWgmmaWS().mlir())
        with open(os.path.join(sys.argv[1], "matmul_wgmma_persistent_f16.mlir"), "w") as f:
            f.write(MatmulWgmmaPersistent().mlir())
