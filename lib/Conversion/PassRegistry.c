//===- PassRegistry.c - The table of every Tilus pass ---------------------===//
//
// Drivers look passes up here by flag. It lives in the highest library that
// defines passes.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Passes.h"
#include "tilus-c/Verifier.h"

#include <string.h>

static MlirLogicalResult addVerify(MlirOpPassManager pm,
                                const TilusTargetInfo *target,
                                MlirStringCallback onError, void *userData) {
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateVerifyPass());
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult addPlanShared(MlirOpPassManager pm,
                                const TilusTargetInfo *target,
                                MlirStringCallback onError, void *userData) {
  mlirOpPassManagerAddOwnedPass(pm, tilusCreatePlanSharedMemoryPass());
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult addConvertBroadcasts(MlirOpPassManager pm,
                                const TilusTargetInfo *target,
                                MlirStringCallback onError, void *userData) {
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateConvertBroadcastsPass());
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult addTilusToGPU(MlirOpPassManager pm,
                                const TilusTargetInfo *target,
                                MlirStringCallback onError, void *userData) {
  mlirOpPassManagerAddOwnedPass(pm, tilusCreateConvertTilusToGPUPassForTarget(target));
  return mlirLogicalResultSuccess();
}

static const TilusPassInfo kPasses[] = {
    {"tilus-verify", "Check Tilus IR against the rules IRDL cannot express",
     addVerify},
    {"tilus-convert-broadcasts",
     "Put a convert_layout before each elementwise operand whose threads do "
     "not hold the elements they need",
     addConvertBroadcasts},
    {"tilus-plan-shared",
     "Give every shared tensor an offset in the block's dynamic shared memory, "
     "reusing space between tensors whose lifetimes do not overlap",
     addPlanShared},
    {"tilus-to-gpu",
     "Lower Tilus kernels and ops to gpu.func and gpu/nvvm/arith/llvm ops",
     addTilusToGPU},
    {"lower-to-nvvm",
     "Pipeline: tilus-verify, tilus-convert-broadcasts, tilus-plan-shared, "
     "tilus-to-gpu, then upstream "
     "passes down to the "
     "llvm/nvvm dialects",
     tilusAddLowerToNVVMPipeline},
};

MlirLogicalResult tilusPassAddWithOptions(const TilusPassInfo *pass,
                                          MlirOpPassManager pm,
                                          const TilusConversionOptions *options,
                                          MlirStringCallback onError,
                                          void *userData) {
  TilusConversionOptions none = {NULL, NULL, NULL};
  if (!options)
    options = &none;
  if (pass->addTo == addTilusToGPU) {
    MlirPass convert = tilusCreateConvertTilusToGPUPassWithOptions(options);
    if (!convert.ptr) {
      if (onError)
        onError(mlirStringRefCreateFromCString("out of memory"), userData);
      return mlirLogicalResultFailure();
    }
    mlirOpPassManagerAddOwnedPass(pm, convert);
    return mlirLogicalResultSuccess();
  }
  if (pass->addTo == tilusAddLowerToNVVMPipeline)
    return tilusAddLowerToNVVMPipelineWithOptions(pm, options, onError,
                                                  userData);
  return pass->addTo(pm, options->target, onError, userData);
}

const TilusPassInfo *tilusGetPasses(intptr_t *count) {
  *count = (intptr_t)(sizeof(kPasses) / sizeof(kPasses[0]));
  return kPasses;
}

const TilusPassInfo *tilusLookupPass(MlirStringRef argument) {
  for (size_t k = 0; k < sizeof(kPasses) / sizeof(kPasses[0]); ++k)
    if (strlen(kPasses[k].argument) == argument.length &&
        memcmp(kPasses[k].argument, argument.data, argument.length) == 0)
      return &kPasses[k];
  return NULL;
}
