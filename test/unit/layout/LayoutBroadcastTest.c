/*===-- LayoutBroadcastTest.c - Broadcast slots against a brute force ---===*\
|*                                                                            *|
|* tilusLayoutBroadcastSlots decides in closed form whether every thread of   *|
|* an operand layout holds, at one slot j(i) shared by all threads, the       *|
|* element slot i of the result needs (broadcast coordinates set to 0). The   *|
|* oracle walks every (thread, slot) pair: the answer must be yes exactly     *|
|* when such slots exist, and the slots given must be right for every thread. *|
\*===----------------------------------------------------------------------===*/

#include "LayoutTestSupport.h"

/* Whether slot j of `o` holds, in every thread, what slot i of `r` needs. */
static bool slotServes(const TilusLayout *r, const TilusLayout *o,
                       const bool *drop, int64_t i, int64_t j) {
  int64_t rank = tilusLayoutGetRank(r);
  int64_t need[TILUS_LAYOUT_MAX_RANK], have[TILUS_LAYOUT_MAX_RANK];
  for (int64_t t = 0; t < tilusLayoutGetNumThreads(r); ++t) {
    tilusLayoutEvaluate(r, t, i, need);
    tilusLayoutEvaluate(o, t, j, have);
    for (int64_t d = 0; d < rank; ++d)
      if ((drop[d] ? 0 : need[d]) != have[d])
        return false;
  }
  return true;
}

/* Checks one (result, operand) pair against the oracle; returns the answer. */
static bool checkPair(const TilusLayout *r, const TilusLayout *o) {
  int64_t rank = tilusLayoutGetRank(r);
  bool drop[TILUS_LAYOUT_MAX_RANK] = {false};
  for (int64_t d = 0; d < rank; ++d)
    drop[d] = tilusLayoutGetDim(o, d) == 1 && tilusLayoutGetDim(r, d) != 1;
  int64_t m = tilusLayoutGetLocalSize(r), mo = tilusLayoutGetLocalSize(o);
  int64_t *slots = malloc(sizeof(int64_t) * (size_t)m);
  TilusLayoutError err;
  bool answer = tilusLayoutBroadcastSlots(r, o, slots, &err);
  bool exists = true;
  for (int64_t i = 0; i < m && exists; ++i) {
    bool found = false;
    for (int64_t j = 0; j < mo && !found; ++j)
      found = slotServes(r, o, drop, i, j);
    exists = found;
  }
  char *rt = tilusLayoutPrint(r), *ot = tilusLayoutPrint(o);
  char buffer[512];
  const char *text = buffer;
  snprintf(buffer, sizeof(buffer), "%s / %s: %s", rt, ot,
           answer ? "yes" : err.message);
  CHECK_L(answer == exists, text);
  if (answer)
    for (int64_t i = 0; i < m; ++i)
      CHECK_L(slots[i] >= 0 && slots[i] < mo &&
                  slotServes(r, o, drop, i, slots[i]),
              text);
  free(rt);
  free(ot);
  free(slots);
  return answer;
}

/* A primitive of rank 2: kind 0-3 (local, column_local, spatial,
 * column_spatial) over shape s. */
static TilusLayout *primitive2(int kind, const int64_t *s) {
  switch (kind) {
  case 0:
    return tilusLayoutCreateLocal(2, s, NULL);
  case 1:
    return tilusLayoutCreateColumnLocal(2, s, NULL);
  case 2:
    return tilusLayoutCreateSpatial(2, s, NULL);
  default:
    return tilusLayoutCreateColumnSpatial(2, s, NULL);
  }
}

/* Two chains of the same 1-3 random rank-2 primitives, so of one shape and
 * thread count: in order, and reversed with row and column order swapped in
 * the primitives (often a different layout, sometimes the same). */
static void randomChains(uint64_t *rng, TilusLayout **first,
                         TilusLayout **second) {
  static const int64_t extents[] = {1, 2, 3, 4};
  int64_t n = 1 + randomBelow(rng, 3);
  int kinds[3];
  int64_t shapes[3][2];
  for (int64_t k = 0; k < n; ++k) {
    kinds[k] = (int)randomBelow(rng, 4);
    shapes[k][0] = extents[randomBelow(rng, 4)];
    shapes[k][1] = extents[randomBelow(rng, 4)];
  }
  *first = *second = NULL;
  for (int64_t k = 0; k < n; ++k) {
    TilusLayout *a = primitive2(kinds[k], shapes[k]);
    TilusLayout *b = primitive2(
        kinds[n - 1 - k] ^ (randomBelow(rng, 2) ? 1 : 0), shapes[n - 1 - k]);
    TilusLayout *ca = *first ? tilusLayoutCompose(*first, a) : a;
    TilusLayout *cb = *second ? tilusLayoutCompose(*second, b) : b;
    if (*first) {
      tilusLayoutDestroy(*first);
      tilusLayoutDestroy(a);
    }
    if (*second) {
      tilusLayoutDestroy(*second);
      tilusLayoutDestroy(b);
    }
    *first = ca;
    *second = cb;
  }
}

void testBroadcastSlots(void) {
  /* Hand-written: the row and column operands of spatial(8,4).local(1,8). */
  TilusLayout *r = parse("spatial(8,4).local(1,8)");
  TilusLayout *row = parse("reduce(spatial(8,1,4), dims=[2])");
  TilusLayout *col = parse("reduce(spatial(8,1,4), dims=[0]).local(1,8)");
  TilusLayout *wrongRow = parse("reduce(column_spatial(8,4,1), dims=[1])");
  TilusLayout *wrongCol = parse("local(1,8).reduce(spatial(8,1,4), dims=[0])");
  CHECK(checkPair(r, row));
  CHECK(checkPair(r, col));
  CHECK(!checkPair(r, wrongRow));
  CHECK(!checkPair(r, wrongCol));
  int64_t d1 = 1;
  TilusLayout *source = tilusLayoutBroadcastSource(r, 1, &d1, NULL);
  CHECK(source && tilusLayoutEqual(source, row));
  tilusLayoutDestroy(source);
  /* A permuted local order still needs no data movement. */
  TilusLayout *r2 = parse("spatial(4,8).local(2,2)");
  TilusLayout *o2 = parse("spatial(4,8).column_local(2,2)");
  CHECK(checkPair(r2, o2));
  TilusLayout *layouts[] = {r, row, col, wrongRow, wrongCol, r2, o2};
  for (size_t k = 0; k < sizeof(layouts) / sizeof(layouts[0]); ++k)
    tilusLayoutDestroy(layouts[k]);

  /* Random results; each with the operand made by BroadcastSource (always
   * yes) and with another random layout of the broadcast shape. */
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  int yes = 0, no = 0;
  for (int n = 0; n < 400; ++n) {
    TilusLayout *res, *other;
    randomChains(&rng, &res, &other);
    int64_t dims[2], numDims = 0;
    for (int64_t d = 0; d < 2; ++d)
      if (randomBelow(&rng, 2))
        dims[numDims++] = d;
    TilusLayout *src = tilusLayoutBroadcastSource(res, numDims, dims, NULL);
    TilusLayout *otherSrc =
        tilusLayoutBroadcastSource(other, numDims, dims, NULL);
    CHECK(src != NULL && otherSrc != NULL);
    if (src && otherSrc) {
      bool ok = checkPair(res, src);
      CHECK(ok);
      if (checkPair(res, otherSrc))
        ++yes;
      else
        ++no;
    }
    tilusLayoutDestroy(res);
    tilusLayoutDestroy(src);
    tilusLayoutDestroy(other);
    tilusLayoutDestroy(otherSrc);
  }
  printf("broadcast slots: %d random pairs answered yes, %d no\n", yes, no);
  CHECK(yes > 0 && no > 0);
}
