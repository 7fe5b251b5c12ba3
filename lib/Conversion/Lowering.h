//===- Lowering.h - The state of one tilus-to-gpu run -----------*- C -*-===//
//
// How Tilus values are represented once lowered:
//   !tilus.ptr<T>          -> !llvm.ptr<1>
//   !tilus.global<...>     -> (!llvm.ptr<1>, one index per run-time dim)
//   !tilus.shared<...>     -> !llvm.ptr<3>
//   !tilus.register<T,..>  -> vector<m x T>: thread t holds f(t, 0..m-1)
// The one mapping from a Tilus value to its lowered values is an
// unrealized_conversion_cast from the lowered values to the Tilus type:
// patterns read their operands through tilusLoweredValues, and
// reconcile-unrealized-casts removes the casts at the end.
//
// The pass lowers the ops of each kernel in program order (a walk), so a
// pattern always finds its operands lowered. A pattern first decides,
// without touching the IR, whether and how it lowers its op; if it cannot,
// it returns tilusLoweringError (nothing emitted) and the pass reports that
// op, the first one that cannot be lowered, and stops. Otherwise it emits
// and succeeds. The driver checks this contract.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_CONVERSION_LOWERING_H
#define TILUS_LIB_CONVERSION_LOWERING_H

#include "Analysis/Analysis.h"
#include "tilus-c/Passes.h"
#include "tilus-c/TargetInfo.h"

#define TILUS_GPU_MODULE "tilus_kernels"

typedef struct TilusLowering {
  const TilusTargetInfo *target;
  TilusTypeCache *types; // tensor types, decoded once
  TilusPtrMap multiples; // the divisibility analysis' memo (Analysis.h)
  TilusPtrMap fragments; // register layouts' matrix fragments (Analysis.h)
  // The module has ops that read shared memory through the async proxy
  // (wgmma): each barrier then first makes the thread's ordinary shared
  // writes visible to it (fence.proxy.async.shared::cta).
  bool asyncProxyReadsShared;
  // Remarks about slow paths (Passes.h); NULL: off.
  TilusRemarkCallback onRemark;
  void *remarkUserData;
} TilusLowering;

// False when memory runs out.
bool tilusLoweringInit(TilusLowering *L, const TilusTargetInfo *target);
void tilusLoweringRelease(TilusLowering *L);

// The decoded tensor type `type` (owned by the lowering: do not release),
// or NULL when it is not a valid tensor type.
const TilusTensorType *tilusLoweringTensorType(TilusLowering *L, MlirType type);
// Fills *out with the decoded tensor type `type`, as cached: its layout is
// borrowed from the lowering (do not release it). Fails when `type` is not a
// valid tensor type.
MlirLogicalResult tilusLoweringDecode(TilusLowering *L, MlirType type,
                                      TilusTensorType *out);

// Whether the index value `value` is provably a multiple of `k`.
bool tilusLoweringIsMultipleOf(TilusLowering *L, MlirValue value, int64_t k);

// The matrix fragments of a register layout of a type this lowering decoded
// (tilusFragmentCacheFind); NULL when it has none of this pattern.
const TilusFragments *tilusLoweringFragments(TilusLowering *L,
                                             const TilusLayout *layout,
                                             const TilusLayoutFragment *pattern);

// The lowered values standing for `value` (at most `capacity` in `out`); their
// count, or -1 when `value` has no lowered form.
intptr_t tilusLoweredValues(MlirValue value, MlirValue *out, intptr_t capacity);
// The single lowered value of a register or shared tensor (or of a pointer),
// or null.
MlirValue tilusLoweredRegister(MlirValue value);

// Where operand group `group` (tilus-c/Ops.h) of a verified op starts.
intptr_t tilusOperandGroupStart(MlirOperation op, intptr_t group);

// Replaces `op`'s single result by `lowered` (through a cast to its Tilus type).
void tilusReplaceWithLowered(MlirRewriterBase rewriter, TilusEmitter *e,
                             MlirOperation op, MlirValue lowered);

// Whether remarks are on (patterns skip working out their reasons if not).
bool tilusLoweringRemarksOn(const TilusLowering *L);
// Gives the remark "<format...>" at `op` to the remark callback, if any.
void tilusLoweringRemark(TilusLowering *L, MlirOperation op, const char *format,
                         ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// Reports at `op` why it cannot be lowered and returns failure; a pattern
// calls it before it emits anything.
MlirLogicalResult tilusLoweringError(MlirOperation op, const char *message);

// tilusLoweringError for an instruction the target lacks: "<requirement>;
// this lowering is for <target>", e.g. requirement "wgmma needs the sm_90a
// target".
MlirLogicalResult tilusLoweringNeedsTarget(const TilusLowering *L,
                                           MlirOperation op,
                                           const char *requirement);

// A lowered global tensor: its pointer and its sizes as index values.
typedef struct {
  MlirValue ptr;
  intptr_t rank;
  MlirValue sizes[TILUS_LAYOUT_MAX_RANK];
  int64_t staticSizes[TILUS_LAYOUT_MAX_RANK]; // TILUS_DYNAMIC_DIM when known at run time
  MlirType elementType;          // the Tilus element type
} TilusGlobalView;

// The lowered form of a global tensor value (false if it has none). Emits
// the constant sizes.
bool tilusGetGlobalView(TilusEmitter *e, MlirValue global, TilusGlobalView *view);

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

// Lowers one op; the rewriter's insertion point is before it.
typedef MlirLogicalResult (*TilusLowerFn)(TilusLowering *L, MlirOperation op,
                                          MlirRewriterBase rewriter);

typedef struct {
  const char *opName;
  TilusLowerFn lower;
} TilusPattern;

// Moves `kernel` (a func.func marked tilus.kernel) into a gpu.func.
MlirLogicalResult tilusConvertKernelToGPU(MlirOperation module,
                                          MlirOperation kernel);

// The last step of lower-to-nvvm (KernelParams.c): the tensor-map
// parameters of each kernel's llvm.func become by-value grid constants.
MlirPass tilusCreateKernelParamsPass(void);

#endif // TILUS_LIB_CONVERSION_LOWERING_H
