//===- LayoutTranspose.c - A layout with its last two dimensions swapped ---===//
//
// transpose(f)(t, i) = f(t, i) with output coordinates r-2 and r-1
// exchanged. Each factor is transposed on its own: a row-major primitive
// over (.., a, b) reads as a column-major one over (.., b, a) once its
// leading dimensions are split off into a factor of their own (outermost
// for row-major, innermost for column-major, where they already vary), and
// a swizzle along one of the two dimensions transposes its inner layout and
// moves its dimension; its XOR term, the row-major linearization of the
// other coordinates, keeps their order (only one of the two is among them).
// A swizzle along a leading dimension, whose term would change, and spatial
// factors with replicated threads (reduce) are refused.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Layout.h"

#include <string.h>

typedef TilusLayout *(*Create)(int64_t, const int64_t *, TilusLayoutError *);

// Appends `next` (consumed) to *chain (outermost first); false on failure.
static bool append(TilusLayout **chain, TilusLayout *next) {
  if (!next)
    return false;
  if (!*chain) {
    *chain = next;
    return true;
  }
  TilusLayout *composed = tilusLayoutCompose(*chain, next);
  tilusLayoutDestroy(*chain);
  tilusLayoutDestroy(next);
  *chain = composed;
  return composed != NULL;
}

// One primitive factor transposed, appended to *chain.
static bool appendPrimitive(TilusLayout **chain, const TilusLayoutFactor *f,
                            int64_t rank) {
  bool spatial = f->kind == TilusLayoutFactorSpatial;
  Create row = spatial ? tilusLayoutCreateSpatial : tilusLayoutCreateLocal;
  Create column =
      spatial ? tilusLayoutCreateColumnSpatial : tilusLayoutCreateColumnLocal;
  int64_t lead[TILUS_LAYOUT_MAX_RANK], tile[TILUS_LAYOUT_MAX_RANK];
  bool hasLead = false;
  for (int64_t d = 0; d < rank; ++d) {
    lead[d] = d < rank - 2 ? f->shape[d] : 1;
    tile[d] = d < rank - 2 ? 1 : f->shape[d];
    hasLead |= lead[d] > 1;
  }
  // The tile part, its last two extents exchanged, in the other order.
  tile[rank - 2] = f->shape[rank - 1];
  tile[rank - 1] = f->shape[rank - 2];
  if (!f->column) {
    if (hasLead && !append(chain, row(rank, lead, NULL)))
      return false;
    return append(chain, column(rank, tile, NULL));
  }
  if (!append(chain, row(rank, tile, NULL)))
    return false;
  return !hasLead || append(chain, column(rank, lead, NULL));
}

TilusLayout *tilusLayoutTranspose(const TilusLayout *layout,
                                  TilusLayoutError *err) {
  int64_t rank = tilusLayoutGetRank(layout);
  if (rank < 2) {
    tilusLayoutSetError(err, "a transpose needs rank >= 2, not %lld",
                        (long long)rank);
    return NULL;
  }
  TilusLayout *chain = NULL;
  bool ok = true, reported = false;
  intptr_t n = tilusLayoutGetNumFactors(layout);
  for (intptr_t k = 0; ok && k < n; ++k) {
    TilusLayoutFactor f;
    tilusLayoutGetFactor(layout, k, &f);
    if (f.kind == TilusLayoutFactorSwizzle && f.dim < rank - 2) {
      // Its XOR term linearizes the last two coordinates, whose order the
      // transpose exchanges: no swizzle of this form gives it.
      tilusLayoutSetError(err, "a swizzle along a leading dimension is not "
                               "transposed");
      ok = false;
      reported = true;
    } else if (f.kind == TilusLayoutFactorSwizzle) {
      TilusLayout *inner = tilusLayoutTranspose(f.inner, err);
      int64_t dim = f.dim == rank - 1 ? rank - 2
                    : f.dim == rank - 2 ? rank - 1
                                        : f.dim;
      TilusLayout *swizzled =
          inner ? tilusLayoutSwizzle(inner, dim, f.logStep, err) : NULL;
      reported = !swizzled;
      tilusLayoutDestroy(inner);
      ok = append(&chain, swizzled);
    } else if (f.replicated) {
      tilusLayoutSetError(err, "a layout with replicated threads (reduce) "
                               "is not transposed");
      ok = false;
      reported = true;
    } else {
      ok = appendPrimitive(&chain, &f, rank);
    }
  }
  if (!ok || !chain) {
    if (!reported)
      tilusLayoutSetError(err, "the transposed layout could not be built");
    tilusLayoutDestroy(chain);
    return NULL;
  }
  return chain;
}
