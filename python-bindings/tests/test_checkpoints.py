"""GPTQ and AWQ checkpoints' packed tensors (tilus.ops.checkpoints): the
codes and zero points come back from words packed here by the formats'
published rules (written out below, field by field), for every width the
formats take; shapes and act-order are refused by name. On a GPU, a
QuantizedLinear made from them computes x (code - zero) scale."""

import numpy as np
import pytest

from tilus.ops import checkpoints

from conftest import cuda_torch


def _stream_words(fields, bits, words):
    """Packs `fields` (ints < 2^bits) into `words` int32 words as one bit
    stream, the first field in the lowest bits (GPTQ's rule)."""
    out = [0] * words
    for i, v in enumerate(int(f) for f in fields):
        for b in range(bits):
            if v >> b & 1:
                p = i * bits + b
                out[p // 32] |= 1 << (p % 32)
    return [w - (1 << 32) if w >= 1 << 31 else w for w in out]     # as int32


def gptq_pack(codes, zeros, bits, v1):
    """qweight [K b / 32, N] (columns of K) and qzeros [K / G, N b / 32]
    (rows of N), zeros stored less one (wrapping) in the original format."""
    k, n = codes.shape
    qweight = np.array([_stream_words(codes[:, j], bits, k * bits // 32) for j in range(n)],
                       np.int64).T.astype(np.int32)
    stored = (zeros - 1) % (1 << bits) if v1 else zeros
    qzeros = np.array([_stream_words(row, bits, -(-n * bits // 32)) for row in stored],
                      np.int64).astype(np.int32)
    return qweight, qzeros


def awq_pack(codes):
    """Words of 8 nibbles along N, nibble i of word j holding column
    8 j + (0, 2, 4, 6, 1, 3, 5, 7)[i] (AutoAWQ's order)."""
    order = (0, 2, 4, 6, 1, 3, 5, 7)
    rows, n = codes.shape
    out = np.zeros((rows, n // 8), np.int64)
    for j in range(n // 8):
        for i, c in enumerate(order):
            out[:, j] |= codes[:, 8 * j + c].astype(np.int64) << (4 * i)
    return np.where(out >= 1 << 31, out - (1 << 32), out).astype(np.int32)


@pytest.mark.parametrize("bits", [2, 3, 4, 8])
@pytest.mark.parametrize("fmt", ["gptq", "gptq_v2"])
def test_gptq_codes_and_zeros_come_back(bits, fmt):
    rng = np.random.default_rng(bits)
    k, n, g = 256, 40, 64
    codes = rng.integers(0, 1 << bits, size=(k, n))
    zeros = rng.integers(0, 1 << bits, size=(k // g, n))
    zeros[0, :3] = [0, (1 << bits) - 1, 1]
    scales = rng.random((k // g, n)).astype(np.float16)
    qweight, qzeros = gptq_pack(codes, zeros, bits, fmt == "gptq")
    c, z, s, group = checkpoints.from_gptq(qweight, qzeros, scales, bits,
                                           g_idx=np.arange(k) // g, checkpoint_format=fmt)
    assert group == g and np.array_equal(c, codes) and np.array_equal(s, scales)
    if fmt == "gptq":
        # Its kernels add the one back without wrapping: a zero of 0 was
        # stored as 2^b - 1 and reads as 2^b.
        want = np.where(zeros == 0, 1 << bits, zeros)
    else:
        want = zeros
    assert np.array_equal(z, want)


def test_awq_codes_and_zeros_come_back():
    rng = np.random.default_rng(4)
    k, n, g = 256, 64, 128
    codes = rng.integers(0, 16, size=(k, n))
    zeros = rng.integers(0, 16, size=(k // g, n))
    scales = rng.random((k // g, n)).astype(np.float16)
    c, z, s, group = checkpoints.from_awq(awq_pack(codes), awq_pack(zeros), scales)
    assert group == g and np.array_equal(c, codes) and np.array_equal(z, zeros)


def test_checkpoint_refusals():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 16, size=(256, 16))
    qweight, qzeros = gptq_pack(codes, np.zeros((2, 16), np.int64), 4, True)
    scales = np.ones((2, 16), np.float16)
    with pytest.raises(ValueError, match="act-order"):
        checkpoints.from_gptq(qweight, qzeros, scales, 4, g_idx=rng.permutation(256) // 128)
    with pytest.raises(ValueError, match="2, 3, 4 or 8 bits, not 5"):
        checkpoints.from_gptq(qweight, qzeros, scales, 5)
    with pytest.raises(ValueError, match="qzeros must be"):
        checkpoints.from_gptq(qweight, qzeros[:, :1], scales, 4)
    with pytest.raises(ValueError, match="scales must be"):
        checkpoints.from_gptq(qweight, qzeros, np.ones((3, 16)), 4)
    with pytest.raises(ValueError, match="checkpoint_format"):
        checkpoints.from_gptq(qweight, qzeros, scales, 4, checkpoint_format="gptq_v3")
    with pytest.raises(ValueError, match="GEMM layout packs 4 bits"):
        checkpoints.from_awq(awq_pack(codes), awq_pack(codes[:2]), scales, bits=8)
    with pytest.raises(ValueError, match="qzeros must have"):
        checkpoints.from_awq(awq_pack(codes), awq_pack(codes[:3]), scales)


@pytest.mark.parametrize("kind", ["gptq-4", "gptq-3", "awq"])
def test_quantized_linear_from_checkpoint_tensors(kind):
    """QuantizedLinear.from_gptq / from_awq on random packed tensors: y = x
    ((code - zero) scale)^T + bias within 1e-3 of the f64 product."""
    torch = cuda_torch()
    import tilus
    import tilus.nn
    if not tilus.has_compiler():
        pytest.skip("runtime-only mode: libTilus.so is not available")
    rng = np.random.default_rng(len(kind))
    bits = 3 if kind == "gptq-3" else 4
    k, n, g = 512, 256, 128
    codes = rng.integers(0, 1 << bits, size=(k, n))
    zeros = rng.integers(0, 1 << bits, size=(k // g, n))
    scales = torch.from_numpy(rng.random((k // g, n)) * 0.02 + 0.005).half()
    bias = torch.from_numpy(rng.normal(size=n)).half()
    if kind == "awq":
        q = tilus.nn.QuantizedLinear.from_awq(torch.from_numpy(awq_pack(codes)),
                                              torch.from_numpy(awq_pack(zeros)),
                                              scales.cuda(), bias.cuda())
        z = zeros
    else:
        qweight, qzeros = gptq_pack(codes, zeros, bits, True)
        q = tilus.nn.QuantizedLinear.from_gptq(torch.from_numpy(qweight),
                                               torch.from_numpy(qzeros), scales.cuda(), bits,
                                               bias.cuda())
        z = np.where(zeros == 0, 1 << bits, zeros)
    w = (codes - np.repeat(z, g, axis=0)) * np.repeat(scales.double().numpy(), g, axis=0)
    x = torch.randn(5, k, dtype=torch.float16)
    want = x.double().numpy() @ w + bias.double().numpy()
    y = q(x.cuda())
    torch.cuda.synchronize()
    err = np.abs(y.double().cpu().numpy() - want).max() / np.abs(want).max()
    assert q.wtype == tilus.dtype(f"uint{bits}") and q.group_size == g and err <= 1e-3, err
