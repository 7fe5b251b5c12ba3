//===- RuntimeSmokeTest.c - The runtime on a real GPU ---------------------===//
//
// Runs the kernels of kernels.cu through the runtime and compares them with
// CPU references, bit for bit: JIT of sm_80 PTX, the module cache, argument
// packing (f32, i32, i64, f16), a 2-D grid, 64 KiB of dynamic shared memory
// (the opt-in attribute), the workspace passed as the last parameter and
// reused across launches, rejected launches leaving memory untouched, JIT
// error logs, event timing, a second runtime on the same device, and
// optionally a cubin artifact. run.sh builds the artifacts and runs this.
//
//   tilus-runtime-gpu-test ARTIFACT [CUBIN_ARTIFACT]
//   tilus-runtime-gpu-test --probe          prints "<cc> <driver version>"
//   tilus-runtime-gpu-test --write-saxpy-files DIR N A
//                                           x.bin, y.bin, expected.bin
//
// Exits 77 (skipped) when there is no driver or no device.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numPassed, numFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      numPassed++;                                                             \
    } else {                                                                   \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

// A call that must succeed; on failure prints the runtime's message.
#define CHECK_OK(call)                                                         \
  do {                                                                         \
    TilusRuntimeError e_;                                                      \
    memset(&e_, 0, sizeof(e_));                                                \
    TilusStatus s_ = (call);                                                   \
    CHECK(s_ == TilusStatusSuccess);                                           \
    if (s_ != TilusStatusSuccess)                                              \
      fprintf(stderr, "  %s\n", e_.message);                                   \
  } while (0)
#define ERR (&e_)

// Deterministic inputs: small LCG-derived floats, and integers in -3..3 whose
// sums are exact in float whatever the summation order.
static uint32_t lcg(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}
static float randomFloat(uint32_t *state) {
  return (float)lcg(state) / (float)(1u << 24) * 8.0f - 4.0f;
}

static void saxpyInputs(float *x, float *y, int n) {
  uint32_t state = 12345;
  for (int i = 0; i < n; i++) {
    x[i] = randomFloat(&state);
    y[i] = randomFloat(&state);
  }
}

static int countMismatches(const float *a, const float *b, size_t n) {
  int bad = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof(float)))
      bad++;
  return bad;
}

static TilusRuntime *createOrSkip(void) {
  TilusRuntimeError err;
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (!rt && (err.code == TilusStatusDriverNotFound ||
              err.code == TilusStatusNoDevice)) {
    printf("SKIPPED: %s\n", err.message);
    exit(77);
  }
  if (!rt) {
    fprintf(stderr, "cannot create the runtime: %s\n", err.message);
    exit(1);
  }
  return rt;
}

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

static void testSaxpy(TilusRuntime *rt, const TilusArtifact *a,
                      const char *label) {
  enum { N = 1000003 };
  const float alpha = 1.75f;
  size_t bytes = N * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *ref = malloc(bytes),
        *out = malloc(bytes);
  saxpyInputs(x, y, N);
  for (int i = 0; i < N; i++)
    ref[i] = fmaf(alpha, x[i], y[i]);

  TilusDevicePtr dx = 0, dy = 0;
  CHECK_OK(tilusRuntimeMalloc(rt, bytes, &dx, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, bytes, &dy, ERR));
  CHECK_OK(tilusRuntimeCopyToDevice(rt, dx, x, bytes, ERR));
  CHECK_OK(tilusRuntimeCopyToDevice(rt, dy, y, bytes, ERR));
  void *stream = NULL;
  CHECK_OK(tilusRuntimeStreamCreate(rt, &stream, ERR));
  TilusArg args[4] = {tilusArgPointer(dy), tilusArgPointer(dx),
                      tilusArgFloat(alpha), tilusArgInteger(N)};
  CHECK_OK(tilusRuntimeLaunch(rt, a, "saxpy", args, 4, stream, ERR));
  CHECK_OK(tilusRuntimeStreamSynchronize(rt, stream, ERR));
  CHECK_OK(tilusRuntimeCopyToHost(rt, out, dy, bytes, ERR));
  int bad = countMismatches(out, ref, N);
  CHECK(bad == 0);
  printf("%s saxpy n=%d: %d mismatches against the CPU reference\n", label, N,
         bad);

  // Rejected launches: nothing reaches the device, y stays as it is.
  TilusRuntimeError err;
  args[3] = tilusArgInteger(0);
  CHECK(tilusRuntimeLaunch(rt, a, "saxpy", args, 4, stream, &err) ==
        TilusStatusGridError);
  printf("  rejected: %s\n", err.message);
  args[3] = tilusArgInteger(N);
  args[1] = tilusArgPointer(0);
  CHECK(tilusRuntimeLaunch(rt, a, "saxpy", args, 4, stream, &err) ==
        TilusStatusArgumentMismatch);
  printf("  rejected: %s\n", err.message);
  args[1] = tilusArgPointer(dx);
  CHECK(tilusRuntimeLaunch(rt, a, "saxpy", args, 3, stream, &err) ==
        TilusStatusArgumentMismatch);
  CHECK(tilusRuntimeLaunch(rt, a, "saxpz", args, 4, stream, &err) ==
        TilusStatusNoSuchKernel);
  printf("  rejected: %s\n", err.message);
  CHECK_OK(tilusRuntimeSynchronize(rt, ERR));
  CHECK_OK(tilusRuntimeCopyToHost(rt, out, dy, bytes, ERR));
  CHECK(countMismatches(out, ref, N) == 0);

  CHECK_OK(tilusRuntimeStreamDestroy(rt, stream, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dx, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dy, ERR));
  free(x);
  free(y);
  free(ref);
  free(out);
}

static void testWorkspace(TilusRuntime *rt, const TilusArtifact *a) {
  enum { N = 25000, Blocks = (N + 127) / 128 };
  const double scale = 0.5;
  float *x = malloc(N * sizeof(float));
  float sums[Blocks], out[2 * Blocks], ref[2 * Blocks];
  uint32_t state = 777;
  for (int i = 0; i < N; i++)
    x[i] = (float)((int)(lcg(&state) % 7) - 3);
  for (int b = 0; b < Blocks; b++) {
    float s = 0;
    for (int i = b * 128; i < N && i < (b + 1) * 128; i++)
      s += x[i];
    sums[b] = s * (float)scale;
  }
  for (int y = 0; y < 2; y++)
    for (int b = 0; b < Blocks; b++)
      ref[y * Blocks + b] = sums[b] + (float)y;

  TilusDevicePtr dx = 0, dout = 0;
  CHECK_OK(tilusRuntimeMalloc(rt, N * sizeof(float), &dx, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, sizeof(out), &dout, ERR));
  CHECK_OK(tilusRuntimeCopyToDevice(rt, dx, x, N * sizeof(float), ERR));
  CHECK_OK(tilusRuntimeMemset(rt, dout, 0xff, sizeof(out), ERR));

  TilusArg sumArgs[3] = {tilusArgPointer(dx), tilusArgInteger(N),
                         tilusArgFloat(scale)};
  CHECK_OK(tilusRuntimeLaunch(rt, a, "block_sums", sumArgs, 3, NULL, ERR));
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 4096);
  TilusArg gatherArgs[2] = {tilusArgPointer(dout), tilusArgInteger(Blocks)};
  CHECK_OK(tilusRuntimeLaunch(rt, a, "gather_sums", gatherArgs, 2, NULL, ERR));
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 4096); // reused, not regrown
  CHECK_OK(tilusRuntimeSynchronize(rt, ERR));
  CHECK_OK(tilusRuntimeCopyToHost(rt, out, dout, sizeof(out), ERR));
  int bad = countMismatches(out, ref, 2 * Blocks);
  CHECK(bad == 0);
  printf("block_sums (64 KiB shared, f16 scale) -> workspace -> gather_sums "
         "(2-D grid): %d mismatches over %d values\n",
         bad, 2 * Blocks);

  // The f16 argument really is converted: scale 0.25 halves the sums.
  sumArgs[2] = tilusArgF16Bits(0x3400); // 0.25
  CHECK_OK(tilusRuntimeLaunch(rt, a, "block_sums", sumArgs, 3, NULL, ERR));
  CHECK_OK(tilusRuntimeLaunch(rt, a, "gather_sums", gatherArgs, 2, NULL, ERR));
  CHECK_OK(tilusRuntimeCopyToHost(rt, out, dout, sizeof(out), ERR));
  CHECK(out[0] == sums[0] / 2 && out[Blocks + 1] == sums[1] / 2 + 1);

  CHECK_OK(tilusRuntimeFree(rt, dx, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dout, ERR));
  free(x);
}

// The fast path on the real driver: kernels resolved once from an artifact
// that is then destroyed, launched many times, with the same results and
// rejections as the launch by name.
static void testLoadedKernels(TilusRuntime *rt, const char *path) {
  TilusRuntimeError err;
  TilusArtifact *a = tilusArtifactLoadFile(path, &err);
  CHECK(a != NULL);
  if (!a)
    return;
  TilusLoadedKernel *saxpy = tilusRuntimeGetKernel(rt, a, "saxpy", &err);
  TilusLoadedKernel *sums = tilusRuntimeGetKernel(rt, a, "block_sums", &err);
  TilusLoadedKernel *gather = tilusRuntimeGetKernel(rt, a, "gather_sums", &err);
  CHECK(saxpy && sums && gather);
  CHECK(tilusRuntimeGetKernel(rt, a, "saxpy", &err) == saxpy);
  tilusArtifactDestroy(a);
  if (!saxpy || !sums || !gather)
    return;

  // saxpy applied `Repeats` times: y = alpha * x + y each time.
  enum { N = 100003, Repeats = 1000 };
  const float alpha = 0.5f;
  size_t bytes = N * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *ref = malloc(bytes),
        *out = malloc(bytes);
  saxpyInputs(x, y, N);
  for (int i = 0; i < N; i++) {
    ref[i] = y[i];
    for (int r = 0; r < Repeats; r++)
      ref[i] = fmaf(alpha, x[i], ref[i]);
  }
  TilusDevicePtr dx = 0, dy = 0;
  CHECK_OK(tilusRuntimeMalloc(rt, bytes, &dx, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, bytes, &dy, ERR));
  CHECK_OK(tilusRuntimeCopyToDevice(rt, dx, x, bytes, ERR));
  CHECK_OK(tilusRuntimeCopyToDevice(rt, dy, y, bytes, ERR));
  void *stream = NULL;
  CHECK_OK(tilusRuntimeStreamCreate(rt, &stream, ERR));
  TilusArg args[4] = {tilusArgPointer(dy), tilusArgPointer(dx),
                      tilusArgFloat(alpha), tilusArgInteger(N)};
  int failures = 0;
  for (int r = 0; r < Repeats; r++)
    if (tilusRuntimeLaunchKernel(rt, saxpy, args, 4, stream, &err) !=
        TilusStatusSuccess)
      failures++;
  CHECK(failures == 0);
  CHECK_OK(tilusRuntimeStreamSynchronize(rt, stream, ERR));
  CHECK_OK(tilusRuntimeCopyToHost(rt, out, dy, bytes, ERR));
  int bad = countMismatches(out, ref, N);
  CHECK(bad == 0);
  printf("loaded kernel: saxpy x%d, n=%d: %d mismatches\n", Repeats, N, bad);
  args[3] = tilusArgInteger(0);
  CHECK(tilusRuntimeLaunchKernel(rt, saxpy, args, 4, stream, &err) ==
        TilusStatusGridError);
  CHECK(!strcmp(err.message, "grid dimension x of kernel 'saxpy' ('s3 ceildiv "
                             "256') is 0; it must be in 1..2147483647"));

  // 64 KiB of shared memory (the opt-in done when resolved) and the
  // workspace, as in testWorkspace: integers in -3..3, whose sums are exact
  // in any order.
  enum { M = 25000, Blocks = (M + 127) / 128 };
  float sumsRef[Blocks], sumsOut[2 * Blocks];
  uint32_t state = 4242;
  for (int i = 0; i < M; i++)
    x[i] = (float)((int)(lcg(&state) % 7) - 3);
  for (int b = 0; b < Blocks; b++) {
    float total = 0;
    for (int i = b * 128; i < M && i < (b + 1) * 128; i++)
      total += x[i];
    sumsRef[b] = total;
  }
  CHECK_OK(tilusRuntimeCopyToDevice(rt, dx, x, M * sizeof(float), ERR));
  TilusDevicePtr dout = 0;
  CHECK_OK(tilusRuntimeMalloc(rt, sizeof(sumsOut), &dout, ERR));
  TilusArg sumArgs[3] = {tilusArgPointer(dx), tilusArgInteger(M),
                         tilusArgFloat(1.0)};
  TilusArg gatherArgs[2] = {tilusArgPointer(dout), tilusArgInteger(Blocks)};
  CHECK_OK(tilusRuntimeLaunchKernel(rt, sums, sumArgs, 3, stream, ERR));
  CHECK_OK(tilusRuntimeLaunchKernel(rt, gather, gatherArgs, 2, stream, ERR));
  CHECK_OK(tilusRuntimeStreamSynchronize(rt, stream, ERR));
  CHECK_OK(tilusRuntimeCopyToHost(rt, sumsOut, dout, sizeof(sumsOut), ERR));
  bad = 0;
  for (int b = 0; b < Blocks; b++)
    bad += sumsOut[b] != sumsRef[b] || sumsOut[Blocks + b] != sumsRef[b] + 1;
  CHECK(bad == 0);
  printf("loaded kernels: block_sums -> workspace -> gather_sums: %d "
         "mismatches\n",
         bad);

  CHECK_OK(tilusRuntimeStreamDestroy(rt, stream, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dx, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dy, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dout, ERR));
  free(x);
  free(y);
  free(ref);
  free(out);
}

static void testModuleCache(TilusRuntime *rt, const char *path) {
  int before = tilusRuntimeGetNumCachedModules(rt);
  TilusRuntimeError err;
  TilusArtifact *again = tilusArtifactLoadFile(path, &err);
  CHECK(again != NULL);
  CHECK_OK(tilusRuntimeLoadArtifact(rt, again, ERR));
  CHECK_OK(tilusRuntimeLoadArtifact(rt, again, ERR));
  tilusArtifactDestroy(again);
  CHECK(tilusRuntimeGetNumCachedModules(rt) == before);
  printf("module cache: %d module(s) after reloading the artifact\n",
         tilusRuntimeGetNumCachedModules(rt));
}

static void testJitError(TilusRuntime *rt) {
  static const char text[] = "tilus-artifact 1\n"
                             "target sm_80\n"
                             "kernel broken\n"
                             "block 32 1 1\n"
                             "grid 1\n"
                             "end\n"
                             "ptx:\n"
                             ".version 7.0\n"
                             ".target sm_80\n"
                             ".address_size 64\n"
                             ".visible .entry broken()\n"
                             "{\n"
                             "  mov.u32 %r1, %tid.x;\n"
                             "  ret;\n"
                             "}\n";
  TilusRuntimeError err;
  TilusArtifact *a = tilusArtifactParse(text, sizeof(text) - 1, &err);
  CHECK(a != NULL);
  if (!a)
    return;
  int before = tilusRuntimeGetNumCachedModules(rt);
  CHECK(tilusRuntimeLaunch(rt, a, "broken", NULL, 0, NULL, &err) ==
        TilusStatusCudaError);
  CHECK(strstr(err.message, "cuModuleLoadDataEx for kernel 'broken' failed: "
                            "CUDA_ERROR_INVALID_PTX") != NULL);
  CHECK(strstr(err.message, "%r1") != NULL); // ptxas' log is included
  CHECK(tilusRuntimeGetNumCachedModules(rt) == before);
  printf("bad PTX: %s\n", err.message);
  tilusArtifactDestroy(a);
}

static void testTiming(TilusRuntime *rt, const TilusArtifact *a) {
  enum { N = 1 << 20, Repeat = 200 };
  TilusDevicePtr dx = 0, dy = 0;
  CHECK_OK(tilusRuntimeMalloc(rt, N * sizeof(float), &dx, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, N * sizeof(float), &dy, ERR));
  CHECK_OK(tilusRuntimeMemset(rt, dx, 0, N * sizeof(float), ERR));
  CHECK_OK(tilusRuntimeMemset(rt, dy, 0, N * sizeof(float), ERR));
  TilusArg args[4] = {tilusArgPointer(dy), tilusArgPointer(dx),
                      tilusArgFloat(1.0), tilusArgInteger(N)};
  void *start = NULL, *end = NULL;
  CHECK_OK(tilusRuntimeEventCreate(rt, &start, ERR));
  CHECK_OK(tilusRuntimeEventCreate(rt, &end, ERR));
  CHECK_OK(tilusRuntimeEventRecord(rt, start, NULL, ERR));
  for (int i = 0; i < Repeat; i++)
    CHECK_OK(tilusRuntimeLaunch(rt, a, "saxpy", args, 4, NULL, ERR));
  CHECK_OK(tilusRuntimeEventRecord(rt, end, NULL, ERR));
  float ms = 0;
  CHECK_OK(tilusRuntimeEventElapsed(rt, start, end, &ms, ERR));
  CHECK(ms > 0);
  printf("saxpy n=%d: %.4f ms per launch (events, %d launches)\n", N,
         ms / Repeat, Repeat);
  CHECK_OK(tilusRuntimeEventDestroy(rt, start, ERR));
  CHECK_OK(tilusRuntimeEventDestroy(rt, end, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dx, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dy, ERR));
}

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

static int probe(void) {
  TilusRuntime *rt = createOrSkip();
  int major = 0, minor = 0;
  tilusRuntimeGetComputeCapability(rt, &major, &minor);
  printf("%d%d %d\n", major, minor, tilusRuntimeGetDriverVersion(rt));
  tilusRuntimeDestroy(rt);
  return 0;
}

static int writeFile(const char *dir, const char *name, const void *data,
                     size_t bytes) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot write %s\n", path);
    if (f)
      fclose(f);
    return 1;
  }
  return fclose(f) != 0;
}

static int writeSaxpyFiles(const char *dir, int n, float alpha) {
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)),
        *ref = malloc(n * sizeof(float));
  saxpyInputs(x, y, n);
  for (int i = 0; i < n; i++)
    ref[i] = fmaf(alpha, x[i], y[i]);
  int failed = writeFile(dir, "x.bin", x, n * sizeof(float)) |
               writeFile(dir, "y.bin", y, n * sizeof(float)) |
               writeFile(dir, "expected.bin", ref, n * sizeof(float));
  free(x);
  free(y);
  free(ref);
  return failed;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--probe"))
    return probe();
  if (argc == 5 && !strcmp(argv[1], "--write-saxpy-files"))
    return writeSaxpyFiles(argv[2], atoi(argv[3]), (float)atof(argv[4]));
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s ARTIFACT [CUBIN_ARTIFACT]\n", argv[0]);
    return 2;
  }

  TilusRuntime *rt = createOrSkip();
  int major = 0, minor = 0;
  tilusRuntimeGetComputeCapability(rt, &major, &minor);
  printf("device: %s, compute capability %d.%d, driver %d\n",
         tilusRuntimeGetDeviceName(rt), major, minor,
         tilusRuntimeGetDriverVersion(rt));

  TilusRuntimeError err;
  TilusArtifact *ptx = tilusArtifactLoadFile(argv[1], &err);
  if (!ptx) {
    fprintf(stderr, "%s\n", err.message);
    tilusRuntimeDestroy(rt);
    return 1;
  }
  CHECK_OK(tilusRuntimeLoadArtifact(rt, ptx, ERR)); // the JIT, up front
  CHECK(tilusRuntimeGetNumCachedModules(rt) == 1);
  testSaxpy(rt, ptx, "PTX (JIT)");
  testWorkspace(rt, ptx);
  testModuleCache(rt, argv[1]);
  testLoadedKernels(rt, argv[1]);
  testJitError(rt);
  testTiming(rt, ptx);

  if (argc == 3) {
    TilusArtifact *cubin = tilusArtifactLoadFile(argv[2], &err);
    CHECK(cubin != NULL);
    if (cubin) {
      CHECK(tilusArtifactGetImageKind(cubin) == TilusImageCubin);
      testSaxpy(rt, cubin, "cubin");
      tilusArtifactDestroy(cubin);
    } else {
      fprintf(stderr, "%s\n", err.message);
    }
  }

  // A second runtime on the same device is independent: it keeps working
  // (with its own module cache) after the first one is destroyed.
  TilusRuntime *second = createOrSkip();
  tilusRuntimeDestroy(rt);
  CHECK(tilusRuntimeGetNumCachedModules(second) == 0);
  testSaxpy(second, ptx, "second runtime");
  tilusRuntimeDestroy(second);
  tilusArtifactDestroy(ptx);

  printf("runtime gpu tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
