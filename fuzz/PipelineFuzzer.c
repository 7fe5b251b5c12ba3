//===- PipelineFuzzer.c - libFuzzer harness: MLIR text to PTX in process --===//
//
// The input is MLIR text. It is parsed as a module (MLIR's own verifier runs
// on it), lowered with lower-to-nvvm (tilus-verify, tilus-plan-shared,
// tilus-to-gpu and the upstream passes) for one of the targets, and written
// as a kernel artifact. Errors anywhere are fine: they must be diagnostics,
// which are swallowed. Crashes, sanitizer reports and hangs are findings, and
// so is an artifact that the runtime's parser refuses: the compiler and the
// runtime must agree on the format.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"
#include "Utils/StringBuffer.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Runtime.h"
#include "tilus-c/Target.h"
#include "tilus-c/TargetInfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Large inputs only slow the fuzzer down (LLVM's O3 pipeline and NVPTX
// code generation run on every input that lowers).
enum { MAX_INPUT = 16 * 1024, RUNS_PER_CONTEXT = 2000 };

// tilusEmitArtifact writes in pieces.
static void append(MlirStringRef piece, void *userData) {
  tilusStringBufferAppend(userData, piece.data, piece.length);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT)
    return 0;
  MlirContext ctx = tilusFuzzGetContext(RUNS_PER_CONTEXT);
  // The target follows from the input, so a finding reproduces from its file.
  size_t numTargets = 0;
  const TilusTargetInfo *targets = tilusTargetInfoGetAll(&numTargets);
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (size_t k = 0; k < size; ++k)
    hash = (hash ^ data[k]) * 1099511628211ull;
  const TilusTargetInfo *target = &targets[hash % numTargets];

  // MLIR's lexer expects a NUL after the buffer (MemoryBuffer's guarantee);
  // without one it reads past libFuzzer's copy of the input.
  char *source = malloc(size + 1);
  if (!source)
    return 0;
  memcpy(source, data, size);
  source[size] = '\0';
  // As in tilus-opt: text that crashes MLIR 22's parser is refused first.
  MlirModule parsed = {NULL};
  if (tilusFuzzParserMayTake(ctx, source, size))
    parsed = mlirModuleCreateParse(ctx, mlirStringRefCreate(source, size));
  free(source);
  if (mlirModuleIsNull(parsed))
    return 0;
  MlirOperation module = mlirModuleGetOperation(parsed);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  bool ok = mlirLogicalResultIsSuccess(tilusAddLowerToNVVMPipeline(
      mlirPassManagerGetAsOpPassManager(pm), target, NULL, NULL));
  if (!ok) {
    fprintf(stderr, "pipeline fuzzer: cannot build lower-to-nvvm\n");
    abort();
  }
  ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  mlirPassManagerDestroy(pm);
  if (ok) {
    TilusStringBuffer artifact = {NULL, 0, 0, false};
    MlirStringRef chip = mlirStringRefCreateFromCString(target->name);
    if (mlirLogicalResultIsSuccess(
            tilusEmitArtifact(module, chip, false, append, &artifact)) &&
        !artifact.failed && artifact.data) {
      TilusRuntimeError err;
      TilusArtifact *loaded =
          tilusArtifactParse(artifact.data, artifact.length, &err);
      if (!loaded) {
        fprintf(stderr,
                "pipeline fuzzer: the runtime refuses an emitted artifact: "
                "%s\n",
                err.message);
        abort();
      }
      tilusArtifactDestroy(loaded);
    }
    tilusStringBufferRelease(&artifact);
  }
  mlirModuleDestroy(parsed);
  return 0;
}
