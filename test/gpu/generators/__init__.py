"""The GPU suite's generated kernels as DSL programs (tilus.lang): one module
per kernel family, each with `MODULES`, a dict of module name -> the kernels
(tilus.Kernel instances) of that module, in order. test/gpu/generate.py
writes them, with the benchmarks' (examples/python), as OUT/<name>.mlir."""


def module_text(kernels):
    """One MLIR module holding `kernels` (one artifact with all of them): the
    DSL traces a kernel into a module of one func.func, and top-level funcs
    of several such texts form one implicit module."""
    return "".join(k.mlir() for k in kernels)
