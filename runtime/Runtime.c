//===- Runtime.c - The runtime context: modules, workspace, launch --------===//
//
// A TilusRuntime holds everything the launch path needs and nothing is
// global: the driver table, one device and its primary context, the module
// cache and the workspace buffer. Several runtimes can coexist in a process.
//
// Every entry point that calls the driver first makes the runtime's context
// current on the calling thread, so a runtime works from any thread and is
// not disturbed by other CUDA users in the process changing the current
// context.
//
//===----------------------------------------------------------------------===//

#include "DriverApi.h"
#include "RuntimeInternal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A kernel function of a cached module.
typedef struct {
  char *name;
  CUfunction function;
  // Dynamic shared memory the function has been allowed (0: the default
  // 48 KiB); cuFuncSetAttribute is called only to raise it.
  uint32_t sharedAllowed;
} CachedFunction;

// A loaded module, keyed by the content of its image.
typedef struct {
  uint64_t hash;
  size_t size;
  unsigned char *image; // a copy, to confirm hash hits byte for byte
  CUmodule module;
  int numFunctions;
  CachedFunction *functions;
} CachedModule;

struct TilusRuntime {
  TilusDriver driver;
  int ordinal;
  CUdevice device;
  CUcontext context; // the device's primary context, retained
  char deviceName[256];
  int ccMajor, ccMinor;
  int driverVersion;
  int maxSharedOptin; // 0 when the driver did not say
  int numModules;
  CachedModule *modules;
  CUdeviceptr workspace;
  uint64_t workspaceBytes;
};

#define API(rt) (&(rt)->driver.api)

static TilusStatus check(const TilusRuntime *rt, CUresult result,
                         const char *call, const char *kernel,
                         TilusRuntimeError *err) {
  return tilusDriverCheck(&rt->driver, result, call, kernel, err);
}

static TilusStatus makeCurrent(TilusRuntime *rt, TilusRuntimeError *err) {
  return check(rt, API(rt)->ctxSetCurrent(rt->context), "cuCtxSetCurrent", NULL,
               err);
}

//===----------------------------------------------------------------------===//
// Creation and destruction
//===----------------------------------------------------------------------===//

// Queries that fill the runtime's description of its device.
static TilusStatus describeDevice(TilusRuntime *rt, TilusRuntimeError *err) {
  const TilusDriverApi *api = API(rt);
  TilusStatus s;
  if ((s = check(rt, api->deviceGet(&rt->device, rt->ordinal), "cuDeviceGet",
                 NULL, err)) != TilusStatusSuccess)
    return s;
  if ((s = check(rt,
                 api->deviceGetName(rt->deviceName,
                                    (int)sizeof(rt->deviceName) - 1,
                                    rt->device),
                 "cuDeviceGetName", NULL, err)) != TilusStatusSuccess)
    return s;
  rt->deviceName[sizeof(rt->deviceName) - 1] = '\0';
  if ((s = check(rt,
                 api->deviceGetAttribute(
                     &rt->ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                     rt->device),
                 "cuDeviceGetAttribute", NULL, err)) != TilusStatusSuccess)
    return s;
  if ((s = check(rt,
                 api->deviceGetAttribute(
                     &rt->ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                     rt->device),
                 "cuDeviceGetAttribute", NULL, err)) != TilusStatusSuccess)
    return s;
  // Optional: without it the driver's own launch error reports the limit.
  if (api->deviceGetAttribute(
          &rt->maxSharedOptin,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
          rt->device) != CUDA_SUCCESS)
    rt->maxSharedOptin = 0;
  if (api->driverGetVersion(&rt->driverVersion) != CUDA_SUCCESS)
    rt->driverVersion = 0;
  return TilusStatusSuccess;
}

static TilusStatus initialize(TilusRuntime *rt, TilusRuntimeError *err) {
  const TilusDriverApi *api = API(rt);
  CUresult result = api->init(0);
  if (result == CUDA_ERROR_NO_DEVICE) {
    char what[200];
    tilusDriverDescribe(&rt->driver, result, what, sizeof(what));
    return tilusSetError(err, TilusStatusNoDevice,
                         "no CUDA device: cuInit reports %s", what);
  }
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return tilusSetError(err, TilusStatusDriverNotFound,
                         "cannot load the CUDA driver: the library found is "
                         "the CUDA toolkit's stub, not an installed driver");
  TilusStatus s = check(rt, result, "cuInit", NULL, err);
  if (s != TilusStatusSuccess)
    return s;

  int count = 0;
  if ((s = check(rt, api->deviceGetCount(&count), "cuDeviceGetCount", NULL,
                 err)) != TilusStatusSuccess)
    return s;
  if (count == 0)
    return tilusSetError(err, TilusStatusNoDevice,
                         "no CUDA device: the driver reports none");
  if (rt->ordinal >= count)
    return tilusSetError(err, TilusStatusNoDevice,
                         "no CUDA device %d: the driver reports %d device%s",
                         rt->ordinal, count, count == 1 ? "" : "s");
  if ((s = describeDevice(rt, err)) != TilusStatusSuccess)
    return s;
  // The primary context is the one the CUDA runtime API and other libraries
  // use too, so memory and streams pass freely between them and us.
  if ((s = check(rt, api->devicePrimaryCtxRetain(&rt->context, rt->device),
                 "cuDevicePrimaryCtxRetain", NULL, err)) != TilusStatusSuccess)
    return s;
  return makeCurrent(rt, err);
}

TilusRuntime *tilusRuntimeCreateWithDriver(const TilusDriver *driver,
                                           int device, TilusRuntimeError *err) {
  TilusRuntime *rt = calloc(1, sizeof(*rt));
  if (!rt) {
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return NULL;
  }
  rt->driver = *driver;
  rt->ordinal = device;
  if (initialize(rt, err) != TilusStatusSuccess) {
    tilusRuntimeDestroy(rt);
    return NULL;
  }
  return rt;
}

TilusRuntime *tilusRuntimeCreateWithOptions(const TilusRuntimeOptions *options,
                                            TilusRuntimeError *err) {
  TilusRuntimeOptions defaults = tilusRuntimeOptionsDefault();
  if (!options)
    options = &defaults;
  if (options->device < 0) {
    tilusSetError(err, TilusStatusInvalidArgument,
                  "invalid CUDA device ordinal %d", options->device);
    return NULL;
  }
  TilusDriver driver;
  if (tilusDriverOpen(&driver, options->driverLibrary, err) !=
      TilusStatusSuccess)
    return NULL;
  return tilusRuntimeCreateWithDriver(&driver, options->device, err);
}

TilusRuntime *tilusRuntimeCreateOnDevice(int ordinal, TilusRuntimeError *err) {
  TilusRuntimeOptions options = tilusRuntimeOptionsDefault();
  options.device = ordinal;
  return tilusRuntimeCreateWithOptions(&options, err);
}

TilusRuntime *tilusRuntimeCreate(TilusRuntimeError *err) {
  return tilusRuntimeCreateOnDevice(0, err);
}

void tilusRuntimeDestroy(TilusRuntime *rt) {
  if (!rt)
    return;
  const TilusDriverApi *api = API(rt);
  // Teardown is best effort: there is no one to report a failure to, and
  // releasing the primary context frees whatever the calls below could not.
  if (rt->context && makeCurrent(rt, NULL) == TilusStatusSuccess) {
    if (rt->workspace)
      api->memFree(rt->workspace);
    for (int i = 0; i < rt->numModules; i++)
      api->moduleUnload(rt->modules[i].module);
  }
  for (int i = 0; i < rt->numModules; i++) {
    CachedModule *m = &rt->modules[i];
    for (int f = 0; f < m->numFunctions; f++)
      free(m->functions[f].name);
    free(m->functions);
    free(m->image);
  }
  free(rt->modules);
  if (rt->context)
    api->devicePrimaryCtxRelease(rt->device);
  tilusDriverClose(&rt->driver);
  free(rt);
}

const char *tilusRuntimeGetDeviceName(const TilusRuntime *rt) {
  return rt ? rt->deviceName : NULL;
}

void tilusRuntimeGetComputeCapability(const TilusRuntime *rt, int *major,
                                      int *minor) {
  if (major)
    *major = rt ? rt->ccMajor : 0;
  if (minor)
    *minor = rt ? rt->ccMinor : 0;
}

int tilusRuntimeGetDriverVersion(const TilusRuntime *rt) {
  return rt ? rt->driverVersion : 0;
}

//===----------------------------------------------------------------------===//
// Module cache
//===----------------------------------------------------------------------===//

// 64-bit FNV-1a: fast, and collisions are harmless since hits are confirmed
// with memcmp.
static uint64_t hashBytes(const unsigned char *data, size_t size) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < size; i++) {
    h ^= data[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

// Whether code for `target` can run on the device. PTX is JIT-compiled
// forward to any newer architecture; a cubin runs only on its own major
// version; an arch-specific target (sm_90a) only on exactly that version.
static bool targetRunsOnDevice(const TilusRuntime *rt, const char *target,
                               TilusImageKind kind) {
  int major = target[3] - '0', minor = target[4] - '0';
  bool archSpecific = target[5] == 'a';
  int want = major * 10 + minor, have = rt->ccMajor * 10 + rt->ccMinor;
  if (archSpecific)
    return have == want;
  if (kind == TilusImageCubin)
    return rt->ccMajor == major && rt->ccMinor >= minor;
  return have >= want;
}

// Turns the JIT log into one line: newlines become "; ".
static void flattenLog(char *log) {
  size_t n = strlen(log);
  while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' '))
    log[--n] = '\0';
  for (char *p = log; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ';';
}

static TilusStatus loadModule(TilusRuntime *rt, const TilusArtifact *artifact,
                              const char *kernel, CachedModule **out,
                              TilusRuntimeError *err) {
  if (!targetRunsOnDevice(rt, artifact->target, artifact->imageKind))
    return tilusSetError(err, TilusStatusUnsupported,
                         "the artifact targets %s, which cannot run on device "
                         "%d (%s, compute capability %d.%d)",
                         artifact->target, rt->ordinal, rt->deviceName,
                         rt->ccMajor, rt->ccMinor);
  uint64_t hash = hashBytes(artifact->image, artifact->imageSize);
  for (int i = 0; i < rt->numModules; i++) {
    CachedModule *m = &rt->modules[i];
    if (m->hash == hash && m->size == artifact->imageSize &&
        !memcmp(m->image, artifact->image, m->size)) {
      *out = m;
      return TilusStatusSuccess;
    }
  }

  CachedModule *grown =
      realloc(rt->modules, (size_t)(rt->numModules + 1) * sizeof(*grown));
  unsigned char *image = malloc(artifact->imageSize + 1);
  if (!grown || !image) {
    if (grown)
      rt->modules = grown;
    free(image);
    return tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
  }
  rt->modules = grown;
  memcpy(image, artifact->image, artifact->imageSize + 1);

  // The JIT writes ptxas' diagnostics into these; the error log is what
  // makes a bad PTX debuggable, so it goes into the error message.
  // cuModuleLoadDataEx takes PTX and cubins alike.
  char errorLog[8192] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, (void *)(uintptr_t)sizeof(errorLog)};
  CUmodule module = NULL;
  CUresult result =
      API(rt)->moduleLoadDataEx(&module, image, 2, options, values);
  if (result != CUDA_SUCCESS) {
    free(image);
    TilusStatus s = check(rt, result, "cuModuleLoadDataEx", kernel, err);
    errorLog[sizeof(errorLog) - 1] = '\0';
    flattenLog(errorLog);
    if (err && errorLog[0]) {
      size_t used = strlen(err->message);
      snprintf(err->message + used, sizeof(err->message) - used, ": %s",
               errorLog);
    }
    return s;
  }
  CachedModule *m = &rt->modules[rt->numModules++];
  memset(m, 0, sizeof(*m));
  m->hash = hash;
  m->size = artifact->imageSize;
  m->image = image;
  m->module = module;
  *out = m;
  return TilusStatusSuccess;
}

static TilusStatus getFunction(TilusRuntime *rt, CachedModule *m,
                               const char *name, CachedFunction **out,
                               TilusRuntimeError *err) {
  for (int i = 0; i < m->numFunctions; i++) {
    if (!strcmp(m->functions[i].name, name)) {
      *out = &m->functions[i];
      return TilusStatusSuccess;
    }
  }
  CUfunction function = NULL;
  TilusStatus s =
      check(rt, API(rt)->moduleGetFunction(&function, m->module, name),
            "cuModuleGetFunction", name, err);
  if (s != TilusStatusSuccess)
    return s;
  CachedFunction *grown =
      realloc(m->functions, (size_t)(m->numFunctions + 1) * sizeof(*grown));
  char *copy = malloc(strlen(name) + 1);
  if (!grown || !copy) {
    if (grown)
      m->functions = grown;
    free(copy);
    return tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
  }
  strcpy(copy, name);
  m->functions = grown;
  CachedFunction *f = &m->functions[m->numFunctions++];
  f->name = copy;
  f->function = function;
  f->sharedAllowed = 0;
  *out = f;
  return TilusStatusSuccess;
}

TilusStatus tilusRuntimeLoadArtifact(TilusRuntime *rt,
                                     const TilusArtifact *artifact,
                                     TilusRuntimeError *err) {
  if (!rt || !artifact)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeLoadArtifact: NULL runtime or artifact");
  TilusStatus s = makeCurrent(rt, err);
  if (s != TilusStatusSuccess)
    return s;
  CachedModule *module = NULL;
  return loadModule(rt, artifact, NULL, &module, err);
}

int tilusRuntimeGetNumCachedModules(const TilusRuntime *rt) {
  return rt ? rt->numModules : 0;
}

//===----------------------------------------------------------------------===//
// Workspace and launch
//===----------------------------------------------------------------------===//

// Makes the workspace at least `bytes` large. It only grows, so after the
// largest kernel ran once, launches allocate nothing.
static TilusStatus reserveWorkspace(TilusRuntime *rt, uint64_t bytes,
                                    const char *kernel,
                                    TilusRuntimeError *err) {
  if (bytes <= rt->workspaceBytes)
    return TilusStatusSuccess;
  if ((uint64_t)(size_t)bytes != bytes)
    return tilusSetError(err, TilusStatusUnsupported,
                         "kernel '%s' needs a workspace of %llu bytes, too "
                         "large for this host",
                         kernel, (unsigned long long)bytes);
  const TilusDriverApi *api = API(rt);
  TilusStatus s;
  if (rt->workspace) {
    // Kernels launched earlier may still be using the old buffer.
    if ((s = check(rt, api->ctxSynchronize(),
                   "cuCtxSynchronize (before growing the workspace)", kernel,
                   err)) != TilusStatusSuccess)
      return s;
    api->memFree(rt->workspace);
    rt->workspace = 0;
    rt->workspaceBytes = 0;
  }
  CUdeviceptr ptr = 0;
  if ((s = check(rt, api->memAlloc(&ptr, (size_t)bytes),
                 "cuMemAlloc (workspace)", kernel, err)) != TilusStatusSuccess)
    return s;
  // Zeroed once, so a kernel that counts on a clean first use finds one.
  if ((s = check(rt, api->memsetD8(ptr, 0, (size_t)bytes),
                 "cuMemsetD8 (workspace)", kernel, err)) !=
      TilusStatusSuccess) {
    api->memFree(ptr);
    return s;
  }
  rt->workspace = ptr;
  rt->workspaceBytes = bytes;
  return TilusStatusSuccess;
}

uint64_t tilusRuntimeGetWorkspaceBytes(const TilusRuntime *rt) {
  return rt ? rt->workspaceBytes : 0;
}

// Everything after the CPU-side checks, with `prepared` already packed.
static TilusStatus launchPrepared(TilusRuntime *rt,
                                  const TilusArtifact *artifact,
                                  const char *kernel,
                                  TilusPreparedLaunch *prepared, void *stream,
                                  TilusRuntimeError *err) {
  const TilusLaunchConfig *c = &prepared->config;
  if (c->sharedBytes > TILUS_DEFAULT_SHARED_LIMIT && rt->maxSharedOptin > 0 &&
      c->sharedBytes > (uint32_t)rt->maxSharedOptin)
    return tilusSetError(err, TilusStatusUnsupported,
                         "kernel '%s' needs %u bytes of dynamic shared "
                         "memory, but device %d (%s) allows at most %d",
                         kernel, c->sharedBytes, rt->ordinal, rt->deviceName,
                         rt->maxSharedOptin);
  TilusStatus s = makeCurrent(rt, err);
  if (s != TilusStatusSuccess)
    return s;
  CachedModule *module = NULL;
  if ((s = loadModule(rt, artifact, kernel, &module, err)) !=
      TilusStatusSuccess)
    return s;
  CachedFunction *function = NULL;
  if ((s = getFunction(rt, module, kernel, &function, err)) !=
      TilusStatusSuccess)
    return s;
  // Beyond 48 KiB the driver refuses the launch unless the function has
  // opted in to the larger size.
  if (c->sharedBytes > TILUS_DEFAULT_SHARED_LIMIT &&
      c->sharedBytes > function->sharedAllowed) {
    if ((s = check(rt,
                   API(rt)->funcSetAttribute(
                       function->function,
                       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       (int)c->sharedBytes),
                   "cuFuncSetAttribute", kernel, err)) != TilusStatusSuccess)
      return s;
    function->sharedAllowed = c->sharedBytes;
  }
  if (c->workspaceBytes > 0) {
    if ((s = reserveWorkspace(rt, c->workspaceBytes, kernel, err)) !=
        TilusStatusSuccess)
      return s;
    prepared->slots[prepared->numSlots - 1].u64 = rt->workspace;
  }
  return check(rt,
               API(rt)->launchKernel(
                   function->function, c->grid[0], c->grid[1], c->grid[2],
                   c->block[0], c->block[1], c->block[2], c->sharedBytes,
                   (CUstream)stream, prepared->slotAddresses, NULL),
               "cuLaunchKernel", kernel, err);
}

TilusStatus tilusRuntimeLaunch(TilusRuntime *rt, const TilusArtifact *artifact,
                               const char *kernel, const TilusArg *args,
                               int numArgs, void *stream,
                               TilusRuntimeError *err) {
  if (!rt)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeLaunch: NULL runtime");
  TilusPreparedLaunch prepared;
  TilusStatus s =
      tilusPrepareLaunch(artifact, kernel, args, numArgs, &prepared, err);
  if (s == TilusStatusSuccess)
    s = launchPrepared(rt, artifact, kernel, &prepared, stream, err);
  tilusPreparedLaunchRelease(&prepared);
  return s;
}

//===----------------------------------------------------------------------===//
// Memory, streams and events
//===----------------------------------------------------------------------===//

// The common prologue of the helpers: a runtime, and its context current.
static TilusStatus enter(TilusRuntime *rt, const char *function,
                         TilusRuntimeError *err) {
  if (!rt)
    return tilusSetError(err, TilusStatusInvalidArgument, "%s: NULL runtime",
                         function);
  return makeCurrent(rt, err);
}

TilusStatus tilusRuntimeMalloc(TilusRuntime *rt, size_t bytes,
                               TilusDevicePtr *ptr, TilusRuntimeError *err) {
  if (!ptr || bytes == 0)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeMalloc: NULL result or zero size");
  *ptr = 0;
  TilusStatus s = enter(rt, "tilusRuntimeMalloc", err);
  if (s != TilusStatusSuccess)
    return s;
  CUdeviceptr p = 0;
  s = check(rt, API(rt)->memAlloc(&p, bytes), "cuMemAlloc", NULL, err);
  if (s == TilusStatusSuccess)
    *ptr = p;
  return s;
}

TilusStatus tilusRuntimeFree(TilusRuntime *rt, TilusDevicePtr ptr,
                             TilusRuntimeError *err) {
  if (ptr == 0)
    return TilusStatusSuccess;
  TilusStatus s = enter(rt, "tilusRuntimeFree", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->memFree(ptr), "cuMemFree", NULL, err);
}

TilusStatus tilusRuntimeCopyToDevice(TilusRuntime *rt, TilusDevicePtr dst,
                                     const void *src, size_t bytes,
                                     TilusRuntimeError *err) {
  if (bytes == 0)
    return TilusStatusSuccess;
  if (!src || !dst)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeCopyToDevice: NULL source or "
                         "destination");
  TilusStatus s = enter(rt, "tilusRuntimeCopyToDevice", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->memcpyHtoD(dst, src, bytes), "cuMemcpyHtoD", NULL,
               err);
}

TilusStatus tilusRuntimeCopyToHost(TilusRuntime *rt, void *dst,
                                   TilusDevicePtr src, size_t bytes,
                                   TilusRuntimeError *err) {
  if (bytes == 0)
    return TilusStatusSuccess;
  if (!src || !dst)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeCopyToHost: NULL source or destination");
  TilusStatus s = enter(rt, "tilusRuntimeCopyToHost", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->memcpyDtoH(dst, src, bytes), "cuMemcpyDtoH", NULL,
               err);
}

TilusStatus tilusRuntimeMemset(TilusRuntime *rt, TilusDevicePtr dst,
                               uint8_t value, size_t bytes,
                               TilusRuntimeError *err) {
  if (bytes == 0)
    return TilusStatusSuccess;
  if (!dst)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeMemset: NULL destination");
  TilusStatus s = enter(rt, "tilusRuntimeMemset", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->memsetD8(dst, value, bytes), "cuMemsetD8", NULL,
               err);
}

TilusStatus tilusRuntimeSynchronize(TilusRuntime *rt, TilusRuntimeError *err) {
  TilusStatus s = enter(rt, "tilusRuntimeSynchronize", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->ctxSynchronize(), "cuCtxSynchronize", NULL, err);
}

TilusStatus tilusRuntimeStreamCreate(TilusRuntime *rt, void **stream,
                                     TilusRuntimeError *err) {
  if (!stream)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeStreamCreate: NULL result");
  *stream = NULL;
  TilusStatus s = enter(rt, "tilusRuntimeStreamCreate", err);
  if (s != TilusStatusSuccess)
    return s;
  CUstream created = NULL;
  // Non-blocking: our work does not serialize against the legacy default
  // stream that other libraries in the process may be using.
  s = check(rt, API(rt)->streamCreate(&created, CU_STREAM_NON_BLOCKING),
            "cuStreamCreate", NULL, err);
  if (s == TilusStatusSuccess)
    *stream = created;
  return s;
}

TilusStatus tilusRuntimeStreamSynchronize(TilusRuntime *rt, void *stream,
                                          TilusRuntimeError *err) {
  TilusStatus s = enter(rt, "tilusRuntimeStreamSynchronize", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->streamSynchronize((CUstream)stream),
               "cuStreamSynchronize", NULL, err);
}

TilusStatus tilusRuntimeStreamDestroy(TilusRuntime *rt, void *stream,
                                      TilusRuntimeError *err) {
  if (!stream)
    return TilusStatusSuccess;
  TilusStatus s = enter(rt, "tilusRuntimeStreamDestroy", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->streamDestroy((CUstream)stream), "cuStreamDestroy",
               NULL, err);
}

TilusStatus tilusRuntimeEventCreate(TilusRuntime *rt, void **event,
                                    TilusRuntimeError *err) {
  if (!event)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeEventCreate: NULL result");
  *event = NULL;
  TilusStatus s = enter(rt, "tilusRuntimeEventCreate", err);
  if (s != TilusStatusSuccess)
    return s;
  CUevent created = NULL;
  s = check(rt, API(rt)->eventCreate(&created, CU_EVENT_DEFAULT),
            "cuEventCreate", NULL, err);
  if (s == TilusStatusSuccess)
    *event = created;
  return s;
}

TilusStatus tilusRuntimeEventRecord(TilusRuntime *rt, void *event, void *stream,
                                    TilusRuntimeError *err) {
  if (!event)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeEventRecord: NULL event");
  TilusStatus s = enter(rt, "tilusRuntimeEventRecord", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->eventRecord((CUevent)event, (CUstream)stream),
               "cuEventRecord", NULL, err);
}

TilusStatus tilusRuntimeEventElapsed(TilusRuntime *rt, void *start, void *end,
                                     float *milliseconds,
                                     TilusRuntimeError *err) {
  if (!start || !end || !milliseconds)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeEventElapsed: NULL event or result");
  TilusStatus s = enter(rt, "tilusRuntimeEventElapsed", err);
  if (s != TilusStatusSuccess)
    return s;
  if ((s = check(rt, API(rt)->eventSynchronize((CUevent)end),
                 "cuEventSynchronize", NULL, err)) != TilusStatusSuccess)
    return s;
  return check(
      rt, API(rt)->eventElapsedTime(milliseconds, (CUevent)start, (CUevent)end),
      "cuEventElapsedTime", NULL, err);
}

TilusStatus tilusRuntimeEventDestroy(TilusRuntime *rt, void *event,
                                     TilusRuntimeError *err) {
  if (!event)
    return TilusStatusSuccess;
  TilusStatus s = enter(rt, "tilusRuntimeEventDestroy", err);
  if (s != TilusStatusSuccess)
    return s;
  return check(rt, API(rt)->eventDestroy((CUevent)event), "cuEventDestroy",
               NULL, err);
}
