//===- BroadcastConversions.c - The tilus-convert-broadcasts pass ---------===//
//
// An elementwise op reads each register operand from the thread's own vector
// (tilusLayoutBroadcastSlots); that needs the operand's layout to give every
// thread the elements its result slots use. When it does not (a row of
// scales spread over other threads, the same shape in another layout), this
// pass puts a tilus.convert_layout before the op, to the layout that works
// (tilusLayoutBroadcastSource of the result's layout). The conversion moves
// the data through shared memory or warp shuffles, and tilus-plan-shared,
// which runs after this pass, plans its scratch.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Diagnostics.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Layout.h"
#include "tilus-c/Ops.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Types.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const alignas(8) char convertPassID = 0;

// The register operand groups of each elementwise op with several operands.
typedef struct {
  const char *name;
  intptr_t groups[3];
  int numGroups;
} BroadcastOp;

static const BroadcastOp kOps[] = {
    {"tilus.add", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.sub", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.mul", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.div", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.mod", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.max", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.min", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.and", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.or", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.xor", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.shl", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.shr", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.cmp", {TilusBinaryLhs, TilusBinaryRhs}, 2},
    {"tilus.where", {TilusWhereCond, TilusWhereA, TilusWhereB}, 3},
    {"tilus.clamp", {TilusClampX, TilusClampLo, TilusClampHi}, 3},
};

static const BroadcastOp *findOp(MlirOperation op) {
  for (size_t k = 0; k < sizeof(kOps) / sizeof(kOps[0]); ++k)
    if (tilusOpIs(op, kOps[k].name))
      return &kOps[k];
  return NULL;
}

static void emitError(MlirOperation op, const char *what,
                      const TilusLayoutError *err) {
  char message[512];
  snprintf(message, sizeof(message), "cannot convert a broadcast operand: %s%s%s",
           what, err && err->message[0] ? ": " : "", err ? err->message : "");
  mlirEmitError(mlirOperationGetLocation(op), message);
}

// Converts operand `index` of `op` (decoded as `operand`) for `result` when
// its threads do not hold what they need. False after an error.
static bool convertOperand(MlirOperation op, intptr_t index,
                           const TilusTensorType *operand,
                           const TilusTensorType *result) {
  int64_t m = tilusLayoutGetLocalSize(result->layout);
  int64_t *slots = malloc(sizeof(int64_t) * (size_t)(m > 0 ? m : 1));
  if (!slots) {
    emitError(op, "out of memory", NULL);
    return false;
  }
  TilusLayoutError err = {{0}};
  bool readable =
      tilusLayoutBroadcastSlots(result->layout, operand->layout, slots, &err);
  free(slots);
  if (readable)
    return true;
  // The dimensions the operand broadcasts along: size 1 where the result's
  // are larger.
  int64_t dims[TILUS_LAYOUT_MAX_RANK], numDims = 0;
  if (operand->rank > TILUS_LAYOUT_MAX_RANK) {
    emitError(op, "the operand has too many dimensions", NULL);
    return false;
  }
  for (int64_t d = 0; d < operand->rank; ++d)
    if (operand->shape[d] == 1 && result->shape[d] != 1)
      dims[numDims++] = d;
  TilusLayoutError sourceErr = {{0}};
  TilusLayout *source =
      tilusLayoutBroadcastSource(result->layout, numDims, dims, &sourceErr);
  if (!source) {
    emitError(op, "no layout of the operand suits the result's", &sourceErr);
    return false;
  }
  MlirValue value = mlirOperationGetOperand(op, index);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirType type = tilusRegisterTypeGet(ctx, operand->elementType,
                                       operand->rank, operand->shape, source);
  tilusLayoutDestroy(source);
  if (mlirTypeIsNull(type)) {
    emitError(op, "the converted operand's type cannot be built", NULL);
    return false;
  }
  intptr_t groupSizes[1] = {1};
  MlirOperation convert = tilusOpCreate(
      mlirOperationGetLocation(op),
      mlirStringRefCreateFromCString("tilus.convert_layout"), groupSizes,
      &value, 1, &type, 0, NULL);
  if (mlirOperationIsNull(convert))
    return false;
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, convert);
  mlirOperationSetOperand(op, index, mlirOperationGetResult(convert, 0));
  return true;
}

// Converts what `op` needs; false after an error.
static bool convertOp(MlirOperation op, const BroadcastOp *rule) {
  TilusTensorType result;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(
          mlirValueGetType(mlirOperationGetResult(op, 0)), &result, NULL)))
    return true; // the verifier reported it
  bool ok = true;
  for (int g = 0; g < rule->numGroups && ok; ++g) {
    intptr_t start = 0, count = 0;
    if (!tilusOpGetOperandGroup(op, rule->groups[g], &start, &count) ||
        count != 1)
      continue;
    MlirValue value = mlirOperationGetOperand(op, start);
    if (!tilusTypeIsARegister(mlirValueGetType(value)))
      continue; // a scalar is splat
    TilusTensorType operand;
    if (mlirLogicalResultIsFailure(
            tilusTensorTypeDecode(mlirValueGetType(value), &operand, NULL)))
      continue;
    bool same = operand.rank == result.rank &&
                !memcmp(operand.shape, result.shape,
                        sizeof(int64_t) * (size_t)operand.rank) &&
                tilusLayoutEqual(operand.layout, result.layout);
    // `cond` of where and the result of cmp differ in element type only.
    if (!same)
      ok = convertOperand(op, start, &operand, &result);
    tilusTensorTypeRelease(&operand);
  }
  tilusTensorTypeRelease(&result);
  return ok;
}

// The elementwise ops of the module, collected before any is changed.
typedef struct {
  MlirOperation *ops;
  size_t count, capacity;
  bool failed; // out of memory
} OpList;

static MlirWalkResult collect(MlirOperation op, void *userData) {
  OpList *list = userData;
  if (!findOp(op))
    return MlirWalkResultAdvance;
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 64;
    MlirOperation *grown = realloc(list->ops, capacity * sizeof(*grown));
    if (!grown) {
      list->failed = true;
      return MlirWalkResultInterrupt;
    }
    list->ops = grown;
    list->capacity = capacity;
  }
  list->ops[list->count++] = op;
  return MlirWalkResultAdvance;
}

static void run(MlirOperation module, MlirExternalPass pass, void *userData) {
  OpList list = {NULL, 0, 0, false};
  mlirOperationWalk(module, collect, &list, MlirWalkPreOrder);
  bool ok = !list.failed;
  if (list.failed)
    emitError(module, "out of memory", NULL);
  for (size_t k = 0; k < list.count && ok; ++k)
    ok = convertOp(list.ops[k], findOp(list.ops[k]));
  free(list.ops);
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

static void construct(void *userData) {}
static void destruct(void *userData) {}
static void *clonePass(void *userData) { return userData; }

MlirPass tilusCreateConvertBroadcastsPass(void) {
  MlirExternalPassCallbacks callbacks = {construct, destruct, NULL, clonePass,
                                         run};
  return mlirCreateExternalPass(
      mlirTypeIDCreate(&convertPassID),
      mlirStringRefCreateFromCString("ConvertBroadcasts"),
      mlirStringRefCreateFromCString("tilus-convert-broadcasts"),
      mlirStringRefCreateFromCString(
          "Put a convert_layout before each elementwise operand whose "
          "threads do not hold the elements they need"),
      mlirStringRefCreateFromCString("builtin.module"), 0, NULL, callbacks,
      NULL);
}
