"""Tuning the quantized matmul (docs/quantized-matmul.md, "Tuning").

A tuning space is a dict of parameter lists (SPACE); `configurations` lists
the points that fit a shape and the shared memory. Candidates are compiled in
parallel processes (`compile_space`, here or anywhere libTilus.so is) and can
be saved as artifacts and carried to the GPU machine, which needs only the
runtime (`load_space`). `measure` checks each candidate once against an f64
reference on a small shape and times it on the real one (CUDA events, L2
flushed before each run, median). The best configuration per (GPU, compute
capability, M bucket, N, K, weight type, group size, offset, library version)
goes into a JSON `Table`; `quantized_matmul` consults the table shipped with
the package (tuned.json) before its heuristic.

    python3 -m tilus.ops.tune build OUT_DIR --types uint4,int4 [--group 128] [--shipped-only]
    python3 -m tilus.ops.tune run OUT_DIR --shapes 16x57344x8192,1x8192x8192 \\
        --table tuned.json            # on the GPU machine; progress on stderr
"""

import itertools
import json
import os

import tilus

from . import qmatmul
from ..timing import median_ms

__all__ = ["SPACE", "configurations", "m_bucket", "Table", "compile_space", "load_space",
           "measure", "check_codes", "check_width", "shipped_table"]

# (warps, n_tiles, stages, split_k, k_tiles): 640 points before the shape and
# shared-memory constraints (428 for uint4; 344 fit N = 57344, K = 8192). 5
# and 7 warps give block widths with the factors 5 and 7 of N = 10240 and
# 57344 (7 x 8 x 8 columns: 128 blocks, one wave on 132 SMs); 8 stages and 8
# splits keep enough bytes in flight for 1- and 2-bit weights. (Split 8 was
# out while split-K added f16-rounded partials into C atomically: 1.55e-3
# against f64 on the H100 at K = 2048, past the 1e-3 bar. The f32 reduction
# in split order that replaced it keeps the check.)
SPACE = {"warps": [2, 4, 5, 7, 8], "n_tiles": [1, 2, 4, 8], "stages": [3, 4, 6, 8],
         "split_k": [1, 2, 4, 8], "k_tiles": [1, 2]}
# Two blocks per SM must fit (2 x 113 KiB of the H100's 227).
MAX_SHARED = 113 << 10
# The shape of the small correctness check: the splits of SPACE (<= 8 x 2
# k-tiles of 128, and 8 x 4) divide CHECK_K; a block width that does not
# divide CHECK_N is checked on the next multiple of it (check_width).
CHECK_N, CHECK_K = 512, 4096


def configurations(wtype, n=None, k=None, space=None, max_shared=MAX_SHARED, group=128,
                   zeros=False):
    """The points of `space` (default SPACE) as (warps, n_tiles, stages,
    split_k, k_tiles) tuples whose pipeline (for groups of `group` rows, with
    or without zero points) fits `max_shared` bytes and, when given, whose
    block width divides n and whose splits divide k."""
    space = space or SPACE
    out = []
    for cfg in itertools.product(space["warps"], space["n_tiles"], space["stages"],
                                 space["split_k"], space["k_tiles"]):
        w, nt, s, sk, kpt = cfg
        kern = qmatmul.QuantizedMatmul(wtype, group_size=group, warps=w, n_tiles=nt, stages=s,
                                       split_k=sk, k_tiles=kpt, zeros=zeros)
        if kern.shared_bytes > max_shared:
            continue
        if not qmatmul.fits(cfg, n, k):
            continue
        out.append(cfg)
    return out


def m_bucket(m):
    """The M bucket a tuned entry covers: 16 (one tile of rows) or the next
    power of two, up to 256, then "large"."""
    if m <= 16:
        return "16"
    for b in (32, 64, 128, 256):
        if m <= b:
            return str(b)
    return "large"


def _name(wtype, group, offset, cfg):
    return "qmm_{}_g{}_o{}_w{}n{}s{}k{}t{}".format(wtype, group, offset, *cfg)


class Table:
    """Tuned configurations: key -> {"config": [...], "us": float}."""

    def __init__(self, entries=None, version=None):
        self.entries = dict(entries or {})
        self.version = version or tilus.__version__

    @staticmethod
    def key(gpu, cc, m, n, k, wtype, group, offset, activation=None):
        act = "" if activation in (None, tilus.float16) else f"|a{activation}"
        return f"{gpu}|sm_{cc[0]}{cc[1]}|m{m_bucket(m)}|n{n}|k{k}|{wtype}|g{group}|o{offset}{act}"

    def get(self, gpu, cc, m, n, k, wtype, group, offset, activation=None):
        """The tuned configuration (a tuple) or None. Entries from another
        library version are not used: the template may have changed. bf16
        activations with integer weights of up to 7 bits, whose decode is
        the f16 one (FastCast.c), take the f16 entry where they have none
        (bench/README.md, "bf16 activations": in one run of u4, i4, u3 and
        u2 at the Llama-3-70B shapes, faster than choose_config's in 22 of
        32 cells, up to 1.19x; at most 4 % slower in 7)."""
        if self.version != tilus.__version__:
            return None
        e = self.entries.get(self.key(gpu, cc, m, n, k, wtype, group, offset, activation))
        if (e is None and activation == tilus.bfloat16 and isinstance(wtype, tilus.IntDType)
                and wtype.bits <= 7):
            e = self.entries.get(self.key(gpu, cc, m, n, k, wtype, group, offset))
        return tuple(e["config"]) if e else None

    def set(self, gpu, cc, m, n, k, wtype, group, offset, config, us, activation=None):
        self.entries[self.key(gpu, cc, m, n, k, wtype, group, offset, activation)] = {
            "config": list(config), "us": round(float(us), 2)}

    def save(self, path):
        with open(path, "w") as f:
            json.dump({"version": self.version, "entries": self.entries}, f, indent=1,
                      sort_keys=True)
            f.write("\n")

    @classmethod
    def load(cls, path):
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict) or "entries" not in data or "version" not in data:
            raise ValueError(f"{path}: not a tuning table (no 'version' and 'entries')")
        return cls(data["entries"], data["version"])


_shipped = None


def shipped_table():
    """The table in the package (tuned.json), or an empty one."""
    global _shipped
    if _shipped is None:
        path = os.path.join(os.path.dirname(__file__), "tuned.json")
        _shipped = Table.load(path) if os.path.exists(path) else Table()
    return _shipped


def compile_space(wtype, configs, *, group=128, offset=0, target="sm_90a", out_dir=None,
                  processes=None):
    """{config: Artifact} for every configuration, compiled in parallel
    processes (through the on-disk cache); saved as OUT_DIR/<name>.tilus too
    when `out_dir` is given."""
    kernels = [qmatmul.QuantizedMatmul(wtype, group_size=group, offset=offset, warps=c[0],
                                       n_tiles=c[1], stages=c[2], split_k=c[3], k_tiles=c[4])
               for c in configs]
    arts = tilus.compile_many(kernels, processes, target=target)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        for cfg, a in zip(configs, arts):
            a.save(os.path.join(out_dir, _name(wtype, group, offset, cfg) + f".{target}.tilus"))
    return dict(zip(configs, arts))


def load_space(out_dir, wtype, *, group=128, offset=0, target="sm_90a"):
    """The artifacts compile_space saved, for a machine without libTilus.so."""
    prefix = f"qmm_{wtype}_g{group}_o{offset}_"
    found = {}
    for f in sorted(os.listdir(out_dir)):
        if f.startswith(prefix) and f.endswith(f".{target}.tilus"):
            digits = f[len(prefix):-len(f".{target}.tilus")]
            w, rest = digits[1:].split("n", 1)
            nt, rest = rest.split("s", 1)
            s, rest = rest.split("k", 1)
            sk, kpt = rest.split("t", 1)
            cfg = (int(w), int(nt), int(s), int(sk), int(kpt))
            found[cfg] = tilus.Artifact.from_file(os.path.join(out_dir, f))
    return found


def check_width(config):
    """The N of a configuration's correctness check: CHECK_N, or the next
    multiple of its block width."""
    bn = qmatmul.block_width(config)
    return -(-CHECK_N // bn) * bn


def measure(runtime, artifacts, m, n, k, wtype, *, group=128, offset=0, runs=30,
            check_packed=None, progress=None):
    """{config: microseconds} for the artifacts of compile_space/load_space
    on an [m, k] x [k, n] product (random packed bytes: any byte is a valid
    code). Each kernel first runs once on its check shape (CHECK_K x
    check_width) against an f64 reference; `check_packed` maps each check
    width to the packed weights of check_codes(wtype, width) (tilus.ops.pack;
    None packs them here, which needs libTilus.so; the CLI's build step saves
    them for a runtime-only run). A kernel that fails the check raises
    AssertionError naming its configuration. `progress(i, total, config, us)`
    is called after each."""
    import numpy as np
    import torch
    from collections.abc import Mapping
    if check_packed is not None and not isinstance(check_packed, Mapping):
        raise TypeError("measure: check_packed maps each check width to its packed weights "
                        "(a dict), not " + type(check_packed).__name__)
    x = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = wtype.bits
    w = torch.randint(0, 256, (k * n * b // 8,), dtype=torch.uint8, device="cuda")
    s = (torch.rand(k // group, n, device="cuda") * 0.02 + 0.005).half()
    out = torch.zeros(m, n, dtype=torch.float16, device="cuda")
    checks = {}                  # check width -> (a, w, scales, reference)
    results = {}
    total = len(artifacts)
    scratch = {}                 # split_k -> (partials, counters) for both shapes
    rows = min(m, 17)            # the check's M

    def split_args(sk):
        if sk == 1:
            return ()
        if sk not in scratch:
            width = max(check_width(c) for c in artifacts)
            scratch[sk] = qmatmul.split_scratch(sk, max(m, rows), max(n, width))
        return scratch[sk]

    for i, cfg in enumerate(sorted(artifacts)):
        if not qmatmul.fits(cfg, k=CHECK_K):
            raise ValueError(f"configuration {cfg}: its {cfg[3]} splits of {cfg[4]} k tiles "
                             f"do not divide the check's K = {CHECK_K}")
        kern = runtime.kernel(artifacts[cfg], "qmatmul")
        cn = check_width(cfg)
        if cn not in checks:
            packed = None if check_packed is None else check_packed.get(cn)
            if check_packed is not None and packed is None:
                raise ValueError(f"check_packed has no packed weights for the check width "
                                 f"{cn} of configuration {cfg}")
            checks[cn] = _check_inputs(torch, np, wtype, group, offset, rows, cn, packed)
        cx, cw, cs, want = checks[cn]
        c = torch.full((rows, cn), float("nan"), dtype=torch.float16, device="cuda")
        kern(cx, cw, cs, c, *split_args(cfg[3]), rows, cn, CHECK_K)
        torch.cuda.synchronize()
        err = (c.double().cpu().numpy() - want).__abs__().max() / np.abs(want).max()
        if not err <= 1e-3:
            raise AssertionError(f"configuration {cfg}: relative error {err:.2e} on the check")
        extra = split_args(cfg[3])
        run = lambda: kern(x, w, s, out, *extra, m, n, k)  # noqa: E731
        us = median_ms(run, runs) * 1e3
        results[cfg] = us
        if progress:
            progress(i + 1, total, cfg, us)
    return results


def check_codes(wtype, n=CHECK_N):
    """The [CHECK_K, n] codes of the correctness check (fixed seed)."""
    import numpy as np
    return qmatmul.random_codes(np.random.default_rng(0), wtype, (CHECK_K, n))


def _check_inputs(torch, np, wtype, group, offset, m, n, packed):
    codes = check_codes(wtype, n)
    rng = np.random.default_rng(1)
    scales = (rng.random((CHECK_K // group, n)) * 0.02 + 0.005).astype(np.float16)
    a = rng.normal(size=(m, CHECK_K)).astype(np.float16)
    want = a.astype(np.float64) @ qmatmul.dequantize(codes, scales, wtype, offset, group)
    if packed is None:
        packed = qmatmul.pack(codes, wtype, offset)
    return (torch.from_numpy(a).cuda(), torch.from_numpy(np.asarray(packed).reshape(-1)).cuda(),
            torch.from_numpy(scales).cuda(), want)


def _check_file(out_dir, wtype, offset, n):
    return os.path.join(out_dir, f"check_{wtype}_o{offset}_n{n}.npy")


def _main(argv=None):
    import argparse
    import sys
    import numpy as np
    ap = argparse.ArgumentParser(prog="python3 -m tilus.ops.tune")
    sub = ap.add_subparsers(dest="mode", required=True)
    b = sub.add_parser("build", help="compile the space's candidates into OUT_DIR")
    b.add_argument("out")
    b.add_argument("--types", default="uint4")
    b.add_argument("--group", type=int, default=128)
    b.add_argument("--target", default="sm_90a")
    b.add_argument("--shipped-only", action="store_true",
                   help="only the configurations tuned.json holds for some type and shape: "
                        "a quick re-tune after a compiler change")
    r = sub.add_parser("run", help="check and time OUT_DIR's candidates; write the table")
    r.add_argument("out")
    r.add_argument("--types", default="uint4")
    r.add_argument("--group", type=int, default=128)
    r.add_argument("--shapes", required=True, help="MxNxK,...")
    r.add_argument("--table", required=True)
    r.add_argument("--runs", type=int, default=30)
    args = ap.parse_args(argv)
    # Unsigned types with the symmetric offset 2^(b-1), as quantize() makes them.
    types = []
    for name in args.types.split(","):
        t = tilus.dtype(name)
        unsigned = isinstance(t, tilus.IntDType) and not t.signed
        types.append((t, 1 << (t.bits - 1) if unsigned else 0))
    if args.mode == "build":
        for t, off in types:
            cfgs = configurations(t, group=args.group)
            if args.shipped_only:
                held = {tuple(e["config"]) for e in shipped_table().entries.values()}
                cfgs = [c for c in cfgs if c in held]
            compile_space(t, cfgs, group=args.group, offset=off, target=args.target,
                          out_dir=args.out)
            # The checks' packed weights, for a run without libTilus.so.
            for cn in sorted({check_width(c) for c in cfgs}):
                np.save(_check_file(args.out, t, off, cn), qmatmul.pack(check_codes(t, cn), t, off))
            print(f"{t}: {len(cfgs)} candidates in {args.out}", file=sys.stderr)
        return 0
    import torch
    rt = tilus.Runtime(torch.cuda.current_device())
    table = Table.load(args.table) if os.path.exists(args.table) else Table()
    gpu, cc = rt.device_name, rt.compute_capability
    target = rt.target

    def bar(i, total, cfg, us):
        done = int(30 * i / total)
        print(f"\r[{'#' * done}{'.' * (30 - done)}] {i}/{total} {cfg} {us:8.2f} us",
              end="" if i < total else "\n", file=sys.stderr, flush=True)

    for shape in args.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        if qmatmul.row_tiles(m) != 1:
            # The candidates are one-row-tile kernels; the runner gives larger M
            # more row tiles per block (row_tiles), which this space does not hold.
            raise SystemExit(f"tune: M = {m} > 16 is not tunable yet (the candidates have "
                             f"16 rows per block); larger M use choose_config")
        for t, off in types:
            arts = load_space(args.out, t, group=args.group, offset=off, target=target)
            fitting = set(configurations(t, n, k, group=args.group))
            arts = {c: a for c, a in arts.items() if c in fitting}
            if not arts:
                raise SystemExit(f"tune: no candidates for {t} (group {args.group}, offset "
                                 f"{off}, {target}) in {args.out} that fit {m}x{n}x{k}; "
                                 f"run the build step for this type first")
            packed = {}
            for cn in {check_width(c) for c in arts}:
                path = _check_file(args.out, t, off, cn)
                if not os.path.exists(path):
                    raise SystemExit(f"tune: {path} is missing (candidates from an older "
                                     f"build step?); run the build step again")
                packed[cn] = np.load(path)
            times = measure(rt, arts, m, n, k, t, group=args.group, offset=off,
                            runs=args.runs, check_packed=packed, progress=bar)
            best = min(times, key=times.get)
            table.set(gpu, cc, m, n, k, t, args.group, off, best, times[best])
            print(f"{t} {m}x{n}x{k}: {best} {times[best]:.2f} us", file=sys.stderr)
    table.save(args.table)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
