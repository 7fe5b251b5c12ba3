//===- Fragments.c - Register layouts as warp-level matrix fragments ------===//
//
// ldmatrix and mma.sync give each lane of a warp a fixed pattern of a small
// matrix: lane l's element j sits at base + pattern(l, j). A rank-2
// register layout can use them when its slots split into groups of n that,
// in every warp, hold exactly such a pattern around some base; the groups
// (which slots) must be the same in every warp, since all warps run the same
// code, while the bases may differ. The layout algebra decides this in closed
// form from the layout's digits (tilusLayoutMatchFragment); the answers are
// cached per (layout, pattern) for the run.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"

#include <stdlib.h>
#include <string.h>

// The fragments of mma.sync m16n8k16 (f16, bf16) and m16n8k32 (s8), as
// digits {divisor, modulus, dim, stride}: lane l of a warp holds element j of
// a group at base + sum of lane digits of l + sum of slot digits of j.
//   a (f16): row l/4 + 8((j/2)%2), column 2(l%4) + j%2 + 8(j/4)
//   b (f16): row 2(l%4) + j%2 + 8(j/2), column l/4
//   c (f32): row l/4 + 8(j/2), column 2(l%4) + j%2
//   a (s8):  row l/4 + 8((j/4)%2), column 4(l%4) + j%4 + 16(j/8)
//   b (s8):  row 4(l%4) + j%4 + 16(j/4), column l/4
// wgmma's register operands are the same per warp (warp w of a warpgroup
// holding rows 16w..16w+15 of its 64).
static const TilusLayoutThreadMode kRowLanes2[] = {{1, 4, 1, 2}, {4, 8, 0, 1}};
static const TilusLayoutThreadMode kColLanes2[] = {{1, 4, 0, 2}, {4, 8, 1, 1}};
static const TilusLayoutThreadMode kRowLanes4[] = {{1, 4, 1, 4}, {4, 8, 0, 1}};
static const TilusLayoutThreadMode kColLanes4[] = {{1, 4, 0, 4}, {4, 8, 1, 1}};
static const TilusLayoutThreadMode kAHalfSlots[] = {{1, 2, 1, 1}, {2, 2, 0, 8}, {4, 2, 1, 8}};
static const TilusLayoutThreadMode kBHalfSlots[] = {{1, 2, 0, 1}, {2, 2, 0, 8}};
static const TilusLayoutThreadMode kCTileSlots[] = {{1, 2, 1, 1}, {2, 2, 0, 8}};
static const TilusLayoutThreadMode kAByteSlots[] = {{1, 4, 1, 1}, {4, 2, 0, 8}, {8, 2, 1, 16}};
static const TilusLayoutThreadMode kBByteSlots[] = {{1, 4, 0, 1}, {4, 2, 0, 16}};

const TilusLayoutFragment tilusFragmentA16 = {32, 8, 2, 3, kRowLanes2, kAHalfSlots};
const TilusLayoutFragment tilusFragmentB16 = {32, 4, 2, 2, kColLanes2, kBHalfSlots};
const TilusLayoutFragment tilusFragmentC = {32, 4, 2, 2, kRowLanes2, kCTileSlots};
const TilusLayoutFragment tilusFragmentA8 = {32, 16, 2, 3, kRowLanes4, kAByteSlots};
const TilusLayoutFragment tilusFragmentB8 = {32, 8, 2, 2, kColLanes4, kBByteSlots};

bool tilusFindFragments(const TilusLayout *layout,
                        const TilusLayoutFragment *pattern,
                        TilusFragments *out) {
  memset(out, 0, sizeof(*out));
  int64_t T = tilusLayoutGetNumThreads(layout), m = tilusLayoutGetLocalSize(layout);
  int64_t lanes = pattern->numLanes, n = pattern->groupSize;
  if (tilusLayoutGetRank(layout) != 2 || T % lanes || m % n)
    return false;
  out->numWarps = T / lanes;
  out->numGroups = m / n;
  out->slots = malloc(sizeof(int64_t) * (size_t)m);
  out->bases = malloc(sizeof(int64_t) * (size_t)(2 * out->numWarps * out->numGroups));
  if (!out->slots || !out->bases ||
      !tilusLayoutMatchFragment(layout, pattern, out->slots, out->bases)) {
    tilusFragmentsRelease(out);
    return false;
  }
  return true;
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

// One cached answer: the pattern, and the fragments when they were found.
typedef struct FragmentEntry {
  const TilusLayoutFragment *pattern;
  bool found;
  TilusFragments fragments;
  struct FragmentEntry *next;
} FragmentEntry;

const TilusFragments *tilusFragmentCacheFind(TilusPtrMap *cache,
                                             const TilusLayout *layout,
                                             const TilusLayoutFragment *pattern) {
  FragmentEntry *first = tilusPtrMapLookup(cache, layout);
  for (FragmentEntry *e = first; e; e = e->next)
    if (e->pattern == pattern)
      return e->found ? &e->fragments : NULL;
  FragmentEntry *entry = calloc(1, sizeof(*entry));
  if (!entry) // no memory for the cache: the answer is still right
    return NULL;
  entry->pattern = pattern;
  entry->found = tilusFindFragments(layout, pattern, &entry->fragments);
  entry->next = first;
  if (!tilusPtrMapInsert(cache, layout, entry)) {
    tilusFragmentsRelease(&entry->fragments);
    free(entry);
    return NULL;
  }
  return entry->found ? &entry->fragments : NULL;
}

void tilusFragmentCacheRelease(TilusPtrMap *cache) {
  for (size_t k = 0; k < cache->capacity; ++k) {
    if (!cache->keys[k])
      continue;
    for (FragmentEntry *e = cache->values[k], *next; e; e = next) {
      next = e->next;
      if (e->found)
        tilusFragmentsRelease(&e->fragments);
      free(e);
    }
  }
  tilusPtrMapRelease(cache);
}
