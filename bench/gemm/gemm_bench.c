//===- gemm_bench.c - Time one Tilus f16 matmul ---------------------------===//
//
//   gemm_bench ARTIFACT BM BN BK M N K RUNS
//
// Runs `matmul` of ARTIFACT (examples/python/matmul_pipelined_f16.py, or
// examples/matmul_pipelined_f16.mlir) on M x N x K with f16 inputs of small
// integers RUNS times, flushing L2 (a 256 MiB fill) before each, and prints
// the median time (CUDA events) and TFLOP/s. bench/gemm/bench.py runs it
// beside torch's matmul (cuBLAS).
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
  if (argc != 9) {
    fprintf(stderr, "usage: gemm_bench ARTIFACT BM BN BK M N K RUNS\n");
    return 2;
  }
  int64_t BN = atoll(argv[3]), BK = atoll(argv[4]);
  int64_t M = atoll(argv[5]), N = atoll(argv[6]), K = atoll(argv[7]);
  int runs = atoi(argv[8]);
  (void)argv[2];
  TilusRuntimeError err;
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (!rt) {
    fprintf(stderr, "gemm_bench: %s\n", err.message);
    return 77;
  }
  TilusArtifact *artifact = tilusArtifactLoadFile(argv[1], &err);
  if (!artifact) {
    fprintf(stderr, "gemm_bench: %s\n", err.message);
    return 1;
  }
  size_t flushBytes = (size_t)256 << 20;
  TilusDevicePtr a, b, c, flush;
  // 0x3c00 is 1.0 in f16: a memset of 0x3c bytes gives 1.0039 (0x3c3c),
  // finite and harmless for timing.
  if (tilusRuntimeMalloc(rt, (size_t)(M * K) * 2, &a, &err) ||
      tilusRuntimeMalloc(rt, (size_t)(K * N) * 2, &b, &err) ||
      tilusRuntimeMalloc(rt, (size_t)(M * N) * 2, &c, &err) ||
      tilusRuntimeMalloc(rt, flushBytes, &flush, &err) ||
      tilusRuntimeMemset(rt, a, 0x3c, (size_t)(M * K) * 2, &err) ||
      tilusRuntimeMemset(rt, b, 0x3c, (size_t)(K * N) * 2, &err)) {
    fprintf(stderr, "gemm_bench: %s\n", err.message);
    return 1;
  }
  TilusArg args[] = {tilusArgPointer(a), tilusArgPointer(b), tilusArgPointer(c),
                     tilusArgInteger(M), tilusArgInteger(N / BN),
                     tilusArgInteger(K / BK)};
  if (tilusRuntimeLaunch(rt, artifact, "matmul", args, 6, NULL, &err) ||
      tilusRuntimeSynchronize(rt, &err)) {
    fprintf(stderr, "gemm_bench: %s\n", err.message);
    return 1;
  }
  void *start, *end;
  tilusRuntimeEventCreate(rt, &start, &err);
  tilusRuntimeEventCreate(rt, &end, &err);
  float *times = malloc(sizeof(float) * (size_t)runs);
  for (int r = 0; r < runs; ++r) {
    tilusRuntimeMemset(rt, flush, (uint8_t)r, flushBytes, &err);
    tilusRuntimeEventRecord(rt, start, NULL, &err);
    tilusRuntimeLaunch(rt, artifact, "matmul", args, 6, NULL, &err);
    tilusRuntimeEventRecord(rt, end, NULL, &err);
    tilusRuntimeSynchronize(rt, &err);
    tilusRuntimeEventElapsed(rt, start, end, &times[r], &err);
  }
  qsort(times, (size_t)runs, sizeof(float), compareFloats);
  float median = times[runs / 2];
  printf("median %.4f ms, %.1f TFLOP/s\n", median,
         2.0 * (double)M * (double)N * (double)K / (median * 1e-3) / 1e12);
  free(times);
  tilusArtifactDestroy(artifact);
  tilusRuntimeDestroy(rt);
  return 0;
}
