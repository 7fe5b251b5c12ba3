//===- RuntimeInternal.h - Shared internals of the runtime ------*- C -*-===//
//
// Private to runtime/: the artifact's in-memory form, the grid-expression
// evaluator, the pre-launch step that checks and packs kernel arguments, and
// the error helper. Nothing here touches the CUDA driver.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_RUNTIME_RUNTIMEINTERNAL_H
#define TILUS_RUNTIME_RUNTIMEINTERNAL_H

#include "tilus-c/Runtime.h"

#include <stdarg.h>

#if defined(__GNUC__)
#define TILUS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TILUS_PRINTF(fmt, args)
#endif

//===----------------------------------------------------------------------===//
// Errors (Error.c)
//===----------------------------------------------------------------------===//

// Fills `err` (when non-NULL) with `code`, no CUDA result and the formatted
// message; returns `code` so callers can `return tilusSetError(...)`.
TilusStatus tilusSetError(TilusRuntimeError *err, TilusStatus code,
                          const char *format, ...) TILUS_PRINTF(3, 4);

// Puts `prefix` in front of an error's message (e.g. a file name).
void tilusPrefixError(TilusRuntimeError *err, const char *prefix);

//===----------------------------------------------------------------------===//
// Text and files (Artifact.c)
//===----------------------------------------------------------------------===//

// A NUL-terminated copy of `length` bytes of `text` (the caller frees it), or
// NULL when out of memory.
char *tilusCopyText(const char *text, size_t length);

// The whole file at `path` (read in chunks, so pipes work too), with a NUL
// after its *size bytes; the caller frees it. NULL with TilusStatusIOError
// ("cannot open 'p': ...", "cannot read 'p'") or TilusStatusOutOfMemory in
// `err`.
char *tilusReadFile(const char *path, size_t *size, TilusRuntimeError *err);

//===----------------------------------------------------------------------===//
// Grid expressions (GridExpr.c)
//===----------------------------------------------------------------------===//

typedef struct TilusGridExpr TilusGridExpr;

// Parses `length` bytes of affine-expression text. On failure returns NULL and
// writes "<reason> at column N" into `err` (code TilusStatusParseError).
TilusGridExpr *tilusGridExprParse(const char *text, size_t length,
                                  TilusRuntimeError *err);
void tilusGridExprDestroy(TilusGridExpr *expr);
// A copy that owns nothing in common with `expr`; NULL when out of memory.
TilusGridExpr *tilusGridExprClone(const TilusGridExpr *expr);

// Largest k used as s<k>, or -1 when the expression has no symbol.
int tilusGridExprGetMaxSymbol(const TilusGridExpr *expr);
// Whether s<k> occurs in the expression.
bool tilusGridExprUsesSymbol(const TilusGridExpr *expr, int k);

// Evaluates with s<k> = symbols[k]; the caller guarantees numSymbols >
// tilusGridExprGetMaxSymbol. Errors (division by zero, overflow) come back as
// TilusStatusGridError with a message that describes the failing operation;
// callers add which kernel and dimension it was.
TilusStatus tilusGridExprEvaluate(const TilusGridExpr *expr,
                                  const int64_t *symbols, int numSymbols,
                                  int64_t *result, TilusRuntimeError *err);

//===----------------------------------------------------------------------===//
// Artifacts (Artifact.c)
//===----------------------------------------------------------------------===//

// How a float parameter's bits are laid out. Decided from the type's spelling
// when the artifact is parsed, so that a launch compares no strings.
typedef enum {
  TilusFloatLayoutF16,
  TilusFloatLayoutBF16,
  TilusFloatLayoutF32,
  TilusFloatLayoutF64,
} TilusFloatLayout;

// One declared parameter: the table each launch checks its arguments against.
// Everything a check needs is computed when the artifact is parsed; the
// strings are only for messages and accessors.
typedef struct {
  TilusParamKind kind;
  int bitWidth;
  int byteSize;
  TilusSignedness signedness;
  // Integers: the values an argument may take. Signless types accept both
  // readings of their bits (i8 takes -128..255), as MLIR's signless integers
  // do.
  int64_t minValue;
  uint64_t maxValue;
  TilusFloatLayout floatLayout; // floats only
  char *typeName;
  char *elementType; // "" unless kind == TilusParamPointer
} TilusParam;

// One `tensormap` line: how a launch builds a hidden TMA descriptor from
// the arguments. The same fields as TilusTensorMapInfo; arrays are outermost
// first, as written.
typedef TilusTensorMapInfo TilusTensorMap;

typedef struct {
  char *name;
  uint32_t block[3];
  int numGridDims;
  char *gridText[3];
  TilusGridExpr *grid[3];
  uint32_t sharedBytes;
  uint64_t workspaceBytes;
  // Blocks per cluster (a `cluster` line; 1 1 1 without one). The cluster
  // shape is compiled into the kernel (.reqnctapercluster), so a plain
  // launch runs it; the grid must be a multiple of it.
  uint32_t cluster[3];
  int numParams;
  TilusParam *params;
  // In manifest order, which is the order of the hidden parameters; at most
  // TILUS_MAX_KERNEL_TENSOR_MAPS (the parser refuses more).
  int numTensorMaps;
  TilusTensorMap *tensorMaps;
} TilusKernel;

struct TilusArtifact {
  char *target; // "sm_80", ...
  TilusImageKind imageKind;
  unsigned char *image; // NUL-terminated copy (the NUL is not in imageSize)
  size_t imageSize;
  // 64-bit FNV-1a of the image, computed once when parsed: the runtime's
  // module cache is keyed by it (and confirms hits byte for byte).
  uint64_t imageHash;
  int numKernels;
  TilusKernel *kernels;
};

// Deep copy of a kernel's description into `copy`, which then owns its own
// strings and grid expressions (release with tilusKernelRelease). False when
// out of memory, with `copy` released.
bool tilusKernelCopy(TilusKernel *copy, const TilusKernel *kernel);
void tilusKernelRelease(TilusKernel *kernel);
// Whether two descriptions launch the same way: name, block, grid, shared
// memory, workspace, parameter types and tensor maps.
bool tilusKernelEquals(const TilusKernel *a, const TilusKernel *b);

//===----------------------------------------------------------------------===//
// Pre-launch (LaunchCheck.c)
//===----------------------------------------------------------------------===//

// One kernel parameter's bytes, stored at the start of the slot (the driver
// copies byteSize bytes from the slot's address; hosts are little-endian).
typedef union {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  float f32;
  double f64;
} TilusParamSlot;

// The index of kernel `name` in `artifact`, or TilusStatusNoSuchKernel with a
// message that lists the kernels the artifact has.
TilusStatus tilusLookUpKernel(const TilusArtifact *artifact, const char *name,
                              int *index, TilusRuntimeError *err);

// What cuTensorMapEncodeTiled takes for one tensor map of one launch, in the
// driver's order: innermost dimension first. The rank, element size and
// swizzle are the kernel's (TilusTensorMap); element strides are all 1.
typedef struct {
  uint64_t globalAddress;
  uint64_t globalDim[TILUS_TENSOR_MAP_MAX_RANK];
  // Byte strides of dimensions 1..rank-1 (the innermost one is the element).
  uint64_t globalStrides[TILUS_TENSOR_MAP_MAX_RANK - 1];
  uint32_t boxDim[TILUS_TENSOR_MAP_MAX_RANK];
} TilusTensorMapArgs;

// Checks `args` against `kernel`'s parameter table (the count, each kind,
// non-null pointers, integer ranges), writes argument i's bytes into
// `slots[i]`, evaluates the grid into `grid` (x in 1..2^31-1, y and z in
// 1..65535) with `symbols` as scratch for the grid's s<k> values, and checks
// and computes each tensor map's encoding arguments into `maps[m]` (a
// 16-byte aligned base, extents in 1..2^32, byte strides multiples of 16
// below 2^40: what cuTensorMapEncodeTiled requires). `slots` and `symbols`
// have room for kernel->numParams entries each, `maps` for
// kernel->numTensorMaps. Allocates nothing and formats no text unless it
// fails; on failure the outputs hold garbage.
TilusStatus tilusCheckArguments(const TilusKernel *kernel, const TilusArg *args,
                                int numArgs, TilusParamSlot *slots,
                                int64_t *symbols, TilusTensorMapArgs *maps,
                                uint32_t grid[3], TilusRuntimeError *err);

#endif // TILUS_RUNTIME_RUNTIMEINTERNAL_H
