"""The tutorial's axpy from PyTorch (docs/tutorial.md, section 9): compile the
DSL kernel in-process, launch it on CUDA tensors on torch's current stream,
compare with torch, then call it as a torch operator inside torch.compile.

    PYTHONPATH=python-bindings python3 examples/python/axpy_torch.py

Needs a CUDA GPU, torch with CUDA and libTilus.so (or prebuilt artifacts: see
docs/python.md, "Runtime-only mode").
"""

import os
import sys

import torch
import tilus

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from axpy import Axpy  # noqa: E402


def main():
    rt = tilus.Runtime()
    axpy = rt.kernel(Axpy().compile(target=rt.target), "axpy")   # cached on disk

    n = 1_000_003                                   # the last block is partial
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    want = 2.0 * x + y
    axpy(x, y, 2.0, n)                               # torch's current stream
    torch.testing.assert_close(y, want)

    # As an operator: torch.compile keeps it in the graph (no graph break).
    op = tilus.custom_op("examples::axpy", axpy, names=("x", "y", "a", "n"),
                         mutates_args=("y",))

    @torch.compile(fullgraph=True)
    def scaled_axpy(x, y):
        z = y * 2
        op(x, z, 0.5, x.numel())
        return z

    got = scaled_axpy(x, y)
    torch.testing.assert_close(got, 2 * y + 0.5 * x)
    print(f"axpy on {rt.device_name}: eager and torch.compile match torch")


if __name__ == "__main__":
    main()
