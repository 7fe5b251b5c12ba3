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
#include "tilus-c/Version.h"

#include "llvm/Config/llvm-config.h" // LLVM_VERSION_STRING (C macros only)

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void printHelp(FILE *out) {
  char names[64];
  tilusTargetInfoFormatNames(names, sizeof(names));
  fprintf(out,
          "OVERVIEW: Tilus-MLIR optimizer driver\n\n"
          "USAGE: tilus-opt [options] [input.mlir | input.mlirbc | -]\n\n"
          "Reads Tilus IR, as text or MLIR bytecode (from standard input when\n"
          "no file or '-' is given), runs the Tilus verifier, then the passes\n"
          "named on the command line in order, and prints the result.\n"
          "Long options take one dash or two (-canonicalize, --canonicalize).\n\n"
          "OPTIONS:\n"
          "  -o <file>                Write the output to <file> (default: "
          "standard output)\n"
          "  --pass-pipeline=<text>   Run a textual pipeline, e.g.\n"
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
          "  --allow-unregistered-dialect\n"
          "                           Accept ops of dialects no one registered\n"
          "  --mlir-disable-threading Run passes on one thread\n"
          "  --verify-each[=<bool>]   Verify the IR after every pass (default: "
          "on;\n"
          "                           --verify-each=0 or =false turns it off)\n"
          "  --target=<sm>            PTX target: %s.\n"
          "                           Default: the module's tilus.target "
          "string\n"
          "                           attribute, else %s. The passes use it\n"
          "                           (stmatrix needs sm_90), and so do "
          "--emit-ptx\n"
          "                           and --emit-artifact\n"
          "  --tilus-remarks          Report slow paths the lowering takes (a "
          "Dot on\n"
          "                           the SIMT fallback, global accesses under "
          "16 bytes\n"
          "                           per thread) as 'remark:' lines on stderr\n\n"
          "PASS INSTRUMENTATION:\n"
          "  --mlir-print-ir-before-all   Print the IR before every pass "
          "(stderr)\n"
          "  --mlir-print-ir-after-all    Print the IR after every pass "
          "(stderr)\n"
          "  --mlir-print-ir-after-change Print the IR after a pass only when "
          "it changed\n"
          "                               it (implies "
          "--mlir-print-ir-after-all)\n"
          "  --mlir-print-ir-after-failure\n"
          "                               Print the IR after a pass that "
          "failed\n"
          "  --mlir-print-ir-tree-dir=<dir>\n"
          "                               Write the IR dumps to files in a "
          "tree under <dir>\n"
          "                               instead of stderr\n"
          "  --mlir-print-ir-module-scope Print the whole module, not only the "
          "op the pass\n"
          "                               ran on (needs "
          "--mlir-disable-threading)\n"
          "  --mlir-timing                Print the time of every pass "
          "(stderr)\n"
          "  --mlir-pass-statistics       Print the statistics of the passes "
          "(stderr)\n"
          "  --mlir-pass-statistics-display=list|pipeline\n"
          "                               Merge them by pass, or show them in "
          "the pipeline\n"
          "                               (default)\n"
          "  --dump-pass-pipeline         Print the pass pipeline before "
          "running it (stderr)\n\n"
          "OUTPUT:\n"
          "  --mlir-print-op-generic      Print every op in the generic form\n"
          "  --mlir-print-local-scope     Print attributes, types and "
          "locations in place,\n"
          "                               without #aliases\n"
          "  --mlir-print-debuginfo       Print the locations of the ops\n"
          "  --mlir-pretty-debuginfo      Print them in a readable form that "
          "does not parse\n"
          "  --mlir-print-skip-regions    Print ops without their regions\n"
          "  --mlir-use-nameloc-as-prefix Name SSA values after their "
          "NameLoc locations\n"
          "  --mlir-elide-elementsattrs-if-larger=<n>\n"
          "                               Elide elements attributes of more "
          "than <n> elements\n"
          "  --emit-bytecode              Write MLIR bytecode instead of text\n"
          "  --emit-bytecode-version=<n>  The bytecode version to write "
          "(default: the newest)\n"
          "  --emit-ptx                   After the passes, write the PTX of "
          "the lowered module\n"
          "  --emit-artifact              After the passes, write the kernel "
          "artifact (manifest\n"
          "                               and PTX) the runtime loads; see "
          "docs/artifact.md\n\n"
          "INFORMATION (each prints and exits):\n"
          "  --list-passes            The Tilus passes and pipeline\n"
          "  --show-dialects          The dialects of tilus-opt's context\n"
          "  --irdl                   The dialect's IRDL source\n"
          "  --version                The versions of tilus-opt and of "
          "LLVM/MLIR\n"
          "  -h, --help               This help\n\n"
          "PASSES:\n",
          names, tilusTargetInfoGetDefault()->name);
  intptr_t count;
  const TilusPassInfo *passes = tilusGetPasses(&count);
  for (intptr_t k = 0; k < count; ++k)
    fprintf(out, "  --%-22s %s\n", passes[k].argument, passes[k].description);
  fprintf(out,
          "  --<pass>[=<options>]     Any pass MLIR registers, e.g. "
          "--canonicalize, --cse,\n"
          "                           --canonicalize=max-iterations=2 (run "
          "as\n"
          "                           canonicalize{max-iterations=2}); "
          "`mlir-opt --help`\n"
          "                           lists them\n\n"
          "The Tilus passes named in a --pass-pipeline (or in mlir-opt with "
          "the plugin)\n"
          "take no options: tilus-to-gpu and lower-to-nvvm take the target "
          "from the\n"
          "module's tilus.target attribute, e.g.\n"
          "  module attributes {tilus.target = \"sm_80\"} { ... }\n"
          "and lower for %s when it has none.\n",
          tilusTargetInfoGetDefault()->name);
}

static void printPasses(FILE *out) {
  intptr_t count;
  const TilusPassInfo *passes = tilusGetPasses(&count);
  fputs("Tilus passes and pipelines (as flags, --<name>, or by name in "
        "--pass-pipeline):\n",
        out);
  for (intptr_t k = 0; k < count; ++k)
    fprintf(out, "  %-20s %s\n", passes[k].argument, passes[k].description);
  fputs("\nEvery pass and pipeline MLIR registers (mlirRegisterAllPasses) is "
        "accepted too,\nas --<name>[=<options>] or by name in "
        "--pass-pipeline. The MLIR C API cannot\nlist the pass registry, so "
        "they are not listed here: `mlir-opt --help` lists\nthem.\n",
        out);
}

static void printVersion(FILE *out) {
  fprintf(out,
          "tilus-opt (Tilus-MLIR) %s, %s\n"
          "LLVM/MLIR version %s\n",
          TILUS_VERSION_STRING, TILUS_OPT_VERSION, LLVM_VERSION_STRING);
}

// The text after `name=` when `flag` is `name=...`, else NULL.
static const char *valueOf(const char *flag, const char *name) {
  size_t n = strlen(name);
  return !strncmp(flag, name, n) && flag[n] == '=' ? flag + n + 1 : NULL;
}

// A decimal number of at least `min`; false for anything else.
static bool parseNumber(const char *text, int64_t min, int64_t *value) {
  char *end;
  errno = 0;
  long long number = strtoll(text, &end, 10);
  if (!*text || *end || errno || number < min)
    return false;
  *value = number;
  return true;
}

static bool parseBool(const char *text, bool *value) {
  if (!strcmp(text, "1") || !strcmp(text, "true")) {
    *value = true;
    return true;
  }
  if (!strcmp(text, "0") || !strcmp(text, "false")) {
    *value = false;
    return true;
  }
  return false;
}

// The flags that only switch something on.
typedef struct {
  const char *name;
  size_t offset; // of the bool in Options
} Switch;

#define SWITCH(flag, field) {flag, offsetof(Options, field)}
static const Switch kSwitches[] = {
    SWITCH("split-input-file", splitInputFile),
    SWITCH("verify-diagnostics", verifyDiagnostics),
    SWITCH("no-tilus-verify", skipVerifier),
    SWITCH("allow-unregistered-dialect", allowUnregistered),
    SWITCH("mlir-disable-threading", disableThreading),
    SWITCH("mlir-print-ir-before-all", printBefore),
    SWITCH("mlir-print-ir-after-all", printAfter),
    SWITCH("mlir-print-ir-after-change", printAfterChange),
    SWITCH("mlir-print-ir-after-failure", printAfterFailure),
    SWITCH("mlir-print-ir-module-scope", printModuleScope),
    SWITCH("mlir-timing", timing),
    SWITCH("dump-pass-pipeline", dumpPipeline),
    SWITCH("mlir-print-op-generic", printGeneric),
    SWITCH("mlir-print-local-scope", printLocalScope),
    SWITCH("mlir-print-debuginfo", printDebugInfo),
    SWITCH("mlir-pretty-debuginfo", printPrettyDebugInfo),
    SWITCH("mlir-print-skip-regions", printSkipRegions),
    SWITCH("mlir-use-nameloc-as-prefix", printNameLocAsPrefix),
    SWITCH("show-dialects", showDialects),
};
#undef SWITCH

static int badValue(const char *arg, const char *expected) {
  fprintf(stderr, "tilus-opt: invalid value in '%s' (expected %s)\n", arg,
          expected);
  return 1;
}

// Returns 0 to go on, 1 for a usage error, 2 when the program is done
// (--help, --irdl, --list-passes, --version).
static int parseOptions(int argc, char **argv, Options *options) {
  memset(options, 0, sizeof(*options));
  options->outputPath = "-";
  options->verifyEach = true; // as mlir-opt
  options->bytecodeVersion = -1;
  options->elideElements = -1;
  for (int k = 1; k < argc; ++k) {
    const char *arg = argv[k];
    if (!strcmp(arg, "-o")) {
      if (k + 1 >= argc) {
        fprintf(stderr, "tilus-opt: option '-o' needs a file name\n");
        return 1;
      }
      options->outputPath = argv[++k];
      continue;
    }
    if (!strcmp(arg, "-h")) {
      printHelp(stdout);
      return 2;
    }
    // Long options take one dash or two, as in mlir-opt.
    const char *flag = NULL;
    if (arg[0] == '-' && arg[1] == '-' && arg[2])
      flag = arg + 2;
    else if (arg[0] == '-' && arg[1] && arg[1] != '-' && arg[2])
      flag = arg + 1;
    else if (arg[0] == '-' && arg[1]) {
      fprintf(stderr,
              "tilus-opt: unknown option '%s' (run 'tilus-opt --help')\n", arg);
      return 1;
    }
    if (!flag) {
      if (options->inputPath) {
        fprintf(stderr,
                "tilus-opt: more than one input file ('%s' and '%s')\n",
                options->inputPath, arg);
        return 1;
      }
      options->inputPath = arg;
      continue;
    }
    if (!strcmp(flag, "tilus-remarks")) {
      options->remarks = true;
      continue;
    }
    if (!strcmp(flag, "help")) {
      printHelp(stdout);
      return 2;
    }
    if (!strcmp(flag, "irdl")) {
      MlirStringRef source = tilusDialectGetSource();
      fwrite(source.data, 1, source.length, stdout);
      return 2;
    }
    if (!strcmp(flag, "list-passes")) {
      printPasses(stdout);
      return 2;
    }
    if (!strcmp(flag, "version")) {
      printVersion(stdout);
      return 2;
    }
    bool matched = false;
    for (size_t s = 0; s < sizeof(kSwitches) / sizeof(kSwitches[0]); ++s)
      if (!strcmp(flag, kSwitches[s].name)) {
        *(bool *)((char *)options + kSwitches[s].offset) = true;
        matched = true;
      }
    if (matched)
      continue;
    const char *value;
    if ((value = valueOf(flag, "mlir-print-ir-tree-dir"))) {
      if (!*value)
        return badValue(arg, "a directory");
      options->printTreeDir = value;
      continue;
    }
    if ((value = valueOf(flag, "pass-pipeline"))) {
      options->pipeline = value;
      continue;
    }
    if (!strcmp(flag, "emit-ptx") || !strcmp(flag, "emit-artifact") ||
        !strcmp(flag, "emit-bytecode")) {
      options->emit = !strcmp(flag, "emit-ptx")        ? EMIT_PTX
                      : !strcmp(flag, "emit-artifact") ? EMIT_ARTIFACT
                                                       : EMIT_BYTECODE;
      continue;
    }
    if ((value = valueOf(flag, "emit-bytecode-version"))) {
      if (!parseNumber(value, 0, &options->bytecodeVersion))
        return badValue(arg, "a version number");
      continue;
    }
    if ((value = valueOf(flag, "mlir-elide-elementsattrs-if-larger"))) {
      if (!parseNumber(value, 0, &options->elideElements))
        return badValue(arg, "a number of elements");
      continue;
    }
    if (!strcmp(flag, "verify-each")) {
      options->verifyEach = true;
      continue;
    }
    if ((value = valueOf(flag, "verify-each"))) {
      if (!parseBool(value, &options->verifyEach))
        return badValue(arg, "1, 0, true or false");
      continue;
    }
    if (!strcmp(flag, "mlir-pass-statistics")) {
      if (!options->statistics)
        options->statistics = 1 + MLIR_PASS_DISPLAY_MODE_PIPELINE;
      continue;
    }
    if ((value = valueOf(flag, "mlir-pass-statistics-display"))) {
      if (!strcmp(value, "list"))
        options->statistics = 1 + MLIR_PASS_DISPLAY_MODE_LIST;
      else if (!strcmp(value, "pipeline"))
        options->statistics = 1 + MLIR_PASS_DISPLAY_MODE_PIPELINE;
      else
        return badValue(arg, "list or pipeline");
      continue;
    }
    if ((value = valueOf(flag, "target"))) {
      options->target = value;
      if (!tilusTargetIsSupported(mlirStringRefCreateFromCString(value))) {
        char names[64];
        tilusTargetInfoFormatNames(names, sizeof(names));
        fprintf(stderr, "tilus-opt: unsupported target '%s' (use %s)\n",
                value, names);
        return 1;
      }
      continue;
    }
    // Anything else is a pass: a Tilus one, or one of MLIR's registry (which
    // is checked when the pipeline is built).
    if (options->numPasses == MAX_PASS_FLAGS) {
      fprintf(stderr, "tilus-opt: too many pass flags (at most %d)\n",
              MAX_PASS_FLAGS);
      return 1;
    }
    PassFlag *pass = &options->passes[options->numPasses++];
    const char *equals = strchr(flag, '=');
    pass->spelling = arg;
    pass->name = flag;
    pass->nameLength = equals ? (size_t)(equals - flag) : strlen(flag);
    pass->passOptions = equals ? equals + 1 : NULL;
    pass->tilus =
        tilusLookupPass(mlirStringRefCreate(pass->name, pass->nameLength));
    if (pass->tilus && pass->passOptions) {
      fprintf(stderr,
              "tilus-opt: the Tilus pass '%s' takes no options (in '%s')\n",
              pass->tilus->argument, arg);
      return 1;
    }
  }
  if (!options->inputPath)
    options->inputPath = "-";
  if (options->pipeline && options->numPasses) {
    fprintf(stderr, "tilus-opt: --pass-pipeline cannot be combined with pass "
                    "flags; put every pass in one of the two\n");
    return 1;
  }
  if (options->printModuleScope && !options->disableThreading) {
    fprintf(stderr, "tilus-opt: --mlir-print-ir-module-scope needs "
                    "--mlir-disable-threading (MLIR prints the whole module "
                    "only from one thread)\n");
    return 1;
  }
  if (options->emit == EMIT_BYTECODE && options->splitInputFile) {
    fprintf(stderr, "tilus-opt: --emit-bytecode writes one module; it cannot "
                    "be combined with --split-input-file\n");
    return 1;
  }
  return 0;
}

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
  int status = parseOptions(argc, argv, &options);
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
    return 1;
  }
  return ok ? 0 : 1;
}
