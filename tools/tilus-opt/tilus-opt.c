//===- tilus-opt.c - The Tilus driver -------------------------------------===//
//
// Parses Tilus IR, verifies it, runs passes and prints the result, in the
// manner of mlir-opt:
//
//   tilus-opt [options] [input.mlir | -]
//
// Run `tilus-opt --help` for the options and the list of passes.
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"
#include "Options.h"
#include "Utils/ReadFile.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Diagnostics.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Target.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Ops.h"
#include "tilus-c/Verifier.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// --show-dialects. The MLIR C API counts a context's dialects but cannot
// name them; the ones Tilus uses are looked up by name, which loads a
// registered one (and the dialects it depends on). The loaded count is taken
// first, and the dialects tilus-opt loads itself come first in the list:
// one that is found without the count growing, while the count has loaded
// dialects left to account for, was loaded before.
static void printDialects(MlirContext ctx, FILE *out) {
  intptr_t registered = mlirContextGetNumRegisteredDialects(ctx);
  intptr_t loaded = mlirContextGetNumLoadedDialects(ctx);
  fprintf(out,
          "tilus-opt's context: %ld registered dialects (every upstream "
          "dialect: mlirRegisterAllDialects)\n"
          "and %ld loaded (tilus-opt loads builtin, irdl and tilus, the "
          "last from its IRDL source).\n"
          "The MLIR C API cannot list dialects by name; those Tilus IR and "
          "its lowering use:\n",
          (long)registered, (long)loaded);
  static const char *const kUsed[] = {"builtin", "irdl", "tilus", "func",
                                      "arith",   "scf",  "cf",    "vector",
                                      "gpu",     "nvvm", "llvm"};
  intptr_t unaccounted = loaded;
  for (size_t k = 0; k < sizeof(kUsed) / sizeof(kUsed[0]); ++k) {
    intptr_t before = mlirContextGetNumLoadedDialects(ctx);
    MlirDialect dialect = mlirContextGetOrLoadDialect(
        ctx, mlirStringRefCreateFromCString(kUsed[k]));
    const char *state = "registered";
    if (mlirDialectIsNull(dialect))
      state = "not available";
    else if (mlirContextGetNumLoadedDialects(ctx) == before && unaccounted) {
      state = "loaded";
      --unaccounted;
    }
    fprintf(out, "  %-8s %s\n", kUsed[k], state);
  }
}

// Reads a whole file (or stdin for "-") into a NUL-terminated buffer.
static char *readInput(const char *path, size_t *length) {
  FILE *file = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!file) {
    fprintf(stderr, "tilus-opt: cannot open input file '%s': %s\n", path,
            strerror(errno));
    return NULL;
  }
  size_t size = 0;
  char *data = tilusReadStream(file, &size);
  if (file != stdin)
    fclose(file);
  if (!data) {
    fprintf(stderr, "tilus-opt: cannot read input file '%s'\n", path);
    return NULL;
  }
  *length = size;
  return data;
}

static void writeToStderr(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, stderr);
}

// --tilus-remarks: each remark as `file:line:col: remark: ...` (`userData`
// is the input's name).
static void printRemark(MlirLocation loc, MlirStringRef message,
                        void *userData) {
  tilusRemarkWrite(loc, message, userData, writeToStderr, NULL);
}

static void writeToFile(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

// The pipeline parser reports one error in several pieces; they are
// collected (tilusOptAppendText) and printed as one message.
static void printError(const char *what, TilusOptText *error) {
  size_t length = error->data && !error->failed ? error->length : 0;
  while (length && (error->data[length - 1] == '\n' ||
                    error->data[length - 1] == ' '))
    --length;
  if (length)
    fprintf(stderr, "tilus-opt: %s: %.*s\n", what, (int)length, error->data);
  else
    fprintf(stderr, "tilus-opt: %s: unknown error\n", what);
  tilusStringBufferRelease(error);
}

static bool hasBytecodeMagic(const char *data, size_t length) {
  return length >= 4 && !memcmp(data, "ML\xefR", 4);
}

// The printing flags of the output and of the IR dumps.
static MlirOpPrintingFlags createPrintingFlags(const Options *options) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (options->printGeneric)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  if (options->printLocalScope)
    mlirOpPrintingFlagsUseLocalScope(flags);
  if (options->printDebugInfo || options->printPrettyDebugInfo)
    mlirOpPrintingFlagsEnableDebugInfo(flags, true,
                                       options->printPrettyDebugInfo);
  if (options->printSkipRegions)
    mlirOpPrintingFlagsSkipRegions(flags);
  if (options->printNameLocAsPrefix)
    mlirOpPrintingFlagsPrintNameLocAsPrefix(flags);
  if (options->elideElements >= 0)
    mlirOpPrintingFlagsElideLargeElementsAttrs(flags,
                                               (intptr_t)options->elideElements);
  return flags;
}

// Adds the pass of one flag: a Tilus pass for the target, or an upstream
// pass by name (`name{options}` for `--name=options`).
static bool addPassFlag(MlirOpPassManager opm, const PassFlag *pass,
                        const TilusConversionOptions *conversion) {
  TilusOptText error = {0};
  if (pass->tilus) {
    if (mlirLogicalResultIsSuccess(tilusPassAddWithOptions(
            pass->tilus, opm, conversion, tilusOptAppendText, &error)))
      return true;
    printError(pass->tilus->argument, &error);
    return false;
  }
  size_t size = pass->nameLength + 3 +
                (pass->passOptions ? strlen(pass->passOptions) : 0);
  char *text = malloc(size);
  if (!text) {
    fprintf(stderr, "tilus-opt: out of memory\n");
    return false;
  }
  if (pass->passOptions)
    snprintf(text, size, "%.*s{%s}", (int)pass->nameLength, pass->name,
             pass->passOptions);
  else
    snprintf(text, size, "%.*s", (int)pass->nameLength, pass->name);
  bool ok = mlirLogicalResultIsSuccess(mlirOpPassManagerAddPipeline(
      opm, mlirStringRefCreateFromCString(text), tilusOptAppendText, &error));
  if (!ok) {
    if (error.data && !error.failed &&
        strstr(error.data, "does not refer to a registered pass")) {
      fprintf(stderr,
              "tilus-opt: unknown option or pass '%s' (run 'tilus-opt "
              "--help' for the options, 'tilus-opt --list-passes' for the "
              "passes)\n",
              pass->spelling);
      tilusStringBufferRelease(&error);
    } else {
      char what[160];
      snprintf(what, sizeof(what), "invalid pass '%s'", pass->spelling);
      printError(what, &error);
    }
  }
  free(text);
  return ok;
}

// The pass manager of the command line's passes and instrumentation, built
// once and run on every chunk. Returns false (with a message) when a pass
// cannot be added.
static bool buildPassManager(MlirContext ctx, const Options *options,
                             MlirOpPrintingFlags flags, MlirPassManager *out) {
  // Anchored on builtin.module, the op the input is parsed into, as in
  // mlir-opt.
  MlirPassManager pm = mlirPassManagerCreateOnOperation(
      ctx, mlirStringRefCreateFromCString("builtin.module"));
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  // The lowering picks target-specific instructions (stmatrix on sm_90)
  // from --target, or, without it, from the module (NULL).
  const TilusTargetInfo *target =
      options->target
          ? tilusTargetInfoLookup(options->target, strlen(options->target))
          : NULL;
  // --tilus-remarks: the lowering's remarks name the input file.
  TilusConversionOptions conversion = {
      target, options->remarks ? printRemark : NULL,
      (void *)(strcmp(options->inputPath, "-") ? options->inputPath
                                               : "<stdin>")};
  bool ok = true;
  for (int k = 0; k < options->numPasses && ok; ++k)
    ok = addPassFlag(opm, &options->passes[k], &conversion);
  if (ok && options->pipeline) {
    TilusOptText error = {0};
    ok = mlirLogicalResultIsSuccess(
        mlirParsePassPipeline(opm, mlirStringRefCreateFromCString(options->pipeline),
                              tilusOptAppendText, &error));
    if (!ok)
      printError("invalid --pass-pipeline", &error);
  }
  if (!ok) {
    mlirPassManagerDestroy(pm);
    return false;
  }
  mlirPassManagerEnableVerifier(pm, options->verifyEach);
  bool printAfter = options->printAfter || options->printAfterChange ||
                    options->printAfterFailure;
  if (options->printBefore || printAfter)
    mlirPassManagerEnableIRPrinting(
        pm, options->printBefore, printAfter, options->printModuleScope,
        options->printAfterChange,
        options->printAfterFailure,
        flags,
        options->printTreeDir
            ? mlirStringRefCreateFromCString(options->printTreeDir)
            : mlirStringRefCreate(NULL, 0));
  if (options->timing)
    mlirPassManagerEnableTiming(pm);
  if (options->statistics)
    mlirPassManagerEnableStatistics(
        pm, (MlirPassDisplayMode)(options->statistics - 1));
  if (options->dumpPipeline) {
    mlirPrintPassPipeline(opm, writeToFile, stderr);
    fputc('\n', stderr);
  }
  *out = pm;
  return true;
}

// The target of --emit-ptx and --emit-artifact: --target, else the module's
// tilus.target string, else the default.
static MlirStringRef emitTarget(const Options *options, MlirOperation module) {
  if (options->target)
    return mlirStringRefCreateFromCString(options->target);
  MlirAttribute named = mlirOperationGetDiscardableAttributeByName(
      module, mlirStringRefCreateFromCString(TILUS_TARGET_ATTR));
  if (!mlirAttributeIsNull(named) && mlirAttributeIsAString(named))
    return mlirStringAttrGetValue(named);
  return mlirStringRefCreateFromCString(tilusTargetInfoGetDefault()->name);
}

static const char kSingleOpError[] =
    "source must contain a single top-level operation";

// Handles (drops) the error of mlirOperationCreateParse for a source of
// several top-level ops, and notes that it came (`userData`, a bool).
static MlirLogicalResult dropSingleOpError(MlirDiagnostic diagnostic,
                                           void *userData) {
  TilusOptText message = {0};
  mlirDiagnosticPrint(diagnostic, tilusOptAppendText, &message);
  bool drop = mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError &&
              message.data && !message.failed &&
              !strncmp(message.data, kSingleOpError, sizeof(kSingleOpError) - 1);
  tilusStringBufferRelease(&message);
  if (drop)
    *(bool *)userData = true;
  return drop ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

// Parses `source` (text or bytecode) as mlir-opt does: a lone builtin.module
// is the module, anything else is wrapped in one located at `fileName`:0:0.
// The parser is given the file name, so the locations of the IR (printed by
// --mlir-print-debuginfo) name the file. mlirOperationCreateParse takes one
// top-level op; for several, mlirModuleCreateParse wraps them, and its
// locations name the buffer "-" (the diagnostic handler names the file).
static MlirModule parseModule(MlirContext ctx, MlirStringRef source,
                              const char *fileName) {
  bool severalOps = false;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(ctx, dropSingleOpError, &severalOps,
                                         NULL);
  MlirOperation op = mlirOperationCreateParse(
      ctx, source, mlirStringRefCreateFromCString(fileName));
  mlirContextDetachDiagnosticHandler(ctx, handler);
  if (mlirOperationIsNull(op))
    return severalOps ? mlirModuleCreateParse(ctx, source)
                      : (MlirModule){NULL};
  MlirModule module = mlirModuleFromOperation(op);
  if (!mlirModuleIsNull(module))
    return module;
  module = mlirModuleCreateEmpty(mlirLocationFileLineColGet(
      ctx, mlirStringRefCreateFromCString(fileName), 0, 0));
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), op);
  return module;
}

// Parses, verifies and transforms one chunk. `padded` holds the chunk preceded
// by newlines so that line numbers are those of the whole file. Returns true
// on success and prints the result to `out`.
static bool processChunk(MlirContext ctx, const Options *options,
                         const char *fileName, MlirPassManager pm, MlirOpPrintingFlags flags,
                         const char *padded, size_t length, FILE *out,
                         bool *printedBefore) {
  // Several top-level ops are wrapped in an implicit module, as mlir-opt
  // does (parseModule). The parser reads bytecode too.
  // Text that would crash MLIR 22's parser is an error where it starts.
  MlirStringRef source = mlirStringRefCreate(padded, length);
  if (!hasBytecodeMagic(padded, length) &&
      mlirLogicalResultIsFailure(tilusSourceCheck(ctx, source)))
    return false;
  MlirModule parsed = parseModule(ctx, source, fileName);
  if (mlirModuleIsNull(parsed))
    return false;
  MlirOperation module = mlirModuleGetOperation(parsed);
  bool ok = true;
  if (!options->skipVerifier)
    ok = mlirLogicalResultIsSuccess(tilusVerify(module));
  if (ok && !mlirPassManagerIsNull(pm))
    ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  if (ok && (options->emit == EMIT_PTX || options->emit == EMIT_ARTIFACT)) {
    ok = mlirLogicalResultIsSuccess(
        tilusEmitArtifact(module, emitTarget(options, module),
                          options->emit == EMIT_PTX, writeToFile, out));
  } else if (ok && options->emit == EMIT_BYTECODE) {
    if (options->bytecodeVersion < 0) {
      mlirOperationWriteBytecode(module, writeToFile, out);
    } else {
      MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
      mlirBytecodeWriterConfigDesiredEmitVersion(config,
                                                 options->bytecodeVersion);
      ok = mlirLogicalResultIsSuccess(mlirOperationWriteBytecodeWithConfig(
          module, config, writeToFile, out));
      mlirBytecodeWriterConfigDestroy(config);
      if (!ok)
        fprintf(stderr, "tilus-opt: cannot write bytecode version %lld\n",
                (long long)options->bytecodeVersion);
    }
  } else if (ok) {
    if (*printedBefore)
      fputs("// -----\n", out);
    mlirOperationPrintWithFlags(module, flags, writeToFile, out);
    fputc('\n', out);
    *printedBefore = true;
  }
  mlirModuleDestroy(parsed);
  return ok;
}

// The chunk separator: a line that is exactly "// -----" (spaces around it
// allowed).
static bool isSeparator(const char *line, const char *end) {
  while (line < end && (*line == ' ' || *line == '\t'))
    ++line;
  if (end - line < 8 || strncmp(line, "// -----", 8) != 0)
    return false;
  for (line += 8; line < end; ++line)
    if (*line != ' ' && *line != '\t' && *line != '\r' && *line != '-')
      return false;
  return true;
}

int main(int argc, char **argv) {
  Options options;
  int status = tilusOptParseOptions(argc, argv, &options);
  if (status)
    return status == 2 ? 0 : 1;

  MlirContext ctx = mlirContextCreate();
  if (options.disableThreading)
    mlirContextEnableMultithreading(ctx, false);
  if (options.allowUnregistered)
    mlirContextSetAllowUnregisteredDialects(ctx, true);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllPasses();
  tilusRegisterPasses();
  const char *fileName =
      strcmp(options.inputPath, "-") ? options.inputPath : "<stdin>";
  DiagnosticState diagnostics = {0};
  diagnostics.collect = options.verifyDiagnostics;
  diagnostics.fileName = fileName;
  mlirContextAttachDiagnosticHandler(ctx, tilusOptHandleDiagnostic,
                                     &diagnostics, NULL);
  bool ok = mlirLogicalResultIsSuccess(tilusDialectLoad(ctx));
  if (!ok)
    fprintf(stderr, "tilus-opt: cannot load the Tilus dialect\n");
  if (ok && options.showDialects) {
    printDialects(ctx, stdout);
    mlirContextDestroy(ctx);
    return 0;
  }

  MlirOpPrintingFlags flags = createPrintingFlags(&options);
  MlirPassManager pm = {NULL};
  if (ok && (options.numPasses || options.pipeline || options.dumpPipeline))
    ok = buildPassManager(ctx, &options, flags, &pm);

  size_t length = 0;
  char *input = ok ? readInput(options.inputPath, &length) : NULL;
  FILE *out = stdout;
  if (input && strcmp(options.outputPath, "-")) {
    out = fopen(options.outputPath, "wb");
    if (!out) {
      fprintf(stderr, "tilus-opt: cannot open output file '%s': %s\n",
              options.outputPath, strerror(errno));
      free(input);
      input = NULL;
      out = stdout;
    }
  }
  ok = ok && input;

  // Each chunk is parsed from a copy padded with the newlines before it, so
  // that diagnostics carry the line numbers of the whole file. Every chunk
  // is processed on its own, also after one failed (as mlir-opt does); the
  // exit status is a failure if any did. Bytecode is never split.
  bool split = options.splitInputFile && !hasBytecodeMagic(input, length);
  bool printedBefore = false;
  int line = 1, chunkStartLine = 1;
  const char *chunk = input;
  bool loaded = ok;
  for (const char *p = input; loaded;) {
    const char *end = memchr(p, '\n', (size_t)(input + length - p));
    bool last = end == NULL || !split;
    if (!end || !split)
      end = input + length;
    bool separator = split && isSeparator(p, end);
    if (separator || last) {
      const char *chunkEnd = separator ? p : input + length;
      size_t chunkLength = (size_t)(chunkEnd - chunk);
      size_t padding = (size_t)(chunkStartLine - 1);
      char *padded = malloc(padding + chunkLength + 1);
      if (!padded) {
        fprintf(stderr, "tilus-opt: out of memory\n");
        ok = false;
        break;
      }
      memset(padded, '\n', padding);
      memcpy(padded + padding, chunk, chunkLength);
      padded[padding + chunkLength] = '\0';
      bool chunkOk = processChunk(ctx, &options, fileName, pm, flags, padded,
                                  padding + chunkLength, out, &printedBefore);
      if (options.verifyDiagnostics)
        chunkOk = tilusOptCheckExpectations(&diagnostics, fileName, padded,
                                            padding + chunkLength);
      ok = ok && chunkOk;
      free(padded);
      chunk = end + 1;
      chunkStartLine = line + 1;
    }
    if (last)
      break;
    p = end + 1;
    ++line;
  }

  // The timing report is printed when the pass manager goes.
  if (!mlirPassManagerIsNull(pm))
    mlirPassManagerDestroy(pm);
  mlirOpPrintingFlagsDestroy(flags);
  tilusOptClearDiagnostics(&diagnostics);
  free(diagnostics.items);
  mlirContextDestroy(ctx);
  free(input);
  if (out != stdout && fclose(out) != 0) {
    fprintf(stderr, "tilus-opt: cannot write '%s'\n", options.outputPath);
    ok = false;
  }
  // As mlir-opt, a failed run leaves no output file behind (a half-written
  // or empty one would pass for a result); only a regular file is removed,
  // never a device such as /dev/null.
  struct stat st;
  if (!ok && out != stdout && stat(options.outputPath, &st) == 0 &&
      S_ISREG(st.st_mode))
    remove(options.outputPath);
  return ok ? 0 : 1;
}
