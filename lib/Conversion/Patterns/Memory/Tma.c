//===- Tma.c - Tensor-memory copies (cp.async.bulk.tensor) ----------------===//
//
// tilus.tma_load: thread 0 raises the barrier's expected transaction bytes
// by the tile's bytes (mbarrier.expect_tx), then issues one
// cp.async.bulk.tensor per box of the plan (tilusTmaPlanGetBoxes: one for a
// row-major destination, one per swizzle-wide block of columns for a
// swizzled one), each completing its bytes on the barrier. The tensor map is
// the kernel parameter tilus-to-gpu added for the op (its index in
// TILUS_TENSOR_MAP_ARG_ATTR), read in place through its generic address;
// the coordinates are the source offsets, innermost first, as 32-bit
// integers; the innermost must be provably 16-byte aligned (the H100 traps
// on another: an illegal instruction). Other threads emit nothing: they learn of the data through the
// barrier.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"

#include <stdio.h>

// The tensor map's parameter of `op` (the block argument of its gpu.func).
static MlirValue tensorMapArgument(MlirOperation op) {
  int64_t index = -1;
  if (!tilusOpGetIntAttr(op, TILUS_TENSOR_MAP_ARG_ATTR, &index) || index < 0)
    return (MlirValue){NULL};
  MlirOperation func = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(func) && !tilusOpIs(func, "gpu.func"))
    func = mlirOperationGetParentOperation(func);
  if (mlirOperationIsNull(func))
    return (MlirValue){NULL};
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  return index < mlirBlockGetNumArguments(entry)
             ? mlirBlockGetArgument(entry, index)
             : (MlirValue){NULL};
}

// &mem[offsets of group `group`] in a shared tensor of type `t`.
static MlirValue sharedElement(TilusEmitter *e, MlirOperation op, MlirValue mem,
                               const TilusTensorType *t, intptr_t group) {
  intptr_t start = tilusOperandGroupStart(op, group);
  MlirValue offsets[TILUS_LAYOUT_MAX_RANK];
  for (intptr_t d = 0; d < t->rank; ++d)
    offsets[d] = mlirOperationGetOperand(op, start + d);
  return tilusEmitElementPointer(
      e, tilusLoweredRegister(mem),
      tilusStorageElementType(e->ctx, t->elementType),
      tilusEmitSharedAddress(e, t->layout, offsets));
}

static MlirLogicalResult lowerTmaLoad(TilusLowering *L, MlirOperation op,
                                      MlirRewriterBase rewriter) {
  char why[320];
  if (!L->target->hasTma) {
    snprintf(why, sizeof why,
             "tensor-memory copies need sm_90 or newer "
             "(cp.async.bulk.tensor); this lowering is for %s",
             L->target->name);
    return tilusLoweringError(op, why);
  }
  MlirValue dstValue = tilusOpGetGroupOperand(op, TilusTmaDst, 0);
  MlirValue barsValue = tilusOpGetGroupOperand(op, TilusTmaBars, 0);
  const TilusTensorType *dst =
      tilusLoweringTensorType(L, mlirValueGetType(dstValue));
  const TilusTensorType *src = tilusLoweringTensorType(
      L, mlirValueGetType(tilusOpGetGroupOperand(op, TilusTmaSrc, 0)));
  const TilusTensorType *bars =
      tilusLoweringTensorType(L, mlirValueGetType(barsValue));
  TilusTmaPlan plan;
  intptr_t start, count;
  if (!dst || !src || !bars || dst->scope != TilusMemoryShared ||
      bars->scope != TilusMemoryShared ||
      !tilusOpGetOperandGroup(op, TilusTmaBarOffsets, &start, &count) ||
      count != bars->rank)
    return tilusLoweringError(op, "the operands are not a shared destination, "
                                  "a global source and an mbarrier (run "
                                  "tilus-verify)");
  if (!tilusTmaPlanGetBoxes(op, dst, src, &plan, why, sizeof why))
    return tilusLoweringError(op, why);
  intptr_t srcStart = tilusOperandGroupStart(op, TilusTmaSrcOffsets);
  int64_t align = 16 / plan.elementBytes;
  if (!tilusLoweringIsMultipleOf(
          L, mlirOperationGetOperand(op, srcStart + plan.rank - 1), align)) {
    snprintf(why, sizeof why,
             "TMA starts a box on a 16-byte boundary of the source's rows: the "
             "innermost offset must be a multiple of %lld elements, which "
             "cannot be proven of this one",
             (long long)align);
    return tilusLoweringError(op, why);
  }
  MlirValue map = tensorMapArgument(op);
  if (mlirValueIsNull(map))
    return tilusLoweringError(op, "the op has no tensor map (tilus-to-gpu "
                                  "plans them with the kernel)");
  if (mlirValueIsNull(tilusLoweredRegister(dstValue)) ||
      mlirValueIsNull(tilusLoweredRegister(barsValue)))
    return mlirLogicalResultFailure();

  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType i32 = mlirIntegerTypeGet(e.ctx, 32), i8 = mlirIntegerTypeGet(e.ctx, 8);
  // Addresses and coordinates are computed by every thread (uniform, cheap);
  // only thread 0 issues.
  MlirValue bar = sharedElement(&e, op, barsValue, bars, TilusTmaBarOffsets);
  MlirValue tile = sharedElement(&e, op, dstValue, dst, TilusTmaDstOffsets);
  MlirValue coords[TILUS_TMA_MAX_RANK]; // innermost first
  for (int64_t d = 0; d < plan.rank; ++d)
    coords[d] = tilusEmitValue(
        &e, "arith.index_cast", 1,
        (MlirValue[]){mlirOperationGetOperand(op, srcStart + plan.rank - 1 - d)},
        i32, 0, NULL);
  MlirOperation ifOp;
  {
    MlirValue isLeader = tilusEmitCmp(&e, TilusCmpEQ, tilusEmitThreadIndex(&e),
                                      tilusEmitIndex(&e, 0));
    MlirBlock thenBlock;
    ifOp = tilusEmitIf(&e, isLeader, 0, NULL, &thenBlock, NULL);
    tilusEmitterSetToEnd(&e, thenBlock);
  }
  MlirValue expect[2] = {
      bar, tilusEmitIntConstant(&e, i32, plan.numBoxes * plan.boxBytes)};
  tilusEmitInlineAsm(&e, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$0], $1;",
                     "l,r,~{memory}", 2, expect, (MlirType){NULL});
  // cp.async.bulk.tensor.<r>d...[$0], [$1, {$3, ...}], [$2]
  char text[256], constraints[64];
  int n = snprintf(text, sizeof text,
                   "cp.async.bulk.tensor.%lldd.shared::cluster.global.tile."
                   "mbarrier::complete_tx::bytes [$0], [$1, {",
                   (long long)plan.rank);
  int c = snprintf(constraints, sizeof constraints, "l,l,l");
  for (int64_t d = 0; d < plan.rank; ++d) {
    n += snprintf(text + n, sizeof text - (size_t)n, d ? ", $%lld" : "$%lld",
                  (long long)(3 + d));
    c += snprintf(constraints + c, sizeof constraints - (size_t)c, ",r");
  }
  snprintf(text + n, sizeof text - (size_t)n, "}], [$2];");
  snprintf(constraints + c, sizeof constraints - (size_t)c, ",~{memory}");
  for (int64_t b = 0; b < plan.numBoxes; ++b) {
    MlirValue operands[3 + TILUS_TMA_MAX_RANK];
    operands[0] = tilusEmitElementPointer(&e, tile, i8,
                                          tilusEmitIndex(&e, b * plan.boxBytes));
    operands[1] = map;
    operands[2] = bar;
    for (int64_t d = 0; d < plan.rank; ++d)
      operands[3 + d] = coords[d];
    if (b)
      operands[3] = tilusEmitArith(
          &e, "addi", coords[0],
          tilusEmitIntConstant(&e, i32, b * plan.box[plan.rank - 1]));
    tilusEmitInlineAsm(&e, text, constraints, 3 + plan.rank, operands,
                       (MlirType){NULL});
  }
  tilusEmitYield(&e, 0, NULL);
  tilusEmitterSetAfter(&e, ifOp);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.tma_load", lowerTmaLoad},
};

const TilusPattern *tilusGetTmaPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
