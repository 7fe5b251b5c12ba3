//===- Scratch.c - Shared scratch planned by tilus-plan-shared ------------===//
//
// Ops that exchange data between threads through shared memory (Reduce
// across warps, layout changes) get their scratch bytes from
// tilus-plan-shared, like shared tensors: tilus.scratch_offset on the op,
// inside the kernel's tilus.shared_bytes of dynamic shared memory. The
// attributes may be written by hand, so they are checked before use.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include "Utils/Checked.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"

#include <stdio.h>

bool tilusScratchOffset(MlirOperation op, int64_t bytes, int64_t *offset,
                        char *why, size_t size) {
  int64_t kernelBytes = -1, end = 0;
  MlirOperation func = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(func) &&
         !tilusOpGetIntAttr(func, TILUS_SHARED_BYTES_ATTR, &kernelBytes))
    func = mlirOperationGetParentOperation(func);
  if (!tilusOpGetIntAttr(op, TILUS_SCRATCH_OFFSET_ATTR, offset) ||
      kernelBytes < 0) {
    snprintf(why, size,
             "needs %lld bytes of shared scratch but has "
             "no " TILUS_SCRATCH_OFFSET_ATTR "; run --tilus-plan-shared first "
             "(--lower-to-nvvm does)",
             (long long)bytes);
    return false;
  }
  if (*offset < 0 || *offset % TILUS_SHARED_ALIGNMENT != 0 ||
      !tilusCheckedAdd(*offset, bytes, &end) || end > kernelBytes) {
    snprintf(
        why, size,
        "the scratch offset (" TILUS_SCRATCH_OFFSET_ATTR
        " = %lld) must be a multiple of %d with its %lld bytes inside "
        "the kernel's %lld bytes of shared memory (" TILUS_SHARED_BYTES_ATTR
        ")",
        (long long)*offset, TILUS_SHARED_ALIGNMENT, (long long)bytes,
        (long long)kernelBytes);
    return false;
  }
  return true;
}

MlirValue tilusEmitScratch(TilusEmitter *e, MlirOperation op, int64_t offset) {
  MlirValue base =
      tilusEmitSharedArray(e, op, TILUS_DYNAMIC_SHARED_NAME, 0, true);
  if (mlirValueIsNull(base))
    return base;
  return tilusEmitElementPointer(e, base, mlirIntegerTypeGet(e->ctx, 8),
                                 tilusEmitIndex(e, offset));
}

void tilusEmitBarrier(TilusEmitter *e) {
  if (!e->groupCount) {
    tilusEmitOp(e, "gpu.barrier", 0, NULL, 0, NULL, 0, NULL);
    return;
  }
  // Barrier 0 is the block's; a group of whole warpgroups takes one of
  // 1..8 by its first warpgroup (the verifier checks the alignment). The
  // barrier is nvvm.barrier, not inline asm: bar.sync is aligned (every
  // thread of a warp at the same instruction), and only the intrinsic is
  // convergent, which keeps LLVM from duplicating it into the two sides of
  // a branch on the thread index (measured: a hang on the H100).
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirValue operands[2] = {
      tilusEmitIntConstant(e, i32, 1 + e->groupFirst / 128),
      tilusEmitIntConstant(e, i32, e->groupCount)};
  int32_t segments[3] = {1, 1, 0};
  MlirNamedAttribute attr = tilusNamedAttr(
      e->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(e->ctx, 3, segments));
  tilusEmitOp(e, "nvvm.barrier", 2, operands, 0, NULL, 1, &attr);
}

MlirValue tilusEmitRowMajorAddress(TilusEmitter *e, const TilusLayout *layout,
                                   const int64_t *coef, MlirValue tid) {
  MlirValue coords[TILUS_LAYOUT_MAX_RANK];
  if (!tilusEmitThreadCoords(e, layout, tid, coords))
    return (MlirValue){NULL};
  MlirValue address = tilusEmitIndex(e, 0);
  for (intptr_t d = 0; d < tilusLayoutGetRank(layout); ++d)
    address = tilusEmitAddIndex(e, address,
                                tilusEmitMulIndexConst(e, coords[d], coef[d]));
  return address;
}
