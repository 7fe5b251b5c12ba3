//===- MatrixAccess.c - LoadShared / StoreShared through ldmatrix/stmatrix ===//
//
// ldmatrix gives lane l of a warp, from each of up to four 8x8 matrices of
// 16-bit elements, the pair at row l/4, columns 2(l%4) and 2(l%4)+1; with
// .trans, rows 2(l%4) and 2(l%4)+1 of column l/4. Lanes 8q..8q+7 supply the
// addresses of the eight rows of matrix q, each 16 contiguous, aligned
// bytes. A LoadShared takes it when the register layout splits into such
// pairs in every warp (Fragments.c) and the shared layout keeps rows of 8
// elements contiguous and aligned; the pairs are loaded four matrices per
// instruction (x4), the rest by x2/x1. mma.sync's A, B and C fragments are
// all made of these pairs. 8-bit elements go by the same 16-bit pairs
// without .trans: lane l holds the four bytes at row l/4, columns 4(l%4) to
// 4(l%4)+3 (mma.sync s8 fragments), rows of 16 elements. stmatrix (sm_90) is
// the same in the other direction; a StoreShared takes it when the module's target (the
// `tilus.target` attribute tilus-opt sets from --target) is sm_90 or sm_90a.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <string.h>

// ldmatrix's pairs as fragment digits {divisor, modulus, dim, stride}: lane
// l holds row l/4, columns 2(l%4) + j (or, .trans, the transpose).
static const TilusLayoutThreadMode kRowPairLanes[] = {{1, 4, 1, 2}, {4, 8, 0, 1}};
static const TilusLayoutThreadMode kRowPairSlots[] = {{1, 2, 1, 1}};
static const TilusLayoutThreadMode kColumnPairLanes[] = {{1, 4, 0, 2}, {4, 8, 1, 1}};
static const TilusLayoutThreadMode kColumnPairSlots[] = {{1, 2, 0, 1}};
static const TilusLayoutFragment kRowPair = {32, 2, 2, 1, kRowPairLanes, kRowPairSlots};
static const TilusLayoutFragment kColumnPair = {32, 2, 2, 1, kColumnPairLanes,
                                                kColumnPairSlots};
static const TilusLayoutThreadMode kRowQuadLanes[] = {{1, 4, 1, 4}, {4, 8, 0, 1}};
static const TilusLayoutThreadMode kRowQuadSlots[] = {{1, 4, 1, 1}};
static const TilusLayoutFragment kRowQuad = {32, 4, 2, 1, kRowQuadLanes, kRowQuadSlots};

static MlirValue selectIndex(TilusEmitter *e, MlirValue q, const int64_t *values,
                             int64_t count) {
  MlirValue result = tilusEmitIndex(e, values[0]);
  for (int64_t k = 1; k < count; ++k) {
    if (values[k] == values[0])
      continue;
    MlirValue isK = tilusEmitCmp(e, TilusCmpEQ, q, tilusEmitIndex(e, k));
    MlirValue choice[3] = {isK, tilusEmitIndex(e, values[k]), result};
    result = tilusEmitValue(e, "arith.select", 3, choice, tilusIndexType(e->ctx),
                            0, NULL);
  }
  return result;
}

// A LoadShared/StoreShared that ldmatrix/stmatrix can do: the fragments of
// the register layout, whether they are column pairs (.trans), and what the
// per-lane row addresses need.
typedef struct {
  MlirValue base; // !llvm.ptr<3>
  TilusTensorType shared, tile;
  TilusFragments f; // a shallow copy of the lowering's cached fragments
  bool trans;
  int per; // elements per lane and matrix: 2 (16-bit) or 4 (8-bit)
  MlirType storage;
  MlirValue warpCoords[2], q, r;
} MatrixPlan;

static bool planMatrix(TilusEmitter *e, MlirOperation op, MlirValue shared,
                       MlirType tileType, intptr_t offsetsStart, MatrixPlan *p) {
  memset(p, 0, sizeof(*p));
  p->base = tilusLoweredRegister(shared);
  if (mlirValueIsNull(p->base))
    return false;
  if (mlirLogicalResultIsFailure(
          tilusLoweringDecode(e->lowering, mlirValueGetType(shared), &p->shared)))
    return false;
  if (mlirLogicalResultIsFailure(tilusLoweringDecode(e->lowering, tileType, &p->tile))) {
    return false;
  }
  intptr_t R = p->shared.rank;
  int64_t bits = tilusElementTypeGetBitWidth(p->shared.elementType);
  p->per = bits == 16 ? 2 : 4;
  int64_t row = 8 * p->per / 2; // elements in a matrix row of 16 bytes
  bool ok = (bits == 16 || bits == 8) &&
            p->tile.rank == 2 && tilusLayoutRunsAreContiguous(p->shared.layout, row) &&
            tilusLoweringIsMultipleOf(e->lowering, mlirOperationGetOperand(op, offsetsStart + R - 1), row);
  const TilusFragments *f = NULL;
  if (ok) {
    f = tilusLoweringFragments(e->lowering, p->tile.layout, bits == 8 ? &kRowQuad : &kRowPair);
    if (!f && bits == 16) {
      p->trans = true;
      f = tilusLoweringFragments(e->lowering, p->tile.layout, &kColumnPair);
    }
    ok = f != NULL;
  }
  if (ok)
    p->f = *f;
  // Matrix rows must start at multiples of 16 bytes.
  for (int64_t k = 0; ok && k < p->f.numWarps * p->f.numGroups; ++k)
    ok = p->f.bases[2 * k + 1] % row == 0;
  if (!ok)
    return false;
  p->storage = tilusStorageElementType(e->ctx, p->shared.elementType);
  return true;
}

// The per-lane values every row address needs: the warp's coordinates in
// the register layout and the lane's matrix q and row r. Emitted once the
// plan is made.
static void emitLaneValues(TilusEmitter *e, MatrixPlan *p) {
  MlirValue tid = tilusEmitThreadIndex(e);
  MlirValue lane = tilusEmitArith(e, "remui", tid, tilusEmitIndex(e, 32));
  MlirValue warpStart = tilusEmitArith(e, "subi", tid, lane);
  tilusEmitThreadCoords(e, p->tile.layout, warpStart, p->warpCoords);
  p->q = tilusEmitArith(e, "divui", lane, tilusEmitIndex(e, 8));
  p->r = tilusEmitArith(e, "remui", lane, tilusEmitIndex(e, 8));
}

// x4, x2 and x1 exist: the count for the groups left from g0 on.
static int64_t batchSize(const MatrixPlan *p, int64_t g0) {
  int64_t left = p->f.numGroups - g0;
  return left >= 4 ? 4 : left >= 2 ? 2 : 1;
}

// The row this lane addresses: row l%8 of matrix (l/8) mod nb of the batch
// of groups g0 .. g0 + nb - 1.
static MlirValue rowPointer(TilusEmitter *e, MlirOperation op,
                            intptr_t offsetsStart, const MatrixPlan *p,
                            int64_t g0, int64_t nb) {
  int64_t rows[4], cols[4];
  for (int64_t k = 0; k < nb; ++k) {
    int64_t local[2];
    tilusLayoutEvaluate(p->tile.layout, 0, p->f.slots[p->per * (g0 + k)], local);
    rows[k] = local[0];
    cols[k] = local[1];
  }
  MlirValue qb = nb == 4 ? p->q : tilusEmitArith(e, "remui", p->q, tilusEmitIndex(e, nb));
  intptr_t lead = p->shared.rank - 2;
  MlirValue coords[TILUS_LAYOUT_MAX_RANK];
  for (intptr_t d = 0; d < lead; ++d)
    coords[d] = mlirOperationGetOperand(op, offsetsStart + d);
  MlirValue row = tilusEmitAddIndex(e, p->warpCoords[0], selectIndex(e, qb, rows, nb));
  MlirValue col = tilusEmitAddIndex(e, p->warpCoords[1], selectIndex(e, qb, cols, nb));
  coords[lead] = tilusEmitAddIndex(e, mlirOperationGetOperand(op, offsetsStart + lead),
                                   tilusEmitAddIndex(e, row, p->r));
  coords[lead + 1] =
      tilusEmitAddIndex(e, mlirOperationGetOperand(op, offsetsStart + lead + 1), col);
  return tilusEmitElementPointer(e, p->base, p->storage,
                                 tilusEmitSharedAddress(e, p->shared.layout, coords));
}

static void matrixAttrs(TilusEmitter *e, const MatrixPlan *p, int64_t nb,
                        MlirNamedAttribute *attrs) {
  attrs[0] = tilusNamedAttr(
      e->ctx, "layout",
      mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                        p->trans ? "#nvvm.mma_layout<col>"
                                                 : "#nvvm.mma_layout<row>")));
  attrs[1] = tilusNamedAttr(
      e->ctx, "shape",
      mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                        "#nvvm.ld_st_matrix_shape<m = 8, n = 8>")));
  attrs[2] = tilusNamedAttr(
      e->ctx, "eltType",
      mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                        "#nvvm.ld_st_matrix_elt_type<b16>")));
  attrs[3] = tilusNamedAttr(e->ctx, "num",
                            mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 32), nb));
}

MlirValue tilusEmitMatrixLoad(TilusEmitter *e, MlirOperation op,
                              MlirValue shared, MlirType resultType) {
  MatrixPlan p;
  intptr_t offsets = tilusOperandGroupStart(op, TilusLoadSharedOffsets);
  if (!planMatrix(e, op, shared, resultType, offsets, &p))
    return (MlirValue){NULL};
  emitLaneValues(e, &p);
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  int64_t per = p.per;
  MlirType unitType = mlirVectorTypeGet(1, &per, p.storage); // one lane's word
  MlirValue result =
      tilusEmitSplatConstant(e, tilusRegisterStorageType(e->ctx, &p.tile), 0);
  for (int64_t g0 = 0, nb = 0; g0 < p.f.numGroups; g0 += nb) {
    nb = batchSize(&p, g0);
    MlirValue ptr = rowPointer(e, op, offsets, &p, g0, nb);
    MlirType words[4] = {i32, i32, i32, i32};
    MlirType type = nb == 1 ? i32 : tilusLLVMStructType(e->ctx, nb, words);
    MlirNamedAttribute attrs[4];
    matrixAttrs(e, &p, nb, attrs);
    MlirValue loaded = tilusEmitValue(e, "nvvm.ldmatrix", 1, &ptr, type, 4, attrs);
    for (int64_t k = 0; k < nb; ++k) {
      MlirValue word = loaded;
      if (nb > 1) {
        MlirNamedAttribute position = tilusNamedAttr(
            e->ctx, "position", mlirDenseI64ArrayGet(e->ctx, 1, &k));
        word = tilusEmitValue(e, "llvm.extractvalue", 1, &loaded, i32, 1, &position);
      }
      MlirValue pair = tilusEmitValue(e, "llvm.bitcast", 1, &word, unitType, 0, NULL);
      for (int j = 0; j < per; ++j)
        result = tilusEmitInsert(e, result, tilusEmitExtract(e, pair, j),
                                 p.f.slots[per * (g0 + k) + j]);
    }
  }
  return result;
}

bool tilusEmitMatrixStore(TilusEmitter *e, MlirOperation op, MlirValue shared,
                          MlirValue value) {
  if (!e->lowering->target->hasStmatrix)
    return false;
  MatrixPlan p;
  intptr_t offsets = tilusOperandGroupStart(op, TilusStoreOffsets);
  if (!planMatrix(e, op, shared,
                  mlirValueGetType(tilusOpGetGroupOperand(op, TilusStoreValue, 0)), offsets, &p))
    return false;
  emitLaneValues(e, &p);
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  int64_t per = p.per;
  MlirType unitType = mlirVectorTypeGet(1, &per, p.storage); // one lane's word
  for (int64_t g0 = 0, nb = 0; g0 < p.f.numGroups; g0 += nb) {
    nb = batchSize(&p, g0);
    MlirValue operands[5];
    operands[0] = rowPointer(e, op, offsets, &p, g0, nb);
    for (int64_t k = 0; k < nb; ++k) {
      MlirValue pair = tilusEmitSplatConstant(e, unitType, 0);
      for (int j = 0; j < per; ++j)
        pair = tilusEmitInsert(e, pair,
                               tilusEmitExtract(e, value, p.f.slots[per * (g0 + k) + j]), j);
      operands[1 + k] = tilusEmitValue(e, "llvm.bitcast", 1, &pair, i32, 0, NULL);
    }
    MlirNamedAttribute attrs[4];
    matrixAttrs(e, &p, nb, attrs);
    // stmatrix takes no `num`: the count of sources says it.
    tilusEmitOp(e, "nvvm.stmatrix", 1 + nb, operands, 0, NULL, 3, attrs);
  }
  return true;
}
