"""End to end (issue 14, item 6): a Llama-architecture model of Llama-3-8B's
shape, built with transformers from a config (random weights; nothing is
downloaded), its linear layers replaced by tilus.nn.QuantizedLinear, beside
the f16 model in the same run on the GPU machine.

    PYTHONPATH=python-bindings TILUS_LIBRARY_DIR=... python3 bench/qmatmul/e2e.py OUT_DIR \\
        [--layers 32] [--types u4,u3,f6e3m2,u8] [--steps 64] [--batches 1,16]

Decoding runs through `Decoder`, a step written over the model's own modules
(embedding, norms, lm_head) with the projections fused the way serving stacks
fuse them (q, k and v into one linear layer; gate and up into one), a static
KV cache, attention by torch's scaled_dot_product_attention, and the rest in
torch.compile'd functions of one or two kernels each (the step's rotary
tables and mask; the embedding with the first norm; RMS norms with the
residual addition; rotary with the cache write; SiLU; the greedy choice,
its argmax in two passes, with the position's increment); it is checked
against the transformers model's own forward. The f16 model and the
quantized ones run the same Decoder; only their linear layers differ.

For each weight type every linear layer (qkv, o, gate-up, down and lm_head)
gets random codes (finite encodings for floats) and group-128 scales, packed
on the GPU (pack_on_device). Then:

- layer check: the first layer's quantized projections against x @ W^T with
  their dequantized f16 weights W, at M = 1 and PROMPT;
- logits: the f16 model whose weights are the dequantized weights ((code -
  offset) * scale, rounded to f16) against the quantized model on one prompt:
  the largest difference over the largest reference logit, and the share of
  positions whose argmax agrees;
- decode: greedy decoding, one step (the next token, its argmax, the
  position's increment) captured in a CUDA graph and replayed: steps per
  second at each batch size (tokens per second per sequence), the median of
  REPEATS runs of --steps steps, beside the f16 model's.

Writes OUT_DIR/e2e.txt.
"""
import argparse
import os
import sys
import time

import tilus
from tilus.ops import qmatmul

TYPES = {"u4": (tilus.uint4, 8), "u3": (tilus.uint3, 4), "f6e3m2": (tilus.float6_e3m2, 0),
         "u8": (tilus.uint8, 128), "i4": (tilus.int4, 0)}
GROUP = 128
PROMPT = 32
REPEATS = 5
# The weights' standard deviation (transformers' Llama init: 0.02).
WEIGHT_STD = 0.02
PROJECTIONS = ("qkv", "o", "gate_up", "down")


def llama3_8b_config(layers):
    from transformers import LlamaConfig
    return LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=layers,
                       num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
                       max_position_embeddings=8192, rope_theta=500000.0)


def fused_f16(model):
    """Per layer {qkv, o, gate_up, down} as f16 nn.Linear (the model's
    weights, q/k/v and gate/up concatenated), and lm_head (a copy)."""
    import torch

    def linear(*weights):
        w = torch.cat([x.detach() for x in weights], dim=0)
        lin = torch.nn.Linear(w.shape[1], w.shape[0], bias=False, device="cuda",
                              dtype=torch.float16)
        lin.weight.data.copy_(w)
        return lin

    layers = []
    for layer in model.model.layers:
        a, m = layer.self_attn, layer.mlp
        layers.append({"qkv": linear(a.q_proj.weight, a.k_proj.weight, a.v_proj.weight),
                       "o": linear(a.o_proj.weight),
                       "gate_up": linear(m.gate_proj.weight, m.up_proj.weight),
                       "down": linear(m.down_proj.weight)})
    return layers, linear(model.lm_head.weight)


def random_quantized(k, n, wtype, offset, gen):
    """(QuantizedLinear [k -> n] with random codes and scales, its
    dequantized weight [n, k] in f16), made on the GPU."""
    import torch
    import tilus.nn
    if isinstance(wtype, tilus.IntDType):
        # Values symmetric about 0 (uint4 with offset 8: -7 .. 7): a weight
        # matrix of mean 0, as trained ones are (a mean of -1/2 code makes
        # the random model's activations overflow f16 within 32 layers).
        half = (1 << (wtype.bits - 1)) - 1
        lo = offset - half if offset else (-half if wtype.signed else 0)
        codes = (torch.randint(lo, lo + 2 * half + 1, (k, n), device="cuda", generator=gen)
                 & 0xFF).to(torch.uint8)
    else:
        codes = torch.randint(0, 1 << wtype.bits, (k, n), dtype=torch.uint8, device="cuda",
                              generator=gen)
    if isinstance(wtype, tilus.FloatDType):
        table = torch.tensor(wtype.values().copy(), dtype=torch.float64)
        finite = torch.isfinite(table).cuda()
        codes = torch.where(finite[codes.long()], codes, torch.zeros_like(codes))
        values = torch.nan_to_num(table, nan=0.0, posinf=0.0, neginf=0.0).float().cuda()
        v = values[codes.long()]
    else:
        v = (codes.to(torch.int8).float() if wtype.signed else codes.float()) - offset
    std = float(v.std())
    scales = ((torch.rand(k // GROUP, n, device="cuda", generator=gen) + 0.5)
              * (WEIGHT_STD / max(std, 1e-6))).half()
    q = tilus.nn.QuantizedLinear(k, n, wtype, GROUP, offset, bias=False, dtype=torch.float16,
                                 device="cuda")
    q.qweight.copy_(qmatmul.pack_on_device(codes, wtype, offset))
    q.scales.copy_(scales)
    w = (v * scales.float().repeat_interleave(GROUP, dim=0)).half().T.contiguous()
    return q, w


def _step_functions(compiled):
    """The decoder's non-matmul work as functions, torch.compile'd (one or
    two fused kernels each) or, if compiled is False, eager: the step's
    rotary tables and attention mask, the embedding with the first norm, the
    RMS norms with the residual addition, rotary with the KV-cache write,
    SiLU, and the greedy choice with the position's increment."""
    import torch
    import torch.nn.functional as F

    def prologue(pos, inv_freq, slots):
        # cos and sin [T, head_dim] of positions pos [T]; the additive
        # attention mask [T, length], built once per step for every layer.
        freqs = pos.float()[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        mask = torch.zeros(pos.shape[0], slots.shape[0], dtype=torch.float16,
                           device=pos.device).masked_fill(slots[None, :] > pos[:, None],
                                                          float("-inf"))
        return emb.cos().half(), emb.sin().half(), mask

    def rms_norm(x, w, eps):
        xf = x.float()
        return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)

    def embed_rms_norm(ids, table, w, eps):
        x = F.embedding(ids, table)
        return x, rms_norm(x, w, eps)

    def add_rms_norm(x, r, w, eps):
        s = x + r
        return s, rms_norm(s, w, eps)

    def rope_cache(qkv, cos, sin, cache, pos, heads, kv_heads, hd):
        # qkv [B, T, (heads + 2 kv_heads) hd] with q and k rotated, written
        # into the cache [length, B, heads + 2 kv_heads, hd] at positions pos
        # by the kernel that computes it; q [B, heads, T, hd] is a view of
        # the same result. (The cache keeps each position's q too: q is 2/3
        # of each write, 3x the bytes of k and v alone, for one kernel
        # instead of two.)
        B, T = qkv.shape[0], qkv.shape[1]
        x = qkv.view(B, T, heads + 2 * kv_heads, hd)
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        rotated = x * cos[None, :, None, :] + torch.cat((-x2, x1), dim=-1) * sin[None, :, None, :]
        heads_qk = torch.arange(heads + 2 * kv_heads, device=qkv.device) < heads + kv_heads
        y = torch.where(heads_qk[:, None], rotated, x)
        cache.index_copy_(0, pos, y.transpose(0, 1))
        return y[:, :, :heads].transpose(1, 2)

    def silu_mul(gu):
        g, u = gu.chunk(2, dim=-1)
        return F.silu(g) * u

    def greedy(logits, tok, pos):
        # The next token (the last position's argmax) into tok; pos + 1.
        # In two passes, the first over chunks of the vocabulary in
        # parallel: one argmax over 128256 logits is a single block's work
        # (25-35 us, compiled or eager). Both passes keep the first of equal
        # maxima.
        last = logits[:, -1]
        B, V = last.shape
        chunk = 1024
        last = F.pad(last, (0, -V % chunk), value=float("-inf")).view(B, -1, chunk)
        best, at = last.max(-1)
        c = best.argmax(-1, keepdim=True)
        tok.copy_(c * chunk + at.gather(-1, c))
        pos.add_(1)

    def attention(q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)

    fns = {"prologue": prologue, "embed_rms_norm": embed_rms_norm, "add_rms_norm": add_rms_norm,
           "rope_cache": rope_cache, "silu_mul": silu_mul, "greedy": greedy}
    if compiled:
        # A shape (batch, tokens, cache length) per compilation: --profile and
        # two batch sizes make 7 of rope_cache, near dynamo's default limit
        # (8), past which a function would run eager without a word.
        import torch._dynamo
        cfg = torch._dynamo.config
        limit = "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"
        setattr(cfg, limit, max(getattr(cfg, limit), 64))
        fns = {name: torch.compile(fn, dynamic=False) for name, fn in fns.items()}
    # Attention stays eager: torch's SDPA kernel (cuDNN's on the H100) either way.
    fns["attention"] = attention
    return fns


class Decoder:
    """Greedy decoding with a static KV cache of `length` positions over the
    model's embedding, norms and final norm, and the linear layers `layers`
    (per layer {qkv, o, gate_up, down}) and `lm_head`: fixed shapes and no
    host synchronization, so that a step can be captured in a CUDA graph.
    Rotary embedding as Llama's (no scaling); attention by
    scaled_dot_product_attention over the whole cache, positions past each
    query masked."""

    def __init__(self, model, layers, lm_head, fns, batch, length):
        import torch
        cfg = model.config
        self.model, self.layers, self.lm_head, self.fns = model, layers, lm_head, fns
        self.length = length
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
        self.head_dim = cfg.hidden_size // cfg.num_attention_heads
        # A layer's rotated q, k and v of every position in one tensor
        # [length, B, heads + 2 kv_heads, head_dim]: one write per layer and
        # step, by the rotary kernel (rope_cache).
        shape = (length, batch, self.heads + 2 * self.kv_heads, self.head_dim)
        self.kv = [torch.zeros(shape, dtype=torch.float16, device="cuda") for _ in layers]
        theta = getattr(cfg, "rope_theta", None) or cfg.rope_parameters["rope_theta"]
        half = torch.arange(0, self.head_dim, 2, device="cuda", dtype=torch.float32)
        self.inv_freq = 1.0 / (theta ** (half / self.head_dim))
        self.slots = torch.arange(length, device="cuda")
        norms = [(l.input_layernorm, l.post_attention_layernorm) for l in model.model.layers]
        norms.append((model.model.norm, None))

        def weight_eps(norm):
            return norm.weight, getattr(norm, "variance_epsilon", None) or norm.eps
        self.norms = [(weight_eps(a), None if b is None else weight_eps(b)) for a, b in norms]

    def forward(self, ids, pos):
        """Logits [B, T, vocab] of tokens ids [B, T] at positions pos [T]."""
        fns, (B, T) = self.fns, ids.shape
        cos, sin, mask = fns["prologue"](pos, self.inv_freq, self.slots)
        x, h = fns["embed_rms_norm"](ids, self.model.model.embed_tokens.weight,
                                     *self.norms[0][0])
        for i, lin in enumerate(self.layers):
            cache = self.kv[i]
            q = fns["rope_cache"](lin["qkv"](h), cos, sin, cache, pos, self.heads,
                                  self.kv_heads, self.head_dim)
            h0, h1 = self.heads, self.heads + self.kv_heads
            k = cache[:, :, h0:h1].permute(1, 2, 0, 3)     # [B, kv_heads, length, hd]
            v = cache[:, :, h1:].permute(1, 2, 0, 3)
            o = fns["attention"](q, k, v, mask)
            a = lin["o"](o.transpose(1, 2).reshape(B, T, self.heads * self.head_dim))
            x, h = fns["add_rms_norm"](x, a, *self.norms[i][1])
            m = lin["down"](fns["silu_mul"](lin["gate_up"](h)))
            x, h = fns["add_rms_norm"](x, m, *self.norms[i + 1][0])
        return self.lm_head(h)

    def step(self, tok, pos):
        """One greedy step: tok [B, 1] becomes the next token and pos [1]
        the next position."""
        self.fns["greedy"](self.forward(tok, pos), tok, pos)


def decode_steps_per_s(make_decoder, batch, steps, vocab):
    """Greedy decoding after a PROMPT-token prefill, one step per CUDA graph
    replay: steps per second, the median of REPEATS runs."""
    import torch
    dec = make_decoder(batch, PROMPT + steps * (REPEATS + 1) + 8)
    ids = torch.randint(0, vocab, (batch, PROMPT), device="cuda")
    with torch.no_grad():
        tok = dec.forward(ids, torch.arange(PROMPT, device="cuda"))[:, -1:].argmax(-1)
        pos = torch.tensor([PROMPT], device="cuda")

        def step():
            dec.step(tok, pos)

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        times = []
        for _ in range(REPEATS):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(steps):
                graph.replay()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        if int(pos) > dec.length:
            raise RuntimeError(f"decoded past the cache: {int(pos)} > {dec.length}")
    times.sort()
    return steps / times[len(times) // 2]


def rel_err(got, want):
    """max |got - want| / max |want|; NaN where either is not finite."""
    import torch
    got, want = got.double(), want.double()
    if not (torch.isfinite(got).all() and torch.isfinite(want).all()):
        return float("nan")
    return ((got - want).abs().max() / want.abs().max()).item()


def nonfinite(got, want):
    import torch
    bad = [int((~torch.isfinite(t)).sum()) for t in (got, want)]
    return "" if not any(bad) else f"; non-finite logits: {bad[0]} quantized, {bad[1]} f16"


def profile_step(make_decoder, vocab, path):
    """Kernel times of one eager decode step at batch 1 (torch.profiler),
    summed by kernel name, longest first, into `path`; the total."""
    import torch
    from torch.profiler import profile, ProfilerActivity
    dec = make_decoder(1, PROMPT + 16)
    ids = torch.randint(0, vocab, (1, PROMPT), device="cuda")
    with torch.no_grad():
        tok = dec.forward(ids, torch.arange(PROMPT, device="cuda"))[:, -1:].argmax(-1)
        pos = torch.tensor([PROMPT], device="cuda")
        for _ in range(2):
            dec.step(tok, pos)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            dec.step(tok, pos)
            torch.cuda.synchronize()
    totals = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            n, t = totals.get(e.name, (0, 0.0))
            totals[e.name] = (n + 1, t + e.device_time)
    rows = sorted(totals.items(), key=lambda kv: -kv[1][1])
    with open(path, "w") as f:
        for name, (n, t) in rows:
            f.write(f"{t:10.1f} us {n:5} x  {name[:150]}\n")
    return sum(t for _, (n, t) in rows), sum(n for _, (n, t) in rows), rows


def main():
    import torch
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--layers", type=int, default=32)
    p.add_argument("--types", default="u4,u3,f6e3m2,u8")
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--batches", default="1,16")
    p.add_argument("--eager", action="store_true", help="elementwise functions not compiled")
    p.add_argument("--profile", action="store_true",
                   help="kernel times of one step at batch 1 into OUT/profile-TYPE.txt")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import transformers
    from transformers import LlamaForCausalLM
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    torch.manual_seed(0)
    torch.set_default_dtype(torch.float16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(llama3_8b_config(args.layers)).eval()
    torch.set_default_dtype(torch.float32)
    vocab = model.config.vocab_size
    fns = _step_functions(not args.eager)
    log(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; transformers "
        f"{transformers.__version__}; Llama-3-8B shape, {args.layers} layers, group {GROUP}, "
        f"prompt {PROMPT}, {args.steps} decode steps, median of {REPEATS}; elementwise "
        f"{'eager' if args.eager else 'torch.compile'}")
    ref_layers, ref_head = fused_f16(model)

    def decoder(layers, head):
        return lambda batch, length: Decoder(model, layers, head, fns, batch, length)

    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    prompt = torch.randint(0, vocab, (1, PROMPT), device="cuda", generator=gen)
    positions = torch.arange(PROMPT, device="cuda")
    with torch.no_grad():
        err = rel_err(decoder(ref_layers, ref_head)(1, PROMPT).forward(prompt, positions),
                      model(prompt).logits)
    log(f"Decoder check: its prompt logits against the transformers forward: {err:.2e}")
    batches = [int(b) for b in args.batches.split(",")]

    def profiled(tname, make):
        if args.profile:
            total, count, rows = profile_step(make, vocab, os.path.join(args.out,
                                                                        f"profile-{tname}.txt"))
            log(f"{tname:8} profile of one step: {count} kernels, {total / 1e3:.2f} ms of "
                f"kernel time; longest: " + "; ".join(
                    f"{r[1][1] / 1e3:.2f} ms {r[1][0]}x {r[0][:40]}" for r in rows[:4]))
    profiled("f16", decoder(ref_layers, ref_head))
    base = {}
    for b in batches:
        base[b] = decode_steps_per_s(decoder(ref_layers, ref_head), b, args.steps, vocab)
        log(f"f16      batch {b:3}: {base[b]:8.1f} steps/s")
    for tname in args.types.split(","):
        wtype, offset = TYPES[tname]
        t0 = time.perf_counter()
        q_layers = []
        for ref in ref_layers:                # the f16 reference takes the dequantized weights
            q_layer = {}
            for name in PROJECTIONS:
                lin = ref[name]
                q_layer[name], w = random_quantized(lin.in_features, lin.out_features, wtype,
                                                    offset, gen)
                lin.weight.data.copy_(w)
            q_layers.append(q_layer)
        q_head, w = random_quantized(ref_head.in_features, ref_head.out_features, wtype, offset,
                                     gen)
        ref_head.weight.data.copy_(w)
        torch.cuda.synchronize()
        prep = time.perf_counter() - t0
        with torch.no_grad():
            checks = []
            for name in PROJECTIONS:
                for m in (1, PROMPT):
                    x = torch.randn(m, ref_layers[0][name].in_features, dtype=torch.float16,
                                    device="cuda")
                    checks.append(f"{name}@{m} {rel_err(q_layers[0][name](x), ref_layers[0][name](x)):.1e}")
            for m in (1, PROMPT):
                x = torch.randn(m, ref_head.in_features, dtype=torch.float16, device="cuda")
                checks.append(f"lm_head@{m} {rel_err(q_head(x), ref_head(x)):.1e}")
            log(f"{tname:8} layer 0: " + ", ".join(checks))
            want = decoder(ref_layers, ref_head)(1, PROMPT).forward(prompt, positions)
            got = decoder(q_layers, q_head)(1, PROMPT).forward(prompt, positions)
        agree = (got.argmax(-1) == want.argmax(-1)).double().mean().item()
        log(f"{tname:8} logits: max |diff| / max |ref| = {rel_err(got, want):.2e}, argmax "
            f"agrees at {agree * 100:.1f}% of {PROMPT} positions (made in {prep:.1f} s)"
            f"{nonfinite(got, want)}")
        profiled(tname, decoder(q_layers, q_head))
        for b in batches:
            sps = decode_steps_per_s(decoder(q_layers, q_head), b, args.steps, vocab)
            log(f"{tname:8} batch {b:3}: {sps:8.1f} steps/s, {sps / base[b]:.2f}x f16")
        del q_layers, q_head
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "e2e.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
