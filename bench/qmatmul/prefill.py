"""tilus.ops.quantized_matmul at prefill (issue 15's bar: M = 2048, 4096 and
8192 at N = 57344, K = 8192, group 128, for u4, i4, u3, f6e3m2 and u8, at
least as fast as cuBLAS f16 on the same M, N, K), beside cuBLAS f16
(torch.matmul) in one run on the GPU machine. Needs torch and libTilus.so
there (the kernels are compiled in-process; the self-contained library
serves where MLIR is absent).

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/prefill.py OUT_DIR [M,...] [N:K,...]

Each point uses the configuration quantized_matmul itself would take
(runner.choice: on an H100 above M = 128 the warp-specialized wgmma
variant's (warpgroups, block_m, stages, lag)), on random packed weights
with group-128 scales: the median of RUNS runs, each after an L2 flush,
with CUDA events. Writes OUT_DIR/prefill.txt.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from llama import GROUP, TYPES  # noqa: E402
from operands import weights  # noqa: E402
from report import save_table  # noqa: E402

SHAPES = [(57344, 8192)]
MS = [2048, 4096, 8192]
RUNS = 20


def main():
    import torch
    from tilus.timing import median_ms
    out_dir = sys.argv[1]
    ms_list = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else MS
    shapes = ([tuple(int(v) for v in s.split(":")) for s in sys.argv[3].split(",")]
              if len(sys.argv) > 3 else SHAPES)
    os.makedirs(out_dir, exist_ok=True)
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}",
             f"{'type':7} {'M':>5} {'N':>6} {'K':>6} {'config':>16} {'us':>9} {'TFLOP/s':>7} "
             f"{'cublas us':>9} {'TFLOP/s':>7} {'x cublas':>8}"]
    print(lines[0], flush=True)
    cublas = {}
    for n, k, wf, s, tname, dt, off, packed in weights(shapes, TYPES, GROUP):
        for m in ms_list:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            if (m, n, k) not in cublas:
                cublas[m, n, k] = median_ms(lambda: torch.matmul(a, wf), RUNS)
            cub = cublas[m, n, k]
            cfg = runner.choice(m, n, k, dt, GROUP, off)
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            ms = median_ms(lambda: runner(a, packed, s, wtype=dt, group_size=GROUP,
                                          offset=off, out=c, config=cfg), RUNS)
            flop = 2 * m * n * k
            line = (f"{tname:7} {m:5} {n:6} {k:6} {str(cfg):>16} {ms * 1e3:9.1f} "
                    f"{flop / ms / 1e9:7.0f} {cub * 1e3:9.1f} {flop / cub / 1e9:7.0f} "
                    f"{cub / ms:8.3f}")
            lines.append(line)
            print(line, flush=True)
    save_table(out_dir, "prefill.txt" if shapes == SHAPES else "prefill-shapes.txt", lines)


if __name__ == "__main__":
    main()
