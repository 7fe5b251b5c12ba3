//===- Lowering.h - Shared pieces of TilusToGPU ----------------*- C -*-===//
//
// How Tilus values are represented once lowered:
//   !tilus.ptr<T>          -> !llvm.ptr<1>
//   !tilus.global<...>     -> (!llvm.ptr<1>, one index per run-time dim)
//   !tilus.register<T,..>  -> vector<m x T>: thread t holds f(t, 0..m-1)
// A lowered value stands in for the Tilus value through an
// unrealized_conversion_cast to the Tilus type; patterns read their operands
// by looking through these casts, and reconcile-unrealized-casts removes them.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_CONVERSION_LOWERING_H
#define TILUS_LIB_CONVERSION_LOWERING_H

#include "Emit.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Rewrite.h"
#include "tilus-c/Layout.h"
#include "tilus-c/Types.h"

#define TILUS_GPU_MODULE "tilus_kernels"
#define TILUS_LOWERING_ERROR_ATTR "tilus.lowering_error"
// On a lowered gpu.func: the kernel's parameter types before lowering.
#define TILUS_PARAM_TYPES_ATTR "tilus.param_types"
// On a lowered gpu.func: bytes of global workspace (its pointer is then the
// last parameter); on each tilus.allocate_global: its byte offset in it.
#define TILUS_WORKSPACE_BYTES_ATTR "tilus.workspace_bytes"
#define TILUS_WORKSPACE_OFFSET_ATTR "tilus.workspace_offset"
// On a kernel (set by tilus-plan-shared, kept on its gpu.func): bytes of
// dynamic shared memory; on each tilus.allocate_shared: its byte offset.
#define TILUS_SHARED_BYTES_ATTR "tilus.shared_bytes"
#define TILUS_SHARED_OFFSET_ATTR "tilus.shared_offset"
// On a lowered gpu.func: bytes of static shared arrays (Dot's SIMT scratch).
#define TILUS_STATIC_SHARED_BYTES_ATTR "tilus.static_shared_bytes"

MlirType tilusLowerScalarType(MlirContext ctx, MlirType type);

// Moves `kernel` (a func.func marked tilus.kernel) into a gpu.func.
MlirLogicalResult tilusConvertKernelToGPU(MlirOperation module,
                                          MlirOperation kernel);

// The type a Tilus element type is computed in: integers become signless
// (arith's rule; signedness stays with the Tilus type), !tilus.float<e, m>
// an integer of its width, others are kept.
MlirType tilusStorageElementType(MlirContext ctx, MlirType elementType);
// Whether a Tilus integer element type is unsigned (uiN).
bool tilusElementIsUnsigned(MlirType elementType);

// Rebuilds every scf.for/if/while under `root` that carries register
// tensors with the lowered types (ControlFlow.c).
void tilusConvertControlFlowTypes(MlirOperation root);

// Casts of !tilus.float<e, m> vectors (stored as integers of their width)
// to and from vector<n x f32> (FloatCast.c).
MlirValue tilusEmitFloatDecode(TilusEmitter *e, MlirType format,
                               MlirValue value);
MlirValue tilusEmitFloatEncode(TilusEmitter *e, MlirType format,
                               MlirValue value);

// The fast Cast from uiN/siN (N <= 8) or !tilus.float to f16, bf16 or f32
// (FastCast.c): `x` is the source vector, `resultType` the result vector
// type. Null when no fast path applies; the generic path then converts.
MlirValue tilusEmitFastCast(TilusEmitter *e, MlirValue x, MlirType from,
                            MlirType to, MlirType resultType);

// Element `linear` of a compact tensor of `bits`-bit elements at `base` (a
// pointer of any address space): loaded as an i<bits> (SubByte.c), or
// `value` (an integer holding the bits) stored with atomic AND/OR on the
// 32-bit words that hold it.
MlirValue tilusEmitSubByteLoad(TilusEmitter *e, MlirValue base, int64_t bits,
                               MlirValue linear);
void tilusEmitSubByteStore(TilusEmitter *e, MlirValue base, int64_t bits,
                           MlirValue linear, MlirValue value);

// vector<m x T> for a register tensor (T its storage element type).
MlirType tilusRegisterStorageType(MlirContext ctx, const TilusTensorType *t);

// A register vector of sub-byte integers widened (zero- or sign-extended) to
// vector<m x i32>; other vectors unchanged. Elements are then extracted from
// the wide vector: the NVPTX back end miscompiles extractelement on some
// vectors of odd-width integers (vector<8xi3> from a bit cast, vector<12xi1>
// from fptoui), while whole-vector extensions of them are right.
MlirValue tilusEmitWidenSubByte(TilusEmitter *e, MlirValue vector,
                                bool isUnsigned);

// The lowered value behind a register tensor operand, or null if its
// producer is not lowered yet.
MlirValue tilusLoweredRegister(MlirValue value);

// gpu.thread_id x, as index.
MlirValue tilusEmitThreadIndex(TilusEmitter *e);

// The coordinates f(t, 0) of thread `tid` (rank entries). False if the
// layout has a swizzle (not a register layout the lowering supports).
bool tilusEmitThreadCoords(TilusEmitter *e, const TilusLayout *layout,
                           MlirValue tid, MlirValue *coords);

// Whether `value` is provably a multiple of `k`.
bool tilusIsMultipleOf(MlirValue value, int64_t k);

// Replaces `op`'s single result by a cast of `lowered` to its Tilus type.
void tilusReplaceWithLowered(MlirRewriterBase rewriter, TilusEmitter *e,
                             MlirOperation op, MlirValue lowered);

// Records why `op` cannot be lowered and returns failure; the pass reports
// the reason at the op if the op is still there at the end.
MlirLogicalResult tilusLoweringError(MlirOperation op, const char *message);

// The address (!llvm.ptr<3>) of a shared-memory array in the gpu.module
// around `at`: with `dynamic`, the block's one dynamic shared buffer, named
// `prefix` and declared once; otherwise a new static array of `bytes`, named
// `prefix`_<n>.
MlirValue tilusEmitSharedArray(TilusEmitter *e, MlirOperation at,
                               const char *prefix, int64_t bytes,
                               bool dynamic);

// A lowered global tensor: its pointer and its sizes as index values.
typedef struct {
  MlirValue ptr;
  intptr_t rank;
  MlirValue sizes[TILUS_LAYOUT_MAX_RANK];
  int64_t staticSizes[TILUS_LAYOUT_MAX_RANK]; // TILUS_DYNAMIC_DIM when known at run time
  MlirType elementType;          // the Tilus element type
} TilusGlobalView;

// The lowered form of a global tensor value (false if not lowered yet).
bool tilusGetGlobalView(TilusEmitter *e, MlirValue global, TilusGlobalView *view);

// The address (element index) of logical index `coords` in a shared tensor
// of one-thread layout `layout`: the slot i with f(0, i) = coords.
MlirValue tilusEmitSharedAddress(TilusEmitter *e, const TilusLayout *layout,
                                 const MlirValue *coords);

// Whether every aligned run of v addresses of a one-thread (shared) layout
// holds v consecutive, v-aligned indices along the last dimension
// (SharedMemory.c).
bool tilusSharedRunsAreContiguous(const TilusLayout *layout, int64_t v);

// A rank-2 register layout as warp-level matrix fragments (Fragments.c):
// groups of n slots that, in every warp w, hold base(w, g) + pattern(lane, j)
// for j < n; the same slots in every warp.
typedef void (*TilusFragmentPattern)(int64_t lane, int64_t j, int64_t *rowCol);
typedef struct {
  int64_t numWarps, numGroups;
  int64_t *slots; // group g's element j: slots[g * n + j]
  int64_t *bases; // base (row, col) of group g in warp w: bases[2 * (w * numGroups + g)]
} TilusFragments;
bool tilusFindFragments(const TilusLayout *layout, int n,
                        TilusFragmentPattern pattern, TilusFragments *out);
void tilusFragmentsRelease(TilusFragments *f);
// The group with base (row, col) in `warp`, or -1.
int64_t tilusFragmentsFind(const TilusFragments *f, int64_t warp, int64_t row,
                           int64_t col);

// Dot (t: the a, b, c tensor types; va, vb, vc their lowered vectors) on
// tensor cores when the layouts are made of mma.sync fragments (MmaDot.c);
// false (nothing emitted) when they are not.
bool tilusEmitMmaDot(TilusEmitter *e, MlirOperation op,
                     const TilusTensorType *t, MlirValue va, MlirValue vb,
                     MlirValue vc, MlirValue *result);

// LoadShared through ldmatrix when the register layout is made of 8x8
// matrix fragments (MatrixAccess.c); null when it is not (or not provably).
MlirValue tilusEmitMatrixLoad(TilusEmitter *e, MlirOperation op,
                              MlirValue shared, MlirType resultType);
// StoreShared of `value` through stmatrix, when the module's target has it
// (tilus.target sm_90/sm_90a) and the layout is made of the same fragments;
// false (nothing emitted) otherwise.
bool tilusEmitMatrixStore(TilusEmitter *e, MlirOperation op, MlirValue shared,
                          MlirValue value);

// Pattern sets of each area.
void tilusAddIndexingPatterns(MlirRewritePatternSet set, MlirContext ctx);
void tilusAddMemoryPatterns(MlirRewritePatternSet set, MlirContext ctx);
void tilusAddSharedMemoryPatterns(MlirRewritePatternSet set, MlirContext ctx);
void tilusAddRegisterPatterns(MlirRewritePatternSet set, MlirContext ctx);
void tilusAddControlPatterns(MlirRewritePatternSet set, MlirContext ctx);
void tilusAddDotPatterns(MlirRewritePatternSet set, MlirContext ctx);

// A rewrite pattern rooted at one op.
typedef struct {
  const char *opName;
  MlirLogicalResult (*rewrite)(MlirOperation op, MlirRewriterBase rewriter);
} TilusPattern;

// Adds `count` patterns (kept in a static table by the caller).
void tilusAddPatterns(MlirRewritePatternSet set, MlirContext ctx,
                      const TilusPattern *patterns, size_t count);

#endif // TILUS_LIB_CONVERSION_LOWERING_H
