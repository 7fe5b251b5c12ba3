"""LoadGlobal and StoreGlobal of compact sub-byte tensors (the generic
bit-field paths, elements straddling bytes) for int4, uint3, uint1 and
float6_e3m2 (load_<type>): a [M, N] tensor of run-time size, one 16 x 24
tile per block at offsets from BlockIndices (edges masked).
    load:   sub-byte tile -> Cast to f32 -> stored as f32
    store:  f32 tile -> Cast to the type -> stored compactly (neighbouring
            threads write bits of one 32-bit word)
    shared: sub-byte tile -> StoreShared into a compact shared tensor ->
            LoadShared in another layout -> StoreGlobal (a copy)"""

import tilus

TILE = "spatial(8,4).local(2,6)"


class _Tile(tilus.Kernel):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.attrs.warps = 1

    def _tile(self, m, n):
        """The grid of 16 x 24 tiles over [m, n]; (M, N, row, col) of this block's tile."""
        self.attrs.blocks = [tilus.cdiv(m, 16), tilus.cdiv(n, 24)]
        M, N = self.index(m), self.index(n)
        bi, bj = self.block_indices()
        return M, N, bi * 16, bj * 24


class Load(_Tile):
    def __call__(self, p: tilus.pointer(tilus.uint8), q: tilus.pointer(tilus.float32),
                 m: tilus.int32, n: tilus.int32):
        M, N, row, col = self._tile(m, n)
        g = self.view_global(p, [M, N], dtype=self.dtype)
        gf = self.view_global(q, [M, N])
        r = self.load_global(g, [row, col], [16, 24], TILE)
        self.store_global(r.to(tilus.float32), gf, [row, col])


class Store(_Tile):
    def __call__(self, q: tilus.pointer(tilus.float32), p: tilus.pointer(tilus.uint8),
                 m: tilus.int32, n: tilus.int32):
        M, N, row, col = self._tile(m, n)
        g = self.view_global(p, [M, N], dtype=self.dtype)
        gf = self.view_global(q, [M, N])
        f = self.load_global(gf, [row, col], [16, 24], TILE)
        self.store_global(f.to(self.dtype), g, [row, col])


class Shared(_Tile):
    def __call__(self, p: tilus.pointer(tilus.uint8), q: tilus.pointer(tilus.uint8),
                 m: tilus.int32, n: tilus.int32):
        M, N, row, col = self._tile(m, n)
        g = self.view_global(p, [M, N], dtype=self.dtype)
        h = self.view_global(q, [M, N], dtype=self.dtype)
        r = self.load_global(g, [row, col], [16, 24], TILE)
        s = self.allocate_shared(self.dtype, [16, 24], "local(16,24)")
        self.store_shared(r, s, [0, 0])
        self.synchronize()
        t = self.load_shared(s, [0, 0], [16, 24], "local(2,1).spatial(8,4).local(1,6)")
        self.store_global(t, h, [row, col])


TYPES = {"i4": tilus.int4, "u3": tilus.uint3, "u1": tilus.uint1,
         "f6e3m2": tilus.float6_e3m2}
MODULES = {f"load_{name}": [Load(t), Store(t), Shared(t)] for name, t in TYPES.items()}
