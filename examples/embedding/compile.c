//===- compile.c - The whole compiler in one call ------------------------===//
//
// tilus-embed-compile INPUT.mlir TARGET OUT.tilus
//
// tilusCompile (tilus-c/Target.h): no MLIR object is handled, the
// diagnostics arrive as lines. Links only libTilus.so. Written in the common
// subset of C and C++, so that test/Package/consumer.test also builds it as
// C++ and so checks that the installed headers serve C++ embedders.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Target.h"
#include "tilus-c/Version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A growing byte buffer that tilusCompile's callbacks append to.
typedef struct {
  char *data;
  size_t size, capacity;
  int outOfMemory;
} Buffer;

static void append(MlirStringRef text, void *userData) {
  Buffer *b = (Buffer *)userData;
  if (b->outOfMemory)
    return;
  if (b->size + text.length > b->capacity) {
    size_t capacity = (b->size + text.length) * 2 + 64;
    char *data = (char *)realloc(b->data, capacity);
    if (!data) {
      b->outOfMemory = 1;
      return;
    }
    b->data = data;
    b->capacity = capacity;
  }
  memcpy(b->data + b->size, text.data, text.length);
  b->size += text.length;
}

// The whole file in a Buffer; 0 on success.
static int readFile(const char *path, Buffer *out) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return 1;
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
    append(mlirStringRefCreate(chunk, n), out);
  int failed = ferror(f) || out->outOfMemory;
  fclose(f);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s INPUT.mlir TARGET OUT.tilus\n", argv[0]);
    return 2;
  }
  // A program built against one version and run with another is told so.
  if (strcmp(tilusGetVersion(), TILUS_VERSION_STRING) != 0) {
    fprintf(stderr, "built with Tilus " TILUS_VERSION_STRING ", running with %s\n",
            tilusGetVersion());
    return 1;
  }
  Buffer source = {NULL, 0, 0, 0}, artifact = {NULL, 0, 0, 0},
         diagnostics = {NULL, 0, 0, 0};
  if (readFile(argv[1], &source)) {
    fprintf(stderr, "cannot read '%s'\n", argv[1]);
    return 1;
  }
  TilusCompileOptions options = tilusCompileOptionsDefault();
  options.target = argv[2];
  options.sourceName = argv[1];
  MlirLogicalResult result =
      tilusCompile(mlirStringRefCreate(source.data, source.size), &options,
                   append, &artifact, append, &diagnostics);
  fwrite(diagnostics.data, 1, diagnostics.size, stderr);
  int status = mlirLogicalResultIsFailure(result) || artifact.outOfMemory ||
               diagnostics.outOfMemory;
  if (!status) {
    FILE *out = fopen(argv[3], "wb");
    status = !out || fwrite(artifact.data, 1, artifact.size, out) != artifact.size;
    if (out && fclose(out) != 0)
      status = 1;
  }
  free(source.data);
  free(artifact.data);
  free(diagnostics.data);
  return status;
}
