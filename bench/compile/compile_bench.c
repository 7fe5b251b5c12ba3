//===- compile_bench.c - In-process compile time of Tilus kernels ---------===//
//
// compile_bench [--runs N] [--target sm_XX] KERNEL.mlir...
//
// For each kernel, N times (default 20) in one process and one MLIR context:
// parse, lower-to-nvvm, and emit the PTX artifact, as an embedder would. The
// CPU time of each compile (CLOCK_PROCESS_CPUTIME_ID, so other processes
// do not count) is measured; the median and the minimum are printed, and the
// median of each phase (parse, lower-to-nvvm, PTX and artifact: the last is
// LLVM's O3 pipeline and NVPTX code generation), after one untimed warm-up
// compile (the first compile pays one-time initialization: LLVM's target
// registration, pass registration).
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Target.h"
#include "tilus-c/TargetInfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text)
    text[size] = '\0';
  fclose(f);
  return text;
}

static double cpuSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void countBytes(MlirStringRef text, void *userData) {
  *(size_t *)userData += text.length;
}

enum { kParse, kLower, kEmit, kPhases };
static const char *const kPhaseNames[kPhases] = {"parse", "lower", "ptx"};

// One whole compile; the artifact's size in *bytes and each phase's CPU
// seconds in phase[]. False on failure.
static bool compileOnce(MlirContext ctx, const char *source,
                        const TilusTargetInfo *target, size_t *bytes,
                        double phase[kPhases]) {
  double t0 = cpuSeconds();
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module))
    return false;
  double t1 = cpuSeconds();
  MlirOperation op = mlirModuleGetOperation(module);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  bool ok = mlirLogicalResultIsSuccess(tilusAddLowerToNVVMPipeline(
                mlirPassManagerGetAsOpPassManager(pm), target, NULL, NULL)) &&
            mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op));
  mlirPassManagerDestroy(pm);
  double t2 = cpuSeconds();
  *bytes = 0;
  ok = ok && mlirLogicalResultIsSuccess(tilusEmitArtifact(
                 op, mlirStringRefCreateFromCString(target->name), false,
                 countBytes, bytes));
  double t3 = cpuSeconds();
  mlirModuleDestroy(module);
  phase[kParse] = t1 - t0;
  phase[kLower] = t2 - t1;
  phase[kEmit] = t3 - t2;
  return ok;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int runs = 20;
  const char *targetName = "sm_90a";
  int first = 1;
  while (first < argc && !strncmp(argv[first], "--", 2)) {
    if (!strcmp(argv[first], "--runs") && first + 1 < argc)
      runs = atoi(argv[first + 1]);
    else if (!strcmp(argv[first], "--target") && first + 1 < argc)
      targetName = argv[first + 1];
    else
      break;
    first += 2;
  }
  const TilusTargetInfo *target =
      tilusTargetInfoLookup(targetName, strlen(targetName));
  if (first >= argc || runs < 1 || !target) {
    fprintf(stderr, "usage: compile_bench [--runs N] [--target sm_XX] "
                    "KERNEL.mlir...\n");
    return 2;
  }
  MlirContext ctx = tilusContextCreate();
  if (mlirContextIsNull(ctx)) {
    fprintf(stderr, "compile_bench: cannot load the Tilus dialect\n");
    return 1;
  }
  double *times = malloc(sizeof(double) * (size_t)runs * (1 + kPhases));
  double *phases = times + runs; // phases[p * runs + r]
  int status = 0;
  printf("%-40s %8s %8s", "kernel (in-process, CPU ms)", "median", "min");
  for (int p = 0; p < kPhases; ++p)
    printf(" %8s", kPhaseNames[p]);
  printf(" %8s\n", "bytes");
  for (int k = first; k < argc && times; ++k) {
    char *source = readFile(argv[k]);
    size_t bytes = 0;
    double phase[kPhases];
    if (!source || !compileOnce(ctx, source, target, &bytes, phase)) {
      fprintf(stderr, "compile_bench: cannot compile %s\n", argv[k]);
      free(source);
      status = 1;
      continue;
    }
    for (int r = 0; r < runs; ++r) {
      double start = cpuSeconds();
      compileOnce(ctx, source, target, &bytes, phase);
      times[r] = cpuSeconds() - start;
      for (int p = 0; p < kPhases; ++p)
        phases[p * runs + r] = phase[p];
    }
    qsort(times, (size_t)runs, sizeof(double), compareDoubles);
    const char *name = strrchr(argv[k], '/');
    printf("%-40s %8.1f %8.1f", name ? name + 1 : argv[k],
           1e3 * times[runs / 2], 1e3 * times[0]);
    for (int p = 0; p < kPhases; ++p) {
      qsort(phases + p * runs, (size_t)runs, sizeof(double), compareDoubles);
      printf(" %8.1f", 1e3 * phases[p * runs + runs / 2]);
    }
    printf(" %8zu\n", bytes);
    free(source);
  }
  free(times);
  mlirContextDestroy(ctx);
  return status;
}
