//===- VerifyMbarrier.c - The rules of the mbarrier ops -------------------===//
//
// tilus.mbarrier_init, arrive, arrive_expect_tx and wait (docs/hopper.md):
// the barrier is one element of a shared tensor of 64-bit integers, at one
// offset per dimension inside it. (IRDL checks the i32 count, bytes and
// phase; the target, sm_90 and newer, is the lowering's.)
//
//===----------------------------------------------------------------------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"

#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Ops.h"

#include <stdio.h>
#include <stdlib.h>

bool tilusVerifyMbarrierOp(TilusVerifier *v, MlirOperation op) {
  if (!tilusOpIs(op, "tilus.mbarrier_init") &&
      !tilusOpIs(op, "tilus.mbarrier_arrive") &&
      !tilusOpIs(op, "tilus.mbarrier_arrive_expect_tx") &&
      !tilusOpIs(op, "tilus.mbarrier_wait"))
    return false;
  if (mlirLogicalResultIsFailure(tilusOpVerifyStructure(op))) {
    v->numErrors++; // reported at the op
    return true;
  }
  TilusTensorType bars;
  if (!tilusVerifierDecode(
          v, mlirValueGetType(tilusOpGetGroupOperand(op, TilusMbarrierBars, 0)),
          &bars, NULL))
    return true;
  MlirType t = bars.elementType;
  if (!mlirTypeIsAInteger(t) || mlirIntegerTypeGetWidth(t) != 64) {
    char *text = tilusPrintTypeToString(t);
    tilusVerifierError(v, op,
                       "mbarriers are 64-bit integers in shared memory, not "
                       "'%s'",
                       text ? text : "?");
    free(text);
  } else {
    tilusVerifierCheckTileAccess(v, op, &bars, "barrier", 0, NULL,
                                 TilusMbarrierOffsets);
  }
  tilusTensorTypeRelease(&bars);
  return true;
}
