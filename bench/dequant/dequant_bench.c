//===- dequant_bench.c - Time the dequantization kernels ------------------===//
//
//   dequant_bench ARTIFACT_DIR ELEMENTS RUNS
//
// For each weight type, runs dequant_<type>.sm_90a.tilus (examples/python/
// dequant.py) on ELEMENTS packed weights RUNS times, flushing L2
// before each run, and prints the median time and the bandwidth counting
// bytes read plus bytes written. bench/dequant/bench.py adds torch's copy.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>

static int compareFloats(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: dequant_bench ARTIFACT_DIR ELEMENTS RUNS\n");
    return 2;
  }
  int64_t n = atoll(argv[2]);
  int runs = atoi(argv[3]);
  static const struct {
    const char *name;
    int bits;
  } types[] = {{"u1", 1}, {"u2", 2}, {"u3", 3},     {"u4", 4},
               {"i4", 4}, {"e2m1", 4}, {"u5", 5},   {"i6", 6},
               {"f6e3m2", 6}, {"u7", 7}, {"u8", 8}, {"e4m3", 8}};
  TilusRuntimeError err;
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (!rt) {
    fprintf(stderr, "dequant_bench: %s\n", err.message);
    return 77;
  }
  size_t flushBytes = (size_t)256 << 20;
  TilusDevicePtr src, dst, flush;
  if (tilusRuntimeMalloc(rt, (size_t)n, &src, &err) ||
      tilusRuntimeMalloc(rt, (size_t)n * 2, &dst, &err) ||
      tilusRuntimeMalloc(rt, flushBytes, &flush, &err) ||
      tilusRuntimeMemset(rt, src, 0x5a, (size_t)n, &err)) {
    fprintf(stderr, "dequant_bench: %s\n", err.message);
    return 1;
  }
  void *start, *end;
  tilusRuntimeEventCreate(rt, &start, &err);
  tilusRuntimeEventCreate(rt, &end, &err);
  float *times = malloc(sizeof(float) * (size_t)runs);
  printf("%-8s %10s %12s\n", "type", "median ms", "GB/s");
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); ++k) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/dequant_%s.sm_90a.tilus", argv[1],
             types[k].name);
    TilusArtifact *artifact = tilusArtifactLoadFile(path, &err);
    if (!artifact) {
      fprintf(stderr, "dequant_bench: %s\n", err.message);
      return 1;
    }
    TilusArg args[] = {tilusArgPointer(src), tilusArgPointer(dst),
                       tilusArgInteger(n)};
    if (tilusRuntimeLaunch(rt, artifact, "dequant", args, 3, NULL, &err)) {
      fprintf(stderr, "dequant_bench: %s\n", err.message);
      return 1;
    }
    for (int r = 0; r < runs; ++r) {
      tilusRuntimeMemset(rt, flush, (uint8_t)r, flushBytes, &err);
      tilusRuntimeEventRecord(rt, start, NULL, &err);
      tilusRuntimeLaunch(rt, artifact, "dequant", args, 3, NULL, &err);
      tilusRuntimeEventRecord(rt, end, NULL, &err);
      tilusRuntimeSynchronize(rt, &err);
      tilusRuntimeEventElapsed(rt, start, end, &times[r], &err);
    }
    qsort(times, (size_t)runs, sizeof(float), compareFloats);
    float median = times[runs / 2];
    double bytes = (double)n * types[k].bits / 8 + 2.0 * (double)n;
    printf("%-8s %10.4f %12.1f\n", types[k].name, median,
           bytes / (median * 1e-3) / 1e9);
    tilusArtifactDestroy(artifact);
  }
  free(times);
  tilusRuntimeDestroy(rt);
  return 0;
}
