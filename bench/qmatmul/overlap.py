"""The warp-specialized wgmma consumer with and without overlap (decoding
the next k tile while the product of this one runs; docs/hopper.md) on the
same configuration, beside cuBLAS f16, in one run on the GPU machine
(bench/README.md, "Nineteenth run"). Needs torch and libTilus.so there.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/overlap.py OUT_DIR

Each row launches the two kernels directly (stream-K ones on stream_k_plan's
blocks for the GPU's SMs) on the same random operands, checks that they
give the same bits, and prints each one's time as a speedup over cuBLAS
f16 and new / old. The one-warpgroup rows are configurations the runner
takes (overlap is their default); the two-warpgroup rows force it. Median
of the runs, each after an L2 flush, CUDA events. Writes
OUT_DIR/overlap.txt.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul, qmatmul_wgmma  # noqa: E402
from operands import cell  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "u3": (tilus.uint3, 4), "f6e3m2": (tilus.float6_e3m2, 0),
         "u8": (tilus.uint8, 128)}
# (type, M, N, K, configuration)
CELLS = [("f6e3m2", 192, 8192, 8192, (1, 192, 4, 1)), ("u4", 192, 8192, 8192, (1, 192, 4, 1)),
         ("u3", 192, 8192, 8192, (1, 192, 4, 1)), ("u8", 192, 8192, 8192, (1, 192, 4, 1)),
         ("f6e3m2", 128, 8192, 8192, (1, 128, 4, 1)), ("u3", 128, 8192, 8192, (1, 128, 4, 1)),
         ("u4", 64, 8192, 8192, (1, 64, 4, 1)), ("f6e3m2", 64, 8192, 8192, (1, 64, 4, 1)),
         ("f6e3m2", 192, 10240, 8192, (1, 192, 4, 1, "sk")),
         ("u4", 256, 8192, 8192, (2, 128, 4, 1)), ("f6e3m2", 256, 8192, 8192, (2, 128, 4, 1)),
         ("u8", 256, 8192, 8192, (2, 128, 4, 1)),
         ("u4", 128, 57344, 8192, (2, 128, 4, 1, "sk")),
         ("f6e3m2", 192, 10240, 8192, (2, 192, 3, 1, "sk")),
         ("u4", 4096, 57344, 8192, (2, 128, 4, 1))]


def main():
    import torch
    from tilus.timing import median_ms
    from tilus.ops.qmatmul_wgmma import stream_k_plan
    out_dir = sys.argv[1]
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    sms = runner.sms(torch.device("cuda"))
    lines = [f"device: {torch.cuda.get_device_name()}; group {GROUP}; x cuBLAS f16 without "
             f"and with overlap"]
    print(lines[0], flush=True)
    for tname, m, n, k, cfg in CELLS:
        dt, off = TYPES[tname]
        x, wf, s, packed = cell(m, n, k, dt, GROUP)
        cublas = median_ms(lambda: torch.matmul(x, wf))
        sk = len(cfg) == 5
        cls = qmatmul_wgmma.QuantizedMatmulWgmmaSK if sk else qmatmul_wgmma.QuantizedMatmulWgmmaWS
        times, outs = [], []
        for overlap in (False, True):
            kern = runner.load(("overlap", tname, cfg, overlap),
                               lambda: cls(dt, group_size=GROUP, offset=off, warpgroups=cfg[0],
                                           block_m=cfg[1], stages=cfg[2], lag=cfg[3],
                                           overlap=overlap), "qmatmul")
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            if sk:
                blocks, share, tiles = stream_k_plan(m, n, k, cfg, sms)
                partials = torch.empty(share * m * n, dtype=torch.float32, device="cuda")
                counters = torch.zeros(tiles, dtype=torch.int32, device="cuda")
                args = (x, packed, s, c, partials, counters, m, n, k, blocks)
            else:
                args = (x, packed, s, c, m, n, k)
            times.append(median_ms(lambda: kern(*args)))
            outs.append(c)
        same = torch.equal(outs[0], outs[1])
        lines.append(f"{tname:7} {m:5} {n:6} {k:6} {str(cfg):22} cublas {cublas * 1e3:8.2f} us  "
                     f"without {times[0] * 1e3:8.2f} us ({cublas / times[0]:.3f})  with "
                     f"{times[1] * 1e3:8.2f} us ({cublas / times[1]:.3f})  with / without "
                     f"{times[1] / times[0]:.3f}  same bits: {same}")
        print(lines[-1], flush=True)
        if not same:
            raise SystemExit("the two consumers gave different bits")
    save_table(out_dir, "overlap.txt", lines)


if __name__ == "__main__":
    main()
