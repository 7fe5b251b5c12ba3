//===- Artifact.c - PTX and the kernel artifact ---------------------------===//
//
// The lowered module is cloned, given an NVVM target and turned into PTX by
// upstream gpu-module-to-binary (LLVM's NVPTX target machine, no external
// compiler). The manifest comes from the gpu.func ops of the original: their
// names, block sizes, grid maps and Tilus parameter types.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Target.h"

#include "Support/Support.h"
#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Ops.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tilusTargetIsSupported(MlirStringRef chip) {
  return tilusTargetInfoLookup(chip.data, chip.length) != NULL;
}

static void emit(MlirStringCallback callback, void *userData,
                 const char *text) {
  callback(mlirStringRefCreateFromCString(text), userData);
}

// Writes the manifest entry of one lowered kernel.
static int64_t i64Attr(MlirOperation func, const char *name) {
  int64_t value = 0;
  return tilusOpGetIntAttr(func, name, &value) ? value : 0;
}

// Dynamic shared memory (the planner's; the launch provides it).
static int64_t sharedBytes(MlirOperation func) {
  return i64Attr(func, TILUS_SHARED_BYTES_ATTR);
}

static void writeKernel(MlirOperation func, MlirStringCallback callback,
                        void *userData) {
  char line[128]; // numbers only
  MlirAttribute name = mlirOperationGetAttributeByName(
      func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef text = mlirStringAttrGetValue(name);
  // The name goes out as it is: no buffer limits its length.
  emit(callback, userData, "kernel ");
  callback(text, userData);
  emit(callback, userData, "\n");
  MlirAttribute block = mlirOperationGetDiscardableAttributeByName(
      func, mlirStringRefCreateFromCString(TILUS_BLOCK_SIZE_ATTR));
  snprintf(line, sizeof(line), "  block %lld 1 1\n",
           (long long)mlirIntegerAttrGetValueInt(block));
  emit(callback, userData, line);

  MlirAttribute grid = mlirOperationGetDiscardableAttributeByName(
      func, mlirStringRefCreateFromCString(TILUS_GRID_ATTR));
  MlirAffineMap map = mlirAffineMapAttrGetValue(grid);
  emit(callback, userData, "  grid ");
  for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
    if (r)
      emit(callback, userData, " ; ");
    mlirAffineExprPrint(mlirAffineMapGetResult(map, r), callback, userData);
  }
  MlirAttribute workspace = mlirOperationGetDiscardableAttributeByName(
      func, mlirStringRefCreateFromCString(TILUS_WORKSPACE_BYTES_ATTR));
  snprintf(line, sizeof(line), "\n  shared %lld\n  workspace %lld\n",
           (long long)sharedBytes(func),
           mlirAttributeIsNull(workspace)
               ? 0LL
               : (long long)mlirIntegerAttrGetValueInt(workspace));
  emit(callback, userData, line);

  MlirAttribute params = mlirOperationGetDiscardableAttributeByName(
      func, mlirStringRefCreateFromCString(TILUS_PARAM_TYPES_ATTR));
  for (intptr_t k = 0; k < mlirArrayAttrGetNumElements(params); ++k) {
    MlirType type = mlirTypeAttrGetValue(mlirArrayAttrGetElement(params, k));
    bool isPtr = tilusTypeIsAPtr(type);
    emit(callback, userData, isPtr ? "  param ptr " : "  param ");
    mlirTypePrint(isPtr ? tilusPtrTypeGetElementType(type) : type, callback,
                  userData);
    emit(callback, userData, "\n");
  }
  emit(callback, userData, "end\n");
}

MlirLogicalResult tilusEmitArtifact(MlirOperation module, MlirStringRef chip,
                                    bool ptxOnly, MlirStringCallback callback,
                                    void *userData) {
  MlirLocation loc = mlirOperationGetLocation(module);
  const TilusTargetInfo *target = tilusTargetInfoLookup(chip.data, chip.length);
  if (!target) {
    char names[64], message[192];
    tilusTargetInfoFormatNames(names, sizeof(names));
    snprintf(message, sizeof(message), "unsupported target '%.*s'; use %s",
             (int)chip.length, chip.data, names);
    mlirEmitError(loc, message);
    return mlirLogicalResultFailure();
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation gpuModule = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (tilusOpIs(op, "gpu.module"))
      gpuModule = op;
  if (mlirOperationIsNull(gpuModule)) {
    mlirEmitError(loc, "no gpu.module to emit: lower the kernels first "
                       "(--lower-to-nvvm)");
    return mlirLogicalResultFailure();
  }
  // Code lowered for one target (tilus.target on the gpu.module) may hold
  // instructions that others lack.
  MlirAttribute loweredFor = mlirOperationGetDiscardableAttributeByName(
      gpuModule, mlirStringRefCreateFromCString(TILUS_TARGET_ATTR));
  if (!mlirAttributeIsNull(loweredFor) && mlirAttributeIsAString(loweredFor)) {
    MlirStringRef was = mlirStringAttrGetValue(loweredFor);
    if (was.length != chip.length || memcmp(was.data, chip.data, chip.length)) {
      char message[192];
      snprintf(message, sizeof(message),
               "the module was lowered for %.*s (tilus.target); emit it for "
               "that target or lower it again for %.*s",
               (int)was.length, was.data, (int)chip.length, chip.data);
      mlirEmitError(loc, message);
      return mlirLogicalResultFailure();
    }
  }

  MlirBlock kernels = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(kernels);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    int64_t dynamicBytes = sharedBytes(op);
    int64_t staticBytes = i64Attr(op, TILUS_STATIC_SHARED_BYTES_ATTR);
    if (dynamicBytes + staticBytes <= target->maxSharedBytesPerBlock)
      continue;
    char message[256];
    snprintf(message, sizeof(message),
             "the kernel needs %lld bytes of shared memory (%lld for shared "
             "tensors, %lld for Dot's scratch); %.*s allows at most %lld per "
             "thread block",
             (long long)(dynamicBytes + staticBytes), (long long)dynamicBytes,
             (long long)staticBytes, (int)chip.length, chip.data,
             (long long)target->maxSharedBytesPerBlock);
    mlirEmitError(mlirOperationGetLocation(op), message);
    return mlirLogicalResultFailure();
  }

  char pipeline[256];
  snprintf(pipeline, sizeof(pipeline),
           "builtin.module(nvvm-attach-target{chip=%s features=%s O=3},"
           "gpu-module-to-binary{format=isa})",
           target->name, target->ptxFeatures);
  MlirOperation clone = mlirOperationClone(module);
  MlirContext ctx = mlirOperationGetContext(module);
  // gpu-module-to-binary translates to LLVM IR, which needs the dialects'
  // translation interfaces in the context.
  mlirRegisterAllLLVMTranslations(ctx);
  // The passes are registered here, so that callers need not register all.
  mlirRegisterGPUGpuNVVMAttachTarget();
  mlirRegisterGPUGpuModuleToBinaryPass();
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  // A parse error arrives in pieces: one diagnostic with the whole message.
  TilusStringBuffer error = {0};
  MlirLogicalResult result = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), tilusTextAppend, &error);
  if (mlirLogicalResultIsFailure(result))
    mlirEmitError(loc, error.data && !error.failed
                           ? error.data
                           : "cannot build the PTX pipeline");
  tilusStringBufferRelease(&error);
  if (mlirLogicalResultIsSuccess(result))
    result = mlirPassManagerRunOnOp(pm, clone);
  mlirPassManagerDestroy(pm);

  MlirStringRef ptx = {NULL, 0};
  if (mlirLogicalResultIsSuccess(result)) {
    MlirBlock cloneBody =
        mlirRegionGetFirstBlock(mlirOperationGetRegion(clone, 0));
    for (MlirOperation op = mlirBlockGetFirstOperation(cloneBody);
         !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
      if (!tilusOpIs(op, "gpu.binary"))
        continue;
      MlirAttribute objects = mlirOperationGetAttributeByName(
          op, mlirStringRefCreateFromCString("objects"));
      if (!mlirAttributeIsNull(objects) &&
          mlirArrayAttrGetNumElements(objects) > 0)
        ptx = mlirGPUObjectAttrGetObject(mlirArrayAttrGetElement(objects, 0));
    }
    if (!ptx.data) {
      mlirEmitError(loc, "gpu-module-to-binary produced no PTX");
      result = mlirLogicalResultFailure();
    }
  }
  if (mlirLogicalResultIsSuccess(result)) {
    if (!ptxOnly) {
      char header[96];
      snprintf(header, sizeof(header), "tilus-artifact 1\ntarget %.*s\n",
               (int)chip.length, chip.data);
      emit(callback, userData, header);
      MlirBlock gpuBody =
          mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
      for (MlirOperation op = mlirBlockGetFirstOperation(gpuBody);
           !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
        if (!mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
                op, mlirStringRefCreateFromCString(TILUS_GRID_ATTR))))
          writeKernel(op, callback, userData);
      emit(callback, userData, "ptx:\n");
    }
    callback(ptx, userData);
  }
  mlirOperationDestroy(clone);
  return result;
}
