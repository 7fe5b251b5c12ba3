"""FP8 (E4M3) activations with 4-bit weights, W4A8 (issue 15's bar: at M = 4096,
N = 57344, K = 8192, at least 1.5x cuBLAS f16), beside cuBLAS f16 (torch.matmul)
and cuBLAS FP8 (torch._scaled_mm, per-tensor scales: no weight decoding, no
group scales) in one run on the GPU machine. Needs torch and libTilus.so there
(the kernels are compiled in-process; the self-contained library serves where
MLIR is absent).

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/w4a8.py OUT_DIR [M,...] [N:K,...] [CFG ...]

Each point is tilus.ops.quantized_matmul with float8_e4m3fn x and f32 row
scales, on random packed weights (any byte is a valid code of these types)
with f16 scales: int4 with groups of 128 and per channel (K), uint4 with the
symmetric offset 8 and groups of 128; the configuration the runner takes
(fp8_config), or each CFG given as warpgroups,block_m,stages,lag; at N =
57344, K = 8192 or the N:K shapes given. Median of RUNS runs, each after an
L2 flush, with CUDA events. Writes OUT_DIR/w4a8.txt (w4a8-shapes.txt with
shapes given).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from report import save_table  # noqa: E402

N, K = 57344, 8192
MS = [2048, 4096, 8192]
RUNS = 20
CASES = [(tilus.int4, 0, 128), (tilus.uint4, 8, 128), (tilus.int4, 0, K)]


def main():
    import torch
    from tilus.timing import median_ms
    out_dir = sys.argv[1]
    ms_list = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else MS
    rest = sys.argv[3:]
    shapes = [(N, K)]
    if rest and ":" in rest[0]:
        shapes = [tuple(int(v) for v in s.split(":")) for s in rest[0].split(",")]
        rest = rest[1:]
    configs = [tuple(int(v) for v in c.split(",")) for c in rest] or [None]
    os.makedirs(out_dir, exist_ok=True)
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}",
             f"{'weights':12} {'M':>5} {'N':>6} {'K':>6} {'config':>16} {'us':>8} "
             f"{'TFLOP/s':>7} {'f16 us':>8} {'fp8 us':>8} {'x cublas f16':>12} "
             f"{'x cublas fp8':>12}"]
    print(lines[0], flush=True)
    torch.manual_seed(0)
    one = torch.ones((), device="cuda")
    for n, k in shapes:
        wf = torch.randn(n, k, dtype=torch.float16, device="cuda")
        w8 = wf.to(torch.float8_e4m3fn)
        packed = torch.randint(0, 256, (k * n // 2,), dtype=torch.uint8, device="cuda")
        for m in ms_list:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            a8, xs = a.to(torch.float8_e4m3fn), torch.rand(m, device="cuda") + 0.5
            f16 = median_ms(lambda: torch.matmul(a, wf.t()), RUNS)
            fp8 = median_ms(lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one,
                                                     out_dtype=torch.float16), RUNS)
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            for wtype, off, group in CASES:
                group = k if group == K else group            # per channel
                s = (torch.rand(k // group, n, device="cuda") * 0.02 + 0.005).half()
                for cfg in configs:
                    shown = cfg or runner.choice(m, n, k, wtype, group, off, tilus.float8_e4m3)
                    ms = median_ms(lambda: runner(a8, packed, s, wtype=wtype, group_size=group,
                                                  offset=off, out=c, config=cfg, x_scales=xs),
                                   RUNS)
                    name = f"{wtype.name}{'-' + str(off) if off else ''} g{group}"
                    line = (f"{name:12} {m:5} {n:6} {k:6} {str(shown):>16} {ms * 1e3:8.1f} "
                            f"{2 * m * n * k / ms / 1e9:7.0f} {f16 * 1e3:8.1f} {fp8 * 1e3:8.1f} "
                            f"{f16 / ms:12.3f} {fp8 / ms:12.3f}")
                    lines.append(line)
                    print(line, flush=True)
    save_table(out_dir, "w4a8.txt" if shapes == [(N, K)] else "w4a8-shapes.txt", lines)


if __name__ == "__main__":
    main()
