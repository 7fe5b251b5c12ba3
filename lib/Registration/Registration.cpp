//===- Registration.cpp - The Tilus passes by name, the mlir-opt plugin ---===//
//
// The project's only C++ (docs/architecture.md): the C API can neither
// register a pass by name with MLIR's registry nor export the entry points
// mlir-opt looks for in a plugin, so this file does both and nothing else.
// The passes themselves are the C ones of include/tilus-c/Passes.h.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Verifier.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include <memory>

static void registerAll() {
  mlir::registerPass([] {
    return std::unique_ptr<mlir::Pass>(unwrap(tilusCreateVerifyPass()));
  });
  mlir::registerPass([] {
    return std::unique_ptr<mlir::Pass>(
        unwrap(tilusCreateConvertBroadcastsPass()));
  });
  mlir::registerPass([] {
    return std::unique_ptr<mlir::Pass>(
        unwrap(tilusCreatePlanSharedMemoryPass()));
  });
  // An external pass has no options in the C API: the target comes from the
  // module (tilus.target, default sm_90a) when it runs.
  mlir::registerPass([] {
    return std::unique_ptr<mlir::Pass>(
        unwrap(tilusCreateConvertTilusToGPUPass()));
  });
  const TilusPassInfo *pipeline =
      tilusLookupPass(mlirStringRefCreateFromCString("lower-to-nvvm"));
  mlir::PassPipelineRegistration<>(
      pipeline->argument, pipeline->description, [](mlir::OpPassManager &pm) {
        tilusAddLowerToNVVMPipeline(wrap(&pm), nullptr, nullptr, nullptr);
      });
}

extern "C" void tilusRegisterPasses(void) {
  static const bool registered = (registerAll(), true);
  (void)registered;
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Tilus", "1", tilusRegisterPasses};
}

// An IRDL dialect is loaded into a context, not a registry: the Tilus dialect
// is loaded into a context when its func dialect is (Tilus kernels are
// func.func ops, so the parser loads func before it meets a Tilus op).
extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Tilus", "1",
          [](mlir::DialectRegistry *registry) {
            registry->addExtension(
                +[](mlir::MLIRContext *ctx, mlir::func::FuncDialect *) {
                  tilusDialectLoad(wrap(ctx));
                });
          }};
}
