"""The Hopper f16 matmul (examples/python/matmul_wgmma_f16.py: wgmma with a
cp.async pipeline, MatmulWgmma; a TMA one, MatmulWgmmaTma; or a
warp-specialized TMA one, MatmulWgmmaWS, or that on a persistent grid,
MatmulWgmmaPersistent, also in clusters of two sharing W by TMA multicast,
MatmulWgmmaCluster) beside cuBLAS in one run: median of RUNS launches each
after an L2 flush, CUDA events, random inputs; the result is first checked
against torch's. cuBLAS is timed on the same product (torch.matmul(a, w.t()),
W as nn.Linear stores it) and on a W already transposed (torch.matmul(a, b),
b [K, N] contiguous); the ratio is against the faster.

    python3 bench/hopper/matmul.py ARTIFACT[:BMxBNxBK]...

Each ARTIFACT is a kernel compiled for sm_90a (tilus-opt --emit-artifact of
the example's MLIR) with its tile (default 128x256x64).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))
from bench import RUNS, median_ms  # noqa: E402

import torch  # noqa: E402
import tilus  # noqa: E402

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 57344, 8192)]


def main():
    rt = tilus.Runtime()
    print(f"device: {torch.cuda.get_device_name()}, {RUNS} runs")
    print(f"{'M x N x K':22} {'tile':12} {'tilus ms':>9} {'cuBLAS ms':>9} {'tilus TF/s':>10} "
          f"{'cuBLAS a@w.t()':>14} {'cuBLAS a@b':>10} {'tilus/cuBLAS':>12} {'max rel err':>11}")
    torch.manual_seed(0)
    kernels = []
    for spec in sys.argv[1:]:
        path, _, tile = spec.partition(":")
        bm, bn, bk = (int(v) for v in (tile or "128x256x64").split("x"))
        art = tilus.Artifact.from_file(path)
        name = art.kernels[0].name      # matmul_wgmma, matmul_wgmma_tma or _ws
        kind = name[len("matmul_wgmma"):].lstrip("_")
        kernels.append((f"{bm}x{bn}x{bk} {kind}".strip(), bm, bn, bk, rt.kernel(art, name)))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for m, n, k in SHAPES:
        a = torch.randn(m, k, dtype=torch.float16, device="cuda")
        w = torch.randn(n, k, dtype=torch.float16, device="cuda")
        b = w.t().contiguous()
        c = torch.empty(m, n, dtype=torch.float16, device="cuda")
        ref = torch.matmul(a, w.t())
        r_t = median_ms(lambda: torch.matmul(a, w.t()))
        r_n = median_ms(lambda: torch.matmul(a, b))
        r = min(r_t, r_n)
        tf = lambda ms: 2 * m * n * k / (ms * 1e-3) / 1e12
        for name, bm, bn, bk, kernel in kernels:
            if m % bm or n % bn or k % bk:
                print(f"{f'{m}x{n}x{k}':22} {name:12} (the tile does not divide the shape)")
                continue
            # The cp.async kernel takes tile counts, the TMA ones M, N and K,
            # the persistent one also its number of blocks (one per SM).
            counts = (m, n, k) if name.endswith(("tma", "ws")) else (m // bm, n // bn, k // bk)
            if name.endswith(("persistent", "cluster")):
                counts = (m, n, k, sms // 2 * 2)        # clusters of two: even
            run = lambda: kernel(a, w, c, *counts)
            c.zero_()
            run()
            torch.cuda.synchronize()
            err = ((c.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
            t = median_ms(run)
            print(f"{f'{m}x{n}x{k}':22} {name:12} {t:9.4f} {r:9.4f} {tf(t):10.1f} "
                  f"{tf(r_t):14.1f} {tf(r_n):10.1f} {tf(t) / tf(r):12.3f} {err:11.2e}")
        del a, w, b, c, ref
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
