/*===-- tilus-c/Passes.h - The Tilus passes --------------------------*- C -*-===*\
|*                                                                            *|
|* Every pass the project provides, for drivers such as tilus-opt and for     *|
|* compilers that embed the dialect. Passes are MlirExternalPass objects      *|
|* created on demand; the table below is constant.                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_PASSES_H
#define TILUS_C_PASSES_H

#include "mlir-c/Pass.h"
#include "tilus-c/TargetInfo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *argument;    /* command-line flag without dashes */
  const char *description; /* one line */
  /* Adds the pass (or, for a pipeline, its passes) to `pm`, for `target`
   * (NULL: the target the module names when the passes run, see
   * tilusCreateConvertTilusToGPUPass). On failure, `onError` (if
   * not NULL) is called once with the whole message. */
  MlirLogicalResult (*addTo)(MlirOpPassManager pm,
                             const TilusTargetInfo *target,
                             MlirStringCallback onError, void *userData);
} TilusPassInfo;

/* The passes and pipelines, in a constant table of `*count` entries. */
const TilusPassInfo *tilusGetPasses(intptr_t *count);

/* The entry for `argument`, or NULL. */
const TilusPassInfo *tilusLookupPass(MlirStringRef argument);


/* tilus-plan-shared: gives every tilus.allocate_shared a byte offset
 * (`tilus.shared_offset`) in the block's dynamic shared memory, reusing the
 * bytes of tensors whose lifetimes do not overlap, and every kernel its total
 * (`tilus.shared_bytes`). */
MlirPass tilusCreatePlanSharedMemoryPass(void);

/* tilus-to-gpu: every Tilus kernel becomes a gpu.func of one gpu.module,
 * and every Tilus op becomes gpu/nvvm/arith/vector/llvm/scf ops, using the
 * instructions `target` has (it must outlive the pass; the table's entries
 * do). The pass marks the module with `tilus.target` (tilus-c/Ops.h) and
 * fails on a module already marked for another target. Ops are lowered in
 * program order; the first that cannot be lowered is reported at its
 * location. */
MlirPass tilusCreateConvertTilusToGPUPassForTarget(const TilusTargetInfo *target);
/* The same with `target` NULL: the target is read when the pass runs, from
 * the `tilus.target` string attribute of the builtin.module it runs on
 * (e.g. `module attributes {tilus.target = "sm_80"}`), and is
 * tilusTargetInfoGetDefault() (sm_90a) when the module has none; a value
 * that is not a string naming a supported target is an error at the
 * module. This is the pass registered by name (tilusRegisterPasses). */
MlirPass tilusCreateConvertTilusToGPUPass(void);

/* lower-to-nvvm for `target` (NULL: the module's `tilus.target`, else the
 * default, as tilusCreateConvertTilusToGPUPass): tilus-verify,
 * tilus-plan-shared, tilus-to-gpu, then the upstream passes that take the
 * gpu.module to the llvm/nvvm dialects and remove the casts. It registers
 * the upstream passes it uses itself (no mlirRegisterAllPasses needed).
 * On failure `onError` (if not NULL) gets the whole message, once. */
MlirLogicalResult tilusAddLowerToNVVMPipeline(MlirOpPassManager pm,
                                              const TilusTargetInfo *target,
                                              MlirStringCallback onError,
                                              void *userData);

/* Registers with MLIR's pass registry, by name, the passes tilus-verify,
 * tilus-plan-shared and tilus-to-gpu and the pipeline lower-to-nvvm, so
 * that textual pipelines (mlirParsePassPipeline, tilus-opt's
 * --pass-pipeline) can name them. A pass registered by name has no options:
 * tilus-to-gpu and lower-to-nvvm take the target from the module's
 * `tilus.target` attribute (default sm_90a), as
 * tilusCreateConvertTilusToGPUPass. Calling it again does nothing. Defined in
 * lib/Registration (link TilusRegistration); the same file is the mlir-opt
 * plugin libTilusPlugin.so. */
void tilusRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_PASSES_H */
