/*===-- tilus-c/DataMovement.h - Plans of Reduce, layout changes --*- C -*-===*\
|*                                                                            *|
|* tilus.reduce, tilus.convert_layout, tilus.permute and tilus.reshape move   *|
|* data between the threads of a block. How they do it is decided from the    *|
|* layouts alone, in closed form (thread modes, one evaluation per local      *|
|* slot, the 32 lanes of one warp; never a walk over every (thread, slot)     *|
|* pair), so that tilus-plan-shared and the lowering take the same decision:  *|
|* which part stays in a thread's registers, which lane bits a warp shuffle   *|
|* crosses (Reduce's butterflies, a layout change's shfl.sync idx from a      *|
|* computed source lane), and how many bytes of shared scratch the op needs.  *|
|* Users: tilus-plan-shared (scratch bytes), the verifier, the lowering.      *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_DATAMOVEMENT_H
#define TILUS_C_DATAMOVEMENT_H

#include "mlir-c/IR.h"
#include "tilus-c/Layout.h"
#include "tilus-c/Types.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per warp: lane bits are the thread-index bits below it. */
#define TILUS_WARP_SIZE 32
/* At most log2(TILUS_WARP_SIZE) butterfly masks, one per lane bit. */
#define TILUS_MAX_LANE_MASKS 5

/* On a tilus.reduce, convert_layout, permute or reshape that needs shared
 * scratch (set by tilus-plan-shared): its byte offset in the block's dynamic
 * shared memory, a multiple of TILUS_SHARED_ALIGNMENT. */
#define TILUS_SCRATCH_OFFSET_ATTR "tilus.scratch_offset"

/* How a Reduce over `dims` of a register layout `src` into `dst`
 * (= reduce(src, dims)) is computed, in three stages:
 *   (a) in each thread: input slot i is combined into result slot
 *       slotOf[i];
 *   (b) within a warp: shfl.sync.bfly over each lane mask (the lane bits
 *       that index the reduced dims, power-of-two digits below the warp);
 *   (c) across warps (and lane digits that are not powers of two): each
 *       thread writes its partial results to row r(t) of a scratch of
 *       numPartials rows of numel(dst) accumulators, r(t) the mixed-radix
 *       number of the sharedModes digits of t, and reads back all rows.
 * numPartials is 1 when no stage (c) is needed. */
typedef struct {
  int64_t numSlots, numResultSlots;
  int64_t *slotOf; /* numSlots entries */
  int numLaneMasks;
  int64_t laneMasks[TILUS_MAX_LANE_MASKS];
  intptr_t numSharedModes;
  TilusLayoutThreadMode *sharedModes;
  int64_t numPartials;
  int64_t resultElements; /* numel(dst): the length of one scratch row */
} TilusReducePlan;

/* Plans a Reduce; false with a reason in `err` when the layouts have a
 * swizzle, a dimension is out of range or `dst` does not hold
 * proj(src(0, i)) in thread 0. Release the plan with tilusReducePlanRelease
 * (also after a failure). */
bool tilusReducePlanCreate(const TilusLayout *src, const TilusLayout *dst,
                           int64_t numDims, const int64_t *dims,
                           TilusReducePlan *plan, TilusLayoutError *err);
void tilusReducePlanRelease(TilusReducePlan *plan);

/* How ConvertLayout, Permute and Reshape move a tensor. Each is an
 * index map that is linear in the coordinates: the element at result index
 * q is the source element at row-major address sum_k q[k] * coef[k] (coef
 * the source's row-major strides in the result's dimension order). When the
 * thread digits of both layouts address the same elements and thread 0
 * holds every source element it needs, the op is a permutation of each
 * thread's slots (inRegisters, result slot j = source slot slotOf[j]);
 * otherwise, when only lanes within warps differ, by warp shuffles
 * (shfl.sync idx, elements of 8, 16 or 32 bits: tilusMoveUsesShuffle);
 * otherwise the tensor goes through shared scratch in row-major order. */
/* A lane digit's part of a row-major address: ((lane / divisor) % modulus)
 * * scale. */
typedef struct {
  int64_t divisor, modulus, scale;
} TilusLaneDigit;

typedef struct {
  bool inRegisters;
  int64_t numResultSlots;
  int64_t *slotOf; /* numResultSlots entries when inRegisters */
  /* Otherwise, when both layouts give every warp the same elements in the
   * same slots, only at other lanes: result slot i of lane l is source slot
   * i of lane sum over the source's lane digits of ((b / scale) % modulus)
   * * divisor, b = sum over the result's lane digits at l. laneDigits holds
   * the source's numSrcLaneDigits, then the result's numDstLaneDigits. */
  bool viaShuffle;
  intptr_t numSrcLaneDigits, numDstLaneDigits;
  TilusLaneDigit *laneDigits;
  int64_t coef[TILUS_LAYOUT_MAX_RANK];
  int64_t srcStrides[TILUS_LAYOUT_MAX_RANK];
} TilusMovePlan;

/* Plans the op `op` (a tilus.convert_layout, permute or reshape) from its
 * decoded operand and result types; false with a reason in `err` when the
 * layouts have a swizzle or the op's attributes are malformed. Release with
 * tilusMovePlanRelease. */
bool tilusMovePlanCreate(MlirOperation op, const TilusTensorType *src,
                         const TilusTensorType *dst, TilusMovePlan *plan,
                         TilusLayoutError *err);
/* The same from the layouts and the result dims' address steps `coef` in
 * the source's row-major order (rank of dst entries). */
bool tilusMovePlanCreateFromLayouts(const TilusLayout *src,
                                    const TilusLayout *dst, const int64_t *coef,
                                    TilusMovePlan *plan, TilusLayoutError *err);
void tilusMovePlanRelease(TilusMovePlan *plan);
/* Whether the plan moves elements of `bits` bits by warp shuffles. */
bool tilusMoveUsesShuffle(const TilusMovePlan *plan, int64_t bits);

/* The element type a Reduce accumulates in: f32 for f16, bf16 and f32 (so
 * f16/bf16 sums round once, at the end), f64 for f64, i32 for integers of
 * up to 32 bits (a wrapping sum modulo 2^n is the same), i64 for i64. Null
 * for other types. */
MlirType tilusReduceAccumulatorType(MlirType elementType);

/* The dims attribute of a Reduce or Permute in `dims` (at most
 * TILUS_LAYOUT_MAX_RANK entries); its length, or -1 when it is missing or
 * not an array<i64: ...> of that size. */
intptr_t tilusOpGetDims(MlirOperation op, int64_t *dims);

/* Bytes of shared scratch `op` needs (0 for ops that need none, or none in
 * this case: a Reduce within warps, a move in registers); -1 when the op's
 * types do not decode or cannot be planned (the verifier or the lowering
 * reports why). */
int64_t tilusOpGetScratchBytes(MlirOperation op);

/*--- Tensor-memory copies (tilus.tma_load, tilus.tma_store) ----------------*/

/* The most dimensions of a TMA tensor map. */
#define TILUS_TMA_MAX_RANK 5
/* The most elements of a TMA box per dimension. */
#define TILUS_TMA_MAX_BOX 256

/* How a tilus.tma_load or tilus.tma_store is carried out: one tensor map
 * over the global tensor (rank `rank`, the tile addressing its last
 * dimensions, box extents 1 before them), and `numBoxes` copies of one box
 * each (`boxBytes` each), placed `boxStride` bytes apart in shared memory
 * and `box[rank - 1]` elements apart along the global tensor's last
 * dimension. A swizzled shared tensor (one of tilusLayoutCreateMmaShared's
 * layouts with kDim 1, TMA's swizzle modes of the same name) splits its
 * rows into swizzle-wide boxes; a row-major one is one box. The tile may
 * be a range of the shared tensor's rows (its second-to-last dimension) at
 * a constant offset: a multiple of 8 rows in a swizzled layout (a whole
 * swizzle pattern), of 128 bytes in a row-major one. */
typedef struct {
  int64_t elementBytes;
  int64_t rank;
  /* The global tensor: its base is kernel argument `ptrArg`; extent d
   * (outermost first) is kernel argument dimArg[d], or the constant dim[d]
   * where dimArg[d] is -1. Row-major, contiguous. */
  int64_t ptrArg;
  int64_t dimArg[TILUS_TMA_MAX_RANK], dim[TILUS_TMA_MAX_RANK];
  int64_t box[TILUS_TMA_MAX_RANK]; /* outermost first */
  int64_t swizzleBytes;            /* 0, 32, 64 or 128 */
  int64_t numBoxes, boxBytes, boxStride;
  /* The alignment each box's shared address needs. */
  int64_t sharedAlignment;
} TilusTmaPlan;

/* The plan of `op`, a tilus.tma_load or tma_store whose shared and global
 * operands (TilusTmaShared, TilusTmaGlobal) have the types `shared` and
 * `global`, or false with the reason in `why` (`whySize` bytes). The
 * global tensor must be a tilus.view_global of a kernel argument whose
 * run-time sizes are kernel arguments (or their index casts); casts that a
 * lowering put between them and the arguments are looked through. Shared
 * by the verifier, tilus-to-gpu (the kernel's tensor-map parameters) and
 * the lowering. */
bool tilusTmaPlanGet(MlirOperation op, const TilusTensorType *shared,
                     const TilusTensorType *global, TilusTmaPlan *plan,
                     char *why, size_t whySize);

/* The text of `plan`'s tensor map on a manifest line after `tensormap `
 * (docs/artifact.md) into `out` (`size` bytes; 256 always suffice); the
 * length, as snprintf. */
/* The same without the global tensor's kernel arguments (ptrArg, dimArg
 * and dim are left 0): the boxes, for a lowering that runs after the view
 * is lowered and the kernel's maps were planned by tilusTmaPlanGet. */
bool tilusTmaPlanGetBoxes(MlirOperation op, const TilusTensorType *shared,
                          const TilusTensorType *global, TilusTmaPlan *plan,
                          char *why, size_t whySize);

int tilusTmaPlanPrintMap(const TilusTmaPlan *plan, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_DATAMOVEMENT_H */
