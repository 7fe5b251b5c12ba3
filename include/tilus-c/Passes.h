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

/* The most dynamic shared memory a thread block may use on any target (sm_90:
 * 227 KiB); each target's own limit is checked when its artifact is emitted. */
#define TILUS_MAX_SHARED_BYTES 232448

/* tilus-plan-shared: gives every tilus.allocate_shared a byte offset
 * (`tilus.shared_offset`) in the block's dynamic shared memory, reusing the
 * bytes of tensors whose lifetimes do not overlap, and every kernel its total
 * (`tilus.shared_bytes`). */
MlirPass tilusCreatePlanSharedMemoryPass(void);

/* tilus-to-gpu: every Tilus kernel becomes a gpu.func of one gpu.module,
 * and every Tilus op becomes gpu/nvvm/arith/vector/llvm/scf ops. */
MlirPass tilusCreateConvertTilusToGPUPass(void);

/* lower-to-nvvm: tilus-verify, tilus-plan-shared, tilus-to-gpu, then the upstream passes that
 * take the gpu.module to the llvm/nvvm dialects and remove the casts. */
MlirLogicalResult tilusAddLowerToNVVMPipeline(MlirOpPassManager pm);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_PASSES_H */
