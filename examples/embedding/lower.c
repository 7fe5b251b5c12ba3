//===- lower.c - Embedding the Tilus compiler, step by step ---------------===//
//
// tilus-embed-lower INPUT.mlir TARGET OUT.ptx OUT.tilus
//
// The fine-grained C API, as a compiler that embeds Tilus uses it: a context
// with the Tilus dialect, parse, verify, lower with a pass manager of one's
// own, then PTX and the artifact. Links only libTilus.so (which also exports
// the MLIR C API). docs/embedding.md walks through it.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "tilus-c/Diagnostics.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Target.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Verifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void writeToFile(MlirStringRef text, void *file) {
  fwrite(text.data, 1, text.length, (FILE *)file);
}

// Every diagnostic as one line "file:line:col: error: message" on stderr.
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *sourceName) {
  tilusDiagnosticWrite(diagnostic, sourceName, writeToFile, stderr);
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *data = NULL;
  size_t size = 0, capacity = 0, got;
  do {
    if (size == capacity) {
      capacity = capacity ? 2 * capacity : 65536;
      char *grown = realloc(data, capacity);
      if (!grown) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = grown;
    }
    got = fread(data + size, 1, capacity - size, f);
    size += got;
  } while (got > 0);
  fclose(f);
  *length = size;
  return data;
}

// Writes the module's PTX (ptxOnly) or artifact to `path`.
static int emit(MlirOperation module, const char *target, bool ptxOnly,
                const char *path) {
  FILE *out = fopen(path, "wb");
  if (!out) {
    fprintf(stderr, "cannot write '%s'\n", path);
    return 1;
  }
  MlirLogicalResult emitted = tilusEmitArtifact(
      module, mlirStringRefCreateFromCString(target), ptxOnly, writeToFile,
      out);
  return fclose(out) == 0 && mlirLogicalResultIsSuccess(emitted) ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s INPUT.mlir TARGET OUT.ptx OUT.tilus\n",
            argv[0]);
    return 2;
  }
  const char *input = argv[1], *targetName = argv[2];
  const TilusTargetInfo *target =
      tilusTargetInfoLookup(targetName, strlen(targetName));
  if (!target) {
    fprintf(stderr, "unsupported target '%s'\n", targetName);
    return 2;
  }
  size_t length = 0;
  char *source = readFile(input, &length);
  if (!source) {
    fprintf(stderr, "cannot read '%s'\n", input);
    return 1;
  }

  MlirContext ctx = tilusContextCreate();
  if (mlirContextIsNull(ctx)) {
    fprintf(stderr, "cannot load the Tilus dialect\n");
    free(source);
    return 1;
  }
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, (void *)input,
                                     NULL);
  int status = 1;
  MlirStringRef text = mlirStringRefCreate(source, length);
  // Untrusted text first goes through the parser-crash check (Dialect.h).
  MlirModule module = mlirLogicalResultIsSuccess(tilusSourceCheck(ctx, text))
                          ? mlirModuleCreateParse(ctx, text)
                          : (MlirModule){NULL};
  if (!mlirModuleIsNull(module)) {
    MlirOperation op = mlirModuleGetOperation(module);
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    // tilus-verify is the pipeline's first pass; verifying here as well
    // reports bad input before any pass runs.
    if (mlirLogicalResultIsSuccess(tilusVerify(op)) &&
        mlirLogicalResultIsSuccess(tilusAddLowerToNVVMPipeline(
            mlirPassManagerGetAsOpPassManager(pm), target, NULL, NULL)) &&
        mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op)))
      status = emit(op, target->name, true, argv[3]) ||
               emit(op, target->name, false, argv[4]);
    mlirPassManagerDestroy(pm);
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);
  free(source);
  return status;
}
