//===- Runtime.c - The runtime context: modules, workspace, launch --------===//
//
// A TilusRuntime holds everything the launch path needs and nothing is
// global: the driver table, one device and its primary context, the module
// cache, the loaded kernels and the workspace buffer. Several runtimes can
// coexist in a process.
//
// Every entry point that calls the driver first makes the runtime's context
// current on the calling thread, so a runtime works from any thread and is
// not disturbed by other CUDA users in the process changing the current
// context. Modules and functions belong to that one context, which is why a
// loaded kernel is tied to its runtime rather than to the artifact.
//
// The fast launch path (tilusRuntimeLaunchKernel) touches only what a
// TilusLoadedKernel resolved once and never changes afterwards: the
// CUfunction and a copy of the kernel's parameter table and grid. The
// parameter bytes of a launch live on the caller's stack, so launches from
// several threads share nothing. It hashes nothing, allocates nothing and
// compares no strings.
//
// What is shared and mutable (the module cache, the list of loaded kernels,
// the runtime-owned workspace) is guarded by the runtime's own mutex; a
// launch with a caller-supplied workspace never takes it.
//
//===----------------------------------------------------------------------===//

// pthread mutexes under -std=c11.
#define _POSIX_C_SOURCE 200809L

#include "DriverApi.h"
#include "RuntimeInternal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A loaded module, keyed by the content of its image.
typedef struct {
  uint64_t hash;
  size_t size;
  unsigned char *image; // a copy, to confirm hash hits byte for byte
  CUmodule module;
} CachedModule;

struct TilusLoadedKernel {
  TilusRuntime *runtime; // the owner; other runtimes refuse to launch it
  int moduleIndex;       // in runtime->modules (which only grows)
  CUfunction function;
  // A private copy of the kernel's description (the artifact may be
  // destroyed): the parameter table the arguments are checked against, the
  // grid, block, shared memory and workspace. Read-only once created, so
  // any number of threads may launch the kernel at once.
  TilusKernel kernel;
};

struct TilusRuntime {
  // Guards numModules/modules, numKernels/kernels and the workspace (held
  // while a launch uses the runtime-owned workspace, so that no other thread
  // can grow and free it under that launch). Everything else here is
  // written only while the runtime is created.
  pthread_mutex_t lock;
  bool lockReady;
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
  // Each kernel is allocated on its own so that the handles given out stay
  // valid while this list grows.
  int numKernels;
  TilusLoadedKernel **kernels;
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

// makeCurrent for the launch path: asks first and sets only when another
// context is current, so that a launch into a stream being captured makes
// no call beyond cuCtxGetCurrent and cuLaunchKernel (and the usual case, our
// context already current, costs one cheap query).
static TilusStatus makeCurrentForLaunch(TilusRuntime *rt, const char *kernel,
                                        TilusRuntimeError *err) {
  CUcontext current = NULL;
  TilusStatus s = check(rt, API(rt)->ctxGetCurrent(&current), "cuCtxGetCurrent",
                        kernel, err);
  if (s != TilusStatusSuccess || current == rt->context)
    return s;
  return check(rt, API(rt)->ctxSetCurrent(rt->context), "cuCtxSetCurrent",
               kernel, err);
}

static void lock(TilusRuntime *rt) { pthread_mutex_lock(&rt->lock); }
static void unlock(TilusRuntime *rt) { pthread_mutex_unlock(&rt->lock); }

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
  if (pthread_mutex_init(&rt->lock, NULL) != 0) {
    tilusSetError(err, TilusStatusOutOfMemory,
                  "cannot create the runtime's mutex");
    free(rt);
    return NULL;
  }
  rt->lockReady = true;
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

static void destroyKernel(TilusLoadedKernel *k) {
  if (!k)
    return;
  tilusKernelRelease(&k->kernel);
  free(k);
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
  for (int i = 0; i < rt->numModules; i++)
    free(rt->modules[i].image);
  free(rt->modules);
  for (int i = 0; i < rt->numKernels; i++)
    destroyKernel(rt->kernels[i]);
  free(rt->kernels);
  if (rt->context)
    api->devicePrimaryCtxRelease(rt->device);
  tilusDriverClose(&rt->driver);
  if (rt->lockReady)
    pthread_mutex_destroy(&rt->lock);
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

// Finds or loads the module of `artifact`'s image; its index in rt->modules
// goes to `*index`. The image's hash was computed when the artifact was
// parsed; a hit is confirmed byte for byte.
static TilusStatus loadModule(TilusRuntime *rt, const TilusArtifact *artifact,
                              const char *kernel, int *index,
                              TilusRuntimeError *err) {
  if (!targetRunsOnDevice(rt, artifact->target, artifact->imageKind))
    return tilusSetError(err, TilusStatusUnsupported,
                         "the artifact targets %s, which cannot run on device "
                         "%d (%s, compute capability %d.%d)",
                         artifact->target, rt->ordinal, rt->deviceName,
                         rt->ccMajor, rt->ccMinor);
  for (int i = 0; i < rt->numModules; i++) {
    const CachedModule *m = &rt->modules[i];
    if (m->hash == artifact->imageHash && m->size == artifact->imageSize &&
        !memcmp(m->image, artifact->image, m->size)) {
      *index = i;
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
  CachedModule *m = &rt->modules[rt->numModules];
  m->hash = artifact->imageHash;
  m->size = artifact->imageSize;
  m->image = image;
  m->module = module;
  *index = rt->numModules++;
  return TilusStatusSuccess;
}

TilusStatus tilusRuntimeLoadArtifact(TilusRuntime *rt,
                                     const TilusArtifact *artifact,
                                     TilusRuntimeError *err) {
  if (!rt || !artifact)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeLoadArtifact: NULL runtime or artifact");
  lock(rt);
  TilusStatus s = makeCurrent(rt, err);
  int index = -1;
  if (s == TilusStatusSuccess)
    s = loadModule(rt, artifact, NULL, &index, err);
  unlock(rt);
  return s;
}

int tilusRuntimeGetNumCachedModules(const TilusRuntime *rt) {
  if (!rt)
    return 0;
  // The mutex is part of the object, not of its observable state.
  TilusRuntime *mutableRt = (TilusRuntime *)rt;
  lock(mutableRt);
  int n = rt->numModules;
  unlock(mutableRt);
  return n;
}

//===----------------------------------------------------------------------===//
// Loaded kernels
//===----------------------------------------------------------------------===//

// The dynamic shared memory `function` has been allowed beyond the default
// 48 KiB by earlier kernels (0: none). Kernels of two artifacts with the same
// image but different manifests share a CUfunction; raising the limit for one
// must never lower it for the other.
static uint32_t sharedAllowed(const TilusRuntime *rt, CUfunction function) {
  uint32_t allowed = 0;
  for (int i = 0; i < rt->numKernels; i++) {
    const TilusLoadedKernel *k = rt->kernels[i];
    if (k->function == function && k->kernel.sharedBytes > allowed)
      allowed = k->kernel.sharedBytes;
  }
  return allowed > TILUS_DEFAULT_SHARED_LIMIT ? allowed : 0;
}

// A new loaded kernel over `function`, with its own copy of `desc`; NULL
// when out of memory.
static TilusLoadedKernel *createKernel(TilusRuntime *rt, int moduleIndex,
                                       CUfunction function,
                                       const TilusKernel *desc) {
  TilusLoadedKernel *k = calloc(1, sizeof(*k));
  if (!k)
    return NULL;
  k->runtime = rt;
  k->moduleIndex = moduleIndex;
  k->function = function;
  if (!tilusKernelCopy(&k->kernel, desc)) {
    free(k);
    return NULL;
  }
  return k;
}

static TilusStatus getKernelLocked(TilusRuntime *rt,
                                   const TilusArtifact *artifact, int index,
                                   TilusLoadedKernel **out,
                                   TilusRuntimeError *err);

// Kernel `index` of `artifact`, resolved on this runtime: found among the
// kernels resolved before (same module, same description) or created.
// Everything that can be decided once is done here: the parameter-count
// limit, the shared-memory limit against the device, loading the module,
// cuModuleGetFunction, the shared-memory opt-in. Serialized by the
// runtime's mutex, so that concurrent callers asking for the same kernel get
// the same one and the cache is never grown by two threads at once.
static TilusStatus getKernel(TilusRuntime *rt, const TilusArtifact *artifact,
                             int index, TilusLoadedKernel **out,
                             TilusRuntimeError *err) {
  *out = NULL;
  const TilusKernel *desc = &artifact->kernels[index];
  // A launch packs the parameters on the caller's stack, in arrays of this
  // size: refuse here, once, rather than at every launch.
  if (desc->numParams > TILUS_MAX_KERNEL_PARAMS)
    return tilusSetError(err, TilusStatusUnsupported,
                         "kernel '%s' has %d parameters; the runtime launches "
                         "kernels of at most %d (TILUS_MAX_KERNEL_PARAMS)",
                         desc->name, desc->numParams, TILUS_MAX_KERNEL_PARAMS);
  // Decided once too: the driver table never changes, so a launch needs no
  // test of its own.
  if (desc->numTensorMaps > 0 && !API(rt)->tensorMapEncodeTiled)
    return tilusSetError(err, TilusStatusUnsupported,
                         "kernel '%s' takes %d tensor map%s, but the CUDA "
                         "driver has no cuTensorMapEncodeTiled (it needs "
                         "CUDA 12.0 or newer)",
                         desc->name, desc->numTensorMaps,
                         desc->numTensorMaps == 1 ? "" : "s");
  lock(rt);
  TilusStatus s = getKernelLocked(rt, artifact, index, out, err);
  unlock(rt);
  return s;
}

static TilusStatus getKernelLocked(TilusRuntime *rt,
                                   const TilusArtifact *artifact, int index,
                                   TilusLoadedKernel **out,
                                   TilusRuntimeError *err) {
  const TilusKernel *desc = &artifact->kernels[index];
  if (desc->sharedBytes > TILUS_DEFAULT_SHARED_LIMIT &&
      rt->maxSharedOptin > 0 &&
      desc->sharedBytes > (uint32_t)rt->maxSharedOptin)
    return tilusSetError(err, TilusStatusUnsupported,
                         "kernel '%s' needs %u bytes of dynamic shared "
                         "memory, but device %d (%s) allows at most %d",
                         desc->name, desc->sharedBytes, rt->ordinal,
                         rt->deviceName, rt->maxSharedOptin);
  TilusStatus s = makeCurrent(rt, err);
  if (s != TilusStatusSuccess)
    return s;
  int moduleIndex = -1;
  if ((s = loadModule(rt, artifact, desc->name, &moduleIndex, err)) !=
      TilusStatusSuccess)
    return s;
  for (int i = 0; i < rt->numKernels; i++) {
    TilusLoadedKernel *k = rt->kernels[i];
    if (k->moduleIndex == moduleIndex && tilusKernelEquals(&k->kernel, desc)) {
      *out = k;
      return TilusStatusSuccess;
    }
  }

  CUfunction function = NULL;
  if ((s = check(rt,
                 API(rt)->moduleGetFunction(
                     &function, rt->modules[moduleIndex].module, desc->name),
                 "cuModuleGetFunction", desc->name, err)) != TilusStatusSuccess)
    return s;
  // Beyond 48 KiB the driver refuses the launch unless the function has
  // opted in to the larger size.
  if (desc->sharedBytes > TILUS_DEFAULT_SHARED_LIMIT &&
      desc->sharedBytes > sharedAllowed(rt, function) &&
      (s = check(rt,
                 API(rt)->funcSetAttribute(
                     function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                     (int)desc->sharedBytes),
                 "cuFuncSetAttribute", desc->name, err)) != TilusStatusSuccess)
    return s;

  TilusLoadedKernel *k = createKernel(rt, moduleIndex, function, desc);
  TilusLoadedKernel **grown =
      k ? realloc(rt->kernels, (size_t)(rt->numKernels + 1) * sizeof(*grown))
        : NULL;
  if (!grown) {
    destroyKernel(k);
    return tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
  }
  rt->kernels = grown;
  rt->kernels[rt->numKernels++] = k;
  *out = k;
  return TilusStatusSuccess;
}

TilusLoadedKernel *tilusRuntimeGetKernel(TilusRuntime *rt,
                                         const TilusArtifact *artifact,
                                         const char *kernel,
                                         TilusRuntimeError *err) {
  if (!rt || !artifact || !kernel) {
    tilusSetError(err, TilusStatusInvalidArgument,
                  "tilusRuntimeGetKernel: NULL runtime, artifact or kernel "
                  "name");
    return NULL;
  }
  int index = -1;
  TilusLoadedKernel *k = NULL;
  if (tilusLookUpKernel(artifact, kernel, &index, err) == TilusStatusSuccess)
    getKernel(rt, artifact, index, &k, err);
  return k;
}

CUfunction tilusLoadedKernelGetFunction(const TilusLoadedKernel *kernel) {
  return kernel->function;
}

const TilusDriverApi *tilusRuntimeGetDriverApi(const TilusRuntime *rt) {
  return API(rt);
}

//===----------------------------------------------------------------------===//
// Workspace and launch
//===----------------------------------------------------------------------===//

// Makes the runtime-owned workspace at least `bytes` large; called with the
// mutex held. It only grows, so after the largest kernel ran once, launches
// allocate nothing. Growing allocates and synchronizes the context, which a
// stream capture forbids; the caller has already refused capturing streams.
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
  if (!rt)
    return 0;
  TilusRuntime *mutableRt = (TilusRuntime *)rt; // the mutex only
  lock(mutableRt);
  uint64_t bytes = rt->workspaceBytes;
  unlock(mutableRt);
  return bytes;
}

uint64_t tilusLoadedKernelGetWorkspaceBytes(const TilusLoadedKernel *kernel) {
  return kernel ? kernel->kernel.workspaceBytes : 0;
}

// The runtime-owned workspace for one launch, with the mutex held by the
// caller until cuLaunchKernel has returned. A graph captured from such a
// launch would keep the buffer's address, which a later growth frees, so a
// capturing stream is refused (this also keeps cuMemAlloc, cuMemsetD8 and
// cuCtxSynchronize out of any capture).
static TilusStatus useRuntimeWorkspace(TilusRuntime *rt, const TilusKernel *k,
                                       CUstream stream, CUdeviceptr *workspace,
                                       TilusRuntimeError *err) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  TilusStatus s = check(rt, API(rt)->streamIsCapturing(stream, &capture),
                        "cuStreamIsCapturing", k->name, err);
  if (s != TilusStatusSuccess)
    return s;
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return tilusSetError(
        err, TilusStatusInvalidArgument,
        "kernel '%s' needs a workspace of %llu bytes and the stream is being "
        "captured: the runtime's own workspace cannot be used in a CUDA graph; "
        "pass one with tilusRuntimeLaunchKernelWithWorkspace",
        k->name, (unsigned long long)k->workspaceBytes);
  if ((s = reserveWorkspace(rt, k->workspaceBytes, k->name, err)) !=
      TilusStatusSuccess)
    return s;
  *workspace = rt->workspace;
  return TilusStatusSuccess;
}

// Encodes the kernel's tensor maps into `out` from the arguments
// tilusCheckArguments computed. Host-only driver work: no context, stream or
// allocation, so it is allowed in a stream capture.
static TilusStatus encodeTensorMaps(const TilusRuntime *rt,
                                    const TilusKernel *k,
                                    const TilusTensorMapArgs *args,
                                    CUtensorMap *out, TilusRuntimeError *err) {
  static const cuuint32_t elementStrides[TILUS_TENSOR_MAP_MAX_RANK] = {1, 1, 1,
                                                                       1, 1};
  for (int m = 0; m < k->numTensorMaps; m++) {
    const TilusTensorMap *map = &k->tensorMaps[m];
    // Unsigned types of the element's size: the TMA unit only copies bytes,
    // and out-of-bounds elements read as zero whatever the type.
    CUtensorMapDataType dataType =
        map->elementBytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
        : map->elementBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
        : map->elementBytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                 : CU_TENSOR_MAP_DATA_TYPE_UINT64;
    CUtensorMapSwizzle swizzle =
        map->swizzleBytes == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
        : map->swizzleBytes == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
        : map->swizzleBytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult result = API(rt)->tensorMapEncodeTiled(
        &out[m], dataType, (cuuint32_t)map->rank,
        (void *)(uintptr_t)args[m].globalAddress, args[m].globalDim,
        args[m].globalStrides, args[m].boxDim, elementStrides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS) {
      // Only on failure: the call's name says which map.
      char call[96];
      snprintf(call, sizeof(call),
               "cuTensorMapEncodeTiled (tensor map %d, over parameter %d)", m,
               map->pointerParam);
      return check(rt, result, call, k->name, err);
    }
  }
  return TilusStatusSuccess;
}

// The hot path, shared by both launch calls. Per launch: check and pack the
// arguments into arrays on this thread's stack, evaluate the grid, check or
// provide the workspace, encode the tensor maps, make the context current
// if it is not, cuLaunchKernel (which copies the parameter bytes before it
// returns). The kernel's parameters are its own, then its tensor maps, then
// the workspace address.
static TilusStatus launch(TilusRuntime *rt, TilusLoadedKernel *kernel,
                          const TilusArg *args, int numArgs, void *stream,
                          bool callerWorkspace, TilusDevicePtr workspace,
                          uint64_t workspaceBytes, const char *function,
                          TilusRuntimeError *err) {
  if (!rt || !kernel)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "%s: NULL runtime or kernel", function);
  // Its CUfunction lives in another runtime's context (perhaps another
  // device's), which this runtime does not make current.
  if (kernel->runtime != rt)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "%s: kernel '%s' was loaded by another runtime",
                         function, kernel->kernel.name);
  const TilusKernel *k = &kernel->kernel;
  // numParams <= TILUS_MAX_KERNEL_PARAMS was checked when the kernel was
  // loaded, numTensorMaps <= TILUS_MAX_KERNEL_TENSOR_MAPS when it was parsed,
  // and tilusCheckArguments refuses numArgs != numParams before it writes a
  // slot; + 1 for the workspace address.
  TilusParamSlot slots[TILUS_MAX_KERNEL_PARAMS + 1];
  void *addresses[TILUS_MAX_KERNEL_PARAMS + TILUS_MAX_KERNEL_TENSOR_MAPS + 1];
  int64_t symbols[TILUS_MAX_KERNEL_PARAMS + 1];
  TilusTensorMapArgs mapArgs[TILUS_MAX_KERNEL_TENSOR_MAPS];
  CUtensorMap maps[TILUS_MAX_KERNEL_TENSOR_MAPS]; // 64-byte aligned each
  uint32_t grid[3];
  TilusStatus s =
      tilusCheckArguments(k, args, numArgs, slots, symbols, mapArgs, grid, err);
  if (s != TilusStatusSuccess)
    return s;
  bool needsWorkspace = k->workspaceBytes > 0;
  if (needsWorkspace && callerWorkspace) {
    if (workspace == 0)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "kernel '%s' needs a workspace of %llu bytes, but "
                           "none was given",
                           k->name, (unsigned long long)k->workspaceBytes);
    if (workspaceBytes < k->workspaceBytes)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "kernel '%s' needs a workspace of %llu bytes, but "
                           "the one given has %llu",
                           k->name, (unsigned long long)k->workspaceBytes,
                           (unsigned long long)workspaceBytes);
    // The compiler places each workspace tensor at a multiple of 256 bytes
    // from the base and vectorizes accesses on that assumption.
    if (workspace % TILUS_WORKSPACE_ALIGNMENT != 0)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "kernel '%s': the workspace given (0x%llx) is not "
                           "%d-byte aligned",
                           k->name, (unsigned long long)workspace,
                           TILUS_WORKSPACE_ALIGNMENT);
  }
  if (k->numTensorMaps > 0 &&
      (s = encodeTensorMaps(rt, k, mapArgs, maps, err)) != TilusStatusSuccess)
    return s;
  for (int i = 0; i < k->numParams; i++)
    addresses[i] = &slots[i];
  for (int m = 0; m < k->numTensorMaps; m++)
    addresses[k->numParams + m] = &maps[m];
  // The workspace's slot; its value is set below.
  addresses[k->numParams + k->numTensorMaps] = &slots[k->numParams];
  if ((s = makeCurrentForLaunch(rt, k->name, err)) != TilusStatusSuccess)
    return s;
  bool locked = false;
  if (needsWorkspace) {
    CUdeviceptr address = workspace;
    if (!callerWorkspace) {
      lock(rt);
      locked = true;
      if ((s = useRuntimeWorkspace(rt, k, (CUstream)stream, &address, err)) !=
          TilusStatusSuccess) {
        unlock(rt);
        return s;
      }
    }
    slots[k->numParams].u64 = address;
  }
  s = check(rt,
            API(rt)->launchKernel(kernel->function, grid[0], grid[1], grid[2],
                                  k->block[0], k->block[1], k->block[2],
                                  k->sharedBytes, (CUstream)stream, addresses,
                                  NULL),
            "cuLaunchKernel", k->name, err);
  if (locked)
    unlock(rt);
  return s;
}

TilusStatus tilusRuntimeLaunchKernel(TilusRuntime *rt,
                                     TilusLoadedKernel *kernel,
                                     const TilusArg *args, int numArgs,
                                     void *stream, TilusRuntimeError *err) {
  return launch(rt, kernel, args, numArgs, stream, false, 0, 0,
                "tilusRuntimeLaunchKernel", err);
}

TilusStatus tilusRuntimeLaunchKernelWithWorkspace(
    TilusRuntime *rt, TilusLoadedKernel *kernel, const TilusArg *args,
    int numArgs, void *stream, TilusDevicePtr workspace,
    uint64_t workspaceBytes, TilusRuntimeError *err) {
  return launch(rt, kernel, args, numArgs, stream, true, workspace,
                workspaceBytes, "tilusRuntimeLaunchKernelWithWorkspace", err);
}

// The convenience path: the lookups of tilusRuntimeGetKernel on every call,
// then the fast path.
TilusStatus tilusRuntimeLaunch(TilusRuntime *rt, const TilusArtifact *artifact,
                               const char *kernel, const TilusArg *args,
                               int numArgs, void *stream,
                               TilusRuntimeError *err) {
  if (!rt)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusRuntimeLaunch: NULL runtime");
  // Checked before the driver is touched, so a bad launch loads nothing.
  TilusLaunchConfig config;
  TilusStatus s =
      tilusArtifactCheckLaunch(artifact, kernel, args, numArgs, &config, err);
  if (s != TilusStatusSuccess)
    return s;
  TilusLoadedKernel *loaded = NULL;
  if ((s = getKernel(rt, artifact, config.kernel, &loaded, err)) !=
      TilusStatusSuccess)
    return s;
  return tilusRuntimeLaunchKernel(rt, loaded, args, numArgs, stream, err);
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
