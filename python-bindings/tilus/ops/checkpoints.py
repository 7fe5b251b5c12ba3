"""The codes, zero points and scales of GPTQ and AWQ checkpoints' packed
tensors (docs/quantized-matmul.md, "From GPTQ and AWQ checkpoints"), ready
for tilus.ops.pack and quantized_matmul: weights (code - zero) * scale.

Both formats store int32 words of b-bit fields, the first field in the
lowest bits:

- GPTQ (AutoGPTQ, GPTQModel; 2, 3, 4 or 8 bits): `qweight` [K * b / 32, N]
  packs K, `qzeros` [K / G, N * b / 32] packs N, both as one continuous bit
  stream per column or row (3-bit fields straddle words). The original
  format (checkpoint_format "gptq") stores each zero point less one, and its
  kernels add the one back (zeros from 1 to 2^b); "gptq_v2" stores it as it
  is. `g_idx`, where present, must be the plain
  k // G: act-order checkpoints (a permuted g_idx) are refused.
- AWQ (AutoAWQ's GEMM layout; 4 bits): `qweight` [K, N / 8] and `qzeros`
  [K / G, N / 8] both pack N, the i-th nibble of a word holding column
  8 * word + AWQ_ORDER[i].

`scales` are [K / G, N] in both. Everything is numpy (torch tensors are
taken through .cpu().numpy()); nothing here needs a GPU.
"""

import numpy as np

# AWQ's nibble order: nibble i of a word holds column AWQ_ORDER[i] of its 8.
AWQ_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)


def _array(t):
    """A numpy array of a numpy array or a torch tensor (any device)."""
    if hasattr(t, "detach"):
        t = t.detach().cpu().numpy()
    return np.asarray(t)


def unpack_fields(words, bits, count, axis):
    """The `count` b-bit fields (as uint16) of int32 `words` read along
    `axis` as one continuous bit stream, lowest bits first: along that axis
    the result has `count` entries where `words` has count * b / 32."""
    w = np.moveaxis(_array(words).astype(np.int64) & 0xFFFFFFFF, axis, -1)
    if w.shape[-1] * 32 < count * bits:
        raise ValueError(f"{w.shape[-1]} words hold {w.shape[-1] * 32 // bits} fields of "
                         f"{bits} bits, not {count}")
    if 32 % bits == 0:                    # fields within words: shifts
        per = 32 // bits
        shifts = np.arange(per, dtype=np.int64) * bits
        fields = ((w[..., :, None] >> shifts) & ((1 << bits) - 1)).reshape(
            *w.shape[:-1], w.shape[-1] * per)[..., :count]
    else:                                 # fields straddle words: the bit stream
        stream = np.unpackbits(w.astype("<u4").view(np.uint8), axis=-1, bitorder="little")
        fields = stream[..., :count * bits].reshape(*w.shape[:-1], count, bits).astype(np.int64)
        fields = (fields << np.arange(bits, dtype=np.int64)).sum(axis=-1)
    return np.moveaxis(fields.astype(np.uint16), -1, axis)


def _groups(scales, k, n):
    s = _array(scales)
    if s.ndim != 2 or s.shape[1] != n or s.shape[0] == 0 or k % s.shape[0]:
        raise ValueError(f"scales must be [K / G, N] with N = {n} and K / G dividing K = {k}, "
                         f"not {list(s.shape)}")
    return s, k // s.shape[0]


def from_gptq(qweight, qzeros, scales, bits, g_idx=None, checkpoint_format="gptq"):
    """(codes [K, N] uint16, zeros [K / G, N] int32, scales [K / G, N], G)
    of a GPTQ layer's tensors (see the module); ValueError naming what does
    not fit the format."""
    if bits not in (2, 3, 4, 8):
        raise ValueError(f"GPTQ packs 2, 3, 4 or 8 bits, not {bits}")
    if checkpoint_format not in ("gptq", "gptq_v2"):
        raise ValueError(f"checkpoint_format: 'gptq' or 'gptq_v2', not {checkpoint_format!r}")
    qw, qz = _array(qweight), _array(qzeros)
    if qw.ndim != 2 or qz.ndim != 2 or (qw.shape[0] * 32) % bits:
        raise ValueError(f"qweight [K * b / 32, N] and qzeros [K / G, N * b / 32], not "
                         f"{list(qw.shape)} and {list(qz.shape)}")
    k, n = qw.shape[0] * 32 // bits, qw.shape[1]
    s, g = _groups(scales, k, n)
    if qz.shape != (k // g, -(-n * bits // 32)):
        raise ValueError(f"qzeros must be [K / G, N * {bits} / 32] = [{k // g}, "
                         f"{-(-n * bits // 32)}], not {list(qz.shape)}")
    if g_idx is not None and not np.array_equal(_array(g_idx), np.arange(k) // g):
        raise ValueError("g_idx is not k // group_size: act-order (desc_act) checkpoints "
                         "permute K, which the weight format does not")
    codes = unpack_fields(qw, bits, k, axis=0)
    zeros = unpack_fields(qz, bits, n, axis=1).astype(np.int32)
    if checkpoint_format == "gptq":
        # Stored less one; its kernels add the one back without wrapping, so
        # a stored 2^b - 1 is a zero of 2^b there, and here.
        zeros = zeros + 1
    return codes, zeros, s, g


def from_awq(qweight, qzeros, scales, bits=4):
    """(codes [K, N] uint16, zeros [K / G, N] int32, scales [K / G, N], G)
    of an AWQ (GEMM layout) layer's tensors (see the module); ValueError
    naming what does not fit the format."""
    if bits != 4:
        raise ValueError(f"AWQ's GEMM layout packs 4 bits, not {bits}")
    qw, qz = _array(qweight), _array(qzeros)
    if qw.ndim != 2 or qz.ndim != 2 or qw.shape[1] != qz.shape[1]:
        raise ValueError(f"qweight [K, N / 8] and qzeros [K / G, N / 8], not {list(qw.shape)} "
                         f"and {list(qz.shape)}")
    k, n = qw.shape[0], qw.shape[1] * 8
    s, g = _groups(scales, k, n)
    if qz.shape[0] != k // g:
        raise ValueError(f"qzeros must have K / G = {k // g} rows, not {qz.shape[0]}")
    # Nibble i of word j holds column 8 j + AWQ_ORDER[i]: put it there.
    column = (np.arange(n // 8)[:, None] * 8 + np.array(AWQ_ORDER)).reshape(-1)

    def columns(t):
        fields = unpack_fields(t, 4, n, axis=1)
        out = np.empty_like(fields)
        out[:, column] = fields
        return out
    return columns(qw), columns(qz).astype(np.int32), s, g
