#!/usr/bin/env python3
"""Writes the artifacts the GPU tests use, for a machine that has only
libTilusRuntime.so (runtime-only mode): run here, carry OUTDIR there, and set
TILUS_TEST_ARTIFACT_DIR=OUTDIR.

    PYTHONPATH=python-bindings python3 python-bindings/tests/make_artifacts.py OUTDIR
"""

import sys
from pathlib import Path

import tilus

SOURCES = ["tutorial/axpy.mlir", "matmul_naive_f16.mlir", "weight_pack_i6.mlir"]
TARGETS = ["sm_80", "sm_90a"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    examples = Path(__file__).resolve().parents[2] / "examples"
    jobs = [{"source": examples / s, "target": t} for s in SOURCES for t in TARGETS]
    for job, artifact in zip(jobs, tilus.compile_many(jobs)):
        artifact.save(out / f"{Path(job['source']).stem}.{job['target']}.tilus")
    return 0


if __name__ == "__main__":
    sys.exit(main())
