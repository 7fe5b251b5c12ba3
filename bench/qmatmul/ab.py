"""Two compilers' quantized-matmul kernels side by side, interleaved in one
process on the GPU machine: an A/B test of a compiler change.

    # here, once with each compiler (e.g. before and after a change):
    PYTHONPATH=python-bindings python3 bench/qmatmul/ab.py build OUT_DIR [--types uint3,float6_e3m2] [--bf16]
        [--shapes 57344x8192,8192x8192]
    # on the GPU machine, runtime only:
    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/ab.py run OLD_DIR NEW_DIR

`build` compiles each type's tuned configuration (the running checkout's
tuned.json, else choose_config, with a warning) at the issue's two 0.85-bar
shapes (or --shapes), M = 16, into OUT_DIR/<type>_<n>_<k>_<config>.tilus (with --bf16 the
bf16-activation template, OUT_DIR/bf16.<type>_...; integer weights of up to 7 bits
take their f16 entry, as the runner does). Kernels whose
configuration differs between the two directories are reported, not compared.
`run` times every kernel present in both directories on the same random
operands: ROUNDS alternating rounds of (old, new), each the median of RUNS
L2-flushed runs with CUDA events, and prints both medians, new/old and the
rounds' spread.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tilus  # noqa: E402
from tilus.ops import qmatmul, tune  # noqa: E402
from fig10 import TYPES, offset_of  # noqa: E402

SHAPES = [(57344, 8192), (8192, 28672)]
M, ROUNDS, RUNS = 16, 7, 15
GPU, CC = "NVIDIA H100 80GB HBM3", (9, 0)


def build(out_dir, types, bf16=False, shapes=SHAPES):
    os.makedirs(out_dir, exist_ok=True)
    cls = qmatmul.QuantizedMatmulBF16 if bf16 else qmatmul.QuantizedMatmul
    for t in types:
        for n, k in shapes:
            cfg = tune.shipped_table().get(GPU, CC, M, n, k, t, 128, offset_of(t))
            if cfg is None:
                cfg = qmatmul.choose_config(M, n, k, t)
                print(f"ab: no tuned entry for {t} at ({n}, {k}) in this checkout's "
                      f"tuned.json; using choose_config's {cfg}", file=sys.stderr)
            kern = cls(t, group_size=128, offset=offset_of(t), warps=cfg[0],
                                           n_tiles=cfg[1], stages=cfg[2], split_k=cfg[3],
                                           k_tiles=cfg[4])
            name = f"{'bf16.' if bf16 else ''}{t}_{n}_{k}_{'_'.join(map(str, cfg))}.tilus"
            tilus.compile(kern.mlir(), target="sm_90a", cache=False).save(
                os.path.join(out_dir, name))


def run(old_dir, new_dir):
    import torch
    from tilus.timing import median_ms
    rt = tilus.Runtime(torch.cuda.current_device())
    old, new = set(os.listdir(old_dir)), set(os.listdir(new_dir))
    for f in sorted(old ^ new):
        # Another configuration (a re-tuned entry) is another file name.
        print(f"ab: {f} is only in {old_dir if f in old else new_dir}; not compared",
              file=sys.stderr)
    for f in sorted(old & new):
        if not f.endswith(".tilus"):
            continue
        bf16 = f.startswith("bf16.")
        act = torch.bfloat16 if bf16 else torch.float16
        parts = f[len("bf16.") if bf16 else 0:-len(".tilus")].split("_")
        cfg = tuple(int(x) for x in parts[-5:])
        n, k, t = int(parts[-7]), int(parts[-6]), tilus.dtype("_".join(parts[:-7]))
        kernels = [rt.kernel(tilus.Artifact.from_file(os.path.join(d, f)), "qmatmul")
                   for d in (old_dir, new_dir)]
        a = torch.randn(M, k, dtype=act, device="cuda")
        w = torch.randint(0, 256, (k * n * t.bits // 8,), dtype=torch.uint8, device="cuda")
        s = (torch.rand(k // 128, n, device="cuda") * 0.02).to(act)
        c = torch.empty(M, n, dtype=act, device="cuda")
        extra = qmatmul.split_scratch(cfg[3], M, n) if cfg[3] > 1 else ()
        times = [[], []]
        for _ in range(ROUNDS):
            for kern, out in zip(kernels, times):
                out.append(median_ms(lambda: kern(a, w, s, c, *extra, M, n, k), RUNS) * 1e3)
        mo, mn = statistics.median(times[0]), statistics.median(times[1])
        print(f"{'bf16 ' if bf16 else ''}{str(t):12} {n:6} {k:6} {str(cfg):16} old {mo:7.2f} new {mn:7.2f} us  "
              f"new/old {mn / mo:.3f}  spread old {min(times[0]):.1f}-{max(times[0]):.1f} "
              f"new {min(times[1]):.1f}-{max(times[1]):.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(prog="bench/qmatmul/ab.py")
    sub = ap.add_subparsers(dest="mode", required=True)
    b = sub.add_parser("build")
    b.add_argument("out")
    b.add_argument("--types", default=",".join(str(t) for t in TYPES))
    b.add_argument("--bf16", action="store_true", help="bf16 activations")
    b.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES),
                   help="NxK,... (default: the two 0.85-bar shapes)")
    r = sub.add_parser("run")
    r.add_argument("old")
    r.add_argument("new")
    args = ap.parse_args()
    if args.mode == "build":
        shapes = [tuple(int(v) for v in x.split("x")) for x in args.shapes.split(",")]
        build(args.out, [tilus.dtype(x) for x in args.types.split(",")], args.bf16, shapes)
    else:
        run(args.old, args.new)


if __name__ == "__main__":
    main()
