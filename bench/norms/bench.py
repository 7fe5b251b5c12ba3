"""RMSNorm and softmax, Tilus beside torch, in one run on the GPU machine.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=build/lib/Shared \\
        python3 bench/norms/bench.py ARTIFACT_DIR

ARTIFACT_DIR holds the sm_90a artifacts of examples/rmsnorm.mlir,
examples/softmax.mlir (rows of 4096) and bench/norms/*_8192.mlir (rows of
8192), as scripts/gpu-artifacts.sh builds them. For each kernel and R in
1 .. 16384 rows of f16: the Tilus kernel (through the Python runtime, on
torch tensors) and torch.nn.functional.rms_norm / torch.softmax, both timed
by the same code: the median of RUNS runs, each after an L2 flush (a 256 MiB
fill), with CUDA events. The outputs are compared first. Bandwidth counts the
bytes read and written (x, y, and the weight for RMSNorm); the reference is
torch's copy_ of 2 GiB in the same run. Prints per row: microseconds of
each, torch/Tilus (above 1: Tilus faster), Tilus's fraction of copy
bandwidth, and Tilus's time against torch's copy_ of x into y (the same
bytes, less the weight), which shows what a copy itself reaches at that size
(launch, ramp-up and tail dominate small R). Issue 11's bars: Tilus at least as fast as torch at every R, and
at R >= 4096 at least 0.85 of copy.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "copy"))
from bench import median_ms, torch_copy_ms, ELEMENTS  # noqa: E402

import torch  # noqa: E402
import tilus  # noqa: E402

ROWS = [1, 4, 16, 64, 256, 1024, 4096, 16384]
EPS = 1e-5
KERNELS = [  # (artifact stem, kernel name, kind, columns)
    ("rmsnorm", "rmsnorm", "rmsnorm", 4096),
    ("softmax", "softmax", "softmax", 4096),
    ("rmsnorm_8192", "rmsnorm_8192", "rmsnorm", 8192),
    ("softmax_8192", "softmax_8192", "softmax", 8192),
]


def main():
    artifacts = sys.argv[1]
    copy_gbs = 2 * ELEMENTS * 4 / (torch_copy_ms() * 1e-3) / 1e9
    rt = tilus.Runtime()
    print(f"device: {torch.cuda.get_device_name()}; torch copy_: "
          f"{copy_gbs:.1f} GB/s")
    print(f"{'kernel':14} {'R':>6} {'C':>5} {'tilus us':>9} {'torch us':>9} "
          f"{'torch/tilus':>11} {'tilus/copy':>10} {'copy us':>8} {'copy/tilus':>10} "
          f"{'max |diff|':>10}")
    same_size_copy = {}
    for stem, name, kind, cols in KERNELS:
        art = tilus.Artifact.from_file(f"{artifacts}/{stem}.sm_90a.tilus")
        kernel = rt.kernel(art, name)
        for rows in ROWS:
            x = torch.randn(rows, cols, dtype=torch.float16, device="cuda")
            y = torch.empty_like(x)
            if kind == "rmsnorm":
                w = torch.rand(cols, dtype=torch.float16, device="cuda") + 0.5
                run_tilus = lambda: kernel(x, w, y, rows, EPS)  # noqa: E731
                run_torch = lambda: torch.nn.functional.rms_norm(  # noqa: E731
                    x, (cols,), w, EPS)
                nbytes = 2 * rows * cols * 2 + cols * 2
            else:
                run_tilus = lambda: kernel(x, y, rows)  # noqa: E731
                run_torch = lambda: torch.softmax(x, -1)  # noqa: E731
                nbytes = 2 * rows * cols * 2
            run_tilus()
            want = run_torch()
            torch.cuda.synchronize()
            diff = (y.float() - want.float()).abs().max().item()
            tilus_ms = median_ms(run_tilus)
            torch_ms = median_ms(run_torch)
            gbs = nbytes / (tilus_ms * 1e-3) / 1e9
            if (rows, cols) not in same_size_copy:
                same_size_copy[rows, cols] = median_ms(lambda: y.copy_(x))
            copy_ms = same_size_copy[rows, cols]
            print(f"{name:14} {rows:6} {cols:5} {tilus_ms * 1e3:9.2f} "
                  f"{torch_ms * 1e3:9.2f} {torch_ms / tilus_ms:11.3f} "
                  f"{gbs / copy_gbs:10.3f} {copy_ms * 1e3:8.2f} {copy_ms / tilus_ms:10.3f} "
                  f"{diff:10.2e}")


if __name__ == "__main__":
    main()
