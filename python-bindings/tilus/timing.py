"""Timing a GPU operation the way the benchmarks and the tuner do (imports
torch): the median of `runs` runs, each after an L2 flush, timed with CUDA
events, after one untimed run.

The flush reads 256 MiB (five times the H100's L2) and writes one number, so
the L2 holds none of the timed operation's inputs and no dirty lines. A flush
that writes (a 256 MiB fill, as this module did before) leaves up to the L2's
size of dirty lines, which the timed operation's own reads evict: their
write-back to DRAM then falls inside the timed region (bench/README.md,
"Thirteenth run": a 34 MB copy took 15.9 us after a fill, 12.1 us after a
read).

Between the flush and the start event the GPU spins for about 200 us
(torch.cuda._sleep), so that the host has enqueued the timed launch before
the GPU reaches it: without that, a host-side delay in `run()` (Python work
before the launch, more than the flush's ~85 us) is timed as GPU time, and
such delays came in bursts that moved whole medians (an 18.7 us kernel
measured 37.4 us)."""

import statistics

__all__ = ["median_ms"]

FLUSH_BYTES = 256 << 20
# Clock cycles of the spin before each timed run (~200 us at 1.98 GHz).
SPIN_CYCLES = 400_000


def median_ms(run, runs=30):
    """Median milliseconds of `run()` on the current CUDA stream."""
    import torch
    flush = torch.zeros(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    run()
    times = []
    for _ in range(runs):
        flush.amax()
        torch.cuda._sleep(SPIN_CYCLES)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    del flush
    return statistics.median(times)
