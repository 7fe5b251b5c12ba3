//===- Ptx.c - A lowered gpu.module to PTX --------------------------------===//
//
// The gpu.module (llvm and nvvm dialects after lower-to-nvvm) is translated
// to LLVM IR, optimized with LLVM's O3 pipeline and printed as PTX by the
// NVPTX target machine, all through the LLVM C API: no external compiler,
// no copy of the module. The settings are those of upstream
// gpu-module-to-binary at O=3 (the same PTX, byte for byte), so that the
// PTX does not depend on which of the two produced it.
//
//===----------------------------------------------------------------------===//

#include "Ptx.h"

#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Target/LLVMIR.h"

#include <stdio.h>
#include <threads.h>

static const char kTriple[] = "nvptx64-nvidia-cuda";
// The pipeline and the loop options of MLIR's makeOptimizingTransformer at
// O3, which gpu-module-to-binary uses.
static const char kPipeline[] = "default<O3>";

// Reports `what` and LLVM's message (then disposed) at `loc`.
static MlirLogicalResult fail(MlirLocation loc, const char *what,
                              char *llvmMessage) {
  char message[512];
  snprintf(message, sizeof(message), "%s%s%s", what,
           llvmMessage ? ": " : "", llvmMessage ? llvmMessage : "");
  mlirEmitError(loc, message);
  if (llvmMessage)
    LLVMDisposeMessage(llvmMessage);
  return mlirLogicalResultFailure();
}

static void registerNVPTX(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

// The NVPTX target machine for `target` (null on failure, reported at loc).
static LLVMTargetMachineRef createTargetMachine(const TilusTargetInfo *target,
                                                MlirLocation loc) {
  // LLVM's target registry is process-wide and unlocked: register NVPTX
  // once, so that threads compiling at the same time never write it together.
  static once_flag registered = ONCE_FLAG_INIT;
  call_once(&registered, registerNVPTX);
  LLVMTargetRef llvmTarget = NULL;
  char *error = NULL;
  if (LLVMGetTargetFromTriple(kTriple, &llvmTarget, &error)) {
    fail(loc, "LLVM has no NVPTX target", error);
    return NULL;
  }
  LLVMTargetMachineRef machine = LLVMCreateTargetMachine(
      llvmTarget, kTriple, target->name, target->ptxFeatures,
      LLVMCodeGenLevelAggressive, LLVMRelocDefault, LLVMCodeModelDefault);
  if (!machine)
    fail(loc, "cannot create the NVPTX target machine", NULL);
  return machine;
}

static MlirLogicalResult optimize(LLVMModuleRef module,
                                  LLVMTargetMachineRef machine,
                                  MlirLocation loc) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopUnrolling(options, 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(options, 1);
  LLVMPassBuilderOptionsSetLoopVectorization(options, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(options, 1);
  LLVMErrorRef error = LLVMRunPasses(module, kPipeline, machine, options);
  LLVMDisposePassBuilderOptions(options);
  if (!error)
    return mlirLogicalResultSuccess();
  return fail(loc, "LLVM's optimization pipeline failed",
              LLVMGetErrorMessage(error));
}

MlirLogicalResult tilusTranslateToPtx(MlirOperation gpuModule,
                                      const TilusTargetInfo *target,
                                      MlirStringCallback callback,
                                      void *userData) {
  MlirLocation loc = mlirOperationGetLocation(gpuModule);
  // The translation needs the dialects' translation interfaces.
  mlirRegisterAllLLVMTranslations(mlirOperationGetContext(gpuModule));
  LLVMTargetMachineRef machine = createTargetMachine(target, loc);
  if (!machine)
    return mlirLogicalResultFailure();
  LLVMContextRef context = LLVMContextCreate();
  // Reports its own errors as diagnostics on the failing op.
  LLVMModuleRef module = mlirTranslateModuleToLLVMIR(gpuModule, context);
  MlirLogicalResult result = mlirLogicalResultFailure();
  if (module) {
    LLVMSetTarget(module, kTriple);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(machine);
    LLVMSetModuleDataLayout(module, layout);
    LLVMDisposeTargetData(layout);
    result = optimize(module, machine, loc);
  }
  if (mlirLogicalResultIsSuccess(result)) {
    char *error = NULL;
    LLVMMemoryBufferRef ptx = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(machine, module, LLVMAssemblyFile,
                                            &error, &ptx)) {
      result = fail(loc, "LLVM's NVPTX back end failed", error);
    } else {
      callback(mlirStringRefCreate(LLVMGetBufferStart(ptx),
                                   LLVMGetBufferSize(ptx)),
               userData);
      LLVMDisposeMemoryBuffer(ptx);
    }
  }
  if (module)
    LLVMDisposeModule(module);
  LLVMContextDispose(context);
  LLVMDisposeTargetMachine(machine);
  return result;
}
