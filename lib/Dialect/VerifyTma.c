//===- VerifyTma.c - The rules of tilus.tma_load and tma_store ------------===//
//
// Tensor-memory copies of a tile of a global tensor into a shared one (its
// bytes completing on an mbarrier) and back (docs/hopper.md). Beyond the
// operands' kinds and the tile's offsets, the rules TMA imposes (the global
// tensor a view of kernel arguments, element widths, the shared tensor's
// layout, box limits and alignment) are decided once, by tilusTmaPlanGet,
// for the verifier and the lowering alike; the target (sm_90 and newer) is
// the lowering's.
//
//===----------------------------------------------------------------------===//

#include "VerifierInternal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"
#include "tilus-c/Kernel.h"
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

// The tile's offsets in the shared and the global tensor (as CopyAsync's).
static bool checkTile(TilusVerifier *v, MlirOperation op,
                      const TilusTensorType *dst, const TilusTensorType *src) {
  bool store = tilusOpIs(op, "tilus.tma_store");
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
  return tilusVerifierCheckTileAccess(
             v, op, dst, store ? "source" : "destination", rank, shape,
             store ? TilusTmaStoreSharedOffsets : TilusTmaDstOffsets) &&
         tilusVerifierCheckTileAccess(
             v, op, src, store ? "destination" : "source", rank, shape,
             store ? TilusTmaStoreGlobalOffsets : TilusTmaSrcOffsets);
}

static bool checkPlan(TilusVerifier *v, MlirOperation op,
                      const TilusTensorType *shared,
                      const TilusTensorType *global) {
  char why[320];
  TilusTmaPlan plan;
  if (!mlirTypeEqual(shared->elementType, global->elementType)) {
    tilusVerifierError(v, op,
                       "the shared and the global tensor have different "
                       "element types");
    return false;
  }
  if (checkTile(v, op, shared, global) &&
      !tilusTmaPlanGet(op, shared, global, &plan, why, sizeof why)) {
    tilusVerifierError(v, op, "%s", why);
    return false;
  }
  return true;
}

bool tilusVerifyTmaOp(TilusVerifier *v, MlirOperation op) {
  bool load = tilusOpIs(op, "tilus.tma_load");
  if (!load && !tilusOpIs(op, "tilus.tma_store"))
    return false;
  if (mlirLogicalResultIsFailure(tilusOpVerifyStructure(op))) {
    v->numErrors++; // reported at the op
    return true;
  }
  TilusTensorType shared, global, bars;
  if (!decodeOperand(v, op, TilusTmaShared, TilusMemoryShared,
                     load ? "destination" : "source", &shared))
    return true;
  if (!decodeOperand(v, op, TilusTmaGlobal, TilusMemoryGlobal,
                     load ? "source" : "destination", &global)) {
    tilusTensorTypeRelease(&shared);
    return true;
  }
  MlirAttribute multicast = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("multicast"));
  if (!mlirAttributeIsNull(multicast)) {
    if (!load || !mlirAttributeIsAUnit(multicast))
      tilusVerifierError(v, op,
                         "'multicast' is a unit attribute of tma_load");
    else if (!tilusOpGetClusterSize(op))
      tilusVerifierError(v, op,
                         "multicast needs a kernel that runs in thread-block "
                         "clusters (a 'tilus.cluster' attribute)");
  }
  MlirAttribute asyncWrites = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("async_writes"));
  if (!mlirAttributeIsNull(asyncWrites) &&
      (load || !mlirAttributeIsAUnit(asyncWrites)))
    tilusVerifierError(v, op, "'async_writes' is a unit attribute of tma_store");
  if (!load) {
    checkPlan(v, op, &shared, &global);
  } else if (decodeOperand(v, op, TilusTmaBars, TilusMemoryShared, "barrier",
                           &bars)) {
    MlirType t = bars.elementType;
    if (!mlirTypeIsAInteger(t) || mlirIntegerTypeGetWidth(t) != 64)
      tilusVerifierError(v, op,
                         "mbarriers are 64-bit integers in shared memory");
    else if (tilusVerifierCheckTileAccess(v, op, &bars, "barrier", 0, NULL,
                                          TilusTmaBarOffsets))
      checkPlan(v, op, &shared, &global);
    tilusTensorTypeRelease(&bars);
  }
  tilusTensorTypeRelease(&global);
  tilusTensorTypeRelease(&shared);
  return true;
}
