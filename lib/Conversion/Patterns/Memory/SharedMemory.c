//===- SharedMemory.c - Shared tensors and asynchronous copies ------------===//
//
// A shared tensor lowers to an !llvm.ptr<3>: the block's dynamic shared
// buffer plus the byte offset tilus-plan-shared gave it. Its layout f has
// one thread, and f(0, i) is the logical index stored at address i; an
// access needs the other direction, so the address of an index is computed
// by inverting f factor by factor (emitSharedAddress): row- or column-major
// linearization for local factors, and for a swizzle the same XOR again
// (it is its own inverse) before inverting the swizzled layout.
//
//   LoadShared / StoreShared: groups of v slots that are contiguous in the
//     register layout and in shared memory (checked over the whole shared
//     layout at compile time) become one v-wide ld/st.shared of up to 16
//     bytes; LoadShared takes ldmatrix, and StoreShared stmatrix on sm_90,
//     where the register layout is made of mma fragments (MatrixAccess.c);
//     sub-byte elements go one by one (SubByte.c).
//   CopyAsync: the region is cut into chunks of v contiguous elements (16,
//     8 or 4 bytes, contiguous in both tensors), dealt to the threads round
//     robin; each chunk is one cp.async (.cg for 16 bytes). Chunks start at
//     multiples of their size in rows whose length is a multiple of it, so
//     each lies wholly inside or outside the tensor: src-size 0 zero-fills
//     those outside.
//     Where no such chunk is provably aligned (say, a row length known only
//     at run time), elements are copied one by one with ordinary loads and
//     stores, zero past the edge: complete before any wait.
//   CopyAsyncCommitGroup / CopyAsyncWaitGroup: cp.async.commit_group /
//     cp.async.wait_group n. Synchronization stays the program's.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "tilus-c/Kernel.h"
#include "Utils/Checked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK TILUS_LAYOUT_MAX_RANK

//===----------------------------------------------------------------------===//
// AllocateShared
//===----------------------------------------------------------------------===//

static void noteWgmmaUse(MlirOpOperand use, void *userData) {
  *(bool *)userData |= tilusOpIs(mlirOpOperandGetOwner(use), "tilus.wgmma_mma");
}

// TransposeShared: a view of the same memory (its layout says where).
static MlirLogicalResult lowerTransposeShared(TilusLowering *L, MlirOperation op,
                                             MlirRewriterBase rewriter) {
  MlirValue base = tilusLoweredRegister(mlirOperationGetOperand(op, 0));
  if (mlirValueIsNull(base))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  tilusReplaceWithLowered(rewriter, &e, op, base);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerAllocateShared(TilusLowering *L, MlirOperation op,
                                             MlirRewriterBase rewriter) {
  int64_t offset;
  if (!tilusOpGetIntAttr(op, TILUS_SHARED_OFFSET_ATTR, &offset))
    return tilusLoweringError(op, "the shared tensor has no offset; run "
                                  "--tilus-plan-shared first (--lower-to-nvvm "
                                  "does)");
  // The attributes may be written by hand: the tensor must lie, aligned,
  // inside the kernel's dynamic shared memory.
  const TilusTensorType *t = tilusLoweringTensorType(
      L, mlirValueGetType(mlirOperationGetResult(op, 0)));
  int64_t kernelBytes = -1, end = 0;
  MlirOperation func = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(func) &&
         !tilusOpGetIntAttr(func, TILUS_SHARED_BYTES_ATTR, &kernelBytes))
    func = mlirOperationGetParentOperation(func);
  bool inside =
      t && offset >= 0 && offset % TILUS_SHARED_ALIGNMENT == 0 &&
      tilusCheckedAdd(offset, tilusTensorTypeGetLocalBytes(t), &end) &&
      end <= kernelBytes;
  if (kernelBytes < 0)
    return tilusLoweringError(op, "the kernel has no " TILUS_SHARED_BYTES_ATTR
                                  "; run --tilus-plan-shared first "
                                  "(--lower-to-nvvm does)");
  if (!inside) {
    char message[256];
    snprintf(message, sizeof(message),
             "the shared tensor's offset (" TILUS_SHARED_OFFSET_ATTR
             " = %lld) must be a multiple of %d with the tensor inside the "
             "kernel's %lld bytes of shared memory (" TILUS_SHARED_BYTES_ATTR
             ")",
             (long long)offset, TILUS_SHARED_ALIGNMENT, (long long)kernelBytes);
    return tilusLoweringError(op, message);
  }
  // wgmma applies its swizzle to shared-window addresses: a tensor it reads
  // starts on a boundary of TILUS_WGMMA_SHARED_ALIGNMENT bytes (the swizzle's
  // period), and so does the dynamic buffer.
  bool wgmma = false;
  tilusSharedTensorWalkUses(mlirOperationGetResult(op, 0), noteWgmmaUse, &wgmma);
  if (wgmma && offset % TILUS_WGMMA_SHARED_ALIGNMENT) {
    char message[160];
    snprintf(message, sizeof(message),
             "wgmma_mma reads this shared tensor: its offset "
             "(" TILUS_SHARED_OFFSET_ATTR " = %lld) must be a multiple of %d",
             (long long)offset, TILUS_WGMMA_SHARED_ALIGNMENT);
    return tilusLoweringError(op, message);
  }
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue base =
      tilusEmitSharedArray(&e, op, TILUS_DYNAMIC_SHARED_NAME, 0, true);
  if (mlirValueIsNull(base) ||
      (wgmma && !tilusRaiseSharedAlignment(&e, op, TILUS_WGMMA_SHARED_ALIGNMENT)))
    return mlirLogicalResultFailure();
  MlirValue ptr = tilusEmitElementPointer(&e, base, mlirIntegerTypeGet(e.ctx, 8),
                                          tilusEmitIndex(&e, offset));
  tilusReplaceWithLowered(rewriter, &e, op, ptr);
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// LoadShared / StoreShared
//===----------------------------------------------------------------------===//

typedef struct {
  MlirValue base; // !llvm.ptr<3>
  TilusTensorType shared, tile;
  MlirType storage;
  int64_t bits, elementBytes;
  intptr_t lead;                // shared dims before the tile's
  MlirValue origin[MAX_RANK];   // offsets + the thread's coordinates
  int64_t vectorWidth;
} SharedAccess;

static bool planSharedAccess(TilusEmitter *e, MlirOperation op, MlirValue shared,
                             MlirType tileType, intptr_t offsetsStart,
                             SharedAccess *a) {
  a->base = tilusLoweredRegister(shared);
  if (mlirValueIsNull(a->base))
    return false;
  if (mlirLogicalResultIsFailure(
          tilusLoweringDecode(e->lowering, mlirValueGetType(shared), &a->shared)))
    return false;
  if (mlirLogicalResultIsFailure(tilusLoweringDecode(e->lowering, tileType, &a->tile))) {
    return false;
  }
  a->bits = tilusElementTypeGetBitWidth(a->shared.elementType);
  a->elementBytes = a->bits % 8 ? 0 : a->bits / 8;
  a->storage = tilusStorageElementType(e->ctx, a->shared.elementType);
  intptr_t R = a->shared.rank, r = a->tile.rank;
  a->lead = R - r;
  intptr_t numModes;
  TilusLayoutThreadMode *modes = tilusGetThreadModes(a->tile.layout, &numModes);
  if (!modes) {
    tilusLoweringError(op, "register layouts with a swizzle are not supported");
    return false;
  }
  MlirValue coords[MAX_RANK];
  tilusEmitThreadCoords(e, a->tile.layout, tilusEmitThreadIndex(e), coords);
  for (intptr_t d = 0; d < R; ++d) {
    MlirValue offset = mlirOperationGetOperand(op, offsetsStart + d);
    a->origin[d] =
        d < a->lead ? offset : tilusEmitAddIndex(e, offset, coords[d - a->lead]);
  }

  // The widest v: contiguous slots in the register layout, thread digits
  // and the tile's offset along the last dimension multiples of v, and
  // aligned runs of v in the shared layout.
  a->vectorWidth = 1;
  if (!a->elementBytes) {
    free(modes);
    return true;
  }
  int64_t limit = tilusLayoutGetContiguity(a->tile.layout);
  if (16 / a->elementBytes < limit)
    limit = 16 / a->elementBytes;
  MlirValue lastOffset = mlirOperationGetOperand(op, offsetsStart + R - 1);
  for (int64_t v = limit; v > 1; v /= 2) {
    bool ok = tilusLoweringIsMultipleOf(e->lowering, lastOffset, v) &&
              tilusLayoutRunsAreContiguous(a->shared.layout, v);
    for (intptr_t k = 0; ok && k < numModes; ++k)
      if (modes[k].dim == r - 1 && modes[k].stride % v)
        ok = false;
    if (ok) {
      a->vectorWidth = v;
      break;
    }
  }
  free(modes);
  return true;
}

// The element pointer of local slot i.
static MlirValue slotAddress(TilusEmitter *e, const SharedAccess *a, int64_t i) {
  int64_t local[MAX_RANK];
  tilusLayoutEvaluate(a->tile.layout, 0, i, local);
  MlirValue coords[MAX_RANK];
  for (intptr_t d = 0; d < a->shared.rank; ++d)
    coords[d] = d < a->lead
                    ? a->origin[d]
                    : tilusEmitAddIndexConst(e, a->origin[d], local[d - a->lead]);
  return tilusEmitSharedAddress(e, a->shared.layout, coords);
}

static MlirNamedAttribute alignment(TilusEmitter *e, int64_t bytes) {
  return tilusNamedAttr(e->ctx, "alignment",
                        mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), bytes));
}

static MlirLogicalResult lowerLoadShared(TilusLowering *L, MlirOperation op,
                                         MlirRewriterBase rewriter) {
  MlirValue shared = tilusOpGetGroupOperand(op, TilusLoadSharedSrc, 0);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirValue fast = tilusEmitMatrixLoad(&e, op, shared, resultType);
  if (!mlirValueIsNull(fast)) {
    tilusReplaceWithLowered(rewriter, &e, op, fast);
    return mlirLogicalResultSuccess();
  }
  SharedAccess a;
  if (!planSharedAccess(&e, op, shared, resultType,
                        tilusOperandGroupStart(op, TilusLoadSharedOffsets), &a))
    return mlirLogicalResultFailure();
  int64_t m = tilusLayoutGetLocalSize(a.tile.layout), v = a.vectorWidth;
  MlirValue result =
      tilusEmitSplatConstant(&e, tilusRegisterStorageType(e.ctx, &a.tile), 0);
  for (int64_t i = 0; i < m; i += v) {
    MlirValue address = slotAddress(&e, &a, i);
    if (!a.elementBytes) {
      result = tilusEmitInsert(
          &e, result, tilusEmitSubByteLoad(&e, a.base, a.bits, address), i);
      continue;
    }
    MlirValue ptr = tilusEmitElementPointer(&e, a.base, a.storage, address);
    MlirNamedAttribute align = alignment(&e, v * a.elementBytes);
    MlirValue loaded = tilusEmitValue(&e, "llvm.load", 1, &ptr,
                                      tilusVectorOrScalarType(a.storage, v), 1,
                                      &align);
    for (int64_t k = 0; k < v; ++k)
      result = tilusEmitInsert(&e, result,
                               v == 1 ? loaded : tilusEmitExtract(&e, loaded, k),
                               i + k);
  }
    tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerStoreShared(TilusLowering *L, MlirOperation op,
                                          MlirRewriterBase rewriter) {
  MlirValue value = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusStoreValue, 0));
  MlirValue shared = tilusOpGetGroupOperand(op, TilusStoreDst, 0);
  if (mlirValueIsNull(value))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  if (tilusEmitMatrixStore(&e, op, shared, value)) {
    mlirRewriterBaseEraseOp(rewriter, op);
    return mlirLogicalResultSuccess();
  }
  SharedAccess a;
  if (!planSharedAccess(&e, op, shared,
                        mlirValueGetType(tilusOpGetGroupOperand(op, TilusStoreValue, 0)),
                        tilusOperandGroupStart(op, TilusStoreOffsets), &a))
    return mlirLogicalResultFailure();
  int64_t m = tilusLayoutGetLocalSize(a.tile.layout), v = a.vectorWidth;
  if (!a.elementBytes)
    value = tilusEmitWidenSubByte(&e, value, true);
  for (int64_t i = 0; i < m; i += v) {
    MlirValue address = slotAddress(&e, &a, i);
    if (!a.elementBytes) {
      tilusEmitSubByteStore(&e, a.base, a.bits, address,
                            tilusEmitExtract(&e, value, i));
      continue;
    }
    MlirValue part;
    if (v == 1) {
      part = tilusEmitExtract(&e, value, i);
    } else {
      part = tilusEmitSplatConstant(&e, tilusVectorOrScalarType(a.storage, v), 0);
      for (int64_t k = 0; k < v; ++k)
        part = tilusEmitInsert(&e, part, tilusEmitExtract(&e, value, i + k), k);
    }
    MlirValue operands[2] = {part,
                             tilusEmitElementPointer(&e, a.base, a.storage, address)};
    MlirNamedAttribute align = alignment(&e, v * a.elementBytes);
    tilusEmitOp(&e, "llvm.store", 2, operands, 0, NULL, 1, &align);
  }
    mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// CopyAsync
//===----------------------------------------------------------------------===//



// Why chunks of w elements along the last dimension are not provably
// contiguous and aligned in both tensors of a copy_async (`lastExtent` the
// copied rows' length, srcLast and dstLast the offsets in the last
// dimensions); NULL when they are.
static const char *chunkMisfit(TilusLowering *L, const TilusGlobalView *g,
                               const TilusTensorType *s, int64_t lastExtent,
                               MlirValue srcLast, MlirValue dstLast, int64_t w) {
  intptr_t last = g->rank - 1;
  bool globalRows = g->rank == 1 ||
                    (g->staticSizes[last] != TILUS_DYNAMIC_DIM
                         ? g->staticSizes[last] % w == 0
                         : tilusLoweringIsMultipleOf(L, g->sizes[last], w));
  if (lastExtent % w)
    return "the copied rows are shorter than that";
  if (!globalRows)
    return "the global tensor's row length is not provably a multiple of it, "
           "so rows may start misaligned";
  if (!tilusLoweringIsMultipleOf(L, srcLast, w))
    return "the global offset in the last dimension is not provably a "
           "multiple of it";
  if (!tilusLoweringIsMultipleOf(L, dstLast, w))
    return "the shared offset in the last dimension is not provably a "
           "multiple of it";
  if (!tilusLayoutRunsAreContiguous(s->layout, w))
    return "the shared layout's runs along the last dimension are shorter";
  return NULL;
}

static MlirLogicalResult lowerCopyAsync(TilusLowering *L, MlirOperation op,
                                        MlirRewriterBase rewriter) {
  MlirValue sharedValue = tilusOpGetGroupOperand(op, TilusCopyAsyncDst, 0);
  MlirValue globalValue = tilusOpGetGroupOperand(op, TilusCopyAsyncSrc, 0);
  MlirValue shared = tilusLoweredRegister(sharedValue);
  if (mlirValueIsNull(shared))
    return mlirLogicalResultFailure();
  TilusTensorType s;
  if (mlirLogicalResultIsFailure(
          tilusLoweringDecode(L, mlirValueGetType(sharedValue), &s)))
    return mlirLogicalResultFailure();
  int64_t bits = tilusElementTypeGetBitWidth(s.elementType);
  MlirAttribute shapeAttr = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("shape"));
  if (mlirAttributeIsNull(shapeAttr))
    shapeAttr = mlirOperationGetDiscardableAttributeByName(
        op, mlirStringRefCreateFromCString("shape"));
  intptr_t r = mlirDenseArrayGetNumElements(shapeAttr);
  int64_t region[MAX_RANK], numel = 1;
  for (intptr_t d = 0; d < r; ++d) {
    region[d] = mlirDenseI64ArrayGetElement(shapeAttr, d);
    numel *= region[d];
  }
  int64_t T = tilusOpGetThreadCount(op); // the block's, or its thread group's
  if (bits % 8 || T <= 0) {
    return tilusLoweringError(op, bits % 8 ? "copy_async of sub-byte element "
                                             "types is not lowered; view the "
                                             "tensors as bytes (ui8/ui32)"
                                           : "no block size around the op");
  }
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  TilusGlobalView g;
  if (!tilusGetGlobalView(&e, globalValue, &g))
    return mlirLogicalResultFailure();
  int64_t bytes = bits / 8;
  intptr_t Rs = s.rank, Rg = g.rank;
  MlirValue dstOffsets[MAX_RANK], srcOffsets[MAX_RANK];
  for (intptr_t d = 0; d < Rs; ++d)
    dstOffsets[d] = tilusOpGetGroupOperand(op, TilusCopyAsyncDstOffsets, d);
  for (intptr_t d = 0; d < Rg; ++d)
    srcOffsets[d] = tilusOpGetGroupOperand(op, TilusCopyAsyncSrcOffsets, d);

  // The chunk: v elements along the last dimension, 16, 8 or 4 bytes,
  // contiguous and aligned in both tensors.
  // The last chunk tried, the narrowest, says why when none fits.
  int64_t v = 0, tried = 0;
  const char *misfit = NULL;
  for (int64_t w = 16 / bytes; w >= 1 && w * bytes >= 4; w /= 2) {
    tried = w;
    misfit = chunkMisfit(L, &g, &s, region[r - 1], srcOffsets[Rg - 1],
                         dstOffsets[Rs - 1], w);
    if (!misfit) {
      v = w;
      break;
    }
  }
  // Without provably aligned chunks of 4 bytes or more, the copy is done
  // element by element with ordinary loads and stores: complete at once,
  // which commit/wait groups allow.
  bool synchronous = v == 0;
  if (synchronous)
    v = 1;
  if (synchronous && misfit && tilusLoweringRemarksOn(L))
    tilusLoweringRemark(L, op,
                        "'tilus.copy_async' copies element by element with "
                        "ordinary loads and stores (not cp.async): no chunk "
                        "of %lld bytes is provably aligned in both tensors: "
                        "%s",
                        (long long)(tried * bytes), misfit);

  // Chunk c of the region: its coordinates (row-major, last in units of v).
  int64_t chunks = numel / v;
  MlirValue tid = tilusEmitThreadIndex(&e);
  MlirType i32 = mlirIntegerTypeGet(e.ctx, 32);
  MlirType storage = tilusStorageElementType(e.ctx, s.elementType);
  for (int64_t first = 0; first < chunks; first += T) {
    MlirValue c = tilusEmitAddIndexConst(&e, tid, first);
    MlirValue coords[MAX_RANK];
    MlirValue rest = c;
    for (intptr_t d = r - 1; d >= 0; --d) {
      int64_t extent = d == r - 1 ? region[d] / v : region[d];
      coords[d] = tilusEmitRemIndexConst(&e, rest, extent);
      rest = tilusEmitDivIndexConst(&e, rest, extent);
    }
    coords[r - 1] = tilusEmitMulIndexConst(&e, coords[r - 1], v);
    // The last round, where some threads have no chunk: the copy is
    // predicated off for them (no branch, which would split a wgmma
    // pipeline stage around it; their wrapped coordinates stay in bounds);
    // a synchronous copy is skipped by a branch.
    MlirBlock thenBlock = {NULL};
    MlirOperation ifOp = {NULL};
    MlirValue active = {NULL};
    if (first + T > chunks) {
      active = tilusEmitCmp(&e, TilusCmpULT, c, tilusEmitIndex(&e, chunks));
      if (synchronous) {
        ifOp = tilusEmitIf(&e, active, 0, NULL, &thenBlock, NULL);
        tilusEmitterSetToEnd(&e, thenBlock);
      }
    }
    // Shared side.
    MlirValue sc[MAX_RANK];
    for (intptr_t d = 0; d < Rs; ++d)
      sc[d] = d < Rs - r ? dstOffsets[d]
                         : tilusEmitAddIndex(&e, dstOffsets[d], coords[d - (Rs - r)]);
    MlirValue dst = tilusEmitElementPointer(&e, shared, storage,
                                            tilusEmitSharedAddress(&e, s.layout, sc));
    // Global side: the row-major linear index and the bytes inside.
    MlirValue linear = tilusEmitIndex(&e, 0);
    MlirValue inside = (MlirValue){NULL};
    MlirValue lastIndex = tilusEmitIndex(&e, 0);
    for (intptr_t d = 0; d < Rg; ++d) {
      MlirValue index = d < Rg - r ? srcOffsets[d]
                                   : tilusEmitAddIndex(&e, srcOffsets[d],
                                                       coords[d - (Rg - r)]);
      linear = tilusEmitAddIndex(&e, tilusEmitArith(&e, "muli", linear, g.sizes[d]),
                                 index);
      if (d == Rg - 1) {
        lastIndex = index;
        continue;
      }
      MlirValue check = tilusEmitCmp(&e, TilusCmpULT, index, g.sizes[d]);
      inside = mlirValueIsNull(inside) ? check : tilusEmitArith(&e, "andi", inside, check);
    }
    // The chunk is all inside or all outside: v was chosen so that chunks
    // start at multiples of v in rows whose length is a multiple of v (and
    // with v = 1, a chunk is one element).
    MlirValue valid = tilusEmitCmp(&e, TilusCmpULT, lastIndex, g.sizes[Rg - 1]);
    if (!mlirValueIsNull(inside))
      valid = tilusEmitArith(&e, "andi", valid, inside);
    MlirValue sizes[3] = {valid, tilusEmitIntConstant(&e, i32, v * bytes),
                          tilusEmitIntConstant(&e, i32, 0)};
    MlirValue srcBytes =
        tilusEmitValue(&e, "arith.select", 3, sizes, i32, 0, NULL);
    // cp.async reads no byte with src-size 0, so the address of a chunk
    // outside may stay as it is; the element copies read only when valid.
    MlirValue src = tilusEmitElementPointer(&e, g.ptr, storage, linear);
    if (synchronous) {
      MlirBlock loadBlock, zeroBlock;
      MlirOperation pick = tilusEmitIf(&e, valid, 1, &storage, &loadBlock, &zeroBlock);
      tilusEmitterSetToEnd(&e, loadBlock);
      MlirNamedAttribute align = tilusNamedAttr(
          e.ctx, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(e.ctx, 64), bytes));
      MlirValue element = tilusEmitValue(&e, "llvm.load", 1, &src, storage, 1, &align);
      tilusEmitYield(&e, 1, &element);
      tilusEmitterSetToEnd(&e, zeroBlock);
      MlirValue zeroElement = tilusEmitSplatConstant(&e, storage, 0);
      tilusEmitYield(&e, 1, &zeroElement);
      tilusEmitterSetAfter(&e, pick);
      MlirValue stored[2] = {mlirOperationGetResult(pick, 0), dst};
      tilusEmitOp(&e, "llvm.store", 2, stored, 0, NULL, 1, &align);
      if (!mlirOperationIsNull(ifOp)) {
        tilusEmitYield(&e, 0, NULL);
        tilusEmitterSetAfter(&e, ifOp);
      }
      continue;
    }
    // 16-byte chunks bypass L1 (.cg); smaller ones can only be cached (.ca).
    const char *cache = v * bytes == 16 ? "cg" : "ca";
    char modifier[64];
    snprintf(modifier, sizeof(modifier), "#nvvm<load_cache_modifier %s>", cache);
    MlirNamedAttribute attrs[2] = {
        tilusNamedAttr(e.ctx, "modifier",
                       mlirAttributeParseGet(e.ctx,
                                             mlirStringRefCreateFromCString(modifier))),
        tilusNamedAttr(e.ctx, "size", mlirIntegerAttrGet(i32, v * bytes))};
    MlirValue operands[4] = {dst, src, srcBytes, active};
    if (mlirValueIsNull(active)) {
      tilusEmitOp(&e, "nvvm.cp.async.shared.global", 3, operands, 0, NULL, 2, attrs);
      continue;
    }
    char text[160];
    snprintf(text, sizeof(text),
             "{\n.reg .pred q;\nsetp.ne.b32 q, $3, 0;\n@q cp.async.%s.shared.global "
             "[$0], [$1], %lld, $2;\n}",
             cache, (long long)(v * bytes));
    operands[3] = tilusEmitValue(&e, "arith.extui", 1, &active, i32, 0, NULL);
    tilusEmitInlineAsm(&e, text, "l,l,r,r,~{memory}", 4, operands, (MlirType){NULL});
  }
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerCommitGroup(TilusLowering *L, MlirOperation op,
                                          MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  tilusEmitOp(&e, "nvvm.cp.async.commit.group", 0, NULL, 0, NULL, 0, NULL);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerWaitGroup(TilusLowering *L, MlirOperation op,
                                        MlirRewriterBase rewriter) {
  int64_t n;
  if (!tilusOpGetIntAttr(op, "n", &n))
    return tilusLoweringError(op, "copy_async_wait_group needs an integer 'n'");
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirNamedAttribute attr = tilusNamedAttr(
      e.ctx, "n", mlirIntegerAttrGet(mlirIntegerTypeGet(e.ctx, 32), n));
  tilusEmitOp(&e, "nvvm.cp.async.wait.group", 0, NULL, 0, NULL, 1, &attr);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.allocate_shared", lowerAllocateShared},
    {"tilus.transpose_shared", lowerTransposeShared},
    {"tilus.load_shared", lowerLoadShared},
    {"tilus.store_shared", lowerStoreShared},
    {"tilus.copy_async", lowerCopyAsync},
    {"tilus.copy_async_commit_group", lowerCommitGroup},
    {"tilus.copy_async_wait_group", lowerWaitGroup},
};

const TilusPattern *tilusGetSharedMemoryPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
