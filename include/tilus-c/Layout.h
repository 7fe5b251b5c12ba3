/*===-- tilus-c/Layout.h - The Tilus layout algebra ------------------*- C -*-===*\
|*                                                                            *|
|* A layout is a function f(t, i) -> logical index, for a thread t < T and a  *|
|* local slot i < m (paper, section 4 and appendix A). Layouts are immutable  *|
|* values built from primitives (local, spatial and their column-major twins) *|
|* by composition, reduction over dimensions and swizzling. This header is    *|
|* pure C with no MLIR dependency: the runtime and host tools use it too.     *|
|*                                                                            *|
|* Ownership: every function returning a TilusLayout* returns a new object    *|
|* that the caller destroys with tilusLayoutDestroy. Inputs are never        *|
|* consumed. Functions that can fail return NULL (or false) and, when `err`   *|
|* is non-NULL, write a one-line reason into it.                              *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_LAYOUT_H
#define TILUS_C_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest rank a layout may have. */
#define TILUS_LAYOUT_MAX_RANK 8

/* A caller-provided buffer for error messages. */
typedef struct {
  char message[256];
} TilusLayoutError;

typedef struct TilusLayout TilusLayout;

/*--- Construction ------------------------------------------------------------*/

/* local(n1..nr): T = 1, row-major over i. Shape entries must be >= 1. */
TilusLayout *tilusLayoutCreateLocal(int64_t rank, const int64_t *shape,
                                    TilusLayoutError *err);
/* spatial(n1..nr): m = 1, row-major over t. */
TilusLayout *tilusLayoutCreateSpatial(int64_t rank, const int64_t *shape,
                                      TilusLayoutError *err);
/* column_local(n1..nr): T = 1, column-major over i (first dim fastest). */
TilusLayout *tilusLayoutCreateColumnLocal(int64_t rank, const int64_t *shape,
                                          TilusLayoutError *err);
/* column_spatial(n1..nr): m = 1, column-major over t. */
TilusLayout *tilusLayoutCreateColumnSpatial(int64_t rank, const int64_t *shape,
                                            TilusLayoutError *err);

/* Copy of a layout. */
TilusLayout *tilusLayoutClone(const TilusLayout *layout);

void tilusLayoutDestroy(TilusLayout *layout);

/*--- Algebra -----------------------------------------------------------------*/

/* h = f.g: h(t,i) = f(t/Tg, i/mg) * Sg + g(t%Tg, i%mg). The lower-rank
 * operand is broadcast first (leading dimensions of size 1 prepended). */
TilusLayout *tilusLayoutCompose(const TilusLayout *f, const TilusLayout *g);

/* h = f / g, the layout with h.g == f, or NULL when none exists (or this
 * implementation cannot find it; the check is always functional). */
TilusLayout *tilusLayoutDivide(const TilusLayout *f, const TilusLayout *g,
                               TilusLayoutError *err);

/* broadcast(f, rank): prepend rank - rank(f) output dimensions of size 1. */
TilusLayout *tilusLayoutBroadcast(const TilusLayout *f, int64_t rank,
                                  TilusLayoutError *err);

/* reduce(f, dims): drop the output dimensions `dims`. Threads that differed
 * only along them now hold the same elements (replication); local slots that
 * differed only along them are merged. Only defined where `f` is built from
 * primitives (no swizzle). */
TilusLayout *tilusLayoutReduce(const TilusLayout *f, int64_t numDims,
                               const int64_t *dims, TilusLayoutError *err);

/* swizzle(f, dim, logStep): g(t,i) = f(t,i) with output coordinate `dim`
 * replaced by  x[dim] XOR ((r / 2^logStep) mod n_dim), where r is the
 * row-major linearization of the other coordinates. f must have T = 1, rank
 * >= 2, and n_dim a power of two. */
TilusLayout *tilusLayoutSwizzle(const TilusLayout *f, int64_t dim,
                                int64_t logStep, TilusLayoutError *err);

/*--- Queries -----------------------------------------------------------------*/

int64_t tilusLayoutGetRank(const TilusLayout *layout);
/* Shape entry `dim` (0 <= dim < rank). */
int64_t tilusLayoutGetDim(const TilusLayout *layout, int64_t dim);
/* Number of threads T. */
int64_t tilusLayoutGetNumThreads(const TilusLayout *layout);
/* Number of local elements per thread m. */
int64_t tilusLayoutGetLocalSize(const TilusLayout *layout);
/* Product of the shape. */
int64_t tilusLayoutGetNumElements(const TilusLayout *layout);

/* f(t, i) into `index` (rank entries). t < T, i < m. */
void tilusLayoutEvaluate(const TilusLayout *layout, int64_t thread,
                         int64_t local, int64_t *index);

/* Inverse: the lowest thread (and in it the lowest local slot) holding the
 * logical `index`. Returns false when no thread holds it. */
bool tilusLayoutLocate(const TilusLayout *layout, const int64_t *index,
                       int64_t *thread, int64_t *local);

/* Functional equality: same rank, shape, T, m and f(t,i) for every t, i. */
bool tilusLayoutEqual(const TilusLayout *a, const TilusLayout *b);

/* Every logical index is held by at least one (thread, slot), and no thread
 * holds the same index twice. */
bool tilusLayoutIsValid(const TilusLayout *layout);

/* Largest v (a power of two dividing m) such that for every thread and every
 * aligned group of v consecutive local slots, the slots map to v consecutive
 * indices along the last dimension (same other coordinates). 1 at worst. */
int64_t tilusLayoutGetContiguity(const TilusLayout *layout);

/* Whether f / g exists. */
bool tilusLayoutIsDivisibleBy(const TilusLayout *f, const TilusLayout *g);

/* One mixed-radix digit of the thread index: it adds
 * ((t / divisor) % modulus) * stride to output coordinate `dim`. */
typedef struct {
  int64_t divisor;
  int64_t modulus;
  int64_t dim;
  int64_t stride;
} TilusLayoutThreadMode;

/* For a layout without swizzle, f(t, i) = f(t, 0) + f(0, i), and f(t, 0) is
 * the sum of the thread modes written to `modes` (code generation uses this
 * to compute a thread's coordinates with a few divisions). Returns the number
 * of modes, or -1 if the layout has a swizzle or more than `capacity` modes.
 * Modes of replicated (reduced) dimensions are left out. */
intptr_t tilusLayoutGetThreadModes(const TilusLayout *layout,
                                   TilusLayoutThreadMode *modes,
                                   intptr_t capacity);

/*--- Structure (for code generators) -----------------------------------------*/

/* A layout is a chain of factors F1.F2...Fk, evaluated as
 *   h(t, i) = (F1...F(k-1))(t / Tk, i / mk) * Sk + Fk(t % Tk, i % mk)
 * (Sk the factor's shape). Code that inverts a layout (shared-memory
 * addressing: the address of a logical index is the slot i with
 * f(0, i) = index) walks the chain. */
typedef enum {
  TilusLayoutFactorLocal,   /* local / column_local: m = product of shape */
  TilusLayoutFactorSpatial, /* spatial / column_spatial: T = product */
  TilusLayoutFactorSwizzle  /* swizzle(inner, dim, log_step), T = 1 */
} TilusLayoutFactorKind;

typedef struct {
  TilusLayoutFactorKind kind;
  bool column;     /* column-major (first dimension fastest) */
  bool replicated; /* a spatial factor with reduced (replicated) threads */
  int64_t shape[TILUS_LAYOUT_MAX_RANK]; /* extent per output dimension */
  int64_t numThreads, localSize;
  /* Swizzle: output coordinate `dim` of `inner` (a layout with T = 1, owned
   * by the layout queried) is XORed with ((r >> logStep) mod shape[dim]),
   * r the row-major linearization of the other coordinates over shape. */
  const TilusLayout *inner;
  int64_t dim, logStep;
} TilusLayoutFactor;

intptr_t tilusLayoutGetNumFactors(const TilusLayout *layout);
/* Factor k (0 = outermost). */
void tilusLayoutGetFactor(const TilusLayout *layout, intptr_t k,
                          TilusLayoutFactor *factor);

/*--- Text form ---------------------------------------------------------------*/

/* Canonical text, e.g. "local(2,1).spatial(8,4).local(1,2)". Returns a
 * malloc'ed NUL-terminated string the caller frees with free(). Equal text
 * implies an equal layout; parsing the text gives back an equal layout. */
char *tilusLayoutPrint(const TilusLayout *layout);

/* Parses the text form, including spaces and the paper's spellings:
 *   local(..) spatial(..) column_local(..) column_spatial(..)
 *   reduce(L, dims=[..])  swizzle(L, dim=d[, log_step=s])  L1.L2
 * `length` bytes of `text` are read. */
TilusLayout *tilusLayoutParse(const char *text, size_t length,
                              TilusLayoutError *err);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_LAYOUT_H */
