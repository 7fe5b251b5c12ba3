//===- Driver.c - Opening the CUDA driver at run time ---------------------===//
//
// libcuda.so.1 is opened with dlopen rather than linked, so that programs
// using the runtime build, link and start on machines with no GPU and no
// CUDA toolkit, and report "no driver" as an ordinary error.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "DriverApi.h"
#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

// dlsym returns an object pointer; POSIX guarantees that it can hold a
// function pointer, and we copy its bytes into the table's slot.
_Static_assert(sizeof(void *) == sizeof(CUresult(*)(void)),
               "function and object pointers differ in size");

typedef struct {
  size_t offset;        // of the member in TilusDriverApi
  const char *names[2]; // exported symbols to try, newest first
  // Left NULL when missing, instead of failing: the runtime checks for it
  // where it is needed.
  bool optional;
} Symbol;

#define ENTRY(member, sym, alt)                                                \
  { offsetof(TilusDriverApi, member), {sym, alt}, false }
#define OPTIONAL_ENTRY(member, sym)                                            \
  { offsetof(TilusDriverApi, member), {sym, NULL}, true }

// The `_v2` names are what cuda.h maps the plain names to (64-bit sizes and
// device pointers); calling the unversioned symbol would get the legacy ABI.
static const Symbol symbols[] = {
    ENTRY(init, "cuInit", NULL),
    ENTRY(driverGetVersion, "cuDriverGetVersion", NULL),
    ENTRY(deviceGetCount, "cuDeviceGetCount", NULL),
    ENTRY(deviceGet, "cuDeviceGet", NULL),
    ENTRY(deviceGetName, "cuDeviceGetName", NULL),
    ENTRY(deviceGetAttribute, "cuDeviceGetAttribute", NULL),
    ENTRY(devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
    ENTRY(devicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL),
    ENTRY(ctxSetCurrent, "cuCtxSetCurrent", NULL),
    ENTRY(ctxGetCurrent, "cuCtxGetCurrent", NULL),
    ENTRY(ctxSynchronize, "cuCtxSynchronize", NULL),
    ENTRY(moduleLoadDataEx, "cuModuleLoadDataEx", NULL),
    ENTRY(moduleUnload, "cuModuleUnload", NULL),
    ENTRY(moduleGetFunction, "cuModuleGetFunction", NULL),
    ENTRY(funcSetAttribute, "cuFuncSetAttribute", NULL),
    ENTRY(launchKernel, "cuLaunchKernel", NULL),
    ENTRY(memAlloc, "cuMemAlloc_v2", NULL),
    ENTRY(memFree, "cuMemFree_v2", NULL),
    ENTRY(memcpyHtoD, "cuMemcpyHtoD_v2", NULL),
    ENTRY(memcpyDtoH, "cuMemcpyDtoH_v2", NULL),
    ENTRY(memsetD8, "cuMemsetD8_v2", NULL),
    ENTRY(streamCreate, "cuStreamCreate", NULL),
    ENTRY(streamSynchronize, "cuStreamSynchronize", NULL),
    ENTRY(streamDestroy, "cuStreamDestroy_v2", NULL),
    ENTRY(streamIsCapturing, "cuStreamIsCapturing", NULL),
    ENTRY(eventCreate, "cuEventCreate", NULL),
    ENTRY(eventRecord, "cuEventRecord", NULL),
    ENTRY(eventSynchronize, "cuEventSynchronize", NULL),
    // CUDA 12.8 added a _v2 with the same signature; older drivers lack it.
    ENTRY(eventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    ENTRY(eventDestroy, "cuEventDestroy_v2", NULL),
    ENTRY(getErrorName, "cuGetErrorName", NULL),
    ENTRY(getErrorString, "cuGetErrorString", NULL),
    // CUDA 12.0; only kernels with tensor maps need it.
    OPTIONAL_ENTRY(tensorMapEncodeTiled, "cuTensorMapEncodeTiled"),
};

#undef ENTRY
#undef OPTIONAL_ENTRY

TilusStatus tilusDriverOpen(TilusDriver *driver, const char *library,
                            TilusRuntimeError *err) {
  memset(driver, 0, sizeof(*driver));
  const char *name = library ? library : "libcuda.so.1";
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return tilusSetError(err, TilusStatusDriverNotFound,
                         "cannot load the CUDA driver (%s): %s", name,
                         reason ? reason : "unknown error");
  }
  for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
    void *address = NULL;
    for (int n = 0; n < 2 && !address && symbols[i].names[n]; n++)
      address = dlsym(handle, symbols[i].names[n]);
    if (!address && symbols[i].optional)
      continue;
    if (!address) {
      dlclose(handle);
      memset(driver, 0, sizeof(*driver));
      return tilusSetError(err, TilusStatusDriverNotFound,
                           "cannot load the CUDA driver (%s): it has no "
                           "symbol %s",
                           name, symbols[i].names[0]);
    }
    memcpy((char *)&driver->api + symbols[i].offset, &address, sizeof(address));
  }
  driver->library = handle;
  return TilusStatusSuccess;
}

void tilusDriverClose(TilusDriver *driver) {
  // libcuda is deliberately left mapped: the driver starts helper threads
  // and registers exit handlers that may still run after the last context is
  // released, and unmapping its code under them crashes the process. A
  // second dlopen of the same library only bumps a reference count, so
  // creating and destroying runtimes repeatedly does not accumulate anything.
  memset(driver, 0, sizeof(*driver));
}

void tilusDriverDescribe(const TilusDriver *driver, CUresult result, char *out,
                         size_t size) {
  const char *name = NULL, *text = NULL;
  if (driver->api.getErrorName &&
      driver->api.getErrorName(result, &name) != CUDA_SUCCESS)
    name = NULL;
  if (driver->api.getErrorString &&
      driver->api.getErrorString(result, &text) != CUDA_SUCCESS)
    text = NULL;
  if (name)
    snprintf(out, size, "%s (%s)", name, text ? text : "no description");
  else
    snprintf(out, size, "CUresult %d (unknown to this driver)", result);
}

TilusStatus tilusDriverCheck(const TilusDriver *driver, CUresult result,
                             const char *call, const char *kernel,
                             TilusRuntimeError *err) {
  if (result == CUDA_SUCCESS)
    return TilusStatusSuccess;
  if (!err)
    return TilusStatusCudaError;
  char what[200];
  tilusDriverDescribe(driver, result, what, sizeof(what));
  if (kernel)
    tilusSetError(err, TilusStatusCudaError,
                  "%s for kernel '%.100s' failed: %s", call, kernel, what);
  else
    tilusSetError(err, TilusStatusCudaError, "%s failed: %s", call, what);
  err->cudaResult = result;
  return TilusStatusCudaError;
}
