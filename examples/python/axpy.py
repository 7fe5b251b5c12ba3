"""The tutorial's axpy (examples/tutorial/axpy.mlir, docs/tutorial.md) in the
kernel DSL: y = a * x + y over f32 vectors of n elements. Each block of 128
threads handles 512 elements, each thread 4 neighbouring ones (16-byte
accesses); the last block is masked at n. Its artifact is byte-identical to
the .mlir's (python-bindings/tests/test_dsl.py).

    PYTHONPATH=python-bindings python3 examples/python/axpy.py   # prints the MLIR
"""

import tilus


class Axpy(tilus.Kernel):
    def __init__(self, tile=512, warps=4):
        super().__init__()
        self.tile = tile
        self.warps = warps

    def __call__(self, x: tilus.pointer(tilus.float32), y: tilus.pointer(tilus.float32),
                 a: tilus.float32, n: tilus.int32):
        self.attrs.blocks = [tilus.cdiv(n, self.tile)]
        self.attrs.warps = self.warps
        layout = tilus.spatial(32 * self.warps).local(self.tile // (32 * self.warps))

        length = self.index(n)
        start = self.block_indices() * self.tile
        gx = self.view_global(x, [length])
        gy = self.view_global(y, [length])
        rx = self.load_global(gx, [start], [self.tile], layout)
        ry = self.load_global(gy, [start], [self.tile], layout)
        self.store_global(rx * a + ry, gy, [start])


if __name__ == "__main__":
    print(Axpy().mlir(), end="")
