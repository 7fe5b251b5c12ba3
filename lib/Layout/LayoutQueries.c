/*===-- LayoutQueries.c - Equality, contiguity, locate, validity ------*- C -*-===*\
|*                                                                            *|
|* The queries work on the normal form (LayoutNormalForm.c), not on the      *|
|* (t, i) table: their cost grows with the number of pieces, not with T*m.   *|
|*                                                                            *|
|* Why digits decide equality. Take a function g on [0, N) that is a sum of  *|
|* digits (d_k, n_k, s_k, x_k) listed by divisor, d_0 = 1, d_(k+1) =         *|
|* d_k n_k, every n_k >= 2, and no neighbours that continue each other      *|
|* (same x, s_(k+1) = s_k n_k; replicated digits have s = 0 and never sit    *|
|* side by side). Then g(u) = u g(1) for u < n_0 while g(n_0) = s_1 e_(x_1)  *|
|* differs from n_0 g(1) (else digits 0 and 1 would continue each other).  *|
|* So g itself fixes n_0 (the first u where g stops being linear) and         *|
|* (s_0, x_0) (from g(1)), and u -> g(u n_0) is a digit sum of the remaining *|
|* digits: by induction, equal functions have equal lists. A layout         *|
|* f(t, i) = A(t) + B(i) has A(t) = f(t, 0) and B(i) = f(0, i), so two       *|
|* layouts without swizzle are equal exactly when their thread and local     *|
|* lists are (with rank, shape, T and m compared first).                     *|
|*                                                                            *|
|* Swizzles. A swizzle piece is opaque, but it lies between cuts (see        *|
|* tilusPiecesCutAt) and the layout is additive across cuts, so two layouts  *|
|* are compared block by block between cuts common to both. A block of      *|
|* digits on both sides compares as above. A block with a swizzle is equal  *|
|* when it is the same pieces with equal inner layouts (closed form), or,    *|
|* when both sides are XOR-linear (tilusPiecesAreBinary: every swizzle of    *|
|* real kernels), when they agree at the powers of two: log2 of the block's *|
|* size evaluations. A block that is neither (a swizzle of a shape that is   *|
|* not a power of two, compared with something else) is checked at a few     *|
|* spots, where a difference decides, and then walked, only up to           *|
|* TILUS_LAYOUT_WALK_LIMIT evaluations in all.                               *|
|*                                                                            *|
|* Contiguity and runs look at the first piece: a digit (1, n0, 1, last)     *|
|* with v | n0 gives runs of v, digits that do not start so give none, and  *|
|* a leading swizzle of a layout without swizzle is decided by a rule        *|
|* (leadingSwizzle). Otherwise only the slots below the first cut that v     *|
|* divides matter: decided from the powers of two when XOR-linear, else     *|
|* checked at a few spots and walked within the limit.                       *|
|* Locate inverts factor by factor (a swizzle's XOR is its own inverse), and *|
|* validity holds by construction. All of these are exact: the walks give    *|
|* the brute-force answer, and past the walk limit the public queries give a *|
|* documented safe answer instead (include/tilus-c/Layout.h).                *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <stdlib.h>
#include <string.h>

static bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

static bool hasSwizzle(const TilusPiece *pieces, int64_t count) {
  for (int64_t k = 0; k < count; ++k)
    if (pieces[k].swizzle)
      return true;
  return false;
}

/*--- Equality -----------------------------------------------------------------*/

static TilusAnswer equalWithin(const TilusLayout *a, const TilusLayout *b,
                               int64_t *walk);

/* Whether two piece lists over the same block are the same pieces: digits
 * equal, swizzles with the same parameters, scales and equal inner layouts.
 * (Different pieces may still make the same function.) */
static bool samePieces(const TilusPiece *a, int64_t na, const TilusPiece *b,
                       int64_t nb, int64_t rank, int64_t *walk) {
  if (na != nb)
    return false;
  for (int64_t k = 0; k < na; ++k) {
    if (!a[k].swizzle || !b[k].swizzle) {
      if (!tilusPiecesSameDigits(&a[k], 1, &b[k], 1))
        return false;
      continue;
    }
    const TilusFactor *fa = a[k].swizzle, *fb = b[k].swizzle;
    if (a[k].divisor != b[k].divisor || a[k].modulus != b[k].modulus ||
        fa->dim != fb->dim || fa->logStep != fb->logStep)
      return false;
    for (int64_t d = 0; d < rank; ++d) {
      if (fa->shape[d] != fb->shape[d])
        return false;
      if (fa->shape[d] > 1 && a[k].scale[d] != b[k].scale[d])
        return false;
    }
    if (equalWithin(fa->inner, fb->inner, walk) != TILUS_ANSWER_YES)
      return false;
  }
  return true;
}

/* Whether f(0, lo * v) agrees for a and b at every v in [0, size), or (when
 * powersOfTwo) at v = 1, 2, 4, ... < size. */
static bool agreeOnBlock(const TilusLayout *a, const TilusLayout *b,
                         int64_t lo, int64_t size, bool powersOfTwo) {
  int64_t xa[TILUS_LAYOUT_RANK_CAP], xb[TILUS_LAYOUT_RANK_CAP];
  for (int64_t v = 1; v < size; v = powersOfTwo ? 2 * v : v + 1) {
    tilusLayoutEvaluate(a, 0, lo * v, xa);
    tilusLayoutEvaluate(b, 0, lo * v, xb);
    if (memcmp(xa, xb, sizeof(int64_t) * (size_t)a->rank) != 0)
      return false;
  }
  return true;
}

/* Necessary conditions for a block [lo, lo * size) that only a walk could
 * settle: agreement at the powers of two, at both sides' piece boundaries
 * and at the block's last slot. A few evaluations, and usually enough to
 * tell different layouts apart. */
static bool agreeAtSpots(const TilusLayout *a, const TilusPiece *pa,
                         int64_t na, const TilusLayout *b, const TilusPiece *pb,
                         int64_t nb, int64_t lo, int64_t size) {
  if (!agreeOnBlock(a, b, lo, size, true))
    return false;
  int64_t xa[TILUS_LAYOUT_RANK_CAP], xb[TILUS_LAYOUT_RANK_CAP];
  for (int64_t k = 0; k < na + nb + 1; ++k) {
    int64_t start = k < na ? pa[k].divisor : k < na + nb ? pb[k - na].divisor
                                                         : lo * size;
    for (int64_t u = start - lo; u <= start; u += lo) {
      if (u < lo || u >= lo * size)
        continue;
      tilusLayoutEvaluate(a, 0, u, xa);
      tilusLayoutEvaluate(b, 0, u, xb);
      if (memcmp(xa, xb, sizeof(int64_t) * (size_t)a->rank) != 0)
        return false;
    }
  }
  return true;
}

/* The smallest cut of both lists above lo that lo divides (m at worst). */
static int64_t nextCommonCut(const TilusNormalForm *na,
                             const TilusNormalForm *nb, int64_t lo,
                             int64_t m) {
  int64_t best = m;
  for (int side = 0; side < 2; ++side) {
    const TilusNormalForm *nf = side ? nb : na;
    for (int64_t k = 0; k < nf->numLocal; ++k) {
      int64_t end = nf->local[k].divisor * nf->local[k].modulus;
      if (end > lo && end < best && end % lo == 0 &&
          tilusPiecesCutAt(na->local, na->numLocal, end) &&
          tilusPiecesCutAt(nb->local, nb->numLocal, end))
        best = end;
    }
  }
  return best;
}

/* Whether both sides are XOR-linear on the block with the same odd factor
 * wherever both write a coordinate (then agreeing at the powers of two is
 * agreeing everywhere; a side that does not write d is 0 there, and linear
 * maps that vanish at the powers of two vanish). */
static bool bothBinary(const TilusPiece *a, int64_t na, const TilusPiece *b,
                       int64_t nb, int64_t rank, int64_t size) {
  int64_t oddA[TILUS_LAYOUT_RANK_CAP], oddB[TILUS_LAYOUT_RANK_CAP];
  if (!isPowerOfTwo(size) || !tilusPiecesAreBinary(a, na, rank, oddA) ||
      !tilusPiecesAreBinary(b, nb, rank, oddB))
    return false;
  for (int64_t d = 0; d < rank; ++d)
    if (oddA[d] && oddB[d] && oddA[d] != oddB[d])
      return false;
  return true;
}

/* B_a == B_b for the local halves, block by block between common cuts. */
static TilusAnswer equalLocal(const TilusLayout *a, const TilusNormalForm *na,
                              const TilusLayout *b, const TilusNormalForm *nb,
                              int64_t *walk) {
  if (!na->hasSwizzle && !nb->hasSwizzle)
    return tilusPiecesSameDigits(na->local, na->numLocal, nb->local,
                                 nb->numLocal)
               ? TILUS_ANSWER_YES
               : TILUS_ANSWER_NO;
  TilusPiece *ra = malloc(sizeof(TilusPiece) * (size_t)(na->numLocal + 1));
  TilusPiece *rb = malloc(sizeof(TilusPiece) * (size_t)(nb->numLocal + 1));
  if (!ra || !rb) {
    free(ra);
    free(rb);
    return TILUS_ANSWER_UNKNOWN;
  }
  TilusAnswer answer = TILUS_ANSWER_YES;
  int64_t m = a->localSize, rank = a->rank;
  for (int64_t lo = 1, hi; lo < m && answer != TILUS_ANSWER_NO; lo = hi) {
    hi = nextCommonCut(na, nb, lo, m);
    int64_t size = hi / lo;
    int64_t ca = tilusPiecesRestrict(na->local, na->numLocal, lo, hi, ra);
    int64_t cb = tilusPiecesRestrict(nb->local, nb->numLocal, lo, hi, rb);
    if (!hasSwizzle(ra, ca) && !hasSwizzle(rb, cb)) {
      if (!tilusPiecesSameDigits(ra, ca, rb, cb))
        answer = TILUS_ANSWER_NO;
    } else if (samePieces(ra, ca, rb, cb, rank, walk)) {
      /* equal */
    } else if (bothBinary(ra, ca, rb, cb, rank, size)) {
      if (!agreeOnBlock(a, b, lo, size, true))
        answer = TILUS_ANSWER_NO;
    } else if (!agreeAtSpots(a, ra, ca, b, rb, cb, lo, size)) {
      answer = TILUS_ANSWER_NO;
    } else if (size <= *walk) {
      *walk -= size;
      if (!agreeOnBlock(a, b, lo, size, false))
        answer = TILUS_ANSWER_NO;
    } else {
      answer = TILUS_ANSWER_UNKNOWN; /* later blocks may still differ */
    }
  }
  free(ra);
  free(rb);
  return answer;
}

static TilusAnswer equalWithin(const TilusLayout *a, const TilusLayout *b,
                               int64_t *walk) {
  if (a->rank != b->rank || a->numThreads != b->numThreads ||
      a->localSize != b->localSize)
    return TILUS_ANSWER_NO;
  for (int64_t d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d])
      return TILUS_ANSWER_NO;
  TilusNormalForm na, nb;
  if (!tilusNormalFormBuild(a, &na))
    return TILUS_ANSWER_UNKNOWN;
  if (!tilusNormalFormBuild(b, &nb)) {
    tilusNormalFormRelease(&na);
    return TILUS_ANSWER_UNKNOWN;
  }
  TilusAnswer answer =
      tilusPiecesSameDigits(na.thread, na.numThread, nb.thread, nb.numThread)
          ? equalLocal(a, &na, b, &nb, walk)
          : TILUS_ANSWER_NO;
  tilusNormalFormRelease(&na);
  tilusNormalFormRelease(&nb);
  return answer;
}

TilusAnswer tilusLayoutEqualWithin(const TilusLayout *a, const TilusLayout *b,
                                   int64_t walkLimit) {
  return equalWithin(a, b, &walkLimit);
}

bool tilusLayoutEqual(const TilusLayout *a, const TilusLayout *b) {
  if (!a || !b)
    return a == b;
  /* Past the walk limit: unequal (see the header). */
  return tilusLayoutEqualWithin(a, b, TILUS_LAYOUT_WALK_LIMIT) ==
         TILUS_ANSWER_YES;
}

/*--- Runs along the last dimension --------------------------------------------*/

/* Whether every piece above the cut `from` adds a multiple of v to the last
 * coordinate. A swizzle of extent > 1 there reaches every value below its
 * extent (it is a bijection onto its box), 1 included. */
static bool aboveIsAligned(const TilusPiece *pieces, int64_t count,
                           int64_t from, int64_t v, int64_t last) {
  for (int64_t k = 0; k < count; ++k) {
    const TilusPiece *p = &pieces[k];
    if (p->divisor * p->modulus <= from)
      continue;
    if (p->swizzle) {
      if (p->swizzle->shape[last] > 1 && p->scale[last] % v != 0)
        return false;
    } else if (p->dim == last) {
      /* A digit straddling the cut keeps only its part above it. */
      int64_t stride =
          p->divisor < from ? p->stride * (from / p->divisor) : p->stride;
      if (stride % v != 0)
        return false;
    }
  }
  return true;
}

/* The smallest cut that v divides (m at worst, which v divides). */
static int64_t smallestCutMultiple(const TilusPiece *pieces, int64_t count,
                                   int64_t v, int64_t m) {
  for (int64_t k = 0; k < count; ++k) {
    const TilusPiece *p = &pieces[k];
    if (p->divisor % v == 0)
      return p->divisor;
    if (!p->swizzle) {
      int64_t need = v / gcd(v, p->divisor); /* d*a is a multiple of v */
      if (p->modulus % need == 0)
        return p->divisor * need;
    }
  }
  return m;
}

/* Over the slots [0, c), c a cut that v divides: whether every aligned group
 * of v slots maps to v consecutive indices along the last dimension (and,
 * when aligned, starts at a multiple of v there). Needs c evaluations. */
static bool groupsHoldByWalk(const TilusLayout *layout, int64_t v, int64_t c,
                             bool aligned) {
  int64_t base[TILUS_LAYOUT_RANK_CAP], x[TILUS_LAYOUT_RANK_CAP];
  int64_t last = layout->rank - 1;
  for (int64_t g = 0; g < c; g += v) {
    tilusLayoutEvaluate(layout, 0, g, base);
    if (aligned && base[last] % v != 0)
      return false;
    for (int64_t j = 1; j < v; ++j) {
      tilusLayoutEvaluate(layout, 0, g + j, x);
      if (x[last] != base[last] + j ||
          memcmp(x, base, sizeof(int64_t) * (size_t)last) != 0)
        return false;
    }
  }
  return true;
}

/* Whether the group around slot u (the group starting at g = u - u % v)
 * holds at u and at its last slot: a necessary condition, three
 * evaluations. */
static bool groupHoldsAt(const TilusLayout *layout, int64_t v, int64_t u,
                         bool aligned) {
  int64_t base[TILUS_LAYOUT_RANK_CAP], x[TILUS_LAYOUT_RANK_CAP];
  int64_t last = layout->rank - 1, g = u - u % v;
  tilusLayoutEvaluate(layout, 0, g, base);
  if (aligned && base[last] % v != 0)
    return false;
  for (int k = 0; k < 2; ++k) {
    int64_t at = k == 0 ? u : g + v - 1;
    tilusLayoutEvaluate(layout, 0, at, x);
    if (x[last] != base[last] + (at - g) ||
        memcmp(x, base, sizeof(int64_t) * (size_t)last) != 0)
      return false;
  }
  return true;
}

/* Necessary conditions over [0, c) that only a walk could settle: the groups
 * around the powers of two, around the piece boundaries and the last one. */
static bool groupsHoldAtSpots(const TilusLayout *layout,
                              const TilusPiece *pieces, int64_t count,
                              int64_t v, int64_t c, bool aligned) {
  for (int64_t u = 1; u < c; u *= 2)
    if (!groupHoldsAt(layout, v, u, aligned))
      return false;
  for (int64_t k = 0; k < count && pieces[k].divisor < c; ++k) {
    int64_t start = pieces[k].divisor;
    if (!groupHoldsAt(layout, v, start, aligned) ||
        !groupHoldsAt(layout, v, start - 1, aligned))
      return false;
  }
  return groupHoldsAt(layout, v, c - 1, aligned);
}

/* The same, from the values at the powers of two, for pieces over [0, c)
 * that are XOR-linear: there f(0, g + j) = f(0, g) XOR f(0, j) for the
 * group start g and j < v, which is f(0, g) + j e_last exactly when
 * f(0, j) = j e_last and the last coordinate of f(0, g) has no bit below v;
 * both follow from (and imply) the same at the powers of two. */
static bool groupsHoldByBits(const TilusLayout *layout, int64_t v, int64_t c) {
  int64_t x[TILUS_LAYOUT_RANK_CAP];
  int64_t last = layout->rank - 1;
  for (int64_t u = 1; u < c; u *= 2) {
    tilusLayoutEvaluate(layout, 0, u, x);
    if (u >= v) {
      if (x[last] % v != 0)
        return false;
      continue;
    }
    for (int64_t d = 0; d < last; ++d)
      if (x[d] != 0)
        return false;
    if (x[last] != u)
      return false;
  }
  return true;
}

static TilusAnswer groupsWithin(const TilusLayout *layout,
                                const TilusNormalForm *nf, int64_t v,
                                bool aligned, int64_t *walk);

/* The groups of v (a power of two) when the first piece is a swizzle S of
 * an inner layout I, over its slots [0, M). With f(0, 1) = e_last, S must
 * add 1 to the last coordinate (scale 1 there). If S XORs the last
 * coordinate, some group fails: the XORed value changes with the other
 * coordinates, reaching 1 (the swizzle is not a no-op), and the group it
 * lands in is permuted. Otherwise S holds when I's runs hold (aligned: the
 * groups start at multiples of v along last) and the XORed value
 * ((r >> logStep) mod n) is the same across each group, where r runs
 * through v consecutive values from a multiple of v: when v <= 2^logStep.
 * M is then a cut that v divides, so the groups above M hold too. For an I
 * without swizzle the converse holds as well (a group that fails in I fails
 * in S, which keeps I's other coordinates); with a swizzle in I only the
 * positive answer is given. UNKNOWN where this does not decide. */
static TilusAnswer leadingSwizzle(const TilusPiece *first, int64_t v,
                                  int64_t last) {
  if (!first->swizzle || !isPowerOfTwo(v))
    return TILUS_ANSWER_UNKNOWN;
  const TilusFactor *f = first->swizzle;
  TilusNormalForm inner;
  if (!tilusNormalFormBuild(f->inner, &inner))
    return TILUS_ANSWER_UNKNOWN;
  int64_t noWalk = 0;
  TilusAnswer innerRuns = groupsWithin(f->inner, &inner, v, true, &noWalk);
  bool holds = first->modulus % v == 0 && first->scale[last] == 1 &&
               f->dim != last && innerRuns == TILUS_ANSWER_YES &&
               v <= ((int64_t)1 << f->logStep);
  TilusAnswer answer = holds              ? TILUS_ANSWER_YES
                       : inner.hasSwizzle ? TILUS_ANSWER_UNKNOWN
                                          : TILUS_ANSWER_NO;
  tilusNormalFormRelease(&inner);
  return answer;
}

static TilusAnswer groupsWithin(const TilusLayout *layout,
                                const TilusNormalForm *nf, int64_t v,
                                bool aligned, int64_t *walk) {
  int64_t m = layout->localSize, last = layout->rank - 1;
  if (v == 1)
    return TILUS_ANSWER_YES;
  if (v < 1 || m % v != 0)
    return TILUS_ANSWER_NO;
  const TilusPiece *pieces = nf->local;
  int64_t count = nf->numLocal; /* >= 1, since m >= v >= 2 */
  const TilusPiece *first = &pieces[0];
  /* Closed form: a first digit (1, n0, 1, last) with v | n0 makes v a cut
   * with f(0, j) = j e_last below it, so every group is a run. */
  if (!first->swizzle && first->dim == last && first->stride == 1 &&
      first->modulus % v == 0) {
    if (!aligned || aboveIsAligned(pieces, count, v, v, last))
      return TILUS_ANSWER_YES;
    return TILUS_ANSWER_NO;
  }
  TilusAnswer leading = leadingSwizzle(first, v, last);
  if (leading != TILUS_ANSWER_UNKNOWN) {
    if (leading == TILUS_ANSWER_YES && aligned &&
        !aboveIsAligned(pieces, count, first->modulus, v, last))
      return TILUS_ANSWER_NO;
    return leading;
  }
  /* Groups never straddle a multiple of c, and across it the layout is
   * additive: only [0, c) matters, plus alignment above it. */
  int64_t c = smallestCutMultiple(pieces, count, v, m);
  bool swizzleBelow = false;
  for (int64_t k = 0; k < count && pieces[k].divisor < c; ++k)
    swizzleBelow = swizzleBelow || pieces[k].swizzle != NULL;
  /* Digits only below c: f(0, 1) != e_last, or the first digit ends at an
   * n0 that v does not divide, inside a group, where the next digit (which
   * does not continue it) breaks the run. */
  if (!swizzleBelow)
    return TILUS_ANSWER_NO;
  TilusAnswer answer = TILUS_ANSWER_UNKNOWN;
  TilusPiece *low = malloc(sizeof(TilusPiece) * (size_t)(count + 1));
  int64_t odd[TILUS_LAYOUT_RANK_CAP];
  if (!low)
    return TILUS_ANSWER_UNKNOWN;
  int64_t numLow = tilusPiecesRestrict(pieces, count, 1, c, low);
  if (isPowerOfTwo(c) && isPowerOfTwo(v) &&
      tilusPiecesAreBinary(low, numLow, layout->rank, odd)) {
    answer = groupsHoldByBits(layout, v, c) ? TILUS_ANSWER_YES
                                            : TILUS_ANSWER_NO;
  } else if (!groupsHoldAtSpots(layout, pieces, count, v, c, aligned)) {
    answer = TILUS_ANSWER_NO;
  } else if (c <= *walk) {
    *walk -= c;
    answer = groupsHoldByWalk(layout, v, c, aligned) ? TILUS_ANSWER_YES
                                                     : TILUS_ANSWER_NO;
  }
  free(low);
  if (answer == TILUS_ANSWER_YES && aligned &&
      !aboveIsAligned(pieces, count, c, v, last))
    answer = TILUS_ANSWER_NO;
  return answer;
}

TilusAnswer tilusLayoutGroupsWithin(const TilusLayout *layout, int64_t v,
                                    bool aligned, int64_t walkLimit) {
  if (v == 1)
    return TILUS_ANSWER_YES;
  if (v < 1 || layout->localSize % v != 0)
    return TILUS_ANSWER_NO;
  TilusNormalForm nf;
  if (!tilusNormalFormBuild(layout, &nf))
    return TILUS_ANSWER_UNKNOWN;
  TilusAnswer answer = groupsWithin(layout, &nf, v, aligned, &walkLimit);
  tilusNormalFormRelease(&nf);
  return answer;
}

bool tilusLayoutRunsAreContiguous(const TilusLayout *layout, int64_t v) {
  /* Past the walk limit: false (see the header). */
  return tilusLayoutGroupsWithin(layout, v, true, TILUS_LAYOUT_WALK_LIMIT) ==
         TILUS_ANSWER_YES;
}

int64_t tilusLayoutContiguityWithin(const TilusLayout *layout,
                                    int64_t walkLimit, bool *exact) {
  *exact = true;
  TilusNormalForm nf;
  if (!tilusNormalFormBuild(layout, &nf)) {
    *exact = false;
    return 1;
  }
  /* Runs of 2v contain runs of v, so the first failure ends the search. */
  int64_t width = 1;
  for (int64_t v = 2; layout->localSize % v == 0; v *= 2) {
    TilusAnswer answer = groupsWithin(layout, &nf, v, false, &walkLimit);
    if (answer != TILUS_ANSWER_YES) {
      *exact = answer == TILUS_ANSWER_NO;
      break;
    }
    width = v;
  }
  tilusNormalFormRelease(&nf);
  return width;
}

int64_t tilusLayoutGetContiguity(const TilusLayout *layout) {
  bool exact;
  return tilusLayoutContiguityWithin(layout, TILUS_LAYOUT_WALK_LIMIT, &exact);
}

/*--- Locate -------------------------------------------------------------------*/

/* The input u of a primitive factor whose output is x, with the digits of
 * replicated entries 0 (so the lowest such u). */
static int64_t primitiveInput(const TilusFactor *factor, int64_t rank,
                              const int64_t *x) {
  /* The full list from its slowest entry: rep[0], shape[0], ..., rep[rank]
   * in row order, the reverse in column order. */
  int64_t u = 0;
  for (int64_t q = 0; q < 2 * rank + 1; ++q) {
    int64_t entry = factor->column ? 2 * rank - q : q;
    bool isRep = entry % 2 == 0;
    int64_t d = entry / 2;
    u = isRep ? u * factor->rep[d] : u * factor->shape[d] + x[d];
  }
  return u;
}

bool tilusLayoutLocate(const TilusLayout *layout, const int64_t *index,
                       int64_t *thread, int64_t *local) {
  int64_t rank = layout->rank;
  int64_t rest[TILUS_LAYOUT_RANK_CAP], x[TILUS_LAYOUT_RANK_CAP];
  for (int64_t d = 0; d < rank; ++d) {
    if (index[d] < 0 || index[d] >= layout->shape[d])
      return false;
    rest[d] = index[d];
  }
  /* Every factor's output is one mixed-radix digit of each coordinate, so
   * the index splits into one output per factor, and each factor is
   * inverted on its own: a primitive by linearizing its output (replicated
   * thread digits 0: the lowest thread), a swizzle by XORing again (the
   * XORed value depends only on the other coordinates, which it keeps)
   * and locating the result in its inner layout. Every index of the shape
   * is held (see tilusLayoutIsValid), by one slot per thread. */
  int64_t t = 0, i = 0, threadScale = 1, localScale = 1;
  for (int64_t k = layout->numFactors - 1; k >= 0; --k) {
    const TilusFactor *f = &layout->factors[k];
    for (int64_t d = 0; d < rank; ++d) {
      x[d] = rest[d] % f->shape[d];
      rest[d] /= f->shape[d];
    }
    if (f->kind == TILUS_FACTOR_SPATIAL) {
      t += primitiveInput(f, rank, x) * threadScale;
    } else if (f->kind == TILUS_FACTOR_LOCAL) {
      i += primitiveInput(f, rank, x) * localScale;
    } else {
      int64_t r = 0, slot = 0;
      for (int64_t d = 0; d < rank; ++d)
        if (d != f->dim)
          r = r * f->shape[d] + x[d];
      x[f->dim] ^= (r >> f->logStep) % f->shape[f->dim];
      if (!tilusLayoutLocate(f->inner, x, NULL, &slot))
        return false; /* unreachable: the inner layout covers its shape */
      i += slot * localScale;
    }
    threadScale *= f->numThreads;
    localScale *= f->localSize;
  }
  if (thread)
    *thread = t;
  if (local)
    *local = i;
  return true;
}

/*--- Validity -----------------------------------------------------------------*/

bool tilusLayoutIsValid(const TilusLayout *layout) {
  /* Valid by construction. A primitive maps its input onto its box (every
   * shape entry is a digit of the input; replicated entries only repeat),
   * local ones one to one; a swizzle maps its inner layout's box onto
   * itself one to one (the XOR permutes coordinate dim, n_dim a power of
   * two, given the others, which it keeps); and a chain places the factors'
   * boxes as the mixed-radix digits of each coordinate. So every index of
   * the shape is held, and within a thread by exactly one slot. */
  return layout != NULL;
}
