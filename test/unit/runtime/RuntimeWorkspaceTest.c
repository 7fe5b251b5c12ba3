//===- RuntimeWorkspaceTest.c - Caller workspaces and capture safety -----===//
//
// tilusRuntimeLaunchKernelWithWorkspace passes the caller's buffer as the
// kernel's last parameter, refuses a missing, short or misaligned one
// before the driver, and makes no driver call that a stream capture forbids.
// The runtime-owned workspace refuses capturing streams. Kernels over the
// parameter limit are refused when loaded.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

static uint64_t paramU64(int i) {
  uint64_t v;
  memcpy(&v, fake.params[i], 8);
  return v;
}

// The eight arguments of the sample's `other` kernel (workspace 1024).
static void otherArgs(TilusArg args[8], int64_t index) {
  args[0] = tilusArgFloat(1.5);
  args[1] = tilusArgBF16Bits(0xc000);
  args[2] = tilusArgInteger(-2);
  args[3] = tilusArgInteger(65535);
  args[4] = tilusArgInteger(1);
  args[5] = tilusArgInteger(index);
  args[6] = tilusArgFloat(0.25);
  args[7] = tilusArgFloat(1.0 / 3.0);
}

// The driver calls a capture forbids or that a capture-safe launch should
// not make, counted by the fake.
typedef struct {
  int allocations, memsets, synchronizes, moduleLoads, setCurrents, getCurrents,
      isCapturing, launches;
} Calls;

static Calls calls(void) {
  Calls c = {fake.allocations,      fake.memsetCalls,     fake.synchronizeCalls,
             fake.moduleLoadCalls,  fake.setCurrentCalls, fake.getCurrentCalls,
             fake.isCapturingCalls, fake.launches};
  return c;
}

void testCallerWorkspace(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;
  TilusLoadedKernel *other = tilusRuntimeGetKernel(rt, a, "other", &err);
  TilusLoadedKernel *matmul = tilusRuntimeGetKernel(rt, a, "matmul", &err);
  CHECK(other && matmul);
  if (!other || !matmul)
    return;
  CHECK(tilusLoadedKernelGetWorkspaceBytes(other) == 1024);
  CHECK(tilusLoadedKernelGetWorkspaceBytes(matmul) == 0);
  CHECK(tilusLoadedKernelGetWorkspaceBytes(NULL) == 0);

  TilusDevicePtr ws1 = 0, ws2 = 0;
  CHECK(tilusRuntimeMalloc(rt, 1024, &ws1, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeMalloc(rt, 4096, &ws2, &err) == TilusStatusSuccess);
  CHECK(ws1 && ws2 && ws1 != ws2);

  // The caller's buffer is the extra last parameter, after the kernel's own
  // eight, and each launch gets the buffer it was given.
  TilusArg args[8];
  otherArgs(args, 7);
  fake.numParamsToRecord = 9;
  Calls before = calls();
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, other, args, 8, (void *)0x91,
                                              ws1, 1024,
                                              &err) == TilusStatusSuccess);
  CHECK(paramU64(8) == ws1 && paramU64(5) == 7);
  CHECK(fake.stream == (CUstream)0x91 && fake.shared == 65536);
  otherArgs(args, 8);
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(
            rt, other, args, 8, NULL, ws2, 4096, &err) == TilusStatusSuccess);
  CHECK(paramU64(8) == ws2 && paramU64(5) == 8);
  // Nothing allocated or zeroed: the runtime's own buffer was never needed.
  Calls after = calls();
  CHECK(after.launches == before.launches + 2);
  CHECK(after.allocations == before.allocations &&
        after.memsets == before.memsets &&
        after.synchronizes == before.synchronizes);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 0);

  // A kernel without a workspace ignores the one given (or none).
  TilusArg margs[6];
  matmulArgs(margs, 64, 64, 3);
  fake.numParamsToRecord = 6;
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(
            rt, matmul, margs, 6, NULL, ws1, 1024, &err) == TilusStatusSuccess);
  CHECK(fake.function == tilusLoadedKernelGetFunction(matmul));
  CHECK(paramU64(3) == 64 && paramU64(5) == 3);
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, matmul, margs, 6, NULL, 0, 0,
                                              &err) == TilusStatusSuccess);

  // The runtime-owned path still works beside it, with its own buffer.
  fake.numParamsToRecord = 9;
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 1024);
  uint64_t own = paramU64(8);
  CHECK(own != 0 && own != ws1 && own != ws2);
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(
            rt, other, args, 8, NULL, ws1, 1024, &err) == TilusStatusSuccess);
  CHECK(paramU64(8) == ws1);

  CHECK(tilusRuntimeFree(rt, ws1, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeFree(rt, ws2, &err) == TilusStatusSuccess);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveAllocations == 0);
}

void testCallerWorkspaceErrors(void) {
  TilusRuntimeError err;
  resetFake();
  fake.numDevices = 2;
  TilusRuntime *rt = createFake(&err);
  TilusRuntime *rt1 = createFakeOnDevice(1, &err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && rt1 && a);
  if (!rt || !rt1 || !a)
    return;
  TilusLoadedKernel *other = tilusRuntimeGetKernel(rt, a, "other", &err);
  CHECK(other != NULL);
  if (!other)
    return;
  TilusDevicePtr ws = 0;
  CHECK(tilusRuntimeMalloc(rt, 2048, &ws, &err) == TilusStatusSuccess);
  TilusArg args[8];
  otherArgs(args, 1);
  Calls before = calls();

  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, other, args, 8, NULL, 0, 1024,
                                              &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "kernel 'other' needs a workspace of 1024 bytes, but none was "
              "given");
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, other, args, 8, NULL, ws, 512,
                                              &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "kernel 'other' needs a workspace of 1024 bytes, but the one "
              "given has 512");
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, other, args, 8, NULL, ws + 16,
                                              1024, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_CONTAINS(err, "kernel 'other': the workspace given (0x");
  CHECK_CONTAINS(err, ") is not 256-byte aligned");
  // Argument errors are the same as on the other paths.
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, other, args, 7, NULL, ws,
                                              2048, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "kernel 'other' takes 8 arguments, but 7 were given");
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt1, other, args, 8, NULL, ws,
                                              2048, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "tilusRuntimeLaunchKernelWithWorkspace: kernel 'other' was "
              "loaded by another runtime");
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(NULL, other, args, 8, NULL, ws,
                                              2048, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "tilusRuntimeLaunchKernelWithWorkspace: NULL runtime or kernel");
  // Nothing was launched, allocated or set up for any of them.
  Calls after = calls();
  CHECK(after.launches == before.launches &&
        after.allocations == before.allocations &&
        after.memsets == before.memsets);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 0);

  CHECK(tilusRuntimeFree(rt, ws, &err) == TilusStatusSuccess);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt1);
  tilusRuntimeDestroy(rt);
}

void testCaptureSafeLaunch(void) {
  TilusRuntimeError err;
  resetFake();
  fake.numDevices = 2;
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;
  // Loaded before the capture begins.
  TilusLoadedKernel *other = tilusRuntimeGetKernel(rt, a, "other", &err);
  TilusLoadedKernel *matmul = tilusRuntimeGetKernel(rt, a, "matmul", &err);
  CHECK(other && matmul);
  if (!other || !matmul)
    return;
  TilusDevicePtr ws = 0;
  CHECK(tilusRuntimeMalloc(rt, 1024, &ws, &err) == TilusStatusSuccess);

  fake.captureStatus = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  TilusArg args[8], margs[6];
  otherArgs(args, 2);
  matmulArgs(margs, 32, 32, 1);
  Calls before = calls();
  for (int i = 0; i < 10; i++) {
    CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, other, args, 8,
                                                (void *)0x42, ws, 1024,
                                                &err) == TilusStatusSuccess);
    // A kernel without a workspace is capture-safe on either call.
    CHECK(tilusRuntimeLaunchKernel(rt, matmul, margs, 6, (void *)0x42, &err) ==
          TilusStatusSuccess);
  }
  // Only cuCtxGetCurrent and cuLaunchKernel: the context was current, so it
  // was not set again, and nothing was loaded, allocated, zeroed, waited for
  // or asked about the capture.
  Calls after = calls();
  CHECK(after.launches == before.launches + 20);
  CHECK(after.getCurrents == before.getCurrents + 20);
  CHECK(after.setCurrents == before.setCurrents);
  CHECK(after.allocations == before.allocations &&
        after.memsets == before.memsets &&
        after.synchronizes == before.synchronizes &&
        after.moduleLoads == before.moduleLoads &&
        after.isCapturing == before.isCapturing);

  // With another context current (another library's), the launch makes its
  // own current once, and the next launch finds it current.
  TilusDriver otherDriver = fakeDriver();
  otherDriver.api.ctxSetCurrent(fakeContextOf(1));
  before = calls();
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(
            rt, other, args, 8, NULL, ws, 1024, &err) == TilusStatusSuccess);
  CHECK(fake.launchContext == fakeContextOf(0));
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(
            rt, other, args, 8, NULL, ws, 1024, &err) == TilusStatusSuccess);
  after = calls();
  CHECK(after.setCurrents == before.setCurrents + 1);
  CHECK(after.launches == before.launches + 2);

  CHECK(tilusRuntimeFree(rt, ws, &err) == TilusStatusSuccess);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
}

void testRuntimeWorkspaceRefusedWhileCapturing(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;
  TilusLoadedKernel *other = tilusRuntimeGetKernel(rt, a, "other", &err);
  CHECK(other != NULL);
  if (!other)
    return;
  TilusArg args[8];
  otherArgs(args, 3);
  const char *refused =
      "kernel 'other' needs a workspace of 1024 bytes and the stream is "
      "being captured: the runtime's own workspace cannot be used in a CUDA "
      "graph; pass one with tilusRuntimeLaunchKernelWithWorkspace";

  // Growing would allocate, zero and synchronize inside the capture: refused
  // before any of it, whichever launch call and capture status.
  fake.captureStatus = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  Calls before = calls();
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, (void *)0x42, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument, refused);
  CHECK(tilusRuntimeLaunch(rt, a, "other", args, 8, (void *)0x42, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument, refused);
  fake.captureStatus = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, (void *)0x42, &err) ==
        TilusStatusInvalidArgument);
  Calls after = calls();
  CHECK(after.launches == before.launches &&
        after.allocations == before.allocations &&
        after.memsets == before.memsets &&
        after.synchronizes == before.synchronizes);
  CHECK(after.isCapturing == before.isCapturing + 3);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 0);

  // Not capturing: allocated (and zeroed) once.
  fake.captureStatus = CU_STREAM_CAPTURE_STATUS_NONE;
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 1024);
  CHECK(fake.allocations == after.allocations + 1 &&
        fake.memsetCalls == after.memsets + 1);
  // Large enough now, but a graph would keep an address that a later growth
  // frees: still refused while capturing.
  fake.captureStatus = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  int launches = fake.launches;
  CHECK(tilusRuntimeLaunchKernel(rt, other, args, 8, NULL, &err) ==
        TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument, refused);
  CHECK(fake.launches == launches);

  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
}

// An artifact with one kernel `many` of `numParams` i32 parameters.
static TilusArtifact *manyParams(int numParams, TilusRuntimeError *err) {
  size_t size = 256 + (size_t)numParams * 16;
  char *text = malloc(size);
  if (!text)
    return NULL;
  int used = snprintf(text, size, HEAD "kernel many\nblock 32 1 1\ngrid 1\n");
  for (int i = 0; i < numParams; i++)
    used += snprintf(text + used, size - (size_t)used, "param i32\n");
  snprintf(text + used, size - (size_t)used,
           "end\nptx:\n.visible .entry many() {}\n");
  TilusArtifact *a = parse(text, err);
  free(text);
  return a;
}

void testTooManyParams(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *over = manyParams(TILUS_MAX_KERNEL_PARAMS + 1, &err);
  TilusArtifact *limit = manyParams(TILUS_MAX_KERNEL_PARAMS, &err);
  CHECK(rt && over && limit);
  if (!rt || !over || !limit)
    return;

  // Refused when loaded, before the driver is asked anything.
  CHECK(tilusRuntimeGetKernel(rt, over, "many", &err) == NULL);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "kernel 'many' has 257 parameters; the runtime launches kernels "
              "of at most 256 (TILUS_MAX_KERNEL_PARAMS)");
  TilusArg args[TILUS_MAX_KERNEL_PARAMS + 1];
  for (int i = 0; i <= TILUS_MAX_KERNEL_PARAMS; i++)
    args[i] = tilusArgInteger(i);
  CHECK(tilusRuntimeLaunch(rt, over, "many", args, TILUS_MAX_KERNEL_PARAMS + 1,
                           NULL, &err) == TilusStatusUnsupported);
  CHECK(fake.moduleLoads == 0 && fake.launches == 0);

  // At the limit every parameter arrives.
  TilusLoadedKernel *k = tilusRuntimeGetKernel(rt, limit, "many", &err);
  CHECK(k != NULL);
  fake.numParamsToRecord = MaxFakeParams;
  CHECK(k && tilusRuntimeLaunchKernel(rt, k, args, TILUS_MAX_KERNEL_PARAMS,
                                      NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 1 && paramU64(MaxFakeParams - 1) % (1ull << 32) ==
                                  (uint64_t)(MaxFakeParams - 1));

  tilusArtifactDestroy(over);
  tilusArtifactDestroy(limit);
  tilusRuntimeDestroy(rt);
}
