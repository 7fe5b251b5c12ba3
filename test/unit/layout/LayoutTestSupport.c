/*===-- LayoutTestSupport.c - Helpers and the reference model ----------===*/

#include "LayoutTestSupport.h"

int gPassed, gFailed;

TilusLayout *parse(const char *text) {
  return tilusLayoutParse(text, strlen(text), NULL);
}

TilusLayout *local2(int64_t a, int64_t b) {
  int64_t s[2] = {a, b};
  return tilusLayoutCreateLocal(2, s, NULL);
}

TilusLayout *spatial2(int64_t a, int64_t b) {
  int64_t s[2] = {a, b};
  return tilusLayoutCreateSpatial(2, s, NULL);
}

TilusLayout *compose3(const TilusLayout *a, const TilusLayout *b,
                             const TilusLayout *c) {
  TilusLayout *ab = tilusLayoutCompose(a, b);
  TilusLayout *abc = tilusLayoutCompose(ab, c);
  tilusLayoutDestroy(ab);
  return abc;
}

bool sameIndex(const int64_t *a, const int64_t *b, int64_t rank) {
  return memcmp(a, b, sizeof(int64_t) * (size_t)rank) == 0;
}

/* Whether the printed text of `layout` is exactly `expected`. */
bool printsAs(const TilusLayout *layout, const char *expected) {
  char *text = tilusLayoutPrint(layout);
  bool same = text && strcmp(text, expected) == 0;
  if (!same)
    printf("  printed '%s', expected '%s'\n", text ? text : "(null)", expected);
  free(text);
  return same;
}

/* xorshift64: a deterministic, seeded source of test cases. */
uint64_t nextRandom(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

int64_t randomBelow(uint64_t *state, int64_t n) {
  return (int64_t)(nextRandom(state) % (uint64_t)n);
}

/*--- Reference model ----------------------------------------------------------*/



int primRank(const MPrim *p) {
  int r = 0;
  for (int d = 0; d < p->fullRank; ++d)
    r += !p->dropped[d];
  return r;
}

int modelRank(const Model *m) {
  int r = m->minRank > 1 ? m->minRank : 1;
  for (int k = 0; k < m->n; ++k)
    r = primRank(&m->p[k]) > r ? primRank(&m->p[k]) : r;
  return r;
}

int64_t primSize(const MPrim *p) {
  int64_t s = 1;
  for (int d = 0; d < p->fullRank; ++d)
    s *= p->full[d];
  return s;
}

int64_t primThreads(const MPrim *p) {
  return p->kind == M_SPATIAL ? primSize(p) : 1;
}

int64_t primLocal(const MPrim *p) {
  return p->kind == M_SPATIAL ? 1 : primSize(p);
}

/* Output shape of a primitive, broadcast to `rank` (leading 1s). */
void primShape(const MPrim *p, int rank, int64_t *shape) {
  int r = primRank(p), k = 0;
  for (int d = 0; d < rank - r; ++d)
    shape[k++] = 1;
  for (int d = 0; d < p->fullRank; ++d)
    if (!p->dropped[d])
      shape[k++] = p->full[d];
}

/* Definitions 2 and 3 of the paper (and their column-major twins), with the
 * broadcast of definition 5: zeros prepended. */
void primEval(const MPrim *p, int rank, int64_t t, int64_t i,
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

int64_t modelThreads(const Model *m, int from, int to) {
  int64_t s = 1;
  for (int k = from; k < to; ++k)
    s *= primThreads(&m->p[k]);
  return s;
}

int64_t modelLocal(const Model *m, int from, int to) {
  int64_t s = 1;
  for (int k = from; k < to; ++k)
    s *= primLocal(&m->p[k]);
  return s;
}

void modelShape(const Model *m, int from, int to, int rank,
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
void modelEvalRange(const Model *m, int n, int rank, int64_t t,
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

void modelEval(const Model *m, int64_t t, int64_t i, int64_t *out) {
  modelEvalRange(m, m->n, modelRank(m), t, i, out);
}

/* Builds the library layout the model describes, through the public API. */
TilusLayout *buildLayout(const Model *m) {
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
bool matchesModel(const TilusLayout *layout, const Model *m) {
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
Model randomModel(uint64_t *rng, int64_t maxSize, int maxFactors,
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
