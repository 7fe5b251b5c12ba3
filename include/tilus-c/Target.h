/*===-- tilus-c/Target.h - PTX and kernel artifacts -----------------*- C -*-===*\
|*                                                                            *|
|* The last step: a module lowered by lower-to-nvvm becomes PTX for one of    *|
|* sm_80, sm_89, sm_90, sm_90a (LLVM IR, then LLVM's O3 pipeline and NVPTX    *|
|* back end through the LLVM C API), written as a kernel artifact: a manifest *|
|* the runtime reads (kernels, block size, grid expressions, parameters,      *|
|* shared memory and workspace bytes) followed by the PTX. docs/artifact.md   *|
|* has the format.                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_TARGET_H
#define TILUS_C_TARGET_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether `chip` is a target Tilus emits for ("sm_80", "sm_89", "sm_90",
 * "sm_90a"). */
bool tilusTargetIsSupported(MlirStringRef chip);

/* Writes the artifact of `module` (already lowered with lower-to-nvvm) for
 * `chip` through `callback`. `module` is not changed. With `ptxOnly`, only
 * the PTX is written. Fails with a diagnostic on the module's location. */
MlirLogicalResult tilusEmitArtifact(MlirOperation module, MlirStringRef chip,
                                    bool ptxOnly, MlirStringCallback callback,
                                    void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_TARGET_H */
