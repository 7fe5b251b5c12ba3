//===- tilus-run.c - Launch a kernel of a Tilus artifact ------------------===//
//
// A command-line front end to the runtime: load an artifact, turn each
// command-line argument into a kernel argument (scalars, or device buffers
// filled from and written back to files), launch, and optionally time it.
// Every failure is a one-line message and a non-zero exit status.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Runtime.h"
#include "Utils/ReadFile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: tilus-run [options] ARTIFACT KERNEL [ARG...]\n"
    "       tilus-run --list ARTIFACT\n"
    "\n"
    "Launches KERNEL of a Tilus artifact (.tilus) on a CUDA device, with one\n"
    "ARG per kernel parameter, in order:\n"
    "\n"
    "  TYPE:VALUE          a scalar; TYPE must be the parameter's type:\n"
    "                      i32:5  si8:-3  index:7  i64:0x10  f32:1.5  "
    "f16:0.5  bf16:2\n"
    "  in:[DTYPE:]FILE     a device buffer holding FILE's bytes (DTYPE, if\n"
    "                      given, must be the pointer's element type)\n"
    "  inout:[DTYPE:]FILE  like in:, and FILE is overwritten with the buffer\n"
    "                      after the kernel ran\n"
    "  out:BYTES:FILE      a zeroed buffer of BYTES bytes, written to FILE\n"
    "  zero:BYTES          a zeroed scratch buffer, not written back\n"
    "\n"
    "Options:\n"
    "  --repeat N   launch N times (default 1); files get the final state\n"
    "  --time       print the mean time per launch, measured with CUDA\n"
    "               events after one untimed warm-up launch\n"
    "  --device N   CUDA device ordinal (default 0)\n"
    "  --list       print the artifact's kernels and exit (no GPU needed)\n"
    "  -h, --help   print this help\n"
    "\n"
    "Exit status: 0 on success, 1 on an error, 2 on a usage error.\n";

// What one command-line argument turned into.
typedef enum { ArgScalar, ArgIn, ArgInOut, ArgOut, ArgZero } ArgMode;

typedef struct {
  ArgMode mode;
  TilusArg value;   // the kernel argument (pointer filled once allocated)
  const char *file; // in/inout/out
  size_t bytes;     // buffer size
  void *host;       // the buffer's host copy (in/inout/out)
} ArgSpec;

static void printError(const char *what) {
  fprintf(stderr, "tilus-run: %s\n", what);
}

// Parses a non-negative decimal or 0x-hexadecimal count.
static bool parseCount(const char *text, unsigned long long *value) {
  if (!text || !*text || *text == '-' || *text == '+')
    return false;
  errno = 0;
  char *end = NULL;
  int base = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ? 16 : 10;
  *value = strtoull(text, &end, base);
  return errno == 0 && end && *end == '\0' && end != text;
}

static bool parseInteger(const char *text, long long *value) {
  errno = 0;
  char *end = NULL;
  const char *digits = text[0] == '-' || text[0] == '+' ? text + 1 : text;
  int base =
      (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) ? 16 : 10;
  *value = strtoll(text, &end, base);
  return *text && errno == 0 && end && *end == '\0' && end != text;
}

static bool parseReal(const char *text, double *value) {
  errno = 0;
  char *end = NULL;
  *value = strtod(text, &end);
  return *text && errno != ERANGE && end && *end == '\0' && end != text;
}

// Reads a whole file into a new buffer.
static void *readFile(const char *path, size_t *size, char *why,
                      size_t whySize) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, whySize, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  char *data = tilusReadStream(f, size);
  fclose(f);
  if (!data)
    snprintf(why, whySize, "cannot read '%s'", path);
  return data;
}

static bool writeFile(const char *path, const void *data, size_t size,
                      char *why, size_t whySize) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(why, whySize, "cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  bool ok = fwrite(data, 1, size, f) == size;
  ok = (fclose(f) == 0) && ok;
  if (!ok)
    snprintf(why, whySize, "cannot write '%s'", path);
  return ok;
}

// Splits "[DTYPE:]FILE": a leading word of letters, digits and '_' followed
// by ':' is a dtype.
static const char *splitDtype(const char *text, char *dtype, size_t size) {
  dtype[0] = '\0';
  const char *colon = strchr(text, ':');
  if (!colon || (size_t)(colon - text) >= size || colon == text)
    return text;
  for (const char *p = text; p < colon; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return text;
  memcpy(dtype, text, (size_t)(colon - text));
  dtype[colon - text] = '\0';
  return colon + 1;
}

// Turns argument `i` (text) for parameter `param` into `spec`; on failure
// writes the reason into `why`.
static bool parseArg(const char *text, int i, TilusParamInfo param,
                     ArgSpec *spec, char *why, size_t whySize) {
  memset(spec, 0, sizeof(*spec));
  const char *colon = strchr(text, ':');
  if (!colon) {
    snprintf(why, whySize,
             "argument %d ('%s'): expected TYPE:VALUE, in:FILE, inout:FILE, "
             "out:BYTES:FILE or zero:BYTES",
             i, text);
    return false;
  }
  size_t headLength = (size_t)(colon - text);
  const char *rest = colon + 1;
  bool isPointer = param.kind == TilusParamPointer;

  bool isIn = headLength == 2 && !strncmp(text, "in", 2);
  bool isInOut = headLength == 5 && !strncmp(text, "inout", 5);
  bool isOut = headLength == 3 && !strncmp(text, "out", 3);
  bool isZero = headLength == 4 && !strncmp(text, "zero", 4);
  if ((isIn || isInOut || isOut || isZero) && !isPointer) {
    snprintf(why, whySize,
             "argument %d ('%s') is a buffer, but parameter %d has type '%s'",
             i, text, i, param.typeName);
    return false;
  }
  if (isIn || isInOut) {
    char dtype[32];
    spec->mode = isIn ? ArgIn : ArgInOut;
    spec->file = splitDtype(rest, dtype, sizeof(dtype));
    if (dtype[0] && strcmp(dtype, param.elementType)) {
      snprintf(why, whySize,
               "argument %d ('%s'): element type '%s', but parameter %d is "
               "'ptr %s'",
               i, text, dtype, i, param.elementType);
      return false;
    }
    if (!*spec->file) {
      snprintf(why, whySize, "argument %d ('%s'): no file name", i, text);
      return false;
    }
    return true;
  }
  if (isOut || isZero) {
    unsigned long long bytes = 0;
    char count[32] = "";
    const char *file = NULL;
    if (isOut) {
      const char *second = strchr(rest, ':');
      size_t n = second ? (size_t)(second - rest) : 0;
      if (second && n < sizeof(count)) {
        memcpy(count, rest, n);
        count[n] = '\0';
        file = second + 1;
      }
    } else if (strlen(rest) < sizeof(count)) {
      strcpy(count, rest);
    }
    if (!parseCount(count, &bytes) || bytes == 0 || bytes > SIZE_MAX ||
        (isOut && (!file || !*file))) {
      snprintf(why, whySize, "argument %d ('%s'): expected %s", i, text,
               isOut ? "out:BYTES:FILE with BYTES > 0"
                     : "zero:BYTES with "
                       "BYTES > 0");
      return false;
    }
    spec->mode = isOut ? ArgOut : ArgZero;
    spec->bytes = (size_t)bytes;
    spec->file = file;
    return true;
  }

  // A scalar: the prefix must spell the parameter's type.
  spec->mode = ArgScalar;
  if (isPointer) {
    snprintf(why, whySize,
             "argument %d ('%s') is a scalar, but parameter %d is 'ptr %s' "
             "(use in:, inout:, out: or zero:)",
             i, text, i, param.elementType);
    return false;
  }
  if (strlen(param.typeName) != headLength ||
      strncmp(text, param.typeName, headLength)) {
    snprintf(why, whySize,
             "argument %d ('%s'): parameter %d has type '%s', write '%s:...'",
             i, text, i, param.typeName, param.typeName);
    return false;
  }
  if (param.kind == TilusParamInteger) {
    long long v = 0;
    if (!parseInteger(rest, &v)) {
      snprintf(why, whySize, "argument %d ('%s'): '%s' is not an integer", i,
               text, rest);
      return false;
    }
    spec->value = tilusArgInteger(v);
  } else {
    double v = 0;
    if (!parseReal(rest, &v)) {
      snprintf(why, whySize, "argument %d ('%s'): '%s' is not a number", i,
               text, rest);
      return false;
    }
    spec->value = tilusArgFloat(v);
  }
  return true;
}

static void listKernels(const TilusArtifact *artifact) {
  printf("target %s, %s image\n", tilusArtifactGetTarget(artifact),
         tilusArtifactGetImageKind(artifact) == TilusImagePTX ? "PTX"
                                                              : "cubin");
  for (int k = 0; k < tilusArtifactGetNumKernels(artifact); k++) {
    uint32_t block[3];
    tilusKernelGetBlock(artifact, k, block);
    printf("kernel %s(", tilusKernelGetName(artifact, k));
    for (int p = 0; p < tilusKernelGetNumParams(artifact, k); p++) {
      TilusParamInfo info = tilusKernelGetParam(artifact, k, p);
      printf("%s%s%s%s", p ? ", " : "", info.typeName,
             info.kind == TilusParamPointer ? " " : "", info.elementType);
    }
    printf(")\n  block %u %u %u\n  grid ", block[0], block[1], block[2]);
    for (int d = 0; d < tilusKernelGetNumGridDims(artifact, k); d++)
      printf("%s%s", d ? " ; " : "", tilusKernelGetGridExpr(artifact, k, d));
    printf("\n  shared %u\n  workspace %llu\n",
           tilusKernelGetSharedBytes(artifact, k),
           (unsigned long long)tilusKernelGetWorkspaceBytes(artifact, k));
  }
}

typedef struct {
  const char *artifactPath;
  const char *kernel;
  int numArgs;
  char **args;
  unsigned long long repeat;
  bool time;
  bool list;
  int device;
} Options;

// Returns 0 when parsed, 2 on a usage error, -1 after --help. Options may
// come anywhere before KERNEL; everything after KERNEL is a kernel argument
// (so a negative scalar is never mistaken for an option).
static int parseOptions(int argc, char **argv, Options *o) {
  memset(o, 0, sizeof(*o));
  o->repeat = 1;
  int positional = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (positional < 2 && a[0] == '-' && a[1] != '\0') {
      if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        fputs(usage, stdout);
        return -1;
      }
      if (!strcmp(a, "--time")) {
        o->time = true;
      } else if (!strcmp(a, "--list")) {
        o->list = true;
      } else if (!strcmp(a, "--repeat") || !strcmp(a, "--device")) {
        unsigned long long v = 0;
        if (i + 1 >= argc || !parseCount(argv[i + 1], &v) ||
            (!strcmp(a, "--repeat") && (v == 0 || v > 1000000000)) ||
            (!strcmp(a, "--device") && v > 1024)) {
          fprintf(stderr, "tilus-run: %s needs a %s number\n", a,
                  !strcmp(a, "--repeat") ? "positive" : "device");
          return 2;
        }
        if (!strcmp(a, "--repeat"))
          o->repeat = v;
        else
          o->device = (int)v;
        i++;
      } else {
        fprintf(stderr, "tilus-run: unknown option '%s' (see --help)\n", a);
        return 2;
      }
      continue;
    }
    if (positional == 0) {
      o->artifactPath = a;
      positional++;
    } else if (positional == 1) {
      o->kernel = a;
      o->args = argv + i + 1;
      o->numArgs = argc - i - 1;
      positional++;
      break;
    }
  }
  if (!o->artifactPath || (!o->list && !o->kernel)) {
    fputs(usage, stderr);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  Options o;
  int parsed = parseOptions(argc, argv, &o);
  if (parsed != 0)
    return parsed < 0 ? 0 : parsed;

  TilusRuntimeError err;
  char why[600];
  int status = 1;
  TilusRuntime *rt = NULL;
  ArgSpec *specs = NULL;
  TilusArg *args = NULL;
  void *start = NULL, *end = NULL;

  TilusArtifact *artifact = tilusArtifactLoadFile(o.artifactPath, &err);
  if (!artifact) {
    printError(err.message);
    return 1;
  }
  if (o.list) {
    listKernels(artifact);
    tilusArtifactDestroy(artifact);
    return 0;
  }

  int k = tilusArtifactFindKernel(artifact, o.kernel);
  int numParams = tilusKernelGetNumParams(artifact, k);
  if (k < 0) {
    // The runtime's message lists the kernels there are.
    tilusArtifactCheckLaunch(artifact, o.kernel, NULL, 0, NULL, &err);
    printError(err.message);
    goto done;
  }
  if (o.numArgs != numParams) {
    fprintf(stderr,
            "tilus-run: kernel '%s' takes %d argument%s, but %d %s given "
            "(see --list)\n",
            o.kernel, numParams, numParams == 1 ? "" : "s", o.numArgs,
            o.numArgs == 1 ? "was" : "were");
    goto done;
  }
  specs = calloc((size_t)numParams + 1, sizeof(ArgSpec));
  args = calloc((size_t)numParams + 1, sizeof(TilusArg));
  if (!specs || !args) {
    printError("out of memory");
    goto done;
  }
  for (int i = 0; i < numParams; i++) {
    if (!parseArg(o.args[i], i, tilusKernelGetParam(artifact, k, i), &specs[i],
                  why, sizeof(why))) {
      printError(why);
      goto done;
    }
  }
  // Check everything (grid included) before touching the GPU. Buffers are
  // not allocated yet, so stand in a non-null, aligned placeholder for them.
  for (int i = 0; i < numParams; i++)
    args[i] = specs[i].mode == ArgScalar ? specs[i].value
                                          : tilusArgPointer(TILUS_POINTER_ALIGNMENT);
  TilusLaunchConfig config;
  if (tilusArtifactCheckLaunch(artifact, o.kernel, args, numParams, &config,
                               &err) != TilusStatusSuccess) {
    printError(err.message);
    goto done;
  }

  // Host copies of the buffers: input files are read before the GPU is
  // touched, so a missing file is reported the same everywhere.
  for (int i = 0; i < numParams; i++) {
    ArgSpec *s = &specs[i];
    if (s->mode == ArgIn || s->mode == ArgInOut) {
      s->host = readFile(s->file, &s->bytes, why, sizeof(why));
      if (!s->host) {
        printError(why);
        goto done;
      }
      if (s->bytes == 0) {
        fprintf(stderr, "tilus-run: argument %d: '%s' is empty\n", i, s->file);
        goto done;
      }
    } else if (s->mode == ArgOut) {
      s->host = malloc(s->bytes);
      if (!s->host) {
        printError("out of memory");
        goto done;
      }
    }
  }

  TilusRuntimeOptions options = tilusRuntimeOptionsDefault();
  options.device = o.device;
  rt = tilusRuntimeCreateWithOptions(&options, &err);
  if (!rt) {
    printError(err.message);
    goto done;
  }

  // Device buffers.
  for (int i = 0; i < numParams; i++) {
    ArgSpec *s = &specs[i];
    if (s->mode == ArgScalar)
      continue;
    TilusDevicePtr ptr = 0;
    if (tilusRuntimeMalloc(rt, s->bytes, &ptr, &err) != TilusStatusSuccess) {
      printError(err.message);
      goto done;
    }
    s->value = tilusArgPointer(ptr);
    TilusStatus st =
        s->host && s->mode != ArgOut
            ? tilusRuntimeCopyToDevice(rt, ptr, s->host, s->bytes, &err)
            : tilusRuntimeMemset(rt, ptr, 0, s->bytes, &err);
    if (st != TilusStatusSuccess) {
      printError(err.message);
      goto done;
    }
  }
  for (int i = 0; i < numParams; i++)
    args[i] = specs[i].value;

  // JIT (and report JIT errors) before anything is timed.
  if (tilusRuntimeLoadArtifact(rt, artifact, &err) != TilusStatusSuccess) {
    printError(err.message);
    goto done;
  }
  unsigned long long launches = o.repeat;
  if (o.time) {
    if (tilusRuntimeLaunch(rt, artifact, o.kernel, args, numParams, NULL,
                           &err) != TilusStatusSuccess ||
        tilusRuntimeEventCreate(rt, &start, &err) != TilusStatusSuccess ||
        tilusRuntimeEventCreate(rt, &end, &err) != TilusStatusSuccess ||
        tilusRuntimeEventRecord(rt, start, NULL, &err) != TilusStatusSuccess) {
      printError(err.message);
      goto done;
    }
  }
  for (unsigned long long n = 0; n < launches; n++) {
    if (tilusRuntimeLaunch(rt, artifact, o.kernel, args, numParams, NULL,
                           &err) != TilusStatusSuccess) {
      printError(err.message);
      goto done;
    }
  }
  float ms = 0;
  if (o.time &&
      (tilusRuntimeEventRecord(rt, end, NULL, &err) != TilusStatusSuccess ||
       tilusRuntimeEventElapsed(rt, start, end, &ms, &err) !=
           TilusStatusSuccess)) {
    printError(err.message);
    goto done;
  }
  // Kernel faults surface here.
  if (tilusRuntimeSynchronize(rt, &err) != TilusStatusSuccess) {
    printError(err.message);
    goto done;
  }

  for (int i = 0; i < numParams; i++) {
    ArgSpec *s = &specs[i];
    if (s->mode != ArgOut && s->mode != ArgInOut)
      continue;
    if (tilusRuntimeCopyToHost(rt, s->host, s->value.value.pointer, s->bytes,
                               &err) != TilusStatusSuccess) {
      printError(err.message);
      goto done;
    }
    if (!writeFile(s->file, s->host, s->bytes, why, sizeof(why))) {
      printError(why);
      goto done;
    }
  }

  printf("%s: grid %u x %u x %u, block %u x %u x %u, shared %u, %llu "
         "launch%s on %s",
         o.kernel, config.grid[0], config.grid[1], config.grid[2],
         config.block[0], config.block[1], config.block[2], config.sharedBytes,
         launches, launches == 1 ? "" : "es", tilusRuntimeGetDeviceName(rt));
  if (o.time)
    printf(", %.4f ms per launch", ms / (double)launches);
  printf("\n");
  status = 0;

done:
  if (rt) {
    tilusRuntimeEventDestroy(rt, start, NULL);
    tilusRuntimeEventDestroy(rt, end, NULL);
  }
  for (int i = 0; specs && i < numParams; i++) {
    if (rt && specs[i].mode != ArgScalar)
      tilusRuntimeFree(rt, specs[i].value.value.pointer, NULL);
    free(specs[i].host);
  }
  free(specs);
  free(args);
  tilusRuntimeDestroy(rt);
  tilusArtifactDestroy(artifact);
  return status;
}
