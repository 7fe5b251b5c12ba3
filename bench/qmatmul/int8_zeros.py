"""int8 activations with zero points (uint8 codes, GPTQ/AWQ style) beside the
same uint4 weights with the symmetric offset 8 and cuBLAS f16, in one run on
the GPU machine. Needs torch and libTilus.so there (kernels compiled
in-process).

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/int8_zeros.py OUT_DIR

Per shape and M: cuBLAS f16 (torch.matmul), then quantized_matmul with int8
x and per-row scales on the same random uint4 codes: offset 8 (stored as
int4, no subtraction), and random zero codes 0..15 per group of 128 (three
integer operations per word of four weights, one byte per column and group
more). The configuration quantized_matmul takes. Median of the runs, each
after an L2 flush, CUDA events. Writes OUT_DIR/int8-zeros.txt.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
SHAPES = [(57344, 8192), (8192, 28672), (8192, 8192)]
MS = [1, 16, 128, 256]


def main():
    import torch
    from bench import median_ms
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    lines = [f"device: {torch.cuda.get_device_name()}; int8 x, uint4 weights, group {GROUP}",
             f"{'M':>4} {'N':>6} {'K':>6} {'cublas us':>9} {'offset us':>9} {'zeros us':>9} "
             f"{'zeros/offset':>12} {'x cublas':>8}"]
    print(lines[0], flush=True)
    for n, k in SHAPES:
        codes = torch.randint(0, 16, (k, n), dtype=torch.uint8, device="cuda")
        q_zero = qmatmul.pack_on_device(codes, tilus.uint4, 0, activation=tilus.int8)
        q_off = qmatmul.pack_on_device(codes, tilus.uint4, 8, activation=tilus.int8)
        s = (torch.rand(k // GROUP, n, device="cuda") * 0.01 + 0.001).half()
        z = torch.randint(0, 16, (k // GROUP, n), dtype=torch.uint8, device="cuda")
        wf = torch.randn(k, n, dtype=torch.float16, device="cuda")
        for m in MS:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            aq, xs = qmatmul.quantize_activations(a)
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            cublas = median_ms(lambda: torch.matmul(a, wf))
            off = median_ms(lambda: qmatmul.quantized_matmul(
                aq, q_off, s, wtype=tilus.uint4, group_size=GROUP, offset=8, out=c,
                x_scales=xs))
            zero = median_ms(lambda: qmatmul.quantized_matmul(
                aq, q_zero, s, z, wtype=tilus.uint4, group_size=GROUP, out=c, x_scales=xs))
            line = (f"{m:4} {n:6} {k:6} {cublas * 1e3:9.2f} {off * 1e3:9.2f} {zero * 1e3:9.2f} "
                    f"{zero / off:12.3f} {cublas / zero:8.2f}")
            lines.append(line)
            print(line, flush=True)
    save_table(out_dir, "int8-zeros.txt", lines)


if __name__ == "__main__":
    main()
