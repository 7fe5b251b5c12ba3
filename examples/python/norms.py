"""The serving examples of issue 11 in the kernel DSL: softmax
(examples/softmax.mlir), LayerNorm (examples/layernorm.mlir) and SiLU-and-mul
(examples/silu_mul.mlir) over f16 rows of 4096, one row per block of 128
threads, in f32. Each one's artifact is byte-identical to its .mlir's
(python-bindings/tests/test_dsl.py). RMSNorm is examples/python/rmsnorm.py.

    PYTHONPATH=python-bindings python3 examples/python/norms.py softmax|layernorm|silu_mul
"""

import tilus


class RowKernel(tilus.Kernel):
    """One row of `cols` f16 per block: each thread holds cols / (threads *
    vector) chunks of `vector` neighbouring elements (16-byte accesses)."""

    def __init__(self, cols=4096, warps=4, vector=8):
        super().__init__()
        self.cols, self.warps, self.vector = cols, warps, vector
        self.threads = 32 * warps
        chunks = cols // (self.threads * vector)
        self.row_layout = f"local(1,{chunks}).spatial(1,{self.threads}).local(1,{vector})"
        # A row's reduction reshaped to [1, 1]: broadcasts back with no data movement.
        self.scalar_layout = f"reduce(spatial(1,1,{self.threads}),dims=[2])"

    def setup(self, rows):
        self.attrs.blocks = [rows]
        self.attrs.warps = self.warps

    def load_row(self, g, row, col=0):
        return self.load_global(g, [row, col], [1, self.cols], self.row_layout).to(tilus.float32)

    def row_reduce(self, x, kind):
        """The row's sum/max as [1, 1], for broadcasting against the row."""
        return self.reshape(self.reduce(x, [1], kind), [1, 1], self.scalar_layout)


class Softmax(RowKernel):
    def __call__(self, x: tilus.pointer(tilus.float16), y: tilus.pointer(tilus.float16),
                 rows: tilus.int32):
        self.setup(rows)
        R = self.index(rows)
        row = self.block_indices()
        gx = self.view_global(x, [R, self.cols])
        gy = self.view_global(y, [R, self.cols])
        xf = self.load_row(gx, row)
        e = self.exp(xf - self.row_reduce(xf, "max"))    # numerically safe
        p = e / self.row_reduce(e, "sum")
        self.store_global(p.to(tilus.float16), gy, [row, 0])


class LayerNorm(RowKernel):
    def __call__(self, x: tilus.pointer(tilus.float16), w: tilus.pointer(tilus.float16),
                 b: tilus.pointer(tilus.float16), y: tilus.pointer(tilus.float16),
                 rows: tilus.int32, eps: tilus.float32):
        self.setup(rows)
        self.attrs.name = "layernorm"
        inv = 1.0 / self.cols
        R = self.index(rows)
        row = self.block_indices()
        gx = self.view_global(x, [R, self.cols])
        gy = self.view_global(y, [R, self.cols])
        gw = self.view_global(w, [1, self.cols])
        gb = self.view_global(b, [1, self.cols])
        xf = self.load_row(gx, row)
        mean = self.sum(xf, [1]) * inv
        d = xf - self.reshape(mean, [1, 1], self.scalar_layout)
        var = self.sum(d * d, [1]) * inv
        r = self.rsqrt(var + eps)
        n = d * self.reshape(r, [1, 1], self.scalar_layout)
        wh = self.load_global(gw, [0, 0], [1, self.cols], self.row_layout)
        bh = self.load_global(gb, [0, 0], [1, self.cols], self.row_layout)
        o = n * wh.to(tilus.float32) + bh.to(tilus.float32)
        self.store_global(o.to(tilus.float16), gy, [row, 0])


class SiluMul(RowKernel):
    """out[r] = silu(in[r, :cols]) * in[r, cols:] for rows of 2 * cols."""

    def __call__(self, inp: tilus.pointer(tilus.float16), out: tilus.pointer(tilus.float16),
                 rows: tilus.int32):
        self.setup(rows)
        R = self.index(rows)
        row = self.block_indices()
        gi = self.view_global(inp, [R, 2 * self.cols])
        go = self.view_global(out, [R, self.cols])
        xh = self.load_global(gi, [row, 0], [1, self.cols], self.row_layout)
        gh = self.load_global(gi, [row, self.cols], [1, self.cols], self.row_layout)
        x, g = xh.to(tilus.float32), gh.to(tilus.float32)
        silu = x / (self.exp(-x) + 1.0)
        self.store_global((silu * g).to(tilus.float16), go, [row, 0])


if __name__ == "__main__":
    import sys
    kernels = {"softmax": Softmax, "layernorm": LayerNorm, "silu_mul": SiluMul}
    print(kernels[sys.argv[1] if len(sys.argv) > 1 else "softmax"]().mlir(), end="")
