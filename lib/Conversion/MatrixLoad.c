//===- MatrixLoad.c - LoadShared through ldmatrix -------------------------===//
//
// ldmatrix gives lane l of a warp, from each of up to four 8x8 matrices of
// 16-bit elements, the pair at row l/4, columns 2(l%4) and 2(l%4)+1; with
// .trans, rows 2(l%4) and 2(l%4)+1 of column l/4. Lanes 8q..8q+7 supply the
// addresses of the eight rows of matrix q, each 16 contiguous, aligned
// bytes. A LoadShared takes it when the register layout splits into such
// pairs in every warp (Fragments.c) and the shared layout keeps rows of 8
// elements contiguous and aligned; the pairs are loaded four matrices per
// instruction (x4), the rest by x2/x1. mma.sync's A, B and C fragments are
// all made of these pairs.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>

static void rowPair(int64_t lane, int64_t j, int64_t *rowCol) {
  rowCol[0] = lane / 4;
  rowCol[1] = 2 * (lane % 4) + j;
}

static void columnPair(int64_t lane, int64_t j, int64_t *rowCol) {
  rowCol[0] = 2 * (lane % 4) + j;
  rowCol[1] = lane / 4;
}

static MlirValue selectIndex(TilusEmitter *e, MlirValue q, const int64_t *values,
                             int64_t count) {
  MlirValue result = tilusEmitIndex(e, values[0]);
  MlirNamedAttribute eq = tilusNamedAttr(
      e->ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), 0));
  for (int64_t k = 1; k < count; ++k) {
    if (values[k] == values[0])
      continue;
    MlirValue operands[2] = {q, tilusEmitIndex(e, k)};
    MlirValue isK = tilusEmitValue(e, "arith.cmpi", 2, operands,
                                   mlirIntegerTypeGet(e->ctx, 1), 1, &eq);
    MlirValue choice[3] = {isK, tilusEmitIndex(e, values[k]), result};
    result = tilusEmitValue(e, "arith.select", 3, choice, tilusIndexType(e->ctx),
                            0, NULL);
  }
  return result;
}

MlirValue tilusEmitMatrixLoad(TilusEmitter *e, MlirOperation op,
                              MlirValue shared, MlirType resultType) {
  MlirValue none = {NULL}, base;
  if (tilusLookThroughCast(shared, &base, 1) != 1)
    return none;
  TilusTensorType s, t;
  if (mlirLogicalResultIsFailure(
          tilusTensorTypeDecode(mlirValueGetType(shared), &s, NULL)))
    return none;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(resultType, &t, NULL))) {
    tilusTensorTypeRelease(&s);
    return none;
  }
  intptr_t R = s.rank, lead = R - t.rank;
  TilusFragments f = {0, 0, NULL, NULL};
  bool trans = false;
  bool ok = tilusElementTypeGetBitWidth(s.elementType) == 16 && t.rank == 2 &&
            tilusSharedRunsAreContiguous(s.layout, 8) &&
            tilusIsMultipleOf(mlirOperationGetOperand(op, 1 + R - 1), 8);
  if (ok && !tilusFindFragments(t.layout, 2, rowPair, &f)) {
    trans = true;
    ok = tilusFindFragments(t.layout, 2, columnPair, &f);
  }
  // Matrix rows must start at multiples of 8 elements (16 bytes).
  for (int64_t k = 0; ok && k < f.numWarps * f.numGroups; ++k)
    ok = f.bases[2 * k + 1] % 8 == 0;
  if (!ok) {
    if (f.slots)
      tilusFragmentsRelease(&f);
    tilusTensorTypeRelease(&s);
    tilusTensorTypeRelease(&t);
    return none;
  }

  MlirType storage = tilusStorageElementType(e->ctx, s.elementType);
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  int64_t two = 2;
  MlirType pairType = mlirVectorTypeGet(1, &two, storage);
  MlirValue tid = tilusEmitThreadIndex(e);
  MlirValue lane = tilusEmitArith(e, "remui", tid, tilusEmitIndex(e, 32));
  MlirValue warpStart = tilusEmitArith(e, "subi", tid, lane);
  MlirValue warpCoords[2];
  tilusEmitThreadCoords(e, t.layout, warpStart, warpCoords);
  MlirValue q = tilusEmitArith(e, "divui", lane, tilusEmitIndex(e, 8));
  MlirValue r = tilusEmitArith(e, "remui", lane, tilusEmitIndex(e, 8));
  MlirValue result =
      tilusEmitSplatConstant(e, tilusRegisterStorageType(e->ctx, &t), 0);
  MlirNamedAttribute attrs[4];
  for (int64_t g0 = 0, nb = 0; g0 < f.numGroups; g0 += nb) {
    int64_t left = f.numGroups - g0;
    nb = left >= 4 ? 4 : left >= 2 ? 2 : 1; // x4, x2 and x1 exist
    // Lane l addresses row l%8 of matrix (l/8) mod nb of this batch.
    int64_t rows[4], cols[4];
    for (int64_t k = 0; k < nb; ++k) {
      int64_t local[2];
      tilusLayoutEvaluate(t.layout, 0, f.slots[2 * (g0 + k)], local);
      rows[k] = local[0];
      cols[k] = local[1];
    }
    MlirValue qb = nb == 4 ? q : tilusEmitArith(e, "remui", q, tilusEmitIndex(e, nb));
    MlirValue coords[TILUS_LAYOUT_MAX_RANK];
    for (intptr_t d = 0; d < lead; ++d)
      coords[d] = mlirOperationGetOperand(op, 1 + d);
    MlirValue row = tilusEmitAddIndex(e, warpCoords[0], selectIndex(e, qb, rows, nb));
    MlirValue col = tilusEmitAddIndex(e, warpCoords[1], selectIndex(e, qb, cols, nb));
    coords[lead] = tilusEmitAddIndex(
        e, mlirOperationGetOperand(op, 1 + lead), tilusEmitAddIndex(e, row, r));
    coords[lead + 1] = tilusEmitAddIndex(e, mlirOperationGetOperand(op, 1 + lead + 1), col);
    MlirValue ptr = tilusEmitElementPointer(
        e, base, storage, tilusEmitSharedAddress(e, s.layout, coords));

    char text[64];
    snprintf(text, sizeof(text), "!llvm.struct<(%s)>",
             nb == 4 ? "i32, i32, i32, i32" : nb == 2 ? "i32, i32" : "i32");
    MlirType structType = mlirTypeParseGet(e->ctx, mlirStringRefCreateFromCString(text));
    attrs[0] = tilusNamedAttr(e->ctx, "num", mlirIntegerAttrGet(i32, nb));
    attrs[1] = tilusNamedAttr(
        e->ctx, "layout",
        mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                          trans ? "#nvvm.mma_layout<col>"
                                                : "#nvvm.mma_layout<row>")));
    attrs[2] = tilusNamedAttr(
        e->ctx, "shape",
        mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                          "#nvvm.ld_st_matrix_shape<m = 8, n = 8>")));
    attrs[3] = tilusNamedAttr(
        e->ctx, "eltType",
        mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                          "#nvvm.ld_st_matrix_elt_type<b16>")));
    MlirValue loaded = tilusEmitValue(e, "nvvm.ldmatrix", 1, &ptr,
                                      nb == 1 ? i32 : structType, 4, attrs);
    for (int64_t k = 0; k < nb; ++k) {
      MlirValue word = loaded;
      if (nb > 1) {
        MlirNamedAttribute position = tilusNamedAttr(
            e->ctx, "position", mlirDenseI64ArrayGet(e->ctx, 1, &k));
        word = tilusEmitValue(e, "llvm.extractvalue", 1, &loaded, i32, 1, &position);
      }
      MlirValue pair = tilusEmitValue(e, "llvm.bitcast", 1, &word, pairType, 0, NULL);
      for (int j = 0; j < 2; ++j)
        result = tilusEmitInsert(e, result, tilusEmitExtract(e, pair, j),
                                 f.slots[2 * (g0 + k) + j]);
    }
  }
  tilusFragmentsRelease(&f);
  tilusTensorTypeRelease(&s);
  tilusTensorTypeRelease(&t);
  return result;
}
