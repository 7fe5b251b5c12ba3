/*===-- tilus-c/Runtime.h - Loading and launching Tilus kernels ---*- C -*-===*\
|*                                                                            *|
|* The runtime loads the artifacts that the Tilus compiler writes (a small    *|
|* text manifest followed by PTX; docs/artifact.md describes the format)     *|
|* and launches their kernels through the CUDA driver API.                    *|
|*                                                                            *|
|* Two halves:                                                                *|
|*  - TilusArtifact: pure parsing and argument checking. No GPU, no driver:   *|
|*    usable in tools and tests on any machine.                               *|
|*  - TilusRuntime: a context object over one device. It opens libcuda.so.1   *|
|*    with dlopen when created, so programs linking this library build and    *|
|*    start on machines without CUDA. It owns its module cache, its loaded    *|
|*    kernels, its workspace buffer, a mutex, and nothing global. Separate    *|
|*    runtimes are independent (several on one device share the device's      *|
|*    primary context).                                                       *|
|*                                                                            *|
|* Threads: every call on a runtime may be made from any thread, and all of   *|
|* them may run concurrently on one runtime, except tilusRuntimeDestroy,      *|
|* which must not overlap any other call on that runtime or its kernels.      *|
|* Loading (tilusRuntimeLoadArtifact, tilusRuntimeGetKernel, the lookups of   *|
|* tilusRuntimeLaunch) is serialized by the runtime's mutex. Launches of      *|
|* loaded kernels keep their parameter bytes on the caller's stack; with a    *|
|* caller-supplied workspace (or none needed) they take no lock. Launches     *|
|* that use the runtime-owned workspace hold the mutex while they launch;     *|
|* the buffer itself is still one buffer (see tilusRuntimeLaunch). An         *|
|* artifact is read-only after parsing and may be shared between threads.     *|
|*                                                                            *|
|* CUDA graphs: tilusRuntimeLaunchKernelWithWorkspace is the capture-safe     *|
|* launch (see there); load kernels with tilusRuntimeGetKernel before the     *|
|* capture begins. docs/runtime.md has the whole story and an example.        *|
|*                                                                            *|
|* Ownership: every Create/Load/Parse returns a new object the caller         *|
|* destroys with the matching Destroy (which accepts NULL); the exception is  *|
|* a TilusLoadedKernel, which its runtime owns. Inputs are never consumed.    *|
|* Strings returned by accessors live as long as their object.                *|
|* Functions that can fail return a TilusStatus (or NULL) and, when `err` is  *|
|* non-NULL, fill it with the same code and a one-line message.               *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_RUNTIME_H
#define TILUS_C_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*--- Errors -----------------------------------------------------------------*/

typedef enum {
  TilusStatusSuccess = 0,
  /* A NULL object, a NULL buffer with a non-zero size, a bad option. */
  TilusStatusInvalidArgument,
  /* A file could not be read or written. */
  TilusStatusIOError,
  /* A malformed artifact or grid expression. */
  TilusStatusParseError,
  /* The artifact has no kernel of the requested name. */
  TilusStatusNoSuchKernel,
  /* Launch arguments do not match the kernel's parameters. */
  TilusStatusArgumentMismatch,
  /* A grid expression failed to evaluate or gave an out-of-range size. */
  TilusStatusGridError,
  /* The kernel or artifact does not fit the device (target, shared memory). */
  TilusStatusUnsupported,
  /* libcuda.so.1 is missing or is not a CUDA driver. */
  TilusStatusDriverNotFound,
  /* The driver is there but reports no (such) device. */
  TilusStatusNoDevice,
  /* A CUDA driver call failed; `cudaResult` holds its CUresult. */
  TilusStatusCudaError,
  /* Host memory allocation failed. */
  TilusStatusOutOfMemory,
} TilusStatus;

typedef struct {
  TilusStatus code;
  /* The failing call's CUresult for TilusStatusCudaError, else 0. */
  int cudaResult;
  char message[512];
} TilusRuntimeError;

/* A constant name for a status ("TilusStatusParseError"). */
const char *tilusStatusGetName(TilusStatus status);

/*--- Artifacts (no GPU needed) ----------------------------------------------*/

typedef struct TilusArtifact TilusArtifact;

/* What the module image of an artifact is. */
typedef enum {
  TilusImagePTX,   /* text after a `ptx:` line, JIT-compiled by the driver */
  TilusImageCubin, /* bytes after a `cubin:` line, loaded as is */
} TilusImageKind;

/* Parses an artifact held in memory (`length` bytes; need not be
 * NUL-terminated). Messages name the offending line: "line 7: ...". */
TilusArtifact *tilusArtifactParse(const char *text, size_t length,
                                  TilusRuntimeError *err);
/* Reads and parses a file. Messages start with the path. */
TilusArtifact *tilusArtifactLoadFile(const char *path, TilusRuntimeError *err);
void tilusArtifactDestroy(TilusArtifact *artifact);

/* "sm_80", "sm_89", "sm_90" or "sm_90a". */
const char *tilusArtifactGetTarget(const TilusArtifact *artifact);
TilusImageKind tilusArtifactGetImageKind(const TilusArtifact *artifact);
/* The module image: PTX text (NUL-terminated; size excludes the NUL) or cubin
 * bytes. */
const void *tilusArtifactGetImage(const TilusArtifact *artifact, size_t *size);

int tilusArtifactGetNumKernels(const TilusArtifact *artifact);
/* Index of the kernel called `name`, or -1. */
int tilusArtifactFindKernel(const TilusArtifact *artifact, const char *name);

/* Accessors of kernel `k` (0 <= k < tilusArtifactGetNumKernels). */
const char *tilusKernelGetName(const TilusArtifact *artifact, int k);
/* Threads per block in x, y, z. */
void tilusKernelGetBlock(const TilusArtifact *artifact, int k,
                         uint32_t block[3]);
/* Number of grid expressions (1 to 3; missing dimensions are 1). */
int tilusKernelGetNumGridDims(const TilusArtifact *artifact, int k);
/* Text of grid expression `dim`, as written in the artifact. */
const char *tilusKernelGetGridExpr(const TilusArtifact *artifact, int k,
                                   int dim);
/* Bytes of dynamic shared memory. */
uint32_t tilusKernelGetSharedBytes(const TilusArtifact *artifact, int k);
/* Bytes of global workspace; when > 0 the runtime passes its address as an
 * extra last kernel parameter, after the tensor maps (the runtime's own
 * buffer, or the caller's with tilusRuntimeLaunchKernelWithWorkspace). */
uint64_t tilusKernelGetWorkspaceBytes(const TilusArtifact *artifact, int k);
/* Blocks per thread-block cluster in dimension `dim` (0..2): 1 unless the
 * kernel runs in clusters (a `cluster` line); the grid is then a multiple
 * of the cluster in every dimension (checked at launch). */
uint32_t tilusKernelGetClusterDim(const TilusArtifact *artifact, int k,
                                  int dim);

typedef enum {
  TilusParamPointer, /* `ptr <dtype>`: a device address, 8 bytes */
  TilusParamInteger, /* i1..i64, si*, ui*, index */
  TilusParamFloat,   /* f16, bf16, f32, f64 */
} TilusParamKind;

typedef enum {
  TilusSignless, /* iN and index: accepts either reading of the bits */
  TilusSigned,   /* siN */
  TilusUnsigned, /* uiN */
} TilusSignedness;

typedef struct {
  TilusParamKind kind;
  /* Width of the value in bits (64 for pointers and index, 1 for i1). */
  int bitWidth;
  /* Bytes the parameter occupies in the kernel's parameter buffer. */
  int byteSize;
  TilusSignedness signedness; /* integers only */
  /* Spelling in the artifact: "i32", "bf16", "ptr". */
  const char *typeName;
  /* For pointers, the element type ("f16", "ui8", ...); "" otherwise. */
  const char *elementType;
} TilusParamInfo;

int tilusKernelGetNumParams(const TilusArtifact *artifact, int k);
TilusParamInfo tilusKernelGetParam(const TilusArtifact *artifact, int k,
                                   int param);

/* The most `tensormap` lines one kernel may have (more are a parse error), and
 * the highest rank of one (the TMA unit's). Each map takes 128 bytes of the
 * kernel's parameter space, which holds 4 KiB before CUDA 12.1. */
#define TILUS_MAX_KERNEL_TENSOR_MAPS 16
#define TILUS_TENSOR_MAP_MAX_RANK 5

/* A TMA tensor map the kernel takes as a hidden parameter (docs/artifact.md):
 * the runtime encodes it at each launch from the arguments, with
 * cuTensorMapEncodeTiled, and passes it after the kernel's own parameters.
 * The tensor is row-major and contiguous. Arrays list dimensions outermost
 * first, `rank` of them. */
typedef struct {
  int pointerParam; /* the `ptr` parameter whose value is the base address */
  int elementBytes; /* 1, 2, 4 or 8 */
  int rank;         /* 1..TILUS_TENSOR_MAP_MAX_RANK */
  /* Extent i is the value of integer parameter dimParam[i] when that is >= 0,
   * else the constant dimValue[i]. */
  int dimParam[TILUS_TENSOR_MAP_MAX_RANK];
  uint64_t dimValue[TILUS_TENSOR_MAP_MAX_RANK];
  uint32_t box[TILUS_TENSOR_MAP_MAX_RANK]; /* the box (tile), 1..256 each */
  int swizzleBytes;                        /* 0 (none), 32, 64 or 128 */
} TilusTensorMapInfo;

int tilusKernelGetNumTensorMaps(const TilusArtifact *artifact, int k);
/* Map `map` in manifest order (the order of the hidden parameters); all zero
 * for an index out of range. */
TilusTensorMapInfo tilusKernelGetTensorMap(const TilusArtifact *artifact, int k,
                                           int map);

/*--- Kernel arguments -------------------------------------------------------*/

typedef uint64_t TilusDevicePtr;

typedef enum {
  TilusArgPointer,  /* for `ptr` parameters; must be non-zero */
  TilusArgInteger,  /* for integer parameters; must fit their width */
  TilusArgFloat,    /* for float parameters; rounded to nearest even */
  TilusArgF16Bits,  /* the exact bits of an f16 parameter */
  TilusArgBF16Bits, /* the exact bits of a bf16 parameter */
} TilusArgKind;

/* A kernel argument. Integers are int64, so a ui64 parameter accepts
 * 0..INT64_MAX. */
typedef struct {
  TilusArgKind kind;
  union {
    TilusDevicePtr pointer;
    int64_t integer;
    double real;
    uint16_t bits;
  } value;
} TilusArg;

static inline TilusArg tilusArgPointer(TilusDevicePtr p) {
  TilusArg a;
  a.kind = TilusArgPointer;
  a.value.pointer = p;
  return a;
}
static inline TilusArg tilusArgInteger(int64_t v) {
  TilusArg a;
  a.kind = TilusArgInteger;
  a.value.integer = v;
  return a;
}
static inline TilusArg tilusArgFloat(double v) {
  TilusArg a;
  a.kind = TilusArgFloat;
  a.value.real = v;
  return a;
}
static inline TilusArg tilusArgF16Bits(uint16_t bits) {
  TilusArg a;
  a.kind = TilusArgF16Bits;
  a.value.bits = bits;
  return a;
}
static inline TilusArg tilusArgBF16Bits(uint16_t bits) {
  TilusArg a;
  a.kind = TilusArgBF16Bits;
  a.value.bits = bits;
  return a;
}

/* IEEE binary16 and bfloat16 bits of `value`, rounded to nearest even
 * (overflow gives infinity, NaN stays NaN). */
uint16_t tilusF16FromDouble(double value);
uint16_t tilusBF16FromDouble(double value);

/*--- Pre-launch checks (no GPU needed) --------------------------------------*/

typedef struct {
  int kernel; /* index of the kernel in the artifact */
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t sharedBytes;
  uint64_t workspaceBytes;
} TilusLaunchConfig;

/* Everything tilusRuntimeLaunch checks before touching the driver: the kernel
 * exists, the argument count equals the parameter count, each argument's kind
 * suits its parameter, pointers are non-null, integers fit their width,
 * every grid expression evaluates to a size the hardware accepts (x in
 * 1..2^31-1, y and z in 1..65535), and each tensor map's tensor is one
 * cuTensorMapEncodeTiled accepts (a 16-byte aligned base, extents in
 * 1..2^32, byte strides multiples of 16 below 2^40). On success fills
 * `config` (if non-NULL). */
TilusStatus tilusArtifactCheckLaunch(const TilusArtifact *artifact,
                                     const char *kernel, const TilusArg *args,
                                     int numArgs, TilusLaunchConfig *config,
                                     TilusRuntimeError *err);

/* Evaluates one affine expression of the grid language (integers, s<k>, + -
 * * floordiv ceildiv mod, parentheses, unary minus; MLIR precedence) with
 * s<k> = symbols[k], in int64 with floor semantics. Division by zero,
 * overflow and s<k> with k >= numSymbols are errors. */
TilusStatus tilusAffineExprEvaluate(const char *text, const int64_t *symbols,
                                    int numSymbols, int64_t *result,
                                    TilusRuntimeError *err);

/*--- Runtime ----------------------------------------------------------------*/

typedef struct TilusRuntime TilusRuntime;

typedef struct {
  /* CUDA device ordinal. */
  int device;
  /* Driver library to dlopen; NULL means "libcuda.so.1". */
  const char *driverLibrary;
} TilusRuntimeOptions;

static inline TilusRuntimeOptions tilusRuntimeOptionsDefault(void) {
  TilusRuntimeOptions o;
  o.device = 0;
  o.driverLibrary = NULL;
  return o;
}

/* The most parameters a kernel may declare for tilusRuntimeGetKernel (and
 * tilusRuntimeLaunch) to load it; beyond it they fail with
 * TilusStatusUnsupported. A launch packs the parameter bytes in arrays of this
 * size on the calling thread's stack (about 6 KiB, plus about 4 KiB for
 * TILUS_MAX_KERNEL_TENSOR_MAPS tensor maps), so that concurrent launches share
 * no buffer. CUDA's parameter space (4 KiB before CUDA 12.1)
 * holds 512 pointers at most. */
#define TILUS_MAX_KERNEL_PARAMS 256

/* The alignment every pointer argument must have, in bytes: the compiler
 * assumes it of kernel pointers (docs/lowering.md) to access 16 bytes at a
 * time, so a launch refuses a pointer that lacks it (TilusStatusArgumentMismatch)
 * rather than let the kernel fault on a misaligned address, which would
 * leave the context unusable. cuMemAlloc returns 256-byte aligned memory; a
 * view into it (a tensor slice) may not be aligned. */
#define TILUS_POINTER_ALIGNMENT 16

/* The alignment a caller-supplied workspace must have, in bytes: the
 * compiler places each workspace tensor at a multiple of it from the base.
 * cuMemAlloc (and so tilusRuntimeMalloc) returns addresses aligned to it. */
#define TILUS_WORKSPACE_ALIGNMENT 256

/* Opens the driver, initializes it and retains device 0's primary context. */
TilusRuntime *tilusRuntimeCreate(TilusRuntimeError *err);
TilusRuntime *tilusRuntimeCreateOnDevice(int ordinal, TilusRuntimeError *err);
TilusRuntime *tilusRuntimeCreateWithOptions(const TilusRuntimeOptions *options,
                                            TilusRuntimeError *err);
/* Unloads cached modules, frees the workspace, releases the context. Kernels
 * still running on the caller's streams must be finished first. */
void tilusRuntimeDestroy(TilusRuntime *rt);

/* Device name, as the driver reports it. */
const char *tilusRuntimeGetDeviceName(const TilusRuntime *rt);
/* Compute capability, e.g. 9 and 0 for an H100. */
void tilusRuntimeGetComputeCapability(const TilusRuntime *rt, int *major,
                                      int *minor);
/* The driver's CUDA version, e.g. 12080 for 12.8. */
int tilusRuntimeGetDriverVersion(const TilusRuntime *rt);

/* Loads the artifact's module into the cache (JIT-compiling PTX) unless a
 * module with the same image bytes is already there. The cache is keyed by
 * content (a hash of the image, confirmed byte for byte), so two artifact
 * objects with the same PTX share one CUmodule, and an artifact may be
 * destroyed after loading. Launch calls this itself; calling it first moves
 * the JIT cost (and JIT errors, with the ptxas log) up front. Fails with
 * TilusStatusUnsupported when the artifact's target cannot run on the device
 * (sm_XY needs compute capability >= X.Y; sm_90a needs exactly 9.0). */
TilusStatus tilusRuntimeLoadArtifact(TilusRuntime *rt,
                                     const TilusArtifact *artifact,
                                     TilusRuntimeError *err);
/* Number of modules in the cache. */
int tilusRuntimeGetNumCachedModules(const TilusRuntime *rt);

/* Checks (tilusArtifactCheckLaunch), loads the module if needed, makes sure
 * the workspace is large enough, and launches `kernel` asynchronously on
 * `stream` (a CUstream; NULL is the default stream). On any check failure
 * nothing is launched.
 *
 * The runtime-owned workspace, which this call and tilusRuntimeLaunchKernel
 * use, is for single-stream use: it is one buffer per runtime, reused by
 * every launch and grown (never shrunk) when a kernel needs more; growing
 * synchronizes the whole context (cuCtxSynchronize), frees the old buffer
 * and allocates a new one (cuMemAlloc, then cuMemsetD8 to zero it). Its
 * contents are zero when allocated and whatever the last kernel left
 * afterwards. Kernels that use it on different streams must not run at the
 * same time (the host side is safe: the runtime's mutex is held from
 * choosing the buffer until cuLaunchKernel returns). A launch that needs it
 * on a stream being captured into a CUDA graph is refused with
 * TilusStatusInvalidArgument before anything is launched: the graph would
 * keep an address that a later growth frees. For several streams, threads or
 * graphs pass a workspace per launch with
 * tilusRuntimeLaunchKernelWithWorkspace.
 *
 * Convenient, but every call looks the kernel up again: by name in the
 * artifact, and in the module cache by comparing the artifact's image byte
 * for byte with the cached one (time grows with the PTX size). For repeated
 * launches resolve the kernel once with tilusRuntimeGetKernel and use
 * tilusRuntimeLaunchKernel, which behaves the same. */
TilusStatus tilusRuntimeLaunch(TilusRuntime *rt, const TilusArtifact *artifact,
                               const char *kernel, const TilusArg *args,
                               int numArgs, void *stream,
                               TilusRuntimeError *err);

/*--- Loaded kernels: the fast launch path -----------------------------------*/

/* A kernel resolved on one runtime: its module loaded, its CUfunction found,
 * the shared-memory opt-in done, and a private, read-only copy of its
 * parameter table and grid (so any number of threads may launch it at
 * once). */
typedef struct TilusLoadedKernel TilusLoadedKernel;

/* Resolves kernel `kernel` of `artifact` on the runtime's device, with the
 * errors tilusRuntimeLaunch would report for these steps (no such kernel,
 * too much shared memory for the device, a target the device cannot run,
 * JIT errors, the entry missing from the module). The kernel is owned by the
 * runtime: it stays valid until tilusRuntimeDestroy, and the caller never
 * frees it. It does not refer to `artifact`, which may be destroyed at once.
 * Asking again for the same kernel (the same image and the same description
 * in the manifest) returns the same kernel, also when threads ask at once.
 * A kernel with more than TILUS_MAX_KERNEL_PARAMS parameters is refused
 * with TilusStatusUnsupported, and so is a kernel with tensor maps when the
 * driver has no cuTensorMapEncodeTiled (before CUDA 12.0). */
TilusLoadedKernel *tilusRuntimeGetKernel(TilusRuntime *rt,
                                         const TilusArtifact *artifact,
                                         const char *kernel,
                                         TilusRuntimeError *err);

/* tilusRuntimeLaunch for a loaded kernel: the same argument checks, grid
 * evaluation, runtime-owned workspace, errors and messages, without the
 * lookups. A launch that succeeds hashes nothing, allocates no host memory
 * and formats no text (only a workspace that has to grow costs more, see
 * above): its host cost is the argument checks, cuCtxGetCurrent (plus
 * cuCtxSetCurrent when another context is current) and cuLaunchKernel, plus
 * the mutex and cuStreamIsCapturing for a kernel that needs a workspace, and
 * one cuTensorMapEncodeTiled (host-only work) per tensor map the kernel
 * takes.
 * `kernel` must come from tilusRuntimeGetKernel on this same `rt` (a kernel
 * of another runtime is refused with TilusStatusInvalidArgument). Any number
 * of threads may launch at once, each with its own arguments. */
TilusStatus tilusRuntimeLaunchKernel(TilusRuntime *rt,
                                     TilusLoadedKernel *kernel,
                                     const TilusArg *args, int numArgs,
                                     void *stream, TilusRuntimeError *err);

/* tilusRuntimeLaunchKernel with a workspace the caller owns: for launches on
 * several streams or threads at once, and for CUDA-graph capture.
 *
 * When the kernel needs a workspace (tilusLoadedKernelGetWorkspaceBytes > 0),
 * `workspace` is passed as its extra last parameter. It must be a device
 * address in the runtime's context (e.g. from tilusRuntimeMalloc, cuMemAlloc,
 * or a framework's allocator on the same device), aligned to
 * TILUS_WORKSPACE_ALIGNMENT, `workspaceBytes` long, and not used by any
 * other kernel while this one runs: one workspace per stream is the simple
 * rule. A NULL `workspace`, `workspaceBytes` below the kernel's need or a
 * misaligned address is TilusStatusArgumentMismatch ("kernel 'k' needs a
 * workspace of 1024 bytes, but the one given has 512") and nothing is
 * launched. The contents need
 * not be zero: code the Tilus compiler generates writes a workspace tensor
 * (AllocateGlobal) before it reads it and assumes nothing about its
 * contents on entry; the runtime never touches the caller's buffer. When the
 * kernel needs no workspace, `workspace` and `workspaceBytes` are ignored.
 *
 * Capture-safe: the only driver calls are cuCtxGetCurrent, cuCtxSetCurrent
 * (only when another context is current on the thread), cuTensorMapEncodeTiled
 * (per tensor map: it only fills 128 bytes on the host) and cuLaunchKernel:
 * no module load, allocation, memset or synchronization, so the launch may
 * be recorded into a stream being captured (cuStreamBeginCapture, any
 * capture mode). The graph keeps `workspace` and the argument values (the
 * tensor maps too, by value), so they must stay valid while the graph can
 * run. The kernel must have been loaded (tilusRuntimeGetKernel) before the
 * capture began. Takes no lock. */
TilusStatus tilusRuntimeLaunchKernelWithWorkspace(
    TilusRuntime *rt, TilusLoadedKernel *kernel, const TilusArg *args,
    int numArgs, void *stream, TilusDevicePtr workspace,
    uint64_t workspaceBytes, TilusRuntimeError *err);

/* Bytes of workspace `kernel` needs per launch (0: none); what a caller of
 * tilusRuntimeLaunchKernelWithWorkspace allocates. 0 for NULL. */
uint64_t tilusLoadedKernelGetWorkspaceBytes(const TilusLoadedKernel *kernel);

/* Current size in bytes of the runtime-owned workspace (0 before any kernel
 * needed one; launches with a caller's workspace never change it). */
uint64_t tilusRuntimeGetWorkspaceBytes(const TilusRuntime *rt);

/*--- Memory, streams, timing: small helpers for tests and tools -------------*/

TilusStatus tilusRuntimeMalloc(TilusRuntime *rt, size_t bytes,
                               TilusDevicePtr *ptr, TilusRuntimeError *err);
/* Freeing 0 does nothing. */
TilusStatus tilusRuntimeFree(TilusRuntime *rt, TilusDevicePtr ptr,
                             TilusRuntimeError *err);
TilusStatus tilusRuntimeCopyToDevice(TilusRuntime *rt, TilusDevicePtr dst,
                                     const void *src, size_t bytes,
                                     TilusRuntimeError *err);
TilusStatus tilusRuntimeCopyToHost(TilusRuntime *rt, void *dst,
                                   TilusDevicePtr src, size_t bytes,
                                   TilusRuntimeError *err);
TilusStatus tilusRuntimeMemset(TilusRuntime *rt, TilusDevicePtr dst,
                               uint8_t value, size_t bytes,
                               TilusRuntimeError *err);
/* Waits for all work on the device's context (and reports kernel faults). */
TilusStatus tilusRuntimeSynchronize(TilusRuntime *rt, TilusRuntimeError *err);

/* A non-blocking CUstream (returned as void*). */
TilusStatus tilusRuntimeStreamCreate(TilusRuntime *rt, void **stream,
                                     TilusRuntimeError *err);
TilusStatus tilusRuntimeStreamSynchronize(TilusRuntime *rt, void *stream,
                                          TilusRuntimeError *err);
TilusStatus tilusRuntimeStreamDestroy(TilusRuntime *rt, void *stream,
                                      TilusRuntimeError *err);

/* CUevents (returned as void*) for timing work on a stream. */
TilusStatus tilusRuntimeEventCreate(TilusRuntime *rt, void **event,
                                    TilusRuntimeError *err);
TilusStatus tilusRuntimeEventRecord(TilusRuntime *rt, void *event, void *stream,
                                    TilusRuntimeError *err);
/* Waits for `end`, then gives the milliseconds between the two events. */
TilusStatus tilusRuntimeEventElapsed(TilusRuntime *rt, void *start, void *end,
                                     float *milliseconds,
                                     TilusRuntimeError *err);
TilusStatus tilusRuntimeEventDestroy(TilusRuntime *rt, void *event,
                                     TilusRuntimeError *err);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_RUNTIME_H */
