//===- RuntimeConcurrencyTest.c - One runtime, many threads ---------------===//
//
// Launches of loaded kernels from several threads at once, each with its own
// stream, workspace and argument values: the fake driver checks at every
// launch that the parameter bytes it receives are all of one launch (a
// buffer shared between threads would mix them). And kernels resolved by
// several threads at once: one module load per image, one kernel per name,
// the same handle for everyone.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include <pthread.h>
#include <sched.h>

enum { NumThreads = 8, LaunchesPerThread = 1000 };

// `ws` needs a workspace; `plain` does not and goes through
// tilusRuntimeLaunchKernel. The grid of `ws` comes from its i32.
static const char *const concurrentArtifact =
    HEAD "kernel ws\nblock 64 1 1\ngrid s1 + 1\nworkspace 512\n"
         "param ptr f32\nparam i32\nparam i64\nparam f64\nend\n"
         "kernel plain\nblock 32 1 1\ngrid 2\n"
         "param i64\nparam ptr ui8\nend\n"
         "ptx:\n.visible .entry ws() {}\n.visible .entry plain() {}\n";

typedef struct {
  TilusRuntime *rt;
  TilusLoadedKernel *ws, *plain;
  TilusDevicePtr workspace[NumThreads];
  CUfunction wsFunction, plainFunction;
  // Written by the fake for launch (thread, i) only: 1 if every parameter,
  // the grid and the stream were that launch's, 2 if not.
  unsigned char outcome[NumThreads][LaunchesPerThread];
  atomic_int strays; // launches whose parameters name no launch at all
  atomic_int failures;
} Shared;

static Shared shared;

static void *streamOf(int thread) {
  return (void *)(uintptr_t)(0x100 + thread);
}
static TilusDevicePtr pointerOf(int thread, int i) {
  return ((uint64_t)(thread + 1) << 32) | ((uint64_t)i << 4);
}
static int64_t integerOf(int thread, int i) {
  return (int64_t)thread * 1000003 - i;
}
static double realOf(int thread, int i) { return thread + i / 1024.0; }

static uint64_t u64At(void **params, int k) {
  uint64_t v;
  memcpy(&v, params[k], 8);
  return v;
}

// Decodes which launch the parameters claim to be from their first one, then
// checks that all the others agree.
static void recordConcurrentLaunch(CUfunction f, const unsigned grid[3],
                                   CUstream stream, void **params) {
  // Give other launching threads a chance to overwrite shared state between
  // the runtime packing the parameters and the driver reading them.
  sched_yield();
  int thread = -1, i = -1;
  bool ok;
  if (f == shared.wsFunction) {
    uint64_t p = u64At(params, 0);
    thread = (int)(p >> 32) - 1;
    i = (int)((p & 0xffffffffu) >> 4);
    if (thread < 0 || thread >= NumThreads || i < 0 || i >= LaunchesPerThread) {
      shared.strays++;
      return;
    }
    int32_t i32;
    int64_t i64;
    double f64;
    memcpy(&i32, params[1], 4);
    memcpy(&i64, params[2], 8);
    memcpy(&f64, params[3], 8);
    ok = p == pointerOf(thread, i) && i32 == i && i64 == integerOf(thread, i) &&
         f64 == realOf(thread, i) &&
         u64At(params, 4) == shared.workspace[thread] &&
         grid[0] == (unsigned)i + 1;
  } else if (f == shared.plainFunction) {
    int64_t v;
    memcpy(&v, params[0], 8);
    thread = (int)(v / 1000003);
    i = (int)(v % 1000003);
    if (v < 0 || thread >= NumThreads || i >= LaunchesPerThread) {
      shared.strays++;
      return;
    }
    ok = u64At(params, 1) == pointerOf(thread, i) && grid[0] == 2;
  } else {
    shared.strays++;
    return;
  }
  ok = ok && stream == (CUstream)streamOf(thread);
  shared.outcome[thread][i] = ok ? 1 : 2;
}

static void *launchingThread(void *arg) {
  int t = (int)(intptr_t)arg;
  TilusRuntimeError err;
  for (int i = 0; i < LaunchesPerThread; i++) {
    TilusStatus s;
    if (i % 2 == 0) {
      TilusArg args[4] = {tilusArgPointer(pointerOf(t, i)), tilusArgInteger(i),
                          tilusArgInteger(integerOf(t, i)),
                          tilusArgFloat(realOf(t, i))};
      s = tilusRuntimeLaunchKernelWithWorkspace(shared.rt, shared.ws, args, 4,
                                                streamOf(t),
                                                shared.workspace[t], 512, &err);
    } else {
      TilusArg args[2] = {tilusArgInteger((int64_t)t * 1000003 + i),
                          tilusArgPointer(pointerOf(t, i))};
      s = tilusRuntimeLaunchKernel(shared.rt, shared.plain, args, 2,
                                   streamOf(t), &err);
    }
    if (s != TilusStatusSuccess)
      shared.failures++;
  }
  return NULL;
}

void testConcurrentLaunches(void) {
  TilusRuntimeError err;
  resetFake();
  memset(&shared, 0, sizeof(shared));
  shared.rt = createFake(&err);
  TilusArtifact *a = parse(concurrentArtifact, &err);
  CHECK(shared.rt && a);
  if (!shared.rt || !a)
    return;
  shared.ws = tilusRuntimeGetKernel(shared.rt, a, "ws", &err);
  shared.plain = tilusRuntimeGetKernel(shared.rt, a, "plain", &err);
  tilusArtifactDestroy(a);
  CHECK(shared.ws && shared.plain);
  if (!shared.ws || !shared.plain)
    return;
  shared.wsFunction = tilusLoadedKernelGetFunction(shared.ws);
  shared.plainFunction = tilusLoadedKernelGetFunction(shared.plain);
  for (int t = 0; t < NumThreads; t++)
    CHECK(tilusRuntimeMalloc(shared.rt, 512, &shared.workspace[t], &err) ==
          TilusStatusSuccess);

  fake.recordLaunch = recordConcurrentLaunch;
  int allocationsBefore = fake.allocations;
  int setCurrentBefore = fake.setCurrentCalls;
  pthread_t threads[NumThreads];
  int started = 0;
  for (int t = 0; t < NumThreads; t++)
    if (pthread_create(&threads[t], NULL, launchingThread,
                       (void *)(intptr_t)t) == 0)
      started++;
    else
      break;
  CHECK(started == NumThreads);
  for (int t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
  fake.recordLaunch = NULL;

  int good = 0, mixed = 0, missing = 0;
  for (int t = 0; t < NumThreads; t++)
    for (int i = 0; i < LaunchesPerThread; i++) {
      good += shared.outcome[t][i] == 1;
      mixed += shared.outcome[t][i] == 2;
      missing += shared.outcome[t][i] == 0;
    }
  CHECK(shared.failures == 0 && shared.strays == 0);
  CHECK(good == NumThreads * LaunchesPerThread);
  if (mixed || missing || shared.strays)
    fprintf(stderr, "  concurrent launches: %d mixed, %d missing, %d stray\n",
            mixed, missing, (int)shared.strays);
  CHECK(fake.launches == NumThreads * LaunchesPerThread);
  // No allocation, and each new thread made the context current once (the
  // fake's current context is per thread, like the driver's).
  CHECK(fake.allocations == allocationsBefore);
  CHECK(fake.setCurrentCalls == setCurrentBefore + NumThreads);
  CHECK(tilusRuntimeGetWorkspaceBytes(shared.rt) == 0);

  for (int t = 0; t < NumThreads; t++)
    tilusRuntimeFree(shared.rt, shared.workspace[t], &err);
  tilusRuntimeDestroy(shared.rt);
  CHECK(fake.liveAllocations == 0);
}

//===----------------------------------------------------------------------===//
// Resolving kernels concurrently
//===----------------------------------------------------------------------===//

enum { NumImages = 4, Rounds = 50 };

typedef struct {
  TilusRuntime *rt;
  int thread;
  // What this thread got for kernel k of image m.
  TilusLoadedKernel *got[NumImages][2];
  int failures, inconsistent;
} ResolverState;

// Image m: kernels a<m> and b<m>, each with one i64 parameter; the PTX text
// differs per image, so each is its own module.
static void imageText(char *out, size_t size, int m) {
  snprintf(out, size,
           HEAD "kernel a%d\nblock 32 1 1\ngrid 1\nparam i64\nend\n"
                "kernel b%d\nblock 32 1 1\ngrid 1\nparam i64\nend\n"
                "ptx:\n.visible .entry a%d() {}\n.visible .entry b%d() {}\n",
           m, m, m, m);
}

static atomic_int resolverLaunches;
static void countLaunch(CUfunction f, const unsigned grid[3], CUstream stream,
                        void **params) {
  (void)f, (void)grid, (void)stream, (void)params;
  resolverLaunches++;
}

static void *resolvingThread(void *arg) {
  ResolverState *st = arg;
  TilusRuntimeError err;
  for (int r = 0; r < Rounds; r++) {
    // Each thread walks the images in its own order, with artifacts of its
    // own (same text, so the same modules), destroyed after use.
    int m = (r + st->thread) % NumImages;
    char text[512];
    imageText(text, sizeof(text), m);
    TilusArtifact *a = parse(text, &err);
    if (!a) {
      st->failures++;
      continue;
    }
    if (r % 3 == 0 &&
        tilusRuntimeLoadArtifact(st->rt, a, &err) != TilusStatusSuccess)
      st->failures++;
    for (int k = 0; k < 2; k++) {
      char name[16];
      snprintf(name, sizeof(name), "%c%d", k ? 'b' : 'a', m);
      TilusLoadedKernel *got = tilusRuntimeGetKernel(st->rt, a, name, &err);
      if (!got)
        st->failures++;
      else if (st->got[m][k] && st->got[m][k] != got)
        st->inconsistent++;
      else
        st->got[m][k] = got;
      // The launch by name resolves again, under the same lock.
      TilusArg arg1 = tilusArgInteger(r);
      if (tilusRuntimeLaunch(st->rt, a, name, &arg1, 1, NULL, &err) !=
          TilusStatusSuccess)
        st->failures++;
    }
    int cached = tilusRuntimeGetNumCachedModules(st->rt);
    if (cached < 1 || cached > NumImages)
      st->inconsistent++;
    tilusArtifactDestroy(a);
  }
  return NULL;
}

void testConcurrentGetKernel(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL);
  if (!rt)
    return;
  resolverLaunches = 0;
  fake.recordLaunch = countLaunch;
  fake.slowLoads = true;
  static ResolverState states[NumThreads];
  memset(states, 0, sizeof(states));
  pthread_t threads[NumThreads];
  int started = 0;
  for (int t = 0; t < NumThreads; t++) {
    states[t].rt = rt;
    states[t].thread = t;
    if (pthread_create(&threads[t], NULL, resolvingThread, &states[t]) != 0)
      break;
    started++;
  }
  CHECK(started == NumThreads);
  for (int t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
  fake.recordLaunch = NULL;

  int failures = 0, inconsistent = 0, differ = 0;
  for (int t = 0; t < started; t++) {
    failures += states[t].failures;
    inconsistent += states[t].inconsistent;
    for (int m = 0; m < NumImages; m++)
      for (int k = 0; k < 2; k++)
        differ += states[t].got[m][k] != states[0].got[m][k];
  }
  CHECK(failures == 0 && inconsistent == 0 && differ == 0);
  // One module per image and one function per kernel, whoever asked first.
  CHECK(fake.moduleLoads == NumImages);
  CHECK(tilusRuntimeGetNumCachedModules(rt) == NumImages);
  CHECK(fake.getFunctionCalls == 2 * NumImages);
  CHECK(resolverLaunches == NumThreads * Rounds * 2);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveModules == 0);
}
