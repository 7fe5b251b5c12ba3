/*===-- Layout.c - Layout construction, algebra and queries ----------*- C -*-===*\
|*                                                                            *|
|* Layouts are chains of factors (LayoutInternal.h). Every operation builds  *|
|* a new factor array and hands it to tilusLayoutFinish, which keeps the     *|
|* chain canonical: trivial factors dropped, mergeable neighbours merged.    *|
|* Equality, locate, validity and contiguity work on the chain's normal     *|
|* form instead of the (t, i) table (LayoutNormalForm.c, LayoutQueries.c).   *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- Helpers shared with the other files -------------------------------------*/

void tilusLayoutSetError(TilusLayoutError *err, const char *format, ...) {
  if (!err)
    return;
  va_list args;
  va_start(args, format);
  vsnprintf(err->message, sizeof(err->message), format, args);
  va_end(args);
}

int64_t tilusLayoutCheckedMul(int64_t a, int64_t b) {
  if (a < 1 || b < 1 || a > TILUS_LAYOUT_SIZE_LIMIT / b)
    return -1;
  return a * b;
}

bool tilusLayoutFactorCopy(TilusFactor *dst, const TilusFactor *src) {
  *dst = *src;
  if (src->kind != TILUS_FACTOR_SWIZZLE)
    return true;
  dst->inner = tilusLayoutClone(src->inner);
  return dst->inner != NULL;
}

void tilusLayoutFactorRelease(TilusFactor *factor) {
  if (factor->kind == TILUS_FACTOR_SWIZZLE) {
    tilusLayoutDestroy(factor->inner);
    factor->inner = NULL;
  }
}

/* Number of entries > 1 in the full dimension list of a primitive. */
static int64_t countNontrivialFullDims(const TilusFactor *factor,
                                       int64_t rank) {
  int64_t count = 0;
  for (int64_t d = 0; d < rank; ++d)
    count += factor->shape[d] > 1;
  for (int64_t d = 0; d <= rank; ++d)
    count += factor->rep[d] > 1;
  return count;
}

bool tilusLayoutFactorUpdate(TilusFactor *factor, int64_t rank) {
  if (factor->kind == TILUS_FACTOR_SWIZZLE) {
    factor->numThreads = 1;
    factor->localSize = factor->inner->localSize;
    return true;
  }
  /* Size-1 dims do not move any digit, so a replication group may sit on
   * either side of them; always put it on the right. */
  for (int64_t d = 0; d < rank; ++d) {
    if (factor->shape[d] == 1 && factor->rep[d] > 1) {
      factor->rep[d + 1] *= factor->rep[d];
      factor->rep[d] = 1;
    }
  }
  /* With at most one non-trivial digit row and column order coincide. */
  if (countNontrivialFullDims(factor, rank) <= 1)
    factor->column = false;
  int64_t size = 1;
  for (int64_t d = 0; d < rank && size > 0; ++d)
    size = tilusLayoutCheckedMul(size, factor->shape[d]);
  for (int64_t d = 0; d <= rank && size > 0; ++d)
    size = tilusLayoutCheckedMul(size, factor->rep[d]);
  if (size < 0)
    return false;
  bool spatial = factor->kind == TILUS_FACTOR_SPATIAL;
  factor->numThreads = spatial ? size : 1;
  factor->localSize = spatial ? 1 : size;
  return true;
}

bool tilusLayoutFactorIsTrivial(const TilusFactor *factor, int64_t rank) {
  if (factor->kind == TILUS_FACTOR_SWIZZLE)
    return false;
  return countNontrivialFullDims(factor, rank) == 0;
}

/* Whether a.b == a*b for a primitive order (row: a trivial right of some
 * dim k and b trivial left of it; column: the mirror image). */
static bool mergeableInOrder(const TilusFactor *a, const TilusFactor *b,
                             int64_t rank, bool column) {
  int64_t firstA = rank, lastA = -1, firstB = rank, lastB = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (a->shape[d] > 1) {
      firstA = d < firstA ? d : firstA;
      lastA = d;
    }
    if (b->shape[d] > 1) {
      firstB = d < firstB ? d : firstB;
      lastB = d;
    }
  }
  return column ? lastB <= firstA : lastA <= firstB;
}

bool tilusLayoutFactorsMerge(const TilusFactor *a, const TilusFactor *b,
                             int64_t rank, TilusFactor *merged) {
  if (a->kind == TILUS_FACTOR_SWIZZLE || a->kind != b->kind)
    return false;
  if (countNontrivialFullDims(a, rank) == 0 ||
      countNontrivialFullDims(b, rank) == 0)
    return false; /* trivial factors are dropped, not merged */
  for (int64_t d = 0; d <= rank; ++d)
    if (a->rep[d] != 1 || b->rep[d] != 1)
      return false;
  /* A factor with one non-trivial dim is canonically row order but fits
   * either order, so try every order both operands allow. */
  bool aFree = countNontrivialFullDims(a, rank) <= 1;
  bool bFree = countNontrivialFullDims(b, rank) <= 1;
  for (int order = 0; order < 2; ++order) {
    bool column = order == 1;
    if ((!aFree && a->column != column) || (!bFree && b->column != column))
      continue;
    if (!mergeableInOrder(a, b, rank, column))
      continue;
    *merged = *a;
    merged->column = column;
    for (int64_t d = 0; d < rank; ++d) {
      merged->shape[d] = tilusLayoutCheckedMul(a->shape[d], b->shape[d]);
      if (merged->shape[d] < 0)
        return false; /* left unmerged; the size check reports it */
    }
    return tilusLayoutFactorUpdate(merged, rank);
  }
  return false;
}

/*--- Canonical chains ---------------------------------------------------------*/

static void destroyFactors(TilusFactor *factors, int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    tilusLayoutFactorRelease(&factors[k]);
  free(factors);
}

static void initPrimitive(TilusFactor *factor, TilusFactorKind kind,
                          bool column, int64_t rank, const int64_t *shape) {
  memset(factor, 0, sizeof(*factor));
  factor->kind = kind;
  factor->column = column;
  for (int64_t d = 0; d < rank; ++d)
    factor->shape[d] = shape ? shape[d] : 1;
  for (int64_t d = 0; d <= rank; ++d)
    factor->rep[d] = 1;
}

bool tilusLayoutComputeTotals(TilusLayout *layout) {
  int64_t threads = 1, local = 1;
  for (int64_t d = 0; d < layout->rank; ++d)
    layout->shape[d] = 1;
  for (int64_t k = 0; k < layout->numFactors; ++k) {
    const TilusFactor *factor = &layout->factors[k];
    threads = tilusLayoutCheckedMul(threads, factor->numThreads);
    local = tilusLayoutCheckedMul(local, factor->localSize);
    if (threads < 0 || local < 0)
      return false;
    for (int64_t d = 0; d < layout->rank; ++d) {
      layout->shape[d] =
          tilusLayoutCheckedMul(layout->shape[d], factor->shape[d]);
      if (layout->shape[d] < 0)
        return false;
    }
  }
  layout->numThreads = threads;
  layout->localSize = local;
  /* Bounding T*m bounds every table walk and the element count. */
  return tilusLayoutCheckedMul(threads, local) > 0;
}

TilusLayout *tilusLayoutFinish(int64_t rank, TilusFactor *factors, int64_t n,
                               TilusLayoutError *err) {
  if (rank < 1 || rank > TILUS_LAYOUT_RANK_CAP) {
    destroyFactors(factors, n);
    tilusLayoutSetError(err, "rank %lld out of range", (long long)rank);
    return NULL;
  }
  int64_t kept = 0;
  for (int64_t k = 0; k < n; ++k) {
    TilusFactor *factor = &factors[k];
    if (!tilusLayoutFactorUpdate(factor, rank)) {
      for (int64_t j = k; j < n; ++j)
        tilusLayoutFactorRelease(&factors[j]);
      destroyFactors(factors, kept);
      tilusLayoutSetError(err, "layout too large (a factor exceeds 2^40 "
                               "elements)");
      return NULL;
    }
    if (tilusLayoutFactorIsTrivial(factor, rank)) {
      tilusLayoutFactorRelease(factor);
      continue;
    }
    factors[kept++] = *factor;
    /* A merged pair may in turn merge with its left neighbour. */
    TilusFactor merged;
    while (kept >= 2 && tilusLayoutFactorsMerge(&factors[kept - 2],
                                                &factors[kept - 1], rank,
                                                &merged)) {
      factors[kept - 2] = merged; /* primitives own nothing */
      --kept;
    }
  }
  if (kept == 0) {
    if (!factors)
      factors = malloc(sizeof(TilusFactor));
    if (!factors) {
      tilusLayoutSetError(err, "out of memory");
      return NULL;
    }
    initPrimitive(&factors[0], TILUS_FACTOR_LOCAL, false, rank, NULL);
    tilusLayoutFactorUpdate(&factors[0], rank);
    kept = 1;
  }
  TilusLayout *layout = calloc(1, sizeof(TilusLayout));
  if (!layout) {
    destroyFactors(factors, kept);
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  layout->rank = rank;
  layout->numFactors = kept;
  layout->factors = factors;
  if (!tilusLayoutComputeTotals(layout)) {
    tilusLayoutDestroy(layout);
    tilusLayoutSetError(err, "layout too large (T, m or a dimension exceeds "
                             "2^40)");
    return NULL;
  }
  return layout;
}

/*--- Construction -------------------------------------------------------------*/

TilusLayout *tilusLayoutCreatePrimitive(TilusFactorKind kind, bool column,
                                        int64_t rank, const int64_t *shape,
                                        int64_t maxRank,
                                        TilusLayoutError *err) {
  if (rank < 1 || rank > maxRank) {
    tilusLayoutSetError(err, "rank %lld out of range [1, %lld]",
                        (long long)rank, (long long)maxRank);
    return NULL;
  }
  if (!shape) {
    tilusLayoutSetError(err, "missing shape");
    return NULL;
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (shape[d] < 1) {
      tilusLayoutSetError(err, "shape entry %lld is %lld, must be >= 1",
                          (long long)d, (long long)shape[d]);
      return NULL;
    }
  }
  TilusFactor *factors = malloc(sizeof(TilusFactor));
  if (!factors) {
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  initPrimitive(&factors[0], kind, column, rank, shape);
  return tilusLayoutFinish(rank, factors, 1, err);
}

TilusLayout *tilusLayoutCreateLocal(int64_t rank, const int64_t *shape,
                                    TilusLayoutError *err) {
  return tilusLayoutCreatePrimitive(TILUS_FACTOR_LOCAL, false, rank, shape,
                                    TILUS_LAYOUT_MAX_RANK, err);
}

TilusLayout *tilusLayoutCreateSpatial(int64_t rank, const int64_t *shape,
                                      TilusLayoutError *err) {
  return tilusLayoutCreatePrimitive(TILUS_FACTOR_SPATIAL, false, rank, shape,
                                    TILUS_LAYOUT_MAX_RANK, err);
}

TilusLayout *tilusLayoutCreateColumnLocal(int64_t rank, const int64_t *shape,
                                          TilusLayoutError *err) {
  return tilusLayoutCreatePrimitive(TILUS_FACTOR_LOCAL, true, rank, shape,
                                    TILUS_LAYOUT_MAX_RANK, err);
}

TilusLayout *tilusLayoutCreateColumnSpatial(int64_t rank, const int64_t *shape,
                                            TilusLayoutError *err) {
  return tilusLayoutCreatePrimitive(TILUS_FACTOR_SPATIAL, true, rank, shape,
                                    TILUS_LAYOUT_MAX_RANK, err);
}

TilusLayout *tilusLayoutClone(const TilusLayout *layout) {
  if (!layout)
    return NULL;
  TilusLayout *copy = malloc(sizeof(TilusLayout));
  TilusFactor *factors = malloc(sizeof(TilusFactor) * layout->numFactors);
  if (!copy || !factors) {
    free(copy);
    free(factors);
    return NULL;
  }
  *copy = *layout;
  copy->factors = factors;
  for (int64_t k = 0; k < layout->numFactors; ++k) {
    if (!tilusLayoutFactorCopy(&factors[k], &layout->factors[k])) {
      copy->numFactors = k;
      tilusLayoutDestroy(copy);
      return NULL;
    }
  }
  return copy;
}

void tilusLayoutDestroy(TilusLayout *layout) {
  if (!layout)
    return;
  destroyFactors(layout->factors, layout->numFactors);
  free(layout);
}

/*--- Broadcast and composition ------------------------------------------------*/

/* Copies src (rank `from`) into dst with `to - from` leading size-1 dims. */
static bool broadcastFactor(TilusFactor *dst, const TilusFactor *src,
                            int64_t from, int64_t to, TilusLayoutError *err) {
  int64_t delta = to - from;
  *dst = *src;
  if (src->kind == TILUS_FACTOR_SWIZZLE) {
    /* The new coordinates are 0, so the linearization r is unchanged. */
    dst->inner = tilusLayoutBroadcastChecked(src->inner, to, err);
    dst->dim = src->dim + delta;
    if (!dst->inner)
      return false;
  }
  for (int64_t d = 0; d < to; ++d)
    dst->shape[d] = d < delta ? 1 : src->shape[d - delta];
  for (int64_t d = 0; d <= to; ++d)
    dst->rep[d] = d < delta ? 1 : src->rep[d - delta];
  return true;
}

/* Appends the factors of `layout`, broadcast to `rank`, at factors + *n. */
static bool appendBroadcast(TilusFactor *factors, int64_t *n,
                            const TilusLayout *layout, int64_t rank,
                            TilusLayoutError *err) {
  for (int64_t k = 0; k < layout->numFactors; ++k) {
    if (!broadcastFactor(&factors[*n], &layout->factors[k], layout->rank, rank,
                         err))
      return false;
    ++*n;
  }
  return true;
}

TilusLayout *tilusLayoutBroadcastChecked(const TilusLayout *f, int64_t rank,
                                         TilusLayoutError *err) {
  if (!f) {
    tilusLayoutSetError(err, "null layout");
    return NULL;
  }
  if (rank < f->rank || rank > TILUS_LAYOUT_RANK_CAP) {
    tilusLayoutSetError(err, "cannot broadcast a rank-%lld layout to rank %lld",
                        (long long)f->rank, (long long)rank);
    return NULL;
  }
  TilusFactor *factors = malloc(sizeof(TilusFactor) * f->numFactors);
  if (!factors) {
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  int64_t n = 0;
  if (!appendBroadcast(factors, &n, f, rank, err)) {
    destroyFactors(factors, n);
    return NULL;
  }
  return tilusLayoutFinish(rank, factors, n, err);
}

TilusLayout *tilusLayoutBroadcast(const TilusLayout *f, int64_t rank,
                                  TilusLayoutError *err) {
  if (rank > TILUS_LAYOUT_MAX_RANK) {
    tilusLayoutSetError(err, "rank %lld exceeds the maximum %d",
                        (long long)rank, TILUS_LAYOUT_MAX_RANK);
    return NULL;
  }
  return tilusLayoutBroadcastChecked(f, rank, err);
}

TilusLayout *tilusLayoutComposeChecked(const TilusLayout *f,
                                       const TilusLayout *g,
                                       TilusLayoutError *err) {
  if (!f || !g) {
    tilusLayoutSetError(err, "null layout");
    return NULL;
  }
  int64_t rank = f->rank > g->rank ? f->rank : g->rank;
  TilusFactor *factors =
      malloc(sizeof(TilusFactor) * (f->numFactors + g->numFactors));
  if (!factors) {
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  int64_t n = 0;
  if (!appendBroadcast(factors, &n, f, rank, err) ||
      !appendBroadcast(factors, &n, g, rank, err)) {
    destroyFactors(factors, n);
    return NULL;
  }
  return tilusLayoutFinish(rank, factors, n, err);
}

TilusLayout *tilusLayoutCompose(const TilusLayout *f, const TilusLayout *g) {
  return tilusLayoutComposeChecked(f, g, NULL);
}

/*--- Reduce and swizzle -------------------------------------------------------*/

/* Removes the output dims marked in `drop` from a primitive. A local factor
 * forgets them (one copy per thread); a spatial factor turns them into
 * replication groups, merged with the neighbouring groups. */
static void reduceFactor(TilusFactor *dst, const TilusFactor *src,
                         int64_t rank, const bool *drop) {
  *dst = *src;
  int64_t kept = 0;
  int64_t pending = src->rep[0];
  for (int64_t d = 0; d < rank; ++d) {
    if (drop[d]) {
      if (src->kind == TILUS_FACTOR_SPATIAL)
        pending *= src->shape[d];
      pending *= src->rep[d + 1];
      continue;
    }
    dst->rep[kept] = pending;
    dst->shape[kept++] = src->shape[d];
    pending = src->rep[d + 1];
  }
  dst->rep[kept] = pending;
}

TilusLayout *tilusLayoutReduce(const TilusLayout *f, int64_t numDims,
                               const int64_t *dims, TilusLayoutError *err) {
  if (!f) {
    tilusLayoutSetError(err, "null layout");
    return NULL;
  }
  bool drop[TILUS_LAYOUT_RANK_CAP] = {false};
  if (numDims < 0 || (numDims > 0 && !dims)) {
    tilusLayoutSetError(err, "invalid reduce dimension list");
    return NULL;
  }
  for (int64_t k = 0; k < numDims; ++k) {
    if (dims[k] < 0 || dims[k] >= f->rank) {
      tilusLayoutSetError(err, "reduce dim %lld out of range for rank %lld",
                          (long long)dims[k], (long long)f->rank);
      return NULL;
    }
    if (drop[dims[k]]) {
      tilusLayoutSetError(err, "reduce dim %lld repeated", (long long)dims[k]);
      return NULL;
    }
    drop[dims[k]] = true;
  }
  if (numDims >= f->rank) {
    tilusLayoutSetError(err, "reduce would leave rank %lld, must be >= 1",
                        (long long)(f->rank - numDims));
    return NULL;
  }
  for (int64_t k = 0; k < f->numFactors; ++k) {
    if (f->factors[k].kind == TILUS_FACTOR_SWIZZLE) {
      tilusLayoutSetError(err, "reduce is not defined on a swizzled layout");
      return NULL;
    }
  }
  TilusFactor *factors = malloc(sizeof(TilusFactor) * f->numFactors);
  if (!factors) {
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  /* Reduction distributes over the chain: each factor drops the dims. */
  for (int64_t k = 0; k < f->numFactors; ++k)
    reduceFactor(&factors[k], &f->factors[k], f->rank, drop);
  return tilusLayoutFinish(f->rank - numDims, factors, f->numFactors, err);
}

TilusLayout *tilusLayoutSwizzle(const TilusLayout *f, int64_t dim,
                                int64_t logStep, TilusLayoutError *err) {
  if (!f) {
    tilusLayoutSetError(err, "null layout");
    return NULL;
  }
  if (f->rank < 2) {
    tilusLayoutSetError(err, "swizzle needs rank >= 2, got %lld",
                        (long long)f->rank);
    return NULL;
  }
  if (dim < 0 || dim >= f->rank) {
    tilusLayoutSetError(err, "swizzle dim %lld out of range for rank %lld",
                        (long long)dim, (long long)f->rank);
    return NULL;
  }
  if (logStep < 0) {
    tilusLayoutSetError(err, "swizzle log_step %lld must be >= 0",
                        (long long)logStep);
    return NULL;
  }
  if (f->numThreads != 1) {
    tilusLayoutSetError(err, "swizzle needs a single-thread layout, got %lld "
                             "threads",
                        (long long)f->numThreads);
    return NULL;
  }
  int64_t n = f->shape[dim];
  if ((n & (n - 1)) != 0) {
    tilusLayoutSetError(err, "swizzled dim %lld has size %lld, not a power "
                             "of two",
                        (long long)dim, (long long)n);
    return NULL;
  }
  int64_t others = 1;
  for (int64_t d = 0; d < f->rank; ++d)
    others *= d == dim ? 1 : f->shape[d];
  /* When every r >> logStep is 0 (or n is 1) the swizzle is the identity;
   * return f itself so that the canonical form has no no-op swizzles. */
  if (n == 1 || logStep >= 62 || ((others - 1) >> logStep) == 0)
    return tilusLayoutClone(f);
  TilusFactor *factors = malloc(sizeof(TilusFactor));
  if (!factors) {
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  memset(factors, 0, sizeof(TilusFactor));
  factors[0].kind = TILUS_FACTOR_SWIZZLE;
  factors[0].inner = tilusLayoutClone(f);
  factors[0].dim = dim;
  factors[0].logStep = logStep;
  for (int64_t d = 0; d < f->rank; ++d)
    factors[0].shape[d] = f->shape[d];
  for (int64_t d = 0; d <= f->rank; ++d)
    factors[0].rep[d] = 1;
  if (!factors[0].inner) {
    free(factors);
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  return tilusLayoutFinish(f->rank, factors, 1, err);
}

/*--- Evaluation ---------------------------------------------------------------*/

/* Output of one factor for its input digit u (t for spatial, i otherwise). */
static void evaluateFactor(const TilusFactor *factor, int64_t rank, int64_t u,
                           int64_t *x) {
  if (factor->kind == TILUS_FACTOR_SWIZZLE) {
    tilusLayoutEvaluate(factor->inner, 0, u, x);
    int64_t r = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (d != factor->dim)
        r = r * factor->shape[d] + x[d];
    x[factor->dim] ^= (r >> factor->logStep) % factor->shape[factor->dim];
    return;
  }
  /* Peel digits over rep[0], shape[0], ..., shape[rank-1], rep[rank] from
   * the fastest end; rep digits are discarded. */
  if (factor->column) {
    u /= factor->rep[0];
    for (int64_t d = 0; d < rank; ++d) {
      x[d] = u % factor->shape[d];
      u = u / factor->shape[d] / factor->rep[d + 1];
    }
  } else {
    u /= factor->rep[rank];
    for (int64_t d = rank - 1; d >= 0; --d) {
      x[d] = u % factor->shape[d];
      u = u / factor->shape[d] / factor->rep[d];
    }
  }
}

void tilusLayoutEvaluate(const TilusLayout *layout, int64_t thread,
                         int64_t local, int64_t *index) {
  int64_t stride[TILUS_LAYOUT_RANK_CAP];
  int64_t x[TILUS_LAYOUT_RANK_CAP];
  int64_t rank = layout->rank;
  for (int64_t d = 0; d < rank; ++d) {
    index[d] = 0;
    stride[d] = 1;
  }
  /* h(t,i) = f(t/Tg, i/mg) * Sg + g(t%Tg, i%mg), unrolled from the right. */
  for (int64_t k = layout->numFactors - 1; k >= 0; --k) {
    const TilusFactor *factor = &layout->factors[k];
    if (factor->kind == TILUS_FACTOR_SPATIAL)
      evaluateFactor(factor, rank, thread % factor->numThreads, x);
    else
      evaluateFactor(factor, rank, local % factor->localSize, x);
    thread /= factor->numThreads;
    local /= factor->localSize;
    for (int64_t d = 0; d < rank; ++d) {
      index[d] += stride[d] * x[d];
      stride[d] *= factor->shape[d];
    }
  }
}

/*--- Queries ------------------------------------------------------------------*/

int64_t tilusLayoutGetRank(const TilusLayout *layout) { return layout->rank; }

int64_t tilusLayoutGetDim(const TilusLayout *layout, int64_t dim) {
  if (dim < 0 || dim >= layout->rank)
    return -1;
  return layout->shape[dim];
}

int64_t tilusLayoutGetNumThreads(const TilusLayout *layout) {
  return layout->numThreads;
}

int64_t tilusLayoutGetLocalSize(const TilusLayout *layout) {
  return layout->localSize;
}

int64_t tilusLayoutGetNumElements(const TilusLayout *layout) {
  int64_t count = 1;
  for (int64_t d = 0; d < layout->rank; ++d)
    count *= layout->shape[d];
  return count;
}

