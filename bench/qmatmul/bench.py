"""The quantized matmul (python-bindings/tilus/ops/qmatmul.py) beside cuBLAS f16
(torch.matmul) and torch's device copy, in one run on the GPU machine.

    # where MLIR is (or with a self-contained libTilus.so): the artifacts
    PYTHONPATH=python-bindings python3 bench/qmatmul/bench.py build OUT_DIR
    # on the GPU machine, runtime only:
    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=build/lib/Shared \\
        python3 bench/qmatmul/bench.py run OUT_DIR [--check]

`build` compiles every (weight type, configuration) of CASES for sm_90a into
OUT_DIR/<name>.sm_90a.tilus. `run` times each on random packed weights (any
byte is a valid code) at every shape: the median of RUNS runs, each after an
L2 flush, with CUDA events (split-K kernels reduce their partials in the
last block of each tile: no zeroing outside the kernel), beside torch.matmul on f16 weights of the same shape and torch's
copy_ of 2 GiB. Bytes moved count W, the scales, A and C once each. Printed
per row: us, GB/s, fraction of copy bandwidth, cuBLAS us, speedup over
cuBLAS. `--check` first compares each kernel with an f64 reference on
[5, 1024] x [1024, 3584] (every configuration's width divides it) with real packing (needs libTilus.so for tilus.weight_pack).
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "u8": (tilus.uint8, 128), "u3": (tilus.uint3, 4),
         "i4": (tilus.int4, 0), "f6e3m2": (tilus.float6_e3m2, 0)}
# (warps, n_tiles, stages, split_k, k_tiles)
CONFIGS = list(itertools.product((4, 7, 8), (1, 2, 4, 8), (3, 4, 6, 8, 12, 16), (1, 2, 4), (1, 2)))
SHAPES = [(1, 57344, 8192), (16, 57344, 8192), (1, 8192, 8192), (16, 8192, 8192)]


def name_of(tname, cfg):
    return f"q_{tname}_w{cfg[0]}n{cfg[1]}s{cfg[2]}k{cfg[3]}t{cfg[4]}"


def kernel_of(tname, cfg):
    dt, off = TYPES[tname]
    w, nt, s, sk, kpt = cfg
    return qmatmul.QuantizedMatmul(dt, group_size=GROUP, offset=off, warps=w, n_tiles=nt,
                                   stages=s, split_k=sk, k_tiles=kpt)


def build(out, types):
    os.makedirs(out, exist_ok=True)
    # Configurations whose pipeline fits 2 blocks per SM (2 x 113 KB).
    cases = [(t, c) for t in types for c in CONFIGS if kernel_of(t, c).shared_bytes <= 113 << 10]
    arts = tilus.compile_many([kernel_of(t, c).mlir() for t, c in cases], target="sm_90a")
    for (t, c), a in zip(cases, arts):
        a.save(os.path.join(out, name_of(t, c) + ".sm_90a.tilus"))
    print(f"built {len(cases)} artifacts in {out}")


def main():
    mode, out = sys.argv[1], sys.argv[2]
    types = [t for t in TYPES if len(sys.argv) <= 3 or t in sys.argv[3:] or "--check" in sys.argv[3:]]
    if mode == "build":
        build(out, types)
        return
    import torch
    from bench import median_ms, torch_copy_ms, ELEMENTS
    copy_gbs = 2 * ELEMENTS * 4 / (torch_copy_ms() * 1e-3) / 1e9
    rt = tilus.Runtime()
    print(f"device: {torch.cuda.get_device_name()}; torch copy_: {copy_gbs:.1f} GB/s")
    kernels = {}
    for f in sorted(os.listdir(out)):
        if f.endswith(".sm_90a.tilus"):
            kernels[f.split(".")[0]] = rt.kernel(tilus.Artifact.from_file(os.path.join(out, f)),
                                                 "qmatmul")
    check = "--check" in sys.argv
    for tname, (dt, off) in TYPES.items():
        b = dt.bits
        if check:
            M, N, K = 5, 3584, 1024        # every block width divides 3584 = 7 * 8 * 64
            import numpy as np
            g = torch.Generator().manual_seed(0)
            codes = qmatmul.random_codes(np.random.default_rng(0), dt, (K, N))
            packed = torch.from_numpy(qmatmul.pack(codes, dt, off).reshape(-1)).cuda()
            a = torch.randn(M, K, generator=g).half()
            s = (torch.rand(K // GROUP, N, generator=g) * 0.02 + 0.01).half()
            want = a.double() @ torch.from_numpy(
                qmatmul.dequantize(codes, s.double().numpy(), dt, off, GROUP))
            for cfg in CONFIGS:
                k = kernels.get(name_of(tname, cfg))
                if k is None or not qmatmul.fits(cfg, N, K):
                    continue
                c = torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda")
                extra = qmatmul.split_scratch(cfg[3], M, N) if cfg[3] > 1 else ()
                k(a.cuda(), packed, s.cuda(), c, *extra, M, N, K)
                torch.cuda.synchronize()
                err = ((c.double().cpu() - want).abs().max() / want.abs().max()).item()
                status = "ok" if err < 2e-3 else "WRONG"
                if status != "ok" or cfg == CONFIGS[0]:
                    print(f"check {name_of(tname, cfg)}: max rel err {err:.2e} {status}")
    print(f"{'kernel':24} {'M':>3} {'N':>6} {'K':>5} {'us':>8} {'GB/s':>7} {'/copy':>6} "
          f"{'cublas us':>9} {'x cublas':>8}")
    for (M, N, K) in SHAPES:
        a = torch.randn(M, K, dtype=torch.float16, device="cuda")
        wf = torch.randn(K, N, dtype=torch.float16, device="cuda")
        cublas = median_ms(lambda: torch.matmul(a, wf))
        del wf
        for tname, (dt, off) in TYPES.items():
            b = dt.bits
            packed = torch.randint(0, 256, (K * N * b // 8,), dtype=torch.uint8, device="cuda")
            s = (torch.rand(K // GROUP, N, device="cuda") * 0.02).half()
            c = torch.zeros(M, N, dtype=torch.float16, device="cuda")
            nbytes = K * N * b // 8 + s.numel() * 2 + a.numel() * 2 + c.numel() * 2
            best = None
            for cfg in CONFIGS:
                k = kernels.get(name_of(tname, cfg))
                if k is None or not qmatmul.fits(cfg, N, K):
                    continue
                extra = qmatmul.split_scratch(cfg[3], M, N) if cfg[3] > 1 else ()
                run = lambda: k(a, packed, s, c, *extra, M, N, K)  # noqa: E731
                ms = median_ms(run)
                if best is None or ms < best[0]:
                    best = (ms, cfg)
                if "--all" in sys.argv:
                    print(f"  {name_of(tname, cfg):24} {M:3} {N:6} {K:5} {ms * 1e3:8.2f}")
            ms, cfg = best
            gbs = nbytes / (ms * 1e-3) / 1e9
            print(f"{name_of(tname, cfg):24} {M:3} {N:6} {K:5} {ms * 1e3:8.2f} {gbs:7.0f} "
                  f"{gbs / copy_gbs:6.3f} {cublas * 1e3:9.2f} {cublas / ms:8.2f}")


if __name__ == "__main__":
    main()
