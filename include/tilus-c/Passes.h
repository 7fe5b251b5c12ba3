/*===-- tilus-c/Passes.h - The Tilus passes --------------------------*- C -*-===*\
|*                                                                            *|
|* Every pass the project provides, for drivers such as tilus-opt and for     *|
|* compilers that embed the dialect. Passes are MlirExternalPass objects      *|
|* created on demand; the table below is constant.                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_PASSES_H
#define TILUS_C_PASSES_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *argument;    /* command-line flag without dashes */
  const char *description; /* one line */
  /* Adds the pass (or, for a pipeline, its passes) to `pm`. */
  MlirLogicalResult (*addTo)(MlirOpPassManager pm);
} TilusPassInfo;

/* The passes and pipelines, in a constant table of `*count` entries. */
const TilusPassInfo *tilusGetPasses(intptr_t *count);

/* The entry for `argument`, or NULL. */
const TilusPassInfo *tilusLookupPass(MlirStringRef argument);

/* tilus-to-gpu: every Tilus kernel becomes a gpu.func of one gpu.module,
 * and every Tilus op becomes gpu/nvvm/arith/vector/llvm/scf ops. */
MlirPass tilusCreateConvertTilusToGPUPass(void);

/* lower-to-nvvm: tilus-verify, tilus-to-gpu, then the upstream passes that
 * take the gpu.module to the llvm/nvvm dialects and remove the casts. */
MlirLogicalResult tilusAddLowerToNVVMPipeline(MlirOpPassManager pm);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_PASSES_H */
