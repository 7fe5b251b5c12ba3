/*===-- tilus-c/Diagnostics.h - Reporting MLIR diagnostics -----------*- C -*-===*\
|*                                                                            *|
|* Diagnostics as people read them: `file:line:col: error: message`, with the *|
|* position of the innermost file location of any location kind. tilus-opt   *|
|* and tilusCompile (Target.h) report through these.                         *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_DIAGNOSTICS_H
#define TILUS_C_DIAGNOSTICS_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file location shown for `loc`: itself for a file location, the
 * child's for a name, the callee's for a call site (where the op is; the
 * caller's when the callee has none), the first one inside a fused location.
 * False for unknown and opaque locations. `*file` lives as long as the
 * context. */
bool tilusLocationGetFileLineCol(MlirLocation loc, MlirStringRef *file,
                                 unsigned *line, unsigned *column);

/* "error", "warning", "note" or "remark". */
const char *tilusDiagnosticSeverityName(MlirDiagnosticSeverity severity);

/* Writes `diagnostic` and then its notes, each as one line
 * `file:line:col: severity: message\n` (no position when it has no file
 * location) in one call of `callback`. A location in the buffer "-" (text
 * parsed from memory) is written with `bufferName` instead, when not NULL. */
void tilusDiagnosticWrite(MlirDiagnostic diagnostic, const char *bufferName,
                          MlirStringCallback callback, void *userData);

/* Writes `message` as one line `file:line:col: remark: message\n` at `loc`
 * (as tilusDiagnosticWrite does for a diagnostic, `bufferName` likewise), in
 * one call of `callback`: how tilus-opt prints the lowering's remarks
 * (TilusRemarkCallback, tilus-c/Passes.h). */
void tilusRemarkWrite(MlirLocation loc, MlirStringRef message,
                      const char *bufferName, MlirStringCallback callback,
                      void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_DIAGNOSTICS_H */
