//===- VerifyTypes.c - Checking Tilus types where values are defined ------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char *scopeName(TilusMemoryScope scope) {
  switch (scope) {
  case TilusMemoryGlobal:
    return "global";
  case TilusMemoryShared:
    return "shared";
  case TilusMemoryRegister:
    return "register";
  }
  return "?";
}

static void verifyElementType(TilusVerifier *v, MlirOperation op,
                              MlirType elementType, const char *where) {
  if (tilusElementTypeGetBitWidth(elementType) != 0)
    return;
  char *text = tilusPrintTypeToString(elementType);
  int64_t e, m;
  if (tilusFloatTypeGetFormat(elementType, &e, &m))
    tilusVerifierError(v, op,
                       "%s has float format e%" PRId64 "m%" PRId64
                       " (%" PRId64 " bits); Tilus floats need an exponent of "
                       "at least 1 bit, a mantissa of at least 0 bits and 3 to "
                       "8 bits in all",
                       where, e, m, 1 + e + m);
  else
    tilusVerifierError(v, op,
                       "%s has unsupported element type '%s'; Tilus supports "
                       "integers of 1-8, 16, 32 and 64 bits, index, f16, bf16, "
                       "f32, f64 and !tilus.float<e, m>",
                       where, text);
  free(text);
}

static void verifyLayout(TilusVerifier *v, MlirOperation op,
                         const TilusTensorType *t, int64_t blockSize) {
  const TilusLayout *layout = t->layout;
  const char *scope = scopeName(t->scope);
  char *text = tilusLayoutPrint(layout);
  char tensorShape[160], layoutShape[160];
  int64_t dims[TILUS_LAYOUT_MAX_RANK];
  intptr_t rank = tilusLayoutGetRank(layout);
  for (intptr_t d = 0; d < rank; ++d)
    dims[d] = tilusLayoutGetDim(layout, d);
  tilusFormatShape(tensorShape, sizeof(tensorShape), t->rank, t->shape);
  tilusFormatShape(layoutShape, sizeof(layoutShape), rank, dims);

  bool sameShape = rank == t->rank;
  for (intptr_t d = 0; sameShape && d < rank; ++d)
    sameShape = dims[d] == t->shape[d];
  int64_t threads = tilusLayoutGetNumThreads(layout);
  if (!sameShape)
    tilusVerifierError(v, op,
                       "layout '%s' has shape %s but the %s tensor has shape %s",
                       text, layoutShape, scope, tensorShape);
  else if (t->scope != TilusMemoryRegister && threads != 1)
    tilusVerifierError(v, op,
                       "the layout of a %s tensor must have one thread, but "
                       "'%s' has %" PRId64,
                       scope, text, threads);
  else if (t->scope == TilusMemoryRegister && blockSize > 0 &&
           threads != blockSize)
    tilusVerifierError(v, op,
                       "register tensor layout '%s' has %" PRId64
                       " threads but the kernel's block size is %" PRId64,
                       text, threads, blockSize);
  // Layouts built by the algebra are valid by construction (every element
  // held, none twice by one thread), so validity needs no check here.
  free(text);
}

void tilusVerifyValueType(TilusVerifier *v, MlirOperation op, MlirType type,
                          int64_t blockSize) {
  if (tilusTypeIsAPtr(type)) {
    verifyElementType(v, op, tilusPtrTypeGetElementType(type),
                      "a pointer");
    return;
  }
  if (tilusTypeIsAFloat(type)) {
    verifyElementType(v, op, type, "a scalar");
    return;
  }
  if (!tilusTypeIsATensor(type))
    return;
  TilusTensorType t;
  TilusLayoutError err = {{0}};
  if (!tilusVerifierDecode(v, type, &t, &err)) {
    char *text = tilusPrintTypeToString(type);
    tilusVerifierError(v, op, "invalid type '%s': %s", text, err.message);
    free(text);
    return;
  }
  const char *scope = scopeName(t.scope);
  char where[64];
  snprintf(where, sizeof(where), "a %s tensor", scope);
  verifyElementType(v, op, t.elementType, where);

  bool dynamic = false;
  for (intptr_t d = 0; d < t.rank; ++d) {
    if (t.shape[d] == TILUS_DYNAMIC_DIM && t.scope == TilusMemoryGlobal) {
      dynamic = true;
      continue;
    }
    if (t.shape[d] < 1) {
      tilusVerifierError(v, op,
                         "%s tensor dimension %" PRIdPTR " is %" PRId64
                         "; dimensions must be positive%s",
                         scope, d, t.shape[d],
                         t.scope == TilusMemoryGlobal
                             ? " (or -1 for a run-time size)"
                             : "");
      tilusTensorTypeRelease(&t);
      return;
    }
  }
  if (t.layout && dynamic)
    tilusVerifierError(v, op,
                       "a global tensor with run-time dimensions must be "
                       "#tilus.row_major");
  else if (t.layout)
    verifyLayout(v, op, &t, blockSize);
  tilusTensorTypeRelease(&t);
}
