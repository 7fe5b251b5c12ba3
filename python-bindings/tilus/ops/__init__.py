"""Ready-made operators written in the kernel DSL (docs/quantized-matmul.md)."""

from .qmatmul import QuantizedMatmul, pack, TILE_K, TILE_N, TILE_LAYOUT

__all__ = ["QuantizedMatmul", "pack", "TILE_K", "TILE_N", "TILE_LAYOUT"]
