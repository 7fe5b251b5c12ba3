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

#include <stdbool.h>

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

/*--- The whole compiler in one call --------------------------------------*/

typedef struct {
  /* The target, e.g. "sm_90a"; NULL for the default (TargetInfo.h). */
  const char *target;
  /* The name diagnostics give the source, e.g. "kernel.mlir"; NULL for "-". */
  const char *sourceName;
  /* Write only the PTX instead of the artifact. */
  bool ptxOnly;
} TilusCompileOptions;

static inline TilusCompileOptions tilusCompileOptionsDefault(void) {
  TilusCompileOptions options = {NULL, NULL, false};
  return options;
}

/* Compiles the Tilus program `source` (MLIR text) as `tilus-opt
 * --lower-to-nvvm --emit-artifact` does, for callers that never handle MLIR
 * objects: in a context of its own (every dialect registered, the Tilus
 * dialect loaded), it checks the text (tilusSourceIsSafeToParse), parses,
 * verifies, lowers for the target and emits. On success the artifact (or
 * PTX) goes to `output` in one call. Every diagnostic goes to `onDiagnostic`
 * (may be NULL) as one line `name:line:col: error: message
` per call
 * (Diagnostics.h); on failure nothing goes to `output`. Needs no prior
 * registration and keeps no state between calls. */
MlirLogicalResult tilusCompile(MlirStringRef source,
                               const TilusCompileOptions *options,
                               MlirStringCallback output, void *outputUserData,
                               MlirStringCallback onDiagnostic,
                               void *diagnosticUserData);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_TARGET_H */
