//===- axpy_host.c - The tutorial's host program --------------------------===//
//
// axpy-host ARTIFACT [N]: loads the artifact tilus-opt wrote for axpy.mlir,
// runs y = a * x + y on the GPU for N random elements (default 1,000,003:
// not a multiple of the 512-element tile, so the masked edge runs too), and
// compares every element with the same computation on the CPU. Links only
// libTilusRuntime (docs/tutorial.md). Exits 0 when all match, 1 on a
// mismatch or an error, 77 when there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"

#include <stdio.h>
#include <stdlib.h>

// Reports a failed runtime call; returns 1, or 77 when the machine has no GPU.
static int fail(const char *what, const TilusRuntimeError *err) {
  fprintf(stderr, "%s: %s: %s\n", what, tilusStatusGetName(err->code),
          err->message);
  return err->code == TilusStatusDriverNotFound ||
                 err->code == TilusStatusNoDevice
             ? 77
             : 1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s ARTIFACT [N]\n", argv[0]);
    return 2;
  }
  long n = argc == 3 ? strtol(argv[2], NULL, 10) : 1000003;
  if (n < 1 || n > 1L << 30) {
    fprintf(stderr, "N must be between 1 and 2^30\n");
    return 2;
  }
  const float a = 1.5f;

  // 1. The artifact: the manifest (kernels, block, grid, parameters) and PTX.
  TilusRuntimeError err;
  TilusArtifact *artifact = tilusArtifactLoadFile(argv[1], &err);
  if (!artifact)
    return fail("loading the artifact", &err);

  // 2. A runtime on device 0 and the kernel, loaded once (JIT-compiled now).
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (!rt) {
    tilusArtifactDestroy(artifact);
    return fail("creating the runtime", &err);
  }
  int status = 1;
  TilusDevicePtr dx = 0, dy = 0;
  size_t bytes = (size_t)n * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  TilusLoadedKernel *axpy = tilusRuntimeGetKernel(rt, artifact, "axpy", &err);
  if (!axpy) {
    status = fail("loading kernel axpy", &err);
    goto done;
  }
  if (!x || !y || !out) {
    fprintf(stderr, "out of host memory\n");
    goto done;
  }

  // 3. Random inputs (a fixed seed, so a failure can be reproduced).
  srand(12345);
  for (long i = 0; i < n; ++i) {
    x[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    y[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
  }
  if (tilusRuntimeMalloc(rt, bytes, &dx, &err) ||
      tilusRuntimeMalloc(rt, bytes, &dy, &err) ||
      tilusRuntimeCopyToDevice(rt, dx, x, bytes, &err) ||
      tilusRuntimeCopyToDevice(rt, dy, y, bytes, &err)) {
    status = fail("preparing device memory", &err);
    goto done;
  }

  // 4. The launch: one argument per parameter, in order. The grid,
  //    ceildiv(n, 512) blocks, comes from the manifest and the value of n.
  TilusArg args[] = {tilusArgPointer(dx), tilusArgPointer(dy),
                     tilusArgFloat(a), tilusArgInteger(n)};
  if (tilusRuntimeLaunchKernel(rt, axpy, args, 4, NULL, &err) ||
      tilusRuntimeSynchronize(rt, &err) ||
      tilusRuntimeCopyToHost(rt, out, dy, bytes, &err)) {
    status = fail("running axpy", &err);
    goto done;
  }

  // 5. The CPU reference. a * x + y in f32 on both sides; the GPU may fuse
  //    the multiply and add (one rounding instead of two), so allow one
  //    rounding of difference.
  long mismatches = 0;
  for (long i = 0; i < n; ++i) {
    float want = a * x[i] + y[i];
    float diff = out[i] - want;
    if (diff < 0)
      diff = -diff;
    if (diff > 1.2e-7f * (want < 0 ? -want : want) + 1e-7f) {
      if (mismatches++ < 5)
        fprintf(stderr, "y[%ld] = %.9g, expected %.9g\n", i, out[i], want);
    }
  }
  printf("axpy on %s: %ld elements, %ld mismatches\n",
         tilusRuntimeGetDeviceName(rt), n, mismatches);
  status = mismatches == 0 ? 0 : 1;

done:
  tilusRuntimeFree(rt, dx, NULL);
  tilusRuntimeFree(rt, dy, NULL);
  free(x);
  free(y);
  free(out);
  tilusRuntimeDestroy(rt);
  tilusArtifactDestroy(artifact);
  return status;
}
