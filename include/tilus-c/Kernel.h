/*===-- tilus-c/Kernel.h - Tilus kernels ----------------------------*- C -*-===*\
|*                                                                            *|
|* A Tilus kernel is a `func.func` carrying three attributes:                 *|
|*   tilus.kernel                       (unit) marks it as a kernel           *|
|*   tilus.block_size = 128 : i64       threads per block, 1 to 1024          *|
|*   tilus.grid = affine_map<()[s0, .., sn] -> (e0[, e1[, e2]])>               *|
|* The grid is 1 to 3 expressions over symbols; symbol s_k stands for the     *|
|* kernel's k-th argument, which must then be an integer scalar. Optional:   *|
|*   tilus.fp_contract                  (unit) a float multiplication whose   *|
|*                                      result feeds an addition or           *|
|*                                      subtraction may fuse with it (one     *|
|*                                      rounding, like nvcc's default)        *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_KERNEL_H
#define TILUS_C_KERNEL_H

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TILUS_KERNEL_ATTR "tilus.kernel"
#define TILUS_BLOCK_SIZE_ATTR "tilus.block_size"
#define TILUS_GRID_ATTR "tilus.grid"
#define TILUS_FP_CONTRACT_ATTR "tilus.fp_contract"
/* Thread-block clusters (sm_90+): array<i64: x[, y[, z]]>, blocks per
 * cluster in each grid dimension, at most 8 in all; the grid must be a
 * multiple of it. */
#define TILUS_CLUSTER_ATTR "tilus.cluster"

/* Whether `op` is a func.func marked tilus.kernel. */
bool tilusOperationIsAKernel(MlirOperation op);

/* The kernel's block size, or 0 if missing or not an integer. */
int64_t tilusKernelGetBlockSize(MlirOperation kernel);

/* The kernel's grid map, or a null map if missing or not an affine map. */
MlirAffineMap tilusKernelGetGrid(MlirOperation kernel);

/* Whether `kernel` (a Tilus kernel, or the gpu.func lowered from one) runs
 * in clusters (TILUS_CLUSTER_ATTR, well formed); fills dims[0..2] with its
 * shape (1 in missing dimensions) when `dims` is not NULL. */
bool tilusKernelGetCluster(MlirOperation kernel, int64_t dims[3]);

/* The blocks per cluster of the kernel (or gpu.func) enclosing `op`, or 0
 * when it does not run in clusters. */
int64_t tilusOpGetClusterSize(MlirOperation op);

/* Whether `kernel` (a Tilus kernel, or the gpu.func lowered from one)
 * allows float contraction (TILUS_FP_CONTRACT_ATTR). */
bool tilusKernelAllowsContraction(MlirOperation kernel);

/* Whether the kernel enclosing `op` (the nearest func.func, or the
 * gpu.func lowered from one) allows float contraction. */
bool tilusAllowsContraction(MlirOperation op);

/* The kernel enclosing `op` (or `op` itself), or a null operation. */
MlirOperation tilusGetEnclosingKernel(MlirOperation op);

/* Thread groups (warp specialization): an scf.if on the result of
 * tilus.in_thread_group {first, count} runs its body on threads first ..
 * first + count - 1 only, as a block of `count` threads of its own: thread
 * `first` is its thread 0, its register layouts span `count` threads, its
 * barriers synchronize the group alone. tilus-to-gpu marks the scf.if with
 * TILUS_THREAD_GROUP_ATTR (array<i64: first, count>) when it lowers the
 * condition. */
#define TILUS_THREAD_GROUP_ATTR "tilus.thread_group"

/* Whether `op` is inside a thread group; fills *first and *count (either
 * may be NULL). */
bool tilusOpGetThreadGroup(MlirOperation op, int64_t *first, int64_t *count);

/* The threads `op` runs on as one block: its thread group's count, else
 * its kernel's block size; 0 outside a kernel. */
int64_t tilusOpGetThreadCount(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_KERNEL_H */
