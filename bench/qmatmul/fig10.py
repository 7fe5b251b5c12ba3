"""Every weight type of the paper's Figure 10 grid (u1-u8, i2-i8 and ten float
formats of 3 to 8 bits) at M = 1 and 16 on the four Llama-3-70B shapes, through
tilus.ops.quantized_matmul as a user calls it (the shipped tuning table, else
choose_config), beside cuBLAS f16 (torch.matmul) and torch's device copy in one
run on the GPU machine (issue 14, item 5).

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/fig10.py OUT_DIR

Random packed bytes, group-128 scales; the median of the copy benchmark's runs,
each after an L2 flush, with CUDA events. Bytes count W, the scales, A and C
once each. Writes OUT_DIR/fig10.txt and, where matplotlib is installed,
OUT_DIR/fig10.png: heat maps of the speedup over cuBLAS f16 and of the
fraction of copy bandwidth, one row per type, like the paper's Figure 10.
"""
import os
import sys

# bench/copy first: its bench.py (the copy baseline), not this folder's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "copy"))

import tilus  # noqa: E402
from tilus.ops import qmatmul  # noqa: E402
from report import pyplot, save_table  # noqa: E402

GROUP = 128
FLOATS = [(4, 3), (5, 2), (3, 3), (3, 2), (2, 3), (2, 2), (2, 1), (1, 2), (1, 1), (2, 0)]
TYPES = ([tilus.uint_(b) for b in range(1, 9)] + [tilus.int_(b) for b in range(2, 9)]
         + [tilus.float_(e, m) for e, m in FLOATS])
# The bar shapes: (N, K) = (57344, 8192) and (8192, 28672) at 0.85 of
# copy, (8192, 8192) and (10240, 8192) at 0.60.
SHAPES = [(57344, 8192), (8192, 28672), (8192, 8192), (10240, 8192)]
MS = [1, 16]


def offset_of(wtype):
    """The offset quantize() gives: 2^(b-1) for unsigned integers, else 0."""
    unsigned = isinstance(wtype, tilus.IntDType) and not wtype.signed
    return 1 << (wtype.bits - 1) if unsigned else 0


def main():
    import torch
    from bench import median_ms, torch_copy_ms, ELEMENTS
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    copy_gbs = 2 * ELEMENTS * 4 / (torch_copy_ms() * 1e-3) / 1e9
    runner = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    # Compile every kernel first, in parallel processes (the on-disk cache
    # then serves the runner).
    wanted = {}
    for wtype in TYPES:
        for n, k in SHAPES:
            for m in MS:
                cfg = (runner.tuned(m, n, k, wtype, GROUP, offset_of(wtype))
                       or qmatmul.choose_config(m, n, k, wtype))
                w, nt, s, sk, kpt = cfg
                wanted[(str(wtype), cfg)] = qmatmul.QuantizedMatmul(
                    wtype, group_size=GROUP, offset=offset_of(wtype), warps=w, n_tiles=nt,
                    stages=s, split_k=sk, k_tiles=kpt)
    tilus.compile_many(list(wanted.values()), target=runner.runtime.target)
    lines = [f"device: {torch.cuda.get_device_name()}; torch copy_: {copy_gbs:.1f} GB/s; "
             f"group {GROUP}",
             f"{'type':12} {'M':>3} {'N':>6} {'K':>5} {'config':>16} {'us':>8} {'/copy':>6} "
             f"{'cublas us':>9} {'x cublas':>8}"]
    print(lines[0], flush=True)
    results = {}
    for n, k in SHAPES:
        wf = torch.randn(k, n, dtype=torch.float16, device="cuda")
        s = (torch.rand(k // GROUP, n, device="cuda") * 0.02).half()
        for m in MS:
            a = torch.randn(m, k, dtype=torch.float16, device="cuda")
            cublas = median_ms(lambda: torch.matmul(a, wf))
            c = torch.empty(m, n, dtype=torch.float16, device="cuda")
            for wtype in TYPES:
                packed = torch.randint(0, 256, (k * n * wtype.bits // 8,), dtype=torch.uint8,
                                       device="cuda")
                cfg = (runner.tuned(m, n, k, wtype, GROUP, offset_of(wtype))
                       or qmatmul.choose_config(m, n, k, wtype))
                ms = median_ms(lambda: runner(a, packed, s, wtype=wtype, group_size=GROUP,
                                              offset=offset_of(wtype), out=c, config=cfg))
                nbytes = k * n * wtype.bits // 8 + s.numel() * 2 + a.numel() * 2 + c.numel() * 2
                frac = nbytes / (ms * 1e-3) / 1e9 / copy_gbs
                results[(str(wtype), n, k, m)] = (cublas / ms, frac)
                line = (f"{str(wtype):12} {m:3} {n:6} {k:5} {str(cfg):>16} {ms * 1e3:8.2f} "
                        f"{frac:6.3f} {cublas * 1e3:9.2f} {cublas / ms:8.2f}")
                lines.append(line)
                print(line, flush=True)
                del packed
        del wf
    save_table(out_dir, "fig10.txt", lines)
    plt = pyplot()
    if plt is None:
        return
    import numpy as np
    cols = [(n, k, m) for n, k in SHAPES for m in MS]
    names = [str(t) for t in TYPES]
    fig, axes = plt.subplots(1, 2, figsize=(18, 9))
    for ax, idx, title, cmap in ((axes[0], 0, "speedup over cuBLAS f16", "viridis"),
                                 (axes[1], 1, "fraction of copy bandwidth", "magma")):
        grid = np.array([[results[(t, n, k, m)][idx] for n, k, m in cols] for t in names])
        im = ax.imshow(grid, cmap=cmap, aspect="auto")
        ax.set_xticks(range(len(cols)), [f"N={n}\nK={k}\nM={m}" for n, k, m in cols],
                      fontsize=7)
        ax.set_yticks(range(len(names)), names)
        for i in range(len(names)):
            for j in range(len(cols)):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if grid[i, j] < grid.max() * 0.6 else "black")
        ax.set_title(title)
        fig.colorbar(im, ax=ax, shrink=0.6)
    fig.suptitle(f"tilus.ops.quantized_matmul, group {GROUP}, "
                 f"{torch.cuda.get_device_name()}")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "fig10.png"), dpi=110)


if __name__ == "__main__":
    main()
