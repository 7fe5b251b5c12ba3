//===- RuntimeGraphTest.c - CUDA graphs and threads on a real GPU ---------===//
//
// The serving-stack uses of the runtime, on the kernels of kernels.cu:
//
//  1. Graph capture. Kernels loaded beforehand are launched with a caller
//     workspace into a stream being captured (global capture mode, the
//     strictest: any forbidden call from the runtime would invalidate the
//     capture), the way an external capturer (PyTorch's CUDA graphs) does it;
//     the graph is instantiated and replayed with new input data each time
//     and compared with CPU references. A launch needing the runtime-owned
//     workspace and one with too small a workspace are refused during the
//     capture without breaking it.
//  2. Threads. 8 threads launch on one runtime at once, each with its own
//     stream, workspace and buffers, 1000 launches each, every result checked.
//
// The graph calls are not part of the runtime: this test dlopens
// libcuda.so.1 itself for them. run.sh builds the artifact and runs this:
//
//   tilus-runtime-graph-test ARTIFACT
//
// Exits 77 (skipped) when there is no driver or no device.
//
//===----------------------------------------------------------------------===//

// dlopen and pthreads under -std=c11.
#define _POSIX_C_SOURCE 200809L

#include "tilus-c/Runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int numPassed, numFailed;

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

static void report(bool ok, const char *what) {
  printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
  fflush(stdout);
}

//===----------------------------------------------------------------------===//
// The graph API, from the driver directly
//===----------------------------------------------------------------------===//

typedef int CUresult;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
enum { CU_STREAM_CAPTURE_MODE_GLOBAL = 0 };

typedef struct {
  CUresult (*beginCapture)(void *stream, int mode);
  CUresult (*endCapture)(void *stream, CUgraph *graph);
  CUresult (*instantiate)(CUgraphExec *exec, CUgraph graph,
                          unsigned long long flags);
  CUresult (*launch)(CUgraphExec exec, void *stream);
  CUresult (*execDestroy)(CUgraphExec exec);
  CUresult (*destroy)(CUgraph graph);
} GraphApi;

// Resolves `name` into `*slot` (a function pointer, copied as bytes: ISO C
// has no conversion from dlsym's object pointer).
static bool resolve(void *library, const char *name, void *slot) {
  void *address = dlsym(library, name);
  if (!address) {
    fprintf(stderr, "libcuda.so.1 has no symbol %s\n", name);
    return false;
  }
  memcpy(slot, &address, sizeof(address));
  return true;
}

static bool openGraphApi(GraphApi *g) {
  // The runtime opened the same library; this only takes another reference.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "cannot dlopen libcuda.so.1: %s\n", dlerror());
    return false;
  }
  // cuda.h maps cuStreamBeginCapture to the _v2 entry (CUDA 10.1+) and
  // cuGraphInstantiate to cuGraphInstantiateWithFlags (CUDA 11.4+).
  return resolve(library, "cuStreamBeginCapture_v2", &g->beginCapture) &&
         resolve(library, "cuStreamEndCapture", &g->endCapture) &&
         resolve(library, "cuGraphInstantiateWithFlags", &g->instantiate) &&
         resolve(library, "cuGraphLaunch", &g->launch) &&
         resolve(library, "cuGraphExecDestroy", &g->execDestroy) &&
         resolve(library, "cuGraphDestroy", &g->destroy);
}

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    CHECK(r_ == 0);                                                            \
    if (r_ != 0)                                                               \
      fprintf(stderr, "  %s returned CUresult %d\n", #call, r_);               \
  } while (0)

//===----------------------------------------------------------------------===//
// Inputs and references
//===----------------------------------------------------------------------===//

static uint32_t lcg(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}
static float randomFloat(uint32_t *state) {
  return (float)lcg(state) / (float)(1u << 24) * 8.0f - 4.0f;
}
// Integers in -3..3: block sums are exact in float in any order.
static float smallInteger(uint32_t *state) {
  return (float)((int)(lcg(state) % 7) - 3);
}

// block_sums then gather_sums: out[y * blocks + b] = scale * sum(block b) + y.
static void sumsReference(const float *x, int n, float scale, float *ref) {
  int blocks = (n + 127) / 128;
  for (int b = 0; b < blocks; b++) {
    float s = 0;
    for (int i = b * 128; i < n && i < (b + 1) * 128; i++)
      s += x[i];
    ref[b] = s * scale;
    ref[blocks + b] = s * scale + 1.0f;
  }
}

static int countMismatches(const float *a, const float *b, size_t n) {
  int bad = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof(float)))
      bad++;
  return bad;
}

typedef struct {
  TilusLoadedKernel *saxpy, *sums, *gather;
  uint64_t workspaceBytes; // the most any of them needs
} Kernels;

//===----------------------------------------------------------------------===//
// 1. Graph capture and replay
//===----------------------------------------------------------------------===//

static void testGraph(TilusRuntime *rt, const Kernels *k, const GraphApi *g) {
  enum { N = 100003, M = 25000, Blocks = (M + 127) / 128, Replays = 4 };
  const float alpha = 1.25f, scale = 0.5f;
  size_t bytes = N * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *ref = malloc(bytes),
        *out = malloc(bytes), *xs = malloc(M * sizeof(float));
  float sumsRef[2 * Blocks], sumsOut[2 * Blocks];

  TilusDevicePtr dx = 0, dy = 0, dxs = 0, dout = 0, ws = 0;
  CHECK_OK(tilusRuntimeMalloc(rt, bytes, &dx, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, bytes, &dy, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, M * sizeof(float), &dxs, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, sizeof(sumsOut), &dout, ERR));
  CHECK_OK(tilusRuntimeMalloc(rt, k->workspaceBytes, &ws, ERR));
  void *stream = NULL;
  CHECK_OK(tilusRuntimeStreamCreate(rt, &stream, ERR));
  uint64_t ownBefore = tilusRuntimeGetWorkspaceBytes(rt);

  // Capture: saxpy twice, then block_sums -> caller workspace -> gather_sums.
  TilusArg saxpyArgs[4] = {tilusArgPointer(dy), tilusArgPointer(dx),
                           tilusArgFloat(alpha), tilusArgInteger(N)};
  TilusArg sumArgs[3] = {tilusArgPointer(dxs), tilusArgInteger(M),
                         tilusArgFloat(scale)};
  TilusArg gatherArgs[2] = {tilusArgPointer(dout), tilusArgInteger(Blocks)};
  TilusRuntimeError err;
  CHECK_CU(g->beginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
  for (int i = 0; i < 2; i++)
    CHECK_OK(tilusRuntimeLaunchKernelWithWorkspace(rt, k->saxpy, saxpyArgs, 4,
                                                   stream, 0, 0, ERR));
  CHECK_OK(tilusRuntimeLaunchKernelWithWorkspace(
      rt, k->sums, sumArgs, 3, stream, ws, k->workspaceBytes, ERR));
  // Refused without touching the capture: the runtime's own workspace, and
  // a workspace too small for block_sums.
  TilusStatus own =
      tilusRuntimeLaunchKernel(rt, k->sums, sumArgs, 3, stream, &err);
  CHECK(own == TilusStatusInvalidArgument);
  printf("  refused during capture: %s\n", err.message);
  TilusStatus small = tilusRuntimeLaunchKernelWithWorkspace(
      rt, k->sums, sumArgs, 3, stream, ws, 16, &err);
  CHECK(small == TilusStatusArgumentMismatch);
  printf("  refused during capture: %s\n", err.message);
  CHECK_OK(tilusRuntimeLaunchKernelWithWorkspace(
      rt, k->gather, gatherArgs, 2, stream, ws, k->workspaceBytes, ERR));
  CUgraph graph = NULL;
  CUresult ended = g->endCapture(stream, &graph);
  CHECK(ended == 0 && graph != NULL);
  report(ended == 0 && own == TilusStatusInvalidArgument &&
             small == TilusStatusArgumentMismatch,
         "graph capture: 4 launches of loaded kernels with a caller "
         "workspace, the capture stays valid");
  if (ended != 0 || !graph) {
    fprintf(stderr, "  cuStreamEndCapture returned %d\n", ended);
    goto done;
  }
  // Nothing was launched while capturing, and the runtime's own workspace
  // was neither allocated nor grown.
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == ownBefore);

  CUgraphExec exec = NULL;
  CHECK_CU(g->instantiate(&exec, graph, 0));
  int totalBad = 0;
  for (int r = 0; r < Replays && exec; r++) {
    // New inputs each replay: the graph reads the buffers, not the values
    // they held when captured.
    uint32_t state = 1000u + 77u * (uint32_t)r;
    for (int i = 0; i < N; i++) {
      x[i] = randomFloat(&state);
      y[i] = randomFloat(&state);
      ref[i] = fmaf(alpha, x[i], fmaf(alpha, x[i], y[i]));
    }
    for (int i = 0; i < M; i++)
      xs[i] = smallInteger(&state);
    sumsReference(xs, M, scale, sumsRef);
    CHECK_OK(tilusRuntimeCopyToDevice(rt, dx, x, bytes, ERR));
    CHECK_OK(tilusRuntimeCopyToDevice(rt, dy, y, bytes, ERR));
    CHECK_OK(tilusRuntimeCopyToDevice(rt, dxs, xs, M * sizeof(float), ERR));
    CHECK_OK(tilusRuntimeMemset(rt, dout, 0xff, sizeof(sumsOut), ERR));
    // The copies above run on the legacy stream; the graph's stream does
    // not wait for it.
    CHECK_OK(tilusRuntimeSynchronize(rt, ERR));
    CHECK_CU(g->launch(exec, stream));
    CHECK_OK(tilusRuntimeStreamSynchronize(rt, stream, ERR));
    CHECK_OK(tilusRuntimeCopyToHost(rt, out, dy, bytes, ERR));
    CHECK_OK(tilusRuntimeCopyToHost(rt, sumsOut, dout, sizeof(sumsOut), ERR));
    int bad = countMismatches(out, ref, N) +
              countMismatches(sumsOut, sumsRef, 2 * Blocks);
    CHECK(bad == 0);
    totalBad += bad;
    printf("  replay %d: %d mismatches over %d values\n", r, bad,
           N + 2 * Blocks);
  }
  report(exec && totalBad == 0,
         "graph replay with new inputs matches the CPU reference");
  if (exec)
    CHECK_CU(g->execDestroy(exec));
  CHECK_CU(g->destroy(graph));

done:
  CHECK_OK(tilusRuntimeStreamDestroy(rt, stream, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dx, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dy, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dxs, ERR));
  CHECK_OK(tilusRuntimeFree(rt, dout, ERR));
  CHECK_OK(tilusRuntimeFree(rt, ws, ERR));
  free(x);
  free(y);
  free(ref);
  free(out);
  free(xs);
}

//===----------------------------------------------------------------------===//
// 2. Launches from several threads
//===----------------------------------------------------------------------===//

enum {
  NumThreads = 8,
  Iterations = 500, // 2 launches each: 1000 launches per thread
  ThreadN = 4096,
  ThreadBlocks = ThreadN / 128,
  SaxpyN = 10007
};

typedef struct {
  TilusRuntime *rt;
  const Kernels *k;
  int thread;
  int bad, failures;
} ThreadState;

// The f16 scale of iteration i: multiples of 1/4, exact in f16.
static float scaleOf(int i) { return (float)(i % 8 + 1) * 0.25f; }

// Each iteration: block_sums of the thread's input into its workspace with
// that iteration's scale, gather_sums into the iteration's own slice of the
// output, and one saxpy step (no workspace) on the thread's y. A workspace
// shared with another thread, or arguments mixed between threads, shows up
// as a wrong slice or a wrong y.
static void *threadMain(void *arg) {
  ThreadState *st = arg;
  TilusRuntime *rt = st->rt;
  const Kernels *k = st->k;
  TilusRuntimeError err;
  size_t outFloats = (size_t)Iterations * 2 * ThreadBlocks;
  float *x = malloc(ThreadN * sizeof(float));
  float *out = malloc(outFloats * sizeof(float));
  float *sx = malloc(SaxpyN * sizeof(float)),
        *sy = malloc(SaxpyN * sizeof(float));
  float *sref = malloc(SaxpyN * sizeof(float));
  uint32_t state = 31u * (uint32_t)st->thread + 5u;
  for (int i = 0; i < ThreadN; i++)
    x[i] = smallInteger(&state);
  for (int i = 0; i < SaxpyN; i++) {
    sx[i] = randomFloat(&state);
    sy[i] = sref[i] = randomFloat(&state);
  }
  const float alpha = 0.5f + (float)st->thread; // differs per thread
  for (int it = 0; it < Iterations; it++)
    for (int i = 0; i < SaxpyN; i++)
      sref[i] = fmaf(alpha, sx[i], sref[i]);

  TilusDevicePtr dx = 0, dout = 0, ws = 0, dsx = 0, dsy = 0;
  void *stream = NULL;
  bool ok =
      tilusRuntimeMalloc(rt, ThreadN * sizeof(float), &dx, &err) == 0 &&
      tilusRuntimeMalloc(rt, outFloats * sizeof(float), &dout, &err) == 0 &&
      tilusRuntimeMalloc(rt, k->workspaceBytes, &ws, &err) == 0 &&
      tilusRuntimeMalloc(rt, SaxpyN * sizeof(float), &dsx, &err) == 0 &&
      tilusRuntimeMalloc(rt, SaxpyN * sizeof(float), &dsy, &err) == 0 &&
      tilusRuntimeStreamCreate(rt, &stream, &err) == 0 &&
      tilusRuntimeCopyToDevice(rt, dx, x, ThreadN * sizeof(float), &err) == 0 &&
      tilusRuntimeCopyToDevice(rt, dsx, sx, SaxpyN * sizeof(float), &err) ==
          0 &&
      tilusRuntimeCopyToDevice(rt, dsy, sy, SaxpyN * sizeof(float), &err) ==
          0 &&
      tilusRuntimeMemset(rt, dout, 0xff, outFloats * sizeof(float), &err) ==
          0 &&
      // The copies ran on the legacy stream.
      tilusRuntimeSynchronize(rt, &err) == 0;
  if (!ok) {
    fprintf(stderr, "thread %d: setup failed: %s\n", st->thread, err.message);
    st->failures++;
  }
  for (int it = 0; ok && it < Iterations; it++) {
    TilusArg sumArgs[3] = {tilusArgPointer(dx), tilusArgInteger(ThreadN),
                           tilusArgFloat(scaleOf(it))};
    TilusArg gatherArgs[2] = {
        tilusArgPointer(dout +
                        (TilusDevicePtr)it * 2 * ThreadBlocks * sizeof(float)),
        tilusArgInteger(ThreadBlocks)};
    TilusArg saxpyArgs[4] = {tilusArgPointer(dsy), tilusArgPointer(dsx),
                             tilusArgFloat(alpha), tilusArgInteger(SaxpyN)};
    if (tilusRuntimeLaunchKernelWithWorkspace(rt, k->sums, sumArgs, 3, stream,
                                              ws, k->workspaceBytes,
                                              &err) != 0 ||
        tilusRuntimeLaunchKernelWithWorkspace(rt, k->gather, gatherArgs, 2,
                                              stream, ws, k->workspaceBytes,
                                              &err) != 0 ||
        tilusRuntimeLaunchKernel(rt, k->saxpy, saxpyArgs, 4, stream, &err) !=
            0) {
      fprintf(stderr, "thread %d, iteration %d: %s\n", st->thread, it,
              err.message);
      st->failures++;
      break;
    }
  }
  if (ok && tilusRuntimeStreamSynchronize(rt, stream, &err) == 0 &&
      tilusRuntimeCopyToHost(rt, out, dout, outFloats * sizeof(float), &err) ==
          0 &&
      tilusRuntimeCopyToHost(rt, sy, dsy, SaxpyN * sizeof(float), &err) == 0) {
    float ref[2 * ThreadBlocks];
    for (int it = 0; it < Iterations; it++) {
      sumsReference(x, ThreadN, scaleOf(it), ref);
      st->bad += countMismatches(out + (size_t)it * 2 * ThreadBlocks, ref,
                                 2 * ThreadBlocks);
    }
    st->bad += countMismatches(sy, sref, SaxpyN);
  } else if (ok) {
    fprintf(stderr, "thread %d: %s\n", st->thread, err.message);
    st->failures++;
  }
  tilusRuntimeStreamDestroy(rt, stream, NULL);
  tilusRuntimeFree(rt, dx, NULL);
  tilusRuntimeFree(rt, dout, NULL);
  tilusRuntimeFree(rt, ws, NULL);
  tilusRuntimeFree(rt, dsx, NULL);
  tilusRuntimeFree(rt, dsy, NULL);
  free(x);
  free(out);
  free(sx);
  free(sy);
  free(sref);
  return NULL;
}

static void testThreads(TilusRuntime *rt, const Kernels *k) {
  static ThreadState states[NumThreads];
  pthread_t threads[NumThreads];
  int started = 0;
  for (int t = 0; t < NumThreads; t++) {
    states[t] = (ThreadState){rt, k, t, 0, 0};
    if (pthread_create(&threads[t], NULL, threadMain, &states[t]) != 0)
      break;
    started++;
  }
  CHECK(started == NumThreads);
  int bad = 0, failures = 0;
  for (int t = 0; t < started; t++) {
    pthread_join(threads[t], NULL);
    bad += states[t].bad;
    failures += states[t].failures;
  }
  CHECK(failures == 0 && bad == 0);
  printf("  %d threads x %d launches: %d failed launches, %d mismatches\n",
         started, 3 * Iterations, failures, bad);
  report(started == NumThreads && failures == 0 && bad == 0,
         "8 threads launching on one runtime, each with its own stream and "
         "workspace");
}

//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s ARTIFACT\n", argv[0]);
    return 2;
  }
  TilusRuntimeError err;
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (!rt && (err.code == TilusStatusDriverNotFound ||
              err.code == TilusStatusNoDevice)) {
    printf("SKIPPED: %s\n", err.message);
    return 77;
  }
  if (!rt) {
    fprintf(stderr, "cannot create the runtime: %s\n", err.message);
    return 1;
  }
  GraphApi graphApi;
  TilusArtifact *a = tilusArtifactLoadFile(argv[1], &err);
  if (!a || !openGraphApi(&graphApi)) {
    if (!a)
      fprintf(stderr, "%s\n", err.message);
    tilusRuntimeDestroy(rt);
    return 1;
  }
  // Everything loaded before any capture or thread starts.
  Kernels k;
  k.saxpy = tilusRuntimeGetKernel(rt, a, "saxpy", &err);
  k.sums = k.saxpy ? tilusRuntimeGetKernel(rt, a, "block_sums", &err) : NULL;
  k.gather = k.sums ? tilusRuntimeGetKernel(rt, a, "gather_sums", &err) : NULL;
  tilusArtifactDestroy(a);
  if (!k.gather) {
    fprintf(stderr, "%s\n", err.message);
    tilusRuntimeDestroy(rt);
    return 1;
  }
  k.workspaceBytes = tilusLoadedKernelGetWorkspaceBytes(k.sums);
  if (tilusLoadedKernelGetWorkspaceBytes(k.gather) > k.workspaceBytes)
    k.workspaceBytes = tilusLoadedKernelGetWorkspaceBytes(k.gather);
  CHECK(tilusLoadedKernelGetWorkspaceBytes(k.saxpy) == 0);
  CHECK(k.workspaceBytes == 4096);

  testGraph(rt, &k, &graphApi);
  testThreads(rt, &k);
  // The runtime's own workspace was never needed.
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 0);
  tilusRuntimeDestroy(rt);

  printf("runtime graph and thread tests: %d passed, %d failed\n",
         (int)numPassed, (int)numFailed);
  return numFailed ? 1 : 0;
}
