//===- FuzzContext.c - What the MLIR harnesses share ---------------------===//

#include "FuzzContext.h"
#include "InputCheck.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Malformed inputs are the common case: their diagnostics are expected and
// would only flood the fuzzer's output.
static MlirLogicalResult swallow(MlirDiagnostic diagnostic, void *userData) {
  (void)diagnostic;
  (void)userData;
  return mlirLogicalResultSuccess();
}

static MlirContext create(void) {
  MlirContext ctx = mlirContextCreateWithThreading(false);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, swallow, NULL, NULL);
  if (mlirLogicalResultIsFailure(tilusDialectLoad(ctx))) {
    fprintf(stderr, "fuzz: cannot load the Tilus dialect\n");
    abort();
  }
  return ctx;
}

MlirContext tilusFuzzGetContext(int runsPerContext) {
  static MlirContext ctx = {NULL};
  static int runs = 0;
  if (!mlirContextIsNull(ctx) && ++runs >= runsPerContext) {
    mlirContextDestroy(ctx);
    ctx.ptr = NULL;
  }
  if (mlirContextIsNull(ctx)) {
    ctx = create();
    runs = 0;
  }
  return ctx;
}

bool tilusFuzzParserMayTake(MlirContext ctx, const char *text, size_t length) {
  if (!tilusOptCheckInput(ctx, text, length))
    return false;
  char *plain = malloc(length ? length : 1);
  if (!plain)
    return false;
  size_t n = 0;
  for (size_t i = 0; i < length; ++i) {
    if (text[i] == '/' && i + 1 < length && text[i + 1] == '/') {
      while (i + 1 < length && text[i + 1] != '\n')
        ++i;
      continue;
    }
    if (text[i] != '\0')
      plain[n++] = text[i];
  }
  bool ok = tilusOptCheckInput(ctx, plain, n);
  free(plain);
  return ok;
}
