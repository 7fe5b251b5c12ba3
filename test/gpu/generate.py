"""Writes the generated kernels of the GPU suite and the benchmarks, as DSL
programs traced to MLIR, into OUT_DIR/<name>.mlir:

    python3 test/gpu/generate.py OUT_DIR [NAME...]

(all of them, or only the modules named). The GPU suite's are in
test/gpu/generators/; the benchmarks' are examples/python/dequant.py (one per
weight type) and matmul_pipelined_f16.py (its tile configurations).
test/gpu/build-artifacts.sh compiles them. Needs libTilus.so (the DSL checks
layouts and reads the op schema through it): TILUS_LIBRARY_DIR, or run from
the build tree's checkout."""

import importlib.util
import os
import sys

sys.dont_write_bytecode = True     # nothing written into the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
if not any(os.path.isfile(os.path.join(p, "tilus", "__init__.py")) for p in sys.path if p):
    sys.path.insert(0, os.path.join(ROOT, "python-bindings"))

from generators import (module_text, float_kernels, matmul_kernels, subbyte_kernels,  # noqa: E402
                        widen_kernels, pack_kernels)


def _example(name):
    path = os.path.join(ROOT, "examples", "python", name + ".py")
    spec = importlib.util.spec_from_file_location(f"tilus_example_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def modules():
    """Every generated module: name -> its kernels, in order."""
    out = {}
    for gen in (float_kernels, matmul_kernels, subbyte_kernels, widen_kernels, pack_kernels):
        out.update(gen.MODULES)
    gemm = _example("matmul_pipelined_f16")
    out.update({name: [gemm.MatmulPipelined(*config)] for name, config in gemm.CONFIGS.items()})
    dequant = _example("dequant")
    out.update({f"dequant_{name}": [dequant.Dequant(t)] for name, t in dequant.TYPES.items()})
    return out


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.exit(f"usage: {argv[0]} OUT_DIR [NAME...]")
    out, names = argv[1], argv[2:]
    mods = modules()
    unknown = [n for n in names if n not in mods]
    if unknown:
        sys.exit(f"{argv[0]}: no generated module {', '.join(unknown)}")
    os.makedirs(out, exist_ok=True)
    for name in names or mods:
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(module_text(mods[name]))


if __name__ == "__main__":
    main(sys.argv)
