"""The wgmma configurations around the runner's choice at M = 96-256 (at
M = 160-256 the quantized matmul is slowest against cuBLAS f16), at the
Llama-3-70B shapes and at N = 4096, 6144 and 7168, where a grid of
one-warpgroup blocks fills part of one wave (bench/README.md, "Nineteenth
run"): each cell's choice and the six fastest of about twenty
configurations (one to three warpgroups, 64 to 256 rows, data-parallel and
stream-K grids), as speedups over cuBLAS f16 in one run on the GPU machine.
Needs torch and libTilus.so there; the kernels are compiled first, in
parallel.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/large_m.py OUT_DIR

Timing only: the outputs are not checked (test_qmatmul.py and
test_qmatmul_grid.py check these kernels). Median of the runs, each after an
L2 flush, CUDA events. Writes OUT_DIR/large-m.txt.
"""
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from tilus.ops.qmatmul_wgmma import wgmma_fits  # noqa: E402
from operands import cell  # noqa: E402
from report import save_table  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "i4": (tilus.int4, 0), "u3": (tilus.uint3, 4),
         "f6e3m2": (tilus.float6_e3m2, 0), "u8": (tilus.uint8, 128)}
CONFIGS = [(1, 64, 4, 1), (2, 64, 4, 1), (1, 96, 4, 1), (2, 96, 4, 1), (1, 128, 4, 1),
           (2, 128, 4, 1), (1, 128, 6, 2), (2, 128, 6, 2), (1, 192, 4, 1), (2, 192, 3, 1),
           (1, 256, 3, 1), (2, 256, 3, 1), (2, 256, 2, 0), (2, 96, 4, 1, "sk"),
           (2, 128, 4, 1, "sk"), (2, 192, 4, 1, "sk"), (2, 192, 3, 1, "sk"),
           (2, 256, 3, 1, "sk"), (1, 128, 4, 1, "sk"), (1, 192, 4, 1, "sk"), (3, 64, 4, 1)]
# (type, M, N, K)
CELLS = ([(t, m, 8192, 8192) for t in ("u4", "u8", "f6e3m2") for m in (96, 128)]
         + [("f6e3m2", m, 8192, 8192) for m in (160, 192, 224, 256)]
         + [(t, 256, 8192, 8192) for t in ("u4", "u3", "u8")]
         + [(t, m, 10240, 8192) for t, m in (("f6e3m2", 192), ("u8", 192), ("u4", 256),
                                             ("u8", 256), ("f6e3m2", 256))]
         + [(t, 256, 8192, 28672) for t in ("u4", "u3", "u8", "f6e3m2")]
         + [(t, 256, 57344, 8192) for t in ("u8", "f6e3m2")]
         + [(t, m, 6144, 4096) for t in ("u4", "f6e3m2") for m in (96, 128, 192)]
         + [("u4", m, 4096, 4096) for m in (128, 160, 192)]
         + [("u4", 192, 4096, 14336), ("u4", 128, 7168, 8192), ("u4", 192, 7168, 8192)])


def candidates(n, k, wtype):
    return [c for c in CONFIGS if wgmma_fits(c, n, k, wtype, GROUP)]


def _compile(program):
    program.compile(target="sm_90a")


def main():
    import torch
    from tilus.timing import median_ms
    out_dir = sys.argv[1]
    programs = {(t, c): qmatmul.instance(TYPES[t][0], GROUP, TYPES[t][1], c)
                for t, m, n, k in CELLS for c in candidates(n, k, TYPES[t][0])}
    with ProcessPoolExecutor(os.cpu_count()) as ex:
        list(ex.map(_compile, programs.values()))
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}; group {GROUP}; x cuBLAS f16: the "
             f"runner's choice, then the six fastest configurations"]
    print(lines[0], flush=True)
    for t, m, n, k in CELLS:
        dt, off = TYPES[t]
        x, wf, s, packed = cell(m, n, k, dt, GROUP)
        out = torch.empty(m, n, dtype=torch.float16, device="cuda")
        cublas = median_ms(lambda: torch.matmul(x, wf))
        choice = runner.choice(m, n, k, dt, GROUP, off)
        speed = {}
        for c in dict.fromkeys([choice] + candidates(n, k, dt)):
            speed[c] = cublas / median_ms(
                lambda: runner(x, packed, s, wtype=dt, group_size=GROUP, offset=off, out=out,
                               config=c))
        best = sorted(speed, key=lambda c: -speed[c])[:6]
        lines.append(f"{t:7} {m:4} {n:6} {k:6} cublas {cublas * 1e3:7.2f} us  choice {choice} "
                     f"= {speed[choice]:.3f}; fastest: "
                     + "  ".join(f"{c}={speed[c]:.3f}" for c in best))
        print(lines[-1], flush=True)
    save_table(out_dir, "large-m.txt", lines)


if __name__ == "__main__":
    main()
