"""Kernel tables of the quantized matmul for C serving stacks
(include/tilus-c/QuantizedMatmul.h; docs/quantized-matmul.md, "From C").

    python3 -m tilus.ops.export OUT_DIR --weights uint4:8,int4:0 \\
        --shapes 57344x8192,8192x8192 [--group 128] [--activations float16,int8,float8_e4m3] \\
        [--variants plain,bias,zeros,zeros+bias,codes,codes+bias] [--gpu NAME --cc 9.0] \\
        [--target sm_90a]

For every weight type (type:offset), shape (NxK), activation and variant
(zeros: zero points as values of the scales' type; codes: as uint8 codes),
the configuration quantized_matmul would take on that GPU (qmatmul.default_choice:
the shipped tuning table, the wgmma variants above M = 32 on sm_90 for f16,
bf16 and int8 (stream-K ones for f16 and bf16 at some M from 65 to 256, with
split_k -132: the H100's SMs), fp8_config's for FP8, else choose_config) over each range of M
on which that choice and the block's row tiles stay the same, compiled here (needs libTilus.so, not a
GPU) into OUT_DIR/qmatmul_<i>.tilus, one per distinct kernel, and listed in
OUT_DIR/qmatmul-table.txt. The C runtime reads the table with
tilusQmatmulTableLoad."""

import argparse
import os

import tilus

from . import qmatmul
from .tune import m_bucket

TABLE_FILE = "qmatmul-table.txt"
HEADER = "tilus-qmatmul-table 1"
H100 = ("NVIDIA H100 80GB HBM3", (9, 0))
# M ranges on which row_tiles, the tuning table's M bucket, choose_config's
# thresholds, I8_WGMMA_ABOVE and the wgmma block heights (block_rows and
# fp8_config: M rounded up to 32, and the waves of grids of 64-, 128- and
# 256-row blocks) are all constant: 32 rows each from M = 33 to the M where
# even 256-row blocks take more than one wave at N = 128 (fp8_config's
# choice above M = 256 changes with the waves), then one unbounded range.
# Equal neighbours are merged (entries).
_WAVE_LIMIT = 256 * qmatmul.SMS
_STEP = qmatmul.HEIGHT_STEP
M_RANGES = ([(1, 16), (17, 32)] + [(lo + 1, lo + _STEP) for lo in range(32, _WAVE_LIMIT, _STEP)]
            + [(_WAVE_LIMIT + 1, 0)])
# Variant -> (the kernel's zero points: False, True for values of the scales'
# type or tilus.uint8 for codes; bias).
VARIANTS = {"plain": (False, False), "bias": (False, True), "zeros": (True, False),
            "zeros+bias": (True, True), "codes": (tilus.uint8, False),
            "codes+bias": (tilus.uint8, True)}
# The table's zeros column for each kind of zero points.
ZEROS_COLUMN = {False: 0, True: 1, tilus.uint8: 2}


def entries(wtype, offset, n, k, group, activation, zeros=False, gpu=H100[0], cc=H100[1]):
    """[(m_min, m_max, config, m_tiles)] for one product (with zero points
    if `zeros`: True for values, tilus.uint8 for codes): the ranges of M
    (m_max 0: unbounded) with quantized_matmul's choice on each, neighbours
    with the same choice merged."""
    out = []
    for lo, hi in M_RANGES:
        m = hi or lo
        assert all(f(m) == f(lo) for f in (qmatmul.row_tiles, m_bucket))
        cfg = qmatmul.default_choice(m, n, k, wtype, group, offset, activation, zeros,
                                     gpu, cc)
        # The FP8 kernels have no row tiles (blocks of block_m rows).
        mt = None if activation == tilus.float8_e4m3 else qmatmul.row_tiles(m)
        if out and out[-1][2:] == (cfg, mt):
            out[-1] = (out[-1][0], hi, cfg, mt)
        else:
            out.append((lo, hi, cfg, mt))
    return out


def export(out_dir, weights, shapes, *, group=128, activations=("float16",),
           variants=("plain", "bias"), gpu=H100[0], cc=H100[1], target="sm_90a",
           processes=None):
    """Writes the table and its artifacts into out_dir; returns the number
    of entries. `weights` is [(wtype, offset)], `shapes` [(n, k)]. A
    product the template cannot take is skipped: int8 activations with float
    weights or groups below 128; FP8 ones with weights beyond 4 bits; zero
    points with an offset; int8 and FP8 activations with zero values (they
    take codes), or with codes of signed weights (or, for int8, of 8-bit
    ones). ValueError for a shape or group no product can take."""
    for n, k in shapes:
        if k % qmatmul.TILE_K or n % qmatmul.TILE_N or not qmatmul.group_size_ok(group) \
                or k % group:
            raise ValueError(f"export: N x K = {n}x{k} with group {group}: K must be a "
                             f"multiple of {qmatmul.TILE_K}, N of {qmatmul.TILE_N}, and the "
                             f"group 32, 64 or a multiple of {qmatmul.TILE_K} dividing K")
    os.makedirs(out_dir, exist_ok=True)
    rows, kernels = [], {}          # kernel key -> (index, program)
    for activation in activations:
        act = None if activation == "float16" else tilus.dtype(activation)
        for wtype, offset in weights:
            fp8 = act == tilus.float8_e4m3
            if act == tilus.int8 and (not qmatmul.int8_fits(wtype, offset)
                                      or group % qmatmul.TILE_K):
                continue
            if fp8 and (not qmatmul.fp8_fits(wtype, offset) or group % qmatmul.TILE_K):
                continue
            for variant in variants:
                zeros, bias = VARIANTS[variant]
                if zeros and (offset or not qmatmul.zeros_fit(wtype, act, zeros)):
                    continue
                for n, k in shapes:
                    for lo, hi, cfg, mt in entries(wtype, offset, n, k, group, act, zeros,
                                                   gpu, cc):
                        if cfg is None:              # FP8: no block tiles N
                            continue
                        # The wgmma variants' (g, block_m, s), warp-specialized
                        # (g, block_m, s, lag) or stream-K (g, block_m, s, lag,
                        # "sk"), or mma.sync's 5-tuple.
                        wg = qmatmul.is_wgmma(cfg)
                        key = (str(wtype), offset, group, activation, cfg,
                               None if wg else mt, ZEROS_COLUMN[zeros], bias)
                        if key not in kernels:
                            kernels[key] = (len(kernels), qmatmul.instance(
                                wtype, group, offset, cfg, act, mt, zeros, bias))
                        index, t = kernels[key]
                        # Stream-K: -P, at most P blocks (one per SM).
                        split = (-qmatmul.SMS if qmatmul.is_stream_k(cfg) else
                                 1 if wg else cfg[3])
                        block_rows, block_cols = qmatmul.block_of(cfg, mt)
                        rows.append(f"{wtype} {offset} {group} {activation} "
                                    f"{ZEROS_COLUMN[zeros]} "
                                    f"{int(bias)} {lo} {hi} {n} {k} {split} {block_rows} "
                                    f"{block_cols} qmatmul_{index}.tilus")
    programs = [t for _, t in sorted(kernels.values(), key=lambda v: v[0])]
    arts = tilus.compile_many(programs, target=target, processes=processes)
    for i, art in enumerate(arts):
        art.save(os.path.join(out_dir, f"qmatmul_{i}.tilus"))
    with open(os.path.join(out_dir, TABLE_FILE), "w") as f:
        f.write(f"{HEADER}\n# gpu {gpu!r} sm_{cc[0]}{cc[1]}, target {target}, "
                f"tilus {tilus.__version__}\n# wtype offset group activation zeros bias "
                f"m_min m_max n k split_k block_rows block_cols artifact\n")
        f.write("".join(r + "\n" for r in rows))
    return len(rows)


def _pairs(text, what):
    try:
        return [tuple(int(v) for v in item.split("x")) for item in text.split(",")] \
            if what == "shapes" else [(tilus.dtype(t), int(o)) for t, o in
                                      (item.split(":") for item in text.split(","))]
    except (ValueError, KeyError, TypeError) as e:
        raise SystemExit(f"export: bad --{what} {text!r} ({e}); e.g. --weights uint4:8,int4:0 "
                         f"--shapes 57344x8192")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m tilus.ops.export", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("--weights", required=True, help="type:offset,... (uint4:8,int4:0)")
    p.add_argument("--shapes", required=True, help="NxK,... (57344x8192)")
    p.add_argument("--group", type=int, default=128)
    p.add_argument("--activations", default="float16",
                   help="float16,bfloat16,int8,float8_e4m3")
    p.add_argument("--variants", default="plain,bias", help=",".join(VARIANTS))
    p.add_argument("--gpu", default=H100[0], help="the tuning table's GPU name")
    p.add_argument("--cc", default="9.0", help="its compute capability, major.minor")
    p.add_argument("--target", default="sm_90a")
    a = p.parse_args(argv)
    acts = a.activations.split(",")
    bad = [v for v in acts if v not in ("float16", "bfloat16", "int8", "float8_e4m3")]
    bad += [v for v in a.variants.split(",") if v not in VARIANTS]
    if bad:
        raise SystemExit(f"export: unknown activation or variant {bad[0]!r}")
    major, minor = (int(v) for v in a.cc.split("."))
    try:
        count = export(a.out_dir, _pairs(a.weights, "weights"), _pairs(a.shapes, "shapes"),
                       group=a.group, activations=acts, variants=a.variants.split(","),
                       gpu=a.gpu, cc=(major, minor), target=a.target)
    except ValueError as e:
        raise SystemExit(str(e))
    print(f"wrote {count} entries to {os.path.join(a.out_dir, TABLE_FILE)}")


if __name__ == "__main__":
    main()
