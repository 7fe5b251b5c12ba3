//===- inspect.c - Reading an artifact with the runtime alone -------------===//
//
// tilus-embed-inspect ARTIFACT.tilus
//
// What a serving stack links: libTilusRuntime.so only (no MLIR, no CUDA at
// build time). Prints each kernel's launch shape and parameters; launching
// needs a GPU (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s ARTIFACT.tilus\n", argv[0]);
    return 2;
  }
  TilusRuntimeError err;
  TilusArtifact *artifact = tilusArtifactLoadFile(argv[1], &err);
  if (!artifact) {
    fprintf(stderr, "%s: %s\n", tilusStatusGetName(err.code), err.message);
    return 1;
  }
  printf("target %s\n", tilusArtifactGetTarget(artifact));
  for (int k = 0; k < tilusArtifactGetNumKernels(artifact); ++k) {
    uint32_t block[3];
    tilusKernelGetBlock(artifact, k, block);
    printf("kernel %s block %u shared %u params", tilusKernelGetName(artifact, k),
           block[0], tilusKernelGetSharedBytes(artifact, k));
    for (int p = 0; p < tilusKernelGetNumParams(artifact, k); ++p) {
      TilusParamInfo info = tilusKernelGetParam(artifact, k, p);
      printf(" %s%s%s", info.typeName, info.elementType[0] ? " " : "",
             info.elementType);
    }
    printf("\n");
  }
  tilusArtifactDestroy(artifact);
  return 0;
}
