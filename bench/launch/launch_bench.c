//===- launch_bench.c - Host time per kernel launch
//------------------------===//
//
//   launch_bench [--driver LIBRARY] ARTIFACT KERNEL [INTEGER...]
//
// Measures the host time of one launch call, three ways, on the same
// CUfunction with the same arguments, in one run:
//   (a) tilusRuntimeLaunchKernel of a kernel resolved once with
//       tilusRuntimeGetKernel (the fast path);
//   (b) a bare cuLaunchKernel of the same CUfunction (what any launcher has
//       to pay; the arguments are packed once, outside the timing);
//   (c) tilusRuntimeLaunch by artifact and name (the convenience path).
//
// Method: 1000 warm-up launches per path, then 10 batches; in each batch
// every path makes 1000 launches, each timed alone with clock_gettime
// (CLOCK_MONOTONIC) around the call, and the stream is synchronized after
// each path's 1000 (untimed), so that the launch queue never fills and a
// launch never waits for the GPU. The paths take turns in the order within
// a batch. Printed per path: median, 10th and 90th percentiles over the
// 10,000 launches, and the overhead of (a) over (b) as the difference of
// medians. The timer's own cost (also printed) is in every number and
// cancels in the difference.
//
// The kernel should be trivial (copy_f32 with n = 1024 is one block): the
// GPU then keeps up and the host cost is all that is measured. Pointer
// parameters get a zeroed device buffer of 1 MiB each, integer parameters
// take the INTEGERs in order (one per integer parameter), float parameters
// get 1.0. Kernels with a workspace are refused: the bare launch could not
// pass the runtime's workspace.
//
// --driver loads another libcuda (the runtime's driverLibrary option), e.g.
// bench/launch/stub_libcuda.c, which checks the bench's logic and measures
// the runtime's own overhead on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "tilus-c/Runtime.h"

// The CUfunction and driver table behind a loaded kernel, for the bare
// launch. Private to the runtime; included by relative path like the tests.
#include "../../runtime/DriverApi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  NumBatches = 10,
  BatchSize = 1000,
  NumSamples = NumBatches * BatchSize,
  BufferBytes = 1 << 20,
};

enum { PathLoaded, PathBare, PathByName, NumPaths };

static const char *const pathNames[NumPaths] = {
    "(a) tilusRuntimeLaunchKernel (loaded kernel)",
    "(b) cuLaunchKernel, same CUfunction",
    "(c) tilusRuntimeLaunch (by name)",
};

// Everything one launch of any path needs, prepared before timing.
typedef struct {
  TilusRuntime *rt;
  const TilusDriverApi *api;
  const TilusArtifact *artifact;
  const char *kernelName;
  TilusLoadedKernel *kernel;
  const TilusArg *args;
  int numArgs;
  void *stream;
  // The bare launch's configuration and packed parameters.
  CUfunction function;
  TilusLaunchConfig config;
  void **params;
} Bench;

static double nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

// One launch through `path`; the error text goes to `err`.
static TilusStatus launch(const Bench *b, int path, TilusRuntimeError *err) {
  switch (path) {
  case PathLoaded:
    return tilusRuntimeLaunchKernel(b->rt, b->kernel, b->args, b->numArgs,
                                    b->stream, err);
  case PathBare: {
    const TilusLaunchConfig *c = &b->config;
    CUresult r = b->api->launchKernel(b->function, c->grid[0], c->grid[1],
                                      c->grid[2], c->block[0], c->block[1],
                                      c->block[2], c->sharedBytes,
                                      (CUstream)b->stream, b->params, NULL);
    if (r == CUDA_SUCCESS)
      return TilusStatusSuccess;
    err->code = TilusStatusCudaError;
    err->cudaResult = r;
    snprintf(err->message, sizeof(err->message),
             "cuLaunchKernel failed: CUresult %d", r);
    return TilusStatusCudaError;
  }
  default:
    return tilusRuntimeLaunch(b->rt, b->artifact, b->kernelName, b->args,
                              b->numArgs, b->stream, err);
  }
}

static int compareDoubles(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

// Sorts `samples` and returns the value at fraction `q` (0.5: the median).
static double quantile(double *samples, int n, double q) {
  qsort(samples, (size_t)n, sizeof(double), compareDoubles);
  return samples[(int)(q * (n - 1) + 0.5)];
}

static int fail(const char *what, const TilusRuntimeError *err) {
  fprintf(stderr, "launch_bench: %s: %s\n", what, err->message);
  return 1;
}

// The bytes of `arg` as parameter `p` of the kernel reads them (what the
// runtime packs; little-endian hosts).
static uint64_t packBare(TilusParamInfo p, TilusArg arg) {
  uint64_t bits = 0;
  if (p.kind == TilusParamPointer) {
    bits = arg.value.pointer;
  } else if (p.kind == TilusParamInteger) {
    memcpy(&bits, &arg.value.integer, (size_t)p.byteSize);
    if (p.bitWidth == 1)
      bits &= 1;
  } else if (!strcmp(p.typeName, "f16")) {
    bits = tilusF16FromDouble(arg.value.real);
  } else if (!strcmp(p.typeName, "bf16")) {
    bits = tilusBF16FromDouble(arg.value.real);
  } else if (p.bitWidth == 32) {
    float f = (float)arg.value.real;
    memcpy(&bits, &f, sizeof(f));
  } else {
    memcpy(&bits, &arg.value.real, sizeof(double));
  }
  return bits;
}

static void usage(void) {
  fprintf(stderr, "usage: launch_bench [--driver LIBRARY] ARTIFACT KERNEL "
                  "[INTEGER...]\n"
                  "  one INTEGER per integer parameter of KERNEL, in order\n");
}

int main(int argc, char **argv) {
  TilusRuntimeOptions options = tilusRuntimeOptionsDefault();
  int first = 1;
  if (argc > 2 && !strcmp(argv[1], "--driver")) {
    options.driverLibrary = argv[2];
    first = 3;
  }
  if (argc - first < 2) {
    usage();
    return 2;
  }
  const char *path = argv[first], *kernelName = argv[first + 1];
  char **integers = argv + first + 2;
  int numIntegers = argc - first - 2;

  TilusRuntimeError err;
  TilusRuntime *rt = tilusRuntimeCreateWithOptions(&options, &err);
  if (!rt) {
    fprintf(stderr, "launch_bench: %s\n", err.message);
    return 77; // no GPU: skipped, as the other benches report it
  }
  TilusArtifact *artifact = tilusArtifactLoadFile(path, &err);
  if (!artifact)
    return fail("loading the artifact", &err);
  int k = tilusArtifactFindKernel(artifact, kernelName);
  if (k < 0) {
    fprintf(stderr, "launch_bench: no kernel '%s' in %s\n", kernelName, path);
    return 1;
  }
  if (tilusKernelGetWorkspaceBytes(artifact, k) > 0) {
    fprintf(stderr,
            "launch_bench: kernel '%s' has a workspace; choose one without\n",
            kernelName);
    return 1;
  }

  // Arguments: a buffer per pointer, the INTEGERs, 1.0 for floats.
  int numParams = tilusKernelGetNumParams(artifact, k);
  size_t n = (size_t)numParams + 1; // never a zero-size allocation
  TilusArg *args = calloc(n, sizeof(TilusArg));
  TilusDevicePtr *buffers = calloc(n, sizeof(TilusDevicePtr));
  uint64_t *bareSlots = calloc(n, sizeof(uint64_t));
  void **params = calloc(n, sizeof(void *));
  if (!args || !buffers || !bareSlots || !params) {
    fprintf(stderr, "launch_bench: out of memory\n");
    return 1;
  }
  int usedIntegers = 0;
  for (int i = 0; i < numParams; i++) {
    TilusParamInfo p = tilusKernelGetParam(artifact, k, i);
    if (p.kind == TilusParamPointer) {
      if (tilusRuntimeMalloc(rt, BufferBytes, &buffers[i], &err) ||
          tilusRuntimeMemset(rt, buffers[i], 0, BufferBytes, &err))
        return fail("allocating a buffer", &err);
      args[i] = tilusArgPointer(buffers[i]);
    } else if (p.kind == TilusParamInteger) {
      if (usedIntegers == numIntegers) {
        usage();
        return 2;
      }
      char *end = NULL;
      long long v = strtoll(integers[usedIntegers++], &end, 0);
      if (!end || *end) {
        usage();
        return 2;
      }
      args[i] = tilusArgInteger(v);
    } else {
      args[i] = tilusArgFloat(1.0);
    }
    bareSlots[i] = packBare(p, args[i]);
    params[i] = &bareSlots[i];
  }
  if (usedIntegers != numIntegers) {
    usage();
    return 2;
  }

  Bench b;
  memset(&b, 0, sizeof(b));
  b.rt = rt;
  b.api = tilusRuntimeGetDriverApi(rt);
  b.artifact = artifact;
  b.kernelName = kernelName;
  b.args = args;
  b.numArgs = numParams;
  b.params = params;
  if (tilusArtifactCheckLaunch(artifact, kernelName, args, numParams, &b.config,
                               &err))
    return fail("checking the arguments", &err);
  if (tilusRuntimeStreamCreate(rt, &b.stream, &err))
    return fail("creating a stream", &err);
  // Resolving JIT-compiles the PTX: done here, outside every timing.
  b.kernel = tilusRuntimeGetKernel(rt, artifact, kernelName, &err);
  if (!b.kernel)
    return fail("loading the kernel", &err);
  b.function = tilusLoadedKernelGetFunction(b.kernel);

  // One array of samples per path, and one for the timer alone.
  double *samples = malloc(sizeof(double) * (NumPaths + 1) * NumSamples);
  if (!samples) {
    fprintf(stderr, "launch_bench: out of memory\n");
    return 1;
  }
  for (int path = 0; path < NumPaths; path++) {
    for (int i = 0; i < BatchSize; i++)
      if (launch(&b, path, &err))
        return fail(pathNames[path], &err);
    if (tilusRuntimeStreamSynchronize(rt, b.stream, &err))
      return fail("warm-up", &err);
  }
  for (int batch = 0; batch < NumBatches; batch++) {
    for (int turn = 0; turn < NumPaths; turn++) {
      int path = (batch + turn) % NumPaths;
      double *out = samples + path * NumSamples + batch * BatchSize;
      for (int i = 0; i < BatchSize; i++) {
        double start = nowNs();
        TilusStatus s = launch(&b, path, &err);
        out[i] = nowNs() - start;
        if (s)
          return fail(pathNames[path], &err);
      }
      // Untimed; also reports a kernel that faulted.
      if (tilusRuntimeStreamSynchronize(rt, b.stream, &err))
        return fail("synchronizing the stream", &err);
    }
  }
  double *timer = samples + NumPaths * NumSamples;
  for (int i = 0; i < NumSamples; i++) {
    double start = nowNs();
    timer[i] = nowNs() - start;
  }

  const TilusLaunchConfig *c = &b.config;
  printf("launch_bench: kernel %s of %s on %s (driver %d)\n", kernelName, path,
         tilusRuntimeGetDeviceName(rt), tilusRuntimeGetDriverVersion(rt));
  printf("grid %ux%ux%u, block %ux%ux%u, %d parameters; %d batches x %d "
         "launches per path, stream synchronized between batches\n",
         c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
         c->block[2], numParams, NumBatches, BatchSize);
  printf("host time per launch call, us (clock_gettime around the call; the "
         "timer alone takes %.3f us)\n",
         quantile(timer, NumSamples, 0.5) / 1e3);
  printf("%-46s %8s %8s %8s\n", "", "median", "p10", "p90");
  double median[NumPaths];
  for (int path = 0; path < NumPaths; path++) {
    double *s = samples + path * NumSamples;
    median[path] = quantile(s, NumSamples, 0.5);
    printf("%-46s %8.3f %8.3f %8.3f\n", pathNames[path], median[path] / 1e3,
           quantile(s, NumSamples, 0.1) / 1e3,
           quantile(s, NumSamples, 0.9) / 1e3);
  }
  double overhead = median[PathLoaded] - median[PathBare];
  printf("overhead of (a) over (b), difference of medians: %.3f us\n",
         overhead / 1e3);
  printf("targets: (a) <= 5 us: %s; overhead <= 2 us: %s\n",
         median[PathLoaded] <= 5e3 ? "met" : "MISSED",
         overhead <= 2e3 ? "met" : "MISSED");

  free(samples);
  tilusRuntimeStreamDestroy(rt, b.stream, NULL);
  for (int i = 0; i < numParams; i++)
    tilusRuntimeFree(rt, buffers[i], NULL);
  free(args);
  free(buffers);
  free(bareSlots);
  free(params);
  tilusArtifactDestroy(artifact);
  tilusRuntimeDestroy(rt);
  return 0;
}
