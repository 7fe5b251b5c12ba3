//===- RuntimeFakeDriverTest.c - The launch path against a fake driver ---===//

#include "RuntimeTestSupport.h"

void testFakeCreate(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL);
  if (!rt)
    return;
  int major = 0, minor = 0;
  tilusRuntimeGetComputeCapability(rt, &major, &minor);
  CHECK(major == 9 && minor == 0);
  CHECK(!strcmp(tilusRuntimeGetDeviceName(rt), "Fake GPU 0"));
  CHECK(tilusRuntimeGetDriverVersion(rt) == 12080);
  CHECK(fake.contextRetains == 1 && fake.setCurrentCalls >= 1);
  tilusRuntimeDestroy(rt);
  CHECK(fake.contextReleases == 1);

  resetFake();
  fake.initResult = CUDA_ERROR_NO_DEVICE;
  CHECK(createFake(&err) == NULL);
  CHECK_ERROR(err, TilusStatusNoDevice,
              "no CUDA device: cuInit reports CUDA_ERROR_NO_DEVICE (no "
              "CUDA-capable device is detected)");
  resetFake();
  fake.initResult = CUDA_ERROR_STUB_LIBRARY;
  CHECK(createFake(&err) == NULL);
  CHECK(err.code == TilusStatusDriverNotFound);
  resetFake();
  fake.numDevices = 0;
  CHECK(createFake(&err) == NULL);
  CHECK_ERROR(err, TilusStatusNoDevice,
              "no CUDA device: the driver reports none");
  resetFake();
  TilusDriver d = fakeDriver();
  CHECK(tilusRuntimeCreateWithDriver(&d, 3, &err) == NULL);
  CHECK_ERROR(err, TilusStatusNoDevice,
              "no CUDA device 3: the driver reports 1 device");
  CHECK(fake.contextRetains == 0);
}

static uint16_t slotU16(int i) {
  uint16_t v;
  memcpy(&v, fake.params[i], 2);
  return v;
}
static uint64_t slotU64(int i) {
  uint64_t v;
  memcpy(&v, fake.params[i], 8);
  return v;
}

void testFakeLaunch(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;

  // Parameters reach the driver as the kernel's bytes.
  TilusArg args[8];
  matmulArgs(args, 100, 64, -1);
  fake.numParamsToRecord = 6;
  int setCurrentBefore = fake.setCurrentCalls;
  CHECK(tilusRuntimeLaunch(rt, a, "matmul", args, 6, (void *)0x77, &err) ==
        TilusStatusSuccess);
  CHECK(fake.setCurrentCalls > setCurrentBefore);
  CHECK(fake.launches == 1 && fake.moduleLoads == 1);
  CHECK(fake.grid[0] == 7 && fake.grid[1] == 8 && fake.grid[2] == 1);
  CHECK(fake.block[0] == 128 && fake.block[1] == 1 && fake.shared == 0);
  CHECK(fake.stream == (CUstream)0x77);
  CHECK(slotU64(0) == 0x1000 && slotU64(2) == 0x3000);
  CHECK(slotU64(3) == 100);
  CHECK(!memcmp(fake.params[5], "\xff\xff\xff\xff", 4)); // -1 as i32
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 0);

  // Same image, again and through another artifact object: one module.
  CHECK(tilusRuntimeLaunch(rt, a, "matmul", args, 6, NULL, &err) ==
        TilusStatusSuccess);
  TilusArtifact *twin = parse(sampleArtifact, &err);
  CHECK(tilusRuntimeLoadArtifact(rt, twin, &err) == TilusStatusSuccess);
  tilusArtifactDestroy(twin);
  CHECK(tilusRuntimeLaunch(rt, a, "matmul", args, 6, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.moduleLoads == 1 && tilusRuntimeGetNumCachedModules(rt) == 1);
  CHECK(fake.launches == 3);

  // A failed check launches nothing and loads nothing.
  args[2] = tilusArgPointer(0);
  CHECK(tilusRuntimeLaunch(rt, a, "matmul", args, 6, NULL, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 2 of kernel 'matmul' is a null pointer");
  CHECK(fake.launches == 3);

  // The other kernel: > 48 KiB of shared memory, a workspace, narrow types.
  args[0] = tilusArgFloat(1.5);       // f16 0x3e00
  args[1] = tilusArgFloat(-2.0);      // bf16 0xc000
  args[2] = tilusArgInteger(-2);      // si8 0xfe
  args[3] = tilusArgInteger(65535);   // ui16
  args[4] = tilusArgInteger(1);       // i1
  args[5] = tilusArgInteger(-5);      // index
  args[6] = tilusArgFloat(0.25);      // f32
  args[7] = tilusArgFloat(1.0 / 3.0); // f64
  fake.numParamsToRecord = 9;
  CHECK(tilusRuntimeLaunch(rt, a, "other", args, 8, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.shared == 65536 && fake.block[1] == 4 && fake.grid[0] == 4);
  CHECK(fake.setAttributeCalls == 1 && fake.sharedAttribute == 65536);
  CHECK(slotU16(0) == 0x3e00 && slotU16(1) == 0xc000);
  CHECK(fake.params[2][0] == 0xfe && slotU16(3) == 0xffff);
  CHECK(fake.params[4][0] == 1 && slotU64(5) == (uint64_t)-5);
  float f32;
  double f64;
  memcpy(&f32, fake.params[6], 4);
  memcpy(&f64, fake.params[7], 8);
  CHECK(f32 == 0.25f && f64 == 1.0 / 3.0);
  // The workspace is the extra last parameter, zeroed when allocated.
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 1024 && fake.allocations == 1);
  uint64_t workspace = slotU64(8);
  CHECK(workspace != 0);
  unsigned char bytes[1024];
  CHECK(tilusRuntimeCopyToHost(rt, bytes, workspace, 1024, &err) ==
        TilusStatusSuccess);
  CHECK(bytes[0] == 0 && bytes[1023] == 0);
  // Relaunching reuses both the workspace and the shared-memory opt-in.
  CHECK(tilusRuntimeLaunch(rt, a, "other", args, 8, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.setAttributeCalls == 1 && fake.allocations == 1);
  CHECK(slotU64(8) == workspace);

  // A driver failure names the call, the kernel and the driver's words.
  fake.launchResult = CUDA_ERROR_INVALID_VALUE;
  CHECK(tilusRuntimeLaunch(rt, a, "other", args, 8, NULL, &err) ==
        TilusStatusCudaError);
  CHECK_ERROR(err, TilusStatusCudaError,
              "cuLaunchKernel for kernel 'other' failed: "
              "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  CHECK(err.cudaResult == CUDA_ERROR_INVALID_VALUE);
  fake.launchResult = CUDA_SUCCESS;

  // Memory helpers.
  TilusDevicePtr p = 0;
  CHECK(tilusRuntimeMalloc(rt, 16, &p, &err) == TilusStatusSuccess && p);
  CHECK(tilusRuntimeMemset(rt, p, 0xab, 16, &err) == TilusStatusSuccess);
  const char hello[] = "hello";
  CHECK(tilusRuntimeCopyToDevice(rt, p, hello, 5, &err) == TilusStatusSuccess);
  char back[16];
  CHECK(tilusRuntimeCopyToHost(rt, back, p, 16, &err) == TilusStatusSuccess);
  CHECK(!memcmp(back, "hello", 5) && (unsigned char)back[15] == 0xab);
  CHECK(tilusRuntimeFree(rt, p, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeMalloc(rt, 0, &p, &err) == TilusStatusInvalidArgument);
  void *stream = NULL, *start = NULL, *end = NULL;
  float ms = 0;
  CHECK(tilusRuntimeStreamCreate(rt, &stream, &err) == TilusStatusSuccess);
  CHECK(stream == (void *)(uintptr_t)(0x5000 + CU_STREAM_NON_BLOCKING));
  CHECK(tilusRuntimeEventCreate(rt, &start, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeEventCreate(rt, &end, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeEventRecord(rt, start, stream, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeEventElapsed(rt, start, end, &ms, &err) ==
            TilusStatusSuccess &&
        ms == 2.5f);
  CHECK(tilusRuntimeEventDestroy(rt, start, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeEventDestroy(rt, end, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeStreamSynchronize(rt, stream, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeStreamDestroy(rt, stream, &err) == TilusStatusSuccess);
  CHECK(tilusRuntimeSynchronize(rt, &err) == TilusStatusSuccess);

  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  // Destroy gives everything back.
  CHECK(fake.liveModules == 0 && fake.liveAllocations == 0);
  CHECK(fake.contextReleases == 1);
}

void testFakeWorkspaceGrowth(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a =
      parse(HEAD "kernel small\nblock 32 1 1\ngrid 1\nworkspace 256\nend\n"
                 "kernel big\nblock 32 1 1\ngrid 1\nworkspace 4096\nend\n"
                 "kernel mid\nblock 32 1 1\ngrid 1\nworkspace 1024\nend\n"
                 "ptx:\n.entry small() {}\n.entry big() {}\n.entry mid() {}\n",
            &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;
  fake.numParamsToRecord = 1;
  CHECK(tilusRuntimeLaunch(rt, a, "small", NULL, 0, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 256 && fake.allocations == 1);
  CHECK(tilusRuntimeLaunch(rt, a, "big", NULL, 0, NULL, &err) ==
        TilusStatusSuccess);
  uint64_t big = slotU64(0);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 4096 && fake.allocations == 2);
  CHECK(fake.liveAllocations == 1); // the small one was freed
  CHECK(tilusRuntimeLaunch(rt, a, "mid", NULL, 0, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(tilusRuntimeLaunch(rt, a, "small", NULL, 0, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 4096 && fake.allocations == 2);
  CHECK(slotU64(0) == big);
  CHECK(fake.launches == 4 && fake.moduleLoads == 1);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveAllocations == 0 && fake.liveModules == 0);
}

void testFakeModuleErrors(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL);
  if (!rt)
    return;

  // The JIT's log comes back in the message, on one line.
  TilusArtifact *a = parse(HEAD "kernel broken\nblock 1 1 1\ngrid 1\nend\n"
                                "ptx:\n.entry broken() { BROKEN; }\n",
                           &err);
  CHECK(tilusRuntimeLaunch(rt, a, "broken", NULL, 0, NULL, &err) ==
        TilusStatusCudaError);
  CHECK_ERROR(err, TilusStatusCudaError,
              "cuModuleLoadDataEx for kernel 'broken' failed: "
              "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed): ptxas "
              "application ptx input, line 3; error   : Unknown symbol "
              "'bogus';ptxas fatal   : Ptx assembly aborted due to errors");
  CHECK(err.cudaResult == CUDA_ERROR_INVALID_PTX);
  CHECK(tilusRuntimeLoadArtifact(rt, a, &err) == TilusStatusCudaError);
  CHECK_CONTAINS(err, "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX");
  CHECK(tilusRuntimeGetNumCachedModules(rt) == 0 && fake.launches == 0);
  tilusArtifactDestroy(a);

  // A kernel missing from the module at run time.
  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\n"
                 "ptx:\n// .entry k is only in a comment\n",
            &err);
  CHECK(a != NULL);
  CHECK(tilusRuntimeLaunch(rt, a, "k", NULL, 0, NULL, &err) ==
        TilusStatusCudaError);
  CHECK_ERROR(err, TilusStatusCudaError,
              "cuModuleGetFunction for kernel 'k' failed: "
              "CUDA_ERROR_NOT_FOUND (named symbol not found)");
  tilusArtifactDestroy(a);

  // More shared memory than the device allows: refused before the driver.
  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid 1\nshared 300000\nend\n" PTX_K,
            &err);
  CHECK(tilusRuntimeLaunch(rt, a, "k", NULL, 0, NULL, &err) ==
        TilusStatusUnsupported);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "kernel 'k' needs 300000 bytes of dynamic shared memory, but "
              "device 0 (Fake GPU 0) allows at most 232448");
  CHECK(fake.launches == 0);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveModules == 0);

  // Targets: sm_90a needs exactly 9.0; PTX runs forward, cubins do not.
  resetFake();
  fake.ccMajor = 8;
  rt = createFake(&err);
  a = parse(sampleArtifact, &err); // sm_90a
  CHECK(tilusRuntimeLoadArtifact(rt, a, &err) == TilusStatusUnsupported);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "the artifact targets sm_90a, which cannot run on device 0 "
              "(Fake GPU 0, compute capability 8.0)");
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);

  resetFake();
  rt = createFake(&err); // 9.0
  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\n" PTX_K, &err);
  CHECK(tilusRuntimeLoadArtifact(rt, a, &err) == TilusStatusSuccess);
  tilusArtifactDestroy(a);
  static const char cubin[] = HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\n"
                                   "cubin:\n\x7f"
                                   "ELF\0.entry k(";
  a = tilusArtifactParse(cubin, sizeof(cubin) - 1, &err);
  CHECK(a != NULL);
  CHECK(tilusRuntimeLoadArtifact(rt, a, &err) == TilusStatusUnsupported);
  CHECK_CONTAINS(err, "the artifact targets sm_80, which cannot run");
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
}
