//===- Options.h - tilus-opt's command line -------------------*- C -*-===//
//
// The options of tilus-opt (Options.c parses them, prints --help, --version
// and --list-passes); tilus-opt.c runs what they ask for.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_OPT_OPTIONS_H
#define TILUS_OPT_OPTIONS_H

#include "tilus-c/Passes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_PASS_FLAGS 64

// A pass on the command line: a Tilus pass or pipeline, or any pass MLIR's
// registry knows (`--canonicalize`, `--cse=...`), in command-line order.
typedef struct {
  const TilusPassInfo *tilus; // NULL for an upstream pass
  const char *spelling;       // the argument as given
  const char *name;           // the pass name (not NUL-terminated)
  size_t nameLength;
  const char *passOptions;    // the text after '=', or NULL
} PassFlag;

enum { EMIT_IR, EMIT_BYTECODE, EMIT_PTX, EMIT_ARTIFACT };

typedef struct {
  const char *inputPath;  // "-" for stdin
  const char *outputPath; // "-" for stdout
  const char *pipeline;   // --pass-pipeline, or NULL
  PassFlag passes[MAX_PASS_FLAGS];
  int numPasses;
  bool splitInputFile;
  bool verifyDiagnostics;
  bool skipVerifier;
  bool remarks;       // --tilus-remarks
  const char *target; // --target, or NULL: the module's tilus.target, else
                      // sm_90a
  int emit;           // EMIT_*
  int64_t bytecodeVersion; // --emit-bytecode-version, -1: the current one
  // The pass manager.
  bool printBefore, printAfter, printAfterChange, printAfterFailure;
  bool printModuleScope;
  const char *printTreeDir; // --mlir-print-ir-tree-dir, or NULL: stderr
  bool timing;
  int statistics; // 0: off, else 1 + MlirPassDisplayMode
  bool verifyEach;
  bool dumpPipeline;
  // The output (and the IR dumps).
  bool printGeneric, printLocalScope, printDebugInfo, printPrettyDebugInfo;
  bool printSkipRegions, printNameLocAsPrefix;
  int64_t elideElements; // -1: do not elide
  // The context.
  bool disableThreading;
  bool allowUnregistered;
  bool showDialects;
} Options;

// Fills `options` from the command line. Returns 0 to go on, 1 after an error
// (printed), 2 when an informational flag (--help, --version, ...) printed
// what it asked for and the program should stop with success.
int tilusOptParseOptions(int argc, char **argv, Options *options);

#endif // TILUS_OPT_OPTIONS_H
