//===- FuzzContext.c - What the MLIR harnesses share ---------------------===//

#include "FuzzContext.h"

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
  (void)ctx;
  return tilusSourceIsSafeToParse(mlirStringRefCreate(text, length), NULL);
}
