"""The paper's Figure 14 with an f16 B operand (examples/matmul_pipelined_f16.mlir)
in the kernel DSL: C[M, N] = A[M, K] x B[K, N], f32 accumulation, one
16 x 32 tile of C per block of 4 warps, K in tiles of 256 through a
three-stage cp.async pipeline (see the .mlir for the design). The 16 k steps
of a tile are unrolled while tracing (self.range(..., unroll=True)); the
accumulator and the next step's fragments are carried by the K loop through
assign(). Its artifact is byte-identical to the .mlir's
(python-bindings/tests/test_dsl.py).

    PYTHONPATH=python-bindings python3 examples/python/matmul_pipelined_f16.py
"""

import tilus


class MatmulPipelined(tilus.Kernel):
    def __init__(self, block_m=16, block_n=32, block_k=256, warps=4, stages=3):
        super().__init__()
        self.bm, self.bn, self.bk = block_m, block_n, block_k
        self.warps, self.stages = warps, stages
        w = warps
        # Shared stages: 16-byte chunks swizzled with the row (no bank conflicts).
        self.shared_a = (f"local({stages},1,1).swizzle(local({block_m},{block_k // 8}), dim=1, "
                         f"log_step=0).local(1,8)")
        self.shared_b = (f"local({stages},1,1).swizzle(local({block_k},{block_n // 8}), dim=1, "
                         f"log_step=1).local(1,8)")
        self.shared_c = f"swizzle(local({block_m},{block_n // 8}), dim=1, log_step=1).local(1,8)"
        # mma.sync fragments; warps split N, A is replicated in all of them.
        self.reg_a = (f"reduce(spatial(1,1,{w}), dims=[2]).local(1,1).column_local(2,2)"
                      f".spatial(8,4).local(1,2)")
        self.reg_b = (f"reduce(spatial(1,1,{w}), dims=[0]).local(1,1).local(2,1)"
                      f".column_spatial(4,8).local(2,1)")
        self.reg_c = f"spatial(1,{w}).local(1,1).local(2,1).spatial(8,4).local(1,2)"
        self.reg_out = "local(1,1).spatial(16,8).local(1,4)"

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


if __name__ == "__main__":
    print(MatmulPipelined().mlir(), end="")
