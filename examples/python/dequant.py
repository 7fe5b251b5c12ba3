"""The dequantization kernel of one weight type, bench/dequant's: packed
weights in global memory -> registers (as bytes) -> View as the type -> Cast
to f16 -> store. 128 threads per block, 32 elements per thread as
local(4).spatial(128).local(8): four chunks of 8 elements (b bytes in, 16
bytes out), so that each store instruction of a warp writes 512 contiguous
bytes (spatial(128).local(32), one 64-byte run per thread, spreads every
store instruction over 2 KiB and measured at 0.37-0.63 of copy bandwidth).
test/gpu/generate.py writes it for each of TYPES (dequant_<name>).

    PYTHONPATH=python-bindings python3 examples/python/dequant.py [TYPE]   # e.g. int6
"""

import tilus

# The benchmark's kernels: name: weight type.
TYPES = {
    "u1": tilus.uint1, "u2": tilus.uint2, "u3": tilus.uint3, "u4": tilus.uint4,
    "i4": tilus.int4, "u5": tilus.uint5, "i6": tilus.int6, "f6e3m2": tilus.float6_e3m2,
    "u7": tilus.uint7, "u8": tilus.uint8, "e4m3": tilus.float8_e4m3,
    "e2m1": tilus.float4_e2m1,
}


class Dequant(tilus.Kernel):
    def __init__(self, dtype, warps=4, chunks=4, vector=8):
        super().__init__()
        self.dtype, self.warps, self.chunks, self.vector = dtype, warps, chunks, vector

    def __call__(self, src: tilus.pointer(tilus.uint8), dst: tilus.pointer(tilus.float16),
                 n: tilus.int32):
        bits, threads = self.dtype.bits, 32 * self.warps
        tile = self.chunks * threads * self.vector              # elements per block
        tile_bytes = tile * bits // 8
        self.attrs.name = "dequant"
        self.attrs.blocks = [tilus.cdiv(n, tile)]
        self.attrs.warps = self.warps

        N = self.index(n)
        bi = self.block_indices()
        byte_offset, offset = bi * tile_bytes, bi * tile
        gs = self.view_global(src, [N * bits // 8])
        gd = self.view_global(dst, [N])
        raw = self.load_global(gs, [byte_offset], [tile_bytes],
                               f"local({self.chunks}).spatial({threads}).local({bits})")
        layout = f"local({self.chunks}).spatial({threads}).local({self.vector})"
        w = self.view(raw, self.dtype, [tile], layout)
        self.store_global(w.to(tilus.float16), gd, [offset])


if __name__ == "__main__":
    import sys
    print(Dequant(tilus.dtype(sys.argv[1]) if len(sys.argv) > 1 else tilus.int6).mlir(), end="")
