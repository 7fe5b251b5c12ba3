"""A loaded kernel as a PyTorch operator (torch.library.custom_op), so that a
model can call it and torch.compile can trace through it (docs/python.md,
"Inside a torch model").

    rt = tilus.Runtime()
    axpy = tilus.custom_op("mylib::axpy", rt.kernel(artifact, "axpy"),
                           names=("x", "y", "a", "n"), mutates_args=("y",))
    axpy(x, y, 2.0, n)            # eager, or inside a torch.compile'd function

The operator's schema comes from the kernel's parameter table: a pointer
parameter is a Tensor, an integer an int, a float a float; it returns
nothing, and `mutates_args` names the tensors the kernel writes (torch needs
them to order and functionalize the call). The tensors are checked as for
any launch (device, contiguity, dtype against the parameter), on torch's
current stream. Its fake (meta) implementation does nothing, which is exact
for an operator that only writes into its arguments.
"""

import inspect

from .artifact import TilusArgumentError

__all__ = ["custom_op"]


def custom_op(qualname, kernel, *, mutates_args, names=None):
    """Registers `kernel` (a tilus.LoadedKernel, from Runtime.kernel) as the
    torch custom operator `qualname` ("namespace::name") and returns it.
    `names` are the parameters' names in the schema (default p0, p1, ...);
    `mutates_args` is a subset of the pointer parameters' names. Raises
    TilusArgumentError for names that do not fit the kernel."""
    import torch

    params = kernel.params
    if names is None:
        names = tuple(f"p{i}" for i in range(len(params)))
    names = tuple(names)
    if len(names) != len(params):
        raise TilusArgumentError(f"custom_op '{qualname}': {len(names)} names for kernel "
                                 f"'{kernel.name}', which has {len(params)} parameters")
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise TilusArgumentError(f"custom_op '{qualname}': names must be distinct "
                                 f"identifiers, not {names}")
    if isinstance(mutates_args, str):
        raise TilusArgumentError(f"custom_op '{qualname}': mutates_args is a sequence of "
                                 f"names, not the string {mutates_args!r}")
    mutates_args = tuple(mutates_args)
    pointers = {n for n, p in zip(names, params) if p.kind == "pointer"}
    for n in mutates_args:
        if n not in pointers:
            raise TilusArgumentError(f"custom_op '{qualname}': mutates_args names '{n}', "
                                     f"which is not a pointer parameter of kernel "
                                     f"'{kernel.name}' (those are {sorted(pointers)})")
    annotation = {"pointer": torch.Tensor, "integer": int, "float": float}
    signature = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                           annotation=annotation[p.kind]) for n, p in zip(names, params)],
        return_annotation=None)

    def launch(*args):
        kernel(*args)

    def fake(*args):
        return None

    for f in (launch, fake):
        f.__signature__ = signature
        f.__name__ = qualname.split("::")[-1]
    op = torch.library.custom_op(qualname, mutates_args=mutates_args,
                                 device_types="cuda")(launch)
    op.register_fake(fake)
    return op
