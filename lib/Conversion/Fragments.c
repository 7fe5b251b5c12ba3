//===- Fragments.c - Register layouts as warp-level matrix fragments ------===//
//
// ldmatrix and mma.sync give each lane of a warp a fixed pattern of a small
// matrix: lane l's element j sits at base + pattern(l, j). A rank-2
// register layout can use them when its slots split into groups of n that,
// in every warp, hold exactly such a pattern around some base; the groups
// (which slots) must be the same in every warp, since all warps run the same
// code, while the bases may differ. This is decided at compile time by
// evaluating the layout for every thread and slot.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <stdlib.h>
#include <string.h>

static void at(const TilusLayout *layout, int64_t thread, int64_t slot,
               int64_t *rowCol) {
  tilusLayoutEvaluate(layout, thread, slot, rowCol);
}

static bool matches(const TilusLayout *layout, int64_t warp, const int64_t *slots,
                    int n, TilusFragmentPattern pattern, const int64_t *base) {
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int j = 0; j < n; ++j) {
      int64_t got[2], offset[2];
      at(layout, 32 * warp + lane, slots[j], got);
      pattern(lane, j, offset);
      if (got[0] != base[0] + offset[0] || got[1] != base[1] + offset[1])
        return false;
    }
  return true;
}

bool tilusFindFragments(const TilusLayout *layout, int n,
                        TilusFragmentPattern pattern, TilusFragments *out) {
  memset(out, 0, sizeof(*out));
  int64_t T = tilusLayoutGetNumThreads(layout), m = tilusLayoutGetLocalSize(layout);
  if (tilusLayoutGetRank(layout) != 2 || T % 32 || m % n)
    return false;
  int64_t rows = tilusLayoutGetDim(layout, 0), cols = tilusLayoutGetDim(layout, 1);
  // Lane 0 of warp 0: which slot holds each position.
  int64_t *slotAt = malloc(sizeof(int64_t) * (size_t)(rows * cols));
  for (int64_t k = 0; k < rows * cols; ++k)
    slotAt[k] = -1;
  for (int64_t s = 0; s < m; ++s) {
    int64_t p[2];
    at(layout, 0, s, p);
    slotAt[p[0] * cols + p[1]] = s;
  }
  out->numWarps = T / 32;
  out->numGroups = m / n;
  out->slots = malloc(sizeof(int64_t) * (size_t)m);
  out->bases = malloc(sizeof(int64_t) * (size_t)(2 * out->numWarps * out->numGroups));
  bool *used = calloc((size_t)m, sizeof(bool));
  bool ok = true;
  int64_t g = 0;
  for (int64_t s = 0; ok && s < m; ++s) {
    if (used[s])
      continue;
    int64_t p[2], first[2], base[2];
    at(layout, 0, s, p);
    pattern(0, 0, first);
    base[0] = p[0] - first[0];
    base[1] = p[1] - first[1];
    int64_t *slots = &out->slots[g * n];
    for (int j = 0; ok && j < n; ++j) {
      int64_t offset[2];
      pattern(0, j, offset);
      int64_t r = base[0] + offset[0], c = base[1] + offset[1];
      slots[j] = r >= 0 && r < rows && c >= 0 && c < cols ? slotAt[r * cols + c] : -1;
      ok = slots[j] >= 0 && !used[slots[j]];
      if (ok)
        used[slots[j]] = true;
    }
    ok = ok && matches(layout, 0, slots, n, pattern, base);
    if (ok) {
      out->bases[2 * g] = base[0];
      out->bases[2 * g + 1] = base[1];
      ++g;
    }
  }
  // The other warps: the same groups around their own bases.
  for (int64_t w = 1; ok && w < out->numWarps; ++w)
    for (int64_t k = 0; ok && k < out->numGroups; ++k) {
      int64_t p[2], first[2], base[2];
      at(layout, 32 * w, out->slots[k * n], p);
      pattern(0, 0, first);
      base[0] = p[0] - first[0];
      base[1] = p[1] - first[1];
      ok = matches(layout, w, &out->slots[k * n], n, pattern, base);
      int64_t *b = &out->bases[2 * (w * out->numGroups + k)];
      b[0] = base[0];
      b[1] = base[1];
    }
  free(slotAt);
  free(used);
  if (!ok)
    tilusFragmentsRelease(out);
  return ok;
}

void tilusFragmentsRelease(TilusFragments *f) {
  free(f->slots);
  free(f->bases);
  f->slots = f->bases = NULL;
  f->numGroups = 0;
}

int64_t tilusFragmentsFind(const TilusFragments *f, int64_t warp, int64_t row,
                           int64_t col) {
  for (int64_t k = 0; k < f->numGroups; ++k) {
    const int64_t *b = &f->bases[2 * (warp * f->numGroups + k)];
    if (b[0] == row && b[1] == col)
      return k;
  }
  return -1;
}
