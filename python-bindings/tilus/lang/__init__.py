"""tilus.lang: the kernel DSL (docs/python.md, "Writing kernels in Python").

A kernel is a class deriving from tilus.Kernel: compile-time parameters in
__init__, typed run-time parameters on __call__, instructions as methods.
Tracing produces MLIR text (generic op form, each op located at its Python
line) that tilus.compile turns into an artifact. The op schema of
libTilus.so (tilus.lang.schema) drives every op's operand groups.
"""

from .kernel import (Kernel, pointer, PointerType, TensorType, Value, Scalar, RegisterTensor,
                     SharedTensor, GlobalTensor, Pointer, Expr, cdiv, DSLError, Attr, Tile)
from . import schema

__all__ = ["Kernel", "pointer", "PointerType", "TensorType", "Value", "Scalar",
           "RegisterTensor", "SharedTensor", "GlobalTensor", "Pointer", "Expr", "cdiv",
           "DSLError", "Attr", "Tile", "schema"]
