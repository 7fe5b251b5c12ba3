//===- RuntimeInternal.h - Shared internals of the runtime ------*- C -*-===//
//
// Private to runtime/: the artifact's in-memory form, the grid-expression
// evaluator, the pre-launch step that packs kernel parameters, and the error
// helper. Nothing here touches the CUDA driver.
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
// Grid expressions (GridExpr.c)
//===----------------------------------------------------------------------===//

typedef struct TilusGridExpr TilusGridExpr;

// Parses `length` bytes of affine-expression text. On failure returns NULL and
// writes "<reason> at column N" into `err` (code TilusStatusParseError).
TilusGridExpr *tilusGridExprParse(const char *text, size_t length,
                                  TilusRuntimeError *err);
void tilusGridExprDestroy(TilusGridExpr *expr);

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

typedef struct {
  TilusParamKind kind;
  int bitWidth;
  int byteSize;
  TilusSignedness signedness;
  char *typeName;
  char *elementType; // "" unless kind == TilusParamPointer
} TilusParam;

typedef struct {
  char *name;
  uint32_t block[3];
  int numGridDims;
  char *gridText[3];
  TilusGridExpr *grid[3];
  uint32_t sharedBytes;
  uint64_t workspaceBytes;
  int numParams;
  TilusParam *params;
} TilusKernel;

struct TilusArtifact {
  char *target; // "sm_80", ...
  TilusImageKind imageKind;
  unsigned char *image; // NUL-terminated copy (the NUL is not in imageSize)
  size_t imageSize;
  int numKernels;
  TilusKernel *kernels;
};

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

// Everything cuLaunchKernel needs except the function and the workspace
// address: the checked configuration, one slot per declared parameter plus
// one for the workspace pointer, and the pointer array over them.
typedef struct {
  TilusLaunchConfig config;
  int numSlots; // declared params, + 1 when the kernel has a workspace
  TilusParamSlot *slots;
  void **slotAddresses;
} TilusPreparedLaunch;

// tilusArtifactCheckLaunch, plus packing the arguments into `prepared`
// (release with tilusPreparedLaunchRelease, also after a failure).
TilusStatus tilusPrepareLaunch(const TilusArtifact *artifact,
                               const char *kernel, const TilusArg *args,
                               int numArgs, TilusPreparedLaunch *prepared,
                               TilusRuntimeError *err);
void tilusPreparedLaunchRelease(TilusPreparedLaunch *prepared);

#endif // TILUS_RUNTIME_RUNTIMEINTERNAL_H
