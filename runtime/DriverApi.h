//===- DriverApi.h - The part of the CUDA driver API we use -----*- C -*-===//
//
// The runtime must build where there is no CUDA toolkit, so it does not
// include cuda.h: it declares the handful of driver types, constants and
// function types it calls (values from the CUDA driver API reference), and
// reaches the functions through a table filled by dlsym at run time.
//
// The table is a plain struct so that tests can fill it with fakes and run
// the whole launch path on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_RUNTIME_DRIVERAPI_H
#define TILUS_RUNTIME_DRIVERAPI_H

#include "tilus-c/Runtime.h"

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
};

// CUjit_option values.
enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

// CUdevice_attribute values.
enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// CUfunction_attribute values.
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };

// Stream and event flags.
enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0 };

// CUstreamCaptureStatus values (cuStreamIsCapturing).
typedef int CUstreamCaptureStatus;
enum {
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
  CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
};

// Tensor maps (cuTensorMapEncodeTiled, CUDA 12.0+): an opaque 128-byte,
// 64-byte aligned descriptor the TMA unit reads, and the enums the runtime
// uses (values from cuda.h).
typedef uint32_t cuuint32_t; // as cuda.h has them
typedef uint64_t cuuint64_t;
typedef struct {
  _Alignas(64) unsigned long long opaque[16];
} CUtensorMap;
_Static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");
typedef int CUtensorMapDataType;
typedef int CUtensorMapInterleave;
typedef int CUtensorMapSwizzle;
typedef int CUtensorMapL2promotion;
typedef int CUtensorMapFloatOOBfill;
enum {
  CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
  CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1,
  CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2,
  CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4,
};
enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_32B = 1,
  CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
};
enum { CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2 };
enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };

// Dynamic shared memory above this needs the opt-in attribute.
enum { TILUS_DEFAULT_SHARED_LIMIT = 48 * 1024 };

// The driver entry points, one member per function. Driver.c lists the
// exported symbol for each (the versioned `_v2` names where cuda.h maps the
// plain name to one). Every member is set except tensorMapEncodeTiled, which
// is NULL with a driver older than CUDA 12.0: such a runtime still launches
// kernels without tensor maps.
typedef struct {
  CUresult (*init)(unsigned int flags);
  CUresult (*driverGetVersion)(int *version);
  CUresult (*deviceGetCount)(int *count);
  CUresult (*deviceGet)(CUdevice *device, int ordinal);
  CUresult (*deviceGetName)(char *name, int length, CUdevice device);
  CUresult (*deviceGetAttribute)(int *value, CUdevice_attribute attribute,
                                 CUdevice device);
  CUresult (*devicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*devicePrimaryCtxRelease)(CUdevice device);
  CUresult (*ctxSetCurrent)(CUcontext context);
  CUresult (*ctxGetCurrent)(CUcontext *context);
  CUresult (*ctxSynchronize)(void);
  CUresult (*moduleLoadDataEx)(CUmodule *module, const void *image,
                               unsigned int numOptions, CUjit_option *options,
                               void **optionValues);
  CUresult (*moduleUnload)(CUmodule module);
  CUresult (*moduleGetFunction)(CUfunction *function, CUmodule module,
                                const char *name);
  CUresult (*funcSetAttribute)(CUfunction function,
                               CUfunction_attribute attribute, int value);
  CUresult (*launchKernel)(CUfunction function, unsigned int gridX,
                           unsigned int gridY, unsigned int gridZ,
                           unsigned int blockX, unsigned int blockY,
                           unsigned int blockZ, unsigned int sharedBytes,
                           CUstream stream, void **params, void **extra);
  CUresult (*memAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*memFree)(CUdeviceptr ptr);
  CUresult (*memcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*memcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*memsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes);
  CUresult (*streamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*streamSynchronize)(CUstream stream);
  CUresult (*streamDestroy)(CUstream stream);
  CUresult (*streamIsCapturing)(CUstream stream, CUstreamCaptureStatus *status);
  CUresult (*eventCreate)(CUevent *event, unsigned int flags);
  CUresult (*eventRecord)(CUevent event, CUstream stream);
  CUresult (*eventSynchronize)(CUevent event);
  CUresult (*eventElapsedTime)(float *milliseconds, CUevent start, CUevent end);
  CUresult (*eventDestroy)(CUevent event);
  CUresult (*getErrorName)(CUresult error, const char **name);
  CUresult (*getErrorString)(CUresult error, const char **text);
  CUresult (*tensorMapEncodeTiled)(
      CUtensorMap *tensorMap, CUtensorMapDataType dataType, cuuint32_t rank,
      void *globalAddress, const cuuint64_t *globalDim,
      const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
      const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
      CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
      CUtensorMapFloatOOBfill oobFill);
} TilusDriverApi;

typedef struct {
  TilusDriverApi api;
  // The dlopen handle; NULL for a table supplied by the caller (tests).
  void *library;
} TilusDriver;

// Creates a runtime over an already resolved driver table (taking it over)
// instead of dlopening libcuda: the seam the unit tests use to run the launch
// path against a fake driver.
TilusRuntime *tilusRuntimeCreateWithDriver(const TilusDriver *driver,
                                           int device, TilusRuntimeError *err);

// The CUfunction a loaded kernel launches, and the driver table of a runtime:
// for tests and for bench/launch, which times a bare cuLaunchKernel of the
// same function beside tilusRuntimeLaunchKernel.
CUfunction tilusLoadedKernelGetFunction(const TilusLoadedKernel *kernel);
const TilusDriverApi *tilusRuntimeGetDriverApi(const TilusRuntime *rt);

// dlopens `library` (NULL: "libcuda.so.1") and resolves every entry point.
// Failures are TilusStatusDriverNotFound with the dlerror text.
TilusStatus tilusDriverOpen(TilusDriver *driver, const char *library,
                            TilusRuntimeError *err);
// Drops the driver; see Driver.c on why libcuda itself stays mapped.
void tilusDriverClose(TilusDriver *driver);

// If `result` is not CUDA_SUCCESS, fills `err` with TilusStatusCudaError and
// "<call> failed: <NAME> (<string>)", or "<call> for kernel '<k>' failed:
// ..." when `kernel` is non-NULL, and returns TilusStatusCudaError.
TilusStatus tilusDriverCheck(const TilusDriver *driver, CUresult result,
                             const char *call, const char *kernel,
                             TilusRuntimeError *err);

// "CUDA_ERROR_INVALID_VALUE (invalid argument)" into `out`.
void tilusDriverDescribe(const TilusDriver *driver, CUresult result, char *out,
                         size_t size);

#endif // TILUS_RUNTIME_DRIVERAPI_H
