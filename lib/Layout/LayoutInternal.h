/*===-- LayoutInternal.h - Private layout representation -------------*- C -*-===*\
|*                                                                            *|
|* Shared by the .c files of lib/Layout only. A layout is a chain of factors  *|
|* F1.F2...Fk of one uniform output rank, evaluated as in the paper:          *|
|*   h(t,i) = (F1..F(k-1))(t/Tk, i/mk) * Sk + Fk(t%Tk, i%mk).                 *|
|* Every TilusLayout handed out is kept canonical (see tilusLayoutFinish).    *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_LIB_LAYOUT_LAYOUTINTERNAL_H
#define TILUS_LIB_LAYOUT_LAYOUTINTERNAL_H

#include "tilus-c/Layout.h"

/* Public layouts have rank <= TILUS_LAYOUT_MAX_RANK. The parser needs wider
 * intermediates: the canonical text of a replicated spatial factor of rank r
 * lists up to 2r+1 dimensions, e.g. reduce(spatial(1,..,1,4),dims=[r]). */
#define TILUS_LAYOUT_RANK_CAP (2 * TILUS_LAYOUT_MAX_RANK + 1)

/* T, m, T*m and every shape product stay below this, so that no product of
 * two of them can overflow int64_t. */
#define TILUS_LAYOUT_SIZE_LIMIT ((int64_t)1 << 40)

typedef enum {
  TILUS_FACTOR_LOCAL,
  TILUS_FACTOR_SPATIAL,
  TILUS_FACTOR_SWIZZLE
} TilusFactorKind;

/* One factor of the chain.
 *
 * Primitives (LOCAL, SPATIAL) decompose their input (i for LOCAL, t for
 * SPATIAL) over the "full" dimension list
 *     rep[0], shape[0], rep[1], shape[1], ..., shape[rank-1], rep[rank]
 * in row-major (last fastest) or column-major (first fastest) order and
 * output the shape[] coordinates. rep[] entries are dimensions that reduce()
 * removed from a spatial factor: the thread coordinate along them exists but
 * is not part of the output (replication). LOCAL factors always have rep 1.
 * Canonical primitives push rep[p] > 1 right across size-1 dims (so
 * rep[p] > 1 implies p == rank or shape[p] > 1) and use row order whenever
 * at most one full dimension exceeds 1 (then both orders agree).
 *
 * SWIZZLE factors evaluate `inner` (T = 1) and then XOR output coordinate
 * `dim` with ((r >> logStep) mod shape[dim]), r the row-major linearization
 * of the other coordinates over shape[]. */
typedef struct {
  TilusFactorKind kind;
  bool column;
  int64_t shape[TILUS_LAYOUT_RANK_CAP];
  int64_t rep[TILUS_LAYOUT_RANK_CAP + 1];
  int64_t numThreads;
  int64_t localSize;
  TilusLayout *inner; /* SWIZZLE only, owned */
  int64_t dim;        /* SWIZZLE only */
  int64_t logStep;    /* SWIZZLE only */
} TilusFactor;

struct TilusLayout {
  int64_t rank;
  int64_t numFactors; /* >= 1 */
  TilusFactor *factors;
  int64_t shape[TILUS_LAYOUT_RANK_CAP];
  int64_t numThreads;
  int64_t localSize;
};

/* Writes a formatted one-line message into err when err is non-NULL. */
void tilusLayoutSetError(TilusLayoutError *err, const char *format, ...);

/* a * b, or -1 when it exceeds TILUS_LAYOUT_SIZE_LIMIT (a, b >= 1). */
int64_t tilusLayoutCheckedMul(int64_t a, int64_t b);

/* A primitive of rank <= maxRank (the public constructors pass
 * TILUS_LAYOUT_MAX_RANK, the parser may pass TILUS_LAYOUT_RANK_CAP). */
TilusLayout *tilusLayoutCreatePrimitive(TilusFactorKind kind, bool column,
                                        int64_t rank, const int64_t *shape,
                                        int64_t maxRank, TilusLayoutError *err);

/* Composition reporting overflow through err; ranks up to the cap. */
TilusLayout *tilusLayoutComposeChecked(const TilusLayout *f,
                                       const TilusLayout *g,
                                       TilusLayoutError *err);

/* Broadcast without the public rank limit (up to the cap). */
TilusLayout *tilusLayoutBroadcastChecked(const TilusLayout *f, int64_t rank,
                                         TilusLayoutError *err);

/* Takes ownership of factors[0..n) (all of rank `rank`, n >= 0) and of the
 * array, canonicalizes the chain and computes T, m and the shape. Frees
 * everything and returns NULL on overflow. */
TilusLayout *tilusLayoutFinish(int64_t rank, TilusFactor *factors, int64_t n,
                               TilusLayoutError *err);

/* Deep copy of a factor into dst (false on allocation failure). */
bool tilusLayoutFactorCopy(TilusFactor *dst, const TilusFactor *src);
void tilusLayoutFactorRelease(TilusFactor *factor);

/* Brings a primitive factor to canonical form (see TilusFactor) and
 * recomputes its T and m; false when its size exceeds the limit. */
bool tilusLayoutFactorUpdate(TilusFactor *factor, int64_t rank);

/* A primitive whose output is always 0 and that has T = m = 1. */
bool tilusLayoutFactorIsTrivial(const TilusFactor *factor, int64_t rank);

/* When a.b equals a single primitive (shape a*b elementwise, no
 * replication), writes it into merged and returns true. */
bool tilusLayoutFactorsMerge(const TilusFactor *a, const TilusFactor *b,
                             int64_t rank, TilusFactor *merged);

/* Functional equality of the chain a[0..na) and the chain b[0..nb), all
 * factors of rank `rank` (a table walk over every (t, i)). */
bool tilusLayoutChainsEqual(const TilusFactor *a, int64_t na,
                            const TilusFactor *b, int64_t nb, int64_t rank);

#endif /* TILUS_LIB_LAYOUT_LAYOUTINTERNAL_H */
