/*===-- LayoutOracle.c - Brute-force layout queries, for the tests ---------===*/

#include "LayoutOracle.h"

#include <stdlib.h>
#include <string.h>

#define ORACLE_MAX_RANK TILUS_LAYOUT_MAX_RANK

bool oracleLocate(const TilusLayout *layout, const int64_t *index,
                  int64_t *thread, int64_t *local) {
  int64_t rank = tilusLayoutGetRank(layout);
  for (int64_t d = 0; d < rank; ++d)
    if (index[d] < 0 || index[d] >= tilusLayoutGetDim(layout, d))
      return false;
  int64_t x[ORACLE_MAX_RANK];
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      tilusLayoutEvaluate(layout, t, i, x);
      if (memcmp(x, index, sizeof(int64_t) * (size_t)rank) == 0) {
        if (thread)
          *thread = t;
        if (local)
          *local = i;
        return true;
      }
    }
  }
  return false;
}

void oracleLocateAll(const TilusLayout *layout, int64_t *first) {
  int64_t rank = tilusLayoutGetRank(layout);
  int64_t count = tilusLayoutGetNumElements(layout);
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  for (int64_t e = 0; e < count; ++e)
    first[e] = -1;
  int64_t x[ORACLE_MAX_RANK];
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      tilusLayoutEvaluate(layout, t, i, x);
      int64_t e = 0;
      for (int64_t d = 0; d < rank; ++d)
        e = e * tilusLayoutGetDim(layout, d) + x[d];
      if (first[e] < 0)
        first[e] = t * m + i;
    }
  }
}

bool oracleEqual(const TilusLayout *a, const TilusLayout *b) {
  if (!a || !b)
    return a == b;
  int64_t rank = tilusLayoutGetRank(a);
  int64_t T = tilusLayoutGetNumThreads(a), m = tilusLayoutGetLocalSize(a);
  if (rank != tilusLayoutGetRank(b) || T != tilusLayoutGetNumThreads(b) ||
      m != tilusLayoutGetLocalSize(b))
    return false;
  for (int64_t d = 0; d < rank; ++d)
    if (tilusLayoutGetDim(a, d) != tilusLayoutGetDim(b, d))
      return false;
  int64_t xa[ORACLE_MAX_RANK], xb[ORACLE_MAX_RANK];
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      tilusLayoutEvaluate(a, t, i, xa);
      tilusLayoutEvaluate(b, t, i, xb);
      if (memcmp(xa, xb, sizeof(int64_t) * (size_t)rank) != 0)
        return false;
    }
  }
  return true;
}

bool oracleIsValid(const TilusLayout *layout) {
  int64_t rank = tilusLayoutGetRank(layout);
  int64_t count = tilusLayoutGetNumElements(layout);
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  /* owner[e] = 1 + the last thread seen holding element e (0: none). */
  int64_t *owner = calloc((size_t)count, sizeof(int64_t));
  if (!owner)
    return false;
  int64_t covered = 0;
  bool valid = true;
  int64_t x[ORACLE_MAX_RANK];
  for (int64_t t = 0; t < T && valid; ++t) {
    for (int64_t i = 0; i < m && valid; ++i) {
      tilusLayoutEvaluate(layout, t, i, x);
      int64_t e = 0;
      for (int64_t d = 0; d < rank; ++d)
        e = e * tilusLayoutGetDim(layout, d) + x[d];
      if (owner[e] == t + 1)
        valid = false;
      covered += owner[e] == 0;
      owner[e] = t + 1;
    }
  }
  free(owner);
  return valid && covered == count;
}

/* Whether every aligned group of `width` slots is a run along the last dim. */
static bool slotsContiguous(const TilusLayout *layout, int64_t width) {
  int64_t base[ORACLE_MAX_RANK], x[ORACLE_MAX_RANK];
  int64_t last = tilusLayoutGetRank(layout) - 1;
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t g = 0; g < m; g += width) {
      tilusLayoutEvaluate(layout, t, g, base);
      for (int64_t j = 1; j < width; ++j) {
        tilusLayoutEvaluate(layout, t, g + j, x);
        if (x[last] != base[last] + j ||
            memcmp(x, base, sizeof(int64_t) * (size_t)last) != 0)
          return false;
      }
    }
  }
  return true;
}

int64_t oracleContiguity(const TilusLayout *layout) {
  int64_t m = tilusLayoutGetLocalSize(layout);
  int64_t width = 1;
  while (m % (2 * width) == 0 && slotsContiguous(layout, 2 * width))
    width *= 2;
  return width;
}

bool oracleRunsAreContiguous(const TilusLayout *layout, int64_t v) {
  int64_t rank = tilusLayoutGetRank(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  if (v < 1 || m % v)
    return false;
  int64_t prev[ORACLE_MAX_RANK], cur[ORACLE_MAX_RANK];
  for (int64_t a = 0; a < m; ++a) {
    tilusLayoutEvaluate(layout, 0, a, cur);
    if (a % v == 0) {
      if (cur[rank - 1] % v)
        return false;
    } else {
      for (int64_t d = 0; d < rank; ++d)
        if (cur[d] != prev[d] + (d == rank - 1))
          return false;
    }
    memcpy(prev, cur, sizeof(int64_t) * (size_t)rank);
  }
  return true;
}

/*--- Fragments ----------------------------------------------------------------*/

static void patternAt(const TilusLayoutFragment *f, int64_t rank, int64_t lane,
                      int64_t j, int64_t *offset) {
  for (int64_t d = 0; d < rank; ++d)
    offset[d] = 0;
  for (intptr_t k = 0; k < f->numLaneModes; ++k) {
    const TilusLayoutThreadMode *mode = &f->laneModes[k];
    if (mode->stride)
      offset[mode->dim] += lane / mode->divisor % mode->modulus * mode->stride;
  }
  for (intptr_t k = 0; k < f->numSlotModes; ++k) {
    const TilusLayoutThreadMode *mode = &f->slotModes[k];
    if (mode->stride)
      offset[mode->dim] += j / mode->divisor % mode->modulus * mode->stride;
  }
}

/* Whether warp w holds base + pattern(lane, j) at slots[j], j < n. */
static bool fragmentMatches(const TilusLayout *layout,
                            const TilusLayoutFragment *f, int64_t warp,
                            const int64_t *slots, const int64_t *base) {
  int64_t rank = tilusLayoutGetRank(layout);
  for (int64_t lane = 0; lane < f->numLanes; ++lane)
    for (int64_t j = 0; j < f->groupSize; ++j) {
      int64_t got[ORACLE_MAX_RANK], offset[ORACLE_MAX_RANK];
      tilusLayoutEvaluate(layout, f->numLanes * warp + lane, slots[j], got);
      patternAt(f, rank, lane, j, offset);
      for (int64_t d = 0; d < rank; ++d)
        if (got[d] != base[d] + offset[d])
          return false;
    }
  return true;
}

bool oracleMatchFragment(const TilusLayout *layout,
                         const TilusLayoutFragment *f, int64_t *slotsOut,
                         int64_t *basesOut) {
  int64_t rank = tilusLayoutGetRank(layout);
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout), n = f->groupSize;
  if (T % f->numLanes || m % n)
    return false;
  int64_t count = tilusLayoutGetNumElements(layout);
  /* Lane 0 of warp 0: which slot holds each position. */
  int64_t *slotAt = malloc(sizeof(int64_t) * (size_t)count);
  for (int64_t k = 0; k < count; ++k)
    slotAt[k] = -1;
  for (int64_t s = 0; s < m; ++s) {
    int64_t p[ORACLE_MAX_RANK], lin = 0;
    tilusLayoutEvaluate(layout, 0, s, p);
    for (int64_t d = 0; d < rank; ++d)
      lin = lin * tilusLayoutGetDim(layout, d) + p[d];
    slotAt[lin] = s;
  }
  int64_t numWarps = T / f->numLanes, numGroups = m / n;
  int64_t *slots = malloc(sizeof(int64_t) * (size_t)m);
  int64_t *bases =
      malloc(sizeof(int64_t) * (size_t)(rank * numWarps * numGroups));
  bool *used = calloc((size_t)m, sizeof(bool));
  bool ok = true;
  int64_t g = 0;
  for (int64_t s = 0; ok && s < m; ++s) {
    if (used[s])
      continue;
    int64_t p[ORACLE_MAX_RANK], first[ORACLE_MAX_RANK], base[ORACLE_MAX_RANK];
    tilusLayoutEvaluate(layout, 0, s, p);
    patternAt(f, rank, 0, 0, first);
    for (int64_t d = 0; d < rank; ++d)
      base[d] = p[d] - first[d];
    int64_t *group = &slots[g * n];
    for (int64_t j = 0; ok && j < n; ++j) {
      int64_t offset[ORACLE_MAX_RANK], lin = 0;
      patternAt(f, rank, 0, j, offset);
      bool inside = true;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t x = base[d] + offset[d], e = tilusLayoutGetDim(layout, d);
        inside = inside && x >= 0 && x < e;
        lin = lin * e + x;
      }
      group[j] = inside ? slotAt[lin] : -1;
      ok = group[j] >= 0 && !used[group[j]];
      if (ok)
        used[group[j]] = true;
    }
    ok = ok && fragmentMatches(layout, f, 0, group, base);
    if (ok) {
      memcpy(&bases[g * rank], base, sizeof(int64_t) * (size_t)rank);
      ++g;
    }
  }
  /* The other warps: the same groups around their own bases. */
  for (int64_t w = 1; ok && w < numWarps; ++w)
    for (int64_t k = 0; ok && k < numGroups; ++k) {
      int64_t p[ORACLE_MAX_RANK], first[ORACLE_MAX_RANK];
      int64_t *base = &bases[(w * numGroups + k) * rank];
      tilusLayoutEvaluate(layout, f->numLanes * w, slots[k * n], p);
      patternAt(f, rank, 0, 0, first);
      for (int64_t d = 0; d < rank; ++d)
        base[d] = p[d] - first[d];
      ok = fragmentMatches(layout, f, w, &slots[k * n], base);
    }
  if (ok && slotsOut)
    memcpy(slotsOut, slots, sizeof(int64_t) * (size_t)m);
  if (ok && basesOut)
    memcpy(basesOut, bases,
           sizeof(int64_t) * (size_t)(rank * numWarps * numGroups));
  free(slotAt);
  free(slots);
  free(bases);
  free(used);
  return ok;
}
