//===- GlobalMemory.c - ViewGlobal, AllocateGlobal, Load/StoreGlobal ------===//
//
// A register tile of rank r is read from (or written to) the last r
// dimensions of a row-major global tensor at run-time offsets. Thread t's
// element i sits at logical index f(t, 0) + f(0, i): the thread part is
// computed once, the local part is a constant per element. Elements outside
// the tensor are masked (loads give 0, stores are skipped), so edge tiles
// work. Where a thread's elements are contiguous along the last dimension
// and the alignment is provable, they are accessed as one vector of up to
// 16 bytes (ld.global.v4.b32 and friends).
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_RANK TILUS_LAYOUT_MAX_RANK

// Global tensors are addressed row-major (tilusGetGlobalView): a layout
// that says otherwise would be read wrongly, so it is refused where the
// tensor is made.
static MlirLogicalResult checkRowMajor(TilusLowering *L, MlirOperation op) {
  const TilusTensorType *t = tilusLoweringTensorType(
      L, mlirValueGetType(mlirOperationGetResult(op, 0)));
  if (!t || !t->layout)
    return mlirLogicalResultSuccess();
  TilusLayout *rowMajor = tilusLayoutCreateLocal(t->rank, t->shape, NULL);
  bool same = rowMajor && tilusLayoutEqual(t->layout, rowMajor);
  tilusLayoutDestroy(rowMajor);
  if (same)
    return mlirLogicalResultSuccess();
  return tilusLoweringError(op, "global tensors are addressed row-major; a "
                                "layout other than #tilus.row_major is not "
                                "lowered (view the memory with the transposed "
                                "shape instead)");
}

static MlirLogicalResult lowerViewGlobal(TilusLowering *L, MlirOperation op,
                                         MlirRewriterBase rewriter) {
  if (mlirLogicalResultIsFailure(checkRowMajor(L, op)))
    return mlirLogicalResultFailure();
  MlirValue ptr = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusViewGlobalPtr, 0));
  if (mlirValueIsNull(ptr))
    return mlirLogicalResultFailure();
  intptr_t start = 0, numSizes = 0;
  if (!tilusOpGetOperandGroup(op, TilusViewGlobalSizes, &start, &numSizes) ||
      numSizes > MAX_RANK)
    return tilusLoweringError(op, "more run-time sizes than a tensor has "
                                  "dimensions");
  // The lowered global tensor: the pointer, then its run-time sizes.
  MlirValue inputs[1 + MAX_RANK];
  inputs[0] = ptr;
  for (intptr_t k = 0; k < numSizes; ++k)
    inputs[1 + k] = mlirOperationGetOperand(op, start + k);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue cast = tilusEmitCast(
      &e, 1 + numSizes, inputs, mlirValueGetType(mlirOperationGetResult(op, 0)));
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &cast);
  return mlirLogicalResultSuccess();
}

// AllocateGlobal: a slice of the workspace, whose pointer is the kernel's
// last parameter and whose offset the kernel conversion planned.
static MlirLogicalResult lowerAllocateGlobal(TilusLowering *L, MlirOperation op,
                                             MlirRewriterBase rewriter) {
  if (mlirLogicalResultIsFailure(checkRowMajor(L, op)))
    return mlirLogicalResultFailure();
  MlirAttribute offset = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(TILUS_WORKSPACE_OFFSET_ATTR));
  // The kernel conversion plans every offset before the ops are lowered.
  if (mlirAttributeIsNull(offset))
    return tilusLoweringError(op, "the tensor has no workspace offset ("
                                  TILUS_WORKSPACE_OFFSET_ATTR ")");
  MlirOperation func = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(func) &&
         mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
             func, mlirStringRefCreateFromCString(TILUS_WORKSPACE_BYTES_ATTR))))
    func = mlirOperationGetParentOperation(func);
  if (mlirOperationIsNull(func))
    return tilusLoweringError(op, "AllocateGlobal outside a lowered kernel");
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirValue workspace =
      mlirBlockGetArgument(entry, mlirBlockGetNumArguments(entry) - 1);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue ptr = tilusEmitElementPointer(
      &e, workspace, mlirIntegerTypeGet(e.ctx, 8),
      tilusEmitIndex(&e, mlirIntegerAttrGetValueInt(offset)));
  MlirValue cast = tilusEmitCast(
      &e, 1, &ptr, mlirValueGetType(mlirOperationGetResult(op, 0)));
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &cast);
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// The access plan shared by loads and stores
//===----------------------------------------------------------------------===//

typedef struct {
  TilusLowering *lowering;
  TilusGlobalView view;
  TilusTensorType tile;
  intptr_t lead;                  // memory dims before the tile's
  MlirValue base[MAX_RANK];       // memory index of the thread's element 0
  MlirValue strides[MAX_RANK];    // row-major strides, in elements
  MlirValue baseLinear;           // sum of base * strides
  int64_t vectorWidth;            // elements per access
  MlirType storage;               // the element type as accessed
  int64_t elementBytes;           // 0 for sub-byte elements
  int64_t bits;                   // bits per element
  MlirValue fill;                 // loads: the value of masked elements
  int64_t maxAccessBytes;         // 16, or 4/elementBytes for atomic adds
  bool atomicAdd;                 // stores: AtomicAddGlobal
} AccessPlan;

static bool lastDimIsMultipleOf(const AccessPlan *p, int64_t v) {
  intptr_t last = p->view.rank - 1;
  return p->view.staticSizes[last] != TILUS_DYNAMIC_DIM
             ? p->view.staticSizes[last] % v == 0
             : tilusLoweringIsMultipleOf(p->lowering, p->view.sizes[last], v);
}

// Largest power of two v <= limit such that groups of v local slots are
// provably contiguous and v-aligned in memory. Rows of a tensor of rank > 1
// keep the alignment only if the last dimension is a multiple of v.
static int64_t chooseVectorWidth(const AccessPlan *p, MlirValue lastOffset,
                                 int64_t threadStrideLast) {
  int64_t limit = tilusLayoutGetContiguity(p->tile.layout);
  int64_t maxByBytes = p->maxAccessBytes / p->elementBytes;
  if (maxByBytes < limit)
    limit = maxByBytes;
  for (int64_t v = limit; v > 1; v /= 2) {
    bool ok = tilusLoweringIsMultipleOf(p->lowering, lastOffset, v) && threadStrideLast % v == 0;
    if (ok && p->view.rank > 1)
      ok = lastDimIsMultipleOf(p, v);
    if (ok)
      return v;
  }
  return 1;
}

// `maxAccessBytes` bounds one access (16: ld/st.global.v4.b32).
// Why chooseVectorWidth chose `v` elements, fewer than 16 bytes per access:
// the first limit among the element width, the thread's element count, the
// layout's contiguity and the alignment facts, in `why`.
static void explainNarrowAccess(const AccessPlan *p, MlirValue lastOffset,
                                int64_t threadStrideLast, int64_t v, char *why,
                                size_t size) {
  int64_t bytes = p->elementBytes;
  if (!bytes) {
    snprintf(why, size, "its %lld-bit elements are accessed one by one",
             (long long)p->bits);
    return;
  }
  int64_t m = tilusLayoutGetLocalSize(p->tile.layout);
  int64_t runs = tilusLayoutGetContiguity(p->tile.layout);
  int64_t want = 16 / bytes;
  if (v == runs && runs < want) {
    if (runs >= m)
      snprintf(why, size, "each thread holds only %lld element%s (%lld bytes)",
               (long long)m, m == 1 ? "" : "s", (long long)(m * bytes));
    else
      snprintf(why, size,
               "the layout gives each thread runs of %lld contiguous "
               "element%s along the last dimension (%lld byte%s)",
               (long long)runs, runs == 1 ? "" : "s", (long long)(runs * bytes),
               runs * bytes == 1 ? "" : "s");
    return;
  }
  // A wider access failed one of chooseVectorWidth's alignment checks.
  int64_t w = 2 * v;
  if (!tilusLoweringIsMultipleOf(p->lowering, lastOffset, w))
    snprintf(why, size,
             "the offset in the last dimension is not provably a multiple "
             "of %lld elements",
             (long long)w);
  else if (threadStrideLast % w)
    snprintf(why, size,
             "the threads' stride along the last dimension (%lld elements) "
             "is not a multiple of %lld",
             (long long)threadStrideLast, (long long)w);
  else
    snprintf(why, size,
             "the length of the last dimension is not provably a multiple of "
             "%lld elements, so rows may start misaligned",
             (long long)w);
}

static bool planAccess(TilusEmitter *e, MlirOperation op, MlirValue global,
                       MlirType tileType, intptr_t offsetsStart,
                       int64_t maxAccessBytes, AccessPlan *p) {
  // Decide first: the tile's type and a register layout without swizzle.
  p->lowering = e->lowering;
  p->maxAccessBytes = maxAccessBytes;
  p->atomicAdd = false;
  if (mlirLogicalResultIsFailure(tilusLoweringDecode(e->lowering, tileType, &p->tile)))
    return false;
  intptr_t numModes;
  TilusLayoutThreadMode *modes = tilusGetThreadModes(p->tile.layout, &numModes);
  if (!modes) {
    tilusLoweringError(op, "register layouts with a swizzle are not supported");
    return false;
  }
  if (!tilusGetGlobalView(e, global, &p->view)) {
    free(modes);
    return false;
  }
  int64_t bits = tilusElementTypeGetBitWidth(p->view.elementType);
  p->bits = bits;
  p->elementBytes = bits % 8 ? 0 : bits / 8;
  p->storage = tilusStorageElementType(e->ctx, p->view.elementType);
  intptr_t R = p->view.rank, r = p->tile.rank;
  p->lead = R - r;

  MlirValue tid = tilusEmitThreadIndex(e);
  MlirValue coords[MAX_RANK];
  tilusEmitThreadCoords(e, p->tile.layout, tid, coords);
  for (intptr_t d = 0; d < R; ++d) {
    MlirValue offset = mlirOperationGetOperand(op, offsetsStart + d);
    p->base[d] = d < p->lead ? offset
                             : tilusEmitAddIndex(e, offset, coords[d - p->lead]);
  }
  p->strides[R - 1] = tilusEmitIndex(e, 1);
  for (intptr_t d = R - 2; d >= 0; --d) {
    int64_t c;
    p->strides[d] = tilusValueGetConstantInt(p->view.sizes[d + 1], &c)
                        ? tilusEmitMulIndexConst(e, p->strides[d + 1], c)
                        : tilusEmitArith(e, "muli", p->strides[d + 1],
                                         p->view.sizes[d + 1]);
  }
  p->baseLinear = tilusEmitIndex(e, 0);
  for (intptr_t d = 0; d < R; ++d) {
    int64_t c;
    MlirValue term = tilusValueGetConstantInt(p->strides[d], &c)
                         ? tilusEmitMulIndexConst(e, p->base[d], c)
                         : tilusEmitArith(e, "muli", p->base[d], p->strides[d]);
    p->baseLinear = tilusEmitAddIndex(e, p->baseLinear, term);
  }

  // The thread part along the last dimension must keep vector alignment.
  int64_t threadStrideLast = 0;
  for (intptr_t k = 0; k < numModes; ++k)
    if (modes[k].dim == r - 1)
      threadStrideLast = threadStrideLast == 0
                             ? modes[k].stride
                             : (modes[k].stride < threadStrideLast
                                    ? modes[k].stride
                                    : threadStrideLast);
  free(modes);
  if (threadStrideLast == 0)
    threadStrideLast = 1 << 30; // no thread digit on the last dimension
  p->vectorWidth =
      p->elementBytes == 0
          ? 1 // sub-byte elements are extracted one by one
          : chooseVectorWidth(p, mlirOperationGetOperand(op, offsetsStart + R - 1),
                              threadStrideLast);
  // Masking: a vector group that may straddle the run-time edge is checked
  // whole and, where it does, accessed one element at a time.
  if (maxAccessBytes == 16 && tilusLoweringRemarksOn(e->lowering) &&
      p->vectorWidth > 1 && !lastDimIsMultipleOf(p, p->vectorWidth)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    tilusLoweringRemark(e->lowering, op,
                        "'%.*s' accesses one element at a time where a group "
                        "of %lld may straddle the tensor's edge: its length "
                        "is not provably a multiple of %lld",
                        (int)name.length, name.data,
                        (long long)p->vectorWidth, (long long)p->vectorWidth);
  }
  // Atomic adds are narrow by nature (at most a 4-byte pair): no remark.
  if (maxAccessBytes == 16 && tilusLoweringRemarksOn(e->lowering) &&
      p->vectorWidth * p->elementBytes < 16) {
    char why[256];
    explainNarrowAccess(p, mlirOperationGetOperand(op, offsetsStart + R - 1),
                        threadStrideLast, p->vectorWidth, why, sizeof(why));
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    char width[48];
    int64_t bytes = p->vectorWidth * p->elementBytes;
    if (p->elementBytes)
      snprintf(width, sizeof(width), "%lld byte%s", (long long)bytes,
               bytes == 1 ? "" : "s");
    else
      snprintf(width, sizeof(width), "one %lld-bit element",
               (long long)p->bits);
    tilusLoweringRemark(e->lowering, op,
                        "'%.*s' accesses %s per thread at a time, not 16 "
                        "bytes: %s",
                        (int)name.length, name.data, width, why);
  }
  return true;
}

// The linear index and the in-bounds predicate of local slot `i`.
static void elementAddress(TilusEmitter *e, const AccessPlan *p, int64_t i,
                           MlirValue *linear, MlirValue *inBounds) {
  int64_t local[MAX_RANK];
  tilusLayoutEvaluate(p->tile.layout, 0, i, local);
  *linear = p->baseLinear;
  *inBounds = (MlirValue){NULL};
  for (intptr_t d = 0; d < p->view.rank; ++d) {
    int64_t delta = d < p->lead ? 0 : local[d - p->lead];
    MlirValue index = tilusEmitAddIndexConst(e, p->base[d], delta);
    int64_t stride;
    if (delta != 0) {
      MlirValue term = tilusValueGetConstantInt(p->strides[d], &stride)
                           ? tilusEmitIndex(e, delta * stride)
                           : tilusEmitMulIndexConst(e, p->strides[d], delta);
      *linear = tilusEmitAddIndex(e, *linear, term);
    }
    MlirValue check = tilusEmitCmp(e, TilusCmpULT, index, p->view.sizes[d]);
    *inBounds = mlirValueIsNull(*inBounds)
                    ? check
                    : tilusEmitArith(e, "andi", *inBounds, check);
  }
}

static MlirValue elementPointer(TilusEmitter *e, const AccessPlan *p,
                                MlirValue linear) {
  return tilusEmitElementPointer(e, p->view.ptr, p->storage, linear);
}

static MlirNamedAttribute alignmentAttr(TilusEmitter *e, const AccessPlan *p,
                                        int64_t elements) {
  return tilusNamedAttr(e->ctx, "alignment",
                        mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64),
                                           elements * p->elementBytes));
}

// One unmasked access of n elements at `linear`.
static MlirValue emitLoad(TilusEmitter *e, const AccessPlan *p,
                          MlirValue linear, int64_t n) {
  MlirValue ptr = elementPointer(e, p, linear);
  MlirNamedAttribute align = alignmentAttr(e, p, n);
  return tilusEmitValue(e, "llvm.load", 1, &ptr,
                        tilusVectorOrScalarType(p->storage, n), 1, &align);
}

// AtomicAddGlobal: n is 1 (llvm.atomicrmw add/fadd) or 2 (a packed 16-bit
// float pair, when the target has the instruction).
static void emitAtomicAdd(TilusEmitter *e, const AccessPlan *p, MlirValue value,
                          MlirValue linear, int64_t n) {
  MlirValue ptr = elementPointer(e, p, linear);
  if (n == 2) {
    tilusEmitPackedHalfAtomicAdd(e, ptr, value, mlirTypeIsABF16(p->storage));
    return;
  }
  tilusEmitAtomicRMW(
      e, mlirTypeIsAFloat(p->storage) ? TilusAtomicFAdd : TilusAtomicAdd, ptr,
      value, TilusAtomicOrderingMonotonic);
}

static void emitStore(TilusEmitter *e, const AccessPlan *p, MlirValue value,
                      MlirValue linear, int64_t n) {
  if (p->atomicAdd) {
    emitAtomicAdd(e, p, value, linear, n);
    return;
  }
  if (!p->elementBytes) {
    tilusEmitSubByteStore(e, p->view.ptr, p->bits, linear, value);
    return;
  }
  MlirValue operands[2] = {value, elementPointer(e, p, linear)};
  MlirNamedAttribute align = alignmentAttr(e, p, n);
  tilusEmitOp(e, "llvm.store", 2, operands, 0, NULL, 1, &align);
}

// Loads local slots [i, i + n) as one access of n elements, or the fill
// value where masked: `inBounds` says whether the whole group is inside.
static MlirValue emitMaskedLoad(TilusEmitter *e, const AccessPlan *p,
                                MlirValue linear, MlirValue inBounds,
                                int64_t n) {
  MlirType type = tilusVectorOrScalarType(p->storage, n);
  MlirBlock thenBlock, elseBlock;
  MlirOperation ifOp = tilusEmitIf(e, inBounds, 1, &type, &thenBlock, &elseBlock);
  tilusEmitterSetToEnd(e, thenBlock);
  MlirValue loaded =
      p->elementBytes ? emitLoad(e, p, linear, n)
                     : tilusEmitSubByteLoad(e, p->view.ptr, p->bits, linear);
  tilusEmitYield(e, 1, &loaded);
  tilusEmitterSetToEnd(e, elseBlock);
  MlirValue fill = n == 1 ? p->fill
                          : tilusEmitValue(e, "vector.broadcast", 1, &p->fill,
                                           type, 0, NULL);
  tilusEmitYield(e, 1, &fill);
  tilusEmitterSetAfter(e, ifOp);
  return mlirOperationGetResult(ifOp, 0);
}

// Loads the group of vectorWidth slots starting at i. When the last
// dimension is not known to be a multiple of the width, a group may straddle
// the edge: it is loaded whole when it is inside, element by element when not.
static MlirValue emitLoadGroup(TilusEmitter *e, const AccessPlan *p,
                               int64_t i) {
  int64_t v = p->vectorWidth;
  MlirValue linear, first;
  elementAddress(e, p, i, &linear, &first);
  if (v == 1 || lastDimIsMultipleOf(p, v))
    return emitMaskedLoad(e, p, linear, first, v);
  MlirValue lastLinear, last;
  elementAddress(e, p, i + v - 1, &lastLinear, &last);
  MlirValue whole = tilusEmitArith(e, "andi", first, last);
  MlirType type = tilusVectorOrScalarType(p->storage, v);
  MlirBlock thenBlock, elseBlock;
  MlirOperation ifOp = tilusEmitIf(e, whole, 1, &type, &thenBlock, &elseBlock);
  tilusEmitterSetToEnd(e, thenBlock);
  MlirValue loaded = emitLoad(e, p, linear, v);
  tilusEmitYield(e, 1, &loaded);
  tilusEmitterSetToEnd(e, elseBlock);
  MlirValue partial = tilusEmitSplatConstant(e, type, 0);
  for (int64_t k = 0; k < v; ++k) {
    MlirValue kLinear, kIn;
    elementAddress(e, p, i + k, &kLinear, &kIn);
    partial = tilusEmitInsert(e, partial, emitMaskedLoad(e, p, kLinear, kIn, 1), k);
  }
  tilusEmitYield(e, 1, &partial);
  tilusEmitterSetAfter(e, ifOp);
  return mlirOperationGetResult(ifOp, 0);
}

static void emitMaskedStore(TilusEmitter *e, const AccessPlan *p,
                            MlirValue value, MlirValue linear,
                            MlirValue inBounds, int64_t n) {
  MlirBlock thenBlock;
  MlirOperation ifOp = tilusEmitIf(e, inBounds, 0, NULL, &thenBlock, NULL);
  tilusEmitterSetToEnd(e, thenBlock);
  emitStore(e, p, value, linear, n);
  tilusEmitYield(e, 0, NULL);
  tilusEmitterSetAfter(e, ifOp);
}

// Stores `part` (vectorWidth elements from slot i on), the mirror of
// emitLoadGroup.
static void emitStoreGroup(TilusEmitter *e, const AccessPlan *p, int64_t i,
                           MlirValue part) {
  int64_t v = p->vectorWidth;
  MlirValue linear, first;
  elementAddress(e, p, i, &linear, &first);
  if (v == 1 || lastDimIsMultipleOf(p, v)) {
    emitMaskedStore(e, p, part, linear, first, v);
    return;
  }
  MlirValue lastLinear, last;
  elementAddress(e, p, i + v - 1, &lastLinear, &last);
  MlirValue whole = tilusEmitArith(e, "andi", first, last);
  MlirBlock thenBlock, elseBlock;
  MlirOperation ifOp = tilusEmitIf(e, whole, 0, NULL, &thenBlock, &elseBlock);
  tilusEmitterSetToEnd(e, thenBlock);
  emitStore(e, p, part, linear, v);
  tilusEmitYield(e, 0, NULL);
  tilusEmitterSetToEnd(e, elseBlock);
  for (int64_t k = 0; k < v; ++k) {
    MlirValue kLinear, kIn;
    elementAddress(e, p, i + k, &kLinear, &kIn);
    emitMaskedStore(e, p, tilusEmitExtract(e, part, k), kLinear, kIn, 1);
  }
  tilusEmitYield(e, 0, NULL);
  tilusEmitterSetAfter(e, ifOp);
}

static MlirLogicalResult lowerLoadGlobal(TilusLowering *L, MlirOperation op,
                                         MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue global = tilusOpGetGroupOperand(op, TilusLoadGlobalSrc, 0);
  AccessPlan p;
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (!planAccess(&e, op, global, resultType,
                  tilusOperandGroupStart(op, TilusLoadGlobalOffsets), 16, &p))
    return mlirLogicalResultFailure();
  MlirValue fill = tilusOpGetGroupOperand(op, TilusLoadGlobalFill, 0);
  // Or the `fill_value` attribute: a constant of any element type.
  MlirAttribute fillAttr = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("fill_value"));
  TilusElementConstant fillConstant;
  if (mlirValueIsNull(fill) && !mlirAttributeIsNull(fillAttr)) {
    if (!tilusElementConstantGet(p.tile.elementType, fillAttr, &fillConstant,
                                 NULL, 0))
      return tilusLoweringError(op, "the 'fill_value' attribute does not fit "
                                    "the element type (run tilus-verify)");
    fill = tilusEmitElementConstant(&e, p.storage, &fillConstant);
  }
  p.fill = !mlirValueIsNull(fill) ? fill
                                  : tilusEmitSplatConstant(&e, p.storage, 0);
  int64_t m = tilusLayoutGetLocalSize(p.tile.layout);
  MlirValue result =
      tilusEmitSplatConstant(&e, tilusRegisterStorageType(e.ctx, &p.tile), 0);
  for (int64_t i = 0; i < m; i += p.vectorWidth) {
    MlirValue value = emitLoadGroup(&e, &p, i);
    for (int64_t k = 0; k < p.vectorWidth; ++k) {
      MlirValue element =
          p.vectorWidth == 1 ? value : tilusEmitExtract(&e, value, k);
      result = tilusEmitInsert(&e, result, element, i + k);
    }
  }
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

// StoreGlobal, and AtomicAddGlobal (`atomicAdd`): the same plan, each
// access an atomic add of at most one packed pair of 16-bit floats (where
// the target has it) or one element.
static MlirLogicalResult lowerStore(TilusLowering *L, MlirOperation op,
                                    MlirRewriterBase rewriter, bool atomicAdd) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue value = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusStoreValue, 0));
  MlirValue global = tilusOpGetGroupOperand(op, TilusStoreDst, 0);
  if (mlirValueIsNull(value))
    return mlirLogicalResultFailure();
  MlirType tileType =
      mlirValueGetType(tilusOpGetGroupOperand(op, TilusStoreValue, 0));
  int64_t maxBytes = 16;
  if (atomicAdd) {
    const TilusTensorType *tile = tilusLoweringTensorType(L, tileType);
    if (!tile)
      return mlirLogicalResultFailure();
    MlirType dtype = tile->elementType;
    bool packed = (mlirTypeIsAF16(dtype) && L->target->hasAtomicAddF16x2) ||
                  (mlirTypeIsABF16(dtype) && L->target->hasAtomicAddBf16x2);
    maxBytes = packed ? 4 : tilusElementTypeGetBitWidth(dtype) / 8;
  }
  AccessPlan p;
  if (!planAccess(&e, op, global, tileType,
                  tilusOperandGroupStart(op, TilusStoreOffsets), maxBytes, &p))
    return mlirLogicalResultFailure();
  p.atomicAdd = atomicAdd;
  int64_t m = tilusLayoutGetLocalSize(p.tile.layout);
  MlirType accessType = tilusVectorOrScalarType(p.storage, p.vectorWidth);
  if (!p.elementBytes) // sub-byte elements are stored one by one, from i32
    value = tilusEmitWidenSubByte(&e, value, true);
  for (int64_t i = 0; i < m; i += p.vectorWidth) {
    MlirValue part;
    if (p.vectorWidth == 1) {
      part = tilusEmitExtract(&e, value, i);
    } else {
      part = tilusEmitSplatConstant(&e, accessType, 0);
      for (int64_t k = 0; k < p.vectorWidth; ++k)
        part = tilusEmitInsert(&e, part, tilusEmitExtract(&e, value, i + k), k);
    }
    emitStoreGroup(&e, &p, i, part);
  }
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerStoreGlobal(TilusLowering *L, MlirOperation op,
                                          MlirRewriterBase rewriter) {
  return lowerStore(L, op, rewriter, false);
}

static MlirLogicalResult lowerAtomicAddGlobal(TilusLowering *L,
                                              MlirOperation op,
                                              MlirRewriterBase rewriter) {
  return lowerStore(L, op, rewriter, true);
}

static const TilusPattern kPatterns[] = {
    {"tilus.view_global", lowerViewGlobal},
    {"tilus.allocate_global", lowerAllocateGlobal},
    {"tilus.load_global", lowerLoadGlobal},
    {"tilus.store_global", lowerStoreGlobal},
    {"tilus.atomic_add_global", lowerAtomicAddGlobal},
};

const TilusPattern *tilusGetGlobalMemoryPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
