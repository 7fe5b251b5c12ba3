"""The weight pre-transform ("Change Layout", paper Figure 8) as a Tilus
program, for every low-precision type (pack_<type>):
    pack:   compact [K, N] -> LoadGlobal of a 16 x 16 tile in the Figure 2
            weight layout -> View as bytes local(n2).spatial(32).local(n1)
            -> StoreGlobal into [K / 16, N / 16, 32 * b] bytes
    unpack: the inverse (LoadGlobal of bytes, View, sub-byte StoreGlobal)
the same format as tilusWeightPack (test/gpu/suite/ compares them)."""

import tilus

from .low_precision import TYPES
from .matmul_kernels import LAYOUT_B, packed_layout


class _PackTile(tilus.Kernel):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.tile_bytes = 32 * dtype.bits
        self.bytes_layout = packed_layout(dtype.bits)
        self.attrs.warps = 1

    def _tile(self, k, n):
        """The grid of 16 x 16 tiles over [k, n]; (K, N, k_tiles, n_tiles, bi, bj)."""
        self.attrs.blocks = [tilus.cdiv(k, 16), tilus.cdiv(n, 16)]
        K, N = self.index(k), self.index(n)
        k_tiles, n_tiles = K // 16, N // 16
        bi, bj = self.block_indices()
        return K, N, k_tiles, n_tiles, bi, bj


class Pack(_PackTile):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.uint8),
                 k: tilus.int32, n: tilus.int32):
        K, N, k_tiles, n_tiles, bi, bj = self._tile(k, n)
        gw = self.view_global(src, [K, N], dtype=self.dtype)
        gp = self.view_global(dst, [k_tiles, n_tiles, self.tile_bytes])
        w = self.load_global(gw, [bi * 16, bj * 16], [16, 16], LAYOUT_B)
        q = self.view(w, tilus.uint8, [self.tile_bytes], self.bytes_layout)
        self.store_global(q, gp, [bi, bj, 0])


class Unpack(_PackTile):
    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.uint8),
                 k: tilus.int32, n: tilus.int32):
        K, N, k_tiles, n_tiles, bi, bj = self._tile(k, n)
        gp = self.view_global(src, [k_tiles, n_tiles, self.tile_bytes])
        gw = self.view_global(dst, [K, N], dtype=self.dtype)
        q = self.load_global(gp, [bi, bj, 0], [self.tile_bytes], self.bytes_layout)
        w = self.view(q, self.dtype, [16, 16], LAYOUT_B)
        self.store_global(w, gw, [bi * 16, bj * 16])


MODULES = {f"pack_{name}": [Pack(t), Unpack(t)] for name, t in TYPES.items()}
