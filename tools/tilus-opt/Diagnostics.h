//===- Diagnostics.h - Reporting and checking diagnostics -------*- C -*-===//
//
// tilus-opt either prints diagnostics as `file:line:col: error: message`, or,
// with --verify-diagnostics, collects them and checks them against the
// `expected-error {{...}}` comments of the input, as mlir-opt does.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_OPT_DIAGNOSTICS_H
#define TILUS_OPT_DIAGNOSTICS_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "Utils/StringBuffer.h"

#include <stdbool.h>
#include <stdio.h>

// Text that grows as MLIR's string callbacks deliver it in pieces.
typedef TilusStringBuffer TilusOptText;

// An MlirStringCallback appending to a TilusOptText (`userData`).
void tilusOptAppendText(MlirStringRef piece, void *userData);

typedef struct {
  int line; // 0 when the location has no line
  MlirDiagnosticSeverity severity;
  char *message;
} CollectedDiagnostic;

typedef struct {
  bool collect; // true with --verify-diagnostics
  const char *fileName; // reported for locations in the buffer "-"
  int numErrors; // errors seen (printed or collected)
  CollectedDiagnostic *items;
  int numItems, capacity;
} DiagnosticState;

// The handler to attach to the context; `userData` is a DiagnosticState.
MlirLogicalResult tilusOptHandleDiagnostic(MlirDiagnostic diagnostic,
                                           void *userData);

// Checks the collected diagnostics against the expectations written in
// `source` (lines numbered from 1, as in the whole input file) and reports
// each mismatch on stderr as `file:line: error: ...`. Returns true when all
// match. Clears the collected diagnostics.
bool tilusOptCheckExpectations(DiagnosticState *state, const char *fileName,
                               const char *source, size_t length);

void tilusOptClearDiagnostics(DiagnosticState *state);

#endif // TILUS_OPT_DIAGNOSTICS_H
