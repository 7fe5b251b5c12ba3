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
#include "Utils/ReadFile.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Diagnostics.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"
#include "mlir-c/BuiltinAttributes.h"
#include "tilus-c/Target.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Verifier.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PASS_FLAGS 64

typedef struct {
  const char *inputPath;  // "-" for stdin
  const char *outputPath; // "-" for stdout
  const char *pipeline;   // --pass-pipeline, or NULL
  const TilusPassInfo *passes[MAX_PASS_FLAGS];
  int numPasses;
  bool splitInputFile;
  bool verifyDiagnostics;
  bool skipVerifier;
  bool remarks;       // --tilus-remarks
  const char *target; // --target, default sm_90a
  int emit;           // EMIT_IR, EMIT_PTX or EMIT_ARTIFACT
} Options;

enum { EMIT_IR, EMIT_PTX, EMIT_ARTIFACT };

static void printHelp(FILE *out) {
  char names[64];
  tilusTargetInfoFormatNames(names, sizeof(names));
  fprintf(out,
          "OVERVIEW: Tilus-MLIR optimizer driver\n\n"
          "USAGE: tilus-opt [options] [input.mlir | -]\n\n"
          "Reads Tilus IR (from standard input when no file or '-' is given),\n"
          "runs the Tilus verifier, then the passes named on the command\n"
          "line in order, and prints the result.\n\n"
          "OPTIONS:\n"
          "  -o <file>                Write the output to <file> (default: "
          "standard output)\n"
          "  --pass-pipeline=<text>   Run an upstream textual pipeline, e.g.\n"
          "                           'builtin.module(canonicalize,cse)'\n"
          "                           (cannot be combined with pass flags)\n"
          "  --split-input-file       Split the input at '// -----' lines and "
          "process each\n"
          "                           chunk on its own\n"
          "  --verify-diagnostics     Check the diagnostics against "
          "'expected-error {{...}}'\n"
          "                           comments (also -note, -warning, -remark;\n"
          "                           @+N, @-N, @N, @above, @below)\n"
          "  --no-tilus-verify        Do not run the Tilus verifier after "
          "parsing\n"
          "  --emit-ptx               After the passes, write the PTX of the "
          "lowered module\n"
          "  --emit-artifact          After the passes, write the kernel "
          "artifact (manifest\n"
          "                           and PTX) the runtime loads; see "
          "docs/artifact.md\n"
          "  --target=<sm>            PTX target: %s; default %s\n"
          "  --tilus-remarks          Report slow paths the lowering takes (a Dot\n"
          "                           on the SIMT fallback, global accesses under\n"
          "                           16 bytes per thread) as 'remark:' lines\n"
          "  --irdl                   Print the dialect's IRDL source and exit\n"
          "  -h, --help               Print this help and exit\n\n"
          "PASSES:\n",
          names, tilusTargetInfoGetDefault()->name);
  intptr_t count;
  const TilusPassInfo *passes = tilusGetPasses(&count);
  for (intptr_t k = 0; k < count; ++k)
    fprintf(out, "  --%-22s %s\n", passes[k].argument, passes[k].description);
}

// Returns 0 to go on, 1 for a usage error, 2 when the program is done
// (--help, --irdl).
static int parseOptions(int argc, char **argv, Options *options) {
  memset(options, 0, sizeof(*options));
  options->outputPath = "-";
  options->target = tilusTargetInfoGetDefault()->name;
  for (int k = 1; k < argc; ++k) {
    const char *arg = argv[k];
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help") || !strcmp(arg, "-help")) {
      printHelp(stdout);
      return 2;
    }
    if (!strcmp(arg, "--irdl")) {
      MlirStringRef source = tilusDialectGetSource();
      fwrite(source.data, 1, source.length, stdout);
      return 2;
    }
    if (!strcmp(arg, "-o")) {
      if (k + 1 >= argc) {
        fprintf(stderr, "tilus-opt: option '-o' needs a file name\n");
        return 1;
      }
      options->outputPath = argv[++k];
      continue;
    }
    if (!strncmp(arg, "--pass-pipeline=", 16)) {
      options->pipeline = arg + 16;
      continue;
    }
    if (!strcmp(arg, "--split-input-file")) {
      options->splitInputFile = true;
      continue;
    }
    if (!strcmp(arg, "--verify-diagnostics")) {
      options->verifyDiagnostics = true;
      continue;
    }
    if (!strcmp(arg, "--emit-ptx") || !strcmp(arg, "--emit-artifact")) {
      options->emit = arg[7] == 'p' ? EMIT_PTX : EMIT_ARTIFACT;
      continue;
    }
    if (!strncmp(arg, "--target=", 9)) {
      options->target = arg + 9;
      if (!tilusTargetIsSupported(
              mlirStringRefCreateFromCString(options->target))) {
        char names[64];
        tilusTargetInfoFormatNames(names, sizeof(names));
        fprintf(stderr, "tilus-opt: unsupported target '%s' (use %s)\n",
                options->target, names);
        return 1;
      }
      continue;
    }
    if (!strcmp(arg, "--tilus-remarks")) {
      options->remarks = true;
      continue;
    }
    if (!strcmp(arg, "--no-tilus-verify")) {
      options->skipVerifier = true;
      continue;
    }
    if (!strncmp(arg, "--", 2) && arg[2]) {
      const TilusPassInfo *pass =
          tilusLookupPass(mlirStringRefCreateFromCString(arg + 2));
      if (!pass) {
        fprintf(stderr,
                "tilus-opt: unknown option '%s' (run 'tilus-opt --help' for "
                "the options and passes)\n",
                arg);
        return 1;
      }
      if (options->numPasses == MAX_PASS_FLAGS) {
        fprintf(stderr, "tilus-opt: too many pass flags (at most %d)\n",
                MAX_PASS_FLAGS);
        return 1;
      }
      options->passes[options->numPasses++] = pass;
      continue;
    }
    if (arg[0] == '-' && arg[1]) {
      fprintf(stderr,
              "tilus-opt: unknown option '%s' (run 'tilus-opt --help')\n", arg);
      return 1;
    }
    if (options->inputPath) {
      fprintf(stderr, "tilus-opt: more than one input file ('%s' and '%s')\n",
              options->inputPath, arg);
      return 1;
    }
    options->inputPath = arg;
  }
  if (!options->inputPath)
    options->inputPath = "-";
  if (options->pipeline && options->numPasses) {
    fprintf(stderr, "tilus-opt: --pass-pipeline cannot be combined with pass "
                    "flags; put every pass in one of the two\n");
    return 1;
  }
  return 0;
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
  fprintf(stderr, "tilus-opt: %s: %s\n", what,
          error->data && !error->failed ? error->data : "unknown error");
  tilusStringBufferRelease(error);
}

// Parses, verifies and transforms one chunk. `padded` holds the chunk preceded
// by newlines so that line numbers are those of the whole file. Returns true
// on success and prints the result to `out`.
static bool processChunk(MlirContext ctx, const Options *options,
                         const char *padded,
                         size_t length, FILE *out, bool *printedBefore) {
  // Parsing as a module wraps several top-level ops in an implicit module, as
  // mlir-opt does. Its locations name the buffer "-"; the diagnostic handler
  // puts the file name back.
  // Text that would crash MLIR 22's parser is an error where it starts.
  if (mlirLogicalResultIsFailure(
          tilusSourceCheck(ctx, mlirStringRefCreate(padded, length))))
    return false;
  MlirModule parsed =
      mlirModuleCreateParse(ctx, mlirStringRefCreate(padded, length));
  if (mlirModuleIsNull(parsed))
    return false;
  MlirOperation module = mlirModuleGetOperation(parsed);
  bool ok = true;
  if (!options->skipVerifier)
    ok = mlirLogicalResultIsSuccess(tilusVerify(module));
  if (ok && (options->numPasses || options->pipeline)) {
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
    // The lowering picks target-specific instructions (stmatrix on sm_90)
    // from --target (default sm_90a).
    const TilusTargetInfo *target =
        tilusTargetInfoLookup(options->target, strlen(options->target));
    TilusOptText error = {0};
    TilusConversionOptions conversion = {
        target, options->remarks ? printRemark : NULL,
        (void *)(strcmp(options->inputPath, "-") ? options->inputPath
                                                 : "<stdin>")};
    for (int k = 0; k < options->numPasses && ok; ++k) {
      ok = mlirLogicalResultIsSuccess(tilusPassAddWithOptions(
          options->passes[k], opm, &conversion, tilusOptAppendText, &error));
      if (!ok)
        printError(options->passes[k]->argument, &error);
    }
    if (ok && options->pipeline) {
      MlirStringRef pipeline =
          mlirStringRefCreateFromCString(options->pipeline);
      ok = mlirLogicalResultIsSuccess(
          mlirParsePassPipeline(opm, pipeline, tilusOptAppendText, &error));
      if (!ok)
        printError("invalid --pass-pipeline", &error);
    }
    if (ok)
      ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
    mlirPassManagerDestroy(pm);
  }
  if (ok && options->emit != EMIT_IR) {
    ok = mlirLogicalResultIsSuccess(tilusEmitArtifact(
        module, mlirStringRefCreateFromCString(options->target),
        options->emit == EMIT_PTX, writeToFile, out));
  } else if (ok) {
    if (*printedBefore)
      fputs("// -----\n", out);
    mlirOperationPrint(module, writeToFile, out);
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
  int status = parseOptions(argc, argv, &options);
  if (status)
    return status == 2 ? 0 : 1;

  size_t length;
  char *input = readInput(options.inputPath, &length);
  if (!input)
    return 1;
  FILE *out = stdout;
  if (strcmp(options.outputPath, "-")) {
    out = fopen(options.outputPath, "w");
    if (!out) {
      fprintf(stderr, "tilus-opt: cannot open output file '%s': %s\n",
              options.outputPath, strerror(errno));
      free(input);
      return 1;
    }
  }
  const char *fileName =
      strcmp(options.inputPath, "-") ? options.inputPath : "<stdin>";

  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllPasses();
  tilusRegisterPasses();
  DiagnosticState diagnostics = {0};
  diagnostics.collect = options.verifyDiagnostics;
  diagnostics.fileName = fileName;
  mlirContextAttachDiagnosticHandler(ctx, tilusOptHandleDiagnostic,
                                     &diagnostics, NULL);
  bool ok = mlirLogicalResultIsSuccess(tilusDialectLoad(ctx));
  if (!ok)
    fprintf(stderr, "tilus-opt: cannot load the Tilus dialect\n");

  // Each chunk is parsed from a copy padded with the newlines before it, so
  // that diagnostics carry the line numbers of the whole file. Every chunk
  // is processed on its own, also after one failed (as mlir-opt does); the
  // exit status is a failure if any did.
  bool printedBefore = false;
  int line = 1, chunkStartLine = 1;
  const char *chunk = input;
  bool loaded = ok;
  for (const char *p = input; loaded;) {
    const char *end = memchr(p, '\n', (size_t)(input + length - p));
    bool last = end == NULL;
    if (!end)
      end = input + length;
    bool split = options.splitInputFile && isSeparator(p, end);
    if (split || last) {
      const char *chunkEnd = split ? p : input + length;
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
      bool chunkOk = processChunk(ctx, &options, padded,
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

  tilusOptClearDiagnostics(&diagnostics);
  free(diagnostics.items);
  mlirContextDestroy(ctx);
  free(input);
  if (out != stdout && fclose(out) != 0) {
    fprintf(stderr, "tilus-opt: cannot write '%s'\n", options.outputPath);
    return 1;
  }
  return ok ? 0 : 1;
}
