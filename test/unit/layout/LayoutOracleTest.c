/*===-- LayoutOracleTest.c - Closed-form queries against brute force ===*\
|*                                                                            *|
|* Generates thousands of layouts (compositions of local, spatial and their  *|
|* column twins of small random shapes, ranks 1-3, reductions, and swizzles  *|
|* of one-thread layouts, nested too, at several sizes) from a fixed seed    *|
|* and checks every closed-form query against the brute-force oracle         *|
|* (LayoutOracle.c) on each: equality on pairs of equal header (many of them *|
|* equal with different factor chains), contiguity, runs, locate, validity.  *|
|* Each query is checked twice: as the library answers it, and with no walk  *|
|* allowed at all, where an answer other than UNKNOWN must also be right.    *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"
#include "LayoutOracle.h"
#include "LayoutTestSupport.h"

typedef struct {
  int64_t checked, undecided, failed;
} Tally;

typedef struct {
  Tally layouts, equal, contiguity, runs, locate, valid;
  int64_t equalPairs, structurallyDifferent;
} Stats;

static void tally(Tally *t, bool ok, bool undecided) {
  ++t->checked;
  t->undecided += undecided;
  t->failed += !ok;
}

static void report(const TilusLayout *a, const TilusLayout *b,
                   const char *what) {
  char *ta = tilusLayoutPrint(a), *tb = b ? tilusLayoutPrint(b) : NULL;
  printf("  oracle mismatch (%s): %s%s%s\n", what, ta ? ta : "(null)",
         tb ? " vs " : "", tb ? tb : "");
  free(ta);
  free(tb);
}

/*--- Generation ---------------------------------------------------------------*/

typedef struct {
  const int64_t *extents; /* shape entries to draw from */
  int numExtents;
  int maxRank;
  bool oneThread;
  int64_t maxSize; /* T * m */
} Family;

static int64_t sizeOf(const TilusLayout *l) {
  return l ? tilusLayoutGetNumThreads(l) * tilusLayoutGetLocalSize(l) : 1;
}

/* Composes acc.next, taking both (either may be NULL). */
static TilusLayout *append(TilusLayout *acc, TilusLayout *next) {
  if (!acc || !next)
    return acc ? acc : next;
  TilusLayout *result = tilusLayoutCompose(acc, next);
  tilusLayoutDestroy(acc);
  tilusLayoutDestroy(next);
  return result;
}

static TilusLayout *randomPrimitive(uint64_t *rng, const Family *fam,
                                    int64_t room) {
  int kind = (int)randomBelow(rng, fam->oneThread ? 2 : 5);
  int rank = 1 + (int)randomBelow(rng, fam->maxRank);
  bool reduced = kind == 4;
  int full = reduced ? rank + 1 : rank;
  int64_t shape[4], size = 1;
  for (int d = 0; d < full; ++d) {
    int64_t e = fam->extents[randomBelow(rng, fam->numExtents)];
    if (size * e > room)
      e = 1;
    shape[d] = e;
    size *= e;
  }
  if (kind == 0)
    return tilusLayoutCreateLocal(rank, shape, NULL);
  if (kind == 1)
    return tilusLayoutCreateColumnLocal(rank, shape, NULL);
  bool column = randomBelow(rng, 2) == 1;
  TilusLayout *s = column ? tilusLayoutCreateColumnSpatial(full, shape, NULL)
                          : tilusLayoutCreateSpatial(full, shape, NULL);
  if (!reduced)
    return s;
  int64_t dim = randomBelow(rng, full);
  TilusLayout *r = tilusLayoutReduce(s, 1, &dim, NULL);
  tilusLayoutDestroy(s);
  return r;
}

static TilusLayout *randomLayout(uint64_t *rng, const Family *fam, int depth);

/* swizzle(inner) of a random one-thread inner layout, or NULL. */
static TilusLayout *randomSwizzle(uint64_t *rng, const Family *fam, int depth,
                                  int64_t room) {
  Family inner = *fam;
  inner.oneThread = true;
  inner.maxRank = fam->maxRank < 2 ? 2 : fam->maxRank;
  inner.maxSize = room;
  TilusLayout *base = randomLayout(rng, &inner, depth + 1);
  if (base && tilusLayoutGetRank(base) < 2) {
    TilusLayout *wide = tilusLayoutBroadcast(base, 2, NULL);
    tilusLayoutDestroy(base);
    base = wide;
  }
  if (!base)
    return NULL;
  int64_t rank = tilusLayoutGetRank(base), dims[8], n = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t e = tilusLayoutGetDim(base, d);
    if ((e & (e - 1)) == 0 && e > 1)
      dims[n++] = d;
  }
  TilusLayout *result = NULL;
  if (n > 0)
    result = tilusLayoutSwizzle(base, dims[randomBelow(rng, n)],
                                randomBelow(rng, 4), NULL);
  tilusLayoutDestroy(base);
  return result;
}

static TilusLayout *randomLayout(uint64_t *rng, const Family *fam, int depth) {
  int n = 1 + (int)randomBelow(rng, 4);
  TilusLayout *acc = NULL;
  bool swizzled = false;
  for (int k = 0; k < n; ++k) {
    int64_t room = fam->maxSize / sizeOf(acc);
    if (room < 1)
      break;
    TilusLayout *next = NULL;
    if (depth < 2 && randomBelow(rng, fam->oneThread ? 3 : 6) == 0) {
      next = randomSwizzle(rng, fam, depth, room);
      swizzled = swizzled || next != NULL;
    } else {
      next = randomPrimitive(rng, fam, room);
    }
    acc = append(acc, next);
  }
  /* Sometimes reduce the whole chain (only defined without swizzles). */
  if (acc && !swizzled && tilusLayoutGetRank(acc) >= 2 &&
      randomBelow(rng, 5) == 0) {
    int64_t dim = randomBelow(rng, tilusLayoutGetRank(acc));
    TilusLayout *r = tilusLayoutReduce(acc, 1, &dim, NULL);
    tilusLayoutDestroy(acc);
    acc = r;
  }
  return acc;
}

/*--- Checks on one layout -----------------------------------------------------*/

static void checkOne(const TilusLayout *l, Stats *s) {
  ++s->layouts.checked;

  bool exact;
  int64_t want = oracleContiguity(l);
  int64_t got0 = tilusLayoutContiguityWithin(l, 0, &exact);
  bool ok = tilusLayoutGetContiguity(l) == want &&
            (exact ? got0 == want : got0 <= want);
  tally(&s->contiguity, ok, !exact);
  if (!ok)
    report(l, NULL, "contiguity");

  int64_t m = tilusLayoutGetLocalSize(l);
  int64_t widths[] = {1, 2, 3, 4, 8, 16, 32, m, 2 * m, 0};
  for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); ++k) {
    int64_t v = widths[k];
    bool expect = oracleRunsAreContiguous(l, v);
    TilusAnswer closed = tilusLayoutGroupsWithin(l, v, true, 0);
    bool okRun = tilusLayoutRunsAreContiguous(l, v) == expect &&
                 (closed == TILUS_ANSWER_UNKNOWN ||
                  (closed == TILUS_ANSWER_YES) == expect);
    tally(&s->runs, okRun, closed == TILUS_ANSWER_UNKNOWN);
    if (!okRun)
      report(l, NULL, "runs");
  }

  bool validOk = tilusLayoutIsValid(l) == oracleIsValid(l);
  tally(&s->valid, validOk, false);
  if (!validOk)
    report(l, NULL, "validity");

  /* Locate: every index, and a few just outside the shape. */
  int64_t rank = tilusLayoutGetRank(l), count = tilusLayoutGetNumElements(l);
  int64_t *first = malloc(sizeof(int64_t) * (size_t)count);
  oracleLocateAll(l, first);
  bool locateOk = true;
  for (int64_t e = 0; e < count + 2 * rank; ++e) {
    int64_t index[8], rest = e % count;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t n = tilusLayoutGetDim(l, d);
      index[d] = rest % n;
      rest /= n;
    }
    bool inside = e < count;
    if (!inside) { /* -1 or the extent along one dimension */
      int64_t d = (e - count) / 2;
      index[d] = (e - count) % 2 ? -1 : tilusLayoutGetDim(l, d);
    }
    int64_t t = -1, i = -1;
    bool found = tilusLayoutLocate(l, index, &t, &i);
    if (inside)
      locateOk = locateOk && found == (first[e] >= 0) &&
                 (!found || t * m + i == first[e]);
    else
      locateOk = locateOk && !found;
  }
  free(first);
  tally(&s->locate, locateOk, false);
  if (!locateOk)
    report(l, NULL, "locate");
}

static void checkPair(const TilusLayout *a, const TilusLayout *b, Stats *s) {
  bool want = oracleEqual(a, b);
  TilusAnswer closed = tilusLayoutEqualWithin(a, b, 0);
  bool ok = tilusLayoutEqual(a, b) == want &&
            (closed == TILUS_ANSWER_UNKNOWN ||
             (closed == TILUS_ANSWER_YES) == want);
  tally(&s->equal, ok, closed == TILUS_ANSWER_UNKNOWN);
  if (!ok)
    report(a, b, "equality");
  if (want) {
    ++s->equalPairs;
    char *ta = tilusLayoutPrint(a), *tb = tilusLayoutPrint(b);
    s->structurallyDifferent += ta && tb && strcmp(ta, tb) != 0;
    free(ta);
    free(tb);
  }
}

/*--- Equal pairs with different chains ----------------------------------------*/

/* Layouts that are equal by the swizzle's definition but built differently:
 *  swizzle(L, 1, s).local(k, 1) = swizzle(L.local(k, 1), 1, s + log k)
 *  local(k, 1).swizzle(local(a, b), 1, 0) = swizzle(local(k a, b), 1, 0)
 *      (b | a)
 *  swizzle(local(c, a, b), 2, s) = local(c,1,1).swizzle(local(1,a,b),2,s)
 *      (a = 2^s b, so r >> s mod b ignores the first coordinate)
 * and chains that associate differently, e.g. local(2,2).local(2,1) =
 * local(2,1).column_local(2,2). */
static void checkKnownIdentities(uint64_t *rng, Stats *s) {
  char ta[256], tb[256];
  for (int iter = 0; iter < 200; ++iter) {
    int64_t a = (int64_t)1 << (1 + randomBelow(rng, 3));
    int64_t b = (int64_t)1 << (1 + randomBelow(rng, 3));
    int64_t k = (int64_t)1 << randomBelow(rng, 3);
    int64_t c = 1 + randomBelow(rng, 3);
    int64_t step = randomBelow(rng, 3);
    int64_t logK = 0;
    while (((int64_t)1 << logK) < k)
      ++logK;
    switch (iter % 4) {
    case 0:
      snprintf(ta, sizeof(ta),
               "local(%lld,1).swizzle(local(%lld,%lld),dim=1,log_step=%lld)"
               ".local(%lld,1)",
               (long long)c, (long long)a, (long long)b, (long long)step,
               (long long)k);
      snprintf(tb, sizeof(tb),
               "local(%lld,1).swizzle(local(%lld,%lld).local(%lld,1),dim=1,"
               "log_step=%lld)",
               (long long)c, (long long)a, (long long)b, (long long)k,
               (long long)(step + logK));
      break;
    case 1:
      snprintf(ta, sizeof(ta),
               "local(%lld,1).swizzle(local(%lld,%lld),dim=1).local(1,%lld)",
               (long long)k, (long long)(a * b), (long long)b, (long long)c);
      snprintf(tb, sizeof(tb), "swizzle(local(%lld,%lld),dim=1).local(1,%lld)",
               (long long)(k * a * b), (long long)b, (long long)c);
      break;
    case 2: {
      int64_t wide = b << step; /* a >= 2^s b */
      snprintf(ta, sizeof(ta),
               "swizzle(local(%lld,%lld,%lld),dim=2,log_step=%lld)",
               (long long)c, (long long)wide, (long long)b, (long long)step);
      snprintf(tb, sizeof(tb),
               "local(%lld,1,1).swizzle(local(1,%lld,%lld),dim=2,"
               "log_step=%lld)",
               (long long)c, (long long)wide, (long long)b, (long long)step);
      break;
    }
    default:
      snprintf(ta, sizeof(ta), "spatial(%lld,1).local(%lld,%lld).local(%lld,1)",
               (long long)c, (long long)a, (long long)b, (long long)k);
      snprintf(tb, sizeof(tb),
               "spatial(%lld,1).local(%lld,1).column_local(%lld,%lld)",
               (long long)c, (long long)a, (long long)k, (long long)b);
      break;
    }
    const char *label = ta;
    TilusLayout *la = parse(ta), *lb = parse(tb);
    CHECK_L(la && lb, label);
    if (la && lb) {
      checkPair(la, lb, s);
      CHECK_L(tilusLayoutEqual(la, lb), label);
    }
    tilusLayoutDestroy(la);
    tilusLayoutDestroy(lb);
  }
}

/*--- Layouts too large for any walk -------------------------------------------*/

/* Queries on layouts of up to 2^33 slots answer at once (no walk could);
 * the answers are checked against the layout function at sample points. */
static void checkLargeLayouts(void) {
  struct {
    const char *a, *b;
    bool equal;
  } pairs[] = {
      /* Power-of-two swizzles: decided from the powers of two. */
      {"local(1024,1,1).swizzle(local(1,256,64),dim=2).local(1,1,8)",
       "swizzle(local(1024,256,64),dim=2).local(1,1,8)", true},
      {"local(4096,1,1).swizzle(local(1,512,64),dim=2,log_step=1).local(1,1,8)",
       "local(4096,1,1).swizzle(local(1,512,64),dim=2,log_step=2).local(1,1,8)",
       false},
      /* Not powers of two: the same structure is closed form... */
      {"local(3000,1).swizzle(local(3000,64),dim=1).local(1,8)",
       "local(3000,1).swizzle(local(3000,64),dim=1).local(1,8)", true},
      /* ...and a difference shows at the spots checked. */
      {"swizzle(local(3000,192,64),dim=2).local(1,1,8)",
       "local(3000,1,1).swizzle(local(1,192,64),dim=2,log_step=1)"
       ".local(1,1,8)",
       false},
  };
  for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); ++k) {
    TilusLayout *a = parse(pairs[k].a), *b = parse(pairs[k].b);
    CHECK_L(a && b && tilusLayoutGetLocalSize(a) > ((int64_t)1 << 24),
            pairs[k].a);
    if (!a || !b)
      continue;
    CHECK_L(tilusLayoutEqual(a, b) == pairs[k].equal, pairs[k].a);
    CHECK_L(tilusLayoutEqualWithin(a, b, 0) ==
                (pairs[k].equal ? TILUS_ANSWER_YES : TILUS_ANSWER_NO),
            pairs[k].a);
    tilusLayoutDestroy(a);
    tilusLayoutDestroy(b);
  }
  /* Equal, but with different swizzle structures of 2^27 slots that are
   * not powers of two: past the walk limit, so unequal (the safe answer,
   * see Layout.h) rather than a walk. */
  TilusLayout *a = parse("swizzle(local(3000,192,64),dim=2).local(1,1,8)");
  TilusLayout *b =
      parse("local(3000,1,1).swizzle(local(1,192,64),dim=2).local(1,1,8)");
  CHECK(a && b && tilusLayoutEqualWithin(a, b, TILUS_LAYOUT_WALK_LIMIT) ==
                      TILUS_ANSWER_UNKNOWN);
  CHECK(a && b && !tilusLayoutEqual(a, b));
  /* Contiguity and runs of the large shared layouts, and locate as the
   * inverse of evaluate at sample slots. */
  CHECK(a && tilusLayoutGetContiguity(a) == 8);
  CHECK(a && tilusLayoutRunsAreContiguous(a, 8) &&
        !tilusLayoutRunsAreContiguous(a, 16));
  bool inverse = a != NULL;
  uint64_t rng = 99;
  for (int k = 0; inverse && k < 1000; ++k) {
    int64_t i = randomBelow(&rng, tilusLayoutGetLocalSize(a)), x[3], t, back;
    tilusLayoutEvaluate(a, 0, i, x);
    inverse = tilusLayoutLocate(a, x, &t, &back) && t == 0 && back == i;
  }
  CHECK(inverse);
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
}

/*--- Buckets of equal header --------------------------------------------------*/

typedef struct {
  TilusLayout *layout;
  int64_t key[12]; /* rank, T, m, shape */
} Entry;

static int compareEntries(const void *pa, const void *pb) {
  const Entry *a = pa, *b = pb;
  for (int k = 0; k < 12; ++k)
    if (a->key[k] != b->key[k])
      return a->key[k] < b->key[k] ? -1 : 1;
  return 0;
}

static void setKey(Entry *e) {
  memset(e->key, 0, sizeof(e->key));
  int64_t rank = tilusLayoutGetRank(e->layout);
  e->key[0] = rank;
  e->key[1] = tilusLayoutGetNumThreads(e->layout);
  e->key[2] = tilusLayoutGetLocalSize(e->layout);
  for (int64_t d = 0; d < rank && d < 9; ++d)
    e->key[3 + d] = tilusLayoutGetDim(e->layout, d);
}

void testQueriesAgainstOracle(void) {
  static const int64_t general[] = {1, 2, 2, 3, 4, 4, 8};
  static const int64_t tiny[] = {1, 2, 2, 4};
  static const int64_t shared[] = {1, 2, 4, 4, 8, 16, 3};
  const Family families[] = {
      {general, 7, 3, false, 1 << 10}, {general, 7, 3, false, 1 << 14},
      {tiny, 4, 2, false, 64},         {tiny, 4, 3, true, 64},
      {shared, 7, 3, true, 1 << 13},   {tiny, 4, 2, true, 256},
  };
  const int numFamilies = sizeof(families) / sizeof(families[0]);
  const int perFamily = 700;
  uint64_t rng = 0x243f6a8885a308d3ull;
  Stats s;
  memset(&s, 0, sizeof(s));

  Entry *entries = calloc((size_t)(numFamilies * perFamily), sizeof(Entry));
  int64_t numEntries = 0;
  for (int f = 0; f < numFamilies; ++f) {
    for (int k = 0; k < perFamily; ++k) {
      TilusLayout *l = randomLayout(&rng, &families[f], 0);
      if (!l)
        continue;
      checkOne(l, &s);
      /* Equal to itself, to its copy and to its parsed text. */
      char *text = tilusLayoutPrint(l);
      TilusLayout *back = text ? parse(text) : NULL;
      checkPair(l, l, &s);
      if (back)
        checkPair(l, back, &s);
      tilusLayoutDestroy(back);
      free(text);
      entries[numEntries].layout = l;
      setKey(&entries[numEntries++]);
    }
  }

  /* Pairs within each bucket of equal header (at most 12 partners each). */
  qsort(entries, (size_t)numEntries, sizeof(Entry), compareEntries);
  for (int64_t i = 0; i < numEntries; ++i)
    for (int64_t j = i + 1; j < numEntries && j <= i + 12 &&
                            compareEntries(&entries[i], &entries[j]) == 0;
         ++j)
      checkPair(entries[i].layout, entries[j].layout, &s);
  checkKnownIdentities(&rng, &s);
  checkLargeLayouts();

  for (int64_t i = 0; i < numEntries; ++i)
    tilusLayoutDestroy(entries[i].layout);
  free(entries);

  CHECK(s.contiguity.failed == 0);
  CHECK(s.runs.failed == 0);
  CHECK(s.valid.failed == 0);
  CHECK(s.locate.failed == 0);
  CHECK(s.equal.failed == 0);
  CHECK(s.layouts.checked >= 3000);
  CHECK(s.structurallyDifferent >= 100);
  printf("query oracle: %lld layouts; equality %lld pairs (%lld equal, %lld "
         "of them with different chains), contiguity %lld, runs %lld, locate "
         "%lld, validity %lld checks\n",
         (long long)s.layouts.checked, (long long)s.equal.checked,
         (long long)s.equalPairs, (long long)s.structurallyDifferent,
         (long long)s.contiguity.checked, (long long)s.runs.checked,
         (long long)s.locate.checked, (long long)s.valid.checked);
  printf("query oracle: undecided without any walk: equality %lld, "
         "contiguity %lld, runs %lld\n",
         (long long)s.equal.undecided, (long long)s.contiguity.undecided,
         (long long)s.runs.undecided);
}
