"""tilus.ops.quantized_matmul at the Llama-3-70B linear shapes and M = 1 .. 256,
beside cuBLAS f16 (torch.matmul) and torch's device copy, in one run on the GPU
machine (issue 14, item 5). Needs torch and libTilus.so there (the kernels are
compiled in-process; the self-contained library serves where MLIR is absent).

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/llama.py OUT_DIR

Each point uses the configuration quantized_matmul itself would take
(runner.choice: the shipped table, the wgmma variant's (warpgroups,
block_m, stages) above M = 32 on an H100, else choose_config with the rows
per block of row_tiles(M)); M = 192 too, a batch between the powers of two,
where the block's height (qmatmul.block_rows) is M's own,
on random packed weights with group-128 scales: the median of RUNS runs, each
after an L2 flush, with CUDA events (split-K needs no zeroing of C). Bytes count W, the scales, A and C once each. Writes
OUT_DIR/llama.txt (the table) and, where matplotlib is installed,
OUT_DIR/speedup_vs_m.png (speedup over cuBLAS against M per shape and type,
like the paper's Figure 13).
"""
import os
import sys

# bench/copy first: its bench.py (the copy baseline), not this folder's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from operands import weights  # noqa: E402
from report import pyplot, save_table  # noqa: E402

GROUP = 128
TYPES = {"u4": (tilus.uint4, 8), "i4": (tilus.int4, 0), "u3": (tilus.uint3, 4),
         "f6e3m2": (tilus.float6_e3m2, 0), "u8": (tilus.uint8, 128)}
SHAPES = [(57344, 8192), (8192, 8192), (10240, 8192), (8192, 28672)]
MS = [1, 4, 8, 16, 32, 64, 128, 192, 256]


def main():
    import torch
    from bench import median_ms, torch_copy_ms, ELEMENTS
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    copy_gbs = 2 * ELEMENTS * 4 / (torch_copy_ms() * 1e-3) / 1e9
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    lines = [f"device: {torch.cuda.get_device_name()}; torch copy_: {copy_gbs:.1f} GB/s",
             f"{'type':7} {'M':>4} {'N':>6} {'K':>6} {'config':>16} {'us':>8} {'/copy':>6} "
             f"{'cublas us':>9} {'x cublas':>8}"]
    print(lines[0], flush=True)
    results = []
    for n, k, wf, s, tname, dt, off, packed in weights(SHAPES, TYPES, GROUP):
        for m in MS:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            cublas = median_ms(lambda: torch.matmul(a, wf))
            cfg = runner.choice(m, n, k, dt, GROUP, off)
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            ms = median_ms(lambda: runner(a, packed, s, wtype=dt, group_size=GROUP,
                                          offset=off, out=c, config=cfg))
            nbytes = k * n * dt.bits // 8 + s.numel() * 2 + a.numel() * 2 + c.numel() * 2
            frac = nbytes / (ms * 1e-3) / 1e9 / copy_gbs
            results.append((tname, m, n, k, cfg, ms, frac, cublas))
            line = (f"{tname:7} {m:4} {n:6} {k:6} {str(cfg):>16} {ms * 1e3:8.2f} "
                    f"{frac:6.3f} {cublas * 1e3:9.2f} {cublas / ms:8.2f}")
            lines.append(line)
            print(line, flush=True)
    save_table(out_dir, "llama.txt", lines)
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(SHAPES), figsize=(4.2 * len(SHAPES), 3.6), sharey=True)
    for ax, (n, k) in zip(axes, SHAPES):
        for tname in TYPES:
            pts = [(r[1], r[7] / r[5]) for r in results if r[0] == tname and r[2:4] == (n, k)]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=tname)
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(f"N={n}, K={k}")
        ax.set_xlabel("M")
    axes[0].set_ylabel("speedup over cuBLAS f16")
    axes[-1].legend()
    fig.suptitle(f"tilus.ops.quantized_matmul, group 128, {torch.cuda.get_device_name()}")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "speedup_vs_m.png"), dpi=110)


if __name__ == "__main__":
    main()
