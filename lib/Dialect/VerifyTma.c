//===- VerifyTma.c - The rules of tilus.tma_load --------------------------===//
//
// A tensor-memory copy of a tile of a global tensor into a shared one, its
// bytes completing on an mbarrier (docs/hopper.md). Beyond the operands'
// kinds and the tile's offsets, the rules TMA imposes (the source a view of
// kernel arguments, element widths, the destination's layout, box limits
// and alignment) are decided once, by tilusTmaPlanGet, for the verifier and
// the lowering alike; the target (sm_90 and newer) is the lowering's.
//
//===----------------------------------------------------------------------===//

#include "VerifierInternal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"
#include "tilus-c/Ops.h"

#include <stdlib.h>

static bool decodeOperand(TilusVerifier *v, MlirOperation op, intptr_t group,
                          TilusMemoryScope scope, const char *role,
                          TilusTensorType *out) {
  if (!tilusVerifierDecode(
          v, mlirValueGetType(tilusOpGetGroupOperand(op, group, 0)), out, NULL))
    return false;
  if (out->scope == scope)
    return true;
  tilusVerifierError(v, op, "the %s must be a %s tensor", role,
                     scope == TilusMemoryShared ? "shared" : "global");
  tilusTensorTypeRelease(out);
  return false;
}

// The tile's offsets in the destination and in the source (as CopyAsync's).
static bool checkTile(TilusVerifier *v, MlirOperation op,
                      const TilusTensorType *dst, const TilusTensorType *src) {
  MlirAttribute a = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("shape"));
  intptr_t rank = mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a)
                      ? -1
                      : mlirDenseArrayGetNumElements(a);
  if (rank < 1 || rank > TILUS_TMA_MAX_RANK) {
    tilusVerifierError(v, op,
                       "the 'shape' attribute must be array<i64: ...> of 1 to "
                       "%d extents",
                       TILUS_TMA_MAX_RANK);
    return false;
  }
  int64_t shape[TILUS_TMA_MAX_RANK];
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = mlirDenseI64ArrayGetElement(a, d);
  return tilusVerifierCheckTileAccess(v, op, dst, "destination", rank, shape,
                                      TilusTmaDstOffsets) &&
         tilusVerifierCheckTileAccess(v, op, src, "source", rank, shape,
                                      TilusTmaSrcOffsets);
}

bool tilusVerifyTmaOp(TilusVerifier *v, MlirOperation op) {
  if (!tilusOpIs(op, "tilus.tma_load"))
    return false;
  if (mlirLogicalResultIsFailure(tilusOpVerifyStructure(op))) {
    v->numErrors++; // reported at the op
    return true;
  }
  TilusTensorType dst, src, bars;
  if (!decodeOperand(v, op, TilusTmaDst, TilusMemoryShared, "destination",
                     &dst))
    return true;
  if (!decodeOperand(v, op, TilusTmaSrc, TilusMemoryGlobal, "source", &src)) {
    tilusTensorTypeRelease(&dst);
    return true;
  }
  if (decodeOperand(v, op, TilusTmaBars, TilusMemoryShared, "barrier",
                    &bars)) {
    MlirType t = bars.elementType;
    char why[320];
    TilusTmaPlan plan;
    if (!mlirTypeIsAInteger(t) || mlirIntegerTypeGetWidth(t) != 64)
      tilusVerifierError(v, op,
                         "mbarriers are 64-bit integers in shared memory");
    else if (!mlirTypeEqual(dst.elementType, src.elementType))
      tilusVerifierError(v, op,
                         "the source and the destination have different "
                         "element types");
    else if (tilusVerifierCheckTileAccess(v, op, &bars, "barrier", 0, NULL,
                                          TilusTmaBarOffsets) &&
             checkTile(v, op, &dst, &src) &&
             !tilusTmaPlanGet(op, &dst, &src, &plan, why, sizeof why))
      tilusVerifierError(v, op, "%s", why);
    tilusTensorTypeRelease(&bars);
  }
  tilusTensorTypeRelease(&src);
  tilusTensorTypeRelease(&dst);
  return true;
}
