//===- Warp.c - The lanes a warp-wide instruction names -------------------===//
//
// shfl.sync names the lanes that take part; they must all exist and reach
// it. A block whose size is not a multiple of the warp size has a last warp
// with fewer lanes (and a block smaller than a warp, one such warp).
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"

MlirValue tilusEmitWarpMembers(TilusEmitter *e, int64_t numThreads) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  int64_t tail = numThreads % TILUS_WARP_SIZE;
  MlirValue full = tilusEmitIntConstant(e, i32, -1);
  if (tail == 0)
    return full;
  MlirValue partial = tilusEmitIntConstant(e, i32, (int64_t)((1u << tail) - 1));
  if (numThreads < TILUS_WARP_SIZE)
    return partial;
  MlirValue warp =
      tilusEmitDivIndexConst(e, tilusEmitThreadIndex(e), TILUS_WARP_SIZE);
  MlirValue last = tilusEmitCmp(
      e, TilusCmpEQ, warp, tilusEmitIndex(e, numThreads / TILUS_WARP_SIZE));
  MlirValue operands[3] = {last, partial, full};
  return tilusEmitValue(e, "arith.select", 3, operands, i32, 0, NULL);
}
