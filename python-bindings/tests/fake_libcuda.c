//===- fake_libcuda.c - A recording CUDA driver for the Python tests ------===//
//
// A stand-in for libcuda.so.1 that TilusRuntimeOptions.driverLibrary (and so
// tilus.Runtime(driver_library=...)) can open: it exports every entry point
// the runtime resolves (runtime/Driver.c), keeps device memory in host
// memory, and records each launch (grid, block, shared bytes, stream and the
// parameter bytes) so that the tests can check what reached cuLaunchKernel.
// The test opens the same file with ctypes; dlopen of one path gives one
// handle, so both see the same state. Built by python-bindings/CMakeLists.txt
// (or by the tests' conftest.py with cc).
//
//===----------------------------------------------------------------------===//

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum { Success = 0, InvalidValue = 1, OutOfMemory = 2, InvalidDevice = 101 };

#define MAX_PARAMS 64

static char contextObject, moduleObject, functionObject, streamObject;

// --- What the tests set and read (all exported, prefixed fake) ------------

static int ccMajor = 9, ccMinor = 0;
static CUresult launchResult = Success;
static int numParamSizes;
static int paramSizes[MAX_PARAMS];

int fakeLaunchCount;
unsigned fakeGrid[3], fakeBlock[3], fakeShared;
void *fakeStream;
unsigned char fakeParams[MAX_PARAMS][8];
int fakeModuleLoads;
int fakeMallocCount;

void fakeReset(void) {
  ccMajor = 9, ccMinor = 0;
  launchResult = Success;
  numParamSizes = 0;
  fakeLaunchCount = 0;
  memset(fakeGrid, 0, sizeof(fakeGrid));
  memset(fakeBlock, 0, sizeof(fakeBlock));
  fakeShared = 0;
  fakeStream = NULL;
  memset(fakeParams, 0, sizeof(fakeParams));
  fakeModuleLoads = 0;
  fakeMallocCount = 0;
}
void fakeSetComputeCapability(int major, int minor) {
  ccMajor = major, ccMinor = minor;
}
// cuLaunchKernel returns `result` from now on (0: success).
void fakeSetLaunchResult(int result) { launchResult = result; }
// The byte sizes of the next launches' parameters, which cuLaunchKernel
// copies into fakeParams (it cannot know them itself).
void fakeSetParamSizes(int n, const int *sizes) {
  numParamSizes = n < MAX_PARAMS ? n : MAX_PARAMS;
  for (int i = 0; i < numParamSizes; i++)
    paramSizes[i] = sizes[i];
}

// --- The driver ---------------------------------------------------------------

CUresult cuInit(unsigned flags) {
  (void)flags;
  return Success;
}
CUresult cuDriverGetVersion(int *version) {
  *version = 12080;
  return Success;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return Success;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? Success : InvalidDevice;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  snprintf(name, (size_t)length, "Fake GPU %d", device);
  return Success;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  switch (attribute) {
  case 75:
    *value = ccMajor;
    return Success;
  case 76:
    *value = ccMinor;
    return Success;
  case 97:
    *value = 232448;
    return Success;
  }
  return InvalidValue;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = &contextObject;
  return Success;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  return Success;
}
CUresult cuCtxSetCurrent(void *context) {
  (void)context;
  return Success;
}
CUresult cuCtxGetCurrent(void **context) {
  *context = &contextObject;
  return Success;
}
CUresult cuCtxSynchronize(void) { return Success; }
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  (void)image, (void)n, (void)options, (void)values;
  fakeModuleLoads++;
  *module = &moduleObject;
  return Success;
}
CUresult cuModuleUnload(void *module) {
  (void)module;
  return Success;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module, (void)name;
  *function = &functionObject;
  return Success;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  (void)function, (void)attribute, (void)value;
  return Success;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)extra;
  if (!function || !params)
    return InvalidValue;
  if (launchResult != Success)
    return launchResult;
  fakeLaunchCount++;
  fakeGrid[0] = gx, fakeGrid[1] = gy, fakeGrid[2] = gz;
  fakeBlock[0] = bx, fakeBlock[1] = by, fakeBlock[2] = bz;
  fakeShared = shared;
  fakeStream = stream;
  memset(fakeParams, 0, sizeof(fakeParams));
  for (int i = 0; i < numParamSizes; i++)
    memcpy(fakeParams[i], params[i], (size_t)(paramSizes[i] <= 8 ? paramSizes[i] : 8));
  return Success;
}
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  // 256-byte aligned, as cuMemAlloc's are.
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  *ptr = (CUdeviceptr)(uintptr_t)p;
  fakeMallocCount++;
  return p ? Success : OutOfMemory;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void *)(uintptr_t)ptr);
  return Success;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return Success;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return Success;
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t bytes) {
  memset((void *)(uintptr_t)dst, value, bytes);
  return Success;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = &streamObject;
  return Success;
}
CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  return Success;
}
CUresult cuStreamDestroy_v2(void *stream) {
  (void)stream;
  return Success;
}
CUresult cuStreamIsCapturing(void *stream, int *status) {
  (void)stream;
  *status = 0;
  return Success;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = &streamObject;
  return Success;
}
CUresult cuEventRecord(void *event, void *stream) {
  (void)event, (void)stream;
  return Success;
}
CUresult cuEventSynchronize(void *event) {
  (void)event;
  return Success;
}
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  (void)start, (void)end;
  *ms = 0;
  return Success;
}
CUresult cuEventDestroy_v2(void *event) {
  (void)event;
  return Success;
}
CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_UNKNOWN";
  return Success;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 700 ? "an illegal memory access was encountered"
                       : "unknown error";
  return Success;
}
