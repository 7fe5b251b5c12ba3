"""RMSNorm of f16 rows (examples/rmsnorm.mlir) in the kernel DSL:
y = x / sqrt(mean(x^2) + eps) * w, in f32, one row per block. Its artifact
is byte-identical to the .mlir's (python-bindings/tests/test_dsl.py).

    PYTHONPATH=python-bindings python3 examples/python/rmsnorm.py   # prints the MLIR
"""

import tilus


class RmsNorm(tilus.Kernel):
    def __init__(self, cols=4096, warps=4, vector=8):
        super().__init__()
        self.cols, self.warps, self.vector = cols, warps, vector

    def __call__(self, x: tilus.pointer(tilus.float16), w: tilus.pointer(tilus.float16),
                 y: tilus.pointer(tilus.float16), rows: tilus.int32, eps: tilus.float32):
        threads = 32 * self.warps
        chunks = self.cols // (threads * self.vector)
        self.attrs.name = "rmsnorm"
        self.attrs.blocks = [rows]
        self.attrs.warps = self.warps
        row_layout = f"local(1,{chunks}).spatial(1,{threads}).local(1,{self.vector})"
        sum_layout = f"reduce(spatial(1,1,{threads}),dims=[2])"   # [1, 1], each thread a copy

        R = self.index(rows)
        row = self.block_indices()
        gx = self.view_global(x, [R, self.cols])
        gy = self.view_global(y, [R, self.cols])
        gw = self.view_global(w, [1, self.cols])
        xf = self.load_global(gx, [row, 0], [1, self.cols], row_layout).to(tilus.float32)
        # The weight is loaded with x, so that its latency overlaps the reduction.
        wf = self.load_global(gw, [0, 0], [1, self.cols], row_layout).to(tilus.float32)
        ss = self.sum(xf * xf, dims=[1])                 # [1]: reduce(spatial(1,128),dims=[1])
        r = self.rsqrt(ss * (1.0 / self.cols) + eps)
        yf = xf * self.reshape(r, [1, 1], sum_layout)    # broadcast over the row
        self.store_global((yf * wf).to(tilus.float16), gy, [row, 0])


if __name__ == "__main__":
    print(RmsNorm().mlir(), end="")
