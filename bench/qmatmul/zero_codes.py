"""Zero points as uint8 codes (GPTQ/AWQ style) with int8 and FP8 (E4M3)
activations, beside the same uint4 weights with the symmetric offset 8 and
cuBLAS f16, in one run on the GPU machine. Needs torch and libTilus.so there
(kernels compiled in-process); FP8 needs an sm_90 GPU.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/zero_codes.py OUT_DIR

Per activation type, shape and M: cuBLAS f16 (torch.matmul), then
quantized_matmul with the activations and per-row scales on the same random
uint4 codes: offset 8 (stored as int4), and random zero codes 0..15 per
group of 128 (subtracted in the cast: two integer operations per word of
four weights for int8, ten for FP8's sign and magnitude; one byte per column
and group more). The configuration quantized_matmul takes. Median of the
runs, each after an L2 flush, CUDA events. Writes OUT_DIR/zero-codes.txt.
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
MS = {"int8": [1, 16, 128, 256], "float8_e4m3": [1, 16, 256, 4096]}


def activations(torch, x, name):
    """(x in the activation type, its f32 row scales)."""
    if name == "int8":
        return qmatmul.quantize_activations(x)
    return x.to(torch.float8_e4m3fn), torch.rand(x.shape[0], device="cuda") + 0.5


def main():
    import torch
    from bench import median_ms
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    lines = [f"device: {torch.cuda.get_device_name()}; uint4 weights, group {GROUP}",
             f"{'x':12} {'M':>4} {'N':>6} {'K':>6} {'cublas us':>9} {'offset us':>9} "
             f"{'zeros us':>9} {'zeros/offset':>12} {'x cublas':>8}"]
    print(lines[0], flush=True)
    names = ["int8"] + (["float8_e4m3"] if torch.cuda.get_device_capability() == (9, 0) else [])
    for name in names:
        act = tilus.dtype(name)
        for n, k in SHAPES:
            codes = torch.randint(0, 16, (k, n), dtype=torch.uint8, device="cuda")
            q_zero = qmatmul.pack_on_device(codes, tilus.uint4, 0, activation=act)
            q_off = qmatmul.pack_on_device(codes, tilus.uint4, 8, activation=act)
            s = (torch.rand(k // GROUP, n, device="cuda") * 0.01 + 0.001).half()
            z = torch.randint(0, 16, (k // GROUP, n), dtype=torch.uint8, device="cuda")
            wf = torch.randn(k, n, dtype=torch.float16, device="cuda")
            for m in MS[name]:
                a = torch.randn(m, k, dtype=torch.float16, device="cuda")
                aq, xs = activations(torch, a, name)
                c = torch.empty(m, n, dtype=torch.float16, device="cuda")
                cublas = median_ms(lambda: torch.matmul(a, wf))
                off = median_ms(lambda: qmatmul.quantized_matmul(
                    aq, q_off, s, wtype=tilus.uint4, group_size=GROUP, offset=8, out=c,
                    x_scales=xs))
                zero = median_ms(lambda: qmatmul.quantized_matmul(
                    aq, q_zero, s, z, wtype=tilus.uint4, group_size=GROUP, out=c,
                    x_scales=xs))
                line = (f"{name:12} {m:4} {n:6} {k:6} {cublas * 1e3:9.2f} {off * 1e3:9.2f} "
                        f"{zero * 1e3:9.2f} {zero / off:12.3f} {cublas / zero:8.2f}")
                lines.append(line)
                print(line, flush=True)
    save_table(out_dir, "zero-codes.txt", lines)


if __name__ == "__main__":
    main()
