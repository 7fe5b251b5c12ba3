"""Ready-made operators written in the kernel DSL (docs/quantized-matmul.md)."""

from .qmatmul import (QuantizedMatmul, QuantizedMatmulRunner, quantized_matmul, quantize,
                      pack, choose_config, TILE_K, TILE_N, TILE_LAYOUT)

__all__ = ["QuantizedMatmul", "QuantizedMatmulRunner", "quantized_matmul", "quantize", "pack",
           "choose_config", "TILE_K", "TILE_N", "TILE_LAYOUT"]
