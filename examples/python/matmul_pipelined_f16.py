"""The paper's Figure 14 with an f16 B operand (examples/matmul_pipelined_f16.mlir)
in the kernel DSL: C[M, N] = A[M, K] x B[K, N], f32 accumulation, one
16 x 32 tile of C per block of 4 warps, K in tiles of 256 through a
three-stage cp.async pipeline (see the .mlir for the design). The 16 k steps
of a tile are unrolled while tracing (self.range(..., unroll=True)); the
accumulator and the next step's fragments are carried by the K loop through
assign(). Its artifact is byte-identical to the .mlir's
(python-bindings/tests/test_dsl.py). Other tile configurations make the
benchmark's kernels (CONFIGS, written by test/gpu/generate.py for the GPU
suite and bench/gemm). Kernel arguments: a, b, c, M, N / BN, K / BK (the tile
counts make the row alignment of the 16-byte copies provable); grid: (M / BM
rounded up, N / BN).

    PYTHONPATH=python-bindings python3 examples/python/matmul_pipelined_f16.py
    PYTHONPATH=python-bindings python3 examples/python/matmul_pipelined_f16.py OUT_DIR \
        [NAME BM BN BK WM WN STAGES]...
"""

import tilus


def _log_step(row_bytes):
    """Swizzle step for rows of `row_bytes`: 8 consecutive rows XOR 8
    different 16-byte chunks of one 128-byte bank period."""
    return 0 if row_bytes >= 128 else (128 // row_bytes).bit_length() - 1


class MatmulPipelined(tilus.Kernel):
    """A block of warps_m x warps_n warps computes a block_m x block_n tile
    of C, K in tiles of block_k through `stages` shared buffers per operand
    (BM BN BK WM WN STAGES)."""

    def __init__(self, block_m=16, block_n=32, block_k=256, warps_m=1, warps_n=4, stages=3):
        super().__init__()
        self.bm, self.bn, self.bk = block_m, block_n, block_k
        self.warps, self.stages = warps_m * warps_n, stages
        wm, wn, S = warps_m, warps_n, stages
        mt, nt = block_m // wm // 16, block_n // wn // 8     # mma tiles per warp
        # Shared stages: 16-byte chunks swizzled with the row (no bank conflicts).
        self.shared_a = (f"local({S},1,1).swizzle(local({block_m},{block_k // 8}), dim=1, "
                         f"log_step={_log_step(block_k * 2)}).local(1,8)")
        self.shared_b = (f"local({S},1,1).swizzle(local({block_k},{block_n // 8}), dim=1, "
                         f"log_step={_log_step(block_n * 2)}).local(1,8)")
        self.shared_c = (f"swizzle(local({block_m},{block_n // 8}), dim=1, "
                         f"log_step={_log_step(block_n * 2)}).local(1,8)")
        # mma.sync fragments: A replicated across the warps along N, B across
        # the warps along M.
        self.reg_a = (f"reduce(spatial({wm},1,{wn}), dims=[2]).local({mt},1).column_local(2,2)"
                      f".spatial(8,4).local(1,2)")
        self.reg_b = (f"reduce(spatial({wm},1,{wn}), dims=[0]).local(1,{nt}).local(2,1)"
                      f".column_spatial(4,8).local(2,1)")
        self.reg_c = f"spatial({wm},{wn}).local({mt},{nt}).local(2,1).spatial(8,4).local(1,2)"
        # The epilogue's coalesced store: up to 8 f16 (16 bytes) per thread and row.
        threads = 32 * self.warps
        per_thread = block_m * block_n // threads
        v = min(per_thread, 8)
        cols = block_n // v
        rows = threads // cols
        self.reg_out = f"local({block_m // rows},1).spatial({rows},{cols}).local(1,{v})"

    def __call__(self, a: tilus.pointer(tilus.float16), b: tilus.pointer(tilus.float16),
                 c: tilus.pointer(tilus.float16), m: tilus.int32, nt: tilus.int32,
                 kt: tilus.int32):
        bm, bn, bk, S = self.bm, self.bn, self.bk, self.stages
        self.attrs.name = "matmul"
        self.attrs.blocks = [tilus.cdiv(m, bm), nt]
        self.attrs.warps = self.warps
        f16, f32 = tilus.float16, tilus.float32

        M, NT, KT = self.index(m), self.index(nt), self.index(kt)
        N, K = NT * bn, KT * bk
        bi, bj = self.block_indices()
        om, on = bi * bm, bj * bn
        gA = self.view_global(a, [M, K])
        gB = self.view_global(b, [K, N])
        gC = self.view_global(c, [M, N])
        sA = self.allocate_shared(f16, [S, bm, bk], self.shared_a)
        sB = self.allocate_shared(f16, [S, bk, bn], self.shared_b)
        acc = self.allocate_register(f32, [bm, bn], self.reg_c, init=0.0)

        def load_a(stage, k):
            return self.load_shared(sA, [stage, 0, k], [bm, 16], self.reg_a)

        def load_b(stage, k):
            return self.load_shared(sB, [stage, k, 0], [16, bn], self.reg_b)

        # Prologue: the first S - 1 tiles of K in flight.
        for s in self.range(S - 1):
            ok = s * bk
            self.copy_async(sA, gA, [s, 0, 0], [om, ok], [bm, bk])
            self.copy_async(sB, gB, [s, 0, 0], [ok, on], [bk, bn])
            self.copy_async_commit_group()
        self.copy_async_wait_group(S - 2)
        self.synchronize()
        ra, rb = load_a(0, 0), load_b(0, 0)
        for kb in self.range(KT):
            # Refill the stage read in the previous iteration (past K: zero-filled).
            ahead = kb + (S - 1)
            pre, opre = ahead % S, ahead * bk
            self.copy_async(sA, gA, [pre, 0, 0], [om, opre], [bm, bk])
            self.copy_async(sB, gB, [pre, 0, 0], [opre, on], [bk, bn])
            self.copy_async_commit_group()
            cur, nxt = kb % S, (kb + 1) % S
            a_k, b_k = ra, rb
            for step in self.range(1, bk // 16, unroll=True):
                a_next, b_next = load_a(cur, 16 * step), load_b(cur, 16 * step)
                acc.assign(self.dot(a_k, b_k, acc))
                a_k, b_k = a_next, b_next
            # The last step: wait for the next tile and load its first fragments.
            self.copy_async_wait_group(S - 2)
            self.synchronize()
            ra.assign(load_a(nxt, 0))
            rb.assign(load_b(nxt, 0))
            acc.assign(self.dot(a_k, b_k, acc))
        # Epilogue: drain the copies in flight, then f16 through shared memory.
        self.copy_async_wait_group(0)
        self.synchronize()
        h = acc.to(f16)
        sC = self.allocate_shared(f16, [bm, bn], self.shared_c)
        self.store_shared(h, sC, [0, 0])
        self.synchronize()
        self.store_global(self.load_shared(sC, [0, 0], [bm, bn], self.reg_out), gC, [om, on])


# The benchmark's and the GPU suite's configurations (test/gpu/generate.py):
# name: (BM, BN, BK, WM, WN, STAGES).
CONFIGS = {
    "matmul_f16_decode": (16, 64, 256, 1, 8, 3),
    "matmul_f16_large": (256, 128, 32, 4, 2, 4),
    "matmul_f16_medium": (128, 128, 32, 2, 2, 4),
}


if __name__ == "__main__":
    # matmul_pipelined_f16.py                     prints the example's MLIR
    # matmul_pipelined_f16.py OUT [NAME BM BN BK WM WN STAGES]...
    #     writes OUT/NAME.mlir for each configuration (with none, CONFIGS)
    import os
    import sys
    if len(sys.argv) == 1:
        print(MatmulPipelined().mlir(), end="")
    else:
        out, rest = sys.argv[1], sys.argv[2:]
        configs = {rest[i]: tuple(int(v) for v in rest[i + 1:i + 7])
                   for i in range(0, len(rest), 7)} if rest else CONFIGS
        os.makedirs(out, exist_ok=True)
        for name, config in configs.items():
            with open(os.path.join(out, name + ".mlir"), "w") as f:
                f.write(MatmulPipelined(*config).mlir())
