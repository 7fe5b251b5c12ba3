"""bf16 activations beside f16 ones at the Llama-3-70B shapes, M = 1 and 16:
tilus.ops.quantized_matmul with bf16 x, scales and output (the configuration
the runner takes, and choose_config's), with f16 ones, and cuBLAS bf16
(torch.matmul), in one run on the GPU machine; median of many L2-flushed
runs with CUDA events, random operands. Needs torch and libTilus.so there.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/bf16.py OUT_DIR

Writes OUT_DIR/bf16.txt.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "i4": (tilus.int4, 0), "u3": (tilus.uint3, 4),
         "u2": (tilus.uint2, 2), "f6e3m2": (tilus.float6_e3m2, 0), "u8": (tilus.uint8, 128)}
SHAPES = [(57344, 8192), (8192, 8192), (10240, 8192), (8192, 28672)]


def main():
    import torch
    from bench import median_ms
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}; group {GROUP}",
             f"{'type':7} {'M':>3} {'N':>6} {'K':>6} {'bf16 config':>16} {'bf16 us':>8} "
             f"{'heuristic':>16} {'us':>8} {'f16 us':>8} {'cublas bf16':>11} {'bf16/f16':>8} "
             f"{'x cublas':>8}"]
    print(lines[0], flush=True)
    for n, k in SHAPES:
        wb = torch.randn(k, n, dtype=torch.bfloat16, device="cuda")
        sb = (torch.rand(k // GROUP, n, device="cuda") * 0.02).bfloat16()
        sh = sb.half()
        for tname, (dt, off) in TYPES.items():
            packed = torch.randint(0, 256, (k * n * dt.bits // 8,), dtype=torch.uint8,
                                   device="cuda")
            for m in (1, 16):
                xb = torch.randn(m, k, device="cuda").bfloat16()
                xh = xb.half()
                cb = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
                ch = torch.empty(m, n, dtype=torch.float16, device="cuda")
                cfg = runner.choice(m, n, k, dt, GROUP, off, tilus.bfloat16)
                heur = qmatmul.choose_config(m, n, k, dt, tilus.bfloat16)

                def run(x, s, c, config, w=packed):
                    return median_ms(lambda: runner(x, w, s, wtype=dt, group_size=GROUP,
                                                    offset=off, out=c, config=config))
                tb, th, t16 = run(xb, sb, cb, cfg), run(xb, sb, cb, heur), run(xh, sh, ch, None)
                cublas = median_ms(lambda: torch.matmul(xb, wb))
                line = (f"{tname:7} {m:3} {n:6} {k:6} {str(cfg):>16} {tb * 1e3:8.2f} "
                        f"{str(heur):>16} {th * 1e3:8.2f} {t16 * 1e3:8.2f} {cublas * 1e3:11.2f} "
                        f"{tb / t16:8.2f} {cublas / tb:8.2f}")
                lines.append(line)
                print(line, flush=True)
    save_table(out_dir, "bf16.txt", lines)


if __name__ == "__main__":
    main()
