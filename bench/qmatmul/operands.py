"""The random operands the qmatmul benchmarks (llama.py, int8.py) share:
per shape, an f16 weight for cuBLAS and group scales; per type, random packed
bytes of that shape (the bytes' format does not change the time)."""


def weights(shapes, types, group):
    """Yields (n, k, wf [K, N] f16, scales [K / group, N] f16, type name,
    wtype, offset, packed uint8 bytes) for every shape of `shapes` ((N, K))
    and entry of `types` (name -> (wtype, offset)), on the GPU."""
    import torch
    for (n, k) in shapes:
        wf = torch.randn(k, n, dtype=torch.float16, device="cuda")
        s = (torch.rand(k // group, n, device="cuda") * 0.02).half()
        for tname, (dt, off) in types.items():
            packed = torch.randint(0, 256, (k * n * dt.bits // 8,), dtype=torch.uint8,
                                   device="cuda")
            yield n, k, wf, s, tname, dt, off, packed
        del wf


def cell(m, n, k, wtype, group):
    """One product's random operands on the GPU: x [M, K] f16, an f16 weight
    [K, N] for cuBLAS, scales [K / group, N] f16 and packed bytes of
    `wtype`."""
    import torch
    x = torch.randn(m, k, dtype=torch.float16, device="cuda")
    wf = torch.randn(k, n, dtype=torch.float16, device="cuda")
    s = (torch.rand(k // group, n, device="cuda") * 0.02).half()
    packed = torch.randint(0, 256, (k * n * wtype.bits // 8,), dtype=torch.uint8, device="cuda")
    return x, wf, s, packed
