"""The paper's Figure 2 kernel for weight types of 1 to 8 bits
(matmul_f16_<type>): C[M, N] (f16) = A[M, K] (f16) x B[K, N] (the type), one
16 x 16 tile of C per block of 32 threads, B pre-transformed by
tilusWeightPack into [K / 16, N / 16, 32 * b] bytes loaded as the packed
layout local(n2).spatial(32).local(n1) (b bytes per thread), then View, Cast
to f16 and Dot. (examples/python/matmul_f16_i6.py is the int6 one with
16 x 8 tiles.)"""

import math

import tilus

LAYOUT_A = "column_local(2,2).spatial(8,4).local(1,2)"    # mma.sync A fragments
LAYOUT_B = "local(2,2).column_spatial(4,8).local(2,1)"    # mma.sync B fragments
LAYOUT_C = "local(2,2).spatial(8,4).local(1,2)"           # the accumulator


def packed_layout(bits):
    """The bytes of one packed 16 x 16 tile: b = bits bytes per thread, in
    runs of n1 = gcd(b, 16) (tilus.weight_packed_layout's)."""
    n1 = math.gcd(bits, 16)
    return f"local({bits // n1}).spatial(32).local({n1})"


class MatmulLowPrecision(tilus.Kernel):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.attrs.name = "matmul"
        self.attrs.warps = 1

    def __call__(self, a: tilus.pointer(tilus.float16), b: tilus.pointer(tilus.uint8),
                 c: tilus.pointer(tilus.float16), m: tilus.int32, n: tilus.int32,
                 k: tilus.int32):
        tile_bytes = 32 * self.dtype.bits
        self.attrs.blocks = [tilus.cdiv(m, 16), tilus.cdiv(n, 16)]
        M, N, K = self.index(m), self.index(n), self.index(k)
        k_tiles, n_tiles = K // 16, N // 16
        bi, bj = self.block_indices()
        ga = self.view_global(a, [M, K])
        gb = self.view_global(b, [k_tiles, n_tiles, tile_bytes])
        gc = self.view_global(c, [M, N])
        acc = self.allocate_register(tilus.float32, [16, 16], LAYOUT_C, init=0.0)
        om, on = bi * 16, bj * 16
        for kk in self.range(k_tiles):
            ra = self.load_global(ga, [om, kk * 16], [16, 16], LAYOUT_A)
            rq = self.load_global(gb, [kk, bj, 0], [tile_bytes], packed_layout(self.dtype.bits))
            rb = self.view(rq, self.dtype, [16, 16], LAYOUT_B).to(tilus.float16)
            self.dot(ra, rb, acc, out=acc)      # acc is carried by the loop
        self.store_global(acc.to(tilus.float16), gc, [om, on])


# The suite's weight types (f6e3m2 is e3m2 under the name the suite uses).
WEIGHTS = {"u1": tilus.uint1, "u2": tilus.uint2, "u3": tilus.uint3, "u4": tilus.uint4,
           "i4": tilus.int4, "u5": tilus.uint5, "f6e3m2": tilus.float6_e3m2,
           "u7": tilus.uint7, "u8": tilus.uint8}
MODULES = {f"matmul_f16_{name}": [MatmulLowPrecision(t)] for name, t in WEIGHTS.items()}
