//===- Options.c - tilus-opt's command line -------------------------------===//
//
// Parsing tilus-opt's flags (long options take one dash or two, as in
// mlir-opt), --help, --version and --list-passes.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "mlir-c/IR.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Target.h"
#include "tilus-c/TargetInfo.h"
#include "tilus-c/Version.h"

#include "llvm/Config/llvm-config.h" // LLVM_VERSION_STRING (C macros only)

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int tilusOptParseOptions(int argc, char **argv, Options *options) {
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
