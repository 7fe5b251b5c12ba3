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

/* Sets the shape, T and m of a layout from its rank and factors (which
 * need not be canonical); false on overflow. */
bool tilusLayoutComputeTotals(TilusLayout *layout);

/*--- Normal form (LayoutNormalForm.c) ---------------------------------------*/

/* One piece of the normal form f(t, i) = sum of thread pieces of t + sum of
 * local pieces of i. A digit adds ((u / divisor) % modulus) * stride to
 * output coordinate `dim` (u is t or i; dim -1: a replicated thread digit,
 * which adds nothing). A swizzle piece (local only) adds
 * swizzle((i / divisor) % modulus) * scale, coordinate by coordinate, where
 * swizzle is the factor's own function. Pieces are listed by increasing
 * divisor and tile the input range: each starts where the previous ends. */
typedef struct {
  int64_t divisor, modulus;
  int64_t dim, stride;                  /* digits */
  const TilusFactor *swizzle;           /* swizzle pieces; NULL for digits */
  int64_t scale[TILUS_LAYOUT_RANK_CAP]; /* swizzle pieces */
} TilusPiece;

typedef struct {
  TilusPiece *thread, *local; /* owned */
  int64_t numThread, numLocal;
  bool hasSwizzle;
} TilusNormalForm;

/* The pieces of `layout`, size-1 digits dropped and digits that continue
 * each other merged. False when out of memory. */
bool tilusNormalFormBuild(const TilusLayout *layout, TilusNormalForm *nf);
void tilusNormalFormRelease(TilusNormalForm *nf);

/* Appends the digit (divisor, modulus, dim, stride) at pieces + *count,
 * which must start where the last piece ends, merged into it when it
 * continues it (same dim and stride * modulus, or both replicated). */
void tilusPiecesAppendDigit(TilusPiece *pieces, int64_t *count,
                            int64_t divisor, int64_t modulus, int64_t dim,
                            int64_t stride);

/* Whether c (dividing the input range) is a cut: the start of a piece, the
 * end of the range, or a split d*a of a digit (d, n) with a | n. Across a
 * cut the layout is additive: g(u) = g(u % c) + g(u - u % c). */
bool tilusPiecesCutAt(const TilusPiece *pieces, int64_t count, int64_t c);

/* The pieces over the input range [lo, hi) of two cuts lo | hi, digits
 * straddling a cut split there, into out (room for `count`); returns how
 * many. */
int64_t tilusPiecesRestrict(const TilusPiece *pieces, int64_t count,
                            int64_t lo, int64_t hi, TilusPiece *out);

/* Whether two lists are the same digits (no swizzle pieces). */
bool tilusPiecesSameDigits(const TilusPiece *a, int64_t na,
                           const TilusPiece *b, int64_t nb);

/* Whether the pieces (all local) make a function that is, coordinate by
 * coordinate, odd[d] times a GF(2)-linear map of the bits of its input:
 * power-of-two digits and swizzles of power-of-two shapes, whose outputs
 * along each coordinate have strides odd[d] * 2^e and occupy disjoint bits
 * (so their sum is their XOR). odd[d] is 0 where no piece writes d. Such a
 * function is known from its values at the powers of two. */
bool tilusPiecesAreBinary(const TilusPiece *pieces, int64_t count,
                          int64_t rank, int64_t *odd);

/*--- Queries with a bounded walk (LayoutQueries.c) ----------------------------*/

/* The queries decide from the normal form where they can. Where a swizzle
 * leaves that undecided they evaluate the layout over the slots concerned,
 * at most `walkLimit` evaluations in all; past that the answer is UNKNOWN
 * and the public query gives its documented safe answer. The tests call
 * these with walkLimit 0 to check the closed forms alone. */
#define TILUS_LAYOUT_WALK_LIMIT ((int64_t)1 << 16)

typedef enum {
  TILUS_ANSWER_NO,
  TILUS_ANSWER_YES,
  TILUS_ANSWER_UNKNOWN
} TilusAnswer;

TilusAnswer tilusLayoutEqualWithin(const TilusLayout *a, const TilusLayout *b,
                                   int64_t walkLimit);

/* tilusLayoutRunsAreContiguous (aligned) or one step of the contiguity
 * (not aligned: groups of v need not start at a multiple of v). */
TilusAnswer tilusLayoutGroupsWithin(const TilusLayout *layout, int64_t v,
                                    bool aligned, int64_t walkLimit);

/* tilusLayoutGetContiguity; *exact is false when an UNKNOWN step cut the
 * search short (the result is then a lower bound). */
int64_t tilusLayoutContiguityWithin(const TilusLayout *layout,
                                    int64_t walkLimit, bool *exact);

#endif /* TILUS_LIB_LAYOUT_LAYOUTINTERNAL_H */
