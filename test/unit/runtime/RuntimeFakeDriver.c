//===- RuntimeFakeDriver.c - A fake CUDA driver table for the tests -------===//
//
// Stands in for libcuda behind tilusRuntimeCreateWithDriver, so the whole
// launch path runs on machines without a GPU. It records what it was asked
// to do (in `fake`) and keeps the rules of the real driver that the runtime
// must respect: each device has its own primary context, a module belongs to
// the context current when it was loaded, cuModuleGetFunction returns the
// same CUfunction for the same module and name, and a launch fails unless
// the function's context is current.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include <sched.h>

// Test-only global state: the library itself keeps none.
FakeDriverState fake;
// The real driver's current context is per thread.
static _Thread_local CUcontext current;

CUcontext fakeCurrentContext(void) { return current; }

const FakeEncode *fakeEncode(int n) {
  return &fake.encodes[(n - 1) % MaxFakeEncodes];
}

CUcontext fakeContextOf(int device) {
  return (CUcontext)(void *)&fake.contextIdentity[device];
}

// The device whose primary context `context` is, or -1.
static int deviceOfContext(CUcontext context) {
  for (int d = 0; d < MaxFakeDevices; d++)
    if (context == fakeContextOf(d))
      return d;
  return -1;
}

void resetFake(void) {
  memset(&fake, 0, sizeof(fake));
  current = NULL;
  fake.numDevices = 1;
  fake.ccMajor = 9;
  fake.ccMinor = 0;
}

static CUresult fakeInit(unsigned flags) {
  (void)flags;
  return fake.initResult;
}
static CUresult fakeDriverGetVersion(int *v) {
  *v = 12080;
  return CUDA_SUCCESS;
}
static CUresult fakeDeviceGetCount(int *count) {
  *count = fake.numDevices;
  return CUDA_SUCCESS;
}
static CUresult fakeDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal < fake.numDevices ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
static CUresult fakeDeviceGetName(char *name, int length, CUdevice device) {
  snprintf(name, (size_t)length, "Fake GPU %d", device);
  return CUDA_SUCCESS;
}
static CUresult fakeDeviceGetAttribute(int *value, CUdevice_attribute a,
                                       CUdevice device) {
  (void)device;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = fake.ccMajor;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = fake.ccMinor;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = 232448;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}
static CUresult fakePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (device < 0 || device >= fake.numDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  fake.contextRetains++;
  *context = fakeContextOf(device);
  return CUDA_SUCCESS;
}
static CUresult fakePrimaryCtxRelease(CUdevice device) {
  (void)device;
  fake.contextReleases++;
  return CUDA_SUCCESS;
}
static CUresult fakeCtxSetCurrent(CUcontext context) {
  fake.setCurrentCalls++;
  if (deviceOfContext(context) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  current = context;
  return CUDA_SUCCESS;
}
static CUresult fakeCtxGetCurrent(CUcontext *context) {
  fake.getCurrentCalls++;
  *context = current;
  return CUDA_SUCCESS;
}
static CUresult fakeCtxSynchronize(void) {
  fake.synchronizeCalls++;
  return CUDA_SUCCESS;
}

static CUresult fakeModuleLoadDataEx(CUmodule *module, const void *image,
                                     unsigned numOptions, CUjit_option *options,
                                     void **values) {
  fake.moduleLoadCalls++;
  if (fake.slowLoads)
    sched_yield();
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (strstr(image, "BROKEN")) {
    // Like ptxas: a multi-line log in the caller's buffer.
    for (unsigned i = 0; i < numOptions; i++)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        strcpy(values[i], "ptxas application ptx input, line 3; error   : "
                          "Unknown symbol 'bogus'\nptxas fatal   : Ptx "
                          "assembly aborted due to errors\n");
    return CUDA_ERROR_INVALID_PTX;
  }
  if (fake.moduleLoads == MaxFakeModules)
    return CUDA_ERROR_OUT_OF_MEMORY; // the test needs a larger table
  fake.moduleImage[fake.moduleLoads] = image;
  fake.moduleContext[fake.moduleLoads] = current;
  fake.moduleLoads++;
  fake.liveModules++;
  *module = (CUmodule)(uintptr_t)fake.moduleLoads; // 1-based index
  return CUDA_SUCCESS;
}
static CUresult fakeModuleUnload(CUmodule module) {
  (void)module;
  fake.liveModules--;
  return CUDA_SUCCESS;
}
static CUresult fakeModuleGetFunction(CUfunction *function, CUmodule module,
                                      const char *name) {
  if (fake.slowLoads)
    sched_yield();
  fake.getFunctionCalls++;
  const char *image = fake.moduleImage[(uintptr_t)module - 1];
  char entry[128];
  snprintf(entry, sizeof(entry), ".entry %s(", name);
  if (!strstr(image, entry))
    return CUDA_ERROR_NOT_FOUND;
  // Functions are numbered from 1 in the order first asked for.
  int n = 0;
  while (n < fake.numFunctions && !(fake.functionModule[n] == module &&
                                    !strcmp(fake.functionName[n], name)))
    n++;
  if (n == fake.numFunctions) {
    if (n == MaxFakeFunctions || strlen(name) >= sizeof(fake.functionName[n]))
      return CUDA_ERROR_OUT_OF_MEMORY; // the test needs a larger table
    fake.functionModule[n] = module;
    strcpy(fake.functionName[n], name);
    fake.numFunctions++;
  }
  *function = (CUfunction)(uintptr_t)(n + 1);
  return CUDA_SUCCESS;
}
static CUresult fakeFuncSetAttribute(CUfunction f, CUfunction_attribute a,
                                     int value) {
  (void)f;
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return CUDA_ERROR_INVALID_VALUE;
  fake.setAttributeCalls++;
  fake.sharedAttribute = value;
  return CUDA_SUCCESS;
}
static CUresult fakeLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, CUstream stream,
                                 void **params, void **extra) {
  uintptr_t n = (uintptr_t)f;
  if (extra || n < 1 || n > (uintptr_t)fake.numFunctions)
    return CUDA_ERROR_INVALID_VALUE;
  // The real driver launches into the current context; a function of
  // another context is an invalid handle there.
  uintptr_t module = (uintptr_t)fake.functionModule[n - 1];
  if (fake.moduleContext[module - 1] != current)
    return CUDA_ERROR_INVALID_HANDLE;
  if (fake.launchResult != CUDA_SUCCESS)
    return fake.launchResult;
  fake.launches++;
  if (fake.recordLaunch) {
    unsigned grid[3] = {gx, gy, gz};
    fake.recordLaunch(f, grid, stream, params);
    return CUDA_SUCCESS;
  }
  fake.function = f;
  fake.launchContext = current;
  fake.grid[0] = gx, fake.grid[1] = gy, fake.grid[2] = gz;
  fake.block[0] = bx, fake.block[1] = by, fake.block[2] = bz;
  fake.shared = shared;
  fake.stream = stream;
  // Scalar slots are 8 bytes, tensor maps 128: copy what the test asks for
  // and let it look at the bytes the kernel would read.
  for (int i = 0; i < fake.numParamsToRecord && i < MaxFakeParams; i++) {
    size_t bytes = fake.paramBytes[i] ? fake.paramBytes[i] : 8;
    if (bytes > sizeof(fake.params[i]))
      return CUDA_ERROR_OUT_OF_MEMORY; // the test needs a larger table
    memcpy(fake.params[i], params[i], bytes);
    fake.paramAddress[i] = (uintptr_t)params[i];
  }
  return CUDA_SUCCESS;
}
static CUresult fakeTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dataType, cuuint32_t rank,
    void *address, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
    const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
    CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  int n = ++fake.encodeCalls;
  {
    FakeEncode *e = &fake.encodes[(n - 1) % MaxFakeEncodes];
    memset(e, 0, sizeof(*e));
    e->tensorMap = (uintptr_t)map;
    e->dataType = dataType;
    e->rank = rank;
    e->globalAddress = (uintptr_t)address;
    for (cuuint32_t i = 0; i < rank && i < 5; i++) {
      e->globalDim[i] = globalDim[i];
      e->boxDim[i] = boxDim[i];
      e->elementStrides[i] = elementStrides[i];
      if (i > 0)
        e->globalStrides[i - 1] = globalStrides[i - 1];
    }
    e->interleave = interleave;
    e->swizzle = swizzle;
    e->l2Promotion = l2Promotion;
    e->oobFill = oobFill;
  }
  if (fake.encodeResult != CUDA_SUCCESS)
    return fake.encodeResult;
  // The real driver's requirements on the map itself and the rank.
  if ((uintptr_t)map % 64 != 0 || rank < 1 || rank > 5)
    return CUDA_ERROR_INVALID_VALUE;
  map->opaque[0] = FAKE_TENSOR_MAP_MAGIC;
  map->opaque[1] = (uintptr_t)address;
  map->opaque[2] = (unsigned long long)n;
  for (int q = 3; q < 16; q++)
    map->opaque[q] = FAKE_TENSOR_MAP_MAGIC ^ (unsigned long long)q;
  return CUDA_SUCCESS;
}
// Device memory is host memory in the fake, so copies really copy.
// Aligned like cuMemAlloc's addresses (at least 256 bytes).
static CUresult fakeMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  fake.allocations++;
  fake.liveAllocations++;
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}
static CUresult fakeMemFree(CUdeviceptr ptr) {
  free((void *)(uintptr_t)ptr);
  fake.liveAllocations--;
  return CUDA_SUCCESS;
}
static CUresult fakeMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}
static CUresult fakeMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}
static CUresult fakeMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) {
  fake.memsetCalls++;
  memset((void *)(uintptr_t)dst, v, n);
  return CUDA_SUCCESS;
}
static CUresult fakeStreamCreate(CUstream *s, unsigned flags) {
  *s = (CUstream)(uintptr_t)(0x5000 + flags);
  return CUDA_SUCCESS;
}
static CUresult fakeStreamOp(CUstream s) {
  (void)s;
  return CUDA_SUCCESS;
}
static CUresult fakeStreamIsCapturing(CUstream s,
                                      CUstreamCaptureStatus *status) {
  (void)s;
  fake.isCapturingCalls++;
  *status = fake.captureStatus;
  return CUDA_SUCCESS;
}
static CUresult fakeEventCreate(CUevent *e, unsigned flags) {
  (void)flags;
  *e = (CUevent)(uintptr_t)0x6000;
  return CUDA_SUCCESS;
}
static CUresult fakeEventRecord(CUevent e, CUstream s) {
  (void)e, (void)s;
  return CUDA_SUCCESS;
}
static CUresult fakeEventOp(CUevent e) {
  (void)e;
  return CUDA_SUCCESS;
}
static CUresult fakeEventElapsedTime(float *ms, CUevent a, CUevent b) {
  (void)a, (void)b;
  *ms = 2.5f;
  return CUDA_SUCCESS;
}
static CUresult fakeGetErrorName(CUresult r, const char **name) {
  switch (r) {
  case CUDA_ERROR_INVALID_VALUE:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX:
    *name = "CUDA_ERROR_INVALID_PTX";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_HANDLE:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}
static CUresult fakeGetErrorString(CUresult r, const char **text) {
  switch (r) {
  case CUDA_ERROR_INVALID_VALUE:
    *text = "invalid argument";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *text = "no CUDA-capable device is detected";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX:
    *text = "a PTX JIT compilation failed";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_HANDLE:
    *text = "invalid resource handle";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND:
    *text = "named symbol not found";
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

TilusDriver fakeDriver(void) {
  TilusDriver d;
  memset(&d, 0, sizeof(d));
  d.api.init = fakeInit;
  d.api.driverGetVersion = fakeDriverGetVersion;
  d.api.deviceGetCount = fakeDeviceGetCount;
  d.api.deviceGet = fakeDeviceGet;
  d.api.deviceGetName = fakeDeviceGetName;
  d.api.deviceGetAttribute = fakeDeviceGetAttribute;
  d.api.devicePrimaryCtxRetain = fakePrimaryCtxRetain;
  d.api.devicePrimaryCtxRelease = fakePrimaryCtxRelease;
  d.api.ctxSetCurrent = fakeCtxSetCurrent;
  d.api.ctxGetCurrent = fakeCtxGetCurrent;
  d.api.ctxSynchronize = fakeCtxSynchronize;
  d.api.moduleLoadDataEx = fakeModuleLoadDataEx;
  d.api.moduleUnload = fakeModuleUnload;
  d.api.moduleGetFunction = fakeModuleGetFunction;
  d.api.funcSetAttribute = fakeFuncSetAttribute;
  d.api.launchKernel = fakeLaunchKernel;
  d.api.memAlloc = fakeMemAlloc;
  d.api.memFree = fakeMemFree;
  d.api.memcpyHtoD = fakeMemcpyHtoD;
  d.api.memcpyDtoH = fakeMemcpyDtoH;
  d.api.memsetD8 = fakeMemsetD8;
  d.api.streamCreate = fakeStreamCreate;
  d.api.streamSynchronize = fakeStreamOp;
  d.api.streamDestroy = fakeStreamOp;
  d.api.streamIsCapturing = fakeStreamIsCapturing;
  d.api.eventCreate = fakeEventCreate;
  d.api.eventRecord = fakeEventRecord;
  d.api.eventSynchronize = fakeEventOp;
  d.api.eventElapsedTime = fakeEventElapsedTime;
  d.api.eventDestroy = fakeEventOp;
  d.api.getErrorName = fakeGetErrorName;
  d.api.getErrorString = fakeGetErrorString;
  d.api.tensorMapEncodeTiled = fakeTensorMapEncodeTiled;
  return d;
}

TilusRuntime *createFakeOnDevice(int device, TilusRuntimeError *err) {
  TilusDriver d = fakeDriver();
  return tilusRuntimeCreateWithDriver(&d, device, err);
}

TilusRuntime *createFake(TilusRuntimeError *err) {
  return createFakeOnDevice(0, err);
}
