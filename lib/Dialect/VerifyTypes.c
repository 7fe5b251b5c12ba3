//===- VerifyTypes.c - Checking Tilus types where values are defined ------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"
#include "tilus-c/Kernel.h"
#include "Utils/Checked.h"
#include "tilus-c/TargetInfo.h"

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
  int64_t bits;
  char count[48] = ""; // the bit count only where it does not overflow
  if (!tilusFloatTypeGetFormat(elementType, &e, &m)) {
    tilusVerifierError(v, op,
                       "%s has unsupported element type '%s'; Tilus supports "
                       "integers of 1-8, 16, 32 and 64 bits, index, f16, bf16, "
                       "f32, f64 and !tilus.float<e, m>",
                       where, text);
  } else {
    if (tilusCheckedAdd(e, m, &bits) && tilusCheckedAdd(bits, 1, &bits))
      snprintf(count, sizeof(count), " (%" PRId64 " bits)", bits);
    tilusVerifierError(v, op,
                       "%s has float format e%" PRId64 "m%" PRId64
                       "%s; Tilus floats need an exponent of at least 1 bit, "
                       "a mantissa of at least 0 bits and 3 to 8 bits in all",
                       where, e, m, count);
  }
  free(text);
}

// False when the layout's shape is not the tensor's (sizes are then not
// checked: they would be of the wrong shape).
static bool verifyLayout(TilusVerifier *v, MlirOperation op,
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
                       " threads but the %s is %" PRId64,
                       text, threads,
                       tilusOpGetThreadGroup(op, NULL, NULL)
                           ? "thread group's size"
                           : "kernel's block size",
                       blockSize);
  // Layouts built by the algebra are valid by construction (every element
  // held, none twice by one thread), so validity needs no check here.
  free(text);
  return sameShape;
}

// What the hardware can hold, checked after the shape and the layout: a
// global tensor's bits must fit in int64_t (its strides and byte offsets are
// computed from them), a shared tensor must fit the shared memory of some
// target, and a register tensor's elements per thread the registers of one
// thread. Returns false after reporting.
static bool verifySize(TilusVerifier *v, MlirOperation op,
                       const TilusTensorType *t) {
  int64_t bits = tilusElementTypeGetBitWidth(t->elementType);
  if (bits == 0)
    return true; // reported with the element type
  char shape[160];
  tilusFormatShape(shape, sizeof(shape), t->rank, t->shape);
  if (t->scope == TilusMemoryRegister) {
    // The layout algebra bounds the local size by 2^40, so this fits.
    int64_t local = tilusLayoutGetLocalSize(t->layout);
    int64_t registers = (local * bits + 31) / 32;
    int most = tilusTargetInfoGetMaxRegistersPerThread();
    if (registers <= most)
      return true;
    tilusVerifierError(v, op,
                       "the register tensor %s holds %" PRId64 " elements of "
                       "%" PRId64 " bits per thread: %" PRId64 " 32-bit "
                       "registers, but a thread has at most %d",
                       shape, local, bits, registers, most);
    return false;
  }
  if (t->scope == TilusMemoryShared) {
    // One thread holds a shared tensor: its local bytes are the tensor's.
    int64_t bytes = tilusTensorTypeGetLocalBytes(t);
    int64_t most = tilusTargetInfoGetMaxSharedBytes();
    if (bytes <= most)
      return true;
    tilusVerifierError(v, op,
                       "the shared tensor %s of %" PRId64 "-bit elements (%" PRId64
                       " bytes) does not fit the shared memory of any target "
                       "(at most %" PRId64 " bytes per thread block)",
                       shape, bits, bytes, most);
    return false;
  }
  // A global tensor's static dimensions may be anything up to INT64_MAX.
  int64_t elements = 1, totalBits;
  bool fits = true;
  for (intptr_t d = 0; fits && d < t->rank; ++d)
    if (t->shape[d] != TILUS_DYNAMIC_DIM)
      fits = tilusCheckedMul(elements, t->shape[d], &elements);
  if (fits && tilusCheckedMul(elements, bits, &totalBits))
    return true;
  tilusVerifierError(v, op,
                     "the global tensor %s of %" PRId64 "-bit elements is "
                     "too large: its size in bits does not fit in 64 bits",
                     shape, bits);
  return false;
}

void tilusVerifyValueType(TilusVerifier *v, MlirOperation op, MlirType type,
                          int64_t blockSize) {
  if (tilusTypeIsAPtr(type)) {
    MlirType element = tilusPtrTypeGetElementType(type);
    if (mlirTypeIsNull(element)) {
      char *text = tilusPrintTypeToString(type);
      tilusVerifierError(v, op, "the pointer type '%s' has a parameter that "
                                "is not a type", text);
      free(text);
      return;
    }
    verifyElementType(v, op, element, "a pointer");
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
  bool shaped = !t.layout || dynamic || verifyLayout(v, op, &t, blockSize);
  if (shaped)
    verifySize(v, op, &t);
  tilusTensorTypeRelease(&t);
}
