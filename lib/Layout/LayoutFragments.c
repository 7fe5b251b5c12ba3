/*===-- LayoutFragments.c - Warp fragments from the normal form ------*- C -*-===*\
|*                                                                            *|
|* A fragment pattern offset(l, j) = lanes(l) + slots(j) is itself a sum of  *|
|* digits, and so is the layout: f(t, i) = A(t) + B(i). The layout holds the *|
|* pattern in every warp exactly when                                         *|
|*  - numLanes is a cut of the thread digits (A(wL + l) = A(wL) + A(l)) and  *|
|*    the thread digits below it are the lane modes (A(l) = lanes(l); both   *|
|*    normalized the same way, so equal functions are equal lists), and      *|
|*  - every slot mode (divisor jd, modulus jn, stride js along x) is found    *|
|*    in the local digits along x, starting at stride js: parts of one or    *|
|*    more digits (the digits along x hold strides as a mixed radix, so the  *|
|*    search is forced), none of them overlapping. A group is then one slot  *|
|*    s with zero in those parts plus the parts set from j, and            *|
|*    B(s + parts(j)) = B(s) + slots(j) because the parts are whole digits   *|
|*    of B's own.                                                             *|
|* The groups ordered by their first slot are the ones the greedy walk of    *|
|* tilusFindFragments finds: its smallest unused slot is always a group's    *|
|* element 0, and the slot it looks up for each j is the one above.          *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <stdlib.h>
#include <string.h>

/* The modes as normalized digits of [0, range) into out (room for
 * 2 * count + 1): by divisor, size 1 dropped, gaps filled with digits that
 * move nothing, neighbours that continue each other merged. False when the
 * modes overlap, are out of bounds or do not fit into range. */
static bool normalizeModes(const TilusLayoutThreadMode *modes, intptr_t count,
                           int64_t range, int64_t rank, TilusPiece *out,
                           int64_t *numOut) {
  *numOut = 0;
  TilusLayoutThreadMode *sorted =
      malloc(sizeof(TilusLayoutThreadMode) * (size_t)(count + 1));
  if (!sorted)
    return false;
  intptr_t n = 0;
  for (intptr_t k = 0; k < count; ++k) {
    const TilusLayoutThreadMode *mode = &modes[k];
    bool moves = mode->stride != 0;
    if (mode->divisor < 1 || mode->modulus < 1 || mode->stride < 0 ||
        (moves && (mode->dim < 0 || mode->dim >= rank))) {
      free(sorted);
      return false;
    }
    if (mode->modulus == 1)
      continue;
    intptr_t at = n++;
    for (; at > 0 && sorted[at - 1].divisor > mode->divisor; --at)
      sorted[at] = sorted[at - 1];
    sorted[at] = *mode;
  }
  int64_t end = 1;
  bool ok = true;
  for (intptr_t k = 0; k < n && ok; ++k) {
    const TilusLayoutThreadMode *mode = &sorted[k];
    ok = mode->divisor >= end && mode->divisor % end == 0 &&
         tilusLayoutCheckedMul(mode->divisor, mode->modulus) > 0;
    if (!ok)
      break;
    if (mode->divisor > end)
      tilusPiecesAppendDigit(out, numOut, end, mode->divisor / end, -1, 0);
    bool moves = mode->stride != 0;
    tilusPiecesAppendDigit(out, numOut, mode->divisor, mode->modulus,
                           moves ? mode->dim : -1, mode->stride);
    end = mode->divisor * mode->modulus;
  }
  free(sorted);
  if (!ok || end > range || range % end != 0)
    return false;
  if (end < range)
    tilusPiecesAppendDigit(out, numOut, end, range / end, -1, 0);
  return true;
}

/* Slot offset of part of a slot mode: ((j / jDivisor) % modulus) * slot. */
typedef struct {
  int64_t jDivisor, modulus, slot;
} SlotPart;

/* Finds the slot digits, digit by digit, into parts; false when one of
 * them is not made of local digits. */
static bool findSlotParts(const TilusNormalForm *nf,
                          const TilusPiece *slotDigits, int64_t numSlotDigits,
                          SlotPart *parts, int64_t *numParts) {
  *numParts = 0;
  for (int64_t q = 0; q < numSlotDigits; ++q) {
    const TilusPiece *digit = &slotDigits[q];
    if (digit->dim < 0)
      return false; /* two elements of a group at one index */
    int64_t stride = digit->stride, rest = digit->modulus;
    int64_t jDivisor = digit->divisor;
    while (rest > 1) {
      const TilusPiece *p = NULL;
      for (int64_t k = 0; k < nf->numLocal && !p; ++k) {
        const TilusPiece *c = &nf->local[k];
        if (!c->swizzle && c->dim == digit->dim && c->stride <= stride &&
            stride < c->stride * c->modulus && stride % c->stride == 0)
          p = c;
      }
      if (!p)
        return false;
      int64_t skip = stride / p->stride;
      if (p->modulus % skip != 0)
        return false;
      int64_t avail = p->modulus / skip, take;
      if (avail % rest == 0)
        take = rest;
      else if (rest % avail == 0)
        take = avail;
      else
        return false;
      parts[(*numParts)++] = (SlotPart){jDivisor, take, p->divisor * skip};
      jDivisor *= take;
      stride *= take;
      rest /= take;
    }
  }
  /* Parts are aligned sub-ranges of the slot index; none may overlap. */
  for (int64_t a = 0; a < *numParts; ++a)
    for (int64_t b = a + 1; b < *numParts; ++b) {
      const SlotPart *x = &parts[a], *y = &parts[b];
      if (x->slot < y->slot * y->modulus && y->slot < x->slot * x->modulus)
        return false;
    }
  return true;
}

/* Fills slots and bases for the parts found (work proportional to them). */
static bool writeGroups(const TilusLayout *layout, int64_t numLanes, int64_t n,
                        const SlotPart *parts, int64_t numParts,
                        int64_t *slots, int64_t *bases) {
  int64_t m = layout->localSize, groups = m / n, rank = layout->rank;
  int64_t *first = malloc(sizeof(int64_t) * (size_t)groups);
  if (!first)
    return false;
  int64_t g = 0;
  for (int64_t s = 0; s < m && g < groups; ++s) {
    bool isFirst = true;
    for (int64_t k = 0; k < numParts && isFirst; ++k)
      isFirst = (s / parts[k].slot) % parts[k].modulus == 0;
    if (!isFirst)
      continue;
    first[g] = s;
    for (int64_t j = 0; slots && j < n; ++j) {
      int64_t slot = s;
      for (int64_t k = 0; k < numParts; ++k)
        slot += (j / parts[k].jDivisor) % parts[k].modulus * parts[k].slot;
      slots[g * n + j] = slot;
    }
    ++g;
  }
  if (bases) {
    /* base(w, g) = f(w * numLanes, first(g)) = f(w * numLanes, 0) +
     * f(0, first(g)): the pattern's offset at (0, 0) is 0. */
    int64_t warp[TILUS_LAYOUT_RANK_CAP], slot[TILUS_LAYOUT_RANK_CAP];
    for (int64_t w = 0; w < layout->numThreads / numLanes; ++w) {
      tilusLayoutEvaluate(layout, w * numLanes, 0, warp);
      for (int64_t k = 0; k < groups; ++k) {
        tilusLayoutEvaluate(layout, 0, first[k], slot);
        for (int64_t d = 0; d < rank; ++d)
          bases[(w * groups + k) * rank + d] = warp[d] + slot[d];
      }
    }
  }
  free(first);
  return true;
}

bool tilusLayoutMatchFragment(const TilusLayout *layout,
                              const TilusLayoutFragment *fragment,
                              int64_t *slots, int64_t *bases) {
  int64_t numLanes = fragment->numLanes, n = fragment->groupSize;
  if (numLanes < 1 || n < 1 || layout->numThreads % numLanes != 0 ||
      layout->localSize % n != 0 || fragment->numLaneModes < 0 ||
      fragment->numSlotModes < 0)
    return false;
  TilusNormalForm nf;
  if (!tilusNormalFormBuild(layout, &nf))
    return false;
  size_t numLaneRoom = 2 * (size_t)fragment->numLaneModes + 1;
  size_t numSlotRoom = 2 * (size_t)fragment->numSlotModes + 1;
  size_t numPartRoom = numSlotRoom * (size_t)(nf.numLocal + 1);
  TilusPiece *lanes = malloc(sizeof(TilusPiece) * numLaneRoom);
  TilusPiece *slotDigits = malloc(sizeof(TilusPiece) * numSlotRoom);
  TilusPiece *low = malloc(sizeof(TilusPiece) * (size_t)(nf.numThread + 1));
  SlotPart *parts = malloc(sizeof(SlotPart) * numPartRoom);
  int64_t numLanePieces, numSlotDigits, numParts;
  bool ok = lanes && slotDigits && low && parts &&
            normalizeModes(fragment->laneModes, fragment->numLaneModes,
                           numLanes, layout->rank, lanes, &numLanePieces) &&
            normalizeModes(fragment->slotModes, fragment->numSlotModes, n,
                           layout->rank, slotDigits, &numSlotDigits) &&
            tilusPiecesCutAt(nf.thread, nf.numThread, numLanes);
  if (ok) {
    int64_t numLow =
        tilusPiecesRestrict(nf.thread, nf.numThread, 1, numLanes, low);
    ok = tilusPiecesSameDigits(low, numLow, lanes, numLanePieces) &&
         findSlotParts(&nf, slotDigits, numSlotDigits, parts, &numParts) &&
         /* The match is decided; only outputs cost work per slot. */
         ((!slots && !bases) ||
          writeGroups(layout, numLanes, n, parts, numParts, slots, bases));
  }
  free(lanes);
  free(slotDigits);
  free(low);
  free(parts);
  tilusNormalFormRelease(&nf);
  return ok;
}
