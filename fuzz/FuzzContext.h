//===- FuzzContext.h - What the MLIR harnesses share ------------*- C -*-===//
//
// One MLIR context per harness, and the screen for input that crashes MLIR's
// own parser. Creating a context with every dialect and the Tilus dialect
// costs far more than one input, so a harness keeps one and replaces it now
// and then: the types and attributes an input creates stay uniqued in the
// context for its lifetime, and without a fresh one memory only grows.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_FUZZ_FUZZCONTEXT_H
#define TILUS_FUZZ_FUZZCONTEXT_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

// The harness's context: created on the first call (all upstream dialects,
// the Tilus dialect, single-threaded, every diagnostic swallowed) and created
// again after `runsPerContext` calls. Aborts if the dialect does not load.
MlirContext tilusFuzzGetContext(int runsPerContext);

// Whether `text` may go to MLIR's parser: free of what crashes MLIR 22's
// parser (tilusSourceIsSafeToParse, Dialect.h), as tilus-opt checks.
bool tilusFuzzParserMayTake(MlirContext ctx, const char *text, size_t length);

#endif // TILUS_FUZZ_FUZZCONTEXT_H
