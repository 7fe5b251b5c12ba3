/*===-- LayoutTest.c - Unit tests of the layout algebra ---------------*- C -*-===*\
|*                                                                            *|
|* Expected values are written by hand or come from a small reference model  *|
|* in this file (primitives evaluated by the paper's formulas, composition   *|
|* by its recursive definition), not from the code under test; composition   *|
|* is also checked against definition 4 applied to the operands' values.     *|
|* Prints one line per failed check and ends with                            *|
|*   layout tests: N passed, M failed                                        *|
\*===----------------------------------------------------------------------===*/

#include "tilus-c/Layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gPassed, gFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++gPassed;                                                               \
    } else {                                                                   \
      ++gFailed;                                                               \
      printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
    }                                                                          \
  } while (0)

/* Like CHECK, with the layout text for context. */
#define CHECK_L(cond, text)                                                    \
  do {                                                                         \
    if (cond) {                                                                \
      ++gPassed;                                                               \
    } else {                                                                   \
      ++gFailed;                                                               \
      printf("%s:%d: check failed: %s [%s]\n", __FILE__, __LINE__, #cond,      \
             (text) ? (text) : "(null)");                                      \
    }                                                                          \
  } while (0)

/*--- Small helpers ------------------------------------------------------------*/

static TilusLayout *parse(const char *text) {
  return tilusLayoutParse(text, strlen(text), NULL);
}

static TilusLayout *local2(int64_t a, int64_t b) {
  int64_t s[2] = {a, b};
  return tilusLayoutCreateLocal(2, s, NULL);
}

static TilusLayout *spatial2(int64_t a, int64_t b) {
  int64_t s[2] = {a, b};
  return tilusLayoutCreateSpatial(2, s, NULL);
}

static TilusLayout *compose3(const TilusLayout *a, const TilusLayout *b,
                             const TilusLayout *c) {
  TilusLayout *ab = tilusLayoutCompose(a, b);
  TilusLayout *abc = tilusLayoutCompose(ab, c);
  tilusLayoutDestroy(ab);
  return abc;
}

static bool sameIndex(const int64_t *a, const int64_t *b, int64_t rank) {
  return memcmp(a, b, sizeof(int64_t) * (size_t)rank) == 0;
}

/* Whether the printed text of `layout` is exactly `expected`. */
static bool printsAs(const TilusLayout *layout, const char *expected) {
  char *text = tilusLayoutPrint(layout);
  bool same = text && strcmp(text, expected) == 0;
  if (!same)
    printf("  printed '%s', expected '%s'\n", text ? text : "(null)", expected);
  free(text);
  return same;
}

/* xorshift64: a deterministic, seeded source of test cases. */
static uint64_t nextRandom(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

static int64_t randomBelow(uint64_t *state, int64_t n) {
  return (int64_t)(nextRandom(state) % (uint64_t)n);
}

/*--- Reference model ----------------------------------------------------------*/

enum { M_LOCAL, M_SPATIAL, M_SWIZZLE };

/* A primitive over a full shape whose `dropped` dims are not output (only
 * spatial ones), or a swizzle of local(full[0], full[1]). */
typedef struct {
  int kind;
  bool column;
  int fullRank;
  int64_t full[4];
  bool dropped[4];
  int64_t dim, logStep; /* swizzle */
} MPrim;

typedef struct {
  int n;
  MPrim p[6];
  int minRank; /* the chain's rank when no factor reaches it (after reduce) */
} Model;

static int primRank(const MPrim *p) {
  int r = 0;
  for (int d = 0; d < p->fullRank; ++d)
    r += !p->dropped[d];
  return r;
}

static int modelRank(const Model *m) {
  int r = m->minRank > 1 ? m->minRank : 1;
  for (int k = 0; k < m->n; ++k)
    r = primRank(&m->p[k]) > r ? primRank(&m->p[k]) : r;
  return r;
}

static int64_t primSize(const MPrim *p) {
  int64_t s = 1;
  for (int d = 0; d < p->fullRank; ++d)
    s *= p->full[d];
  return s;
}

static int64_t primThreads(const MPrim *p) {
  return p->kind == M_SPATIAL ? primSize(p) : 1;
}

static int64_t primLocal(const MPrim *p) {
  return p->kind == M_SPATIAL ? 1 : primSize(p);
}

/* Output shape of a primitive, broadcast to `rank` (leading 1s). */
static void primShape(const MPrim *p, int rank, int64_t *shape) {
  int r = primRank(p), k = 0;
  for (int d = 0; d < rank - r; ++d)
    shape[k++] = 1;
  for (int d = 0; d < p->fullRank; ++d)
    if (!p->dropped[d])
      shape[k++] = p->full[d];
}

/* Definitions 2 and 3 of the paper (and their column-major twins), with the
 * broadcast of definition 5: zeros prepended. */
static void primEval(const MPrim *p, int rank, int64_t t, int64_t i,
                     int64_t *out) {
  int64_t u = p->kind == M_SPATIAL ? t : i;
  int64_t coord[4];
  if (p->column) {
    for (int d = 0; d < p->fullRank; ++d) {
      coord[d] = u % p->full[d];
      u /= p->full[d];
    }
  } else {
    for (int d = p->fullRank - 1; d >= 0; --d) {
      coord[d] = u % p->full[d];
      u /= p->full[d];
    }
  }
  if (p->kind == M_SWIZZLE) {
    /* swizzle(i, j) = (i, j ^ (i >> log_step)) on local(n0, n1). */
    int other = 1 - (int)p->dim;
    coord[p->dim] ^= (coord[other] >> p->logStep) % p->full[p->dim];
  }
  int r = primRank(p), k = 0;
  for (int d = 0; d < rank - r; ++d)
    out[k++] = 0;
  for (int d = 0; d < p->fullRank; ++d)
    if (!p->dropped[d])
      out[k++] = coord[d];
}

static int64_t modelThreads(const Model *m, int from, int to) {
  int64_t s = 1;
  for (int k = from; k < to; ++k)
    s *= primThreads(&m->p[k]);
  return s;
}

static int64_t modelLocal(const Model *m, int from, int to) {
  int64_t s = 1;
  for (int k = from; k < to; ++k)
    s *= primLocal(&m->p[k]);
  return s;
}

static void modelShape(const Model *m, int from, int to, int rank,
                       int64_t *shape) {
  for (int d = 0; d < rank; ++d)
    shape[d] = 1;
  for (int k = from; k < to; ++k) {
    int64_t s[8];
    primShape(&m->p[k], rank, s);
    for (int d = 0; d < rank; ++d)
      shape[d] *= s[d];
  }
}

/* Definition 4 applied recursively: (p[0..n-1]).p[n-1]. */
static void modelEvalRange(const Model *m, int n, int rank, int64_t t,
                           int64_t i, int64_t *out) {
  const MPrim *g = &m->p[n - 1];
  if (n == 1) {
    primEval(g, rank, t, i, out);
    return;
  }
  int64_t tg = primThreads(g), mg = primLocal(g);
  int64_t sg[8], a[8], b[8];
  primShape(g, rank, sg);
  modelEvalRange(m, n - 1, rank, t / tg, i / mg, a);
  primEval(g, rank, t % tg, i % mg, b);
  for (int d = 0; d < rank; ++d)
    out[d] = a[d] * sg[d] + b[d];
}

static void modelEval(const Model *m, int64_t t, int64_t i, int64_t *out) {
  modelEvalRange(m, m->n, modelRank(m), t, i, out);
}

/* Builds the library layout the model describes, through the public API. */
static TilusLayout *buildLayout(const Model *m) {
  TilusLayout *result = NULL;
  for (int k = 0; k < m->n; ++k) {
    const MPrim *p = &m->p[k];
    TilusLayout *prim = NULL;
    if (p->kind == M_SWIZZLE) {
      TilusLayout *base = tilusLayoutCreateLocal(2, p->full, NULL);
      prim = tilusLayoutSwizzle(base, p->dim, p->logStep, NULL);
      tilusLayoutDestroy(base);
    } else if (p->kind == M_LOCAL) {
      prim = p->column ? tilusLayoutCreateColumnLocal(p->fullRank, p->full, NULL)
                       : tilusLayoutCreateLocal(p->fullRank, p->full, NULL);
    } else {
      TilusLayout *base =
          p->column ? tilusLayoutCreateColumnSpatial(p->fullRank, p->full, NULL)
                    : tilusLayoutCreateSpatial(p->fullRank, p->full, NULL);
      int64_t dims[4];
      int numDims = 0;
      for (int d = 0; d < p->fullRank; ++d)
        if (p->dropped[d])
          dims[numDims++] = d;
      prim = tilusLayoutReduce(base, numDims, dims, NULL);
      tilusLayoutDestroy(base);
    }
    if (!prim) {
      tilusLayoutDestroy(result);
      return NULL;
    }
    if (!result) {
      result = prim;
    } else {
      TilusLayout *next = tilusLayoutCompose(result, prim);
      tilusLayoutDestroy(result);
      tilusLayoutDestroy(prim);
      result = next;
      if (!result)
        return NULL;
    }
  }
  return result;
}

/* Whether `layout` has the model's rank, shape, T, m and function. */
static bool matchesModel(const TilusLayout *layout, const Model *m) {
  if (!layout)
    return false;
  int rank = modelRank(m);
  int64_t shape[8];
  modelShape(m, 0, m->n, rank, shape);
  int64_t threads = modelThreads(m, 0, m->n), local = modelLocal(m, 0, m->n);
  if (tilusLayoutGetRank(layout) != rank ||
      tilusLayoutGetNumThreads(layout) != threads ||
      tilusLayoutGetLocalSize(layout) != local)
    return false;
  for (int d = 0; d < rank; ++d)
    if (tilusLayoutGetDim(layout, d) != shape[d])
      return false;
  int64_t want[8], got[8];
  for (int64_t t = 0; t < threads; ++t) {
    for (int64_t i = 0; i < local; ++i) {
      modelEval(m, t, i, want);
      tilusLayoutEvaluate(layout, t, i, got);
      if (!sameIndex(want, got, rank))
        return false;
    }
  }
  return true;
}

/* Random chain of 1..maxFactors primitives, T*m <= maxSize. */
static Model randomModel(uint64_t *rng, int64_t maxSize, int maxFactors,
                         bool fancy) {
  Model m;
  memset(&m, 0, sizeof(m));
  m.n = 1 + (int)randomBelow(rng, maxFactors);
  int64_t size = 1;
  for (int k = 0; k < m.n; ++k) {
    MPrim *p = &m.p[k];
    int choice = (int)randomBelow(rng, fancy ? 7 : 4);
    if (choice == 6) {
      /* swizzle(local(2^a, 2^b), dim, log_step) */
      p->kind = M_SWIZZLE;
      p->fullRank = 2;
      p->full[0] = (int64_t)1 << randomBelow(rng, 3);
      p->full[1] = (int64_t)1 << randomBelow(rng, 3);
      if (size * p->full[0] * p->full[1] > maxSize)
        p->full[0] = p->full[1] = 1;
      p->dim = randomBelow(rng, 2);
      p->logStep = randomBelow(rng, 2);
      size *= primSize(p);
      continue;
    }
    /* 0 local, 1 spatial, 2 column_local, 3 column_spatial, 4 and 5: a
     * spatial / column_spatial with one replicated (dropped) dim */
    p->kind = (choice == 0 || choice == 2) ? M_LOCAL : M_SPATIAL;
    p->column = choice == 2 || choice == 3 || choice == 5;
    p->fullRank = 1 + (int)randomBelow(rng, 3);
    for (int d = 0; d < p->fullRank; ++d) {
      int64_t e = 1 + randomBelow(rng, 4);
      if (size * e > maxSize)
        e = 1;
      p->full[d] = e;
      size *= e;
    }
    if (choice >= 4 && p->fullRank >= 2)
      p->dropped[randomBelow(rng, p->fullRank)] = true;
  }
  return m;
}

/*--- Paper figures 3, 4, 5 ----------------------------------------------------*/

static void testFigure3(void) {
  TilusLayout *l = parse("local(2,1).spatial(8,4).local(1,2)");
  CHECK(l != NULL);
  if (!l)
    return;
  CHECK(tilusLayoutGetRank(l) == 2);
  CHECK(tilusLayoutGetNumThreads(l) == 32 && tilusLayoutGetLocalSize(l) == 4);
  CHECK(tilusLayoutGetDim(l, 0) == 16 && tilusLayoutGetDim(l, 1) == 8);
  CHECK(tilusLayoutGetNumElements(l) == 128);
  bool ok = true;
  for (int64_t t = 0; t < 32; ++t) {
    for (int64_t i = 0; i < 4; ++i) {
      int64_t want[2] = {t / 4 + 8 * (i / 2), (t % 4) * 2 + i % 2}, got[2];
      tilusLayoutEvaluate(l, t, i, got);
      ok = ok && sameIndex(want, got, 2);
    }
  }
  CHECK(ok);
  /* The same layout built with the constructors. */
  TilusLayout *a = local2(2, 1), *b = spatial2(8, 4), *c = local2(1, 2);
  TilusLayout *abc = compose3(a, b, c);
  CHECK(tilusLayoutEqual(abc, l));
  CHECK(printsAs(abc, "local(2,1).spatial(8,4).local(1,2)"));
  CHECK(tilusLayoutIsValid(l));
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(c);
  tilusLayoutDestroy(abc);
  tilusLayoutDestroy(l);
}

static void testFigure4(void) {
  TilusLayout *l = local2(2, 3), *s = spatial2(2, 3);
  CHECK(tilusLayoutGetNumThreads(l) == 1 && tilusLayoutGetLocalSize(l) == 6);
  CHECK(tilusLayoutGetNumThreads(s) == 6 && tilusLayoutGetLocalSize(s) == 1);
  bool okL = true, okS = true;
  for (int64_t k = 0; k < 6; ++k) {
    int64_t want[2] = {k / 3, k % 3}, got[2];
    tilusLayoutEvaluate(l, 0, k, got);
    okL = okL && sameIndex(want, got, 2);
    tilusLayoutEvaluate(s, k, 0, got);
    okS = okS && sameIndex(want, got, 2);
  }
  CHECK(okL);
  CHECK(okS);
  CHECK(!tilusLayoutEqual(l, s));
  tilusLayoutDestroy(l);
  tilusLayoutDestroy(s);
}

static void testFigure5(void) {
  /* c = a.b with a = local(2,1), b = spatial(2,3).local(1,2):
   * c(t,i) = a(0, i/2) * (2,6) + b(t, i%2) = (2*(i/2) + t/3, 2*(t%3) + i%2) */
  TilusLayout *c = parse("local(2,1).spatial(2,3).local(1,2)");
  CHECK(c && tilusLayoutGetNumThreads(c) == 6 && tilusLayoutGetLocalSize(c) == 4);
  CHECK(c && tilusLayoutGetDim(c, 0) == 4 && tilusLayoutGetDim(c, 1) == 6);
  bool ok = c != NULL;
  for (int64_t t = 0; ok && t < 6; ++t) {
    for (int64_t i = 0; i < 4; ++i) {
      int64_t want[2] = {2 * (i / 2) + t / 3, 2 * (t % 3) + i % 2}, got[2];
      tilusLayoutEvaluate(c, t, i, got);
      ok = ok && sameIndex(want, got, 2);
    }
  }
  CHECK(ok);
  int64_t got[2];
  if (c) {
    tilusLayoutEvaluate(c, 4, 3, got); /* thread 4 holds a3 at (3,3) */
    CHECK(got[0] == 3 && got[1] == 3);
    tilusLayoutEvaluate(c, 5, 2, got); /* thread 5 holds a2 at (3,4) */
    CHECK(got[0] == 3 && got[1] == 4);
  }

  /* Column-major primitives, rank 2 and 3, first dim fastest. */
  int64_t s2[2] = {2, 3}, s3[3] = {2, 3, 4};
  TilusLayout *cl2 = tilusLayoutCreateColumnLocal(2, s2, NULL);
  TilusLayout *cs2 = tilusLayoutCreateColumnSpatial(2, s2, NULL);
  TilusLayout *cl3 = tilusLayoutCreateColumnLocal(3, s3, NULL);
  TilusLayout *cs3 = tilusLayoutCreateColumnSpatial(3, s3, NULL);
  CHECK(tilusLayoutGetNumThreads(cs3) == 24 && tilusLayoutGetLocalSize(cl3) == 24);
  bool ok2 = true, ok3 = true;
  for (int64_t k = 0; k < 6; ++k) {
    int64_t want[2] = {k % 2, k / 2}, x[2];
    tilusLayoutEvaluate(cl2, 0, k, x);
    ok2 = ok2 && sameIndex(want, x, 2);
    tilusLayoutEvaluate(cs2, k, 0, x);
    ok2 = ok2 && sameIndex(want, x, 2);
  }
  for (int64_t k = 0; k < 24; ++k) {
    int64_t want[3] = {k % 2, (k / 2) % 3, k / 6}, x[3];
    tilusLayoutEvaluate(cl3, 0, k, x);
    ok3 = ok3 && sameIndex(want, x, 3);
    tilusLayoutEvaluate(cs3, k, 0, x);
    ok3 = ok3 && sameIndex(want, x, 3);
  }
  CHECK(ok2);
  CHECK(ok3);
  /* Figure 5 (e): the column-major twins are compositions. */
  TilusLayout *viaCompose = parse("local(1,3).local(2,1)");
  CHECK(tilusLayoutEqual(viaCompose, cl2));
  TilusLayout *viaComposeS = parse("spatial(1,3).spatial(2,1)");
  CHECK(tilusLayoutEqual(viaComposeS, cs2));
  CHECK(printsAs(cl2, "column_local(2,3)"));
  tilusLayoutDestroy(viaCompose);
  tilusLayoutDestroy(viaComposeS);
  tilusLayoutDestroy(cl2);
  tilusLayoutDestroy(cs2);
  tilusLayoutDestroy(cl3);
  tilusLayoutDestroy(cs3);
  tilusLayoutDestroy(c);
}

/*--- Monoid laws and composition on random layouts ----------------------------*/

/* compose(f,g)(t,i) against definition 4 using f's and g's own values. */
static bool composeMatchesFormula(const TilusLayout *f, const TilusLayout *g,
                                  const TilusLayout *h) {
  int64_t rf = tilusLayoutGetRank(f), rg = tilusLayoutGetRank(g);
  int64_t r = rf > rg ? rf : rg;
  if (!h || tilusLayoutGetRank(h) != r)
    return false;
  int64_t tg = tilusLayoutGetNumThreads(g), mg = tilusLayoutGetLocalSize(g);
  int64_t th = tilusLayoutGetNumThreads(f) * tg;
  int64_t mh = tilusLayoutGetLocalSize(f) * mg;
  if (tilusLayoutGetNumThreads(h) != th || tilusLayoutGetLocalSize(h) != mh)
    return false;
  int64_t sg[8];
  for (int64_t d = 0; d < r; ++d) {
    int64_t dg = d - (r - rg), df = d - (r - rf);
    sg[d] = dg >= 0 ? tilusLayoutGetDim(g, dg) : 1;
    int64_t sf = df >= 0 ? tilusLayoutGetDim(f, df) : 1;
    if (tilusLayoutGetDim(h, d) != sf * sg[d])
      return false;
  }
  for (int64_t t = 0; t < th; ++t) {
    for (int64_t i = 0; i < mh; ++i) {
      int64_t a[8], b[8], pa[8] = {0}, pb[8] = {0}, x[8];
      tilusLayoutEvaluate(f, t / tg, i / mg, a);
      tilusLayoutEvaluate(g, t % tg, i % mg, b);
      memcpy(pa + (r - rf), a, sizeof(int64_t) * (size_t)rf);
      memcpy(pb + (r - rg), b, sizeof(int64_t) * (size_t)rg);
      tilusLayoutEvaluate(h, t, i, x);
      for (int64_t d = 0; d < r; ++d)
        if (x[d] != pa[d] * sg[d] + pb[d])
          return false;
    }
  }
  return true;
}

static void testRandomChains(void) {
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  int modelFail = 0, textFail = 0, formulaFail = 0, identityFail = 0;
  int validFail = 0, locateFail = 0, contigFail = 0, reduceFail = 0;
  const char *local1 = "local(1)";
  TilusLayout *e = parse(local1);
  for (int iter = 0; iter < 400; ++iter) {
    Model m = randomModel(&rng, 256, 4, true);
    TilusLayout *l = buildLayout(&m);
    char *text = tilusLayoutPrint(l);
    if (!matchesModel(l, &m)) {
      ++modelFail;
      printf("  model mismatch: %s\n", text ? text : "(null)");
    }
    if (!l) {
      free(text);
      continue;
    }

    /* Text round trip. */
    TilusLayout *back = text ? parse(text) : NULL;
    char *again = tilusLayoutPrint(back);
    if (!back || !tilusLayoutEqual(back, l) || !again ||
        strcmp(again, text) != 0) {
      ++textFail;
      printf("  round trip: '%s' -> '%s'\n", text ? text : "(null)",
             again ? again : "(null)");
    }

    /* Identity on both sides. */
    TilusLayout *le = tilusLayoutCompose(l, e), *el = tilusLayoutCompose(e, l);
    if (!tilusLayoutEqual(le, l) || !tilusLayoutEqual(el, l))
      ++identityFail;

    /* Composition of the model's prefix and suffix against the formula. */
    if (m.n >= 2) {
      Model f = m, g = m;
      int cut = 1 + (int)randomBelow(&rng, m.n - 1);
      f.n = cut;
      g.n = m.n - cut;
      memmove(g.p, m.p + cut, sizeof(MPrim) * (size_t)g.n);
      TilusLayout *lf = buildLayout(&f), *lg = buildLayout(&g);
      TilusLayout *h = tilusLayoutCompose(lf, lg);
      if (!composeMatchesFormula(lf, lg, h) || !tilusLayoutEqual(h, l))
        ++formulaFail;
      tilusLayoutDestroy(lf);
      tilusLayoutDestroy(lg);
      tilusLayoutDestroy(h);
    }

    /* Locate, validity and contiguity against the model's own table. */
    int rank = modelRank(&m);
    int64_t shape[8], count = 1;
    modelShape(&m, 0, m.n, rank, shape);
    for (int d = 0; d < rank; ++d)
      count *= shape[d];
    int64_t threads = modelThreads(&m, 0, m.n), local = modelLocal(&m, 0, m.n);
    int64_t *first = malloc(sizeof(int64_t) * (size_t)count);
    int64_t *lastThread = malloc(sizeof(int64_t) * (size_t)count);
    for (int64_t k = 0; k < count; ++k)
      first[k] = lastThread[k] = -1;
    bool valid = true;
    for (int64_t t = 0; t < threads; ++t) {
      for (int64_t i = 0; i < local; ++i) {
        int64_t x[8], lin = 0;
        modelEval(&m, t, i, x);
        for (int d = 0; d < rank; ++d)
          lin = lin * shape[d] + x[d];
        if (first[lin] < 0)
          first[lin] = t * local + i;
        if (lastThread[lin] == t)
          valid = false;
        lastThread[lin] = t;
      }
    }
    for (int64_t k = 0; k < count; ++k)
      valid = valid && first[k] >= 0;
    if (tilusLayoutIsValid(l) != valid)
      ++validFail;
    for (int64_t k = 0; k < count; ++k) {
      int64_t index[8], rest = k, t = -1, i = -1;
      for (int d = rank - 1; d >= 0; --d) {
        index[d] = rest % shape[d];
        rest /= shape[d];
      }
      bool found = tilusLayoutLocate(l, index, &t, &i);
      if (found != (first[k] >= 0) || (found && t * local + i != first[k]))
        ++locateFail;
    }
    free(first);
    free(lastThread);

    int64_t contiguity = 1;
    for (int64_t v = 2; local % v == 0; v *= 2) {
      bool ok = true;
      for (int64_t t = 0; ok && t < threads; ++t) {
        for (int64_t g = 0; ok && g < local; g += v) {
          int64_t base[8], x[8];
          modelEval(&m, t, g, base);
          for (int64_t j = 1; ok && j < v; ++j) {
            modelEval(&m, t, g + j, x);
            base[rank - 1] += 1;
            ok = sameIndex(base, x, rank);
          }
        }
      }
      if (!ok)
        break;
      contiguity = v;
    }
    if (tilusLayoutGetContiguity(l) != contiguity)
      ++contigFail;

    /* Reduce distributes over the chain (only without swizzles). */
    /* Swizzles that move nothing are dropped by the library; the model
     * treats those as the local layouts they are. */
    bool hasSwizzle = text && strstr(text, "swizzle") != NULL;
    if (rank >= 2) {
      int64_t dim = randomBelow(&rng, rank);
      TilusLayoutError err = {{0}};
      TilusLayout *r = tilusLayoutReduce(l, 1, &dim, &err);
      if (hasSwizzle) {
        if (r || !strstr(err.message, "swizzle"))
          ++reduceFail;
      } else {
        Model rm = m;
        rm.minRank = rank - 1;
        for (int k = 0; k < rm.n; ++k) {
          MPrim *p = &rm.p[k];
          if (p->kind == M_SWIZZLE)
            p->kind = M_LOCAL;
          int pr = primRank(p);
          int out = (int)dim - (rank - pr); /* output dim inside p */
          if (out < 0) {
            continue; /* a broadcast dim of this factor: drop nothing */
          }
          int fd = 0, seen = -1;
          for (; fd < p->fullRank; ++fd)
            if (!p->dropped[fd] && ++seen == out)
              break;
          if (p->kind == M_SPATIAL) {
            p->dropped[fd] = true;
          } else {
            memmove(p->full + fd, p->full + fd + 1,
                    sizeof(int64_t) * (size_t)(p->fullRank - fd - 1));
            memmove(p->dropped + fd, p->dropped + fd + 1,
                    sizeof(bool) * (size_t)(p->fullRank - fd - 1));
            --p->fullRank;
          }
        }
        if (!matchesModel(r, &rm)) {
          ++reduceFail;
          char *rt = tilusLayoutPrint(r);
          printf("  reduce dim %lld of %s gave %s\n", (long long)dim, text,
                 rt ? rt : "(null)");
          free(rt);
        }
      }
      tilusLayoutDestroy(r);
    }

    free(again);
    free(text);
    tilusLayoutDestroy(back);
    tilusLayoutDestroy(le);
    tilusLayoutDestroy(el);
    tilusLayoutDestroy(l);
  }
  CHECK(modelFail == 0);
  CHECK(textFail == 0);
  CHECK(identityFail == 0);
  CHECK(formulaFail == 0);
  CHECK(validFail == 0);
  CHECK(locateFail == 0);
  CHECK(contigFail == 0);
  CHECK(reduceFail == 0);
  tilusLayoutDestroy(e);
}

static void testAssociativity(void) {
  uint64_t rng = 12345;
  int failures = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Model mf = randomModel(&rng, 12, 3, iter % 2 == 1);
    Model mg = randomModel(&rng, 12, 3, iter % 2 == 1);
    Model mh = randomModel(&rng, 12, 3, false);
    TilusLayout *f = buildLayout(&mf), *g = buildLayout(&mg),
                *h = buildLayout(&mh);
    TilusLayout *fg = tilusLayoutCompose(f, g), *gh = tilusLayoutCompose(g, h);
    TilusLayout *left = tilusLayoutCompose(fg, h);
    TilusLayout *right = tilusLayoutCompose(f, gh);
    if (!left || !tilusLayoutEqual(left, right) ||
        !composeMatchesFormula(fg, h, left) ||
        !composeMatchesFormula(f, gh, right))
      ++failures;
    tilusLayoutDestroy(f);
    tilusLayoutDestroy(g);
    tilusLayoutDestroy(h);
    tilusLayoutDestroy(fg);
    tilusLayoutDestroy(gh);
    tilusLayoutDestroy(left);
    tilusLayoutDestroy(right);
  }
  CHECK(failures == 0);
  /* Composition is not commutative. */
  TilusLayout *a = parse("spatial(2)"), *b = parse("local(2)");
  TilusLayout *ab = tilusLayoutCompose(a, b), *ba = tilusLayoutCompose(b, a);
  CHECK(!tilusLayoutEqual(ab, ba));
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(ab);
  tilusLayoutDestroy(ba);
}

/*--- Division -----------------------------------------------------------------*/

static void checkDivide(const char *f, const char *g, const char *want) {
  TilusLayout *lf = parse(f), *lg = parse(g), *lw = want ? parse(want) : NULL;
  TilusLayoutError err = {{0}};
  TilusLayout *q = tilusLayoutDivide(lf, lg, &err);
  if (want) {
    CHECK_L(q && tilusLayoutEqual(q, lw), f);
    CHECK_L(tilusLayoutIsDivisibleBy(lf, lg), f);
  } else {
    CHECK_L(q == NULL && err.message[0] != '\0', f);
    CHECK_L(!tilusLayoutIsDivisibleBy(lf, lg), f);
  }
  tilusLayoutDestroy(lf);
  tilusLayoutDestroy(lg);
  tilusLayoutDestroy(lw);
  tilusLayoutDestroy(q);
}

static void testDivide(void) {
  checkDivide("local(2,4)", "local(1,2)", "local(2,2)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "local(1,2)",
              "local(2,1).spatial(8,4)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "spatial(8,4).local(1,2)",
              "local(2,1)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "local(1)",
              "local(2,1).spatial(8,4).local(1,2)");
  checkDivide("spatial(32).local(8)", "local(8)", "spatial(32)");
  checkDivide("spatial(32).local(8)", "local(4)", "spatial(32).local(2)");
  checkDivide("spatial(4,8)", "spatial(1,8)", "spatial(4,1)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "local(2)",
              "local(2,1).spatial(8,4)"); /* the divisor is broadcast */
  checkDivide("local(1,2).swizzle(local(16,4),dim=1,log_step=1).local(1,8)",
              "local(1,8)", "local(1,2).swizzle(local(16,4),dim=1,log_step=1)");
  checkDivide("reduce(spatial(4,8),dims=[0])", "spatial(8)",
              "reduce(spatial(4,1),dims=[0])");
  checkDivide("local(2,4)", "local(2,2)", NULL); /* split not exact */
  checkDivide("local(2,4)", "local(1,3)", NULL);
  checkDivide("local(8)", "spatial(2)", NULL);
  checkDivide("local(4)", "local(2,2)", NULL); /* divisor rank too high */
  checkDivide("spatial(4).local(2)", "spatial(2).local(2)", "spatial(2)");
  checkDivide("spatial(4).local(2)", "local(2).spatial(2)", NULL);

  uint64_t rng = 777;
  int failures = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Model mf = randomModel(&rng, 16, 3, iter % 3 == 2);
    Model mg = randomModel(&rng, 16, 3, iter % 3 == 2);
    TilusLayout *f = buildLayout(&mf), *g = buildLayout(&mg);
    TilusLayout *fg = tilusLayoutCompose(f, g);
    TilusLayoutError err = {{0}};
    TilusLayout *q = tilusLayoutDivide(fg, g, &err);
    TilusLayout *back = tilusLayoutCompose(q, g);
    if (!q || !tilusLayoutEqual(back, fg)) {
      ++failures;
      char *a = tilusLayoutPrint(fg), *b = tilusLayoutPrint(g);
      printf("  divide %s by %s: %s\n", a, b, err.message);
      free(a);
      free(b);
    }
    tilusLayoutDestroy(f);
    tilusLayoutDestroy(g);
    tilusLayoutDestroy(fg);
    tilusLayoutDestroy(q);
    tilusLayoutDestroy(back);
  }
  CHECK(failures == 0);
}

/*--- Broadcast, reduce, swizzle -----------------------------------------------*/

static void testBroadcast(void) {
  TilusLayout *l = local2(2, 3);
  TilusLayoutError err = {{0}};
  TilusLayout *b = tilusLayoutBroadcast(l, 4, &err);
  CHECK(b && tilusLayoutGetRank(b) == 4);
  CHECK(b && tilusLayoutGetDim(b, 0) == 1 && tilusLayoutGetDim(b, 1) == 1 &&
        tilusLayoutGetDim(b, 2) == 2 && tilusLayoutGetDim(b, 3) == 3);
  bool ok = b != NULL;
  for (int64_t i = 0; ok && i < 6; ++i) {
    int64_t want[4] = {0, 0, i / 3, i % 3}, got[4];
    tilusLayoutEvaluate(b, 0, i, got);
    ok = sameIndex(want, got, 4);
  }
  CHECK(ok);
  CHECK(printsAs(b, "local(1,1,2,3)"));
  CHECK(tilusLayoutBroadcast(l, 1, &err) == NULL && err.message[0]);
  CHECK(tilusLayoutBroadcast(l, TILUS_LAYOUT_MAX_RANK + 1, NULL) == NULL);
  /* Mixed-rank composition broadcasts the lower-rank side. */
  TilusLayout *mixed = parse("spatial(2,3).local(4)");
  TilusLayout *full = parse("spatial(2,3).local(1,4)");
  CHECK(mixed && tilusLayoutEqual(mixed, full));
  tilusLayoutDestroy(mixed);
  tilusLayoutDestroy(full);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(l);
}

static void testReduce(void) {
  /* Paper B.2: shape (1,1), 4 threads, each holding (0,0). */
  TilusLayout *r = parse("reduce(spatial(1,1,4),dims=[2])");
  CHECK(r && tilusLayoutGetRank(r) == 2);
  CHECK(r && tilusLayoutGetDim(r, 0) == 1 && tilusLayoutGetDim(r, 1) == 1);
  CHECK(r && tilusLayoutGetNumThreads(r) == 4 && tilusLayoutGetLocalSize(r) == 1);
  bool ok = r != NULL;
  for (int64_t t = 0; ok && t < 4; ++t) {
    int64_t got[2] = {-1, -1};
    tilusLayoutEvaluate(r, t, 0, got);
    ok = got[0] == 0 && got[1] == 0;
  }
  CHECK(ok);
  int64_t zero[2] = {0, 0}, t = -1, i = -1;
  CHECK(r && tilusLayoutLocate(r, zero, &t, &i) && t == 0 && i == 0);
  CHECK(r && tilusLayoutIsValid(r));
  CHECK(r && printsAs(r, "reduce(spatial(1,1,4),dims=[2])"));

  TilusLayout *a = parse("reduce(local(2,3), dims=[1])"), *b = parse("local(2)");
  CHECK(a && tilusLayoutEqual(a, b));

  /* spatial(2,3): t -> (t/3, t%3); dropping a dim replicates along it. */
  TilusLayout *s0 = parse("reduce(spatial(2,3),dims=[0])");
  TilusLayout *s1 = parse("reduce(spatial(2,3),dims=[1])");
  TilusLayout *c0 = parse("reduce(column_spatial(2,3),dims=[0])");
  bool okS = s0 && s1 && c0;
  for (int64_t tt = 0; okS && tt < 6; ++tt) {
    int64_t x0, x1, xc;
    tilusLayoutEvaluate(s0, tt, 0, &x0);
    tilusLayoutEvaluate(s1, tt, 0, &x1);
    tilusLayoutEvaluate(c0, tt, 0, &xc); /* column: t -> (t%2, t/2) */
    okS = x0 == tt % 3 && x1 == tt / 3 && xc == tt / 2;
  }
  CHECK(okS);
  CHECK(s0 && tilusLayoutGetNumThreads(s0) == 6 && tilusLayoutGetDim(s0, 0) == 3);
  int64_t idx = 2;
  CHECK(s0 && tilusLayoutLocate(s0, &idx, &t, &i) && t == 2 && i == 0);
  idx = 1;
  CHECK(s1 && tilusLayoutLocate(s1, &idx, &t, &i) && t == 3 && i == 0);
  idx = 3;
  CHECK(s0 && !tilusLayoutLocate(s0, &idx, &t, &i));
  CHECK(s0 && tilusLayoutIsValid(s0) && s1 && tilusLayoutIsValid(s1));

  /* reduce over a composed layout: the mma layout without its rows gives
   * T = 32, m = 2 and f(t, i) = 2*(t%4) + i. */
  TilusLayout *mma = parse("local(2,1).spatial(8,4).local(1,2)");
  int64_t dim0 = 0;
  TilusLayout *rows = tilusLayoutReduce(mma, 1, &dim0, NULL);
  CHECK(rows && tilusLayoutGetRank(rows) == 1 && tilusLayoutGetDim(rows, 0) == 8);
  CHECK(rows && tilusLayoutGetNumThreads(rows) == 32 &&
        tilusLayoutGetLocalSize(rows) == 2);
  bool okR = rows != NULL;
  for (int64_t tt = 0; okR && tt < 32; ++tt) {
    for (int64_t ii = 0; ii < 2; ++ii) {
      int64_t x;
      tilusLayoutEvaluate(rows, tt, ii, &x);
      okR = okR && x == 2 * (tt % 4) + ii;
    }
  }
  CHECK(okR);
  CHECK(rows && printsAs(rows, "reduce(spatial(8,4),dims=[0]).local(2)"));

  /* Errors. */
  TilusLayoutError err = {{0}};
  int64_t bad[2] = {1, 1}, out[1] = {2}, neg[1] = {-1};
  CHECK(tilusLayoutReduce(mma, 2, bad, &err) == NULL && strstr(err.message, "repeated"));
  CHECK(tilusLayoutReduce(mma, 1, out, &err) == NULL && strstr(err.message, "range"));
  CHECK(tilusLayoutReduce(mma, 1, neg, &err) == NULL);
  int64_t both[2] = {0, 1};
  CHECK(tilusLayoutReduce(mma, 2, both, &err) == NULL); /* rank 0 */
  TilusLayout *sw = parse("swizzle(local(4,4),dim=1)");
  CHECK(sw && tilusLayoutReduce(sw, 1, &dim0, &err) == NULL &&
        strstr(err.message, "swizzle"));
  TilusLayout *same = tilusLayoutReduce(mma, 0, NULL, NULL);
  CHECK(same && tilusLayoutEqual(same, mma));

  tilusLayoutDestroy(same);
  tilusLayoutDestroy(sw);
  tilusLayoutDestroy(rows);
  tilusLayoutDestroy(mma);
  tilusLayoutDestroy(s0);
  tilusLayoutDestroy(s1);
  tilusLayoutDestroy(c0);
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(r);
}

static void testSwizzle(void) {
  /* swizzle(local(16,32), dim=1): f(0, r*32+c) = (r, c ^ r). */
  TilusLayout *s = parse("swizzle(local(16,32),dim=1)");
  CHECK(s && tilusLayoutIsValid(s));
  bool ok = s != NULL;
  for (int64_t rr = 0; ok && rr < 16; ++rr) {
    for (int64_t c = 0; c < 32; ++c) {
      int64_t got[2];
      tilusLayoutEvaluate(s, 0, rr * 32 + c, got);
      ok = ok && got[0] == rr && got[1] == (c ^ rr);
    }
  }
  CHECK(ok);
  CHECK(s && printsAs(s, "swizzle(local(16,32),dim=1,log_step=0)"));

  /* smem_layout_c of figure 14: a permutation of the 16x64 tile. */
  TilusLayout *c = parse(
      "local(1, 2).swizzle(local(16, 4), dim=1, log_step=1).local(1, 8)");
  CHECK(c && tilusLayoutGetDim(c, 0) == 16 && tilusLayoutGetDim(c, 1) == 64);
  CHECK(c && tilusLayoutGetNumThreads(c) == 1 && tilusLayoutGetLocalSize(c) == 1024);
  CHECK(c && tilusLayoutIsValid(c));
  if (c) {
    /* i = 171 = 0*512 + 21*8 + 3: swizzle slot 21 = (5,1); 1 ^ ((5>>1)%4)
     * = 3; column 0*32 + 3*8 + 3 = 27. */
    int64_t got[2];
    tilusLayoutEvaluate(c, 0, 171, got);
    CHECK(got[0] == 5 && got[1] == 27);
    /* i = 512 + 63*8 + 7: slot 63 = (15,3); 3 ^ (7%4) = 0; 32 + 0 + 7. */
    tilusLayoutEvaluate(c, 0, 512 + 63 * 8 + 7, got);
    CHECK(got[0] == 15 && got[1] == 39);
    /* i = 8*4*2 = 64: slot 8 = (2,0); 0 ^ 1 = 1 -> column 8. */
    tilusLayoutEvaluate(c, 0, 64, got);
    CHECK(got[0] == 2 && got[1] == 8);
    CHECK(tilusLayoutGetContiguity(c) == 8);
  }

  /* A swizzle of a rank-3 layout linearizes the other two dims. */
  TilusLayout *s3 = parse("swizzle(local(2,2,4),dim=2)");
  bool ok3 = s3 != NULL;
  for (int64_t k = 0; ok3 && k < 16; ++k) {
    int64_t x[3], a = k / 8, b = (k / 4) % 2, cc = k % 4;
    tilusLayoutEvaluate(s3, 0, k, x);
    ok3 = x[0] == a && x[1] == b && x[2] == (cc ^ ((a * 2 + b) % 4));
  }
  CHECK(ok3);

  /* A swizzle that cannot change anything is dropped. */
  TilusLayout *noop = parse("swizzle(local(4,4),dim=1,log_step=2)");
  CHECK(noop && printsAs(noop, "local(4,4)"));

  TilusLayoutError err = {{0}};
  TilusLayout *sp = spatial2(4, 4), *l43 = local2(4, 3), *l4 = parse("local(4)");
  CHECK(tilusLayoutSwizzle(sp, 1, 0, &err) == NULL && strstr(err.message, "thread"));
  CHECK(tilusLayoutSwizzle(l43, 1, 0, &err) == NULL && strstr(err.message, "power"));
  CHECK(tilusLayoutSwizzle(l4, 0, 0, &err) == NULL && strstr(err.message, "rank"));
  CHECK(tilusLayoutSwizzle(l43, 2, 0, &err) == NULL);
  CHECK(tilusLayoutSwizzle(l43, 0, -1, &err) == NULL);
  tilusLayoutDestroy(sp);
  tilusLayoutDestroy(l43);
  tilusLayoutDestroy(l4);
  tilusLayoutDestroy(noop);
  tilusLayoutDestroy(s3);
  tilusLayoutDestroy(c);
  tilusLayoutDestroy(s);
}

/*--- Text form ----------------------------------------------------------------*/

static void checkRoundTrip(const char *text, const char *canonical) {
  TilusLayoutError err = {{0}};
  TilusLayout *l = tilusLayoutParse(text, strlen(text), &err);
  CHECK_L(l != NULL, err.message);
  if (!l)
    return;
  char *printed = tilusLayoutPrint(l);
  TilusLayout *back = printed ? parse(printed) : NULL;
  char *again = tilusLayoutPrint(back);
  CHECK_L(back && tilusLayoutEqual(back, l), text);
  CHECK_L(again && printed && strcmp(again, printed) == 0, text);
  CHECK_L(printed && strchr(printed, ' ') == NULL, printed);
  if (canonical)
    CHECK_L(printed && strcmp(printed, canonical) == 0, printed);
  free(printed);
  free(again);
  tilusLayoutDestroy(back);
  tilusLayoutDestroy(l);
}

/* Builds figure 14's layouts through the model (no swizzles there). */
static MPrim prim(int kind, bool column, int rank, int64_t a, int64_t b,
                  int64_t c) {
  MPrim p;
  memset(&p, 0, sizeof(p));
  p.kind = kind;
  p.column = column;
  p.fullRank = rank;
  p.full[0] = a;
  p.full[1] = b;
  p.full[2] = c;
  return p;
}

static void testPaperLayouts(void) {
  const char *layoutA = "reduce(spatial(1, 1, 4), dims=[2]).local(1, 4)."
                        "column_local(2, 2).spatial(8, 4).local(1, 2)";
  const char *layoutB = "spatial(1, 4).local(4, 1).local(2, 1)."
                        "column_spatial(4, 8).local(2, 1)";
  const char *layoutC = "spatial(1, 4).local(2, 1).spatial(8, 4).local(1, 2)";
  const char *layoutBT = "spatial(4).local(3).spatial(32)";
  const char *smemA = "local(3, 1, 1).swizzle(local(16, 32), dim=1).local(1, 8)";
  const char *smemB = "local(3, 1536)";
  const char *smemC =
      "local(1, 2).swizzle(local(16, 4), dim=1, log_step=1).local(1, 8)";
  /* local(1,4).column_local(2,2) == column_local(2,8): i -> (i%2, i/2). */
  checkRoundTrip(layoutA, "reduce(spatial(1,1,4),dims=[2]).column_local(2,8)."
                          "spatial(8,4).local(1,2)");
  checkRoundTrip(layoutB, "spatial(1,4).local(8,1).column_spatial(4,8)."
                          "local(2,1)");
  checkRoundTrip(layoutC, "spatial(1,4).local(2,1).spatial(8,4).local(1,2)");
  checkRoundTrip(layoutBT, "spatial(4).local(3).spatial(32)");
  checkRoundTrip(smemA, "local(3,1,1).swizzle(local(1,16,32),dim=2,"
                        "log_step=0).local(1,1,8)");
  checkRoundTrip(smemB, "local(3,1536)");
  checkRoundTrip(smemC, "local(1,2).swizzle(local(16,4),dim=1,log_step=1)."
                        "local(1,8)");
  checkRoundTrip("spatial(16, 8).repeat(1, 4)", "spatial(16,8).local(1,4)");

  /* Shapes, T and m as the kernel of figure 14 uses them. */
  struct {
    const char *text;
    int64_t rank, d0, d1, d2, threads, local;
  } sizes[] = {
      {layoutA, 2, 16, 64, 0, 128, 32}, {layoutB, 2, 64, 32, 0, 128, 16},
      {layoutC, 2, 16, 32, 0, 128, 4},  {layoutBT, 1, 384, 0, 0, 128, 3},
      {smemA, 3, 3, 16, 256, 1, 12288}, {smemB, 2, 3, 1536, 0, 1, 4608},
      {smemC, 2, 16, 64, 0, 1, 1024},
  };
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
    TilusLayout *l = parse(sizes[k].text);
    int64_t dims[3] = {sizes[k].d0, sizes[k].d1, sizes[k].d2};
    bool ok = l && tilusLayoutGetRank(l) == sizes[k].rank &&
              tilusLayoutGetNumThreads(l) == sizes[k].threads &&
              tilusLayoutGetLocalSize(l) == sizes[k].local;
    for (int64_t d = 0; ok && d < sizes[k].rank; ++d)
      ok = tilusLayoutGetDim(l, d) == dims[d];
    CHECK_L(ok, sizes[k].text);
    CHECK_L(l && tilusLayoutIsValid(l), sizes[k].text);
    tilusLayoutDestroy(l);
  }

  /* layout_a, layout_b and layout_c against the reference model. */
  Model a = {.n = 5,
             .p = {prim(M_SPATIAL, false, 3, 1, 1, 4), prim(M_LOCAL, false, 2, 1, 4, 0),
              prim(M_LOCAL, true, 2, 2, 2, 0), prim(M_SPATIAL, false, 2, 8, 4, 0),
              prim(M_LOCAL, false, 2, 1, 2, 0)}};
  a.p[0].dropped[2] = true;
  Model b = {.n = 5,
             .p = {prim(M_SPATIAL, false, 2, 1, 4, 0), prim(M_LOCAL, false, 2, 4, 1, 0),
              prim(M_LOCAL, false, 2, 2, 1, 0), prim(M_SPATIAL, true, 2, 4, 8, 0),
              prim(M_LOCAL, false, 2, 2, 1, 0)}};
  Model c = {.n = 4,
             .p = {prim(M_SPATIAL, false, 2, 1, 4, 0), prim(M_LOCAL, false, 2, 2, 1, 0),
              prim(M_SPATIAL, false, 2, 8, 4, 0), prim(M_LOCAL, false, 2, 1, 2, 0)}};
  TilusLayout *la = parse(layoutA), *lb = parse(layoutB), *lc = parse(layoutC);
  CHECK(matchesModel(la, &a));
  CHECK(matchesModel(lb, &b));
  CHECK(matchesModel(lc, &c));
  /* layout_a holds every element of A once per warp: 4x replication. */
  CHECK(la && tilusLayoutGetNumThreads(la) * tilusLayoutGetLocalSize(la) ==
                  4 * tilusLayoutGetNumElements(la));
  tilusLayoutDestroy(la);
  tilusLayoutDestroy(lb);
  tilusLayoutDestroy(lc);

  /* smem_layout_a: the swizzle is broadcast into rank 3. */
  TilusLayout *sa = parse(smemA);
  bool ok = sa != NULL;
  for (int64_t i = 0; ok && i < 12288; i += 37) {
    /* i = s*4096 + j*8 + e with j over local(16,32) swizzled. */
    int64_t s = i / 4096, j = (i / 8) % 512, e = i % 8, x[3];
    int64_t row = j / 32, col = (j % 32) ^ row;
    tilusLayoutEvaluate(sa, 0, i, x);
    ok = x[0] == s && x[1] == row && x[2] == col * 8 + e;
  }
  CHECK(ok);
  tilusLayoutDestroy(sa);
}

static void testTextMisc(void) {
  /* Spaces, newlines and a replicated factor at the maximum rank (its text
   * lists 9 dims). */
  checkRoundTrip("  local( 2 ,1 ) .\n spatial(8,4) . local(1,2)  ",
                 "local(2,1).spatial(8,4).local(1,2)");
  checkRoundTrip("reduce(spatial(1,1,4),dims=[2]).local(1,1,1,1,1,1,1,2)",
                 "reduce(spatial(1,1,1,1,1,1,1,1,4),dims=[8])."
                 "local(1,1,1,1,1,1,1,2)");
  checkRoundTrip("reduce(spatial(2,3,4),dims=[0,2])",
                 "reduce(spatial(2,3,4),dims=[0,2])");
  checkRoundTrip("reduce(spatial(2,1,3),dims=[0])",
                 "reduce(spatial(1,2,3),dims=[1])");
  checkRoundTrip("reduce(spatial(2,3,4),dims=[1,0])",
                 "reduce(spatial(6,4),dims=[0])");
  checkRoundTrip("reduce(column_spatial(2,3,4),dims=[1])",
                 "reduce(column_spatial(2,3,4),dims=[1])");
  checkRoundTrip("reduce(spatial(2,2).local(2,2),dims=[0])",
                 "reduce(spatial(2,2),dims=[0]).local(2)");
  checkRoundTrip("swizzle(swizzle(local(4,8),dim=1),dim=0,log_step=1)", NULL);
  checkRoundTrip("local(2).local(3)", "local(6)");
  checkRoundTrip("local(1,1)", "local(1,1)");
  checkRoundTrip("spatial(1).local(1,1).spatial(1,1,1)", "local(1,1,1)");
  checkRoundTrip("column_local(1,4)", "local(1,4)");
  checkRoundTrip("column_local(1,3).column_local(2,1)", "column_local(2,3)");
  /* Both factors fit either order; row order merges them. */
  checkRoundTrip("column_local(2,1).column_local(1,3)", "local(2,3)");
  checkRoundTrip("column_local(2,2).column_local(1,3)",
                 "column_local(2,2).local(1,3)");
  checkRoundTrip("local(2,2).local(2,1)", "local(2,2).local(2,1)");

  /* Equal text implies an equal layout: spot-check two spellings. */
  TilusLayout *x = parse("local(2,1).local(1,3)"), *y = parse("local(2,3)");
  CHECK(tilusLayoutEqual(x, y));
  tilusLayoutDestroy(x);
  tilusLayoutDestroy(y);

  /* Parse errors: NULL and a message naming an offset. */
  const char *bad[] = {
      "",
      "local(",
      "local(0)",
      "foo(1)",
      "local(2).",
      "local(2,3",
      "reduce(local(2),dims=[5])",
      "swizzle(spatial(4,4),dim=1)",
      "swizzle(local(4,3),dim=1)",
      "local(2) local(3)",
      "local(-1)",
      "local()",
      "reduce(local(2,2),dim=[0])",
      "reduce(local(2,2),dims=[0,0])",
      "swizzle(local(4,4),dim=1,log_step=)",
      "swizzle(local(4,4))",
      "local(1,1,1,1,1,1,1,1,1)",
      "local(99999999999999999999)",
      "local(2,3)extra",
      "local(2,,3)",
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(",
  };
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k) {
    TilusLayoutError err = {{0}};
    TilusLayout *l = tilusLayoutParse(bad[k], strlen(bad[k]), &err);
    CHECK_L(l == NULL, bad[k]);
    CHECK_L(strstr(err.message, "offset") != NULL, bad[k]);
    tilusLayoutDestroy(l);
  }
  TilusLayoutError err = {{0}};
  CHECK(tilusLayoutParse("local(2,3", 9, &err) == NULL &&
        strcmp(err.message, "expected ')' at offset 9") == 0);
  CHECK(tilusLayoutParse("foo(1)", 6, &err) == NULL &&
        strstr(err.message, "unknown layout 'foo' at offset 0") != NULL);
  CHECK(tilusLayoutParse("local(2).", 9, &err) == NULL &&
        strstr(err.message, "offset 9") != NULL);
  CHECK(tilusLayoutParse("local(0)", 8, &err) == NULL &&
        strstr(err.message, ">= 1") != NULL);
  /* Only `length` bytes are read. */
  TilusLayout *l = tilusLayoutParse("local(4)garbage", 8, NULL);
  CHECK(l && tilusLayoutGetLocalSize(l) == 4);
  tilusLayoutDestroy(l);
  CHECK(tilusLayoutParse("local(2,3)", 5, NULL) == NULL);
  CHECK(tilusLayoutParse(NULL, 0, NULL) == NULL);
  CHECK(tilusLayoutPrint(NULL) == NULL);
}

/*--- Queries and limits -------------------------------------------------------*/

static void testQueries(void) {
  struct {
    const char *text;
    int64_t contiguity;
  } cases[] = {
      {"local(2,1).spatial(8,4).local(1,2)", 2},
      {"spatial(32).local(8)", 8},
      {"local(8).spatial(32)", 1},
      {"column_local(2,4)", 1},
      {"local(2,4)", 4},
      {"local(3,4)", 4},
      {"local(1,2).swizzle(local(16,4),dim=1,log_step=1).local(1,8)", 8},
      {"spatial(4).local(6)", 2},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) {
    TilusLayout *l = parse(cases[k].text);
    CHECK_L(l && tilusLayoutGetContiguity(l) == cases[k].contiguity,
            cases[k].text);
    tilusLayoutDestroy(l);
  }
  TilusLayout *l = parse("local(2,1).spatial(8,4).local(1,2)");
  int64_t index[2] = {9, 5}, t = -1, i = -1; /* row 9 = t/4 + 8 -> i/2 = 1 */
  CHECK(tilusLayoutLocate(l, index, &t, &i) && t == 6 && i == 3);
  int64_t outside[2] = {16, 0};
  CHECK(!tilusLayoutLocate(l, outside, &t, &i));
  CHECK(tilusLayoutGetDim(l, 2) == -1);
  CHECK(!tilusLayoutEqual(l, NULL));
  TilusLayout *clone = tilusLayoutClone(l);
  CHECK(tilusLayoutEqual(clone, l));
  tilusLayoutDestroy(clone);
  tilusLayoutDestroy(l);
}

static void testLimits(void) {
  TilusLayoutError err = {{0}};
  int64_t huge[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
  CHECK(tilusLayoutCreateLocal(2, huge, &err) == NULL && err.message[0]);
  int64_t zero[1] = {0};
  CHECK(tilusLayoutCreateSpatial(1, zero, &err) == NULL &&
        strstr(err.message, ">= 1"));
  int64_t many[TILUS_LAYOUT_MAX_RANK + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(tilusLayoutCreateLocal(TILUS_LAYOUT_MAX_RANK + 1, many, &err) == NULL);
  CHECK(tilusLayoutCreateLocal(0, many, &err) == NULL);
  CHECK(tilusLayoutCreateLocal(1, NULL, &err) == NULL);
  int64_t big[1] = {(int64_t)1 << 30}, edge[1] = {(int64_t)1 << 40};
  TilusLayout *a = tilusLayoutCreateLocal(1, big, NULL);
  TilusLayout *s = tilusLayoutCreateSpatial(1, big, NULL);
  TilusLayout *e = tilusLayoutCreateLocal(1, edge, NULL);
  CHECK(a && s && e);
  CHECK(tilusLayoutCompose(a, a) == NULL); /* m = 2^60 */
  CHECK(tilusLayoutCompose(s, a) == NULL); /* T*m = 2^60 */
  edge[0] += 1;
  CHECK(tilusLayoutCreateLocal(1, edge, NULL) == NULL);
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(s);
  tilusLayoutDestroy(e);
  CHECK(tilusLayoutCompose(NULL, NULL) == NULL);
}

int main(void) {
  testFigure3();
  testFigure4();
  testFigure5();
  testRandomChains();
  testAssociativity();
  testDivide();
  testBroadcast();
  testReduce();
  testSwizzle();
  testPaperLayouts();
  testTextMisc();
  testQueries();
  testLimits();
  printf("layout tests: %d passed, %d failed\n", gPassed, gFailed);
  return gFailed > 0 ? 1 : 0;
}
