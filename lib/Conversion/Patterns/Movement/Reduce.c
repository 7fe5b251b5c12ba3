//===- Reduce.c - Reduce: sum, max, min, argmax, argmin over dimensions ---===//
//
// The plan (tilus-c/DataMovement.h) is decided from the layouts in closed
// form; the code follows it in three stages:
//   (a) each thread combines its own slots that fall on one result slot;
//   (b) nvvm.shfl.sync bfly with each lane mask the layout spreads the
//       reduced dims across, combining with the partner lane's value (both
//       lanes get the same bits: the combining ops are commutative);
//   (c) only when reduced digits lie above the warp (or are lane digits that
//       are not powers of two): each thread writes its partials to row r(t)
//       of the op's planned scratch, the block synchronizes, and every thread
//       reads all rows of its result elements, in row order (so replicated
//       threads agree bit for bit). Barriers before (the scratch's bytes may
//       have been read just before by other threads) and after (they may be
//       reused right after).
// Values are combined in the accumulator type: f32 for f16, bf16 and f32
// (one rounding at the end), i32 for integers up to 32 bits (shfl.sync moves
// 32-bit values; 64-bit ones go as two halves). ArgMax and ArgMin carry a
// pair (value, i32 index along the reduced dim) through the same stages; of
// equal values the lower index wins, so the combination is commutative and
// every thread gets the same index (NaN inputs give an unspecified index).
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "tilus-c/DataMovement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { KindSum, KindMax, KindMin, KindArgMax, KindArgMin } Kind;

static bool readKind(MlirOperation op, Kind *kind) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("kind"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  static const char *const names[] = {"sum", "max", "min", "argmax", "argmin"};
  for (int k = 0; k < 5; ++k)
    if (s.length == strlen(names[k]) && !memcmp(s.data, names[k], s.length)) {
      *kind = (Kind)k;
      return true;
    }
  return false;
}

static const char *combineOp(Kind kind, bool isFloat, bool isUnsigned) {
  switch (kind) {
  case KindSum:
    return isFloat ? "arith.addf" : "arith.addi";
  case KindMax:
    return isFloat      ? "arith.maximumf"
           : isUnsigned ? "arith.maxui"
                        : "arith.maxsi";
  case KindMin:
    return isFloat      ? "arith.minimumf"
           : isUnsigned ? "arith.minui"
                        : "arith.minsi";
  case KindArgMax:
  case KindArgMin:
    return NULL; // compare and select (combine)
  }
  return NULL;
}

typedef struct {
  TilusEmitter *e;
  Kind kind;
  const char *op; // for sum, max, min
  MlirType type;  // the accumulator type
  bool isUnsigned;
} Combiner;

// A partial result: the value, and for ArgMax/ArgMin its i32 index.
typedef struct {
  MlirValue value, index;
} Partial;

static MlirValue emitI32(TilusEmitter *e, int64_t v);

// b replaces a when its value is better, or equal with a lower index.
static Partial combine(Combiner *c, Partial a, Partial b) {
  MlirValue operands[2] = {a.value, b.value};
  if (c->op)
    return (Partial){tilusEmitValue(c->e, c->op, 2, operands, c->type, 0, NULL),
                     a.index};
  bool isMax = c->kind == KindArgMax;
  MlirValue better, equal;
  if (mlirTypeIsAFloat(c->type)) {
    // arith.cmpf predicates: oeq 1, ogt 2, olt 4.
    MlirType i1 = mlirIntegerTypeGet(c->e->ctx, 1);
    MlirType i64 = mlirIntegerTypeGet(c->e->ctx, 64);
    MlirValue swapped[2] = {b.value, a.value};
    MlirNamedAttribute gt =
        tilusNamedAttr(c->e->ctx, "predicate", mlirIntegerAttrGet(i64, 2));
    MlirNamedAttribute eq =
        tilusNamedAttr(c->e->ctx, "predicate", mlirIntegerAttrGet(i64, 1));
    better = isMax
                 ? tilusEmitValue(c->e, "arith.cmpf", 2, swapped, i1, 1, &gt)
                 : tilusEmitValue(c->e, "arith.cmpf", 2, operands, i1, 1, &gt);
    equal = tilusEmitValue(c->e, "arith.cmpf", 2, operands, i1, 1, &eq);
  } else {
    TilusCmpPredicate gt = c->isUnsigned ? TilusCmpUGT : TilusCmpSGT;
    better = isMax ? tilusEmitCmp(c->e, gt, b.value, a.value)
                   : tilusEmitCmp(c->e, gt, a.value, b.value);
    equal = tilusEmitCmp(c->e, TilusCmpEQ, a.value, b.value);
  }
  MlirValue lower = tilusEmitCmp(c->e, TilusCmpSLT, b.index, a.index);
  MlirValue tie = tilusEmitArith(c->e, "andi", equal, lower);
  MlirValue take = tilusEmitArith(c->e, "ori", better, tie);
  MlirValue values[3] = {take, b.value, a.value};
  MlirValue indices[3] = {take, b.index, a.index};
  return (Partial){
      tilusEmitValue(c->e, "arith.select", 3, values, c->type, 0, NULL),
      tilusEmitValue(c->e, "arith.select", 3, indices,
                     mlirIntegerTypeGet(c->e->ctx, 32), 0, NULL)};
}

static MlirValue emitI32(TilusEmitter *e, int64_t v) {
  return tilusEmitIntConstant(e, mlirIntegerTypeGet(e->ctx, 32), v);
}

static MlirValue shuffle32(TilusEmitter *e, MlirValue value, int64_t mask,
                           int64_t numThreads);

// shfl.sync moves 32 bits: a 64-bit value goes as its two halves.
static MlirValue shuffleXor(TilusEmitter *e, MlirValue value, int64_t mask,
                            int64_t numThreads) {
  MlirType type = mlirValueGetType(value);
  if (tilusElementTypeGetBitWidth(type) != 64)
    return shuffle32(e, value, mask, numThreads);
  int64_t two = 2;
  MlirType halves = mlirVectorTypeGet(1, &two, mlirIntegerTypeGet(e->ctx, 32));
  MlirValue v = tilusEmitValue(e, "llvm.bitcast", 1, &value, halves, 0, NULL);
  MlirValue lo = shuffle32(e, tilusEmitExtract(e, v, 0), mask, numThreads);
  MlirValue hi = shuffle32(e, tilusEmitExtract(e, v, 1), mask, numThreads);
  v = tilusEmitInsert(e, tilusEmitInsert(e, v, lo, 0), hi, 1);
  return tilusEmitValue(e, "llvm.bitcast", 1, &v, type, 0, NULL);
}

static MlirValue shuffle32(TilusEmitter *e, MlirValue value, int64_t mask,
                           int64_t numThreads) {
  // Every lane of the warp takes part (a short last warp has fewer).
  MlirValue members = tilusEmitWarpMembers(e, numThreads);
  MlirValue operands[4] = {members, value, emitI32(e, mask),
                           emitI32(e, TILUS_WARP_SIZE - 1)};
  MlirNamedAttribute kind = tilusNamedAttr(
      e->ctx, "kind",
      mlirAttributeParseGet(
          e->ctx, mlirStringRefCreateFromCString("#nvvm<shfl_kind bfly>")));
  return tilusEmitValue(e, "nvvm.shfl.sync", 4, operands,
                        mlirValueGetType(value), 1, &kind);
}

static MlirValue convertVector(TilusEmitter *e, MlirValue x, MlirType from,
                               MlirType to, bool isUnsigned) {
  int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(x), 0);
  MlirType toType = mlirVectorTypeGet(1, &m, to);
  int64_t a = mlirTypeIsAFloat(from) ? tilusElementTypeGetBitWidth(from)
                                     : mlirIntegerTypeGetWidth(from);
  int64_t b = mlirTypeIsAFloat(to) ? tilusElementTypeGetBitWidth(to)
                                   : mlirIntegerTypeGetWidth(to);
  if (mlirTypeEqual(from, to))
    return x;
  const char *name;
  if (mlirTypeIsAFloat(from))
    name = a < b ? "arith.extf" : "arith.truncf";
  else
    name = a > b ? "arith.trunci" : isUnsigned ? "arith.extui" : "arith.extsi";
  return tilusEmitValue(e, name, 1, &x, toType, 0, NULL);
}

static Partial shufflePartial(TilusEmitter *e, Partial p, int64_t mask,
                              int64_t numThreads) {
  Partial q = {shuffleXor(e, p.value, mask, numThreads), p.index};
  if (!mlirValueIsNull(p.index))
    q.index = shuffleXor(e, p.index, mask, numThreads);
  return q;
}

static MlirLogicalResult lowerReduce(TilusLowering *L, MlirOperation op,
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
  Kind kind;
  int64_t dims[TILUS_LAYOUT_MAX_RANK];
  intptr_t numDims = tilusOpGetDims(op, dims);
  MlirType acc = tilusReduceAccumulatorType(src.elementType);
  bool isArg = false;
  if (!readKind(op, &kind) || numDims < 1 || mlirTypeIsNull(acc) ||
      ((isArg = kind == KindArgMax || kind == KindArgMin) && numDims != 1))
    return tilusLoweringError(op, "a malformed reduce (run tilus-verify)");
  TilusReducePlan plan;
  TilusLayoutError err;
  if (!tilusReducePlanCreate(src.layout, dst.layout, numDims, dims, &plan,
                             &err)) {
    tilusReducePlanRelease(&plan);
    return tilusLoweringError(op, err.message);
  }
  int64_t accBits = tilusElementTypeGetBitWidth(acc);
  // The scratch: the values' rows, then (ArgMax/ArgMin) the indices' rows.
  int64_t cells =
      plan.numPartials > 1 ? plan.numPartials * plan.resultElements : 0;
  int64_t valueBytes = cells * (accBits / 8);
  int64_t scratchBytes = valueBytes + (isArg ? cells * 4 : 0);
  int64_t offset = 0;
  char why[320];
  if (scratchBytes > 0 &&
      !tilusScratchOffset(op, scratchBytes, &offset, why, sizeof(why))) {
    tilusReducePlanRelease(&plan);
    return tilusLoweringError(op, why);
  }

  Partial *partial = calloc((size_t)plan.numResultSlots, sizeof(Partial));
  MlirValue *slotAddress =
      calloc((size_t)plan.numResultSlots, sizeof(MlirValue));
  if (!partial || !slotAddress) {
    free(partial);
    free(slotAddress);
    tilusReducePlanRelease(&plan);
    return tilusLoweringError(op, "out of memory");
  }

  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  bool isUnsigned = tilusElementIsUnsigned(src.elementType);
  MlirType i32 = mlirIntegerTypeGet(e.ctx, 32);
  Combiner c = {&e, kind, combineOp(kind, mlirTypeIsAFloat(acc), isUnsigned),
                acc, isUnsigned};
  MlirValue wide = convertVector(
      &e, x, tilusStorageElementType(e.ctx, src.elementType), acc, isUnsigned);
  // ArgMax/ArgMin: slot i's index along the reduced dim is the thread's
  // coordinate there plus the slot's.
  MlirValue threadIndex = (MlirValue){NULL};
  if (isArg) {
    MlirValue coords[TILUS_LAYOUT_MAX_RANK];
    tilusEmitThreadCoords(&e, src.layout, tilusEmitThreadIndex(&e), coords);
    threadIndex = tilusEmitValue(&e, "arith.index_cast", 1, &coords[dims[0]],
                                 i32, 0, NULL);
  }
  // (a) within the thread, slots in order.
  for (int64_t i = 0; i < plan.numSlots; ++i) {
    Partial v = {tilusEmitExtract(&e, wide, i), (MlirValue){NULL}};
    if (isArg) {
      int64_t at[TILUS_LAYOUT_MAX_RANK];
      tilusLayoutEvaluate(src.layout, 0, i, at);
      v.index =
          tilusEmitArith(&e, "addi", threadIndex, emitI32(&e, at[dims[0]]));
    }
    Partial *p = &partial[plan.slotOf[i]];
    *p = mlirValueIsNull(p->value) ? v : combine(&c, *p, v);
  }
  int64_t numThreads = tilusLayoutGetNumThreads(src.layout);
  // (b) within the warp.
  for (int64_t j = 0; j < plan.numResultSlots; ++j)
    for (int k = 0; k < plan.numLaneMasks; ++k)
      partial[j] = combine(
          &c, partial[j],
          shufflePartial(&e, partial[j], plan.laneMasks[k], numThreads));
  // (c) across warps.
  if (scratchBytes > 0) {
    MlirValue base = tilusEmitScratch(&e, op, offset);
    MlirValue indexBase = (MlirValue){NULL};
    if (isArg)
      indexBase =
          tilusEmitElementPointer(&e, base, mlirIntegerTypeGet(e.ctx, 8),
                                  tilusEmitIndex(&e, valueBytes));
    MlirValue tid = tilusEmitThreadIndex(&e);
    MlirValue row = tilusEmitIndex(&e, 0);
    int64_t radix = 1;
    for (intptr_t k = 0; k < plan.numSharedModes; ++k) {
      const TilusLayoutThreadMode *m = &plan.sharedModes[k];
      MlirValue digit = tilusEmitRemIndexConst(
          &e, tilusEmitDivIndexConst(&e, tid, m->divisor), m->modulus);
      row =
          tilusEmitAddIndex(&e, row, tilusEmitMulIndexConst(&e, digit, radix));
      radix *= m->modulus;
    }
    int64_t strides[TILUS_LAYOUT_MAX_RANK], s = 1;
    for (intptr_t d = dst.rank - 1; d >= 0; --d) {
      strides[d] = s;
      s *= dst.shape[d];
    }
    MlirValue threadAddress =
        tilusEmitRowMajorAddress(&e, dst.layout, strides, tid);
    MlirValue rowStart = tilusEmitAddIndex(
        &e, tilusEmitMulIndexConst(&e, row, plan.resultElements),
        threadAddress);
    tilusEmitBarrier(&e);
    for (int64_t j = 0; j < plan.numResultSlots; ++j) {
      int64_t q[TILUS_LAYOUT_MAX_RANK], a = 0;
      tilusLayoutEvaluate(dst.layout, 0, j, q);
      for (intptr_t d = 0; d < dst.rank; ++d)
        a += q[d] * strides[d];
      slotAddress[j] = tilusEmitAddIndexConst(&e, threadAddress, a);
      MlirValue cell = tilusEmitAddIndexConst(&e, rowStart, a);
      MlirValue operands[2] = {partial[j].value,
                               tilusEmitElementPointer(&e, base, acc, cell)};
      tilusEmitOp(&e, "llvm.store", 2, operands, 0, NULL, 0, NULL);
      if (isArg) {
        MlirValue indexOperands[2] = {
            partial[j].index,
            tilusEmitElementPointer(&e, indexBase, i32, cell)};
        tilusEmitOp(&e, "llvm.store", 2, indexOperands, 0, NULL, 0, NULL);
      }
    }
    tilusEmitBarrier(&e);
    for (int64_t j = 0; j < plan.numResultSlots; ++j) {
      Partial total = {{NULL}, {NULL}};
      for (int64_t r = 0; r < plan.numPartials; ++r) {
        MlirValue cell =
            tilusEmitAddIndexConst(&e, slotAddress[j], r * plan.resultElements);
        MlirValue ptr = tilusEmitElementPointer(&e, base, acc, cell);
        Partial v = {tilusEmitValue(&e, "llvm.load", 1, &ptr, acc, 0, NULL),
                     (MlirValue){NULL}};
        if (isArg) {
          MlirValue iptr = tilusEmitElementPointer(&e, indexBase, i32, cell);
          v.index = tilusEmitValue(&e, "llvm.load", 1, &iptr, i32, 0, NULL);
        }
        total = r == 0 ? v : combine(&c, total, v);
      }
      partial[j] = total;
    }
    tilusEmitBarrier(&e);
  }
  free(slotAddress);
  MlirType outType = isArg ? i32 : acc;
  MlirType outVector = mlirVectorTypeGet(1, &plan.numResultSlots, outType);
  MlirValue result = tilusEmitSplatConstant(&e, outVector, 0);
  for (int64_t j = 0; j < plan.numResultSlots; ++j)
    result = tilusEmitInsert(&e, result,
                             isArg ? partial[j].index : partial[j].value, j);
  if (!isArg)
    result = convertVector(&e, result, acc,
                           tilusStorageElementType(e.ctx, dst.elementType),
                           isUnsigned);
  free(partial);
  tilusReducePlanRelease(&plan);
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.reduce", lowerReduce},
};

const TilusPattern *tilusGetReducePatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
