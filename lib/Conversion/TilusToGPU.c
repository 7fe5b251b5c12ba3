//===- TilusToGPU.c - The tilus-to-gpu pass -------------------------------===//
//
// 1. Each kernel moves into a gpu.func (KernelToGPU.c), and scf ops that
//    carry register tensors take the lowered types (Control/ControlFlow.c).
// 2. The Tilus ops are lowered one by one in program order, each by the
//    pattern of its name (Lowering.h states the contract), so every
//    operand is lowered before its users.
// 3. The first op that cannot be lowered is reported at its location, and
//    the pass fails.
// The target (what instructions exist) is fixed when the pass is created,
// or, for a pass created without one (the pass by name), read from the
// module's `tilus.target` string attribute when it runs (default: sm_90a).
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Vector.h"
#include "mlir-c/Pass.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Verifier.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const alignas(8) char convertPassID = 0;

static MlirWalkResult collectTilusOps(MlirOperation op, void *userData) {
  if (tilusOpIsInDialect(op))
    tilusOpListPush(userData, op);
  return MlirWalkResultAdvance;
}

// Pattern lookup by the op's uniqued name identifier.
typedef struct {
  TilusPtrMap byName; // MlirIdentifier -> const TilusPattern *
} PatternTable;

static bool buildTable(PatternTable *table, MlirContext ctx) {
  typedef const TilusPattern *(*Getter)(size_t *);
  static const Getter areas[] = {
      tilusGetIndexingPatterns,     tilusGetGlobalMemoryPatterns,
      tilusGetSharedMemoryPatterns, tilusGetRegisterPatterns,
      tilusGetElementwisePatterns,
      tilusGetControlPatterns,      tilusGetClusterPatterns,
      tilusGetDotPatterns,
      tilusGetAtomicPatterns,       tilusGetReducePatterns,
      tilusGetTmaPatterns,
      tilusGetRelayoutPatterns,     tilusGetWgmmaPatterns};
  for (size_t a = 0; a < sizeof(areas) / sizeof(areas[0]); ++a) {
    size_t count;
    const TilusPattern *patterns = areas[a](&count);
    for (size_t k = 0; k < count; ++k) {
      MlirIdentifier name = mlirIdentifierGet(
          ctx, mlirStringRefCreateFromCString(patterns[k].opName));
      if (!tilusPtrMapInsert(&table->byName, name.ptr, (void *)&patterns[k]))
        return false;
    }
  }
  return true;
}

// Counts the errors reported while a pattern runs, and passes them on.
static MlirLogicalResult countErrors(MlirDiagnostic diagnostic, void *userData) {
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError)
    ++*(int *)userData;
  return mlirLogicalResultFailure(); // not handled: the next handler reports it
}

// Lowers `op`; false (with a diagnostic) when it cannot be.
static bool lowerOne(TilusLowering *L, const PatternTable *table,
                     MlirRewriterBase rewriter, MlirOperation op,
                     const int *numErrors) {
  const TilusPattern *pattern =
      tilusPtrMapLookup(&table->byName, mlirOperationGetName(op).ptr);
  if (!pattern) {
    tilusLoweringError(op, "no lowering to gpu/nvvm exists for it yet");
    return false;
  }
  // A marker right before the op shows whether a failing pattern emitted.
  MlirOperationState markerState = mlirOperationStateGet(
      mlirStringRefCreateFromCString("builtin.unrealized_conversion_cast"),
      mlirOperationGetLocation(op));
  MlirOperation marker = mlirOperationCreate(&markerState);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, marker);
  mlirRewriterBaseSetInsertionPointBefore(rewriter, op);
  int errorsBefore = *numErrors;
  bool ok = mlirLogicalResultIsSuccess(pattern->lower(L, op, rewriter));
  if (!ok) {
    if (*numErrors == errorsBefore)
      tilusLoweringError(op, "internal error: an operand has no lowered form");
    // The contract: a pattern that fails has emitted nothing.
    if (!mlirOperationEqual(mlirOperationGetNextInBlock(marker), op))
      mlirEmitError(mlirOperationGetLocation(op),
                    "internal error: the lowering emitted IR before it failed");
  }
  mlirOperationDestroy(marker);
  return ok;
}

// The gpu.module records the target its code was lowered for; the artifact
// emitter refuses to emit it for another. Lowering more kernels into a
// gpu.module of another target would mix instructions, so that fails.
static bool markTarget(MlirOperation module, const TilusTargetInfo *target) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirStringRef key = mlirStringRefCreateFromCString(TILUS_TARGET_ATTR);
  MlirStringRef name = mlirStringRefCreateFromCString(target->name);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!tilusOpIs(op, "gpu.module"))
      continue;
    MlirAttribute marked = mlirOperationGetDiscardableAttributeByName(op, key);
    if (!mlirAttributeIsNull(marked) &&
        (!mlirAttributeIsAString(marked) ||
         !mlirStringRefEqual(mlirStringAttrGetValue(marked), name))) {
      mlirEmitError(mlirOperationGetLocation(op),
                    "this gpu.module was lowered for another target than the "
                    "one tilus-to-gpu runs for (tilus.target)");
      return false;
    }
    mlirOperationSetDiscardableAttributeByName(
        op, key, mlirStringAttrGet(mlirOperationGetContext(op), name));
  }
  return true;
}

// The patterns build constants where they need them; folding afterwards
// merges equal constants, folds what became constant and drops what is
// unused (no patterns: folding only).
static void foldConstants(MlirOperation module, MlirContext ctx) {
  MlirRewritePatternSet set = mlirRewritePatternSetCreate(ctx);
  MlirFrozenRewritePatternSet frozen = mlirFreezeRewritePattern(set);
  // Freezing moves the patterns out but leaves the set itself allocated.
  mlirRewritePatternSetDestroy(set);
  MlirGreedyRewriteDriverConfig config = mlirGreedyRewriteDriverConfigCreate();
  mlirApplyPatternsAndFoldGreedilyWithOp(module, frozen, config);
  mlirGreedyRewriteDriverConfigDestroy(config);
  mlirFrozenRewritePatternSetDestroy(frozen);
}

// The target of a pass created without one: the module's `tilus.target`
// string, else the default; NULL (with an error) for anything else.
static const TilusTargetInfo *targetOfModule(MlirOperation module) {
  MlirAttribute named = mlirOperationGetDiscardableAttributeByName(
      module, mlirStringRefCreateFromCString(TILUS_TARGET_ATTR));
  if (mlirAttributeIsNull(named))
    return tilusTargetInfoGetDefault();
  if (mlirAttributeIsAString(named)) {
    MlirStringRef name = mlirStringAttrGetValue(named);
    const TilusTargetInfo *target =
        tilusTargetInfoLookup(name.data, name.length);
    if (target)
      return target;
  }
  char names[64], message[160];
  tilusTargetInfoFormatNames(names, sizeof(names));
  snprintf(message, sizeof(message),
           "the module's tilus.target is not a supported target: use a "
           "string, one of %s",
           names);
  mlirEmitError(mlirOperationGetLocation(module), message);
  return NULL;
}

static void run(MlirOperation module, MlirExternalPass pass, void *userData) {
  const TilusConversionOptions *options = userData;
  if (!options) { // a clone whose options could not be copied
    mlirEmitError(mlirOperationGetLocation(module),
                  "tilus-to-gpu ran out of memory");
    mlirExternalPassSignalFailure(pass);
    return;
  }
  // A pass made without a target (the pass by name) reads the module's.
  const TilusTargetInfo *target =
      options->target ? options->target : targetOfModule(module);
  if (!target) {
    mlirExternalPassSignalFailure(pass);
    return;
  }
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  TilusOpList kernels = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (tilusOperationIsAKernel(op))
      tilusOpListPush(&kernels, op);
  bool ok = !kernels.outOfMemory;
  if (!ok)
    mlirEmitError(mlirOperationGetLocation(module),
                  "tilus-to-gpu ran out of memory");
  for (size_t k = 0; ok && k < kernels.size; ++k) {
    if (tilusKernelGetCluster(kernels.ops[k], NULL) && !target->hasClusters) {
      char message[160];
      snprintf(message, sizeof message,
               "thread-block clusters (" TILUS_CLUSTER_ATTR ") need sm_90 or "
               "newer; this lowering is for %s",
               target->name);
      mlirEmitError(mlirOperationGetLocation(kernels.ops[k]), message);
      ok = false;
      break;
    }
    ok = mlirLogicalResultIsSuccess(
        tilusConvertKernelToGPU(module, kernels.ops[k]));
  }
  tilusOpListRelease(&kernels);
  ok = ok && markTarget(module, target);

  TilusLowering L;
  bool initialized = tilusLoweringInit(&L, target);
  L.onRemark = options->onRemark;
  L.remarkUserData = options->remarkUserData;
  if (!initialized) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "tilus-to-gpu ran out of memory");
    ok = false;
  }
  ok = ok && mlirLogicalResultIsSuccess(tilusConvertControlFlowTypes(module));

  TilusOpList ops = {0};
  PatternTable table = {{0}};
  if (ok) {
    mlirOperationWalk(module, collectTilusOps, &ops, MlirWalkPreOrder);
    ok = !ops.outOfMemory && buildTable(&table, ctx);
    for (size_t k = 0; k < ops.size; ++k)
      L.asyncProxyReadsShared |= tilusOpIs(ops.ops[k], "tilus.wgmma_mma");
    if (!ok)
      mlirEmitError(mlirOperationGetLocation(module),
                    "tilus-to-gpu ran out of memory");
  }
  if (ok) {
    int numErrors = 0;
    MlirDiagnosticHandlerID handler =
        mlirContextAttachDiagnosticHandler(ctx, countErrors, &numErrors, NULL);
    MlirRewriterBase rewriter = mlirIRRewriterCreate(ctx);
    for (size_t k = 0; ok && k < ops.size; ++k)
      ok = lowerOne(&L, &table, rewriter, ops.ops[k], &numErrors);
    mlirIRRewriterDestroy(rewriter);
    mlirContextDetachDiagnosticHandler(ctx, handler);
  }
  if (ok)
    foldConstants(module, ctx);
  tilusPtrMapRelease(&table.byName);
  tilusOpListRelease(&ops);
  tilusLoweringRelease(&L);
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

// Each pass (and each clone the pass manager makes) owns a copy of its
// options, freed with it.
static void construct(void *userData) {}
static void destruct(void *userData) { free(userData); }

static TilusConversionOptions *copyOptions(const TilusConversionOptions *from) {
  TilusConversionOptions *copy = malloc(sizeof(*copy));
  if (!copy)
    return NULL;
  if (from)
    *copy = *from;
  else
    *copy = (TilusConversionOptions){NULL, NULL, NULL};
  return copy; // a NULL target stays NULL: the module's, when the pass runs

}

static void *clonePass(void *userData) { return copyOptions(userData); }

MlirPass tilusCreateConvertTilusToGPUPassWithOptions(
    const TilusConversionOptions *options) {
  TilusConversionOptions *copy = copyOptions(options);
  if (!copy)
    return (MlirPass){NULL};
  MlirExternalPassCallbacks callbacks = {construct, destruct, NULL, clonePass,
                                         run};
  // The dialects the patterns create ops of.
  MlirDialectHandle dialects[] = {
      mlirGetDialectHandle__arith__(), mlirGetDialectHandle__gpu__(),
      mlirGetDialectHandle__llvm__(),  mlirGetDialectHandle__nvvm__(),
      mlirGetDialectHandle__scf__(),   mlirGetDialectHandle__vector__()};
  return mlirCreateExternalPass(
      mlirTypeIDCreate(&convertPassID),
      mlirStringRefCreateFromCString("ConvertTilusToGPU"),
      mlirStringRefCreateFromCString("tilus-to-gpu"),
      mlirStringRefCreateFromCString(
          "Lower Tilus kernels and ops to the gpu/nvvm dialects"),
      mlirStringRefCreateFromCString("builtin.module"),
      sizeof(dialects) / sizeof(dialects[0]), dialects, callbacks, copy);
}

MlirPass
tilusCreateConvertTilusToGPUPassForTarget(const TilusTargetInfo *target) {
  TilusConversionOptions options = {target, NULL, NULL};
  return tilusCreateConvertTilusToGPUPassWithOptions(&options);
}

MlirPass tilusCreateConvertTilusToGPUPass(void) {
  return tilusCreateConvertTilusToGPUPassForTarget(NULL);
}
