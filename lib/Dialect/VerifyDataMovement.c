//===- VerifyDataMovement.c - Rules of Reduce and the layout changes ------===//
//
// tilus.reduce, convert_layout, permute and reshape: the attributes, the
// result's shape and element type, and for Reduce the result layout (the
// algebra's reduce of the operand's, so that every thread that held a row
// holds the row's result). Which threads exchange data is the lowering's
// business (tilus-c/DataMovement.h); any two layouts of a shape are legal.
//
//===----------------------------------------------------------------------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/DataMovement.h"
#include "tilus-c/Ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void typeText(MlirType type, char *buffer, size_t size) {
  char *text = tilusPrintTypeToString(type);
  snprintf(buffer, size, "%s", text);
  free(text);
}

static bool sameShape(intptr_t rank, const int64_t *a, intptr_t rankB,
                      const int64_t *b) {
  return rank == rankB &&
         (rank == 0 || !memcmp(a, b, sizeof(int64_t) * (size_t)rank));
}

static bool sameElementType(TilusVerifier *v, MlirOperation op,
                            const TilusTensorType *x,
                            const TilusTensorType *r) {
  if (mlirTypeEqual(x->elementType, r->elementType))
    return true;
  char a[96], b[96];
  typeText(x->elementType, a, sizeof(a));
  typeText(r->elementType, b, sizeof(b));
  tilusVerifierError(v, op,
                     "element types differ: the operand has '%s', the result "
                     "has '%s'",
                     a, b);
  return false;
}

static bool expectShape(TilusVerifier *v, MlirOperation op,
                        const TilusTensorType *r, intptr_t rank,
                        const int64_t *shape, const char *why) {
  if (sameShape(r->rank, r->shape, rank, shape))
    return true;
  char got[160], want[160];
  tilusFormatShape(got, sizeof(got), r->rank, r->shape);
  tilusFormatShape(want, sizeof(want), rank, shape);
  tilusVerifierError(v, op, "the result shape is %s, expected %s (%s)", got,
                     want, why);
  return false;
}

// The dims attribute: distinct dimensions of the operand; its length, or -1
// after reporting.
static intptr_t readDims(TilusVerifier *v, MlirOperation op, intptr_t rank,
                         int64_t *dims) {
  intptr_t n = tilusOpGetDims(op, dims);
  if (n < 0) {
    tilusVerifierError(v, op,
                       "the 'dims' attribute must be array<i64: ...> of at "
                       "most %d dimensions",
                       TILUS_LAYOUT_MAX_RANK);
    return -1;
  }
  bool seen[TILUS_LAYOUT_MAX_RANK] = {false};
  for (intptr_t k = 0; k < n; ++k) {
    if (dims[k] < 0 || dims[k] >= rank) {
      tilusVerifierError(v, op,
                         "dimension %" PRId64 " is out of range for an "
                         "operand of rank %" PRIdPTR,
                         dims[k], rank);
      return -1;
    }
    if (seen[dims[k]]) {
      tilusVerifierError(v, op, "dimension %" PRId64 " is listed twice",
                         dims[k]);
      return -1;
    }
    seen[dims[k]] = true;
  }
  return n;
}

static void verifyReduce(TilusVerifier *v, MlirOperation op,
                         const TilusTensorType *x, const TilusTensorType *r) {
  MlirAttribute kind = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("kind"));
  MlirStringRef k = mlirAttributeIsAString(kind) ? mlirStringAttrGetValue(kind)
                                                 : (MlirStringRef){"", 0};
  bool known = false;
  static const char *const kinds[] = {"sum", "max", "min", "argmax", "argmin"};
  for (int i = 0; i < 5; ++i)
    known |=
        k.length == strlen(kinds[i]) && !memcmp(k.data, kinds[i], k.length);
  if (!known) {
    tilusVerifierError(v, op,
                       "unknown reduction kind '%.*s' (expected \"sum\", "
                       "\"max\", \"min\", \"argmax\" or \"argmin\")",
                       (int)k.length, k.data);
    return;
  }
  bool isArg = k.length == 6 && !memcmp(k.data, "arg", 3);
  int64_t dims[TILUS_LAYOUT_MAX_RANK];
  intptr_t n = readDims(v, op, x->rank, dims);
  if (n < 0)
    return;
  if (n == 0) {
    tilusVerifierError(v, op, "reduces no dimension ('dims' is empty)");
    return;
  }
  if (n == x->rank) {
    tilusVerifierError(v, op,
                       "cannot reduce every dimension (a tensor has rank >= "
                       "1); reshape to add a dimension of size 1 first");
    return;
  }
  if (isArg && n != 1) {
    tilusVerifierError(v, op,
                       "%.*s reduces exactly one dimension, got %" PRIdPTR,
                       (int)k.length, k.data, n);
    return;
  }
  if (isArg && !(mlirTypeIsAInteger(r->elementType) &&
                 mlirIntegerTypeGetWidth(r->elementType) == 32 &&
                 !mlirIntegerTypeIsUnsigned(r->elementType))) {
    char t[96];
    typeText(r->elementType, t, sizeof(t));
    tilusVerifierError(v, op,
                       "the result of %.*s holds indices: its element type "
                       "must be i32, got '%s'",
                       (int)k.length, k.data, t);
    return;
  }
  if (!isArg && !sameElementType(v, op, x, r))
    return;
  if (mlirTypeIsNull(tilusReduceAccumulatorType(x->elementType))) {
    char t[96];
    typeText(x->elementType, t, sizeof(t));
    tilusVerifierError(v, op,
                       "cannot reduce elements of type '%s' (f16, bf16, f32, "
                       "f64 and integers; cast first)",
                       t);
    return;
  }
  int64_t shape[TILUS_LAYOUT_MAX_RANK];
  intptr_t rank = 0;
  for (intptr_t d = 0; d < x->rank; ++d) {
    bool gone = false;
    for (intptr_t i = 0; i < n; ++i)
      gone |= dims[i] == d;
    if (!gone)
      shape[rank++] = x->shape[d];
  }
  if (!expectShape(v, op, r, rank, shape,
                   "the operand's without the reduced "
                   "dimensions"))
    return;
  TilusLayoutError err;
  TilusLayout *expected = tilusLayoutReduce(x->layout, n, dims, &err);
  if (!expected) {
    tilusVerifierError(v, op, "cannot reduce the operand's layout: %s",
                       err.message);
    return;
  }
  if (!tilusLayoutEqual(expected, r->layout)) {
    char *want = tilusLayoutPrint(expected);
    char *got = tilusLayoutPrint(r->layout);
    tilusVerifierError(v, op,
                       "the result layout is '%s', expected '%s' (the "
                       "operand's layout reduced over 'dims')",
                       got, want);
    free(want);
    free(got);
  }
  tilusLayoutDestroy(expected);
}

static void verifyPermute(TilusVerifier *v, MlirOperation op,
                          const TilusTensorType *x, const TilusTensorType *r) {
  int64_t dims[TILUS_LAYOUT_MAX_RANK];
  intptr_t n = readDims(v, op, x->rank, dims);
  if (n < 0)
    return;
  if (n != x->rank) {
    tilusVerifierError(v, op,
                       "'dims' must list each of the operand's %" PRIdPTR
                       " dimensions once, got %" PRIdPTR,
                       x->rank, n);
    return;
  }
  if (!sameElementType(v, op, x, r))
    return;
  int64_t shape[TILUS_LAYOUT_MAX_RANK];
  for (intptr_t k = 0; k < n; ++k)
    shape[k] = x->shape[dims[k]];
  expectShape(v, op, r, n, shape, "dimension k is the operand's dims[k]");
}

void tilusVerifyDataMovementOp(TilusVerifier *v, MlirOperation op) {
  TilusTensorType x, r;
  if (!tilusVerifierDecode(v, mlirValueGetType(mlirOperationGetOperand(op, 0)),
                           &x, NULL))
    return;
  if (!tilusVerifierDecode(v, mlirValueGetType(mlirOperationGetResult(op, 0)),
                           &r, NULL)) {
    tilusTensorTypeRelease(&x);
    return;
  }
  if (tilusOpIs(op, "tilus.reduce")) {
    verifyReduce(v, op, &x, &r);
  } else if (tilusOpIs(op, "tilus.permute")) {
    verifyPermute(v, op, &x, &r);
  } else if (tilusOpIs(op, "tilus.convert_layout")) {
    if (sameElementType(v, op, &x, &r))
      expectShape(v, op, &r, x.rank, x.shape,
                  "a layout change keeps the "
                  "shape");
  } else if (tilusOpIs(op, "tilus.reshape") && sameElementType(v, op, &x, &r)) {
    int64_t a = tilusLayoutGetNumElements(x.layout);
    int64_t b = tilusLayoutGetNumElements(r.layout);
    if (a != b)
      tilusVerifierError(v, op,
                         "a reshape keeps the number of elements, but the "
                         "operand has %" PRId64 " and the result %" PRId64,
                         a, b);
  }
  tilusTensorTypeRelease(&r);
  tilusTensorTypeRelease(&x);
}
