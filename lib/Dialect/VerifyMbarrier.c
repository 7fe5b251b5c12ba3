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

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Ops.h"

#include <stdio.h>
#include <stdlib.h>

// The i32 operand where it is a constant: count in [1, 2^20 - 1] (PTX's
// limit), phase 0 or 1, bytes 0 (tilus.tma_load declares its own bytes, so
// any other count would never complete its phase).
static void verifyConstantValue(TilusVerifier *v, MlirOperation op) {
  MlirValue x = tilusOpGetGroupOperand(op, TilusMbarrierValue, 0);
  if (mlirValueIsNull(x) || !mlirValueIsAOpResult(x) ||
      !tilusOpIs(mlirOpResultGetOwner(x), "arith.constant"))
    return;
  MlirAttribute a = mlirOperationGetAttributeByName(
      mlirOpResultGetOwner(x), mlirStringRefCreateFromCString("value"));
  if (!mlirAttributeIsAInteger(a))
    return;
  int64_t c = mlirIntegerAttrGetValueInt(a);
  if (tilusOpIs(op, "tilus.mbarrier_init") && (c < 1 || c > (1 << 20) - 1))
    tilusVerifierError(v, op, "count must be from 1 to 1048575, not %lld",
                       (long long)c);
  else if (tilusOpIs(op, "tilus.mbarrier_wait") && c != 0 && c != 1)
    tilusVerifierError(v, op, "phase must be 0 or 1, not %lld", (long long)c);
  else if (tilusOpIs(op, "tilus.mbarrier_arrive_expect_tx") && c != 0)
    tilusVerifierError(v, op,
                       "bytes must be 0: each tilus.tma_load adds the bytes "
                       "it delivers to the phase's expected count itself, so "
                       "any other count would never complete the phase");
}

bool tilusVerifyMbarrierOp(TilusVerifier *v, MlirOperation op) {
  if (!tilusOpIs(op, "tilus.mbarrier_init") &&
      !tilusOpIs(op, "tilus.mbarrier_arrive") &&
      !tilusOpIs(op, "tilus.copy_async_mbarrier_arrive") &&
      !tilusOpIs(op, "tilus.mbarrier_arrive_remote") &&
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
  } else if (tilusVerifierCheckTileAccess(v, op, &bars, "barrier", 0, NULL,
                                          TilusMbarrierOffsets)) {
    verifyConstantValue(v, op);
  }
  if (tilusOpIs(op, "tilus.mbarrier_arrive_remote") &&
      !tilusOpGetClusterSize(op))
    tilusVerifierError(v, op,
                       "needs a kernel that runs in thread-block clusters "
                       "(a 'tilus.cluster' attribute)");
  tilusTensorTypeRelease(&bars);
  return true;
}
