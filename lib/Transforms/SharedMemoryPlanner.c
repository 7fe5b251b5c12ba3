//===- SharedMemoryPlanner.c - The tilus-plan-shared pass -----------------===//
//
// Gives every tilus.allocate_shared of a kernel a byte offset in the one
// dynamic shared-memory buffer of the thread block, and the kernel its total:
//
//   - a shared tensor lives from its allocation to its last use; a use
//     inside a loop that does not contain the allocation keeps it alive to
//     the end of that loop (the next iteration reads it again);
//   - a tensor that CopyAsync writes stays alive until the first
//     copy_async_wait_group with n = 0 after its last use (or the kernel's
//     end): until then asynchronous copies may still land in it;
//   - likewise a tensor that wgmma_mma reads stays alive until the first
//     wgmma_wait_group with n = 0 after its last use, and is aligned to
//     TILUS_WGMMA_SHARED_ALIGNMENT bytes (the swizzle repeats every 1024
//     bytes of address, and wgmma applies it to the address itself);
//   - a tensor holding mbarriers lives to the kernel's end, as does one that
//     tma_load writes (its bytes land when a barrier's phase completes);
//     the shared tile of a tma_load or tma_store is aligned to
//     TILUS_TMA_SHARED_ALIGNMENT bytes;
//   - a tensor (or scratch) used inside a thread group lives throughout the
//     kernel: groups run concurrently, in no order the program shows;
//   - tensors whose lifetimes do not overlap may share bytes (the epilogue
//     of Figure 14 reuses the pipeline's buffers);
//   - each tensor is placed at the lowest 128-byte aligned offset where it
//     overlaps no tensor alive at the same time (first fit, larger first);
//   - an op that exchanges data through shared scratch (Reduce across warps,
//     a layout change that leaves registers: tilusOpGetScratchBytes) is a
//     buffer alive during that op only; it gets `tilus.scratch_offset`.
//
// Results: `tilus.shared_offset` on each allocation, `tilus.shared_bytes` on
// the kernel. A kernel needing more than tilusTargetInfoGetMaxSharedBytes() is an error
// at its location; the artifact emitter checks each target's own limit.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "tilus-c/DataMovement.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Ops.h"
#include "tilus-c/Passes.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Types.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>

#define ALIGNMENT TILUS_SHARED_ALIGNMENT

static const alignas(8) char planPassID = 0;

// Pre-order position of an op and of its last nested op.
typedef struct {
  MlirOperation op;
  int64_t begin, end;
} Span;

typedef struct {
  Span *spans;
  int64_t count, capacity;
} Walk;

static bool isLoop(MlirOperation op) {
  return tilusOpIs(op, "scf.for") || tilusOpIs(op, "scf.while") ||
         tilusOpIs(op, "scf.parallel") || tilusOpIs(op, "scf.forall");
}

// Whether `use` is the destination of a tilus.copy_async.
static bool isCopyAsyncDestination(MlirOpOperand use) {
  MlirOperation user = mlirOpOperandGetOwner(use);
  intptr_t start, count;
  return tilusOpIs(user, "tilus.copy_async") &&
         tilusOpGetOperandGroup(user, TilusCopyAsyncDst, &start, &count) &&
         mlirOpOperandGetOperandNumber(use) == (unsigned)start;
}

static void number(Walk *w, MlirOperation op) {
  if (w->count == w->capacity) {
    w->capacity = w->capacity ? 2 * w->capacity : 256;
    w->spans = realloc(w->spans, sizeof(Span) * (size_t)w->capacity);
  }
  int64_t self = w->count++;
  w->spans[self] = (Span){op, self, self};
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        number(w, o);
  w->spans[self].end = w->count - 1;
}

static const Span *spanOf(const Walk *w, MlirOperation op) {
  for (int64_t k = 0; k < w->count; ++k)
    if (mlirOperationEqual(w->spans[k].op, op))
      return &w->spans[k];
  return NULL;
}

typedef struct {
  MlirOperation op;
  int64_t begin, end, bytes, offset, alignment;
  bool async;   // a CopyAsync destination
  bool wgmma;   // read by wgmma_mma
  bool scratch; // an op's scratch, alive during the op only
} Buffer;

// The ops using one tensor (or a view of it).
typedef struct {
  MlirOperation *ops;
  int64_t count, capacity;
  bool outOfMemory;
} Users;

static void addUser(Users *users, MlirOperation op) {
  if (users->count == users->capacity) {
    int64_t capacity = users->capacity ? 2 * users->capacity : 16;
    MlirOperation *grown =
        realloc(users->ops, sizeof(MlirOperation) * (size_t)capacity);
    if (!grown) {
      users->outOfMemory = true;
      return;
    }
    users->ops = grown;
    users->capacity = capacity;
  }
  users->ops[users->count++] = op;
}

// Whether `op` lies in `block` or in an op nested there.
static bool blockHolds(MlirBlock block, MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirBlockEqual(mlirOperationGetBlock(op), block))
      return true;
  return false;
}

// The position of the first `waitOp` (copy_async_wait_group or
// wgmma_wait_group) with n = 0 after position `after` that surely runs after
// every one of the tensor's uses (its block holds each of them: it is not in
// a branch or a loop that a use is outside of), or the kernel's last position.
static int64_t drainedAt(const Walk *w, int64_t after, const char *waitOp,
                         const Users *users) {
  for (int64_t k = after + 1; k < w->count; ++k) {
    MlirOperation op = w->spans[k].op;
    int64_t n;
    if (!tilusOpIs(op, waitOp) || !tilusOpGetIntAttr(op, "n", &n) || n != 0)
      continue;
    bool holdsAll = true;
    for (int64_t u = 0; holdsAll && u < users->count; ++u)
      holdsAll = blockHolds(mlirOperationGetBlock(op), users->ops[u]);
    if (holdsAll)
      return w->spans[k].begin;
  }
  return w->count - 1;
}

typedef struct {
  const Walk *w;
  MlirOperation kernel;
  const Span *own; // the allocation
  Buffer *b;
  Users users;
} UseScan;

// Extends the buffer's lifetime over one use (tilusSharedTensorWalkUses).
static void scanUse(MlirOpOperand use, void *userData) {
  UseScan *scan = userData;
  Buffer *b = scan->b;
  MlirOperation user = mlirOpOperandGetOwner(use);
  const Span *at = spanOf(scan->w, user);
  int64_t end = at ? at->end : scan->own->begin;
  // Loops around the use that do not hold the allocation.
  for (MlirOperation p = mlirOperationGetParentOperation(user);
       !mlirOperationIsNull(p) && !mlirOperationEqual(p, scan->kernel);
       p = mlirOperationGetParentOperation(p)) {
    const Span *ps = spanOf(scan->w, p);
    if (ps && isLoop(p) &&
        !(ps->begin <= scan->own->begin && scan->own->begin <= ps->end))
      end = ps->end > end ? ps->end : end;
  }
  if (end > b->end)
    b->end = end;
  addUser(&scan->users, user);
  if (isCopyAsyncDestination(use))
    b->async = true;
  if (tilusOpIs(user, "tilus.wgmma_mma"))
    b->wgmma = true;
  // An mbarrier's bytes may not be reused while any thread may still wait
  // on it (PTX would need mbarrier.inval first): it lives to the end.
  if (tilusOpIs(user, "tilus.mbarrier_init") ||
      tilusOpIs(user, "tilus.mbarrier_arrive") ||
      tilusOpIs(user, "tilus.copy_async_mbarrier_arrive") ||
      tilusOpIs(user, "tilus.mbarrier_arrive_expect_tx") ||
      tilusOpIs(user, "tilus.mbarrier_wait"))
    b->end = scan->w->count - 1;
  // A tensor-memory copy lands when its barrier's phase completes, which
  // the planner does not follow: its destination (and barrier) live to the
  // end; the destination is aligned for the swizzle modes.
  if (tilusOpIs(user, "tilus.tma_load"))
    b->end = scan->w->count - 1;
  // Thread groups run at the same time, in no order the program's shows: a
  // tensor one of them uses shares its bytes with nothing.
  if (tilusOpGetThreadGroup(user, NULL, NULL)) {
    b->begin = 0;
    b->end = scan->w->count - 1;
  }
  // TMA's shared tile (a load's destination, a store's source) is aligned
  // for the swizzle modes. (A store has completed when it returns.)
  intptr_t start, count;
  if ((tilusOpIs(user, "tilus.tma_load") || tilusOpIs(user, "tilus.tma_store")) &&
      tilusOpGetOperandGroup(user, TilusTmaShared, &start, &count) &&
      mlirOpOperandGetOperandNumber(use) == (unsigned)start)
    b->alignment = TILUS_TMA_SHARED_ALIGNMENT;
}

static int byBytesDescending(const void *a, const void *b) {
  const Buffer *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? 1 : -1;
  return (x->begin > y->begin) - (x->begin < y->begin);
}

static int64_t bufferBytes(MlirOperation alloc) {
  TilusTensorType t;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(
          mlirValueGetType(mlirOperationGetResult(alloc, 0)), &t, NULL)))
    return -1;
  int64_t bytes = tilusTensorTypeGetLocalBytes(&t);
  tilusTensorTypeRelease(&t);
  return bytes;
}

static void setI64(MlirOperation op, const char *name, int64_t value) {
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(name),
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value));
}

static bool planKernel(MlirOperation kernel) {
  Walk w = {0};
  number(&w, kernel);
  // The allocations, in program order.
  int64_t numBuffers = 0;
  Buffer *buffers = calloc((size_t)w.count, sizeof(Buffer));
  for (int64_t k = 0; k < w.count; ++k) {
    int64_t scratch = tilusOpGetScratchBytes(w.spans[k].op);
    if (tilusOpIs(w.spans[k].op, "tilus.allocate_shared"))
      buffers[numBuffers++].op = w.spans[k].op;
    else if (scratch > 0) {
      // In a thread group: alive throughout (see scanUse).
      bool grouped = tilusOpGetThreadGroup(w.spans[k].op, NULL, NULL);
      buffers[numBuffers++] = (Buffer){w.spans[k].op,
                                       grouped ? 0 : w.spans[k].begin,
                                       grouped ? w.count - 1 : w.spans[k].begin,
                                       scratch, 0, ALIGNMENT, false, false, true};
    }
  }
  bool ok = true;
  for (int64_t k = 0; k < numBuffers; ++k) {
    if (buffers[k].scratch)
      continue;
    MlirOperation alloc = buffers[k].op;
    const Span *own = spanOf(&w, alloc);
    Buffer *b = &buffers[k];
    *b = (Buffer){alloc, own->begin, own->begin, bufferBytes(alloc), 0,
                  ALIGNMENT, false, false, false};
    if (b->bytes < 0) {
      ok = false;
      continue;
    }
    // Every use, through views of the tensor too.
    UseScan scan = {&w, kernel, own, b, {NULL, 0, 0, false}};
    tilusSharedTensorWalkUses(mlirOperationGetResult(alloc, 0), scanUse, &scan);
    if (scan.users.outOfMemory) {
      mlirEmitError(mlirOperationGetLocation(alloc),
                    "tilus-plan-shared ran out of memory");
      ok = false;
    }
    if (b->async)
      b->end = drainedAt(&w, b->end, "tilus.copy_async_wait_group", &scan.users);
    if (b->wgmma) {
      b->end = drainedAt(&w, b->end, "tilus.wgmma_wait_group", &scan.users);
      b->alignment = TILUS_WGMMA_SHARED_ALIGNMENT;
    }
    free(scan.users.ops);
  }
  qsort(buffers, (size_t)numBuffers, sizeof(Buffer), byBytesDescending);
  int64_t total = 0;
  for (int64_t k = 0; ok && k < numBuffers; ++k) {
    Buffer *b = &buffers[k];
    // The lowest aligned offset clear of every placed, overlapping buffer:
    // try 0 and the aligned end of each of them.
    int64_t best = -1;
    for (int64_t c = -1; c < k; ++c) {
      int64_t candidate =
          c < 0 ? 0
                : (buffers[c].offset + buffers[c].bytes + b->alignment - 1) /
                      b->alignment * b->alignment;
      bool clear = true;
      for (int64_t o = 0; clear && o < k; ++o) {
        const Buffer *x = &buffers[o];
        bool live = x->begin <= b->end && b->begin <= x->end;
        bool space = x->offset < candidate + b->bytes &&
                     candidate < x->offset + x->bytes;
        clear = !(live && space);
      }
      if (clear && (best < 0 || candidate < best))
        best = candidate;
    }
    b->offset = best;
    setI64(b->op,
           b->scratch ? TILUS_SCRATCH_OFFSET_ATTR : TILUS_SHARED_OFFSET_ATTR,
           best);
    if (best + b->bytes > total)
      total = best + b->bytes;
  }
  if (ok) {
    setI64(kernel, TILUS_SHARED_BYTES_ATTR, total);
    if (total > tilusTargetInfoGetMaxSharedBytes()) {
      char message[256];
      snprintf(message, sizeof(message),
               "the kernel needs %lld bytes of shared memory; a thread block "
               "has at most %d (227 KiB, sm_90)",
               (long long)total, (int)tilusTargetInfoGetMaxSharedBytes());
      mlirEmitError(mlirOperationGetLocation(kernel), message);
      ok = false;
    }
  }
  free(buffers);
  free(w.spans);
  return ok;
}

static void run(MlirOperation module, MlirExternalPass pass, void *userData) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (tilusOperationIsAKernel(op) && !planKernel(op))
      mlirExternalPassSignalFailure(pass);
}

static void construct(void *userData) {}
static void destruct(void *userData) {}
static void *clonePass(void *userData) { return userData; }

MlirPass tilusCreatePlanSharedMemoryPass(void) {
  MlirExternalPassCallbacks callbacks = {construct, destruct, NULL, clonePass,
                                         run};
  return mlirCreateExternalPass(
      mlirTypeIDCreate(&planPassID),
      mlirStringRefCreateFromCString("PlanSharedMemory"),
      mlirStringRefCreateFromCString("tilus-plan-shared"),
      mlirStringRefCreateFromCString(
          "Give every shared tensor an offset in the block's shared memory"),
      mlirStringRefCreateFromCString("builtin.module"), 0, NULL, callbacks,
      NULL);
}
