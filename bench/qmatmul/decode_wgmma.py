"""The warp-specialized wgmma variant at decode (M = 1 and 16) beside the
mma.sync kernel the runner takes there (its tuned configuration), as a
fraction of the device copy's bandwidth, in one run on the GPU machine
(bench/README.md, "Nineteenth run"). Needs torch and libTilus.so there.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/decode_wgmma.py OUT_DIR

The wgmma candidates have wgmma's N = 8 rows at M = 1 and 16 at M = 16:
one or two consumer warpgroups, data-parallel and stream-K grids. Each is
checked against the mma.sync kernel's output first (1e-2 of its largest
value). Median of the runs, each after an L2 flush, CUDA events. Writes
OUT_DIR/decode-wgmma.txt.
"""
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from tilus.ops.qmatmul_wgmma import wgmma_fits  # noqa: E402
from fig10 import offset_of  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
TYPES = [tilus.uint1, tilus.uint2, tilus.uint3, tilus.uint4, tilus.float_(1, 1),
         tilus.float_(2, 2), tilus.float_(2, 1)]
SHAPES = [(57344, 8192), (8192, 28672)]
MS = [1, 16]


def candidates(m, n, k, wtype):
    bm = 8 if m <= 8 else 16
    cfgs = [(1, bm, 4, 1), (2, bm, 4, 1), (2, bm, 6, 2), (2, bm, 4, 1, "sk"),
            (2, bm, 6, 2, "sk"), (1, bm, 6, 2, "sk")]
    return [c for c in cfgs if wgmma_fits(c, n, k, wtype, GROUP)]


def _compile(program):
    program.compile(target="sm_90a")


def main():
    import torch
    from bench import median_ms, torch_copy_ms, ELEMENTS
    out_dir = sys.argv[1]
    programs = {(str(t), c): qmatmul.instance(t, GROUP, offset_of(t), c)
                for t in TYPES for n, k in SHAPES for m in MS for c in candidates(m, n, k, t)}
    with ProcessPoolExecutor(os.cpu_count()) as ex:
        list(ex.map(_compile, programs.values()))
    copy_gbs = 2 * ELEMENTS * 4 / (torch_copy_ms() * 1e-3) / 1e9
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}; torch copy_: {copy_gbs:.1f} GB/s; "
             f"group {GROUP}; per configuration: us / fraction of copy (the first: the "
             f"runner's mma.sync choice)"]
    print(lines[0], flush=True)
    for n, k in SHAPES:
        s = (torch.rand(k // GROUP, n, device="cuda") * 0.02).half()
        for t in TYPES:
            off = offset_of(t)
            packed = torch.randint(0, 256, (k * n * t.bits // 8,), dtype=torch.uint8,
                                   device="cuda")
            for m in MS:
                a = torch.randn(m, k, dtype=torch.float16, device="cuda")
                c = torch.empty(m, n, dtype=torch.float16, device="cuda")
                nbytes = k * n * t.bits // 8 + s.numel() * 2 + a.numel() * 2 + c.numel() * 2
                row, ref = [], None
                for cfg in [runner.choice(m, n, k, t, GROUP, off)] + candidates(m, n, k, t):
                    c.fill_(float("nan"))           # a kernel that writes nothing fails the check

                    def run():
                        runner(a, packed, s, wtype=t, group_size=GROUP, offset=off, out=c,
                               config=cfg)
                    run()
                    if ref is None:
                        ref = c.float().clone()
                    else:
                        err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                        if err > 1e-2:
                            raise SystemExit(f"{t} M = {m} {cfg}: off the mma.sync kernel's "
                                             f"output by {err:.2e}")
                    ms = median_ms(run)
                    row.append(f"{cfg}={ms * 1e3:.1f}/{nbytes / (ms * 1e-3) / 1e9 / copy_gbs:.3f}")
                lines.append(f"{str(t):12} {m:3} {n:6} {k:6} " + "  ".join(row))
                print(lines[-1], flush=True)
    save_table(out_dir, "decode-wgmma.txt", lines)


if __name__ == "__main__":
    main()
