"""Zero points and a bias (GPTQ/AWQ-style weights) at the Llama-3-70B shapes,
M = 1 .. 256: tilus.ops.quantized_matmul with f16 zero values and an f16 bias,
beside cuBLAS f16 (torch.matmul, plus the bias) in one run on the GPU machine.
Needs torch and libTilus.so there.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/zeros.py OUT_DIR \\
        [M,M,...]

For each point: the configuration quantized_matmul takes (runner.choice
with zeros: the wgmma variants above M = 32 on an H100) and, beside it, the
mma.sync template's (default_config, what such calls took before the wgmma
variants took zero points), each the median of many L2-flushed runs with
CUDA events on random operands; and the time of the call with the zeros as
uint8 codes, which the runner converts to x's dtype on each call. Writes
OUT_DIR/zeros.txt.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from operands import weights  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 0), "u3": (tilus.uint3, 0), "u8": (tilus.uint8, 0)}
SHAPES = [(57344, 8192), (8192, 8192), (10240, 8192), (8192, 28672)]
MS = [1, 16, 32, 64, 128, 256]


def main():
    import torch
    from bench import median_ms
    out_dir = sys.argv[1]
    ms_list = [int(v) for v in sys.argv[2].split(",")] if len(sys.argv) > 2 else MS
    os.makedirs(out_dir, exist_ok=True)
    runtime = tilus.Runtime(torch.cuda.current_device())
    runner = qmatmul.QuantizedMatmulRunner(runtime)
    gpu = (torch.cuda.get_device_name(), runtime.compute_capability)
    lines = [f"device: {gpu[0]}; group {GROUP}; f16 zero values and bias (codes: uint8 zeros)",
             f"{'type':5} {'M':>4} {'N':>6} {'K':>6} {'config':>16} {'us':>8} "
             f"{'mma.sync config':>16} {'us':>8} {'codes us':>8} {'cublas us':>9} "
             f"{'x cublas':>8} {'mma.sync x':>10}"]
    print(lines[0], flush=True)
    for n, k, wf, s, tname, dt, off, packed in weights(SHAPES, TYPES, GROUP):
        z = (torch.rand(k // GROUP, n, device="cuda") * (1 << dt.bits)).half()
        zc = torch.randint(0, 1 << dt.bits, (k // GROUP, n), dtype=torch.uint8, device="cuda")
        bias = torch.randn(n, dtype=torch.float16, device="cuda")
        for m in ms_list:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            cublas = median_ms(lambda: torch.addmm(bias, a, wf))
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            cfg = runner.choice(m, n, k, dt, GROUP, off, zeros=True)
            old = qmatmul.default_config(m, n, k, dt, GROUP, off, None, *gpu)

            def run(config, zeros=z):
                return median_ms(lambda: runner(a, packed, s, zeros, bias, wtype=dt,
                                                group_size=GROUP, out=c, config=config))
            t, t_old, t_codes = run(cfg), run(old), run(cfg, zc)
            line = (f"{tname:5} {m:4} {n:6} {k:6} {str(cfg):>16} {t * 1e3:8.2f} "
                    f"{str(old):>16} {t_old * 1e3:8.2f} {t_codes * 1e3:8.2f} "
                    f"{cublas * 1e3:9.2f} {cublas / t:8.2f} {cublas / t_old:10.2f}")
            lines.append(line)
            print(line, flush=True)
    save_table(out_dir, "zeros.txt", lines)


if __name__ == "__main__":
    main()
