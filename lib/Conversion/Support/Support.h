//===- Support.h - Building upstream ops from C -----------------*- C -*-===//
//
// The lowering creates gpu/arith/vector/llvm ops through the generic
// MlirOperationState API. These helpers keep that in one place: every
// pattern builds its ops through an emitter that carries the rewriter (or a
// plain insertion block) and the location of the op being lowered.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_CONVERSION_SUPPORT_SUPPORT_H
#define TILUS_LIB_CONVERSION_SUPPORT_SUPPORT_H

#include "mlir-c/IR.h"
#include "mlir-c/Rewrite.h"
#include "tilus-c/Layout.h"
#include "tilus-c/Ops.h"
#include "tilus-c/Types.h"
#include "Utils/PtrMap.h"
#include "Utils/StringBuffer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The lowering's state (Lowering.h); emitters carry it so that helpers can
// reach the target and the caches. Null where no lowering runs.
struct TilusLowering;

typedef struct {
  MlirContext ctx;
  MlirRewriterBase rewriter;
  MlirLocation loc;
  struct TilusLowering *lowering;
  // The thread group of the op being lowered (tilus-c/Kernel.h): its first
  // thread and size; groupCount 0 outside one. tilusEmitThreadIndex and
  // tilusEmitBarrier are the group's inside one.
  int64_t groupFirst, groupCount;
} TilusEmitter;

TilusEmitter tilusEmitterCreate(struct TilusLowering *lowering,
                                MlirRewriterBase rewriter, MlirOperation at);

// A named attribute for tilusEmitOp.
MlirNamedAttribute tilusNamedAttr(MlirContext ctx, const char *name,
                                  MlirAttribute value);

// Creates `name` with the given operands, result types and attributes at the
// emitter's insertion point.
MlirOperation tilusEmitOp(TilusEmitter *e, const char *name,
                          intptr_t numOperands, const MlirValue *operands,
                          intptr_t numResults, const MlirType *resultTypes,
                          intptr_t numAttrs, const MlirNamedAttribute *attrs);

// The single result of a one-result op built by tilusEmitOp.
MlirValue tilusEmitValue(TilusEmitter *e, const char *name,
                         intptr_t numOperands, const MlirValue *operands,
                         MlirType resultType, intptr_t numAttrs,
                         const MlirNamedAttribute *attrs);

MlirType tilusIndexType(MlirContext ctx);
MlirValue tilusEmitIndex(TilusEmitter *e, int64_t value);
MlirValue tilusEmitIntConstant(TilusEmitter *e, MlirType type, int64_t value);
MlirValue tilusEmitFloatConstant(TilusEmitter *e, MlirType type, double value);

// An LLVM intrinsic (e.g. "llvm.nvvm.prmt") through llvm.call_intrinsic,
// with the `afn` fast-math flag; `type` is its result type.
MlirValue tilusEmitCallIntrinsic(TilusEmitter *e, const char *intrinsic,
                                 intptr_t numOperands, const MlirValue *operands,
                                 MlirType type);

// `arith.<op>` on two values of one type (result type = operand type).
MlirValue tilusEmitArith(TilusEmitter *e, const char *op, MlirValue lhs,
                         MlirValue rhs);
// arith.cmpi predicates, with the values of arith's CmpIPredicate.
typedef enum {
  TilusCmpEQ = 0,
  TilusCmpNE = 1,
  TilusCmpSLT = 2,
  TilusCmpSLE = 3,
  TilusCmpSGT = 4,
  TilusCmpSGE = 5,
  TilusCmpULT = 6,
  TilusCmpULE = 7,
  TilusCmpUGT = 8,
  TilusCmpUGE = 9,
} TilusCmpPredicate;

// arith.cmpi `predicate` on two values of one type; the result is i1 or a
// vector of i1 of the operands' shape.
MlirValue tilusEmitCmp(TilusEmitter *e, TilusCmpPredicate predicate,
                       MlirValue lhs, MlirValue rhs);

// index arithmetic that folds constants, so the emitted IR stays small.
MlirValue tilusEmitAddIndex(TilusEmitter *e, MlirValue a, MlirValue b);
MlirValue tilusEmitMulIndexConst(TilusEmitter *e, MlirValue a, int64_t c);
MlirValue tilusEmitAddIndexConst(TilusEmitter *e, MlirValue a, int64_t c);
// a % c and a / c (unsigned, c >= 1), folded for constants and c == 1.
MlirValue tilusEmitRemIndexConst(TilusEmitter *e, MlirValue a, int64_t c);
MlirValue tilusEmitDivIndexConst(TilusEmitter *e, MlirValue a, int64_t c);

// &base[index] (llvm.getelementptr) for elements of `elementType`; `index`
// is an index value.
MlirValue tilusEmitElementPointer(TilusEmitter *e, MlirValue base,
                                  MlirType elementType, MlirValue index);

// builtin.unrealized_conversion_cast from `inputs` to `resultType`.
MlirValue tilusEmitCast(TilusEmitter *e, intptr_t numInputs,
                        const MlirValue *inputs, MlirType resultType);

// If `v` is produced by an unrealized_conversion_cast, its inputs (at most
// `capacity`); returns their count, or -1.
intptr_t tilusLookThroughCast(MlirValue v, MlirValue *inputs,
                              intptr_t capacity);

// scf.if on `cond` with `numResults` results; the new then/else blocks are
// returned empty (without terminators) for the caller to fill and end with
// scf.yield (tilusEmitYield). `elseBlock` may be NULL for an if with no else
// and no results.
MlirOperation tilusEmitIf(TilusEmitter *e, MlirValue cond, intptr_t numResults,
                          const MlirType *resultTypes, MlirBlock *thenBlock,
                          MlirBlock *elseBlock);
void tilusEmitYield(TilusEmitter *e, intptr_t numValues,
                    const MlirValue *values);

// Moves the emitter's insertion point to the end of `block`.
void tilusEmitterSetToEnd(TilusEmitter *e, MlirBlock block);
void tilusEmitterSetAfter(TilusEmitter *e, MlirOperation op);


// Element `position` of `vector`: the value an insertelement chain put there
// when there is one (no instruction, and less for LLVM to fold), else an
// llvm.extractelement.
MlirValue tilusEmitElement(TilusEmitter *e, MlirValue vector, int64_t position);

// llvm.extractelement / llvm.insertelement at a constant position.
MlirValue tilusEmitExtract(TilusEmitter *e, MlirValue vector, int64_t position);
MlirValue tilusEmitInsert(TilusEmitter *e, MlirValue vector, MlirValue value,
                          int64_t position);

// A vector<n x T> (or T when n is 1) type.
MlirType tilusVectorOrScalarType(MlirType elementType, int64_t n);

// arith.constant of `type` (a vector or scalar) with every element `value`:
// an integer for integer element types, else a float.
MlirValue tilusEmitSplatConstant(TilusEmitter *e, MlirType type, double value);

// Packs slots[0..count) of the register vector `value` into one 32-bit
// operand register: a vector of `count` elements (f16 pairs stay
// vector<2xf16>), or with `asI32` bitcast to i32.
MlirValue tilusEmitPackRegister(TilusEmitter *e, MlirValue value,
                                const int64_t *slots, int count, bool asI32);

// llvm.inline_asm of the PTX `text` with LLVM `constraints` over
// operands[0..n): its result of `resultType`, or, with a null resultType, no
// result and side effects (the op is kept, in order).
MlirValue tilusEmitInlineAsm(TilusEmitter *e, const char *text,
                             const char *constraints, intptr_t n,
                             const MlirValue *operands, MlirType resultType);
// The same with side effects even when it has a result: kept, and kept in
// order with the other such ops (wgmma's issue, fences and waits).
MlirValue tilusEmitVolatileAsm(TilusEmitter *e, const char *text,
                               const char *constraints, intptr_t n,
                               const MlirValue *operands, MlirType resultType);

// arith.constant of `type`, a vector<n x F> of a float type F, with the
// elements values[0..n).
MlirValue tilusEmitFloatVectorConstant(TilusEmitter *e, MlirType type,
                                       const double *values);

// arith.constant of `type` (a storage type, tilusStorageElementType, or a
// vector of it) with every element the constant `c` (ElementConstants.c).
MlirValue tilusEmitElementConstant(TilusEmitter *e, MlirType type,
                                   const TilusElementConstant *c);

// Element `index` of the float arith.constant behind `c` (itself, a vector
// constant, or the scalar a vector.broadcast spreads); false for anything
// else.
bool tilusConstantElement(MlirValue c, uint64_t index, double *out);

// Whether `v` is such a constant with every element zero (float or
// integer): allocate_register's zero init, for instance.
bool tilusIsZeroConstant(MlirValue v);

// !llvm.array<n x element> and the literal !llvm.struct<(fields...)>.
MlirType tilusLLVMArrayType(MlirType element, unsigned n);
MlirType tilusLLVMStructType(MlirContext ctx, intptr_t numFields,
                             const MlirType *fields);

//===----------------------------------------------------------------------===//
// Lowered types (LoweredTypes.c)
//===----------------------------------------------------------------------===//

// The type a Tilus element type is computed in: integers become signless
// (arith's rule; signedness stays with the Tilus type), !tilus.float<e, m>
// an integer of its width, others are kept.
MlirType tilusStorageElementType(MlirContext ctx, MlirType elementType);
// Whether a Tilus integer element type is unsigned (uiN).
bool tilusElementIsUnsigned(MlirType elementType);
// vector<m x T> for a register tensor (T its storage element type).
MlirType tilusRegisterStorageType(MlirContext ctx, const TilusTensorType *t);

// A register vector of sub-byte integers widened (zero- or sign-extended) to
// vector<m x i32>; other vectors unchanged. Elements are then extracted from
// the wide vector: the NVPTX back end miscompiles extractelement on some
// vectors of odd-width integers (vector<8xi3> from a bit cast, vector<12xi1>
// from fptoui), while whole-vector extensions of them are right.
MlirValue tilusEmitWidenSubByte(TilusEmitter *e, MlirValue vector,
                                bool isUnsigned);

//===----------------------------------------------------------------------===//
// Threads (ThreadCoords.c)
//===----------------------------------------------------------------------===//

// gpu.thread_id x, as index.
MlirValue tilusEmitThreadIndex(TilusEmitter *e);
// Code run by thread 0 alone (ThreadCoords.c): tilusEmitBeginLeader opens
// an scf.if on thread 0 and leaves the emitter inside; tilusEmitEndLeader
// closes it and continues after it.
MlirOperation tilusEmitBeginLeader(TilusEmitter *e);
void tilusEmitEndLeader(TilusEmitter *e, MlirOperation ifOp);

// Whether the lowering supports `layout` as a register layout: it has no
// swizzle, so a thread's coordinates are a sum of thread modes.
bool tilusRegisterLayoutIsSupported(const TilusLayout *layout);

// The thread modes of a layout without swizzle (tilusLayoutGetThreadModes)
// in a malloc'ed array of *count entries the caller frees; NULL when the
// layout has a swizzle (or memory runs out, *count then -1).
TilusLayoutThreadMode *tilusGetThreadModes(const TilusLayout *layout,
                                           intptr_t *count);

// The coordinates f(t, 0) of thread `tid` (rank entries). False, with
// nothing emitted, if the layout has a swizzle (not a register layout the
// lowering supports).
bool tilusEmitThreadCoords(TilusEmitter *e, const TilusLayout *layout,
                           MlirValue tid, MlirValue *coords);

//===----------------------------------------------------------------------===//
// Shared-memory arrays (SharedArrays.c)
//===----------------------------------------------------------------------===//

// The address (!llvm.ptr<3>) of a shared-memory array in the gpu.module
// around `at`: with `dynamic`, the block's one dynamic shared buffer, named
// `prefix` and declared once; otherwise a new static array of `bytes`, named
// `prefix`_<n>, whose bytes are added to the enclosing gpu.func's
// tilus.static_shared_bytes. Null when `at` is not inside a gpu.module.
MlirValue tilusEmitSharedArray(TilusEmitter *e, MlirOperation at,
                               const char *prefix, int64_t bytes,
                               bool dynamic);

// The name of the block's dynamic shared buffer.
#define TILUS_DYNAMIC_SHARED_NAME "__tilus_dynamic_shared"

// Raises the declared alignment of the dynamic shared buffer (already
// declared in the gpu.module around `at`) to at least `alignment` bytes;
// false when it is not declared.
bool tilusRaiseSharedAlignment(TilusEmitter *e, MlirOperation at,
                               int64_t alignment);

//===----------------------------------------------------------------------===//
// Atomics (Atomics.c): relaxed ("monotonic") read-modify-writes at gpu scope
// (syncscope "device"), acquire loads and release stores
//===----------------------------------------------------------------------===//

// LLVM's AtomicRMWInst::BinOp numbering, as the LLVM dialect stores it.
typedef enum {
  TilusAtomicXchg = 0,
  TilusAtomicAdd = 1,
  TilusAtomicMax = 7,
  TilusAtomicMin = 8,
  TilusAtomicUMax = 9,
  TilusAtomicUMin = 10,
  TilusAtomicFAdd = 11,
  TilusAtomicFMax = 13,
  TilusAtomicFMin = 14,
} TilusAtomicBinOp;

// LLVM's AtomicOrdering numbering.
typedef enum {
  TilusAtomicOrderingMonotonic = 2,
  TilusAtomicOrderingAcquire = 4,
  TilusAtomicOrderingRelease = 5,
} TilusAtomicOrdering;

// llvm.atomicrmw `binOp` (`ordering`, gpu scope) of `value` at `ptr`; the
// old value.
MlirValue tilusEmitAtomicRMW(TilusEmitter *e, TilusAtomicBinOp binOp,
                             MlirValue ptr, MlirValue value,
                             TilusAtomicOrdering ordering);
// llvm.cmpxchg (monotonic, gpu scope) of integers; the old value.
MlirValue tilusEmitAtomicCAS(TilusEmitter *e, MlirValue ptr, MlirValue compare,
                             MlirValue value);
// llvm.fence with `ordering` (acquire, release or acq_rel) at gpu scope.
void tilusEmitFence(TilusEmitter *e, TilusAtomicOrdering ordering);
// An atomic load / store of `bytes` at `ptr` with `ordering` at gpu scope.
MlirValue tilusEmitAtomicLoad(TilusEmitter *e, MlirValue ptr, MlirType type,
                              TilusAtomicOrdering ordering, int64_t bytes);
void tilusEmitAtomicStore(TilusEmitter *e, MlirValue value, MlirValue ptr,
                          TilusAtomicOrdering ordering, int64_t bytes);
// `red.relaxed.gpu.global.add.noftz.f16x2` (or .bf16x2) of `pair`, a
// vector<2xf16> (vector<2xbf16>), at the 4-byte aligned global `ptr`. The
// caller checks that the target has it (TilusTargetInfo).
void tilusEmitPackedHalfAtomicAdd(TilusEmitter *e, MlirValue ptr,
                                  MlirValue pair, bool bf16);

//===----------------------------------------------------------------------===//
// Shared scratch of an op (Scratch.c)
//===----------------------------------------------------------------------===//

// The byte offset tilus-plan-shared gave `op`'s scratch of `bytes`
// (tilus.scratch_offset), checked to lie aligned inside the kernel's shared
// memory; false, with the reason in `why`, otherwise. Emits nothing.
bool tilusScratchOffset(MlirOperation op, int64_t bytes, int64_t *offset,
                        char *why, size_t size);
// The !llvm.ptr<3> of the scratch at `offset` in the dynamic shared buffer.
MlirValue tilusEmitScratch(TilusEmitter *e, MlirOperation op, int64_t offset);
// gpu.barrier; in a thread group, the group's named barrier (bar.sync
// 1 + first / 128, count).
void tilusEmitBarrier(TilusEmitter *e);
// The member mask of shfl.sync for the calling thread's warp in a block of
// `numThreads` (Warp.c): every lane, or the lanes of a short last warp.
MlirValue tilusEmitWarpMembers(TilusEmitter *e, int64_t numThreads);
// sum over d of f(tid, 0)[d] * coef[d] (index), for a layout without
// swizzle; null, with nothing emitted, otherwise.
MlirValue tilusEmitRowMajorAddress(TilusEmitter *e, const TilusLayout *layout,
                                   const int64_t *coef, MlirValue tid);

//===----------------------------------------------------------------------===//
// A growing list of operations (Emit.c), for walks that collect ops first
// and change them afterwards.
//===----------------------------------------------------------------------===//

typedef struct {
  MlirOperation *ops;
  size_t size, capacity;
  bool outOfMemory; // a push failed: the list is incomplete
} TilusOpList;

void tilusOpListPush(TilusOpList *list, MlirOperation op);
void tilusOpListRelease(TilusOpList *list);

//===----------------------------------------------------------------------===//
// Text delivered in pieces (MlirStringCallback), joined (Emit.c)
//===----------------------------------------------------------------------===//

// An MlirStringCallback that appends `piece` to the TilusStringBuffer
// `userData` (Utils/StringBuffer.h).
void tilusTextAppend(MlirStringRef piece, void *userData);

#endif // TILUS_LIB_CONVERSION_SUPPORT_SUPPORT_H
