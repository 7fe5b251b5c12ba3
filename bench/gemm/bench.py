"""Tilus f16 matmul vs cuBLAS (torch.matmul), side by side in one run.

    python3 bench/gemm/bench.py GEMM_BENCH_BINARY ARTIFACT_DIR

For each shape: the Tilus kernel (gemm_bench) and torch.matmul on the same
M x N x K, f16 in and out, median of 30 runs, each after an L2 flush (a 256
MiB fill), CUDA events. Prints times, TFLOP/s and the ratios.
"""
import re
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/copy")
from bench import RUNS, median_ms  # noqa: E402

import torch  # noqa: E402

# (label, artifact stem, BM, BN, BK, M, N, K)
SHAPES = [
    ("decode", "matmul_f16_decode", 16, 64, 256, 16, 8192, 8192),
    ("decode", "matmul_f16_decode", 16, 64, 256, 16, 57344, 8192),
    ("square", "matmul_f16_large", 256, 128, 32, 4096, 4096, 4096),
    # For comparison: the example (the paper's Figure 14 tiles) and 4 warps.
    ("decode", "matmul_pipelined_f16", 16, 32, 256, 16, 8192, 8192),
    ("decode", "matmul_pipelined_f16", 16, 32, 256, 16, 57344, 8192),
    ("square", "matmul_f16_medium", 128, 128, 32, 4096, 4096, 4096),
]


def cublas_ms(m, n, k):
    a = torch.ones(m, k, dtype=torch.float16, device="cuda")
    b = torch.ones(k, n, dtype=torch.float16, device="cuda")
    ms = median_ms(lambda: torch.matmul(a, b))
    del a, b
    torch.cuda.empty_cache()
    return ms


def main():
    binary, artifacts = sys.argv[1], sys.argv[2]
    print(f"device: {torch.cuda.get_device_name()}")
    print(f"{'shape':24} {'kernel':22} {'tilus ms':>9} {'cuBLAS ms':>9} "
          f"{'tilus TF/s':>10} {'cuBLAS TF/s':>11} {'time ratio':>10}")
    for label, stem, bm, bn, bk, m, n, k in SHAPES:
        out = subprocess.run(
            [binary, f"{artifacts}/{stem}.sm_90a.tilus", str(bm), str(bn),
             str(bk), str(m), str(n), str(k), str(RUNS)],
            check=True, capture_output=True, text=True).stdout
        tilus = float(re.search(r"median ([0-9.]+) ms", out).group(1))
        ref = cublas_ms(m, n, k)
        tf = lambda ms: 2 * m * n * k / (ms * 1e-3) / 1e12
        print(f"{f'{m}x{n}x{k}':24} {stem:22} {tilus:9.4f} {ref:9.4f} "
              f"{tf(tilus):10.1f} {tf(ref):11.1f} {tilus / ref:10.3f}")


if __name__ == "__main__":
    main()
