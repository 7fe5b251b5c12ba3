//===- VerifierReport.c - How the verifier reports -------------------------===//
//
// Below the verifier's checks (VerifyOps.c, VerifyTypes.c, Verifier.c): the
// error format they share.
//
//===----------------------------------------------------------------------===//

#include "VerifierInternal.h"
#include "mlir-c/Diagnostics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

void tilusVerifierError(TilusVerifier *v, MlirOperation op, const char *format,
                        ...) {
  char message[1024];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  int n = snprintf(message, sizeof(message), "'%.*s' op ", (int)name.length,
                   name.data);
  va_list args;
  va_start(args, format);
  vsnprintf(message + n, sizeof(message) - (size_t)n, format, args);
  va_end(args);
  mlirEmitError(mlirOperationGetLocation(op), message);
  v->numErrors++;
}

void tilusFormatShape(char *buffer, size_t size, intptr_t rank,
                      const int64_t *shape) {
  int n = snprintf(buffer, size, "[");
  for (intptr_t d = 0; d < rank && (size_t)n < size; ++d)
    n += snprintf(buffer + n, size - (size_t)n, "%s%" PRId64, d ? ", " : "",
                  shape[d]);
  if ((size_t)n < size)
    snprintf(buffer + n, size - (size_t)n, "]");
}

bool tilusVerifierDecode(TilusVerifier *v, MlirType type, TilusTensorType *out,
                         TilusLayoutError *err) {
  const TilusTensorType *t = tilusTypeCacheGetTensor(v->types, type, err);
  if (!t)
    return false;
  *out = *t;
  // A copy of the layout keeps the callers' release calls as they are; a
  // copy is a few factors, where decoding prints and parses the type.
  if (t->layout && !(out->layout = tilusLayoutClone(t->layout))) {
    if (err)
      snprintf(err->message, sizeof(err->message), "out of memory");
    return false;
  }
  return true;
}
