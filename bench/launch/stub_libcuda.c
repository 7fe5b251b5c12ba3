//===- stub_libcuda.c - A do-nothing CUDA driver for launch_bench ---------===//
//
//   mkdir -p /tmp/stub
//   cc -std=c11 -O2 -shared -fPIC bench/launch/stub_libcuda.c -o
//   /tmp/stub/libcuda.so.1 /tmp/launch_bench --driver /tmp/stub/libcuda.so.1
//   ARTIFACT KERNEL ...
//
// Exports every entry point the runtime resolves (runtime/Driver.c), with
// plain C types in place of cuda.h's. Device memory is host memory; modules,
// functions, streams and events are dummies; launches do nothing. It lets
// launch_bench run end to end on a machine without a GPU: a check of its
// logic, and a measure of the runtime's own host overhead over a driver that
// costs nothing (path (b) is then just the call).
//
//===----------------------------------------------------------------------===//

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum { Success = 0, InvalidValue = 1, OutOfMemory = 2, NotFound = 500 };

// Any non-null handle will do; the runtime only passes them back.
static char dummy;

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
  return ordinal == 0 ? Success : InvalidValue;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  (void)device;
  snprintf(name, (size_t)length, "stub driver (no GPU)");
  return Success;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  switch (attribute) {
  case 75: // compute capability major
    *value = 9;
    return Success;
  case 76: // minor
    *value = 0;
    return Success;
  case 97: // max shared memory per block, opt-in
    *value = 232448;
    return Success;
  }
  return InvalidValue;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = &dummy;
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
  *context = &dummy;
  return Success;
}
CUresult cuCtxSynchronize(void) { return Success; }
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  (void)image, (void)n, (void)options, (void)values;
  *module = &dummy;
  return Success;
}
CUresult cuModuleUnload(void *module) {
  (void)module;
  return Success;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module, (void)name;
  *function = &dummy;
  return Success;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  (void)function, (void)attribute, (void)value;
  return Success;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared;
  (void)stream, (void)extra;
  return function && params ? Success : InvalidValue;
}
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  void *p = malloc(bytes);
  *ptr = (CUdeviceptr)(uintptr_t)p;
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
  *stream = &dummy;
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
  *status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  return Success;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = &dummy;
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
  (void)error;
  *name = "STUB_ERROR";
  return Success;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  (void)error;
  *text = "an error of the stub driver";
  return Success;
}
