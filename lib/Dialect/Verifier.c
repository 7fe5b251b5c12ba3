//===- Verifier.c - Driving the Tilus verifier and kernel checks ----------===//

#include "tilus-c/Verifier.h"

#include "VerifierInternal.h"
#include "mlir-c/AffineExpr.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Ops.h"
#include "Utils/PtrMap.h"
#include "DynamicParams.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// The scalars a launch can pass (the runtime's parameter types, which PTX
// parameters hold as whole bytes): sub-byte integers other than i1, integers
// wider than 64 bits and Tilus floats are not among them.
static bool isScalarArgumentType(MlirType type) {
  if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    return width == 1 || width == 8 || width == 16 || width == 32 ||
           width == 64;
  }
  return mlirTypeIsAIndex(type) || mlirTypeIsAF16(type) ||
         mlirTypeIsABF16(type) || mlirTypeIsAF32(type) || mlirTypeIsAF64(type);
}

// Checks that every symbol in `expr` names an integer kernel argument.
static void verifyGridExpr(TilusVerifier *v, MlirOperation kernel,
                           MlirAffineExpr expr, MlirBlock body) {
  if (mlirAffineExprIsASymbol(expr)) {
    intptr_t position = mlirAffineSymbolExprGetPosition(expr);
    MlirType type = mlirValueGetType(mlirBlockGetArgument(body, position));
    if (!mlirTypeIsAInteger(type) && !mlirTypeIsAIndex(type)) {
      char *text = tilusPrintTypeToString(type);
      tilusVerifierError(v, kernel,
                         "grid symbol s%" PRIdPTR " refers to argument %" PRIdPTR
                         " of type '%s', which is not an integer",
                         position, position, text);
      free(text);
    }
    return;
  }
  if (mlirAffineExprIsABinary(expr)) {
    verifyGridExpr(v, kernel, mlirAffineBinaryOpExprGetLHS(expr), body);
    verifyGridExpr(v, kernel, mlirAffineBinaryOpExprGetRHS(expr), body);
  }
}

void tilusVerifyKernel(TilusVerifier *v, MlirOperation kernel) {
  MlirAttribute blockAttr = mlirOperationGetDiscardableAttributeByName(
      kernel, mlirStringRefCreateFromCString(TILUS_BLOCK_SIZE_ATTR));
  if (mlirAttributeIsNull(blockAttr) || !mlirAttributeIsAInteger(blockAttr)) {
    tilusVerifierError(v, kernel,
                       "a kernel needs an integer '" TILUS_BLOCK_SIZE_ATTR
                       "' attribute");
  } else {
    int64_t blockSize = mlirIntegerAttrGetValueInt(blockAttr);
    if (blockSize < 1 || blockSize > 1024)
      tilusVerifierError(v, kernel,
                         "block size must be between 1 and 1024, got %" PRId64,
                         blockSize);
  }

  MlirRegion region = mlirOperationGetRegion(kernel, 0);
  MlirBlock body = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(body)) {
    tilusVerifierError(v, kernel, "a kernel needs a body");
    return;
  }
  intptr_t numArgs = mlirBlockGetNumArguments(body);
  for (intptr_t k = 0; k < numArgs; ++k) {
    MlirType type = mlirValueGetType(mlirBlockGetArgument(body, k));
    if (!isScalarArgumentType(type) && !tilusTypeIsAPtr(type)) {
      char *text = tilusPrintTypeToString(type);
      tilusVerifierError(v, kernel,
                         "kernel argument %" PRIdPTR " has type '%s'; kernel "
                         "arguments are i1, i8, i16, i32 or i64 (signless, "
                         "si or ui), index, f16, bf16, f32, f64 or "
                         "!tilus.ptr<...> (to any element type)",
                         k, text);
      free(text);
    }
  }
  MlirAttribute fnType = mlirOperationGetAttributeByName(
      kernel, mlirStringRefCreateFromCString("function_type"));
  if (!mlirAttributeIsNull(fnType) && mlirAttributeIsAType(fnType)) {
    intptr_t numResults =
        mlirFunctionTypeGetNumResults(mlirTypeAttrGetValue(fnType));
    if (numResults != 0)
      tilusVerifierError(v, kernel,
                         "a kernel returns nothing, but this one returns %" PRIdPTR
                         " value(s)",
                         numResults);
  }

  MlirAttribute contract = mlirOperationGetDiscardableAttributeByName(
      kernel, mlirStringRefCreateFromCString(TILUS_FP_CONTRACT_ATTR));
  if (!mlirAttributeIsNull(contract) && !mlirAttributeIsAUnit(contract))
    tilusVerifierError(v, kernel,
                       "'" TILUS_FP_CONTRACT_ATTR "' is a unit attribute (present "
                       "or absent), not a value");

  MlirAttribute cluster = mlirOperationGetDiscardableAttributeByName(
      kernel, mlirStringRefCreateFromCString(TILUS_CLUSTER_ATTR));
  int64_t clusterDims[3] = {1, 1, 1};
  if (!mlirAttributeIsNull(cluster) &&
      !tilusKernelGetCluster(kernel, clusterDims)) {
    tilusVerifierError(v, kernel,
                       "'" TILUS_CLUSTER_ATTR "' is the blocks per cluster "
                       "in 1 to 3 dimensions, at most 8 in all, e.g. "
                       "array<i64: 2, 1, 1>");
    clusterDims[0] = clusterDims[1] = clusterDims[2] = 1;
  }

  MlirAffineMap grid = tilusKernelGetGrid(kernel);
  if (mlirAffineMapIsNull(grid)) {
    tilusVerifierError(v, kernel,
                       "a kernel needs a '" TILUS_GRID_ATTR
                       "' affine map attribute, e.g. affine_map<()[s0] -> (s0 "
                       "ceildiv 128)>");
    return;
  }
  if (mlirAffineMapGetNumDims(grid) != 0)
    tilusVerifierError(v, kernel,
                       "the grid map must use symbols only (s_k is kernel "
                       "argument k), but it has %" PRIdPTR " dimension(s)",
                       mlirAffineMapGetNumDims(grid));
  intptr_t numResults = mlirAffineMapGetNumResults(grid);
  if (numResults < 1 || numResults > 3)
    tilusVerifierError(v, kernel,
                       "the grid must have 1 to 3 dimensions, got %" PRIdPTR,
                       numResults);
  intptr_t numSymbols = mlirAffineMapGetNumSymbols(grid);
  if (numSymbols > numArgs) {
    tilusVerifierError(v, kernel,
                       "the grid map has %" PRIdPTR " symbols but the kernel "
                       "has only %" PRIdPTR " arguments",
                       numSymbols, numArgs);
    return;
  }
  for (intptr_t r = 0; r < numResults; ++r) {
    MlirAffineExpr expr = mlirAffineMapGetResult(grid, r);
    verifyGridExpr(v, kernel, expr, body);
    if (mlirAffineExprIsAConstant(expr) &&
        mlirAffineConstantExprGetValue(expr) < 1)
      tilusVerifierError(v, kernel,
                         "grid dimension %" PRIdPTR " is %" PRId64
                         "; it must be positive",
                         r, mlirAffineConstantExprGetValue(expr));
    else if (r < 3 && mlirAffineExprIsAConstant(expr) &&
             mlirAffineConstantExprGetValue(expr) % clusterDims[r])
      tilusVerifierError(v, kernel,
                         "grid dimension %" PRIdPTR " is %" PRId64
                         ", not a multiple of the cluster's %" PRId64,
                         r, mlirAffineConstantExprGetValue(expr),
                         clusterDims[r]);
  }
  for (intptr_t r = numResults; r < 3; ++r)
    if (numResults >= 1 && clusterDims[r] > 1)
      tilusVerifierError(v, kernel,
                         "the cluster has %" PRId64 " blocks in dimension %"
                         PRIdPTR ", which the grid does not have",
                         clusterDims[r], r);
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

// `seen` holds the types (uniqued, so compared by pointer) already checked.
static void verifyTypeOnce(TilusVerifier *v, MlirOperation op, MlirType type,
                           int64_t blockSize, TilusPtrMap *seen) {
  if (tilusPtrMapLookup(seen, type.ptr))
    return;
  // Out of memory only means the type may be checked again.
  (void)tilusPtrMapInsert(seen, type.ptr, (void *)1);
  tilusVerifyValueType(v, op, type, blockSize);
}

static MlirWalkResult verifyOne(MlirOperation op, void *userData) {
  TilusVerifier *v = userData;
  if (tilusOperationIsAKernel(op))
    tilusVerifyKernel(v, op);
  MlirOperation kernel = tilusGetEnclosingKernel(op);
  // The threads the op runs on: its thread group's, else the block's.
  int64_t blockSize = mlirOperationIsNull(kernel)
                          ? 0
                          : tilusOpGetThreadGroup(op, NULL, NULL)
                                ? tilusOpGetThreadCount(op)
                                : tilusKernelGetBlockSize(kernel);

  // Each distinct type an op defines (results, block arguments of its
  // regions) is checked once, so a loop's result and its iteration argument
  // do not report the same error twice.
  TilusPtrMap seen = {0};
  intptr_t numResults = mlirOperationGetNumResults(op);
  for (intptr_t r = 0; r < numResults; ++r)
    verifyTypeOnce(v, op, mlirValueGetType(mlirOperationGetResult(op, r)),
                   blockSize, &seen);
  intptr_t numRegions = mlirOperationGetNumRegions(op);
  for (intptr_t k = 0; k < numRegions; ++k) {
    MlirRegion region = mlirOperationGetRegion(op, k);
    for (MlirBlock block = mlirRegionGetFirstBlock(region);
         !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block)) {
      intptr_t numArgs = mlirBlockGetNumArguments(block);
      for (intptr_t a = 0; a < numArgs; ++a)
        verifyTypeOnce(v, op, mlirValueGetType(mlirBlockGetArgument(block, a)),
                       blockSize, &seen);
    }
  }
  tilusPtrMapRelease(&seen);

  if (tilusOpIsInDialect(op)) {
    if (mlirOperationIsNull(kernel)) {
      tilusVerifierError(v, op,
                         "must be inside a func.func marked '" TILUS_KERNEL_ATTR
                         "'");
      return MlirWalkResultAdvance;
    }
    if (!tilusVerifyAtomicOp(v, op) && !tilusVerifyMbarrierOp(v, op) &&
        !tilusVerifyTmaOp(v, op))
      tilusVerifyOp(v, op, blockSize);
  }
  return MlirWalkResultAdvance;
}

MlirLogicalResult tilusVerify(MlirOperation root) {
  TilusVerifier v = {0, tilusTypeCacheCreate()};
  if (!v.types) {
    mlirEmitError(mlirOperationGetLocation(root),
                  "tilus-verify ran out of memory");
    return mlirLogicalResultFailure();
  }
  mlirOperationWalk(root, verifyOne, &v, MlirWalkPreOrder);
  tilusTypeCacheDestroy(v.types);
  return v.numErrors ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}
