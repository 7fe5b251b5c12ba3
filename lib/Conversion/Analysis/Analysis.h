//===- Analysis.h - Facts the patterns decide on ----------------*- C -*-===//
//
// Compile-time questions the lowering asks before it emits: which values are
// multiples of what (Divisibility.c), where a logical index sits in a shared
// tensor (SharedAddress.c), and whether a register layout is made of a warp
// instruction's matrix fragments (Fragments.c).
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_CONVERSION_ANALYSIS_ANALYSIS_H
#define TILUS_LIB_CONVERSION_ANALYSIS_ANALYSIS_H

#include "Support/Support.h"

//===----------------------------------------------------------------------===//
// Divisibility (Divisibility.c)
//===----------------------------------------------------------------------===//

// Whether the index value `value` is provably a multiple of `k`. `memo`
// remembers each value's answer (one map per lowering); powers of two are
// decided from the IR, other k only for constants.
bool tilusIsMultipleOf(TilusPtrMap *memo, MlirValue value, int64_t k);

//===----------------------------------------------------------------------===//
// Shared addressing (SharedAddress.c)
//===----------------------------------------------------------------------===//

// The address (element index) of logical index `coords` in a shared tensor
// of one-thread layout `layout`: the slot i with f(0, i) = coords.
MlirValue tilusEmitSharedAddress(TilusEmitter *e, const TilusLayout *layout,
                                 const MlirValue *coords);

//===----------------------------------------------------------------------===//
// Matrix fragments (Fragments.c)
//===----------------------------------------------------------------------===//

// The operand fragments of mma.sync m16n8k16 (f16, bf16: a, b) and m16n8k32
// (s8: a, b), and its 16x8 accumulator (also wgmma's, per warp).
extern const TilusLayoutFragment tilusFragmentA16, tilusFragmentB16,
    tilusFragmentC, tilusFragmentA8, tilusFragmentB8;

// A rank-2 register layout as warp-level matrix fragments: groups of n slots
// that, in every warp w, hold base(w, g) + pattern(lane, j) for j < n; the
// same slots in every warp. A pattern is a TilusLayoutFragment (Layout.h):
// its lane and slot digits.
typedef struct {
  int64_t numWarps, numGroups;
  int64_t *slots; // group g's element j: slots[g * n + j]
  int64_t *bases; // base (row, col) of group g in warp w: bases[2 * (w * numGroups + g)]
} TilusFragments;
bool tilusFindFragments(const TilusLayout *layout,
                        const TilusLayoutFragment *pattern, TilusFragments *out);
void tilusFragmentsRelease(TilusFragments *f);
// tilusFindFragments, remembered in `cache` (keys: layouts that outlive the
// cache); NULL when the layout is not made of such fragments. The result is
// owned by the cache, which tilusFragmentCacheRelease frees.
const TilusFragments *tilusFragmentCacheFind(TilusPtrMap *cache,
                                             const TilusLayout *layout,
                                             const TilusLayoutFragment *pattern);
void tilusFragmentCacheRelease(TilusPtrMap *cache);
// The group with base (row, col) in `warp`, or -1.
int64_t tilusFragmentsFind(const TilusFragments *f, int64_t warp, int64_t row,
                           int64_t col);

#endif // TILUS_LIB_CONVERSION_ANALYSIS_ANALYSIS_H
