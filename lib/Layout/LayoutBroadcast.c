/*===-- LayoutBroadcast.c - Broadcasting without data movement
-------------===*\
|*                                                                            *|
|* An elementwise op whose operand has size-1 dimensions (numpy broadcasting  *|
|* on one rank) reads, for slot i of thread t of the result, the operand's    *|
|* element P(f_R(t, i)), P setting the broadcast coordinates to 0. In the     *|
|* normal form f(t, i) = A(t) + B(i) (sums of thread and local pieces), and P *|
|* is linear, so P f_R(t, i) = P A_R(t) + P B_R(i). When P A_R = A_O (the     *|
|* thread pieces agree once the broadcast dimensions count as replicated),    *|
|* the slot j with B_O(j) = P B_R(i) serves every thread at once: that is     *|
|* the one case the lowering reads without moving data, one fixed slot per   *|
|* result slot.                                                               *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The thread pieces of `layout` with the digits along dims[d] (and those
 * that move nothing) made replicated, merged again. Caller frees *out. */
static bool projectedThreadPieces(const TilusLayout *layout, const bool *drop,
                                  TilusPiece **out, int64_t *count) {
  TilusNormalForm nf;
  if (!tilusNormalFormBuild(layout, &nf))
    return false;
  TilusPiece *pieces = malloc(sizeof(TilusPiece) * (size_t)(nf.numThread + 1));
  if (!pieces) {
    tilusNormalFormRelease(&nf);
    return false;
  }
  int64_t n = 0;
  for (int64_t k = 0; k < nf.numThread; ++k) {
    const TilusPiece *p = &nf.thread[k];
    bool gone = p->dim < 0 || drop[p->dim] || p->stride == 0;
    tilusPiecesAppendDigit(pieces, &n, p->divisor, p->modulus,
                           gone ? -1 : p->dim, gone ? 0 : p->stride);
  }
  tilusNormalFormRelease(&nf);
  *out = pieces;
  *count = n;
  return true;
}

static void formatIndex(char *buffer, size_t size, int64_t rank,
                        const int64_t *index) {
  size_t used = 0;
  buffer[0] = '\0';
  for (int64_t d = 0; d < rank && used + 1 < size; ++d) {
    int n = snprintf(buffer + used, size - used, "%s%lld", d ? ", " : "[",
                     (long long)index[d]);
    if (n < 0)
      return;
    used += (size_t)n < size - used ? (size_t)n : size - used - 1;
  }
  if (used + 1 < size)
    snprintf(buffer + used, size - used, "]");
}

/* A thread t whose element at slot 0 differs between P f_R and f_O, or -1.
 * Only on the error path, to name a thread in the message: digit lists are
 * unique (docs/layouts.md), so different lists always have a witness; the
 * walk is bounded by TILUS_LAYOUT_WALK_LIMIT threads (and by the block size
 * for register layouts). */
static int64_t findThreadWitness(const TilusLayout *result,
                                 const TilusLayout *operand, const bool *drop,
                                 int64_t *needed, int64_t *held) {
  int64_t threads = result->numThreads;
  if (threads > TILUS_LAYOUT_WALK_LIMIT)
    threads = TILUS_LAYOUT_WALK_LIMIT;
  for (int64_t t = 0; t < threads; ++t) {
    tilusLayoutEvaluate(result, t, 0, needed);
    tilusLayoutEvaluate(operand, t, 0, held);
    bool same = true;
    for (int64_t d = 0; d < result->rank; ++d) {
      if (drop[d])
        needed[d] = 0;
      same &= needed[d] == held[d];
    }
    if (!same)
      return t;
  }
  return -1;
}

bool tilusLayoutBroadcastSlots(const TilusLayout *result,
                               const TilusLayout *operand, int64_t *slots,
                               TilusLayoutError *err) {
  if (!result || !operand) {
    tilusLayoutSetError(err, "null layout");
    return false;
  }
  if (result->rank != operand->rank) {
    tilusLayoutSetError(err, "the ranks differ (%lld and %lld)",
                        (long long)result->rank, (long long)operand->rank);
    return false;
  }
  bool drop[TILUS_LAYOUT_RANK_CAP] = {false};
  for (int64_t d = 0; d < result->rank; ++d) {
    if (operand->shape[d] == result->shape[d])
      continue;
    if (operand->shape[d] != 1) {
      tilusLayoutSetError(err,
                          "dimension %lld has extent %lld, neither 1 nor the "
                          "result's %lld",
                          (long long)d, (long long)operand->shape[d],
                          (long long)result->shape[d]);
      return false;
    }
    drop[d] = true;
  }
  if (result->numThreads != operand->numThreads) {
    tilusLayoutSetError(err, "it has %lld threads, the result %lld",
                        (long long)operand->numThreads,
                        (long long)result->numThreads);
    return false;
  }
  int64_t needed[TILUS_LAYOUT_RANK_CAP], held[TILUS_LAYOUT_RANK_CAP];
  char a[128], b[128];
  /* Thread parts: equal piece lists decide it; otherwise a bounded search
   * for a thread that differs, whose absence proves them equal too. */
  TilusPiece *pr = NULL, *po = NULL;
  int64_t nr = 0, no = 0;
  bool noDrop[TILUS_LAYOUT_RANK_CAP] = {false};
  if (!projectedThreadPieces(result, drop, &pr, &nr) ||
      !projectedThreadPieces(operand, noDrop, &po, &no)) {
    free(pr);
    free(po);
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  bool same = tilusPiecesSameDigits(pr, nr, po, no);
  free(pr);
  free(po);
  if (!same) {
    int64_t t = findThreadWitness(result, operand, drop, needed, held);
    if (t >= 0 || result->numThreads > TILUS_LAYOUT_WALK_LIMIT) {
      if (t < 0) {
        tilusLayoutSetError(err, "its threads are not arranged as the "
                                 "result's");
        return false;
      }
      formatIndex(a, sizeof(a), result->rank, needed);
      formatIndex(b, sizeof(b), result->rank, held);
      tilusLayoutSetError(err,
                          "thread %lld needs element %s of it for its slot 0, "
                          "but the operand's layout puts element %s there",
                          (long long)t, a, b);
      return false;
    }
  }
  /* Local parts: each result slot's element must be in thread 0 (then, by
   * the thread parts, every thread has its own at the same slot). */
  for (int64_t i = 0; i < result->localSize; ++i) {
    tilusLayoutEvaluate(result, 0, i, needed);
    for (int64_t d = 0; d < result->rank; ++d)
      if (drop[d])
        needed[d] = 0;
    int64_t thread, local;
    if (!tilusLayoutLocate(operand, needed, &thread, &local) || thread != 0) {
      formatIndex(a, sizeof(a), result->rank, needed);
      tilusLayoutSetError(err,
                          "thread 0 needs element %s of it for its slot %lld, "
                          "which the operand's layout does not give thread 0",
                          a, (long long)i);
      return false;
    }
    slots[i] = local;
  }
  return true;
}

TilusLayout *tilusLayoutBroadcastSource(const TilusLayout *result,
                                        int64_t numDims, const int64_t *dims,
                                        TilusLayoutError *err) {
  if (!result) {
    tilusLayoutSetError(err, "null layout");
    return NULL;
  }
  bool drop[TILUS_LAYOUT_RANK_CAP] = {false};
  for (int64_t k = 0; k < numDims; ++k) {
    if (!dims || dims[k] < 0 || dims[k] >= result->rank) {
      tilusLayoutSetError(err, "broadcast dimension out of range");
      return NULL;
    }
    drop[dims[k]] = true;
  }
  TilusFactor *factors = malloc(sizeof(TilusFactor) * result->numFactors);
  if (!factors) {
    tilusLayoutSetError(err, "out of memory");
    return NULL;
  }
  for (int64_t k = 0; k < result->numFactors; ++k) {
    if (result->factors[k].kind == TILUS_FACTOR_SWIZZLE) {
      free(factors);
      tilusLayoutSetError(err, "the layout has a swizzle");
      return NULL;
    }
    factors[k] = result->factors[k];
    TilusFactor *f = &factors[k];
    for (int64_t d = 0; d < result->rank; ++d) {
      if (!drop[d])
        continue;
      /* A spatial extent becomes replication next to where it was (rep[d]
       * precedes shape[d] in the full list); a local one merges slots. */
      if (f->kind == TILUS_FACTOR_SPATIAL)
        f->rep[d] *= f->shape[d];
      f->shape[d] = 1;
    }
    tilusLayoutFactorUpdate(f, result->rank);
  }
  return tilusLayoutFinish(result->rank, factors, result->numFactors, err);
}
