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

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

// The i-th 8-byte word of launch parameter `param` (recorded with
// paramBytes 128).
static uint64_t mapWord(int param, int i) {
  uint64_t v;
  memcpy(&v, fake.params[param] + 8 * i, 8);
  return v;
}

// Whether parameter `param` of the last launch is the map that encode call
// `call` wrote for base `address`, passed at a 64-byte aligned address.
static bool isFakeMap(int param, int call, uint64_t address) {
  bool pattern = true;
  for (int q = 3; q < 16; q++)
    pattern = pattern && mapWord(param, q) == (FAKE_TENSOR_MAP_MAGIC ^ q);
  return pattern && mapWord(param, 0) == FAKE_TENSOR_MAP_MAGIC &&
         mapWord(param, 1) == address && mapWord(param, 2) == (uint64_t)call &&
         fake.paramAddress[param] % 64 == 0;
}

void testFakeTensorMapLaunch(void) {
  TilusRuntimeError err;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  TilusArtifact *a = parse(tensorMapArtifact, &err);
  CHECK(rt && a);
  if (!rt || !a)
    return;

  // The kernel's 6 parameters, its 2 maps, then the workspace.
  TilusArg args[6];
  tmaArgs(args, 256, 512, 384, 3);
  fake.numParamsToRecord = 9;
  fake.paramBytes[6] = fake.paramBytes[7] = 128;
  CHECK(tilusRuntimeLaunch(rt, a, "tma", args, 6, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.launches == 1 && fake.encodeCalls == 2);
  CHECK(fake.grid[0] == 4 && fake.grid[1] == 3 && fake.block[0] == 128);

  // Map 0: A, f16 [M = 256, K = 512], box 64 x 64, 128-byte swizzle.
  const FakeEncode *e = fakeEncode(1);
  CHECK(e->dataType == CU_TENSOR_MAP_DATA_TYPE_UINT16 && e->rank == 2);
  CHECK(e->globalAddress == 0x10000);
  CHECK(e->globalDim[0] == 512 && e->globalDim[1] == 256);
  CHECK(e->globalStrides[0] == 1024);
  CHECK(e->boxDim[0] == 64 && e->boxDim[1] == 64);
  CHECK(e->elementStrides[0] == 1 && e->elementStrides[1] == 1);
  CHECK(e->interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
  CHECK(e->swizzle == CU_TENSOR_MAP_SWIZZLE_128B && e->swizzle == 3);
  CHECK(e->l2Promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  CHECK(e->oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  CHECK(e->tensorMap % 64 == 0);

  // Map 1: B, bf16 [batch = 3, N = 384, K = 512], box 1 x 128 x 32, 64-byte
  // swizzle; dimensions innermost first, strides of the outer two.
  e = fakeEncode(2);
  CHECK(e->dataType == CU_TENSOR_MAP_DATA_TYPE_UINT16 && e->rank == 3);
  CHECK(e->globalAddress == 0x20000);
  CHECK(e->globalDim[0] == 512 && e->globalDim[1] == 384 &&
        e->globalDim[2] == 3);
  CHECK(e->globalStrides[0] == 1024 && e->globalStrides[1] == 1024 * 384);
  CHECK(e->boxDim[0] == 32 && e->boxDim[1] == 128 && e->boxDim[2] == 1);
  CHECK(e->elementStrides[0] == 1 && e->elementStrides[1] == 1 &&
        e->elementStrides[2] == 1);
  CHECK(e->swizzle == CU_TENSOR_MAP_SWIZZLE_64B && e->swizzle == 2);
  CHECK(e->l2Promotion == 2 && e->oobFill == 0 && e->interleave == 0);
  CHECK(e->tensorMap % 64 == 0 && e->tensorMap != fakeEncode(1)->tensorMap);

  // The launch's parameters: the user's bytes, the maps in manifest order
  // where the fake wrote them, then the runtime's workspace.
  CHECK(slotU64(0) == 0x10000 && slotU64(1) == 0x20000);
  CHECK(!memcmp(fake.params[2], "\x00\x01\x00\x00", 4)); // 256 as i32
  CHECK(!memcmp(fake.params[3], "\x00\x02\x00\x00", 4)); // 512 as i32
  CHECK(slotU64(4) == 384 && slotU64(5) == 3);
  CHECK(isFakeMap(6, 1, 0x10000));
  CHECK(isFakeMap(7, 2, 0x20000));
  CHECK(fake.paramAddress[6] == fakeEncode(1)->tensorMap &&
        fake.paramAddress[7] == fakeEncode(2)->tensorMap);
  uint64_t workspace = slotU64(8);
  CHECK(workspace != 0 && workspace % 256 == 0 && fake.allocations == 1);
  CHECK(tilusRuntimeGetWorkspaceBytes(rt) == 256);

  // A caller's workspace takes the same place, after the maps.
  TilusLoadedKernel *k = tilusRuntimeGetKernel(rt, a, "tma", &err);
  CHECK(k != NULL);
  tmaArgs(args, 64, 256, 128, 2);
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, k, args, 6, NULL, 0x40000,
                                              256, &err) == TilusStatusSuccess);
  CHECK(fake.encodeCalls == 4 && slotU64(8) == 0x40000);
  CHECK(isFakeMap(6, 3, 0x10000) && isFakeMap(7, 4, 0x20000));
  CHECK(fakeEncode(3)->globalDim[0] == 256 &&
        fakeEncode(3)->globalDim[1] == 64);
  CHECK(fakeEncode(4)->globalDim[2] == 2 &&
        fakeEncode(4)->globalStrides[1] == 256 * 2 * 128);

  // Element sizes 1, 4 and 8, a 32-byte swizzle, no workspace: the
  // kernel's 2 parameters, then its 3 maps.
  TilusArg typesArgs[2] = {tilusArgPointer(0x30000), tilusArgInteger(64)};
  fake.numParamsToRecord = 5;
  memset(fake.paramBytes, 0, sizeof(fake.paramBytes));
  fake.paramBytes[2] = fake.paramBytes[3] = fake.paramBytes[4] = 128;
  CHECK(tilusRuntimeLaunch(rt, a, "types", typesArgs, 2, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.encodeCalls == 7);
  e = fakeEncode(5); // 1-byte elements [64], box 16
  CHECK(e->dataType == CU_TENSOR_MAP_DATA_TYPE_UINT8 && e->dataType == 0);
  CHECK(e->rank == 1 && e->globalDim[0] == 64 && e->boxDim[0] == 16);
  CHECK(e->swizzle == CU_TENSOR_MAP_SWIZZLE_NONE && e->swizzle == 0);
  e = fakeEncode(6); // 4-byte elements [8, 64], box 2 x 4
  CHECK(e->dataType == CU_TENSOR_MAP_DATA_TYPE_UINT32 && e->dataType == 2);
  CHECK(e->rank == 2 && e->globalDim[0] == 64 && e->globalDim[1] == 8);
  CHECK(e->globalStrides[0] == 256);
  CHECK(e->boxDim[0] == 4 && e->boxDim[1] == 2);
  CHECK(e->swizzle == CU_TENSOR_MAP_SWIZZLE_32B && e->swizzle == 1);
  e = fakeEncode(7); // 8-byte elements [64], box 2
  CHECK(e->dataType == CU_TENSOR_MAP_DATA_TYPE_UINT64 && e->dataType == 4);
  CHECK(e->rank == 1 && e->globalDim[0] == 64 && e->boxDim[0] == 2);
  CHECK(slotU64(0) == 0x30000 && !memcmp(fake.params[1], "\x40\0\0\0", 4));
  CHECK(isFakeMap(2, 5, 0x30000) && isFakeMap(3, 6, 0x30000) &&
        isFakeMap(4, 7, 0x30000));
  CHECK(fake.launches == 3 && fake.allocations == 1);

  // The same PTX under another manifest whose maps differ: another kernel
  // (its own maps), over the same function.
  char *text = malloc(strlen(tensorMapArtifact) + 1);
  CHECK(text != NULL);
  if (text) {
    strcpy(text, tensorMapArtifact);
    char *box = strstr(text, "box 64 64 swizzle 128");
    memcpy(box, "box 32 64", 9); // a box of 32 rows, not 64
    TilusArtifact *other = parse(text, &err);
    free(text);
    TilusLoadedKernel *k2 = tilusRuntimeGetKernel(rt, other, "tma", &err);
    CHECK(k2 != NULL && k2 != k);
    CHECK(k2 &&
          tilusLoadedKernelGetFunction(k2) == tilusLoadedKernelGetFunction(k));
    fake.numParamsToRecord = 9;
    fake.paramBytes[6] = fake.paramBytes[7] = 128;
    tmaArgs(args, 256, 512, 384, 3);
    CHECK(tilusRuntimeLaunchKernel(rt, k2, args, 6, NULL, &err) ==
          TilusStatusSuccess);
    CHECK(fakeEncode(8)->boxDim[1] == 32 && fakeEncode(8)->boxDim[0] == 64);
    CHECK(tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, &err) ==
          TilusStatusSuccess);
    CHECK(fakeEncode(10)->boxDim[1] == 64 && fakeEncode(10)->boxDim[0] == 64);
    CHECK(fake.moduleLoads == 1);
    tilusArtifactDestroy(other);
  }
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
  CHECK(fake.liveModules == 0 && fake.liveAllocations == 0);
}

void testFakeTensorMapErrors(void) {
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

  // Argument checks come before the driver: nothing encoded or launched,
  // the same message both ways.
  tmaArgs(args, 256, 100, 384, 3); // f16 rows of 200 bytes
  CHECK(tilusRuntimeLaunch(rt, a, "tma", args, 6, NULL, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 0 of kernel 'tma' (over parameter 0): the byte "
              "stride of dimension 0 is 200, which is not a multiple of 16");
  CHECK(tilusRuntimeLaunchKernelWithWorkspace(rt, k, args, 6, NULL, 0x40000,
                                              256, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_CONTAINS(err, "the byte stride of dimension 0 is 200");
  tmaArgs(args, 256, 512, 384, 3);
  args[0] = tilusArgPointer(0x10004);
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_CONTAINS(err, "argument 0 of kernel 'tma' is the address 0x10004, "
                      "which is not 16-byte aligned");
  CHECK(fake.encodeCalls == 0 && fake.launches == 0 && fake.allocations == 0);

  // The driver refusing a map: reported like other driver errors, naming
  // the map, and nothing launched.
  tmaArgs(args, 256, 512, 384, 3);
  fake.encodeResult = CUDA_ERROR_INVALID_VALUE;
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, &err) ==
        TilusStatusCudaError);
  CHECK_ERROR(err, TilusStatusCudaError,
              "cuTensorMapEncodeTiled (tensor map 0, over parameter 0) for "
              "kernel 'tma' failed: CUDA_ERROR_INVALID_VALUE (invalid "
              "argument)");
  CHECK(err.cudaResult == CUDA_ERROR_INVALID_VALUE);
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, NULL) ==
        TilusStatusCudaError);
  CHECK(fake.launches == 0 && fake.encodeCalls == 2);
  fake.encodeResult = CUDA_SUCCESS;
  CHECK(tilusRuntimeLaunchKernel(rt, k, args, 6, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.launches == 1 && fake.encodeCalls == 4);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
}

void testFakeWithoutTensorMapEncode(void) {
  // A driver older than CUDA 12.0 has no cuTensorMapEncodeTiled: kernels
  // without maps still run; a kernel with maps is refused when resolved.
  TilusRuntimeError err;
  resetFake();
  TilusDriver d = fakeDriver();
  d.api.tensorMapEncodeTiled = NULL;
  TilusRuntime *rt = tilusRuntimeCreateWithDriver(&d, 0, &err);
  TilusArtifact *sample = parse(sampleArtifact, &err);
  TilusArtifact *a = parse(tensorMapArtifact, &err);
  CHECK(rt && sample && a);
  if (!rt || !sample || !a)
    return;
  TilusArg args[6];
  matmulArgs(args, 100, 64, 32);
  CHECK(tilusRuntimeLaunch(rt, sample, "matmul", args, 6, NULL, &err) ==
        TilusStatusSuccess);
  CHECK(fake.launches == 1);

  CHECK(tilusRuntimeGetKernel(rt, a, "tma", &err) == NULL);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "kernel 'tma' takes 2 tensor maps, but the CUDA driver has no "
              "cuTensorMapEncodeTiled (it needs CUDA 12.0 or newer)");
  tmaArgs(args, 256, 512, 384, 3);
  CHECK(tilusRuntimeLaunch(rt, a, "tma", args, 6, NULL, &err) ==
        TilusStatusUnsupported);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "kernel 'tma' takes 2 tensor maps, but the CUDA driver has no "
              "cuTensorMapEncodeTiled (it needs CUDA 12.0 or newer)");
  TilusArg typesArgs[2] = {tilusArgPointer(0x30000), tilusArgInteger(64)};
  CHECK(tilusRuntimeLaunch(rt, a, "types", typesArgs, 2, NULL, &err) ==
        TilusStatusUnsupported);
  CHECK_CONTAINS(err, "kernel 'types' takes 3 tensor maps");
  CHECK(fake.launches == 1 && fake.encodeCalls == 0);
  // The driver-free check still passes: the arguments are fine.
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, NULL, &err) ==
        TilusStatusSuccess);
  tilusArtifactDestroy(sample);
  tilusArtifactDestroy(a);
  tilusRuntimeDestroy(rt);
}
