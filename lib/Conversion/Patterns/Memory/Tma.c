//===- Tma.c - Tensor-memory copies (cp.async.bulk.tensor) ----------------===//
//
// tilus.tma_store: below, at lowerTmaStore. tilus.tma_load: thread 0 raises the barrier's expected transaction bytes
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
#include "tilus-c/Kernel.h"

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

// What both directions decide and compute first: the plan, the tensor map,
// the shared tile's address and the coordinates (innermost first).
typedef struct {
  TilusTmaPlan plan;
  MlirValue map, tile;
  MlirValue coords[TILUS_TMA_MAX_RANK];
} TmaCopy;

// Decides (no IR emitted on failure), then emits the addresses and
// coordinates, computed by every thread (uniform, cheap).
static MlirLogicalResult prepare(TilusLowering *L, MlirOperation op,
                                 TilusEmitter *e, bool store, TmaCopy *c) {
  char why[320];
  if (!L->target->hasTma)
    return tilusLoweringNeedsTarget(L, op,
                                    "tensor-memory copies need sm_90 or newer "
                                    "(cp.async.bulk.tensor)");
  intptr_t sharedOffsets = store ? TilusTmaStoreSharedOffsets : TilusTmaDstOffsets;
  intptr_t globalOffsets = store ? TilusTmaStoreGlobalOffsets : TilusTmaSrcOffsets;
  MlirValue sharedValue = tilusOpGetGroupOperand(op, TilusTmaShared, 0);
  const TilusTensorType *shared =
      tilusLoweringTensorType(L, mlirValueGetType(sharedValue));
  const TilusTensorType *global = tilusLoweringTensorType(
      L, mlirValueGetType(tilusOpGetGroupOperand(op, TilusTmaGlobal, 0)));
  if (!shared || !global || shared->scope != TilusMemoryShared)
    return tilusLoweringError(op, "the operands are not a shared and a global "
                                  "tensor (run tilus-verify)");
  if (!tilusTmaPlanGetBoxes(op, shared, global, &c->plan, why, sizeof why))
    return tilusLoweringError(op, why);
  intptr_t globalStart = tilusOperandGroupStart(op, globalOffsets);
  int64_t rank = c->plan.rank, align = 16 / c->plan.elementBytes;
  if (!tilusLoweringIsMultipleOf(
          L, mlirOperationGetOperand(op, globalStart + rank - 1), align)) {
    snprintf(why, sizeof why,
             "TMA starts a box on a 16-byte boundary of the global tensor's "
             "rows: the innermost offset must be a multiple of %lld elements, "
             "which cannot be proven of this one",
             (long long)align);
    return tilusLoweringError(op, why);
  }
  c->map = tensorMapArgument(op);
  if (mlirValueIsNull(c->map))
    return tilusLoweringError(op, "the op has no tensor map (tilus-to-gpu "
                                  "plans them with the kernel)");
  if (mlirValueIsNull(tilusLoweredRegister(sharedValue)))
    return mlirLogicalResultFailure();
  c->tile = sharedElement(e, op, sharedValue, shared, sharedOffsets);
  for (int64_t d = 0; d < rank; ++d)
    c->coords[d] = tilusEmitValue(
        e, "arith.index_cast", 1,
        (MlirValue[]){mlirOperationGetOperand(op, globalStart + rank - 1 - d)},
        mlirIntegerTypeGet(e->ctx, 32), 0, NULL);
  return mlirLogicalResultSuccess();
}

// One cp.async.bulk.tensor per box, `form` with $0 the shared address, $1
// the map, $2 the barrier (a load's) and the coordinates after it (at $2
// for a store); with `mask` (a multicast load's 16-bit block mask), that
// last.
static void emitBoxes(TilusEmitter *e, const TmaCopy *c, const char *form,
                      MlirValue bar, MlirValue mask) {
  const TilusTmaPlan *plan = &c->plan;
  int64_t first = mlirValueIsNull(bar) ? 2 : 3;
  bool multicast = !mlirValueIsNull(mask);
  char text[320], constraints[64];
  int n = snprintf(text, sizeof text, form, (long long)plan->rank);
  int k = snprintf(constraints, sizeof constraints, first == 3 ? "l,l,l" : "l,l");
  for (int64_t d = 0; d < plan->rank; ++d) {
    n += snprintf(text + n, sizeof text - (size_t)n, d ? ", $%lld" : "$%lld",
                  (long long)(first + d));
    k += snprintf(constraints + k, sizeof constraints - (size_t)k, ",r");
  }
  if (multicast) {
    snprintf(text + n, sizeof text - (size_t)n, "}], [$2], $%lld;",
             (long long)(first + plan->rank));
    k += snprintf(constraints + k, sizeof constraints - (size_t)k, ",h");
  } else {
    snprintf(text + n, sizeof text - (size_t)n,
             first == 3 ? "}], [$2];" : "}], [$0];");
  }
  snprintf(constraints + k, sizeof constraints - (size_t)k, ",~{memory}");
  MlirType i8 = mlirIntegerTypeGet(e->ctx, 8), i32 = mlirIntegerTypeGet(e->ctx, 32);
  for (int64_t b = 0; b < plan->numBoxes; ++b) {
    MlirValue operands[4 + TILUS_TMA_MAX_RANK];
    operands[0] = tilusEmitElementPointer(e, c->tile, i8,
                                          tilusEmitIndex(e, b * plan->boxStride));
    operands[1] = c->map;
    if (first == 3)
      operands[2] = bar;
    for (int64_t d = 0; d < plan->rank; ++d)
      operands[first + d] = c->coords[d];
    if (b)
      operands[first] = tilusEmitArith(
          e, "addi", c->coords[0],
          tilusEmitIntConstant(e, i32, b * plan->box[plan->rank - 1]));
    if (multicast)
      operands[first + plan->rank] = mask;
    tilusEmitInlineAsm(e, text, constraints,
                       first + plan->rank + (multicast ? 1 : 0), operands,
                       (MlirType){NULL});
  }
}

static MlirLogicalResult lowerTmaLoad(TilusLowering *L, MlirOperation op,
                                      MlirRewriterBase rewriter) {
  MlirValue barsValue = tilusOpGetGroupOperand(op, TilusTmaBars, 0);
  const TilusTensorType *bars =
      tilusLoweringTensorType(L, mlirValueGetType(barsValue));
  intptr_t start, count;
  if (!bars || bars->scope != TilusMemoryShared ||
      !tilusOpGetOperandGroup(op, TilusTmaBarOffsets, &start, &count) ||
      count != bars->rank)
    return tilusLoweringError(op, "the barrier is not an element of a shared "
                                  "tensor (run tilus-verify)");
  if (mlirValueIsNull(tilusLoweredRegister(barsValue)))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  TmaCopy c;
  if (mlirLogicalResultIsFailure(prepare(L, op, &e, false, &c)))
    return mlirLogicalResultFailure();
  MlirValue bar = sharedElement(&e, op, barsValue, bars, TilusTmaBarOffsets);
  // Multicast: to every block of the cluster, each of which issues a copy
  // of the same size for this phase, so the barrier gets that many tiles.
  bool multicast = !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("multicast")));
  int64_t blocks = multicast ? tilusOpGetClusterSize(op) : 1;
  if (multicast && (blocks < 1 || blocks > 16))
    return tilusLoweringError(op, "multicast needs a kernel that runs in "
                                  "thread-block clusters (run tilus-verify)");
  MlirOperation ifOp = tilusEmitBeginLeader(&e);
  MlirValue expect[2] = {
      bar, tilusEmitIntConstant(&e, mlirIntegerTypeGet(e.ctx, 32),
                                blocks * c.plan.numBoxes * c.plan.boxBytes)};
  tilusEmitInlineAsm(&e, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$0], $1;",
                     "l,r,~{memory}", 2, expect, (MlirType){NULL});
  MlirValue mask = multicast ? tilusEmitIntConstant(&e, mlirIntegerTypeGet(e.ctx, 16),
                                                    (1 << blocks) - 1)
                             : (MlirValue){NULL};
  emitBoxes(&e, &c,
            multicast ? "cp.async.bulk.tensor.%lldd.shared::cluster.global.tile."
                        "mbarrier::complete_tx::bytes.multicast::cluster "
                        "[$0], [$1, {"
                      : "cp.async.bulk.tensor.%lldd.shared::cluster.global.tile."
                        "mbarrier::complete_tx::bytes [$0], [$1, {",
            bar, mask);
  tilusEmitEndLeader(&e, ifOp);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

// tilus.tma_store: every thread's writes to the tile are made visible to the
// async proxy (fence.proxy.async, then a block barrier); thread 0 issues the
// boxes as one bulk group and waits for it to complete (with async_writes,
// for its reads of the tile only: the writes land after the kernel's
// threads go on); a second block barrier tells every thread that the tile
// may be written again.
static MlirLogicalResult lowerTmaStore(TilusLowering *L, MlirOperation op,
                                       MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  TmaCopy c;
  if (mlirLogicalResultIsFailure(prepare(L, op, &e, true, &c)))
    return mlirLogicalResultFailure();
  tilusEmitInlineAsm(&e, "fence.proxy.async.shared::cta;", "~{memory}", 0, NULL,
                     (MlirType){NULL});
  tilusEmitBarrier(&e);
  MlirOperation ifOp = tilusEmitBeginLeader(&e);
  emitBoxes(&e, &c,
            "cp.async.bulk.tensor.%lldd.global.shared::cta.tile.bulk_group "
            "[$1, {",
            (MlirValue){NULL}, (MlirValue){NULL});
  bool asyncWrites = !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("async_writes")));
  tilusEmitInlineAsm(&e,
                     asyncWrites ? "cp.async.bulk.commit_group;\n"
                                   "cp.async.bulk.wait_group.read 0;"
                                 : "cp.async.bulk.commit_group;\n"
                                   "cp.async.bulk.wait_group 0;",
                     "~{memory}", 0, NULL, (MlirType){NULL});
  tilusEmitEndLeader(&e, ifOp);
  tilusEmitBarrier(&e);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.tma_load", lowerTmaLoad},
    {"tilus.tma_store", lowerTmaStore},
};

const TilusPattern *tilusGetTmaPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
