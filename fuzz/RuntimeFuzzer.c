//===- RuntimeFuzzer.c - libFuzzer harness for the runtime's parsers ------===//
//
// No GPU and no driver: the input is read as a kernel artifact
// (tilusArtifactParse) and its first line as a grid expression
// (tilusAffineExprEvaluate, with several sets of symbol values). For an
// artifact that parses, every accessor runs and every kernel goes through
// tilusArtifactCheckLaunch with arguments that suit its parameters; when a
// launch check succeeds its grid must equal the grid expressions evaluated
// on their own with the same symbols (abort() otherwise).
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Artifacts carry PTX, so they are longer than the other harnesses' inputs.
enum { MAX_INPUT = 64 * 1024, MAX_ARGS = 64 };

// Symbol values at the edges of int64 and of the grid limits.
static const int64_t kValues[] = {0,         1,         -1,       2,
                                  7,         100,       65535,    65536,
                                  INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN,
                                  (int64_t)1 << 32,     -128,     255};
enum { NUM_VALUES = sizeof(kValues) / sizeof(kValues[0]) };

static void evaluateExpression(const char *text) {
  int64_t symbols[8];
  for (int set = 0; set < 4; ++set) {
    for (int k = 0; k < 8; ++k)
      symbols[k] = kValues[(set * 5 + k * 3) % NUM_VALUES];
    int64_t value = 0;
    TilusRuntimeError err;
    err.message[0] = '\0';
    TilusStatus status =
        tilusAffineExprEvaluate(text, symbols, 8, &value, &err);
    if (status != TilusStatusSuccess && err.message[0] == '\0') {
      fprintf(stderr, "runtime fuzzer: grid error without a message\n");
      abort();
    }
  }
}

// An argument for `param`; `choice` picks its value and, rarely, a
// mismatched kind (which the check must refuse cleanly).
static TilusArg argumentFor(TilusParamInfo param, unsigned choice) {
  int64_t value = kValues[choice % NUM_VALUES];
  if (choice % 17 == 16)
    return tilusArgFloat(1.5);
  switch (param.kind) {
  case TilusParamPointer:
    return tilusArgPointer(choice % 5 == 4 ? 0 : 0x1000);
  case TilusParamFloat:
    if (choice % 3 == 0)
      return tilusArgF16Bits((uint16_t)value);
    if (choice % 3 == 1)
      return tilusArgBF16Bits((uint16_t)value);
    return tilusArgFloat((double)value);
  case TilusParamInteger:
    break;
  }
  return tilusArgInteger(value);
}

static void checkKernel(const TilusArtifact *artifact, int k,
                        const uint8_t *data, size_t size) {
  const char *name = tilusKernelGetName(artifact, k);
  if (tilusArtifactFindKernel(artifact, name) != k) {
    fprintf(stderr, "runtime fuzzer: kernel %d is not found by its name\n", k);
    abort();
  }
  uint32_t block[3];
  tilusKernelGetBlock(artifact, k, block);
  (void)tilusKernelGetSharedBytes(artifact, k);
  (void)tilusKernelGetWorkspaceBytes(artifact, k);
  int numDims = tilusKernelGetNumGridDims(artifact, k);
  int numParams = tilusKernelGetNumParams(artifact, k);
  if (numDims < 1 || numDims > 3 || numParams < 0) {
    fprintf(stderr, "runtime fuzzer: kernel %d has %d grid dims, %d params\n",
            k, numDims, numParams);
    abort();
  }
  if (numParams > MAX_ARGS)
    return;
  TilusArg args[MAX_ARGS];
  int64_t symbols[MAX_ARGS];
  for (int i = 0; i < numParams; ++i) {
    TilusParamInfo param = tilusKernelGetParam(artifact, k, i);
    (void)strlen(param.typeName);
    (void)strlen(param.elementType);
    unsigned choice = size ? data[(size_t)(k * 31 + i) % size] : 0;
    args[i] = argumentFor(param, choice + (unsigned)i);
    symbols[i] = args[i].kind == TilusArgInteger ? args[i].value.integer : 0;
  }
  TilusLaunchConfig config;
  TilusRuntimeError err;
  TilusStatus status =
      tilusArtifactCheckLaunch(artifact, name, args, numParams, &config, &err);
  if (status != TilusStatusSuccess)
    return;
  for (int d = 0; d < 3; ++d) {
    int64_t value = 1;
    if (d < numDims) {
      const char *text = tilusKernelGetGridExpr(artifact, k, d);
      if (tilusAffineExprEvaluate(text, symbols, numParams, &value, &err) !=
          TilusStatusSuccess) {
        fprintf(stderr, "runtime fuzzer: grid '%s' checked but fails: %s\n",
                text, err.message);
        abort();
      }
    }
    if (value != (int64_t)config.grid[d] || config.kernel != k ||
        memcmp(config.block, block, sizeof(block)) != 0) {
      fprintf(stderr, "runtime fuzzer: the launch check's grid or block "
                      "differs from the artifact's\n");
      abort();
    }
  }
  // The wrong argument count is refused.
  int wrongCount = numParams < MAX_ARGS ? numParams + 1 : numParams - 1;
  if (tilusArtifactCheckLaunch(artifact, name, args, wrongCount, NULL, &err) ==
      TilusStatusSuccess) {
    fprintf(stderr, "runtime fuzzer: a wrong argument count is accepted\n");
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT)
    return 0;
  // The artifact parser is length-based: hand it an unterminated copy so
  // that ASan sees any read past the end.
  char *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  TilusRuntimeError err;
  err.message[0] = '\0';
  TilusArtifact *artifact = tilusArtifactParse(copy, size, &err);
  free(copy);
  if (artifact) {
    (void)tilusArtifactGetTarget(artifact);
    (void)tilusArtifactGetImageKind(artifact);
    size_t imageSize = 0;
    (void)tilusArtifactGetImage(artifact, &imageSize);
    int numKernels = tilusArtifactGetNumKernels(artifact);
    for (int k = 0; k < numKernels; ++k)
      checkKernel(artifact, k, data, size);
    (void)tilusArtifactFindKernel(artifact, "");
    tilusArtifactDestroy(artifact);
  } else if (err.message[0] == '\0') {
    fprintf(stderr, "runtime fuzzer: parse error without a message\n");
    abort();
  }

  // The first line as a grid expression (NUL-terminated, as the API takes).
  const uint8_t *end = memchr(data, '\n', size);
  size_t length = end ? (size_t)(end - data) : size;
  char *line = malloc(length + 1);
  if (!line)
    return 0;
  memcpy(line, data, length);
  line[length] = '\0';
  evaluateExpression(line);
  free(line);
  return 0;
}
