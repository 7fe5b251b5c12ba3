"""torch.nn modules over tilus.ops (docs/quantized-matmul.md): imports torch.

    q = tilus.nn.QuantizedLinear.from_linear(linear, tilus.uint4, group_size=128)
    y = q(x)                      # x [..., in_features] f16/bf16 on CUDA
"""

import numpy as np
import torch

import tilus

from .ops import qmatmul

__all__ = ["QuantizedLinear"]


class QuantizedLinear(torch.nn.Module):
    """y = x W^T + b with W stored as packed codes of `wtype` and scales (and,
    with zero_points, zeros) per group of `group_size` input features
    (tilus.ops.pack's format), computed by the quantized matmul (the torch
    operator tilus::quantized_matmul, which also adds the bias)."""

    def __init__(self, in_features, out_features, wtype, group_size=128, offset=0, bias=True,
                 dtype=torch.float16, device=None, zero_points=False):
        super().__init__()
        if zero_points and offset:
            raise ValueError("QuantizedLinear: zero points replace the offset; pass offset 0 "
                             "with zero_points=True")
        self.in_features, self.out_features = in_features, out_features
        self.wtype, self.group_size, self.offset = wtype, group_size, offset
        nbytes = in_features * out_features * wtype.bits // 8
        self.register_buffer("qweight", torch.zeros(nbytes, dtype=torch.uint8, device=device))
        self.register_buffer("scales", torch.zeros(in_features // group_size, out_features,
                                                   dtype=dtype, device=device))
        # Zero points as values of the activation type (the kernel's operand).
        self.register_buffer("zeros", torch.zeros(in_features // group_size, out_features,
                                                  dtype=dtype, device=device)
                             if zero_points else None)
        self.register_buffer("bias", torch.zeros(out_features, dtype=dtype, device=device)
                             if bias else None)
        # Saved with the weights: a state dict packed in another format is refused.
        self.register_buffer("weight_format", torch.tensor([qmatmul.WEIGHT_FORMAT]))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # Only when this module's weights are in the dict (a shard may hold
        # other modules): refused where the type's packing changed after the
        # dict's format (format 2: the interleaved 1-, 2- and 4-bit integers;
        # 3: the 4-bit floats; 4: the 6-bit floats), or the dict comes from a
        # later version.
        fmt = state_dict.get(prefix + "weight_format")
        stored = qmatmul._stored_type(self.wtype, self.offset)
        since = qmatmul.format_since(stored)
        got = None if fmt is None else int(fmt.reshape(-1)[0])
        if prefix + "qweight" in state_dict and not (since <= (got or 1) <= qmatmul.WEIGHT_FORMAT):
            error_msgs.append(
                f"QuantizedLinear {prefix or '(root)'}: the packed {self.wtype} weights are "
                f"in format {'1 (no weight_format: packed before format 2)' if got is None else got}, "
                f"this version reads format {qmatmul.WEIGHT_FORMAT} (the packing of {self.wtype} "
                f"changed in format {since}); quantize the layer again "
                f"(QuantizedLinear.from_linear) or pack its codes again (tilus.ops.pack)")
            return
        if fmt is None:             # an older dict of a type whose bytes did not change
            state_dict = dict(state_dict)
            state_dict[prefix + "weight_format"] = self.weight_format.clone()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_linear(cls, linear, wtype, group_size=128, zero_points=False):
        """Round-to-nearest quantization of an nn.Linear (tilus.ops.quantize,
        or with zero_points tilus.ops.quantize_asymmetric for unsigned
        integer types), on the linear's device, in its dtype (float16 or
        bfloat16; others become float16)."""
        w = linear.weight.detach()
        dtype = w.dtype if w.dtype in (torch.float16, torch.bfloat16) else torch.float16
        rounding = lambda s: torch.from_numpy(s).to(dtype).double().numpy()  # noqa: E731
        weight = w.float().cpu().numpy()
        if zero_points:
            codes, scales, zeros = qmatmul.quantize_asymmetric(weight, wtype, group_size,
                                                               round_scales=rounding)
            offset = 0
        else:
            codes, scales, offset = qmatmul.quantize(weight, wtype, group_size,
                                                     round_scales=rounding)
        q = cls(linear.in_features, linear.out_features, wtype, group_size, offset,
                linear.bias is not None, dtype, w.device, zero_points)
        q.qweight.copy_(torch.from_numpy(qmatmul.pack(codes, wtype, offset).reshape(-1)))
        q.scales.copy_(torch.from_numpy(scales))
        if zero_points:
            q.zeros.copy_(torch.from_numpy(zeros))
        if linear.bias is not None:
            q.bias.copy_(linear.bias.detach())
        return q

    @classmethod
    def from_gptq(cls, qweight, qzeros, scales, bits, bias=None, g_idx=None,
                  checkpoint_format="gptq"):
        """A GPTQ layer's tensors (tilus.ops.checkpoints.from_gptq: 2, 3, 4 or
        8 bits, "gptq" or "gptq_v2") repacked once into this module's format,
        with their zero points; on the scales' device and in their dtype."""
        from .ops import checkpoints
        return cls._from_codes(checkpoints.from_gptq(qweight, qzeros, scales, bits, g_idx,
                                                     checkpoint_format), bits, scales, bias)

    @classmethod
    def from_awq(cls, qweight, qzeros, scales, bias=None, bits=4):
        """An AWQ layer's tensors (tilus.ops.checkpoints.from_awq: the GEMM
        layout, 4 bits) repacked once into this module's format, with their
        zero points; on the scales' device and in their dtype."""
        from .ops import checkpoints
        return cls._from_codes(checkpoints.from_awq(qweight, qzeros, scales, bits), bits,
                               scales, bias)

    @classmethod
    def _from_codes(cls, unpacked, bits, scales, bias):
        codes, zeros, _, group = unpacked
        k, n = codes.shape
        dtype = scales.dtype if scales.dtype in (torch.float16, torch.bfloat16) else torch.float16
        wtype = tilus.dtype(f"uint{bits}")
        q = cls(k, n, wtype, group, 0, bias is not None, dtype, scales.device, zero_points=True)
        q.qweight.copy_(torch.from_numpy(qmatmul.pack(codes.astype(np.int64), wtype).reshape(-1)))
        q.scales.copy_(scales.detach())
        q.zeros.copy_(torch.from_numpy(zeros.astype(np.float32)))
        if bias is not None:
            q.bias.copy_(bias.detach())
        return q

    def dequantized_weight(self):
        """W [out_features, in_features] in float32 as the kernel computes with
        it (for references and tests)."""
        import numpy as np
        codes = qmatmul.unpack(self.qweight.cpu().numpy(), self.wtype, self.in_features,
                               self.out_features, self.offset)
        zeros = None if self.zeros is None else self.zeros.double().cpu().numpy()
        w = qmatmul.dequantize(codes, self.scales.float().cpu().numpy(), self.wtype,
                               self.offset, self.group_size, zeros)
        return torch.from_numpy(w.T.astype(np.float32)).to(self.scales.device)

    def forward(self, x):
        shape = x.shape
        x2 = x.reshape(-1, self.in_features).contiguous()
        y = qmatmul.torch_op()(x2, self.qweight, self.scales, self.zeros, self.bias,
                               self.wtype.name, self.group_size, self.offset)
        return y.reshape(*shape[:-1], self.out_features)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"wtype={self.wtype.name}, group_size={self.group_size}, offset={self.offset}, "
                f"zero_points={self.zeros is not None}")
