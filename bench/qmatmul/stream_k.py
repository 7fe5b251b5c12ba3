"""The stream-K grid against the data-parallel one (docs/quantized-matmul.md,
"Stream-K"): at the Llama-3-70B shapes and M = 128, 192, 256 (or --ms), the
runner's data-parallel wgmma choice (qmatmul.data_parallel_config) beside
stream-K configurations of M's own height and of 128 rows, each as a speedup
over cuBLAS f16 (torch.matmul) in the same run; the median of RUNS runs, each
after an L2 flush (tilus.timing). Needs torch and libTilus.so on the GPU
machine; the kernels are compiled first, in parallel, into tilus.compile's
cache.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/stream_k.py \\
        [--ms 128,192,256] [--types u4,f6e3m2]
"""
import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from tilus.ops.qmatmul_wgmma import wgmma_fits  # noqa: E402
from operands import weights  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "i4": (tilus.int4, 0), "u3": (tilus.uint3, 4),
         "f6e3m2": (tilus.float6_e3m2, 0), "u8": (tilus.uint8, 128)}
SHAPES = [(57344, 8192), (8192, 8192), (10240, 8192), (8192, 28672)]


def candidates(m, n, k, wtype):
    """The data-parallel choice, then stream-K ones that fit."""
    out = [qmatmul.data_parallel_config(m, n, k, wtype)]
    for h in sorted({qmatmul.own_height(m), 128}, reverse=True):
        for st, lag in [(4, 1), (3, 1), (2, 0)]:
            cfg = (2, h, st, lag, "sk")
            if wgmma_fits(cfg, n, k, wtype, GROUP):
                out.append(cfg)
    return out


def _compile(program):
    program.compile(target="sm_90a")


def main():
    import torch
    from tilus.timing import median_ms
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ms", default="128,192,256")
    p.add_argument("--types", default=",".join(TYPES))
    a = p.parse_args()
    ms = [int(v) for v in a.ms.split(",")]
    types = {t: TYPES[t] for t in a.types.split(",")}
    programs = {(t, c): qmatmul.instance(dt, GROUP, off, c)
                for t, (dt, off) in types.items() for n, k in SHAPES for m in ms
                for c in candidates(m, n, k, dt)}
    with ProcessPoolExecutor(os.cpu_count()) as ex:
        list(ex.map(_compile, programs.values()))
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    print(f"device: {torch.cuda.get_device_name()}; x cuBLAS f16 per configuration "
          f"(the first: data-parallel)")
    for n, k, wf, s, tname, dt, off, packed in weights(SHAPES, types, GROUP):
        for m in ms:
            x = torch.randn(m, k, dtype=torch.float16, device="cuda")
            cublas = median_ms(lambda: torch.matmul(x, wf))
            out = torch.empty(m, n, dtype=torch.float16, device="cuda")
            row = []
            for cfg in candidates(m, n, k, dt):
                t = median_ms(lambda: runner(x, packed, s, wtype=dt, group_size=GROUP,
                                             offset=off, out=out, config=cfg))
                row.append(f"{cfg}={cublas / t:.3f}")
            print(f"{tname:7} {m:4} {n:6} {k:6} cublas {cublas * 1e3:7.2f}  " + "  ".join(row),
                  flush=True)


if __name__ == "__main__":
    main()
