//===- KernelToGPU.c - A Tilus kernel becomes a gpu.func ------------------===//
//
// The kernel's body moves into a gpu.func of the module's gpu.module. Its
// arguments take their lowered types (!tilus.ptr<T> becomes a global-memory
// !llvm.ptr<1>); uses keep seeing the old types through casts, which the op
// patterns look through and reconcile-unrealized-casts removes at the end.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Utils/Checked.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "tilus-c/DataMovement.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Ops.h"
#include "tilus-c/Types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The most tensor maps of one kernel: 16 of 128 bytes, beside 64
// parameters, stay within the 4 KiB of a launch's parameters (the runtime
// has the same limit).
enum { kMaxTensorMaps = 16 };

static MlirType lowerScalarType(MlirContext ctx, MlirType type) {
  if (tilusTypeIsAPtr(type))
    return mlirLLVMPointerTypeGet(ctx, 1);
  return type;
}

static MlirOperation getOrCreateGPUModule(MlirOperation module) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (tilusOpIs(op, "gpu.module"))
      return op;
  }
  mlirOperationSetDiscardableAttributeByName(
      module, mlirStringRefCreateFromCString("gpu.container_module"),
      mlirUnitAttrGet(ctx));
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("gpu.module"),
      mlirOperationGetLocation(module));
  MlirNamedAttribute symName = tilusNamedAttr(
      ctx, "sym_name",
      mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(TILUS_GPU_MODULE)));
  mlirOperationStateAddAttributes(&state, 1, &symName);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, mlirBlockCreate(0, NULL, NULL));
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation gpuModule = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(body, gpuModule);
  return gpuModule;
}

// AllocateGlobal tensors live in one workspace the runtime allocates per
// launch configuration: each gets a 256-byte aligned offset, recorded on the
// op; the total goes to the manifest.
typedef struct {
  int64_t total;
  int numErrors;
} WorkspacePlan;

static MlirWalkResult planWorkspace(MlirOperation op, void *userData) {
  WorkspacePlan *plan = userData;
  if (!tilusOpIs(op, "tilus.allocate_global"))
    return MlirWalkResultAdvance;
  TilusTensorType t;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(
          mlirValueGetType(mlirOperationGetResult(op, 0)), &t, NULL)))
    return MlirWalkResultAdvance;
  bool dynamic = false;
  for (intptr_t d = 0; d < t.rank; ++d)
    dynamic = dynamic || t.shape[d] == TILUS_DYNAMIC_DIM;
  int64_t elements, bits = tilusElementTypeGetBitWidth(t.elementType);
  // Each tensor starts on a 256-byte boundary: its bytes are rounded up.
  int64_t totalBits, slot, end;
  bool fits = !dynamic && tilusCheckedProduct(t.shape, t.rank, &elements) &&
              tilusCheckedMul(elements, bits, &totalBits) &&
              tilusCheckedAdd(tilusBitsToBytes(totalBits), 255, &slot) &&
              tilusCheckedAdd(plan->total, slot / 256 * 256, &end);
  tilusTensorTypeRelease(&t);
  if (dynamic || !fits) {
    tilusLoweringError(op, dynamic
                               ? "AllocateGlobal with run-time sizes is not "
                                 "lowered yet; give the workspace tensor a "
                                 "static shape"
                               : "the kernel's workspace does not fit in 2^63 "
                                 "bytes");
    plan->numErrors++;
    return MlirWalkResultAdvance;
  }
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(TILUS_WORKSPACE_OFFSET_ATTR),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), plan->total));
  plan->total = end;
  return MlirWalkResultAdvance;
}

// The tensor maps of the kernel's tilus.tma_load and tma_store ops: one per distinct
// manifest text, in order of first use; each op gets its map's argument
// index (after the kernel's `numArgs` own).
typedef struct {
  intptr_t numArgs;
  int count, numErrors;
  char text[kMaxTensorMaps][256];
} TensorMaps;

static MlirWalkResult planTensorMaps(MlirOperation op, void *userData) {
  TensorMaps *maps = userData;
  if (!tilusOpIs(op, "tilus.tma_load") && !tilusOpIs(op, "tilus.tma_store"))
    return MlirWalkResultAdvance;
  TilusTensorType dst, src;
  char why[320], text[256];
  TilusTmaPlan plan;
  bool decoded = false, ok = false;
  if (mlirLogicalResultIsSuccess(tilusTensorTypeDecode(
          mlirValueGetType(tilusOpGetGroupOperand(op, TilusTmaShared, 0)), &dst,
          NULL))) {
    if (mlirLogicalResultIsSuccess(tilusTensorTypeDecode(
            mlirValueGetType(tilusOpGetGroupOperand(op, TilusTmaGlobal, 0)), &src,
            NULL))) {
      decoded = true;
      ok = tilusTmaPlanGet(op, &dst, &src, &plan, why, sizeof why);
      tilusTensorTypeRelease(&src);
    }
    tilusTensorTypeRelease(&dst);
  }
  if (!ok) {
    tilusLoweringError(op, decoded ? why : "the operands' types do not decode "
                                           "(run tilus-verify)");
    maps->numErrors++;
    return MlirWalkResultAdvance;
  }
  tilusTmaPlanPrintMap(&plan, text, sizeof text);
  int k = 0;
  while (k < maps->count && strcmp(maps->text[k], text))
    ++k;
  if (k == maps->count) {
    if (k == kMaxTensorMaps) {
      char message[96];
      snprintf(message, sizeof message,
               "a kernel may use at most %d tensor maps", kMaxTensorMaps);
      tilusLoweringError(op, message);
      maps->numErrors++;
      return MlirWalkResultAdvance;
    }
    memcpy(maps->text[maps->count++], text, sizeof text);
  }
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(TILUS_TENSOR_MAP_ARG_ATTR),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), maps->numArgs + k));
  return MlirWalkResultAdvance;
}

MlirLogicalResult tilusConvertKernelToGPU(MlirOperation module,
                                          MlirOperation kernel) {
  MlirContext ctx = mlirOperationGetContext(kernel);
  MlirLocation loc = mlirOperationGetLocation(kernel);
  MlirOperation gpuModule = getOrCreateGPUModule(module);
  MlirBlock gpuBody =
      mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));

  MlirRegion oldRegion = mlirOperationGetRegion(kernel, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(oldRegion);
  intptr_t numArgs = mlirBlockGetNumArguments(entry);
  MlirType argTypes[64 + kMaxTensorMaps + 1];
  if (numArgs > 64) {
    mlirEmitError(loc, "a kernel may have at most 64 arguments");
    return mlirLogicalResultFailure();
  }
  for (intptr_t k = 0; k < numArgs; ++k)
    argTypes[k] = lowerScalarType(
        ctx, mlirValueGetType(mlirBlockGetArgument(entry, k)));
  MlirType fnType = mlirFunctionTypeGet(ctx, numArgs, argTypes, 0, NULL);
  // The Tilus types of the parameters, for the artifact's manifest.
  MlirAttribute paramTypes[64];
  for (intptr_t k = 0; k < numArgs; ++k)
    paramTypes[k] =
        mlirTypeAttrGet(mlirValueGetType(mlirBlockGetArgument(entry, k)));

  int64_t blockSize = tilusKernelGetBlockSize(kernel);
  int32_t blockDims[3] = {(int32_t)blockSize, 1, 1};
  MlirAttribute symName = mlirOperationGetAttributeByName(
      kernel, mlirStringRefCreateFromCString("sym_name"));
  MlirNamedAttribute attrs[] = {
      tilusNamedAttr(ctx, "sym_name", symName),
      tilusNamedAttr(ctx, "function_type", mlirTypeAttrGet(fnType)),
      tilusNamedAttr(ctx, "gpu.kernel", mlirUnitAttrGet(ctx)),
      tilusNamedAttr(ctx, "known_block_size",
                     mlirDenseI32ArrayGet(ctx, 3, blockDims)),
      tilusNamedAttr(ctx, TILUS_BLOCK_SIZE_ATTR,
                     mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), blockSize)),
      tilusNamedAttr(ctx, TILUS_PARAM_TYPES_ATTR,
                     mlirArrayAttrGet(ctx, numArgs, paramTypes)),
      tilusNamedAttr(ctx, TILUS_GRID_ATTR,
                     mlirOperationGetDiscardableAttributeByName(
                         kernel, mlirStringRefCreateFromCString(TILUS_GRID_ATTR))),
  };
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("gpu.func"), loc);
  mlirOperationStateAddAttributes(&state, sizeof(attrs) / sizeof(attrs[0]),
                                  attrs);
  if (tilusKernelAllowsContraction(kernel)) {
    MlirNamedAttribute contract = tilusNamedAttr(
        ctx, TILUS_FP_CONTRACT_ATTR, mlirUnitAttrGet(ctx));
    mlirOperationStateAddAttributes(&state, 1, &contract);
  }
  // Clusters: known_cluster_size becomes nvvm.cluster_dim and the PTX's
  // .reqnctapercluster (so a plain launch runs clusters); the Tilus
  // attribute stays for the manifest's `cluster` line.
  int64_t cluster[3];
  if (tilusKernelGetCluster(kernel, cluster)) {
    int32_t cluster32[3] = {(int32_t)cluster[0], (int32_t)cluster[1],
                            (int32_t)cluster[2]};
    MlirNamedAttribute clusterAttrs[2] = {
        tilusNamedAttr(ctx, "known_cluster_size",
                       mlirDenseI32ArrayGet(ctx, 3, cluster32)),
        tilusNamedAttr(ctx, TILUS_CLUSTER_ATTR,
                       mlirDenseI64ArrayGet(ctx, 3, cluster))};
    mlirOperationStateAddAttributes(&state, 2, clusterAttrs);
  }
  MlirRegion body = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  MlirOperation gpuFunc = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(gpuBody, gpuFunc);
  MlirRegion newRegion = mlirOperationGetRegion(gpuFunc, 0);
  mlirRegionTakeBody(newRegion, oldRegion);
  // Tensor maps are planned while the arguments still have their types.
  TensorMaps *maps = calloc(1, sizeof(TensorMaps));
  if (!maps) {
    mlirEmitError(loc, "tilus-to-gpu ran out of memory");
    return mlirLogicalResultFailure();
  }
  maps->numArgs = numArgs;
  mlirOperationWalk(gpuFunc, planTensorMaps, maps, MlirWalkPreOrder);

  // Retype the arguments; old uses see the old type through a cast.
  MlirRewriterBase rewriter = mlirIRRewriterCreate(ctx);
  mlirRewriterBaseSetInsertionPointToStart(rewriter, entry);
  TilusEmitter e = tilusEmitterCreate(NULL, rewriter, kernel);
  for (intptr_t k = 0; k < numArgs; ++k) {
    MlirValue arg = mlirBlockGetArgument(entry, k);
    MlirType oldType = mlirValueGetType(arg);
    if (mlirTypeEqual(oldType, argTypes[k]))
      continue;
    mlirValueSetType(arg, argTypes[k]);
    MlirValue cast = tilusEmitCast(&e, 1, &arg, oldType);
    mlirValueReplaceAllUsesExcept(arg, cast, 1,
                                  (MlirOperation[]){mlirOpResultGetOwner(cast)});
  }
  // func.return becomes gpu.return.
  MlirOperation terminator = mlirBlockGetTerminator(
      mlirRegionGetFirstBlock(newRegion));
  for (MlirBlock block = mlirRegionGetFirstBlock(newRegion);
       !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block)) {
    terminator = mlirBlockGetTerminator(block);
    if (mlirOperationIsNull(terminator))
      continue;
    if (tilusOpIs(terminator, "func.return")) {
      mlirRewriterBaseSetInsertionPointBefore(rewriter, terminator);
      tilusEmitOp(&e, "gpu.return", 0, NULL, 0, NULL, 0, NULL);
      mlirOperationDestroy(terminator);
    }
  }
  mlirIRRewriterDestroy(rewriter);
  MlirAttribute sharedBytes = mlirOperationGetDiscardableAttributeByName(
      kernel, mlirStringRefCreateFromCString(TILUS_SHARED_BYTES_ATTR));
  if (!mlirAttributeIsNull(sharedBytes))
    mlirOperationSetDiscardableAttributeByName(
        gpuFunc, mlirStringRefCreateFromCString(TILUS_SHARED_BYTES_ATTR),
        sharedBytes);
  mlirOperationDestroy(kernel);

  // The tensor maps follow the kernel's own parameters: generic pointers to
  // the 128-byte maps, which tilus-kernel-params makes by-value grid
  // constants once the function is an llvm.func.
  intptr_t numParams = numArgs;
  MlirAttribute mapTexts[kMaxTensorMaps];
  for (int k = 0; k < maps->count; ++k) {
    argTypes[numParams++] = mlirLLVMPointerTypeGet(ctx, 0);
    mlirBlockAddArgument(entry, argTypes[numParams - 1], loc);
    mapTexts[k] = mlirStringAttrGet(
        ctx, mlirStringRefCreateFromCString(maps->text[k]));
  }
  if (maps->count)
    mlirOperationSetDiscardableAttributeByName(
        gpuFunc, mlirStringRefCreateFromCString(TILUS_TENSOR_MAPS_ATTR),
        mlirArrayAttrGet(ctx, maps->count, mapTexts));
  int numErrors = maps->numErrors;
  free(maps);
  // The workspace pointer is the last parameter.
  WorkspacePlan plan = {0, 0};
  mlirOperationWalk(gpuFunc, planWorkspace, &plan, MlirWalkPreOrder);
  if (plan.total > 0) {
    argTypes[numParams++] = mlirLLVMPointerTypeGet(ctx, 1);
    mlirBlockAddArgument(entry, argTypes[numParams - 1], loc);
  }
  if (numParams > numArgs)
    mlirOperationSetAttributeByName(
        gpuFunc, mlirStringRefCreateFromCString("function_type"),
        mlirTypeAttrGet(mlirFunctionTypeGet(ctx, numParams, argTypes, 0, NULL)));
  mlirOperationSetDiscardableAttributeByName(
      gpuFunc, mlirStringRefCreateFromCString(TILUS_WORKSPACE_BYTES_ATTR),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), plan.total));
  return plan.numErrors || numErrors ? mlirLogicalResultFailure()
                                     : mlirLogicalResultSuccess();
}
