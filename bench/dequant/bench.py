"""Dequantization kernels vs torch's device copy, in one run on the GPU machine.

    python3 bench/dequant/bench.py DEQUANT_BENCH_BINARY ARTIFACT_DIR

torch's copy of 2 GiB gives the reference bandwidth; each Tilus kernel turns
2^28 packed weights into f16. Both: median of 30 runs, L2 flushed before each,
bandwidth = bytes read + bytes written. Prints type -> GB/s -> ratio.
"""
import re
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/copy")
from bench import ELEMENTS, torch_copy_ms  # noqa: E402

import torch  # noqa: E402

WEIGHTS = 1 << 28
RUNS = 30


def main():
    binary, artifacts = sys.argv[1], sys.argv[2]
    copy_gbs = 2 * ELEMENTS * 4 / (torch_copy_ms() * 1e-3) / 1e9
    out = subprocess.run([binary, artifacts, str(WEIGHTS), str(RUNS)],
                         check=True, capture_output=True, text=True).stdout
    print(f"torch copy_: {copy_gbs:.1f} GB/s "
          f"(device: {torch.cuda.get_device_name()})")
    print(f"{'type':8} {'GB/s':>8} {'ratio':>7}")
    for line in out.splitlines()[1:]:
        name, _, gbs = line.split()
        print(f"{name:8} {float(gbs):8.1f} {float(gbs) / copy_gbs:7.3f}")


if __name__ == "__main__":
    main()
