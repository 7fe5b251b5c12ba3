"""Host time per kernel launch from Python, beside torch's own launch of an
elementwise op, in one run on the GPU machine:

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=build/lib/Shared \\
        python3 bench/launch/python_launch.py build/gpu-artifacts

Each sample times CALLS back-to-back launches with time.perf_counter (the GPU
queue absorbs them: the kernels are tiny and the queue is not full), then
synchronizes outside the timed region; the figure is the median over SAMPLES
samples, in microseconds per launch. Rows: the tutorial's axpy
(examples/tutorial/axpy.mlir, 4 parameters) launched with torch tensors, with
raw integer pointers, and with DeviceArray objects; torch.add(x, y, out=z) on
the same tensors. Issue 13's bar: at most 15 us per launch with torch tensors.
"""
import statistics
import sys
import time

import torch
import tilus

CALLS = 200
SAMPLES = 50
N = 1024


def per_launch_us(launch):
    launch()
    torch.cuda.synchronize()
    samples = []
    for _ in range(SAMPLES):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            launch()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        samples.append((t1 - t0) / CALLS * 1e6)
    return statistics.median(samples)


def main():
    artifacts = sys.argv[1]
    rt = tilus.Runtime()
    axpy = rt.kernel(tilus.Artifact.from_file(f"{artifacts}/axpy.sm_90a.tilus"), "axpy")
    x = torch.rand(N, device="cuda")
    y = torch.rand(N, device="cuda")
    z = torch.empty_like(x)
    want = 2.0 * x + y
    axpy(x, y, 2.0, N)
    torch.cuda.synchronize()
    assert torch.allclose(y, want), "axpy gave a wrong answer"
    xp, yp = x.data_ptr(), y.data_ptr()
    dx, dy = rt.empty(N, "float32"), rt.empty(N, "float32")
    stream = torch.cuda.current_stream().cuda_stream
    rows = [
        ("tilus axpy, torch tensors", lambda: axpy(x, y, 1.0, N)),
        ("tilus axpy, torch tensors, stream given", lambda: axpy(x, y, 1.0, N, stream=stream)),
        ("tilus axpy, integer pointers", lambda: axpy(xp, yp, 1.0, N, stream=stream)),
        ("tilus axpy, DeviceArray", lambda: axpy(dx, dy, 1.0, N, stream=stream)),
        ("torch.add(x, y, out=z)", lambda: torch.add(x, y, out=z)),
    ]
    print(f"device: {torch.cuda.get_device_name()}; {CALLS} launches per sample, "
          f"median of {SAMPLES} samples")
    torch_us = None
    results = []
    for name, launch in rows:
        us = per_launch_us(launch)
        results.append((name, us))
        if name.startswith("torch"):
            torch_us = us
    for name, us in results:
        print(f"{name:42} {us:7.2f} us/launch   {us / torch_us:5.2f}x torch.add")


if __name__ == "__main__":
    main()
