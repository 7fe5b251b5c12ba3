/*===-- tilus-c/QuantizedMatmul.h - The quantized matmul for C callers -*- C -*-===*\
|*                                                                            *|
|* The quantized matmul (docs/quantized-matmul.md) for serving stacks in C,   *|
|* over the runtime alone (no MLIR, no Python at run time). A kernel table    *|
|* is made ahead of time by `python3 -m tilus.ops.export DIR ...`: the        *|
|* configuration quantized_matmul would take (the shipped tuning table, else  *|
|* its heuristic) for each weight type, activation, N, K and range of M,      *|
|* compiled into artifacts, listed in DIR/qmatmul-table.txt                   *|
|* (docs/quantized-matmul.md, "From C", has its format). At run time:         *|
|*                                                                            *|
|*   TilusQmatmulTable *t = tilusQmatmulTableLoad(dir, &err);   // no GPU     *|
|*   tilusQmatmulTablePrepare(t, rt, &err);     // loads its kernels on rt     *|
|*   tilusQmatmulFind(t, &shape, &plan, &err);  // scratch sizes, if any     *|
|*   tilusQmatmulLaunch(t, rt, &shape, &buffers, stream, &err);               *|
|*                                                                            *|
|* Ownership and errors follow Runtime.h: Load returns a table the caller    *|
|* destroys; functions that can fail return a TilusStatus and fill `err`.    *|
|* Threads: Load, Prepare and Destroy must not overlap other calls on the    *|
|* table; Find and Launch may run concurrently from any threads once the     *|
|* table is prepared. Launch is capture-safe (CUDA graphs) after Prepare.    *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_QUANTIZEDMATMUL_H
#define TILUS_C_QUANTIZEDMATMUL_H

#include "tilus-c/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TilusQmatmulTable TilusQmatmulTable;

/* Reads DIR/qmatmul-table.txt and parses every artifact it names (no GPU).
 * NULL with TilusStatusIOError (a file missing or unreadable) or
 * TilusStatusParseError ("qmatmul-table.txt line 4: ...") in `err`. */
TilusQmatmulTable *tilusQmatmulTableLoad(const char *dir, TilusRuntimeError *err);
void tilusQmatmulTableDestroy(TilusQmatmulTable *table);

/* Entries (lines) of the table; 0 for NULL. */
int tilusQmatmulTableGetNumEntries(const TilusQmatmulTable *table);

/* One product y[M, N] = x[M, K] x W[K, N] as the table keys it. */
typedef struct {
  const char *wtype;      /* the weight type's name: "uint4", "float6_e3m2" */
  int offset;             /* of the weights' values, code - offset */
  int groupSize;          /* rows of K per scale (K: per channel) */
  const char *activation; /* "float16", "bfloat16", "int8" or "float8_e4m3"
                             (E4M3FN, sm_90 entries) */
  bool zeros, bias;       /* with zero points, with a bias */
  int64_t m, n, k;
  bool zeroCodes;         /* with zeros: the zero points are uint8 codes
                             (GPTQ/AWQ style), not values of the scales' type.
                             int8 and FP8 activations take only codes: int8
                             of unsigned weights of at most 7 bits, codes
                             <= 128; FP8 of unsigned weights, codes <= 16.
                             Codes beyond those limits give wrong products;
                             the caller checks them (tilus.ops does, per
                             tensor version). */
} TilusQmatmulShape;

/* What a launch of a shape needs besides its operands. */
typedef struct {
  int entry;              /* the table entry (line order, from 0) */
  int splitK;             /* K splits (1 for a stream-K kernel); the two
                             scratch buffers are needed where partialsBytes
                             is not 0: split-K (splitK > 1) or stream-K */
  int64_t blockRows, blockCols;
  uint64_t partialsBytes; /* f32 [slots, M, N]: slots = splitK, or for a
                             stream-K kernel the most blocks sharing a tile
                             (0 without split-K or stream-K) */
  uint64_t countersBytes; /* i32, all zero before a buffer's first launch;
                             each launch leaves them zero (0 without split-K
                             or stream-K) */
  int streamKBlocks;      /* a stream-K kernel's blocks (the table's -split_k,
                             at most the units of work), which also needs the
                             two scratch buffers; 0 otherwise */
} TilusQmatmulPlan;

/* The entry for `shape` and what it needs. TilusStatusUnsupported when the
 * table has none (the message names the shape and the table's N x K for
 * that type); TilusStatusInvalidArgument for a NULL or malformed shape. */
TilusStatus tilusQmatmulFind(const TilusQmatmulTable *table,
                             const TilusQmatmulShape *shape,
                             TilusQmatmulPlan *plan, TilusRuntimeError *err);

/* Loads every kernel of the table on `rt` (tilusRuntimeGetKernel), before
 * the first launch on it and before any capture. A table serves one runtime
 * at a time: preparing it for another replaces the first. The table keeps
 * the runtime's kernels: once that runtime is destroyed, prepare the table
 * again before launching (on a new runtime). */
TilusStatus tilusQmatmulTablePrepare(TilusQmatmulTable *table, TilusRuntime *rt,
                                     TilusRuntimeError *err);

/* Device buffers of one product (addresses in the runtime's context). */
typedef struct {
  TilusDevicePtr x;        /* [M, K] of the activation type, row-major */
  TilusDevicePtr xScales;  /* int8 and FP8 x only: f32 [M], one scale per row */
  TilusDevicePtr qweight;  /* the packed weights (tilus.ops.pack; for int8 or
                              FP8 x their own formats), K * N * bits / 8 bytes */
  TilusDevicePtr scales;   /* [K / groupSize, N]: f16 for f16, int8 and FP8
                              x, bf16 for bf16 x */
  TilusDevicePtr zeros;    /* with zeros: [K / groupSize, N] like scales, or
                              uint8 [K / groupSize, N] with zeroCodes */
  TilusDevicePtr bias;     /* with a bias: [N] like scales */
  TilusDevicePtr out;      /* [M, N] like scales */
  TilusDevicePtr partials; /* split-K and stream-K only: plan.partialsBytes */
  TilusDevicePtr counters; /* split-K and stream-K only: plan.countersBytes,
                              zeroed once */
} TilusQmatmulBuffers;

/* Finds the entry for `shape` and launches its kernel on `stream` (NULL: the
 * default stream); M = 0 launches nothing and needs no buffers. The table must be prepared on `rt`
 * (TilusStatusInvalidArgument otherwise). A buffer the shape needs that is
 * 0, or one it does not take that is not 0, is TilusStatusInvalidArgument
 * with its name, and nothing is launched. Split-K and stream-K launches on
 * one (partials, counters) pair must not overlap: one pair per stream. */
TilusStatus tilusQmatmulLaunch(TilusQmatmulTable *table, TilusRuntime *rt,
                               const TilusQmatmulShape *shape,
                               const TilusQmatmulBuffers *buffers, void *stream,
                               TilusRuntimeError *err);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_QUANTIZEDMATMUL_H */
