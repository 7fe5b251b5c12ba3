//===- ControlFlow.c - scf ops that carry register tensors ----------------===//
//
// scf.for, scf.if and scf.while may carry register tensors (loop-carried
// accumulators, values chosen by a branch). Before the op patterns run, each
// such op is rebuilt with the lowered types: its regions move over, block
// arguments change type behind a cast back to the Tilus type, terminators
// yield lowered values through casts, and its old results are served by casts
// of the new ones. The op patterns then look through these casts as usual,
// and reconcile-unrealized-casts folds the pairs away.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

// The lowered type of `type`, or `type` itself when it is no register tensor.
static MlirType lowerType(MlirContext ctx, MlirType type) {
  if (!tilusTypeIsARegister(type))
    return type;
  TilusTensorType t;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(type, &t, NULL)))
    return type;
  MlirType lowered = tilusRegisterStorageType(ctx, &t);
  tilusTensorTypeRelease(&t);
  return lowered;
}

static bool carriesRegisters(MlirOperation op) {
  for (intptr_t k = 0; k < mlirOperationGetNumResults(op); ++k)
    if (tilusTypeIsARegister(mlirValueGetType(mlirOperationGetResult(op, k))))
      return true;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k)
    if (tilusTypeIsARegister(mlirValueGetType(mlirOperationGetOperand(op, k))))
      return true;
  return false;
}

// Casts `value` to `type` right before `before`.
static MlirValue castBefore(MlirOperation before, MlirValue value,
                            MlirType type) {
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("builtin.unrealized_conversion_cast"),
      mlirOperationGetLocation(before));
  mlirOperationStateAddOperands(&state, 1, &value);
  mlirOperationStateAddResults(&state, 1, &type);
  MlirOperation cast = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before,
                                      cast);
  return mlirOperationGetResult(cast, 0);
}

// Retypes the register-typed arguments of `block`; their users keep the Tilus
// type through a cast at the start of the block.
static void retypeBlockArguments(MlirContext ctx, MlirBlock block) {
  MlirOperation first = mlirBlockGetFirstOperation(block);
  for (intptr_t a = 0; a < mlirBlockGetNumArguments(block); ++a) {
    MlirValue arg = mlirBlockGetArgument(block, a);
    MlirType old = mlirValueGetType(arg);
    MlirType lowered = lowerType(ctx, old);
    if (mlirTypeEqual(old, lowered))
      continue;
    mlirValueSetType(arg, lowered);
    MlirValue cast = castBefore(first, arg, old);
    MlirOperation castOp = mlirOpResultGetOwner(cast);
    mlirValueReplaceAllUsesExcept(arg, cast, 1, &castOp);
  }
}

// Makes the terminator of `block` pass lowered values.
static void lowerTerminatorOperands(MlirContext ctx, MlirBlock block) {
  MlirOperation terminator = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(terminator))
    return;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(terminator); ++k) {
    MlirValue operand = mlirOperationGetOperand(terminator, k);
    MlirType old = mlirValueGetType(operand);
    MlirType lowered = lowerType(ctx, old);
    if (!mlirTypeEqual(old, lowered))
      mlirOperationSetOperand(terminator, k,
                              castBefore(terminator, operand, lowered));
  }
}

static bool convertOne(MlirOperation op) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  intptr_t numResults = mlirOperationGetNumResults(op);
  intptr_t numRegions = mlirOperationGetNumRegions(op);
  if (numRegions > 2) { // scf.for, scf.if and scf.while have at most two
    mlirEmitError(loc, "an scf op with more than two regions carries register "
                       "tensors");
    return false;
  }
  MlirValue *operands = malloc(sizeof(MlirValue) * (size_t)(numOperands + 1));
  MlirType *resultTypes = malloc(sizeof(MlirType) * (size_t)(numResults + 1));
  if (!operands || !resultTypes) {
    free(operands);
    free(resultTypes);
    mlirEmitError(loc, "tilus-to-gpu ran out of memory");
    return false;
  }
  for (intptr_t k = 0; k < numOperands; ++k) {
    MlirValue operand = mlirOperationGetOperand(op, k);
    MlirType lowered = lowerType(ctx, mlirValueGetType(operand));
    operands[k] = mlirTypeEqual(lowered, mlirValueGetType(operand))
                      ? operand
                      : castBefore(op, operand, lowered);
  }
  for (intptr_t k = 0; k < numResults; ++k)
    resultTypes[k] =
        lowerType(ctx, mlirValueGetType(mlirOperationGetResult(op, k)));

  MlirOperationState state =
      mlirOperationStateGet(mlirIdentifierStr(mlirOperationGetName(op)), loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  mlirOperationStateAddResults(&state, numResults, resultTypes);
  for (intptr_t k = 0; k < mlirOperationGetNumAttributes(op); ++k) {
    MlirNamedAttribute attr = mlirOperationGetAttribute(op, k);
    mlirOperationStateAddAttributes(&state, 1, &attr);
  }
  MlirRegion regions[2];
  for (intptr_t r = 0; r < numRegions; ++r)
    regions[r] = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, numRegions, regions);
  MlirOperation replacement = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op,
                                      replacement);

  for (intptr_t r = 0; r < numRegions; ++r) {
    MlirRegion region = mlirOperationGetRegion(replacement, r);
    mlirRegionTakeBody(region, mlirOperationGetRegion(op, r));
    for (MlirBlock block = mlirRegionGetFirstBlock(region);
         !mlirBlockIsNull(block); block = mlirBlockGetNextInRegion(block)) {
      retypeBlockArguments(ctx, block);
      lowerTerminatorOperands(ctx, block);
    }
  }

  // Old results are read through casts of the new ones.
  MlirOperation next = mlirOperationGetNextInBlock(replacement);
  for (intptr_t k = 0; k < numResults; ++k) {
    MlirValue oldResult = mlirOperationGetResult(op, k);
    MlirValue newResult = mlirOperationGetResult(replacement, k);
    MlirType oldType = mlirValueGetType(oldResult);
    MlirValue value = mlirTypeEqual(oldType, resultTypes[k])
                          ? newResult
                          : castBefore(next, newResult, oldType);
    mlirValueReplaceAllUsesOfWith(oldResult, value);
  }
  mlirOperationDestroy(op);
  free(operands);
  free(resultTypes);
  return true;
}

// Collects the ops to rebuild, innermost first.
static MlirWalkResult collect(MlirOperation op, void *userData) {
  if ((tilusOpIs(op, "scf.for") || tilusOpIs(op, "scf.if") ||
       tilusOpIs(op, "scf.while")) &&
      carriesRegisters(op))
    tilusOpListPush(userData, op);
  return MlirWalkResultAdvance;
}

MlirLogicalResult tilusConvertControlFlowTypes(MlirOperation root) {
  TilusOpList ops = {0};
  mlirOperationWalk(root, collect, &ops, MlirWalkPostOrder);
  bool ok = !ops.outOfMemory;
  if (!ok)
    mlirEmitError(mlirOperationGetLocation(root),
                  "tilus-to-gpu ran out of memory");
  for (size_t k = 0; ok && k < ops.size; ++k)
    ok = convertOne(ops.ops[k]);
  tilusOpListRelease(&ops);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
