//===- SharedAddress.c - Addresses in shared tensors -----------------------===//
//
// A shared tensor's layout f has one thread, and f(0, i) is the logical
// index stored at address i; an access needs the other direction, so the
// address of an index is computed by inverting f factor by factor: row- or
// column-major linearization for local factors, and for a swizzle the same
// XOR again (it is its own inverse) before inverting the swizzled layout.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"

#include <string.h>

#define MAX_RANK TILUS_LAYOUT_MAX_RANK



// Row-major (or column-major) linearization of x over shape, leaving out
// dimension `skip` (-1: none).
static MlirValue linearize(TilusEmitter *e, const MlirValue *x,
                           const int64_t *shape, int64_t rank, bool column,
                           int64_t skip) {
  MlirValue result = tilusEmitIndex(e, 0);
  for (int64_t k = 0; k < rank; ++k) {
    int64_t d = column ? rank - 1 - k : k;
    if (d == skip || shape[d] == 1)
      continue;
    result = tilusEmitAddIndex(e, tilusEmitMulIndexConst(e, result, shape[d]),
                               x[d]);
  }
  return result;
}

// The slot i of `layout` (one thread) with f(0, i) = x.
MlirValue tilusEmitSharedAddress(TilusEmitter *e, const TilusLayout *layout,
                             const MlirValue *coords) {
  int64_t rank = tilusLayoutGetRank(layout);
  MlirValue x[MAX_RANK];
  memcpy(x, coords, sizeof(MlirValue) * (size_t)rank);
  MlirValue address = tilusEmitIndex(e, 0);
  int64_t scale = 1;
  for (intptr_t k = tilusLayoutGetNumFactors(layout) - 1; k >= 0; --k) {
    TilusLayoutFactor f;
    tilusLayoutGetFactor(layout, k, &f);
    MlirValue part[MAX_RANK];
    for (int64_t d = 0; d < rank; ++d) {
      // The outermost factor takes what is left (the index is in bounds).
      part[d] = k == 0 ? x[d] : tilusEmitRemIndexConst(e, x[d], f.shape[d]);
      x[d] = k == 0 ? x[d] : tilusEmitDivIndexConst(e, x[d], f.shape[d]);
    }
    MlirValue slot;
    if (f.kind == TilusLayoutFactorSwizzle) {
      MlirValue r = linearize(e, part, f.shape, rank, false, f.dim);
      if (f.logStep)
        r = tilusEmitArith(e, "shrui", r, tilusEmitIndex(e, f.logStep));
      part[f.dim] = tilusEmitArith(e, "xori", part[f.dim],
                                   tilusEmitRemIndexConst(e, r, f.shape[f.dim]));
      slot = tilusEmitSharedAddress(e, f.inner, part);
    } else if (f.kind == TilusLayoutFactorLocal) {
      slot = linearize(e, part, f.shape, rank, f.column, -1);
    } else {
      slot = tilusEmitIndex(e, 0); // a spatial factor of one thread
    }
    address = tilusEmitAddIndex(e, address, tilusEmitMulIndexConst(e, slot, scale));
    scale *= f.localSize;
  }
  return address;
}

