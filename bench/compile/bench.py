#!/usr/bin/env python3
"""Compile time of tilus-opt, two builds side by side.

usage: bench.py [--runs N] [--target sm_XX] BEFORE_TILUS_OPT AFTER_TILUS_OPT KERNEL.mlir...

Each kernel is compiled with `--lower-to-nvvm --emit-ptx --target=...` by both
binaries, alternating, N times each (default 15); the CPU time (user + system)
of every process is read from getrusage, and the medians and their ratio are
printed. Both binaries should be built with the same flags.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys


def cpu_seconds(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--target", default="sm_90a")
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("kernels", nargs="+")
    args = parser.parse_args()
    print(f"{'kernel (tilus-opt process, CPU ms)':40} {'before':>8} {'after':>8} "
          f"{'after/before':>12}")
    for kernel in args.kernels:
        times = {args.before: [], args.after: []}
        for _ in range(args.runs):
            for binary in (args.before, args.after):
                times[binary].append(cpu_seconds(
                    [binary, kernel, "--lower-to-nvvm", "--emit-ptx",
                     f"--target={args.target}", "-o", os.devnull]))
        before = statistics.median(times[args.before]) * 1e3
        after = statistics.median(times[args.after]) * 1e3
        print(f"{os.path.basename(kernel):40} {before:8.1f} {after:8.1f} "
              f"{after / before:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
