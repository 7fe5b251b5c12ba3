//===- Atomics.c - Scalar atomics, the semaphore pair, mbarriers ----------===//
//
// AtomicRMW and AtomicCAS are block-level scalar instructions: the block
// performs the read-modify-write once (thread 0) and every thread gets the
// old value, through a small static shared array between two barriers
// (skipped when the old value is unused). The first barrier keeps the
// leader from overwriting the array while a slower thread still reads the
// previous result (the same op in a loop).
//
// AtomicRMW with order = "acq_rel": both barriers always, and in thread 0 a
// release fence, the read-modify-write and an acquire fence, all at gpu
// scope, so every thread's earlier accesses precede it and every thread's
// later ones follow it (the "last block of a tile reduces" pattern: partial
// results stored, then a counter incremented; the block that sees the last
// count reads them all). Fences, because LLVM 22's NVPTX back end emits an
// acq_rel atomicrmw as a plain (relaxed) atom.
//
// SemaphoreWait: thread 0 spins on acquire loads until the counter equals
// the value, then the block synchronizes, so every thread's later accesses
// follow the acquire. SemaphoreSignal: the block synchronizes, so every
// thread's earlier accesses precede it, then thread 0 stores the value with
// release semantics (the pattern of CUTLASS's split-K semaphore).
//
// Memory order: read-modify-writes are relaxed at gpu scope unless ordered
// as above; the semaphore load is acquire and the store release, both at gpu
// scope.
//
// mbarriers (sm_90+, inline PTX at CTA scope): MbarrierInit has thread 0
// initialize the barrier between two block barriers (no thread still waits
// on it, every thread sees it set); MbarrierArrive is one arrive per thread; MbarrierArriveExpectTx
// one arrive with expected bytes by thread 0; MbarrierWait spins every thread
// on try_wait.parity (acquire at CTA scope, PTX's default);
// CopyAsyncMbarrierArrive is one arrive per thread that the hardware makes
// once the thread's earlier cp.async copies have landed.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Kernel.h"

#include <stdio.h>

// The pointer to the element at the offsets of operand group `offsetsGroup`
// in the global or shared tensor `mem`. `t` is its decoded type; a global
// tensor is row-major (the caller checked).
static MlirValue emitElementPointer(TilusEmitter *e, MlirOperation op,
                                    MlirValue mem, const TilusTensorType *t,
                                    intptr_t offsetsGroup) {
  intptr_t start = tilusOperandGroupStart(op, offsetsGroup);
  MlirValue offsets[TILUS_LAYOUT_MAX_RANK];
  for (intptr_t d = 0; d < t->rank; ++d)
    offsets[d] = mlirOperationGetOperand(op, start + d);
  MlirType storage = tilusStorageElementType(e->ctx, t->elementType);
  if (t->scope == TilusMemoryShared)
    return tilusEmitElementPointer(
        e, tilusLoweredRegister(mem), storage,
        tilusEmitSharedAddress(e, t->layout, offsets));
  TilusGlobalView view;
  tilusGetGlobalView(e, mem, &view);
  // Row-major: linear = ((o0 * s1 + o1) * s2 + o2) ...
  MlirValue linear = offsets[0];
  for (intptr_t d = 1; d < view.rank; ++d) {
    int64_t c;
    MlirValue scaled = tilusValueGetConstantInt(view.sizes[d], &c)
                           ? tilusEmitMulIndexConst(e, linear, c)
                           : tilusEmitArith(e, "muli", linear, view.sizes[d]);
    linear = tilusEmitAddIndex(e, scaled, offsets[d]);
  }
  return tilusEmitElementPointer(e, view.ptr, storage, linear);
}

// Checks, before anything is emitted, that the memory operand can be
// addressed: a decoded type, and a row-major global tensor with its lowered
// values or a shared tensor with a supported layout.
static bool decodeMemory(TilusLowering *L, MlirOperation op, MlirValue mem,
                         TilusTensorType *t) {
  if (mlirLogicalResultIsFailure(
          tilusLoweringDecode(L, mlirValueGetType(mem), t)))
    return false;
  if (t->scope == TilusMemoryGlobal && t->layout) {
    tilusLoweringError(op, "atomics on global tensors with a layout other "
                           "than row_major are not lowered yet");
    return false;
  }
  if (t->scope == TilusMemoryShared &&
      mlirValueIsNull(tilusLoweredRegister(mem)))
    return false;
  MlirValue lowered[1 + TILUS_LAYOUT_MAX_RANK];
  return t->scope == TilusMemoryShared ||
         tilusLoweredValues(mem, lowered, 1 + TILUS_LAYOUT_MAX_RANK) >= 1;
}

static void emitBarrier(TilusEmitter *e) { tilusEmitBarrier(e); }

// Whether `op`'s attribute `name` is the string `text`.
static bool stringAttrIs(MlirOperation op, const char *name, const char *text) {
  MlirAttribute a =
      mlirOperationGetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(name));
  return !mlirAttributeIsNull(a) && mlirAttributeIsAString(a) &&
         mlirStringRefEqual(mlirStringAttrGetValue(a), mlirStringRefCreateFromCString(text));
}

// Whether an AtomicRMW carries order = "acq_rel" (the verifier checked the
// value; AtomicCAS takes none).
static bool isAcquireRelease(MlirOperation op) {
  return stringAttrIs(op, "order", "acq_rel");
}

// The block-level scalar atomic: `emit` performs it at `ptr` in thread 0;
// its old value then reaches every thread when the op's result is used (or
// the op is ordered: the barriers then order the block around it).
typedef MlirValue (*EmitAtomic)(TilusEmitter *e, MlirOperation op,
                                const TilusTensorType *t, MlirValue ptr);

static MlirLogicalResult lowerScalarAtomic(TilusLowering *L, MlirOperation op,
                                           MlirRewriterBase rewriter,
                                           EmitAtomic emit, bool ordered) {
  MlirValue mem = tilusOpGetGroupOperand(op, TilusAtomicMem, 0);
  TilusTensorType t;
  if (!decodeMemory(L, op, mem, &t))
    return mlirLogicalResultFailure();
  MlirValue result = mlirOperationGetResult(op, 0);
  bool used = !mlirOpOperandIsNull(mlirValueGetFirstUse(result));
  MlirType storage =
      tilusStorageElementType(mlirOperationGetContext(op), t.elementType);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue scratch = {NULL};
  int64_t bytes = tilusElementTypeGetBitWidth(t.elementType) / 8;
  if (used)
    scratch =
        tilusEmitSharedArray(&e, op, "__tilus_atomic_scratch", bytes, false);
  if (used || ordered)
    emitBarrier(&e);
  MlirValue ptr = emitElementPointer(&e, op, mem, &t, TilusAtomicOffsets);
  MlirOperation leader = tilusEmitBeginLeader(&e);
  MlirValue old = emit(&e, op, &t, ptr);
  if (used) {
    MlirValue operands[2] = {old, scratch};
    tilusEmitOp(&e, "llvm.store", 2, operands, 0, NULL, 0, NULL);
  }
  tilusEmitEndLeader(&e, leader);
  if (!used) {
    if (ordered)
      emitBarrier(&e);
    mlirRewriterBaseEraseOp(rewriter, op);
    return mlirLogicalResultSuccess();
  }
  emitBarrier(&e);
  MlirValue value =
      tilusEmitValue(&e, "llvm.load", 1, &scratch, storage, 0, NULL);
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &value);
  return mlirLogicalResultSuccess();
}

static bool kindIs(MlirOperation op, const char *kind) {
  return stringAttrIs(op, "kind", kind);
}

// add, max, min, exchange: the llvm.atomicrmw operation for the element
// type (signed or unsigned by the Tilus type; floats: fmax/fmin, which LLVM
// expands into a compare-and-swap loop with maxnum/minnum semantics).
static TilusAtomicBinOp rmwBinOp(MlirOperation op, MlirType elementType) {
  bool isFloat = mlirTypeIsAFloat(elementType);
  bool isUnsigned = tilusElementIsUnsigned(elementType);
  if (kindIs(op, "add"))
    return isFloat ? TilusAtomicFAdd : TilusAtomicAdd;
  if (kindIs(op, "max"))
    return isFloat      ? TilusAtomicFMax
           : isUnsigned ? TilusAtomicUMax
                        : TilusAtomicMax;
  if (kindIs(op, "min"))
    return isFloat      ? TilusAtomicFMin
           : isUnsigned ? TilusAtomicUMin
                        : TilusAtomicMin;
  return TilusAtomicXchg;
}

static MlirValue emitRmw(TilusEmitter *e, MlirOperation op,
                         const TilusTensorType *t, MlirValue ptr) {
  bool ordered = isAcquireRelease(op);
  if (ordered)
    tilusEmitFence(e, TilusAtomicOrderingRelease);
  MlirValue old = tilusEmitAtomicRMW(
      e, rmwBinOp(op, t->elementType), ptr,
      tilusOpGetGroupOperand(op, TilusAtomicRmwValue, 0),
      TilusAtomicOrderingMonotonic);
  if (ordered)
    tilusEmitFence(e, TilusAtomicOrderingAcquire);
  return old;
}

static MlirValue emitCas(TilusEmitter *e, MlirOperation op,
                         const TilusTensorType *t, MlirValue ptr) {
  return tilusEmitAtomicCAS(
      e, ptr, tilusOpGetGroupOperand(op, TilusAtomicCasCompare, 0),
      tilusOpGetGroupOperand(op, TilusAtomicCasValue, 0));
}

static MlirLogicalResult lowerAtomicRmw(TilusLowering *L, MlirOperation op,
                                        MlirRewriterBase rewriter) {
  return lowerScalarAtomic(L, op, rewriter, emitRmw, isAcquireRelease(op));
}

static MlirLogicalResult lowerAtomicCas(TilusLowering *L, MlirOperation op,
                                        MlirRewriterBase rewriter) {
  return lowerScalarAtomic(L, op, rewriter, emitCas, false);
}

// scf.while with no values: `before` loads and compares, then
// scf.condition(counter != value); `after` is empty.
static void emitSpin(TilusEmitter *e, MlirValue ptr, MlirValue value) {
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("scf.while"), e->loc);
  MlirRegion before = mlirRegionCreate(), after = mlirRegionCreate();
  MlirBlock beforeBlock = mlirBlockCreate(0, NULL, NULL);
  MlirBlock afterBlock = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(before, beforeBlock);
  mlirRegionAppendOwnedBlock(after, afterBlock);
  MlirRegion regions[2] = {before, after};
  mlirOperationStateAddOwnedRegions(&state, 2, regions);
  MlirOperation loop =
      mlirRewriterBaseInsert(e->rewriter, mlirOperationCreate(&state));
  tilusEmitterSetToEnd(e, beforeBlock);
  MlirValue counter = tilusEmitAtomicLoad(e, ptr, mlirValueGetType(value),
                                          TilusAtomicOrderingAcquire, 4);
  MlirValue waiting = tilusEmitCmp(e, TilusCmpNE, counter, value);
  tilusEmitOp(e, "scf.condition", 1, &waiting, 0, NULL, 0, NULL);
  tilusEmitterSetToEnd(e, afterBlock);
  tilusEmitYield(e, 0, NULL);
  tilusEmitterSetAfter(e, loop);
}

static MlirLogicalResult lowerSemaphore(TilusLowering *L, MlirOperation op,
                                        MlirRewriterBase rewriter, bool wait) {
  MlirValue counters = tilusOpGetGroupOperand(op, TilusSemaphoreCounters, 0);
  TilusTensorType t;
  if (!decodeMemory(L, op, counters, &t))
    return mlirLogicalResultFailure();
  MlirValue value = tilusOpGetGroupOperand(op, TilusSemaphoreValue, 0);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue ptr =
      emitElementPointer(&e, op, counters, &t, TilusSemaphoreOffsets);
  if (!wait)
    emitBarrier(&e);
  MlirOperation leader = tilusEmitBeginLeader(&e);
  if (wait)
    emitSpin(&e, ptr, value);
  else
    tilusEmitAtomicStore(&e, value, ptr, TilusAtomicOrderingRelease, 4);
  tilusEmitEndLeader(&e, leader);
  if (wait)
    emitBarrier(&e);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerSemaphoreWait(TilusLowering *L, MlirOperation op,
                                            MlirRewriterBase rewriter) {
  return lowerSemaphore(L, op, rewriter, true);
}

static MlirLogicalResult lowerSemaphoreSignal(TilusLowering *L,
                                              MlirOperation op,
                                              MlirRewriterBase rewriter) {
  return lowerSemaphore(L, op, rewriter, false);
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

// The address of the op's barrier (an element of a shared i64 tensor).
static MlirValue mbarrierAddress(TilusLowering *L, TilusEmitter *e,
                                 MlirOperation op) {
  MlirValue bars = tilusOpGetGroupOperand(op, TilusMbarrierBars, 0);
  const TilusTensorType *t = tilusLoweringTensorType(L, mlirValueGetType(bars));
  return emitElementPointer(e, op, bars, t, TilusMbarrierOffsets);
}

// Checks before emitting: the target has the instructions, the barrier
// tensor is lowered.
static MlirLogicalResult checkMbarrier(TilusLowering *L, MlirOperation op) {
  if (!L->target->hasMbarrierTx)
    return tilusLoweringNeedsTarget(
        L, op, "mbarriers need sm_90 or newer (try_wait, expect_tx)");
  // Unverified IR (tilus-verify off) may bring anything.
  MlirValue bars = tilusOpGetGroupOperand(op, TilusMbarrierBars, 0);
  const TilusTensorType *t = tilusLoweringTensorType(L, mlirValueGetType(bars));
  intptr_t start, count;
  if (!t || t->scope != TilusMemoryShared || !mlirTypeIsAInteger(t->elementType) ||
      mlirIntegerTypeGetWidth(t->elementType) != 64 ||
      !tilusOpGetOperandGroup(op, TilusMbarrierOffsets, &start, &count) ||
      count != t->rank)
    return tilusLoweringError(op, "the barrier must be one element of a shared "
                                  "tensor of 64-bit integers, at one offset per "
                                  "dimension (run tilus-verify)");
  if (mlirValueIsNull(tilusLoweredRegister(bars)))
    return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

// One mbarrier instruction: its PTX over the barrier's address ($0) and,
// with `value`, the op's i32 operand ($1); by thread 0 alone (`leader`);
// between two block barriers (`barrier`: init, so that no thread still
// waits on the barrier it resets, and every thread sees it set).
typedef struct {
  const char *text, *constraints;
  bool value, leader, barrier;
} MbarrierForm;

static MlirLogicalResult lowerMbarrier(TilusLowering *L, MlirOperation op,
                                       MlirRewriterBase rewriter,
                                       const MbarrierForm *f) {
  if (mlirLogicalResultIsFailure(checkMbarrier(L, op)))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue operands[2] = {mbarrierAddress(L, &e, op),
                           tilusOpGetGroupOperand(op, TilusMbarrierValue, 0)};
  if (f->barrier)
    emitBarrier(&e);
  MlirOperation ifOp = f->leader ? tilusEmitBeginLeader(&e) : (MlirOperation){NULL};
  tilusEmitInlineAsm(&e, f->text, f->constraints, f->value ? 2 : 1, operands,
                     (MlirType){NULL});
  if (f->leader)
    tilusEmitEndLeader(&e, ifOp);
  if (f->barrier)
    emitBarrier(&e);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerMbarrierInit(TilusLowering *L, MlirOperation op,
                                           MlirRewriterBase rewriter) {
  // The fence makes the initialized barrier visible to the async proxy,
  // whose tensor-memory copies complete bytes on it (tilus.tma_load); in a
  // cluster, fence.mbarrier_init also releases it to the other blocks
  // (remote arrivals, multicast copies), which see it after a cluster
  // barrier.
  static const MbarrierForm form = {"mbarrier.init.shared::cta.b64 [$0], $1;\n"
                                    "fence.proxy.async.shared::cta;",
                                    "l,r,~{memory}", true, true, true};
  static const MbarrierForm clusterForm = {
      "mbarrier.init.shared::cta.b64 [$0], $1;\n"
      "fence.proxy.async.shared::cta;\n"
      "fence.mbarrier_init.release.cluster;",
      "l,r,~{memory}", true, true, true};
  return lowerMbarrier(L, op, rewriter,
                       tilusOpGetClusterSize(op) ? &clusterForm : &form);
}

static MlirLogicalResult lowerMbarrierArrive(TilusLowering *L, MlirOperation op,
                                             MlirRewriterBase rewriter) {
  static const MbarrierForm form = {"mbarrier.arrive.shared::cta.b64 _, [$0];",
                                    "l,~{memory}", false, false, false};
  return lowerMbarrier(L, op, rewriter, &form);
}

// The thread's arrival, made by the hardware once every copy_async the
// thread issued before has landed (.noinc: it is one of the arrivals the
// barrier counts), so that a producer need not wait for its own copies.
static MlirLogicalResult lowerCopyAsyncMbarrierArrive(TilusLowering *L,
                                                      MlirOperation op,
                                                      MlirRewriterBase rewriter) {
  static const MbarrierForm form = {
      "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "l,~{memory}",
      false, false, false};
  return lowerMbarrier(L, op, rewriter, &form);
}

// The barrier of block `cta` of the cluster: mapa maps this block's shared
// address to that block's. The arrival has the default semantics (release
// at CTA scope), enough to order the thread's earlier shared-memory reads
// before the copies the waiting producer then issues; .release.cluster
// made the matmul example twice as slow on the H100 (a cluster-wide fence
// per arrival).
static MlirLogicalResult lowerMbarrierArriveRemote(TilusLowering *L,
                                                   MlirOperation op,
                                                   MlirRewriterBase rewriter) {
  if (mlirLogicalResultIsFailure(checkMbarrier(L, op)))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue cta = tilusOpGetGroupOperand(op, TilusMbarrierValue, 0);
  MlirValue operands[2] = {
      mbarrierAddress(L, &e, op),
      tilusEmitValue(&e, "arith.index_cast", 1, &cta,
                     mlirIntegerTypeGet(e.ctx, 32), 0, NULL)};
  tilusEmitInlineAsm(&e,
                     "{\n.reg .b64 ra;\nmapa.shared::cluster.u64 ra, $0, $1;\n"
                     "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}",
                     "l,r,~{memory}", 2, operands, (MlirType){NULL});
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerMbarrierArriveExpectTx(TilusLowering *L,
                                                     MlirOperation op,
                                                     MlirRewriterBase rewriter) {
  static const MbarrierForm form = {
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}",
      true, true, false};
  return lowerMbarrier(L, op, rewriter, &form);
}

// try_wait returns after a bounded time whether or not the phase is done;
// the loop asks again. ${:uid} makes the label unique per asm instance.
static MlirLogicalResult lowerMbarrierWait(TilusLowering *L, MlirOperation op,
                                           MlirRewriterBase rewriter) {
  static const MbarrierForm form = {
      "{\n.reg .pred p;\nTILUS_MBAR_WAIT_${:uid}:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
      "@!p bra TILUS_MBAR_WAIT_${:uid};\n}",
      "l,r,~{memory}", true, false, false};
  return lowerMbarrier(L, op, rewriter, &form);
}

static const TilusPattern kPatterns[] = {
    {"tilus.atomic_rmw", lowerAtomicRmw},
    {"tilus.atomic_cas", lowerAtomicCas},
    {"tilus.semaphore_wait", lowerSemaphoreWait},
    {"tilus.semaphore_signal", lowerSemaphoreSignal},
    {"tilus.mbarrier_init", lowerMbarrierInit},
    {"tilus.mbarrier_arrive", lowerMbarrierArrive},
    {"tilus.copy_async_mbarrier_arrive", lowerCopyAsyncMbarrierArrive},
    {"tilus.mbarrier_arrive_remote", lowerMbarrierArriveRemote},
    {"tilus.mbarrier_arrive_expect_tx", lowerMbarrierArriveExpectTx},
    {"tilus.mbarrier_wait", lowerMbarrierWait},
};

const TilusPattern *tilusGetAtomicPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
