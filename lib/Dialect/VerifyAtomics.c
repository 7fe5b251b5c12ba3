//===- VerifyAtomics.c - The rules of the atomic ops ----------------------===//
//
// tilus.atomic_rmw, atomic_cas, atomic_add_global, semaphore_wait and
// semaphore_signal (docs/dialect.md, "Atomics"). The element types allowed
// are those every target performs atomically (natively or, where the
// hardware lacks the instruction, with a compare-and-swap loop), so a
// verified op always lowers.
//
//===----------------------------------------------------------------------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void typeText(MlirType type, char *buffer, size_t size) {
  char *text = tilusPrintTypeToString(type);
  snprintf(buffer, size, "%s", text ? text : "?");
  free(text);
}

static bool isIntegerOfWidth(MlirType type, unsigned a, unsigned b) {
  if (!mlirTypeIsAInteger(type))
    return false;
  unsigned w = mlirIntegerTypeGetWidth(type);
  return w == a || w == b;
}

static bool isFloat32Or64(MlirType type) {
  return mlirTypeIsAF32(type) || mlirTypeIsAF64(type);
}

// Whether `kind` applies atomically to elements of `type`; `what` says which
// types it takes, for the message.
static bool kindTakes(const char *kind, MlirType type, const char **what) {
  bool int3264 = isIntegerOfWidth(type, 32, 64);
  if (!strcmp(kind, "add")) {
    *what = "32- or 64-bit integers, f16, bf16, f32 or f64";
    return int3264 || isFloat32Or64(type) || mlirTypeIsAF16(type) ||
           mlirTypeIsABF16(type);
  }
  if (!strcmp(kind, "max") || !strcmp(kind, "min")) {
    *what = "32- or 64-bit integers, f32 or f64";
    return int3264 || isFloat32Or64(type);
  }
  if (!strcmp(kind, "exchange")) {
    *what = "32- or 64-bit integers or floats";
    return int3264 || isFloat32Or64(type);
  }
  *what = "32- or 64-bit integers"; // cas
  return int3264;
}

// The memory operand and the offsets of a scalar access; false (reported,
// or silently when the type does not decode) when they are wrong.
static bool verifyScalarAccess(TilusVerifier *v, MlirOperation op,
                               intptr_t memGroup, intptr_t offsetsGroup,
                               const char *role, MlirType *elementType) {
  TilusTensorType mem;
  if (!tilusVerifierDecode(
          v, mlirValueGetType(tilusOpGetGroupOperand(op, memGroup, 0)), &mem,
          NULL))
    return false;
  *elementType = mem.elementType;
  bool ok =
      tilusVerifierCheckTileAccess(v, op, &mem, role, 0, NULL, offsetsGroup);
  tilusTensorTypeRelease(&mem);
  return ok;
}

// An operand that must have the memory's element type; scalars are arith
// values, so for integer elements it is the signless integer of their width
// (the element type's signedness picks signed or unsigned max/min).
static bool verifyOperandType(TilusVerifier *v, MlirOperation op,
                              intptr_t group, const char *role,
                              MlirType elementType) {
  MlirType type = mlirValueGetType(tilusOpGetGroupOperand(op, group, 0));
  if (mlirTypeEqual(type, elementType))
    return true;
  if (mlirTypeIsAInteger(elementType) && mlirTypeIsAInteger(type) &&
      mlirIntegerTypeIsSignless(type) &&
      mlirIntegerTypeGetWidth(type) == mlirIntegerTypeGetWidth(elementType))
    return true;
  char a[96], b[96];
  typeText(type, a, sizeof(a));
  typeText(elementType, b, sizeof(b));
  tilusVerifierError(v, op, "the %s has type '%s' but the element type is '%s'",
                     role, a, b);
  return false;
}

static bool isString(MlirAttribute a, const char *text) {
  return mlirAttributeIsAString(a) &&
         mlirStringRefEqual(mlirStringAttrGetValue(a), mlirStringRefCreateFromCString(text));
}

// AtomicRMW's optional memory order: the string "relaxed" (the default) or
// "acq_rel".
static bool verifyOrder(TilusVerifier *v, MlirOperation op) {
  MlirAttribute order = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("order"));
  if (mlirAttributeIsNull(order) || isString(order, "relaxed") ||
      isString(order, "acq_rel"))
    return true;
  char text[96];
  typeText(mlirAttributeGetType(order), text, sizeof(text));
  if (mlirAttributeIsAString(order)) {
    MlirStringRef s = mlirStringAttrGetValue(order);
    tilusVerifierError(v, op, "order must be 'relaxed' or 'acq_rel', not '%.*s'",
                       (int)s.length, s.data);
  } else {
    tilusVerifierError(v, op,
                       "order must be the string 'relaxed' or 'acq_rel', not a "
                       "'%s' attribute",
                       text);
  }
  return false;
}

static void verifyRmw(TilusVerifier *v, MlirOperation op) {
  MlirAttribute kindAttr = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("kind"));
  MlirStringRef kindRef = mlirAttributeIsAString(kindAttr)
                              ? mlirStringAttrGetValue(kindAttr)
                              : mlirStringRefCreate("?", 1);
  char kind[16] = "";
  if (kindRef.length < sizeof(kind))
    memcpy(kind, kindRef.data, kindRef.length), kind[kindRef.length] = '\0';
  if (strcmp(kind, "add") && strcmp(kind, "max") && strcmp(kind, "min") &&
      strcmp(kind, "exchange")) {
    tilusVerifierError(v, op,
                       "kind '%.*s' is not one of 'add', 'max', 'min' or "
                       "'exchange'",
                       (int)kindRef.length, kindRef.data);
    return;
  }
  if (!verifyOrder(v, op))
    return;
  MlirType element;
  if (!verifyScalarAccess(v, op, TilusAtomicMem, TilusAtomicOffsets, "memory",
                          &element) ||
      !verifyOperandType(v, op, TilusAtomicRmwValue, "value", element))
    return;
  const char *what;
  if (!kindTakes(kind, element, &what)) {
    char t[96];
    typeText(element, t, sizeof(t));
    tilusVerifierError(v, op, "atomic %s takes %s, not '%s'", kind, what, t);
  }
}

static void verifyCas(TilusVerifier *v, MlirOperation op) {
  if (!mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          op, mlirStringRefCreateFromCString("order")))) {
    tilusVerifierError(v, op,
                       "takes no 'order' (atomic_cas is relaxed; order applies "
                       "to atomic_rmw)");
    return;
  }
  MlirType element;
  if (!verifyScalarAccess(v, op, TilusAtomicMem, TilusAtomicOffsets, "memory",
                          &element) ||
      !verifyOperandType(v, op, TilusAtomicCasCompare, "compare value",
                         element) ||
      !verifyOperandType(v, op, TilusAtomicCasValue, "value", element))
    return;
  const char *what;
  if (!kindTakes("cas", element, &what)) {
    char t[96];
    typeText(element, t, sizeof(t));
    tilusVerifierError(v, op, "atomic cas takes %s, not '%s'", what, t);
  }
}

// Each element of the tile is added once, so no element may be held by two
// threads or slots (a reduce layout replicates them).
static void verifyAtomicAddGlobal(TilusVerifier *v, MlirOperation op) {
  TilusTensorType value, dst;
  if (!tilusVerifierDecode(
          v, mlirValueGetType(tilusOpGetGroupOperand(op, TilusStoreValue, 0)),
          &value, NULL))
    return;
  if (tilusVerifierDecode(
          v, mlirValueGetType(tilusOpGetGroupOperand(op, TilusStoreDst, 0)),
          &dst, NULL)) {
    char a[96], b[96];
    typeText(dst.elementType, a, sizeof(a));
    typeText(value.elementType, b, sizeof(b));
    int64_t numElements = 1;
    for (intptr_t d = 0; d < value.rank; ++d)
      numElements *= value.shape[d];
    int64_t held = tilusLayoutGetNumThreads(value.layout) *
                   tilusLayoutGetLocalSize(value.layout);
    const char *what;
    if (!mlirTypeEqual(dst.elementType, value.elementType))
      tilusVerifierError(v, op,
                         "element types differ: the destination has '%s', "
                         "the added value has '%s'",
                         a, b);
    else if (!kindTakes("add", value.elementType, &what))
      tilusVerifierError(v, op, "atomic add takes %s, not '%s'", what, b);
    else if (held != numElements)
      tilusVerifierError(v, op,
                         "the value's layout holds %" PRId64 " elements for "
                         "a tile of %" PRId64
                         "; an atomic add needs each element in one thread "
                         "and slot (no reduce)",
                         held, numElements);
    else
      tilusVerifierCheckTileAccess(v, op, &dst, "destination", value.rank,
                                   value.shape, TilusStoreOffsets);
    tilusTensorTypeRelease(&dst);
  }
  tilusTensorTypeRelease(&value);
}

static void verifySemaphore(TilusVerifier *v, MlirOperation op) {
  TilusTensorType counters;
  if (!tilusVerifierDecode(v,
                           mlirValueGetType(tilusOpGetGroupOperand(
                               op, TilusSemaphoreCounters, 0)),
                           &counters, NULL))
    return;
  if (!isIntegerOfWidth(counters.elementType, 32, 32)) {
    char t[96];
    typeText(counters.elementType, t, sizeof(t));
    tilusVerifierError(
        v, op, "semaphore counters must be 32-bit integers, not '%s'", t);
  } else {
    tilusVerifierCheckTileAccess(v, op, &counters, "counter", 0, NULL,
                                 TilusSemaphoreOffsets);
  }
  tilusTensorTypeRelease(&counters);
}

bool tilusVerifyAtomicOp(TilusVerifier *v, MlirOperation op) {
  bool atomic = tilusOpIs(op, "tilus.atomic_rmw") ||
                tilusOpIs(op, "tilus.atomic_cas") ||
                tilusOpIs(op, "tilus.atomic_add_global") ||
                tilusOpIs(op, "tilus.semaphore_wait") ||
                tilusOpIs(op, "tilus.semaphore_signal");
  if (!atomic)
    return false;
  if (mlirLogicalResultIsFailure(tilusOpVerifyStructure(op))) {
    v->numErrors++; // reported at the op
    return true;
  }
  if (tilusOpIs(op, "tilus.atomic_rmw"))
    verifyRmw(v, op);
  else if (tilusOpIs(op, "tilus.atomic_cas"))
    verifyCas(v, op);
  else if (tilusOpIs(op, "tilus.atomic_add_global"))
    verifyAtomicAddGlobal(v, op);
  else if (tilusOpIs(op, "tilus.semaphore_wait") ||
           tilusOpIs(op, "tilus.semaphore_signal"))
    verifySemaphore(v, op);
  else
    return false;
  return true;
}
