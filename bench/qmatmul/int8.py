"""int8 activations (W-int A8, tilus.ops.quantized_matmul with int8 x and
per-row scales) beside the same weights with f16 activations and cuBLAS f16,
in one run on the GPU machine (issue 14, item 1's int8 activations). Needs
torch and libTilus.so there (kernels compiled in-process).

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/int8.py OUT_DIR

Per type, shape and M: cuBLAS f16 (torch.matmul), the f16-activation kernel
with the configuration quantized_matmul takes, and the int8-activation
kernel with the configuration quantized_matmul takes (runner.choice: the
wgmma variant's above M = 32 on an H100, else choose_config's, as the tuned
table has no int8 entries) and, up to M = 256, each mma.sync configuration of
CANDIDATES that tiles the shape and fits a block's shared memory (the best
of them all is reported, beside the runner's choice). Median of RUNS runs,
each after an L2 flush, CUDA events, random packed weights, group-128
scales. Writes OUT_DIR/int8.txt.
"""
import os
import sys

# bench/copy first: its bench.py (the timing), not this folder's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from operands import weights  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "i4": (tilus.int4, 0), "u3": (tilus.uint3, 4),
         "u8": (tilus.uint8, 128)}
SHAPES = [(57344, 8192), (8192, 8192)]
MS = [1, 16, 64, 128, 256, 4096]
CANDIDATES = [(4, 8, 3, 1, 1), (4, 8, 4, 1, 1), (4, 16, 3, 1, 1), (4, 16, 4, 1, 1),
              (4, 16, 4, 2, 1), (4, 4, 3, 1, 1),
              (8, 2, 3, 1, 1), (4, 2, 3, 2, 1), (4, 2, 3, 4, 1), (4, 8, 3, 2, 1),
              (4, 8, 3, 4, 1), (4, 4, 4, 2, 1)]


def main():
    import torch
    from bench import median_ms
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}; int8 x with per-row scales vs f16 x",
             f"{'type':5} {'M':>4} {'N':>6} {'K':>6} {'cublas us':>9} {'f16 x us':>8} "
             f"{'int8 us':>8} {'int8 config':>16} {'choice us':>9} {'f16/i8':>6} {'x cublas':>8}"]
    print(lines[0], flush=True)
    for n, k, wf, s, tname, dt, off, packed in weights(SHAPES, TYPES, GROUP):
        for m in MS:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            aq, xs = qmatmul.quantize_activations(a)
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            cublas = median_ms(lambda: torch.matmul(a, wf))
            f16 = median_ms(lambda: runner(a, packed, s, wtype=dt, group_size=GROUP,
                                           offset=off, out=c))
            mt = qmatmul.row_tiles(m)
            choice = runner.choice(m, n, k, dt, GROUP, off, tilus.int8)
            times = {}
            for cfg in dict.fromkeys([choice] + (CANDIDATES if m <= 256 else [])):
                if len(cfg) == 5 and not qmatmul.fits(qmatmul._with_row_tiles(cfg, mt), n, k):
                    continue
                try:
                    times[cfg] = median_ms(lambda: runner(aq, packed, s, wtype=dt,
                                                          group_size=GROUP, offset=off,
                                                          out=c, config=cfg, x_scales=xs))
                except tilus.TilusArgumentError:     # more shared memory than a block has
                    continue
            best = min(times, key=times.get)
            i8 = times[best]
            line = (f"{tname:5} {m:4} {n:6} {k:6} {cublas * 1e3:9.2f} {f16 * 1e3:8.2f} "
                    f"{i8 * 1e3:8.2f} {str(best):>16} {times.get(choice, float('nan')) * 1e3:9.2f} "
                    f"{f16 / i8:6.2f} {cublas / i8:8.2f}")
            lines.append(line)
            print(line, flush=True)
    save_table(out_dir, "int8.txt", lines)


if __name__ == "__main__":
    main()
