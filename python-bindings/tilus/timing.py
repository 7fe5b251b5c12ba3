"""Timing a GPU operation the way the benchmarks and the tuner do (imports
torch): the median of `runs` runs, each after an L2 flush (a 256 MiB fill),
timed with CUDA events, after one untimed run."""

import statistics

__all__ = ["median_ms"]

FLUSH_BYTES = 256 << 20


def median_ms(run, runs=30):
    """Median milliseconds of `run()` on the current CUDA stream."""
    import torch
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    run()
    times = []
    for r in range(runs):
        flush.fill_(r & 0xFF)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    del flush
    return statistics.median(times)
