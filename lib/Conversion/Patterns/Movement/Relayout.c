//===- Relayout.c - ConvertLayout, Permute and Reshape --------------------===//
//
// The three are one index map, linear in the coordinates: result element q
// is the source element at row-major address sum_k q[k] * coef[k]
// (tilus-c/DataMovement.h). From the layouts' thread digits the plan says
// whether each thread already holds what it needs:
//   - in registers: a permutation of the thread's slots (vector.shuffle), or
//     nothing at all (a relabelling: the same vector);
//   - when the layouts give every warp the same elements in the same slots,
//     only at other lanes: one shfl.sync idx per slot from the source lane,
//     computed from the lane's digits (elements of 8, 16 or 32 bits, moved as
//     i32);
//   - otherwise through the op's shared scratch (planned by
//     tilus-plan-shared): every thread stores its elements at their row-major
//     source addresses, the block synchronizes, and every thread loads its
//     result elements. Barriers before (other threads may still read the
//     scratch's bytes) and after (they may be reused next). Sub-byte elements
//     take a byte each.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"

#include <stdlib.h>

static MlirValue emitI32(TilusEmitter *e, int64_t v) {
  return tilusEmitIntConstant(e, mlirIntegerTypeGet(e->ctx, 32), v);
}

// Result slot i of each lane is source slot i of lane srcLane(lane).
static MlirValue throughShuffles(TilusEmitter *e, MlirValue x,
                                 const TilusTensorType *src,
                                 const TilusMovePlan *plan,
                                 MlirType resultType) {
  int64_t numThreads = tilusLayoutGetNumThreads(src->layout);
  MlirValue lane =
      tilusEmitRemIndexConst(e, tilusEmitThreadIndex(e), TILUS_WARP_SIZE);
  const TilusLaneDigit *srcDigits = plan->laneDigits;
  const TilusLaneDigit *dstDigits = plan->laneDigits + plan->numSrcLaneDigits;
  MlirValue b = tilusEmitIndex(e, 0);
  for (intptr_t k = 0; k < plan->numDstLaneDigits; ++k) {
    MlirValue digit = tilusEmitRemIndexConst(
        e, tilusEmitDivIndexConst(e, lane, dstDigits[k].divisor),
        dstDigits[k].modulus);
    b = tilusEmitAddIndex(e, b,
                          tilusEmitMulIndexConst(e, digit, dstDigits[k].scale));
  }
  MlirValue from = tilusEmitIndex(e, 0);
  for (intptr_t k = 0; k < plan->numSrcLaneDigits; ++k) {
    MlirValue digit = tilusEmitRemIndexConst(
        e, tilusEmitDivIndexConst(e, b, srcDigits[k].scale),
        srcDigits[k].modulus);
    from = tilusEmitAddIndex(
        e, from, tilusEmitMulIndexConst(e, digit, srcDigits[k].divisor));
  }
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  from = tilusEmitValue(e, "arith.index_cast", 1, &from, i32, 0, NULL);
  MlirType storage = tilusStorageElementType(e->ctx, src->elementType);
  int64_t bits = tilusElementTypeGetBitWidth(src->elementType);
  MlirType bitsType = mlirIntegerTypeGet(e->ctx, (unsigned)bits);
  // Every lane of the warp takes part (a short last warp has fewer).
  MlirValue members = tilusEmitWarpMembers(e, numThreads);
  MlirNamedAttribute kind = tilusNamedAttr(
      e->ctx, "kind",
      mlirAttributeParseGet(
          e->ctx, mlirStringRefCreateFromCString("#nvvm<shfl_kind idx>")));
  MlirValue result = tilusEmitSplatConstant(e, resultType, 0);
  for (int64_t i = 0; i < plan->numResultSlots; ++i) {
    MlirValue v = tilusEmitExtract(e, x, i);
    if (!mlirTypeEqual(storage, bitsType))
      v = tilusEmitValue(e, "llvm.bitcast", 1, &v, bitsType, 0, NULL);
    if (bits < 32)
      v = tilusEmitValue(e, "arith.extui", 1, &v, i32, 0, NULL);
    MlirValue operands[4] = {members, v, from, emitI32(e, TILUS_WARP_SIZE - 1)};
    v = tilusEmitValue(e, "nvvm.shfl.sync", 4, operands, i32, 1, &kind);
    if (bits < 32)
      v = tilusEmitValue(e, "arith.trunci", 1, &v, bitsType, 0, NULL);
    if (!mlirTypeEqual(storage, bitsType))
      v = tilusEmitValue(e, "llvm.bitcast", 1, &v, storage, 0, NULL);
    result = tilusEmitInsert(e, result, v, i);
  }
  return result;
}

static bool isIdentity(const TilusMovePlan *plan, int64_t numSlots) {
  if (plan->numResultSlots != numSlots)
    return false;
  for (int64_t j = 0; j < numSlots; ++j)
    if (plan->slotOf[j] != j)
      return false;
  return true;
}

// Sub-byte vectors are permuted widened to i32 and narrowed back whole: the
// NVPTX back end mishandles element access on vectors of odd-width integers
// (Support.h), while whole-vector extensions and truncations are right.
static MlirValue permuteSlots(TilusEmitter *e, MlirValue x,
                              const TilusMovePlan *plan, MlirType resultType) {
  MlirValue wide = tilusEmitWidenSubByte(e, x, true);
  MlirType wideResult = resultType;
  if (!mlirValueEqual(wide, x))
    wideResult = mlirVectorTypeGet(1, &plan->numResultSlots,
                                   mlirIntegerTypeGet(e->ctx, 32));
  MlirValue operands[2] = {wide, wide};
  MlirNamedAttribute mask = tilusNamedAttr(
      e->ctx, "mask",
      mlirDenseI64ArrayGet(e->ctx, plan->numResultSlots, plan->slotOf));
  MlirValue result =
      tilusEmitValue(e, "vector.shuffle", 2, operands, wideResult, 1, &mask);
  if (!mlirValueEqual(wide, x))
    result = tilusEmitValue(e, "arith.trunci", 1, &result, resultType, 0, NULL);
  return result;
}

// The row-major address `coef` gives slot i of thread 0.
static int64_t slotAddress(const TilusLayout *layout, int64_t i,
                           const int64_t *coef) {
  int64_t q[TILUS_LAYOUT_MAX_RANK], a = 0;
  tilusLayoutEvaluate(layout, 0, i, q);
  for (intptr_t d = 0; d < tilusLayoutGetRank(layout); ++d)
    a += q[d] * coef[d];
  return a;
}

static MlirValue throughShared(TilusEmitter *e, MlirOperation op, MlirValue x,
                               const TilusTensorType *src,
                               const TilusTensorType *dst,
                               const TilusMovePlan *plan, int64_t offset,
                               MlirType resultType) {
  // Sub-byte elements take a byte each in the scratch, widened and
  // narrowed as whole vectors (see permuteSlots).
  MlirType storage = tilusStorageElementType(e->ctx, src->elementType);
  bool subByte = tilusElementTypeGetBitWidth(src->elementType) < 8;
  MlirType i8 = mlirIntegerTypeGet(e->ctx, 8),
           i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirType slotType = subByte ? i8 : storage;
  if (subByte)
    x = tilusEmitWidenSubByte(e, x, true);
  MlirValue base = tilusEmitScratch(e, op, offset);
  MlirValue tid = tilusEmitThreadIndex(e);
  MlirValue from =
      tilusEmitRowMajorAddress(e, src->layout, plan->srcStrides, tid);
  tilusEmitBarrier(e);
  for (int64_t i = 0; i < tilusLayoutGetLocalSize(src->layout); ++i) {
    MlirValue index = tilusEmitAddIndexConst(
        e, from, slotAddress(src->layout, i, plan->srcStrides));
    MlirValue v = tilusEmitExtract(e, x, i);
    if (subByte)
      v = tilusEmitValue(e, "arith.trunci", 1, &v, i8, 0, NULL);
    MlirValue operands[2] = {v,
                             tilusEmitElementPointer(e, base, slotType, index)};
    tilusEmitOp(e, "llvm.store", 2, operands, 0, NULL, 0, NULL);
  }
  tilusEmitBarrier(e);
  MlirValue to = tilusEmitRowMajorAddress(e, dst->layout, plan->coef, tid);
  MlirType wideResult =
      subByte ? mlirVectorTypeGet(1, &plan->numResultSlots, i32) : resultType;
  MlirValue result = tilusEmitSplatConstant(e, wideResult, 0);
  for (int64_t j = 0; j < plan->numResultSlots; ++j) {
    MlirValue index =
        tilusEmitAddIndexConst(e, to, slotAddress(dst->layout, j, plan->coef));
    MlirValue ptr = tilusEmitElementPointer(e, base, slotType, index);
    MlirValue v = tilusEmitValue(e, "llvm.load", 1, &ptr, slotType, 0, NULL);
    if (subByte)
      v = tilusEmitValue(e, "arith.extui", 1, &v, i32, 0, NULL);
    result = tilusEmitInsert(e, result, v, j);
  }
  tilusEmitBarrier(e);
  if (subByte)
    result = tilusEmitValue(e, "arith.trunci", 1, &result, resultType, 0, NULL);
  return result;
}

static MlirLogicalResult lowerRelayout(TilusLowering *L, MlirOperation op,
                                       MlirRewriterBase rewriter) {
  MlirValue operand = tilusOpGetGroupOperand(op, TilusMoveX, 0);
  MlirValue x = tilusLoweredRegister(operand);
  TilusTensorType src, dst;
  if (mlirValueIsNull(x) ||
      mlirLogicalResultIsFailure(
          tilusLoweringDecode(L, mlirValueGetType(operand), &src)) ||
      mlirLogicalResultIsFailure(tilusLoweringDecode(
          L, mlirValueGetType(mlirOperationGetResult(op, 0)), &dst)))
    return mlirLogicalResultFailure();
  TilusMovePlan plan;
  TilusLayoutError err;
  if (!tilusMovePlanCreate(op, &src, &dst, &plan, &err)) {
    tilusMovePlanRelease(&plan);
    return tilusLoweringError(op, err.message);
  }
  int64_t offset = 0;
  int64_t bits = tilusElementTypeGetBitWidth(src.elementType);
  bool shuffles = tilusMoveUsesShuffle(&plan, bits);
  if (!plan.inRegisters && !shuffles) {
    char why[320];
    int64_t bytes = tilusLayoutGetNumElements(src.layout) * ((bits + 7) / 8);
    if (!tilusScratchOffset(op, bytes, &offset, why, sizeof(why)))
      return tilusLoweringError(op, why);
  }
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType resultType = tilusRegisterStorageType(e.ctx, &dst);
  MlirValue result;
  if (shuffles)
    result = throughShuffles(&e, x, &src, &plan, resultType);
  else if (!plan.inRegisters)
    result = throughShared(&e, op, x, &src, &dst, &plan, offset, resultType);
  else if (isIdentity(&plan, tilusLayoutGetLocalSize(src.layout)))
    result = x;
  else
    result = permuteSlots(&e, x, &plan, resultType);
  tilusMovePlanRelease(&plan);
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.convert_layout", lowerRelayout},
    {"tilus.permute", lowerRelayout},
    {"tilus.reshape", lowerRelayout},
};

const TilusPattern *tilusGetRelayoutPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
