"""The paper's Figure 2 (examples/matmul_f16_i6.mlir) in the kernel DSL:
C[M, N] = A[M, K] x B[K, N], A in f16, B in int6 pre-packed on the host
(tilus.weight_pack) to u8[K / 16, N / 8, 96], one 16x8 tile of C per block of
one warp, no shared memory. Its artifact is byte-identical to the .mlir's
(python-bindings/tests/test_dsl.py).

    PYTHONPATH=python-bindings python3 examples/python/matmul_f16_i6.py
"""

import tilus


class Matmul(tilus.Kernel):
    def __init__(self, block_m=16, block_n=8, block_k=16):
        super().__init__()
        self.block_m, self.block_n, self.block_k = block_m, block_n, block_k
        self.layout_a = "column_local(2,2).spatial(8,4).local(1,2)"   # mma.sync A fragment
        self.layout_b = "local(2,1).column_spatial(4,8).local(2,1)"   # mma.sync B fragment
        self.layout_c = "local(2,1).spatial(8,4).local(1,2)"          # the accumulator

    def __call__(self, a_ptr: tilus.pointer(tilus.float16), b_ptr: tilus.pointer(tilus.uint8),
                 c_ptr: tilus.pointer(tilus.float16), m: tilus.int32, n: tilus.int32,
                 k: tilus.int32):
        bm, bn, bk = self.block_m, self.block_n, self.block_k
        self.attrs.name = "matmul"
        self.attrs.blocks = [m // bm, n // bn]
        self.attrs.warps = 1
        tile_bytes = bk * bn * 6 // 8           # 96: one packed int6 tile of B

        M, N, K = self.index(m), self.index(n), self.index(k)
        k_tiles, n_tiles = K // bk, N // bn
        bi, bj = self.block_indices()
        ga = self.view_global(a_ptr, [M, K])
        gb = self.view_global(b_ptr, [k_tiles, n_tiles, tile_bytes])
        gc = self.view_global(c_ptr, [M, N])
        acc = self.allocate_register(tilus.float32, [bm, bn], self.layout_c, init=0.0)
        om, on = bi * bm, bj * bn
        for kk in self.range(k_tiles):
            ra = self.load_global(ga, [om, kk * bk], [bm, bk], self.layout_a)
            rb = self.load_global(gb, [kk, bj, 0], [tile_bytes], "local(3).spatial(32)")
            rb = self.view(rb, tilus.int6, [bk, bn], self.layout_b).to(tilus.float16)
            self.dot(ra, rb, acc, out=acc)      # in place: acc is carried by the loop
        self.store_global(acc.to(tilus.float16), gc, [om, on])


if __name__ == "__main__":
    print(Matmul().mlir(), end="")
