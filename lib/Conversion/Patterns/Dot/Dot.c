//===- Dot.c - Dot: mma.sync where it applies, else the SIMT fallback -----===//
//
// d = a x b + c for register tensors of any layouts. The operands are spread
// over threads in arbitrary ways, so they meet in shared memory: every thread
// stores its elements of a and b to a scratch buffer at their logical places,
// the block synchronizes, and each thread computes its elements of d from
// whole rows of a and columns of b, accumulating in c's element type. A
// barrier before the stores keeps a Dot from overwriting the scratch while
// an earlier one (in the previous loop iteration, say) still reads it.
// Layouts made of mma.sync fragments take tensor cores instead (MmaDot.c);
// this path works for every layout and dtype.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <string.h>

// A shared-memory scratch array of `bytes`, new for each Dot.
static MlirValue emitScratch(TilusEmitter *e, MlirOperation op, int64_t bytes) {
  return tilusEmitSharedArray(e, op, "__tilus_dot_scratch", bytes, false);
}

// Stores every element of a thread's `value` (layout of `t`) into the
// row-major matrix at `base` with `columns` columns.
static bool storeOperand(TilusEmitter *e, const TilusTensorType *t,
                         MlirValue value, MlirValue base, MlirValue tid,
                         int64_t columns) {
  MlirValue coords[2];
  if (!tilusEmitThreadCoords(e, t->layout, tid, coords))
    return false;
  MlirType storage = tilusStorageElementType(e->ctx, t->elementType);
  int64_t m = tilusLayoutGetLocalSize(t->layout);
  MlirValue rowStart = tilusEmitMulIndexConst(e, coords[0], columns);
  MlirValue threadIndex = tilusEmitAddIndex(e, rowStart, coords[1]);
  for (int64_t i = 0; i < m; ++i) {
    int64_t local[2];
    tilusLayoutEvaluate(t->layout, 0, i, local);
    MlirValue index =
        tilusEmitAddIndexConst(e, threadIndex, local[0] * columns + local[1]);
    MlirValue operands[2] = {tilusEmitExtract(e, value, i),
                             tilusEmitElementPointer(e, base, storage, index)};
    tilusEmitOp(e, "llvm.store", 2, operands, 0, NULL, 0, NULL);
  }
  return true;
}

// Loads element `index` of the scratch matrix and converts it to `accType`.
static MlirValue loadConverted(TilusEmitter *e, MlirValue base,
                               MlirType elementType, bool isUnsigned,
                               MlirValue index, MlirType accType) {
  MlirType storage = tilusStorageElementType(e->ctx, elementType);
  MlirValue ptr = tilusEmitElementPointer(e, base, storage, index);
  MlirValue value = tilusEmitValue(e, "llvm.load", 1, &ptr, storage, 0, NULL);
  if (mlirTypeEqual(storage, accType))
    return value;
  const char *name;
  if (mlirTypeIsAFloat(accType))
    name = "arith.extf";
  else
    name = isUnsigned ? "arith.extui" : "arith.extsi";
  return tilusEmitValue(e, name, 1, &value, accType, 0, NULL);
}

static MlirLogicalResult lowerDot(TilusLowering *L, MlirOperation op, MlirRewriterBase rewriter) {
  MlirValue va = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusDotA, 0));
  MlirValue vb = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusDotB, 0));
  MlirValue vc = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusDotC, 0));
  if (mlirValueIsNull(va) || mlirValueIsNull(vb) || mlirValueIsNull(vc))
    return mlirLogicalResultFailure();
  TilusTensorType t[3];
  for (int k = 0; k < 3; ++k)
    if (mlirLogicalResultIsFailure(tilusLoweringDecode(
            L, mlirValueGetType(tilusOpGetGroupOperand(op, TilusDotA + k, 0)), &t[k])))
      return mlirLogicalResultFailure();
  // Reject what cannot be lowered before emitting anything.
  for (int k = 0; k < 3; ++k)
    if (!tilusRegisterLayoutIsSupported(t[k].layout))
      return tilusLoweringError(op, "register layouts with a swizzle are not "
                                    "supported");
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue mma;
  char why[256] = "";
  bool remarks = tilusLoweringRemarksOn(L);
  if (tilusEmitMmaDot(&e, op, t, va, vb, vc, &mma, remarks ? why : NULL,
                      sizeof(why))) {
    tilusReplaceWithLowered(rewriter, &e, op, mma);
    return mlirLogicalResultSuccess();
  }
  tilusLoweringRemark(L, op,
                      "Dot takes the SIMT fallback (no tensor cores; operands "
                      "through a shared-memory scratch): %s",
                      why);
  int64_t M = t[0].shape[0], K = t[0].shape[1], N = t[1].shape[1];
  int64_t bytes = tilusElementTypeGetBitWidth(t[0].elementType) / 8;
  MlirType accType = tilusStorageElementType(e.ctx, t[2].elementType);
  bool isUnsigned = tilusElementIsUnsigned(t[0].elementType);
  MlirValue scratch = emitScratch(&e, op, (M * K + K * N) * bytes);
  MlirValue scratchB = tilusEmitElementPointer(
      &e, scratch, tilusStorageElementType(e.ctx, t[0].elementType),
      tilusEmitIndex(&e, M * K));
  MlirValue tid = tilusEmitThreadIndex(&e);
  tilusEmitBarrier(&e);
  MlirValue cCoords[2];
  storeOperand(&e, &t[0], va, scratch, tid, K);
  storeOperand(&e, &t[1], vb, scratchB, tid, N);
  tilusEmitThreadCoords(&e, t[2].layout, tid, cCoords);
  {
    tilusEmitBarrier(&e);
    // for k in [0, K): acc[i] += a[row(i), k] * b[k, col(i)]
    MlirValue lower = tilusEmitIndex(&e, 0), upper = tilusEmitIndex(&e, K),
              step = tilusEmitIndex(&e, 1);
    MlirValue operands[4] = {lower, upper, step, vc};
    MlirType vcType = mlirValueGetType(vc);
    MlirOperationState state =
        mlirOperationStateGet(mlirStringRefCreateFromCString("scf.for"), e.loc);
    mlirOperationStateAddOperands(&state, 4, operands);
    mlirOperationStateAddResults(&state, 1, &vcType);
    MlirRegion region = mlirRegionCreate();
    MlirType blockTypes[2] = {tilusIndexType(e.ctx), vcType};
    MlirLocation locs[2] = {e.loc, e.loc};
    MlirBlock body = mlirBlockCreate(2, blockTypes, locs);
    mlirRegionAppendOwnedBlock(region, body);
    mlirOperationStateAddOwnedRegions(&state, 1, &region);
    MlirOperation loop =
        mlirRewriterBaseInsert(e.rewriter, mlirOperationCreate(&state));

    tilusEmitterSetToEnd(&e, body);
    MlirValue k = mlirBlockGetArgument(body, 0);
    MlirValue acc = mlirBlockGetArgument(body, 1);
    bool isFloat = mlirTypeIsAFloat(accType);
    int64_t m = tilusLayoutGetLocalSize(t[2].layout);
    for (int64_t i = 0; i < m; ++i) {
      int64_t local[2];
      tilusLayoutEvaluate(t[2].layout, 0, i, local);
      MlirValue row = tilusEmitAddIndexConst(&e, cCoords[0], local[0]);
      MlirValue col = tilusEmitAddIndexConst(&e, cCoords[1], local[1]);
      MlirValue aIndex =
          tilusEmitAddIndex(&e, tilusEmitMulIndexConst(&e, row, K), k);
      MlirValue bIndex =
          tilusEmitAddIndex(&e, tilusEmitMulIndexConst(&e, k, N), col);
      MlirValue x = loadConverted(&e, scratch, t[0].elementType, isUnsigned,
                                  aIndex, accType);
      MlirValue y = loadConverted(&e, scratchB, t[1].elementType, isUnsigned,
                                  bIndex, accType);
      MlirValue product = tilusEmitArith(&e, isFloat ? "mulf" : "muli", x, y);
      MlirValue sum = tilusEmitArith(&e, isFloat ? "addf" : "addi",
                                     tilusEmitExtract(&e, acc, i), product);
      acc = tilusEmitInsert(&e, acc, sum, i);
    }
    tilusEmitYield(&e, 1, &acc);
    tilusEmitterSetAfter(&e, loop);
    tilusReplaceWithLowered(rewriter, &e, op, mlirOperationGetResult(loop, 0));
  }
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.dot", lowerDot},
};

const TilusPattern *tilusGetDotPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
