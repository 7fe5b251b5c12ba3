"""Tilus copy vs torch copy, side by side in one run on the GPU machine.

    python3 bench/copy/bench.py COPY_BENCH_BINARY ARTIFACT

Both copy 2 GiB of f32 (read) into another 2 GiB buffer (write): the median
of 30 runs, each after an L2 flush (a 256 MiB fill), timed with CUDA events.
Bandwidth counts bytes read plus bytes written. Prints the ratio Tilus/torch.
"""
import os
import re
import subprocess
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python-bindings"))
from tilus.timing import median_ms as _median_ms  # noqa: E402

ELEMENTS = (2 << 30) // 4
RUNS = 30


def median_ms(run):
    """Median time of `run()` over RUNS runs, each after an L2 flush, timed
    with CUDA events (tilus.timing, shared with the tuner)."""
    return _median_ms(run, RUNS)


def torch_copy_ms():
    src = torch.ones(ELEMENTS, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    del src, dst
    torch.cuda.empty_cache()
    return ms


def main():
    binary, artifact = sys.argv[1], sys.argv[2]
    torch_ms = torch_copy_ms()
    out = subprocess.run([binary, artifact, str(ELEMENTS), str(RUNS)],
                         check=True, capture_output=True, text=True).stdout
    print(out.strip())
    tilus_ms = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    gbs = lambda ms: 2 * ELEMENTS * 4 / (ms * 1e-3) / 1e9
    print(f"torch copy_: {ELEMENTS} elements, median {torch_ms:.4f} ms, "
          f"{gbs(torch_ms):.1f} GB/s")
    print(f"ratio tilus/torch bandwidth: {torch_ms / tilus_ms:.3f} "
          f"(device: {torch.cuda.get_device_name()})")


if __name__ == "__main__":
    main()
