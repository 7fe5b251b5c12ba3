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

/* tilus-convert-broadcasts: before every elementwise op with several
 * operands (add ... clamp, cmp, where), a tilus.convert_layout of each
 * register operand whose layout does not give every thread the elements its
 * result slots read (tilusLayoutBroadcastSlots), to the layout that does
 * (tilusLayoutBroadcastSource). Runs before tilus-plan-shared, which plans
 * the conversions' scratch; lower-to-nvvm includes it. */
MlirPass tilusCreateConvertBroadcastsPass(void);

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

/*--- Options of the lowering, remarks -------------------------------------*
 *
 * A remark says where compiled code is correct but slower than it could be
 * and why, at the op's location: every Dot that takes the SIMT fallback
 * instead of mma.sync (which operand's layout or which element types miss
 * the tensor-core fragments), and every LoadGlobal/StoreGlobal whose
 * per-thread accesses are narrower than 16 bytes (sub-byte elements, the
 * layout's contiguity, the thread's element count, offsets, thread strides
 * or row lengths not provably multiples of the width) or whose vector groups
 * may straddle a run-time edge (masking: those are accessed element by
 * element). They are off by default. MLIR 22's C API can emit only errors
 * (mlirEmitError), so remarks reach the embedder through a callback rather
 * than as MLIR diagnostics of severity remark; tilus-opt --tilus-remarks
 * prints them as `file:line:col: remark: ...` (tilusRemarkWrite,
 * tilus-c/Diagnostics.h). */

/* One remark: `loc` is the op's location, `message` the whole text (valid
 * during the call only). Called on the thread that runs the pass. */
typedef void (*TilusRemarkCallback)(MlirLocation loc, MlirStringRef message,
                                    void *userData);

typedef struct {
  /* The target (NULL: the module's `tilus.target` when the pass runs, else
   * tilusTargetInfoGetDefault(), as tilusCreateConvertTilusToGPUPass); it
   * must outlive the pass, as the table's entries do. */
  const TilusTargetInfo *target;
  /* Remarks about slow paths go to `onRemark` (with `remarkUserData`);
   * NULL, the default, produces none. */
  TilusRemarkCallback onRemark;
  void *remarkUserData;
} TilusConversionOptions;

/* tilus-to-gpu with `options` (copied; NULL: all defaults). */
MlirPass tilusCreateConvertTilusToGPUPassWithOptions(
    const TilusConversionOptions *options);

/* lower-to-nvvm with `options` (as tilusAddLowerToNVVMPipeline otherwise). */
MlirLogicalResult tilusAddLowerToNVVMPipelineWithOptions(
    MlirOpPassManager pm, const TilusConversionOptions *options,
    MlirStringCallback onError, void *userData);

/* Adds the table's `pass` to `pm` with `options`: tilus-to-gpu and
 * lower-to-nvvm take all of them, the other passes none (their addTo gets
 * options->target). For drivers that take pass flags, like tilus-opt. */
MlirLogicalResult tilusPassAddWithOptions(const TilusPassInfo *pass,
                                          MlirOpPassManager pm,
                                          const TilusConversionOptions *options,
                                          MlirStringCallback onError,
                                          void *userData);

/* lower-to-nvvm for `target` (NULL: the module's `tilus.target`, else the
 * default, as tilusCreateConvertTilusToGPUPass): tilus-verify,
 * tilus-convert-broadcasts, tilus-plan-shared, tilus-to-gpu, then the
 * upstream passes that take the gpu.module to the llvm/nvvm dialects and remove the casts. It registers
 * the upstream passes it uses itself (no mlirRegisterAllPasses needed).
 * On failure `onError` (if not NULL) gets the whole message, once. */
MlirLogicalResult tilusAddLowerToNVVMPipeline(MlirOpPassManager pm,
                                              const TilusTargetInfo *target,
                                              MlirStringCallback onError,
                                              void *userData);

/* Registers with MLIR's pass registry, by name, the passes tilus-verify,
 * tilus-convert-broadcasts, tilus-plan-shared and tilus-to-gpu and the pipeline lower-to-nvvm, so
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
