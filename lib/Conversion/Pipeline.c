//===- Pipeline.c - The lower-to-nvvm pipeline -----------------------------===//
//
// tilus-verify, tilus-convert-broadcasts, tilus-plan-shared, tilus-to-gpu, then upstream passes take
// the gpu.module to the llvm/nvvm dialects, and tilus-kernel-params marks
// the tensor-map parameters (KernelParams.c). The upstream half is parsed from
// text because convert-gpu-to-nvvm needs an option (bare pointers: kernel
// arguments are plain !llvm.ptr values, as the runtime passes them) that the
// C API's pass constructors cannot set; the passes it names are registered
// here, so the caller need not register every pass.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Support/Support.h"
#include "mlir-c/Conversion.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Transforms.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Verifier.h"

#include <threads.h>


static const char *const kUpstreamPipeline =
    "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-"
    "call-conv=1},canonicalize,cse),reconcile-unrealized-casts";

static void registerUpstreamPasses(void) {
  mlirRegisterConversionSCFToControlFlowPass();
  mlirRegisterConversionConvertGpuOpsToNVVMOps();
  mlirRegisterConversionReconcileUnrealizedCastsPass();
  mlirRegisterTransformsCanonicalizer();
  mlirRegisterTransformsCSE();
}

MlirLogicalResult tilusAddLowerToNVVMPipeline(MlirOpPassManager pm,
                                              const TilusTargetInfo *target,
                                              MlirStringCallback onError,
                                              void *userData) {
  TilusConversionOptions options = {target, NULL, NULL};
  return tilusAddLowerToNVVMPipelineWithOptions(pm, &options, onError,
                                                userData);
}

MlirLogicalResult tilusAddLowerToNVVMPipelineWithOptions(
    MlirOpPassManager pm, const TilusConversionOptions *options,
    MlirStringCallback onError, void *userData) {
  // MLIR's pass registry is process-wide and unlocked: register once, so that
  // threads compiling at the same time never write it together.
  static once_flag registered = ONCE_FLAG_INIT;
  call_once(&registered, registerUpstreamPasses);
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateVerifyPass());
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateConvertBroadcastsPass());
  mlirOpPassManagerAddOwnedPass(pm, tilusCreatePlanSharedMemoryPass());
  MlirPass convert = tilusCreateConvertTilusToGPUPassWithOptions(options);
  if (!convert.ptr) {
    if (onError)
      onError(mlirStringRefCreateFromCString("out of memory"), userData);
    return mlirLogicalResultFailure();
  }
  mlirOpPassManagerAddOwnedPass(pm, convert);
  // The parser reports an error in pieces; they are joined into one message.
  TilusStringBuffer message = {0};
  MlirLogicalResult result = mlirOpPassManagerAddPipeline(
      pm, mlirStringRefCreateFromCString(kUpstreamPipeline), tilusTextAppend,
      &message);
  if (mlirLogicalResultIsSuccess(result))
    mlirOpPassManagerAddOwnedPass(pm, tilusCreateKernelParamsPass());
  // Only a broken MLIR installation gets here.
  if (mlirLogicalResultIsFailure(result) && onError)
    onError(message.data && !message.failed
                ? mlirStringRefCreate(message.data, message.length)
                : mlirStringRefCreateFromCString(
                      "cannot build the upstream pipeline"),
            userData);
  tilusStringBufferRelease(&message);
  return result;
}
