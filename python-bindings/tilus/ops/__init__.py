"""Ready-made operators written in the kernel DSL (docs/quantized-matmul.md)."""

from .qmatmul import (QuantizedMatmul, QuantizedMatmulBF16, QuantizedMatmulI8,
                      QuantizedMatmulRunner, template, quantized_matmul, quantize_activations,
                      quantize, quantize_asymmetric, pack, unpack,
                      pack_on_device, DevicePack, choose_config, wgmma_config, TILE_K, TILE_N,
                      TILE_LAYOUT)
from .qmatmul_wgmma import QuantizedMatmulWgmma, QuantizedMatmulWgmmaBF16

__all__ = ["QuantizedMatmul", "QuantizedMatmulBF16", "QuantizedMatmulI8",
           "QuantizedMatmulRunner", "template", "quantized_matmul", "quantize_activations",
           "quantize", "quantize_asymmetric", "pack", "unpack",
           "pack_on_device", "DevicePack", "choose_config", "wgmma_config", "TILE_K", "TILE_N",
           "TILE_LAYOUT", "QuantizedMatmulWgmma", "QuantizedMatmulWgmmaBF16"]
