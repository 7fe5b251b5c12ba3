//===- TilusToGPU.c - The tilus-to-gpu pass -------------------------------===//
//
// 1. Each kernel moves into a gpu.func (KernelToGPU.c), and scf ops that
//    carry register tensors take the lowered types (ControlFlow.c).
// 2. The op patterns of each area run under the greedy driver; a pattern
//    whose operands are not lowered yet fails and is retried later.
// 3. Any Tilus op left is reported at its location, with the reason a
//    pattern recorded, and the pass fails.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir-c/BuiltinAttributes.h"
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
#include <string.h>

static const alignas(8) char convertPassID = 0;

typedef struct {
  int numErrors;
} Sweep;

static MlirWalkResult reportLeftover(MlirOperation op, void *userData) {
  Sweep *sweep = userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length < 6 || memcmp(name.data, "tilus.", 6) != 0)
    return MlirWalkResultAdvance;
  MlirAttribute reason = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(TILUS_LOWERING_ERROR_ATTR));
  char message[512];
  if (!mlirAttributeIsNull(reason) && mlirAttributeIsAString(reason)) {
    MlirStringRef text = mlirStringAttrGetValue(reason);
    snprintf(message, sizeof(message), "'%.*s' op cannot be lowered: %.*s",
             (int)name.length, name.data, (int)text.length, text.data);
  } else {
    snprintf(message, sizeof(message),
             "'%.*s' op cannot be lowered to gpu/nvvm yet", (int)name.length,
             name.data);
  }
  mlirEmitError(mlirOperationGetLocation(op), message);
  sweep->numErrors++;
  return MlirWalkResultAdvance;
}

static void run(MlirOperation module, MlirExternalPass pass, void *userData) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation kernels[256];
  int numKernels = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (tilusOperationIsAKernel(op) && numKernels < 256)
      kernels[numKernels++] = op;
  for (int k = 0; k < numKernels; ++k)
    if (mlirLogicalResultIsFailure(tilusConvertKernelToGPU(module, kernels[k]))) {
      mlirExternalPassSignalFailure(pass);
      return;
    }

  tilusConvertControlFlowTypes(module);

  MlirRewritePatternSet set = mlirRewritePatternSetCreate(ctx);
  tilusAddIndexingPatterns(set, ctx);
  tilusAddMemoryPatterns(set, ctx);
  tilusAddSharedMemoryPatterns(set, ctx);
  tilusAddRegisterPatterns(set, ctx);
  tilusAddControlPatterns(set, ctx);
  tilusAddDotPatterns(set, ctx);
  MlirFrozenRewritePatternSet frozen = mlirFreezeRewritePattern(set);
  MlirGreedyRewriteDriverConfig config = mlirGreedyRewriteDriverConfigCreate();
  mlirApplyPatternsAndFoldGreedilyWithOp(module, frozen, config);
  mlirGreedyRewriteDriverConfigDestroy(config);
  mlirFrozenRewritePatternSetDestroy(frozen);

  Sweep sweep = {0};
  mlirOperationWalk(module, reportLeftover, &sweep, MlirWalkPreOrder);
  if (sweep.numErrors)
    mlirExternalPassSignalFailure(pass);
}

static void construct(void *userData) {}
static void destruct(void *userData) {}
static void *clonePass(void *userData) { return userData; }

MlirPass tilusCreateConvertTilusToGPUPass(void) {
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
      sizeof(dialects) / sizeof(dialects[0]), dialects, callbacks, NULL);
}

// The upstream half of --lower-to-nvvm. Bare pointers: kernel arguments are
// plain !llvm.ptr values, as the runtime passes them.
static const char *const kUpstreamPipeline =
    "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-"
    "call-conv=1},canonicalize,cse),reconcile-unrealized-casts";

static void reportPipelineError(MlirStringRef message, void *userData) {
  fprintf(stderr, "lower-to-nvvm: %.*s\n", (int)message.length, message.data);
}

MlirLogicalResult tilusAddLowerToNVVMPipeline(MlirOpPassManager pm) {
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateVerifyPass());
  mlirOpPassManagerAddOwnedPass(pm, tilusCreatePlanSharedMemoryPass());
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateConvertTilusToGPUPass());
  return mlirOpPassManagerAddPipeline(
      pm, mlirStringRefCreateFromCString(kUpstreamPipeline),
      reportPipelineError, NULL);
}
