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

/* Writes a formatted one-line message into `err` when it is non-NULL (for
 * the layers that report through TilusLayoutError too). */
void tilusLayoutSetError(TilusLayoutError *err, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

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

/* transpose(f): f with its last two output dimensions exchanged (shape
 * (.., a, b) becomes (.., b, a); the same thread and slot hold each
 * element). NULL, with the reason in `err`, for rank < 2, a layout with
 * replicated threads, or one with a swizzle along a leading dimension. */
TilusLayout *tilusLayoutTranspose(const TilusLayout *layout,
                                  TilusLayoutError *err);

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

/* The queries below are computed from the layout's normal form (see
 * docs/layouts.md, "Queries in closed form"): their cost grows with the
 * number of factors, not with T*m. Only a swizzle whose shape is not all
 * powers of two, where it must be compared with a different structure, is
 * decided by evaluating the layout over the slots it covers, and only up to
 * 2^16 evaluations; past that each query gives the safe answer it names. */

/* Inverse: the lowest thread (and in it the lowest local slot) holding the
 * logical `index`. Returns false when no thread holds it, which is exactly
 * when `index` lies outside the shape. Always closed form. */
bool tilusLayoutLocate(const TilusLayout *layout, const int64_t *index,
                       int64_t *thread, int64_t *local);

/* Functional equality: same rank, shape, T, m and f(t,i) for every t, i.
 * Safe answer past the walk limit: false (only for layouts with different
 * swizzle structures of more than 2^16 slots whose shapes are not powers of
 * two). */
bool tilusLayoutEqual(const TilusLayout *a, const TilusLayout *b);

/* Every logical index is held by at least one (thread, slot), and no thread
 * holds the same index twice. True for every layout this library builds
 * (primitives, compositions, reductions and swizzles all keep it); false
 * only for NULL. */
bool tilusLayoutIsValid(const TilusLayout *layout);

/* Largest v (a power of two dividing m) such that for every thread and every
 * aligned group of v consecutive local slots, the slots map to v consecutive
 * indices along the last dimension (same other coordinates). 1 at worst.
 * Safe answer past the walk limit: the largest v proved so far. */
int64_t tilusLayoutGetContiguity(const TilusLayout *layout);

/* Whether every aligned run of v local slots (of thread 0; the addresses of
 * a shared layout) holds v consecutive indices along the last dimension,
 * the first of them a multiple of v: then v elements of a row, v-aligned,
 * are one v-wide access. False when v < 1 or v does not divide m; true for
 * v = 1. Swizzles are allowed: runs inside a chunk the XOR moves as a whole
 * stay runs. Safe answer past the walk limit: false. */
bool tilusLayoutRunsAreContiguous(const TilusLayout *layout, int64_t v);

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

/* A warp-level fragment pattern (an ldmatrix or mma.sync operand): lane l
 * of a warp holds its element j at offset(l, j) = sum of the lane modes of l
 * + sum of the slot modes of j, each mode adding
 * ((x / divisor) % modulus) * stride along `dim` (stride 0: the mode moves
 * nothing). The lane modes must be mixed-radix digits of [0, numLanes) and
 * the slot modes of [0, groupSize) that do not overlap (divisors of one
 * kind at multiples of the previous divisor * modulus); gaps are digits
 * that move nothing. Example, the mma.sync f16 accumulator tile
 * (row l/4 + 8*(j/2), column 2*(l%4) + j%2): numLanes 32, groupSize 4,
 * lane modes {1,4,1,2} {4,8,0,1}, slot modes {1,2,1,1} {2,2,0,8}. */
typedef struct {
  int64_t numLanes, groupSize;
  intptr_t numLaneModes, numSlotModes;
  const TilusLayoutThreadMode *laneModes, *slotModes;
} TilusLayoutFragment;

/* Whether the layout's local slots split into groups of groupSize, the same
 * groups in every warp (threads w*numLanes .. (w+1)*numLanes-1), such that
 * lane l of warp w holds element j of group g at base(w, g) + offset(l, j).
 * Requires T % numLanes == 0 and m % groupSize == 0. On success writes, when
 * non-NULL, slots[g * groupSize + j] (m entries: groups ordered by their
 * first slot, which is element 0) and bases[(w * G + g) * rank + d] (G =
 * m / groupSize; T / numLanes * G * rank entries). This is the greedy
 * search of lib/Conversion's tilusFindFragments (which walks every thread
 * and slot), decided from the normal form: the thread digits below numLanes
 * must be the lane modes, and each slot mode must be (parts of) local
 * digits along its dimension, starting at its stride. Slots that need a
 * swizzled piece never match. */
bool tilusLayoutMatchFragment(const TilusLayout *layout,
                              const TilusLayoutFragment *fragment,
                              int64_t *slots, int64_t *bases);

/* Broadcasting without data movement (elementwise ops, numpy rules on one
 * rank): `operand` has the shape of `result` except that some dimensions are
 * 1, and slot i of thread t of `result` needs the operand's element at
 * f_result(t, i) with those coordinates set to 0. Returns true, with
 * slots[i] (m_result entries) the operand slot every thread reads for its
 * slot i, when each thread of `operand` already holds every element it
 * needs. Decided in closed form: the thread parts (sums of thread modes) of
 * both layouts, with the broadcast dimensions dropped, are compared digit by
 * digit over a common mixed-radix refinement of [0, T), and each result
 * slot is located in thread 0 of `operand` (m_result lookups). False, with
 * the reason in `err`, when the ranks, the shapes or the thread counts do
 * not fit, a layout has a swizzle, or some thread lacks an element it needs
 * (the reason names one such thread and element). */
bool tilusLayoutBroadcastSlots(const TilusLayout *result,
                               const TilusLayout *operand, int64_t *slots,
                               TilusLayoutError *err);

/* The layout a broadcast operand of `result` with dimensions `dims` of size
 * 1 (numDims of them) needs to be read without data movement: `result` with
 * those dimensions reduced to extent 1, the threads along them replicated.
 * NULL (reason in `err`) for a swizzled layout. */
TilusLayout *tilusLayoutBroadcastSource(const TilusLayout *result,
                                        int64_t numDims, const int64_t *dims,
                                        TilusLayoutError *err);

/*--- Tensor-core operands in shared memory (wgmma) ---------------------------*/

/* The swizzle modes of a wgmma matrix descriptor (PTX ISA, "Matrix
 * Descriptor Format"), with the descriptor's encoding as the value: the
 * 16-byte chunk index of an address, bits [4, 4 + log2(W/16)), is XORed with
 * the bits above the W-byte row, [7, 7 + log2(W/16)). */
typedef enum {
  TilusMmaSwizzleNone = 0,
  TilusMmaSwizzle128B = 1,
  TilusMmaSwizzle64B = 2,
  TilusMmaSwizzle32B = 3
} TilusMmaSwizzle;

/* A shared operand as a wgmma matrix descriptor sees it: the swizzle, and
 * the descriptor's byte offsets between core matrices (8 rows of 16 bytes)
 * adjacent along K (leading) and along M or N (stride). */
typedef struct {
  TilusMmaSwizzle swizzle;
  int64_t leadingBytes, strideBytes;
} TilusMmaSharedOperand;

/* The layout Tilus uses for a K-major wgmma operand tile of `rows` (M or N)
 * by `k` elements of `elementBits` (8 or 16) bits in shared memory with
 * `swizzle`; the tile's shape is [rows, k] when kDim is 1 and [k, rows] when
 * kDim is 0. With a swizzle of W bytes, K splits into blocks of W bytes
 * stored one after another, each `rows` rows of W bytes:
 *   kDim 1: local(1,KB).swizzle(local(rows,C),dim=1,log_step=s).local(1,E)
 *   kDim 0: local(KB,1).swizzle(column_local(C,rows),dim=0,log_step=s).local(E,1)
 * (E = 128 / elementBits elements per 16-byte chunk, C = W / 16 chunks per
 * row, s = log2(128 / W)); without a swizzle the core matrices are stored
 * row block by row block, K fastest:
 *   kDim 1: local(rows/8,k/E).local(8,E)
 *   kDim 0: column_local(k/E,rows/8).column_local(E,8)
 * NULL, with the reason in `err`, unless rows is a multiple of 8 and k of
 * the swizzle's row (W bytes; 16 bytes without one). */
TilusLayout *tilusLayoutCreateMmaShared(int64_t rows, int64_t k, int64_t kDim,
                                        int64_t elementBits,
                                        TilusMmaSwizzle swizzle,
                                        TilusLayoutError *err);

/* Whether `layout` (T = 1, rank >= 2) is, over its last two dimensions, one
 * of the layouts of tilusLayoutCreateMmaShared (the widest swizzle that fits
 * is tried first), with any leading dimensions outermost in row-major
 * order; fills *out when it is. Decided by functional equality
 * (tilusLayoutEqual), at most four candidates. */
bool tilusLayoutMatchMmaShared(const TilusLayout *layout, int64_t kDim,
                               int64_t elementBits, TilusMmaSharedOperand *out);

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
