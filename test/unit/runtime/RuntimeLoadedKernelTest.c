//===- RuntimeLoadedKernelTest.c - The fast launch path, fake driver -----===//
//
// tilusRuntimeGetKernel resolves a kernel once; tilusRuntimeLaunchKernel must
// then launch it without loading modules, looking functions up or allocating,
// with the same checks and messages as tilusRuntimeLaunch, in the runtime's
// own context whatever context is current.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include <time.h>

enum { NumLaunches = 1000 };

static uint64_t paramU64(int i) {
  uint64_t v;
  memcpy(&v, fake.params[i], 8);
  return v;
}

void testLoadedKernelResolvesOnce(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;

  TilusLoadedKernel *matmul = tilusRuntimeGetKernel(rt, a, "matmul", &err);
  CHECK(matmul != NULL);
  CHECK(fake.moduleLoads == 1 && fake.getFunctionCalls == 1);
  // Asking again gives the same kernel and asks the driver nothing.
  CHECK(tilusRuntimeGetKernel(rt, a, "matmul", &err) == matmul);
  CHECK(fake.moduleLoads == 1 && fake.getFunctionCalls == 1);
  CHECK(tilusRuntimeGetNumCachedModules(rt) == 1);

  // 1000 launches with changing arguments: no module load, no function
  // lookup, no host allocation, and every launch gets its own arguments.
  TilusArg args[8];
  fake.numParamsToRecord = 6;
  int failures = 0, wrongLaunches = 0;
  unsigned long allocationsBefore = allocationCount();
  for (int i = 0; i < NumLaunches; i++) {
    matmulArgs(args, 16 * (i + 1), 64, -i);
    if (tilusRuntimeLaunchKernel(rt, matmul, args, 6, (void *)0x77, &err) !=
        TilusStatusSuccess)
      failures++;
    // Recorded by the fake, read without allocating.
    if (fake.grid[0] != (unsigned)(i + 1) || paramU64(3) != 16u * (i + 1) ||
        (int32_t)paramU64(5) != -i)
      wrongLaunches++;
  }
  unsigned long allocations = allocationCount() - allocationsBefore;
  CHECK(failures == 0 && wrongLaunches == 0);
  CHECK(fake.launches == NumLaunches);
  CHECK(fake.moduleLoads == 1 && fake.getFunctionCalls == 1);
  CHECK(fake.function == tilusLoadedKernelGetFunction(matmul));
  CHECK(fake.grid[1] == 8 && fake.block[0] == 128 &&
        fake.stream == (CUstream)0x77);
  if (canCountAllocations())
    CHECK(allocations == 0);
  else
    printf("note: allocations not counted in this build\n");

  // A kernel with a workspace and > 48 KiB of shared memory: the first
  // launch allocates the workspace, later ones allocate nothing and pass the
  // same buffer.
  TilusLoadedKernel *other = tilusRuntimeGetKernel(rt, a, "other", &err);
  CHECK(other != NULL && other != matmul);
  CHECK(fake.setAttributeCalls == 1 && fake.sharedAttribute == 65536);
  args[0] = tilusArgFloat(1.5);
  args[1] = tilusArgBF16Bits(0xc000);
  args[2] = tilusArgInteger(-2);
  args[3] = tilusArgInteger(65535);
  args[4] = tilusArgInteger(1);
  args[5] = tilusArgInteger(-5);
  args[6] = tilusArgFloat(0.25);
  args[7] = tilusArgFloat(1.0 / 3.0);
  fake.numParamsToRecord = 9;
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) ==
        TilusStatusSuccess);
  uint64_t workspace = paramU64(8);
  CHECK(workspace != 0 && fake.allocations == 1);
  failures = 0;
  allocationsBefore = allocationCount();
  for (int i = 0; i < NumLaunches; i++)
    if (tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) !=
            TilusStatusSuccess ||
        paramU64(8) != workspace)
      failures++;
  allocations = allocationCount() - allocationsBefore;
  CHECK(failures == 0);
  if (canCountAllocations())
    CHECK(allocations == 0);
  CHECK(fake.allocations == 1 && fake.setAttributeCalls == 1);
  CHECK(fake.shared == 65536 && fake.params[2][0] == 0xfe);
  CHECK(fake.moduleLoads == 1 && fake.getFunctionCalls == 2);

  // The launch by name looks up again, but never reloads or re-resolves.
  matmulArgs(args, 100, 64, 1);
  fake.numParamsToRecord = 6;
  failures = 0;
  for (int i = 0; i < NumLaunches; i++)
    if (tilusRuntimeLaunch(rt, a, "matmul", args, 6, NULL, &err) !=
        TilusStatusSuccess)
      failures++;
  CHECK(failures == 0);
  CHECK(fake.function == tilusLoadedKernelGetFunction(matmul));
  CHECK(fake.moduleLoads == 1 && fake.getFunctionCalls == 2);
  CHECK(fake.launches == 3 * NumLaunches + 1);

  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveModules == 0 && fake.liveAllocations == 0);
}

void testLoadedKernelTensorMaps(void) {
  // Tensor maps keep the fast path free of allocation: each launch encodes
  // its maps into its own stack, from its own arguments.
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(tensorMapArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;
  TilusLoadedKernel *k = tilusRuntimeGetKernel(rt, a, "tma", &err);
  CHECK(k != NULL);
  if (!k)
    return;
  TilusArg args[6];
  tmaArgs(args, 64, 512, 384, 3);
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, &err) ==
        TilusStatusSuccess); // allocates the runtime's workspace
  fake.numParamsToRecord = 9;
  fake.paramBytes[6] = fake.paramBytes[7] = 128;
  int failures = 0, wrongLaunches = 0;
  unsigned long allocationsBefore = allocationCount();
  for (int i = 0; i < NumLaunches; i++) {
    tmaArgs(args, 64 * (i + 1), 512, 16 * (i + 1), 3);
    if (tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, &err) !=
        TilusStatusSuccess)
      failures++;
    // This launch's two encodes carry its M and N, and its maps reached
    // the kernel in order.
    int call = fake.encodeCalls;
    if (fake.grid[0] != (unsigned)(i + 1) ||
        fakeEncode(call - 1)->globalDim[1] != 64u * (i + 1) ||
        fakeEncode(call)->globalDim[1] != 16u * (i + 1) ||
        paramU64(6) != FAKE_TENSOR_MAP_MAGIC ||
        memcmp(fake.params[6] + 16, &(uint64_t){(uint64_t)call - 1}, 8) ||
        memcmp(fake.params[7] + 16, &(uint64_t){(uint64_t)call}, 8) ||
        fake.paramAddress[6] % 64 || fake.paramAddress[7] % 64)
      wrongLaunches++;
  }
  unsigned long allocations = allocationCount() - allocationsBefore;
  CHECK(failures == 0 && wrongLaunches == 0);
  CHECK(fake.encodeCalls == 2 * NumLaunches + 2);
  CHECK(fake.launches == NumLaunches + 1 && fake.allocations == 1);
  if (canCountAllocations())
    CHECK(allocations == 0);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
}

// Launches `args` both ways, expecting the failure `code` with `message`
// from each, and nothing launched.
static void expectSameError(TilusRuntime *rt, const TilusArtifact *a,
                            TilusLoadedKernel *k, const char *kernel,
                            const TilusArg *args, int numArgs, TilusStatus code,
                            const char *message) {
  TilusRuntimeError byName, loaded;
  int launchesBefore = fake.launches;
  CHECK(tilusRuntimeLaunch(rt, a, kernel, args, numArgs, NULL, &byName) ==
        code);
  CHECK_ERROR(byName, code, message);
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, numArgs, NULL, &loaded) == code);
  CHECK_ERROR(loaded, code, message);
  // Without an error struct: the same status, and no crash.
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, numArgs, NULL, NULL) == code);
  CHECK(fake.launches == launchesBefore);
}

void testLoadedKernelSameErrors(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;
  TilusLoadedKernel *matmul = tilusRuntimeGetKernel(rt, a, "matmul", &err);
  TilusLoadedKernel *other = tilusRuntimeGetKernel(rt, a, "other", &err);
  CHECK(matmul && other);
  if (!matmul || !other)
    return;

  TilusArg args[8];
  matmulArgs(args, 100, 64, 32);
  expectSameError(rt, a, matmul, "matmul", args, 5, TilusStatusArgumentMismatch,
                  "kernel 'matmul' takes 6 arguments, but 5 were given");
  expectSameError(rt, a, matmul, "matmul", NULL, 6, TilusStatusInvalidArgument,
                  "launch of kernel 'matmul': NULL argument array");
  args[0] = tilusArgPointer(0);
  expectSameError(rt, a, matmul, "matmul", args, 6, TilusStatusArgumentMismatch,
                  "argument 0 of kernel 'matmul' is a null pointer");
  matmulArgs(args, 100, 64, 32);
  args[1] = tilusArgInteger(5);
  expectSameError(rt, a, matmul, "matmul", args, 6, TilusStatusArgumentMismatch,
                  "argument 1 of kernel 'matmul' is an integer, but parameter "
                  "1 has type 'ptr ui8'");
  matmulArgs(args, 100, 64, 32);
  args[4] = tilusArgFloat(64.0);
  expectSameError(rt, a, matmul, "matmul", args, 6, TilusStatusArgumentMismatch,
                  "argument 4 of kernel 'matmul' is a float, but parameter 4 "
                  "has type 'i32'");
  matmulArgs(args, 100, 64, INT64_C(1) << 32);
  expectSameError(rt, a, matmul, "matmul", args, 6, TilusStatusArgumentMismatch,
                  "argument 5 of kernel 'matmul' is 4294967296, which does "
                  "not fit parameter type 'i32' (-2147483648..4294967295)");
  matmulArgs(args, 0, 64, 32);
  expectSameError(rt, a, matmul, "matmul", args, 6, TilusStatusGridError,
                  "grid dimension x of kernel 'matmul' ('s3 ceildiv 16') is "
                  "0; it must be in 1..2147483647");
  matmulArgs(args, 100, 65536 * 8, 32);
  expectSameError(rt, a, matmul, "matmul", args, 6, TilusStatusGridError,
                  "grid dimension y of kernel 'matmul' ('s4 floordiv 8') is "
                  "65536; it must be in 1..65535");

  args[0] = tilusArgBF16Bits(0x3f80);
  args[1] = tilusArgF16Bits(0x3c00);
  args[2] = tilusArgInteger(0);
  args[3] = tilusArgInteger(0);
  args[4] = tilusArgInteger(0);
  args[5] = tilusArgInteger(0);
  args[6] = tilusArgFloat(0.25);
  args[7] = tilusArgFloat(-3.0);
  expectSameError(rt, a, other, "other", args, 8, TilusStatusArgumentMismatch,
                  "argument 0 of kernel 'other' is bf16 bits, but parameter 0 "
                  "has type 'f16'");
  args[0] = tilusArgF16Bits(0x3c00);
  expectSameError(rt, a, other, "other", args, 8, TilusStatusArgumentMismatch,
                  "argument 1 of kernel 'other' is f16 bits, but parameter 1 "
                  "has type 'bf16'");
  args[1] = tilusArgBF16Bits(0x3f80);
  args[2] = tilusArgInteger(128);
  expectSameError(rt, a, other, "other", args, 8, TilusStatusArgumentMismatch,
                  "argument 2 of kernel 'other' is 128, which does not fit "
                  "parameter type 'si8' (-128..127)");
  args[2] = tilusArgInteger(0);
  args[3] = tilusArgInteger(-1);
  expectSameError(rt, a, other, "other", args, 8, TilusStatusArgumentMismatch,
                  "argument 3 of kernel 'other' is -1, which does not fit "
                  "parameter type 'ui16' (0..65535)");
  args[3] = tilusArgInteger(0);
  args[4] = tilusArgInteger(2);
  expectSameError(rt, a, other, "other", args, 8, TilusStatusArgumentMismatch,
                  "argument 4 of kernel 'other' is 2, which does not fit "
                  "parameter type 'i1' (-1..1)");
  args[4] = tilusArgInteger(0);
  args[6] = tilusArgPointer(0x10);
  expectSameError(rt, a, other, "other", args, 8, TilusStatusArgumentMismatch,
                  "argument 6 of kernel 'other' is a pointer, but parameter 6 "
                  "has type 'f32'");

  // Good arguments give the same bytes both ways.
  args[6] = tilusArgFloat(0.25);
  fake.numParamsToRecord = 8;
  CHECK(tilusRuntimeLaunch(rt, a, "other", args, 8, NULL, &err) ==
        TilusStatusSuccess);
  unsigned char byName[8][8];
  for (int i = 0; i < 8; i++)
    memcpy(byName[i], fake.params[i], 8);
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) ==
        TilusStatusSuccess);
  int differing = 0;
  for (int i = 0; i < 8; i++)
    differing += memcmp(byName[i], fake.params[i], 8) != 0;
  CHECK(differing == 0);

  // A driver failure at launch: the same words too.
  fake.launchResult = CUDA_ERROR_INVALID_VALUE;
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) ==
        TilusStatusCudaError);
  CHECK_ERROR(err, TilusStatusCudaError,
              "cuLaunchKernel for kernel 'other' failed: "
              "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  CHECK(err.cudaResult == CUDA_ERROR_INVALID_VALUE);
  fake.launchResult = CUDA_SUCCESS;

  // Misuse of the handle.
  CHECK(tilusRuntimeLaunchKernel(rt, NULL, args, 8, NULL, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "tilusRuntimeLaunchKernel: NULL runtime or kernel");
  CHECK(tilusRuntimeLaunchKernel(NULL, other, args, 8, NULL, &err) ==
        TilusStatusInvalidArgument);

  // Resolving fails as the launch by name does, and loads nothing more.
  CHECK(tilusRuntimeGetKernel(rt, a, "foo", &err) == NULL);
  CHECK_ERROR(err, TilusStatusNoSuchKernel,
              "no kernel 'foo' in the artifact; it has: matmul, other");
  CHECK(tilusRuntimeGetKernel(rt, a, NULL, &err) == NULL);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "tilusRuntimeGetKernel: NULL runtime, artifact or kernel name");
  CHECK(tilusRuntimeGetKernel(NULL, a, "matmul", NULL) == NULL);
  CHECK(fake.moduleLoads == 1);
  tilusArtifactDestroy(a);

  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid 1\nshared 300000\nend\n" PTX_K,
            &err);
  CHECK(tilusRuntimeGetKernel(rt, a, "k", &err) == NULL);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "kernel 'k' needs 300000 bytes of dynamic shared memory, but "
              "device 0 (Fake GPU 0) allows at most 232448");
  CHECK(fake.moduleLoads == 1);
  tilusArtifactDestroy(a);

  a = parse(HEAD "kernel broken\nblock 1 1 1\ngrid 1\nend\n"
                 "ptx:\n.entry broken() { BROKEN; }\n",
            &err);
  CHECK(tilusRuntimeGetKernel(rt, a, "broken", &err) == NULL);
  CHECK_CONTAINS(err, "cuModuleLoadDataEx for kernel 'broken' failed: "
                      "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): "
                      "ptxas application ptx input, line 3;");
  tilusArtifactDestroy(a);

  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\n"
                 "ptx:\n// .entry k is only in a comment\n",
            &err);
  CHECK(tilusRuntimeGetKernel(rt, a, "k", &err) == NULL);
  CHECK_ERROR(err, TilusStatusCudaError,
              "cuModuleGetFunction for kernel 'k' failed: "
              "CUDA_ERROR_NOT_FOUND (named symbol not found)");
  tilusArtifactDestroy(a);

  // Grid evaluation errors, through the kernel's symbols.
  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid s0 floordiv s1\n"
                 "param i64\nparam i64\nend\n" PTX_K,
            &err);
  TilusLoadedKernel *k = tilusRuntimeGetKernel(rt, a, "k", &err);
  CHECK(k != NULL);
  args[0] = tilusArgInteger(10);
  args[1] = tilusArgInteger(0);
  expectSameError(rt, a, k, "k", args, 2, TilusStatusGridError,
                  "grid dimension x of kernel 'k' ('s0 floordiv s1'): "
                  "division by zero in 'floordiv' at column 4");
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveModules == 0 && fake.liveAllocations == 0);
}

void testLoadedKernelOutlivesArtifact(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL);
  if (!rt)
    return;
  TilusArtifact *a = parse(sampleArtifact, &err);
  TilusLoadedKernel *matmul = tilusRuntimeGetKernel(rt, a, "matmul", &err);
  CHECK(matmul != NULL);
  // The kernel keeps its own copy of everything it needs.
  tilusArtifactDestroy(a);
  TilusArg args[6];
  matmulArgs(args, 33, 64, 7);
  fake.numParamsToRecord = 6;
  CHECK(tilusRuntimeLaunchKernel(rt, matmul, args, 6, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.grid[0] == 3 && fake.grid[1] == 8 && fake.block[0] == 128);
  CHECK(paramU64(0) == 0x1000 && paramU64(3) == 33 && paramU64(5) == 7);
  matmulArgs(args, 33, 64, INT64_C(1) << 32);
  CHECK(tilusRuntimeLaunchKernel(rt, matmul, args, 6, NULL, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_CONTAINS(err, "does not fit parameter type 'i32'");

  // Another artifact object with the same content: the same kernel.
  TilusArtifact *twin = parse(sampleArtifact, &err);
  CHECK(tilusRuntimeGetKernel(rt, twin, "matmul", &err) == matmul);
  CHECK(fake.moduleLoads == 1 && fake.getFunctionCalls == 1);
  tilusArtifactDestroy(twin);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveModules == 0);
}

void testLoadedKernelSharedImage(void) {
  // Two manifests over one PTX: the same entry, described differently.
  static const char *const bigShared =
      HEAD "kernel k\nblock 1 1 1\ngrid s0\nshared 98304\nparam i32\nend\n"
           "ptx:\n.visible .entry k() {}\n";
  static const char *const smallShared =
      HEAD "kernel k\nblock 1 1 1\ngrid s0\nshared 65536\nparam i64\nend\n"
           "ptx:\n.visible .entry k() {}\n";
  TilusRuntimeError err;
  TilusArg args[1] = {tilusArgInteger(INT64_C(1) << 40)};
  for (int order = 0; order < 2; order++) {
    resetFake();
    TilusRuntime *rt = createFake(&err);
    TilusArtifact *big = parse(bigShared, &err);
    TilusArtifact *small = parse(smallShared, &err);
    CHECK(rt && big && small);
    if (!rt || !big || !small)
      return;
    TilusLoadedKernel *first =
        tilusRuntimeGetKernel(rt, order ? small : big, "k", &err);
    TilusLoadedKernel *second =
        tilusRuntimeGetKernel(rt, order ? big : small, "k", &err);
    TilusLoadedKernel *bigKernel = order ? second : first;
    TilusLoadedKernel *smallKernel = order ? first : second;
    CHECK(first && second && first != second);
    // One module and one CUfunction, whose shared-memory limit only grows.
    CHECK(fake.moduleLoads == 1);
    CHECK(tilusLoadedKernelGetFunction(first) ==
          tilusLoadedKernelGetFunction(second));
    CHECK(fake.sharedAttribute == 98304);
    CHECK(fake.setAttributeCalls == (order ? 2 : 1));
    // Each checks against its own parameter table.
    CHECK(tilusRuntimeLaunchKernel(rt, smallKernel, args, 1, NULL, &err) ==
          TilusStatusGridError); // 2^40 fits i64, not the grid's x
    CHECK(tilusRuntimeLaunchKernel(rt, bigKernel, args, 1, NULL, &err) ==
          TilusStatusArgumentMismatch);
    CHECK_CONTAINS(err, "does not fit parameter type 'i32'");
    TilusArg one = tilusArgInteger(1);
    CHECK(tilusRuntimeLaunchKernel(rt, bigKernel, &one, 1, NULL, &err) ==
              TilusStatusSuccess &&
          fake.shared == 98304);
    CHECK(tilusRuntimeLaunchKernel(rt, smallKernel, &one, 1, NULL, &err) ==
              TilusStatusSuccess &&
          fake.shared == 65536);
    tilusArtifactDestroy(big);
    tilusArtifactDestroy(small);
    tilusRuntimeDestroy(rt);
  }
}

void testLoadedKernelContexts(void) {
  TilusRuntimeError err;
  resetFake();
  fake.numDevices = 2;
  TilusRuntime *rt0 = createFakeOnDevice(0, &err);
  TilusRuntime *rt1 = createFakeOnDevice(1, &err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt0 && rt1 && a);
  if (!rt0 || !rt1 || !a)
    return;
  CUcontext ctx0 = fakeContextOf(0), ctx1 = fakeContextOf(1);

  // One module per context: the same artifact loads once on each device.
  TilusLoadedKernel *k0 = tilusRuntimeGetKernel(rt0, a, "matmul", &err);
  TilusLoadedKernel *k1 = tilusRuntimeGetKernel(rt1, a, "matmul", &err);
  CHECK(k0 && k1 && k0 != k1);
  if (!k0 || !k1)
    return;
  CHECK(fake.moduleLoads == 2);
  CHECK(fake.moduleContext[0] == ctx0 && fake.moduleContext[1] == ctx1);

  // Whatever another library made current, each runtime launches in its
  // own context (the fake refuses a function of a context not current).
  TilusDriver other = fakeDriver();
  TilusArg args[6];
  matmulArgs(args, 100, 64, 32);
  int failures = 0, wrongContext = 0;
  for (int i = 0; i < NumLaunches; i++) {
    bool onDevice1 = i % 2;
    other.api.ctxSetCurrent(onDevice1 ? ctx0 : ctx1); // the other one
    if (tilusRuntimeLaunchKernel(onDevice1 ? rt1 : rt0, onDevice1 ? k1 : k0,
                                 args, 6, NULL, &err) != TilusStatusSuccess)
      failures++;
    if (fake.launchContext != (onDevice1 ? ctx1 : ctx0) ||
        fake.function != tilusLoadedKernelGetFunction(onDevice1 ? k1 : k0))
      wrongContext++;
  }
  CHECK(failures == 0 && wrongContext == 0);
  CHECK(fake.launches == NumLaunches);
  CHECK(fake.moduleLoads == 2 && fake.getFunctionCalls == 2);

  // A kernel launched through a runtime that did not load it is refused
  // before the driver: its function is not in that runtime's context.
  CHECK(tilusRuntimeLaunchKernel(rt1, k0, args, 6, NULL, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "tilusRuntimeLaunchKernel: kernel 'matmul' was loaded by "
              "another runtime");
  CHECK(fake.launches == NumLaunches);

  // Runtimes are independent: one going away leaves the other's kernels.
  tilusRuntimeDestroy(rt1);
  other.api.ctxSetCurrent(ctx1);
  CHECK(tilusRuntimeLaunchKernel(rt0, k0, args, 6, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.launchContext == ctx0);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt0);
  CHECK(fake.liveModules == 0 && fake.contextReleases == 2);
}

// Seconds on the monotonic clock.
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// The best of 5 batches of 200 launches, in seconds: the minimum discards
// preemptions by other processes.
static double bestBatchTime(TilusRuntime *rt, TilusLoadedKernel *k,
                            int *failures) {
  TilusArg n = tilusArgInteger(1);
  double best = 1e9;
  for (int repeat = 0; repeat < 5; repeat++) {
    double start = now();
    for (int i = 0; i < 200; i++)
      if (tilusRuntimeLaunchKernel(rt, k, &n, 1, NULL, NULL) !=
          TilusStatusSuccess)
        (*failures)++;
    double elapsed = now() - start;
    best = elapsed < best ? elapsed : best;
  }
  return best;
}

void testLoadedKernelCostIndependentOfImage(void) {
  // The issue this path fixes: launches that hash (or compare) the whole
  // image cost time in proportion to the PTX size. An 8 MiB image makes any
  // per-launch pass over it take milliseconds per batch (a byte loop or
  // memcmp over 8 MiB is >= 0.2 ms, x200), while a launch that only touches
  // the resolved kernel takes microseconds per batch whatever the size. The
  // bound below sits far from both.
  static const char manifest[] =
      HEAD "kernel k\nblock 32 1 1\ngrid s0\nparam i32\nend\nptx:\n"
           ".visible .entry k() {}\n";
  size_t padding = (size_t)8 << 20;
  size_t smallSize = sizeof(manifest) - 1;
  char *text = malloc(smallSize + padding + 1);
  CHECK(text != NULL);
  if (!text)
    return;
  memcpy(text, manifest, smallSize);
  memset(text + smallSize, '\n', padding); // blank lines of PTX
  text[smallSize + padding] = '\0';

  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *small = tilusArtifactParse(text, smallSize, &err);
  TilusArtifact *big = tilusArtifactParse(text, smallSize + padding, &err);
  free(text);
  CHECK(rt && small && big);
  if (!rt || !small || !big)
    return;
  TilusLoadedKernel *smallKernel = tilusRuntimeGetKernel(rt, small, "k", &err);
  TilusLoadedKernel *bigKernel = tilusRuntimeGetKernel(rt, big, "k", &err);
  CHECK(smallKernel && bigKernel && fake.moduleLoads == 2);
  if (!smallKernel || !bigKernel)
    return;
  int failures = 0;
  double smallTime = bestBatchTime(rt, smallKernel, &failures);
  double bigTime = bestBatchTime(rt, bigKernel, &failures);
  CHECK(failures == 0);
  CHECK(bigTime < 20 * smallTime + 1e-3);
  if (!(bigTime < 20 * smallTime + 1e-3))
    fprintf(stderr, "  200 launches: %.1f us (tiny PTX), %.1f us (8 MiB)\n",
            smallTime * 1e6, bigTime * 1e6);
  tilusArtifactDestroy(small);
  tilusArtifactDestroy(big);
  tilusRuntimeDestroy(rt);
}
