//===- copy_bench.c - Time the Tilus copy kernel --------------------------===//
//
//   copy_bench ARTIFACT ELEMENTS RUNS
//
// Copies ELEMENTS f32 with the copy_f32 kernel (test/gpu/kernels) RUNS times,
// flushing L2 before each run (a 256 MiB memset), timing each launch with
// events, and prints the median time and bandwidth (bytes read + written).
// bench/copy/bench.py runs it beside torch's copy and prints the ratio.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>

static int compareFloats(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != TilusStatusSuccess) {                                        \
      fprintf(stderr, "copy_bench: %s\n", err.message);                       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: copy_bench ARTIFACT ELEMENTS RUNS\n");
    return 2;
  }
  int64_t n = atoll(argv[2]);
  int runs = atoi(argv[3]);
  TilusRuntimeError err;
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (!rt) {
    fprintf(stderr, "copy_bench: %s\n", err.message);
    return 77;
  }
  TilusArtifact *artifact = tilusArtifactLoadFile(argv[1], &err);
  if (!artifact) {
    fprintf(stderr, "copy_bench: %s\n", err.message);
    return 1;
  }
  size_t bytes = (size_t)n * 4, flushBytes = (size_t)256 << 20;
  TilusDevicePtr src, dst, flush;
  CHECK(tilusRuntimeMalloc(rt, bytes, &src, &err));
  CHECK(tilusRuntimeMalloc(rt, bytes, &dst, &err));
  CHECK(tilusRuntimeMalloc(rt, flushBytes, &flush, &err));
  CHECK(tilusRuntimeMemset(rt, src, 1, bytes, &err));
  void *start, *end;
  CHECK(tilusRuntimeEventCreate(rt, &start, &err));
  CHECK(tilusRuntimeEventCreate(rt, &end, &err));
  TilusArg args[] = {tilusArgPointer(src), tilusArgPointer(dst),
                     tilusArgInteger(n)};
  CHECK(tilusRuntimeLaunch(rt, artifact, "copy_f32", args, 3, NULL, &err));
  float *times = malloc(sizeof(float) * (size_t)runs);
  for (int r = 0; r < runs; ++r) {
    CHECK(tilusRuntimeMemset(rt, flush, (uint8_t)r, flushBytes, &err));
    CHECK(tilusRuntimeEventRecord(rt, start, NULL, &err));
    CHECK(tilusRuntimeLaunch(rt, artifact, "copy_f32", args, 3, NULL, &err));
    CHECK(tilusRuntimeEventRecord(rt, end, NULL, &err));
    CHECK(tilusRuntimeSynchronize(rt, &err));
    CHECK(tilusRuntimeEventElapsed(rt, start, end, &times[r], &err));
  }
  qsort(times, (size_t)runs, sizeof(float), compareFloats);
  float median = times[runs / 2];
  printf("tilus copy_f32: %lld elements, median %.4f ms, %.1f GB/s\n",
         (long long)n, median, 2.0 * (double)bytes / (median * 1e-3) / 1e9);
  free(times);
  tilusArtifactDestroy(artifact);
  tilusRuntimeDestroy(rt);
  return 0;
}
