/*===-- LayoutDivide.c - Layout division f / g ------------------------*- C -*-===*\
|*                                                                            *|
|* h = f / g is a layout with h.g == f. Both chains are canonical, so g's     *|
|* factors are peeled from the right end of f: a factor of f either equals   *|
|* g's factor or is a primitive of the same kind that splits exactly as      *|
|* quotient.divisor. Whatever is built is checked functionally at the end,   *|
|* so a wrong guess can only make division fail, never return a wrong h.     *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <stdlib.h>

/* Functional equality of the chain a[0..na) and the chain b[0..nb), all
 * factors of rank `rank`. */
static bool chainsEqual(const TilusFactor *a, int64_t na, const TilusFactor *b,
                        int64_t nb, int64_t rank) {
  /* Read-only views; the casts drop const only for the struct field. */
  TilusLayout va = {.rank = rank, .numFactors = na, .factors = (TilusFactor *)a};
  TilusLayout vb = {.rank = rank, .numFactors = nb, .factors = (TilusFactor *)b};
  if (!tilusLayoutComputeTotals(&va) || !tilusLayoutComputeTotals(&vb))
    return false;
  return tilusLayoutEqual(&va, &vb);
}

/* If `whole` == q.part for a primitive q of whole's kind and order whose
 * full dimensions are whole's divided by part's, writes q and returns true. */
static bool splitFactor(const TilusFactor *whole, const TilusFactor *part,
                        int64_t rank, TilusFactor *quotient) {
  if (whole->kind == TILUS_FACTOR_SWIZZLE || whole->kind != part->kind)
    return false;
  *quotient = *whole;
  for (int64_t d = 0; d < rank; ++d) {
    if (whole->shape[d] % part->shape[d] != 0)
      return false;
    quotient->shape[d] = whole->shape[d] / part->shape[d];
  }
  for (int64_t d = 0; d <= rank; ++d) {
    if (whole->rep[d] % part->rep[d] != 0)
      return false;
    quotient->rep[d] = whole->rep[d] / part->rep[d];
  }
  if (!tilusLayoutFactorUpdate(quotient, rank))
    return false;
  TilusFactor pair[2] = {*quotient, *part};
  return chainsEqual(pair, 2, whole, 1, rank);
}

TilusLayout *tilusLayoutDivide(const TilusLayout *f, const TilusLayout *g,
                               TilusLayoutError *err) {
  if (!f || !g) {
    tilusLayoutSetError(err, "null layout");
    return NULL;
  }
  if (g->rank > f->rank) {
    tilusLayoutSetError(err, "divisor rank %lld exceeds dividend rank %lld",
                        (long long)g->rank, (long long)f->rank);
    return NULL;
  }
  int64_t rank = f->rank;
  TilusLayout *divisor = tilusLayoutBroadcastChecked(g, rank, err);
  if (!divisor)
    return NULL;
  TilusFactor *rest = malloc(sizeof(TilusFactor) * f->numFactors);
  int64_t n = 0;
  if (!rest) {
    tilusLayoutDestroy(divisor);
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  for (; n < f->numFactors; ++n) {
    if (!tilusLayoutFactorCopy(&rest[n], &f->factors[n]))
      goto fail_oom;
  }

  for (int64_t j = divisor->numFactors - 1; j >= 0; --j) {
    const TilusFactor *part = &divisor->factors[j];
    if (tilusLayoutFactorIsTrivial(part, rank))
      continue;
    while (n > 0 && tilusLayoutFactorIsTrivial(&rest[n - 1], rank))
      tilusLayoutFactorRelease(&rest[--n]);
    if (n == 0) {
      tilusLayoutSetError(err, "divisor has more factors than the dividend");
      goto fail;
    }
    TilusFactor *whole = &rest[n - 1];
    TilusFactor quotient;
    if (chainsEqual(whole, 1, part, 1, rank)) {
      tilusLayoutFactorRelease(&rest[--n]);
    } else if (splitFactor(whole, part, rank, &quotient)) {
      *whole = quotient; /* a primitive: nothing to release */
    } else {
      tilusLayoutSetError(err, "divisor factor %lld does not divide the "
                               "dividend's trailing factor",
                          (long long)j);
      goto fail;
    }
  }

  TilusLayout *h = tilusLayoutFinish(rank, rest, n, err);
  if (!h) {
    tilusLayoutDestroy(divisor);
    return NULL;
  }
  TilusLayout *check = tilusLayoutComposeChecked(h, divisor, err);
  bool ok = check && tilusLayoutEqual(check, f);
  tilusLayoutDestroy(check);
  tilusLayoutDestroy(divisor);
  if (!ok) {
    tilusLayoutDestroy(h);
    tilusLayoutSetError(err, "no layout h with h.g == f found");
    return NULL;
  }
  return h;

fail_oom:
  tilusLayoutSetError(err, "out of memory");
fail:
  for (int64_t k = 0; k < n; ++k)
    tilusLayoutFactorRelease(&rest[k]);
  free(rest);
  tilusLayoutDestroy(divisor);
  return NULL;
}

bool tilusLayoutIsDivisibleBy(const TilusLayout *f, const TilusLayout *g) {
  TilusLayout *h = tilusLayoutDivide(f, g, NULL);
  tilusLayoutDestroy(h);
  return h != NULL;
}
