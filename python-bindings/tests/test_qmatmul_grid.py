"""Every weight type of the paper's Figure 10 grid x every group size x every
zero-point mode, through the kernels quantized_matmul itself chooses (the
mma.sync template at M = 5; at M = 45 on an H100, the warp-specialized wgmma
variant, for one group size per type and mode), on a ragged shape (M not a
multiple of any block, N = 320 not a power of two): bit-exact against a CPU
reference on inputs whose products and sums are exactly representable, and
within 1e-3 of an f64 reference on random inputs (issue 14's correctness
bar). bf16 activations likewise for one group size per type, mode and M
(within 8e-3 on random inputs)."""

import zlib

import numpy as np
import pytest

import tilus
from tilus.ops import qmatmul

from conftest import cuda_torch

FIG10 = ([tilus.uint_(b) for b in range(1, 9)] + [tilus.int_(b) for b in range(2, 9)]
         + [tilus.float_(e, m) for e, m in [(4, 3), (5, 2), (3, 3), (3, 2), (2, 3), (2, 2),
                                            (2, 1), (1, 2), (1, 1), (2, 0)]])
N, K = 320, 512
GROUPS = [32, 64, 128, 256, K]                 # K: one scale per output channel
# The kernel's zero points for each mode's zeros (the runner's plan key).
ZERO_KIND = {None: False, "values": True, "codes": tilus.uint8}


def _modes(wtype):
    """(name, offset, zeros) of each zero-point mode the type takes: unsigned
    integers without and with the symmetric offset 2^(b-1), and with zero
    points as values or as uint8 codes; other types as they are."""
    if isinstance(wtype, tilus.IntDType) and not wtype.signed:
        return [("plain", 0, None), ("offset", 1 << (wtype.bits - 1), None),
                ("zero-values", 0, "values"), ("zero-codes", 0, "codes")]
    return [("plain", 0, None)]


def _group(w, mode, shift=0):
    """One group size per type and mode (cycling through GROUPS)."""
    return GROUPS[(FIG10.index(w) + len(mode[0]) + shift) % len(GROUPS)]


# (wtype, group, mode, M, activation): f16 at every group at M = 5, at one
# at M = 45; bf16 at one group at M = 5 and another at M = 45.
CASES = ([(w, g, mode, 5, "f16") for w in FIG10 for mode in _modes(w) for g in GROUPS]
         + [(w, _group(w, mode), mode, 45, "f16") for w in FIG10 for mode in _modes(w)]
         + [(w, _group(w, mode, 1 + m // 45), mode, m, "bf16") for w in FIG10
            for mode in _modes(w) for m in (5, 45)])


def _inputs(rng, wtype, group, offset, zeros, m, exact):
    """(x [m, K], codes [K, N], scales [K / G, N], zeros or None; x, scales
    and zero values f16, all exact in bf16 too where `exact`):
    random, or (exact) x in {-1, 0, 1}, scales 1/8 or 1/4, integer zeros
    and, for floats, codes of magnitude 1/8 to 16 (or 0), so that every
    weight is exact in f16 and every product and partial sum is a multiple
    of 2^-9 below 2^15: exact in f32."""
    codes = qmatmul.random_codes(rng, wtype, (K, N))
    if exact and isinstance(wtype, tilus.FloatDType):
        v = np.abs(wtype.decode(codes))
        codes = np.where((v == 0) | ((v >= 0.125) & (v <= 16)), codes, 0)
    if exact:
        x = rng.integers(-1, 2, size=(m, K)).astype(np.float16)
        scales = np.ldexp(1.0, rng.integers(-3, -1, size=(K // group, N))).astype(np.float16)
    else:
        x = rng.normal(size=(m, K)).astype(np.float16)
        scales = (rng.random((K // group, N)) * 0.02 + 0.005).astype(np.float16)
    z = None
    if zeros == "codes":
        z = rng.integers(0, 1 << wtype.bits, size=(K // group, N)).astype(np.uint8)
    elif zeros == "values":
        z = rng.integers(0, 1 << wtype.bits, size=(K // group, N)).astype(np.float16)
        if not exact:
            z = (rng.random((K // group, N)) * (1 << wtype.bits)).astype(np.float16)
    return x, codes, scales, z


@pytest.fixture(scope="module")
def runner():
    torch = cuda_torch()
    if not tilus.has_compiler():
        pytest.skip("runtime-only mode: libTilus.so is not available")
    r = qmatmul.QuantizedMatmulRunner(tilus.Runtime(torch.cuda.current_device()))
    # Every kernel of the cases compiled at once, in parallel, into the
    # compile cache that the runner's own compiles then read.
    from tilus.ops.qmatmul_wgmma import wgmma_program
    programs = {}
    for wtype, group, (_, offset, zeros), m, act in CASES:
        zkind = ZERO_KIND[zeros]
        a = tilus.bfloat16 if act == "bf16" else tilus.float16
        cfg = r.choice(m, N, K, wtype, group, offset, a, zeros=zkind)
        key = (str(wtype), group, offset, str(zkind), cfg, qmatmul.row_tiles(m), act)
        if key not in programs:
            programs[key] = (wgmma_program(wtype, group, offset, cfg, a, zkind)
                             if qmatmul.is_wgmma(cfg) else
                             qmatmul.program(wtype, group, offset, cfg, a,
                                             qmatmul.row_tiles(m), zkind))
    tilus.compile_many(list(programs.values()), target=r.runtime.target)
    return r


@pytest.mark.parametrize("wtype,group,mode,m,act", CASES,
                         ids=[f"{w}-g{g}-{mode[0]}-m{m}-{a}" for w, g, mode, m, a in CASES])
def test_every_type_group_and_zero_mode(runner, wtype, group, mode, m, act):
    """bf16 keeps 8 significant bits: random inputs within 8e-3 (its rounding
    of the result alone is up to 2^-9); exact ones rounded once, as f16."""
    torch = cuda_torch()
    name, offset, zeros = mode
    if m > 32 and runner.runtime.compute_capability != (9, 0):
        pytest.skip("M = 45 checks the wgmma variant, which needs an sm_90 GPU")
    dtype = torch.bfloat16 if act == "bf16" else torch.float16
    rng = np.random.default_rng(zlib.crc32(f"{wtype}-{group}-{name}-{m}-{act}".encode()))
    for exact in (True, False):
        x, codes, scales, z = _inputs(rng, wtype, group, offset, zeros, m, exact)

        def dev(v):    # x, scales and zero values in x's dtype (bf16: rounded)
            if v is None:
                return None
            t = torch.from_numpy(v)
            return (t if v.dtype == np.uint8 else t.to(dtype)).cuda()
        x_d, s_d, z_d = dev(x), dev(scales), dev(z)
        qw = torch.from_numpy(qmatmul.pack(codes, wtype, offset).reshape(-1)).cuda()
        w = qmatmul.dequantize(codes, s_d.double().cpu().numpy(), wtype, offset, group,
                               None if z is None else z_d.double().cpu().numpy())
        want = x_d.double().cpu().numpy() @ w
        got = runner(x_d, qw, s_d, z_d, wtype=wtype, group_size=group, offset=offset)
        torch.cuda.synchronize()
        assert got.dtype == dtype
        if m > 32 and runner.runtime.compute_capability == (9, 0):
            plan = runner._plans[(m, N, K, wtype, group, offset,
                                  tilus.bfloat16 if act == "bf16" else tilus.float16,
                                  ZERO_KIND[zeros],
                                  False, None)]
            assert len(plan[0]) == 4, plan[0]         # the warp-specialized variant ran
        if exact:
            differ = int((got.cpu() != torch.from_numpy(want).to(dtype)).sum())
            assert differ == 0, f"{differ} of {got.numel()} differ"
        else:
            err = np.abs(got.double().cpu().numpy() - want).max() / np.abs(want).max()
            assert err <= (8e-3 if act == "bf16" else 1e-3), err
