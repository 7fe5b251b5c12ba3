//===- CompileTest.c - tilusCompile from a plain C program ----------------===//
//
// tilus-compile-test FILE [TARGET]: compiles FILE with tilusCompile (no MLIR
// object in sight), writes the artifact to stdout, each diagnostic line to
// stderr, and exits 1 on failure. The lit test compares the artifact with
// tilus-opt's and checks the diagnostics of bad input.
//
//===----------------------------------------------------------------------===//

#include "Utils/ReadFile.h"
#include "tilus-c/Target.h"

#include <stdio.h>
#include <stdlib.h>

static void writeTo(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: tilus-compile-test FILE [TARGET]\n");
    return 2;
  }
  size_t length = 0;
  FILE *in = fopen(argv[1], "rb");
  char *source = in ? tilusReadStream(in, &length) : NULL;
  if (in)
    fclose(in);
  if (!source) {
    fprintf(stderr, "tilus-compile-test: cannot read '%s'\n", argv[1]);
    return 1;
  }
  TilusCompileOptions options = tilusCompileOptionsDefault();
  options.sourceName = argv[1];
  options.target = argc == 3 ? argv[2] : NULL;
  MlirLogicalResult result =
      tilusCompile(mlirStringRefCreate(source, length), &options, writeTo,
                   stdout, writeTo, stderr);
  free(source);
  return mlirLogicalResultIsSuccess(result) ? 0 : 1;
}
