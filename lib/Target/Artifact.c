//===- Artifact.c - PTX and the kernel artifact ---------------------------===//
//
// The lowered gpu.module becomes PTX (Ptx.c); the manifest comes from its
// kernels: their names, block sizes, grid maps, shared and workspace bytes,
// Tilus parameter types and tensor maps.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Target.h"

#include "Ptx.h"
#include "Support/Support.h"
#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
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
    MlirType shown = isPtr ? tilusPtrTypeGetElementType(type) : type;
    // The manifest's types are single words: a Tilus float is spelled by
    // its bits and fields (float6_e3m2), as the runtime and tools read it.
    int64_t exponent, mantissa;
    if (tilusFloatTypeGetFormat(shown, &exponent, &mantissa)) {
      snprintf(line, sizeof(line), "float%lld_e%lldm%lld",
               (long long)(1 + exponent + mantissa), (long long)exponent,
               (long long)mantissa);
      emit(callback, userData, line);
    } else {
      mlirTypePrint(shown, callback, userData);
    }
    emit(callback, userData, "\n");
  }
  // The tensor maps the runtime builds at launch (tilus-to-gpu's text).
  MlirAttribute maps = mlirOperationGetDiscardableAttributeByName(
      func, mlirStringRefCreateFromCString(TILUS_TENSOR_MAPS_ATTR));
  for (intptr_t k = 0; !mlirAttributeIsNull(maps) &&
                       k < mlirArrayAttrGetNumElements(maps);
       ++k) {
    emit(callback, userData, "  tensormap ");
    callback(mlirStringAttrGetValue(mlirArrayAttrGetElement(maps, k)), userData);
    emit(callback, userData, "\n");
  }
  int64_t cluster[3];
  if (tilusKernelGetCluster(func, cluster)) {
    snprintf(line, sizeof(line), "  cluster %lld %lld %lld\n",
             (long long)cluster[0], (long long)cluster[1],
             (long long)cluster[2]);
    emit(callback, userData, line);
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
  // An artifact describes Tilus kernels (lowered functions with a grid); the
  // runtime refuses one without any.
  bool hasKernel = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(kernels);
       !mlirOperationIsNull(op) && !hasKernel;
       op = mlirOperationGetNextInBlock(op))
    hasKernel = !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
        op, mlirStringRefCreateFromCString(TILUS_GRID_ATTR)));
  if (!ptxOnly && !hasKernel) {
    mlirEmitError(mlirOperationGetLocation(gpuModule),
                  "the gpu.module has no Tilus kernel to write an artifact "
                  "for (a function marked tilus.kernel, lowered with "
                  "--lower-to-nvvm)");
    return mlirLogicalResultFailure();
  }
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

  // The PTX comes first: nothing is written unless it succeeds.
  TilusStringBuffer ptx = {0};
  MlirLogicalResult result =
      tilusTranslateToPtx(gpuModule, target, tilusTextAppend, &ptx);
  if (mlirLogicalResultIsSuccess(result) && ptx.failed) {
    mlirEmitError(loc, "out of memory while writing the PTX");
    result = mlirLogicalResultFailure();
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
    callback(mlirStringRefCreate(ptx.data, ptx.length), userData);
  }
  tilusStringBufferRelease(&ptx);
  return result;
}
