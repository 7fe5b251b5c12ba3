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
#include "tilus-c/Kernel.h"
#include "tilus-c/Types.h"

#include <string.h>

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
  MlirType argTypes[65];
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
  MlirRegion body = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  MlirOperation gpuFunc = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(gpuBody, gpuFunc);
  MlirRegion newRegion = mlirOperationGetRegion(gpuFunc, 0);
  mlirRegionTakeBody(newRegion, oldRegion);

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

  // The workspace pointer is the last parameter, after the kernel's own.
  WorkspacePlan plan = {0, 0};
  mlirOperationWalk(gpuFunc, planWorkspace, &plan, MlirWalkPreOrder);
  if (plan.total > 0) {
    argTypes[numArgs] = mlirLLVMPointerTypeGet(ctx, 1);
    mlirBlockAddArgument(entry, argTypes[numArgs], loc);
    mlirOperationSetAttributeByName(
        gpuFunc, mlirStringRefCreateFromCString("function_type"),
        mlirTypeAttrGet(
            mlirFunctionTypeGet(ctx, numArgs + 1, argTypes, 0, NULL)));
  }
  mlirOperationSetDiscardableAttributeByName(
      gpuFunc, mlirStringRefCreateFromCString(TILUS_WORKSPACE_BYTES_ATTR),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), plan.total));
  return plan.numErrors ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}
