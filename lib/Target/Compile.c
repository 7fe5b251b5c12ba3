//===- Compile.c - The whole compiler in one call -------------------------===//
//
// tilusCompile: a context of its own, then what tilus-opt does for
// `--lower-to-nvvm --emit-artifact`, with every diagnostic written as a line
// for the caller. The output is buffered so that a failure writes nothing.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Target.h"

#include "Utils/StringBuffer.h"
#include "mlir-c/Pass.h"
#include "tilus-c/Diagnostics.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Verifier.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *sourceName;
  MlirStringCallback callback;
  void *userData;
} Reporter;

static MlirLogicalResult report(MlirDiagnostic diagnostic, void *userData) {
  Reporter *r = userData;
  if (r->callback)
    tilusDiagnosticWrite(diagnostic, r->sourceName, r->callback, r->userData);
  return mlirLogicalResultSuccess();
}

// A message without a location, as one line.
static void reportText(const Reporter *r, MlirStringRef message) {
  if (!r->callback)
    return;
  TilusStringBuffer line = {0};
  tilusStringBufferAppend(&line, "error: ", 7);
  tilusStringBufferAppend(&line, message.data, message.length);
  tilusStringBufferAppend(&line, "\n", 1);
  if (!line.failed)
    r->callback(mlirStringRefCreate(line.data, line.length), r->userData);
  tilusStringBufferRelease(&line);
}

static void reportLine(const Reporter *r, const char *message) {
  reportText(r, mlirStringRefCreateFromCString(message));
}

// Pipeline errors come whole from tilusAddLowerToNVVMPipeline's callback.
static void reportPipelineError(MlirStringRef message, void *userData) {
  reportText(userData, message);
}

static void append(MlirStringRef piece, void *userData) {
  tilusStringBufferAppend(userData, piece.data, piece.length);
}

MlirLogicalResult tilusCompile(MlirStringRef source,
                               const TilusCompileOptions *options,
                               MlirStringCallback output, void *outputUserData,
                               MlirStringCallback onDiagnostic,
                               void *diagnosticUserData) {
  TilusCompileOptions defaults = tilusCompileOptionsDefault();
  if (!options)
    options = &defaults;
  Reporter reporter = {options->sourceName, onDiagnostic, diagnosticUserData};
  const TilusTargetInfo *target =
      options->target
          ? tilusTargetInfoLookup(options->target, strlen(options->target))
          : tilusTargetInfoGetDefault();
  if (!target) {
    char names[64], message[192];
    tilusTargetInfoFormatNames(names, sizeof(names));
    snprintf(message, sizeof(message), "unsupported target '%.64s'; use %s",
             options->target, names);
    reportLine(&reporter, message);
    return mlirLogicalResultFailure();
  }

  MlirContext ctx = tilusContextCreate();
  if (mlirContextIsNull(ctx)) {
    reportLine(&reporter, "cannot load the Tilus dialect");
    return mlirLogicalResultFailure();
  }
  mlirContextAttachDiagnosticHandler(ctx, report, &reporter, NULL);
  MlirLogicalResult result = tilusSourceCheck(ctx, source);
  MlirModule module = {NULL};
  if (mlirLogicalResultIsSuccess(result)) {
    module = mlirModuleCreateParse(ctx, source);
    if (mlirModuleIsNull(module))
      result = mlirLogicalResultFailure();
  }
  if (mlirLogicalResultIsSuccess(result))
    result = tilusVerify(mlirModuleGetOperation(module));
  if (mlirLogicalResultIsSuccess(result)) {
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    result = tilusAddLowerToNVVMPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                         target, reportPipelineError,
                                         &reporter);
    if (mlirLogicalResultIsSuccess(result))
      result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
    mlirPassManagerDestroy(pm);
  }
  TilusStringBuffer text = {0};
  if (mlirLogicalResultIsSuccess(result))
    result = tilusEmitArtifact(mlirModuleGetOperation(module),
                               mlirStringRefCreateFromCString(target->name),
                               options->ptxOnly, append, &text);
  if (mlirLogicalResultIsSuccess(result) && text.failed) {
    reportLine(&reporter, "out of memory while writing the artifact");
    result = mlirLogicalResultFailure();
  }
  if (mlirLogicalResultIsSuccess(result))
    output(mlirStringRefCreate(text.data, text.length), outputUserData);
  tilusStringBufferRelease(&text);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return result;
}
