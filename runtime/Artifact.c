//===- Artifact.c - Reading the compiler's artifact files -----------------===//
//
// An artifact (`.tilus`) is what the compiler hands the runtime: a text
// manifest that describes every kernel, then the module image.
//
//   # comment lines start with '#'; blank lines are ignored
//   tilus-artifact 1                 first line: magic and format version
//   target sm_90a                    sm_80, sm_89, sm_90 or sm_90a
//   kernel matmul                    one block per kernel, closed by `end`
//     block 128 1 1                  threads per block (required)
//     grid s3 ceildiv 16 ; s4 floordiv 8   1-3 affine expressions (required)
//     shared 0                       dynamic shared memory, bytes (default 0)
//     workspace 0                    global workspace, bytes (default 0)
//     param ptr f16                  parameters in order: `ptr <dtype>` (one
//     param ptr float6_e3m2          word: f16, ui4, float6_e3m2 ...), or
//     param i32                      i1 i8 i16 i32 i64 (si*/ui* too), index,
//     param index                    f16 bf16 f32 f64
//     tensormap 0 2 2 s2 s3 box 64 64 swizzle 128   a TMA descriptor (below)
//     cluster 2 1 1                  blocks per cluster (default 1 1 1)
//   end
//   ptx:                             the PTX follows verbatim until the end
//   .version 8.5 ...
//
// `cubin:` in place of `ptx:` introduces a cubin (ELF) instead, byte for byte
// until the end of the file; parsing is length-based so its NUL bytes are
// fine. Symbol s<k> in a grid is the value of parameter k, which must be an
// integer parameter. The PTX entry of each kernel is named like the kernel.
//
//   tensormap <p> <b> <rank> <d_0> ... <d_rank-1> box <x_0> ... swizzle <w>
//
// (any number of them, up to TILUS_MAX_KERNEL_TENSOR_MAPS, anywhere in the
// kernel block) asks the runtime for a TMA tensor map of the row-major,
// contiguous tensor whose base address is `ptr` parameter p: elements of b
// bytes (1, 2, 4, 8), rank 1..5, extents d_i outermost first (s<k> for
// integer parameter k, or a constant in 1..2^32), box (tile) sizes x_i in
// 1..256, swizzle 0, 32, 64 or 128 bytes. As cuTensorMapEncodeTiled requires,
// x_rank-1 * b is a multiple of 16, and at most the swizzle when there is one.
// The kernel takes the maps, 128 bytes each, after its own parameters and
// before the workspace pointer.
//
// `cluster x y z` (sm_90+) says the kernel runs in thread-block clusters of
// that shape, at most 8 blocks (the portable size); the shape is compiled
// into the image (.reqnctapercluster), so the launch is a plain one, but
// every grid dimension must be a multiple of the cluster's.
//
// Parsing is strict: every malformed line is an error that names its line,
// because an artifact is machine-written and a lenient reader would hide
// compiler bugs until launch time.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The longest line is a `tensormap` of the highest rank: 7 words plus an
// extent and a box size per dimension.
enum { MaxWords = 7 + 2 * TILUS_TENSOR_MAP_MAX_RANK };

// One header line split into words. Word text points into the input.
typedef struct {
  const char *start; // the trimmed line
  size_t length;
  int numWords;
  const char *word[MaxWords];
  size_t wordLength[MaxWords];
} Line;

typedef struct {
  const char *text;
  size_t length;
  size_t pos;
  int lineNumber;
  TilusArtifact *artifact;
  TilusKernel *kernel; // the kernel block being read, or NULL
  bool seenBlock, seenGrid, seenShared, seenWorkspace, seenCluster;
  // The line of each tensor map of the kernel being read, for the checks at
  // `end` (parameter references).
  int tensorMapLine[TILUS_MAX_KERNEL_TENSOR_MAPS];
  TilusRuntimeError *err;
} Reader;

static TilusStatus lineError(Reader *r, TilusStatus code, const char *format,
                             ...) TILUS_PRINTF(3, 4);

static TilusStatus lineError(Reader *r, TilusStatus code, const char *format,
                             ...) {
  if (!r->err)
    return code;
  char detail[sizeof(r->err->message)];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return tilusSetError(r->err, code, "line %d: %.480s", r->lineNumber, detail);
}

char *tilusCopyText(const char *text, size_t length) {
  char *copy = malloc(length + 1);
  if (copy) {
    memcpy(copy, text, length);
    copy[length] = '\0';
  }
  return copy;
}

static bool wordIs(const Line *line, int i, const char *text) {
  return i < line->numWords && line->wordLength[i] == strlen(text) &&
         !memcmp(line->word[i], text, line->wordLength[i]);
}

//===----------------------------------------------------------------------===//
// Lines
//===----------------------------------------------------------------------===//

// Reads the next line into `line`, trimmed. False at the end of the input.
static bool nextLine(Reader *r, Line *line) {
  if (r->pos >= r->length)
    return false;
  const char *begin = r->text + r->pos;
  const char *newline = memchr(begin, '\n', r->length - r->pos);
  size_t length = newline ? (size_t)(newline - begin) : r->length - r->pos;
  r->pos += length + (newline ? 1 : 0);
  r->lineNumber++;
  while (length > 0 && isspace((unsigned char)begin[length - 1]))
    length--;
  while (length > 0 && isspace((unsigned char)*begin)) {
    begin++;
    length--;
  }
  line->start = begin;
  line->length = length;
  line->numWords = 0;
  size_t i = 0;
  while (i < length) {
    while (i < length && isspace((unsigned char)begin[i]))
      i++;
    if (i == length)
      break;
    size_t start = i;
    while (i < length && !isspace((unsigned char)begin[i]))
      i++;
    if (line->numWords < MaxWords) {
      line->word[line->numWords] = begin + start;
      line->wordLength[line->numWords] = i - start;
    }
    line->numWords++;
  }
  return true;
}

// Parses `length` bytes of text as a decimal number in [0, max].
static bool parseDecimal(const char *text, size_t length, uint64_t max,
                         uint64_t *value) {
  if (length == 0)
    return false;
  uint64_t v = 0;
  for (size_t k = 0; k < length; k++) {
    char c = text[k];
    if (!isdigit((unsigned char)c))
      return false;
    uint64_t digit = (uint64_t)(c - '0');
    if (max < digit || v > (max - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  *value = v;
  return true;
}

// Parses word `i` as a decimal number in [0, max].
static bool parseNumber(const Line *line, int i, uint64_t max,
                        uint64_t *value) {
  return i < line->numWords &&
         parseDecimal(line->word[i], line->wordLength[i], max, value);
}

//===----------------------------------------------------------------------===//
// Parameter types
//===----------------------------------------------------------------------===//

// The values an integer parameter accepts (see TilusParam).
static void setIntegerRange(TilusParam *p) {
  int w = p->bitWidth;
  uint64_t unsignedMax = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
  int64_t signedMin = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
  uint64_t signedMax = unsignedMax >> 1;
  switch (p->signedness) {
  case TilusSigned:
    p->minValue = signedMin;
    p->maxValue = signedMax;
    break;
  case TilusUnsigned:
    p->minValue = 0;
    p->maxValue = unsignedMax;
    break;
  case TilusSignless:
    p->minValue = signedMin;
    p->maxValue = unsignedMax;
    break;
  }
}

// Fills `param` from a scalar type spelling; false if unknown.
static bool parseScalarType(const char *name, size_t length,
                            TilusParam *param) {
  char text[16];
  if (length == 0 || length >= sizeof(text))
    return false;
  memcpy(text, name, length);
  text[length] = '\0';

  static const struct {
    const char *name;
    int bits;
    TilusFloatLayout layout;
  } floats[] = {{"f16", 16, TilusFloatLayoutF16},
                {"bf16", 16, TilusFloatLayoutBF16},
                {"f32", 32, TilusFloatLayoutF32},
                {"f64", 64, TilusFloatLayoutF64}};
  for (size_t i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
    if (!strcmp(text, floats[i].name)) {
      param->kind = TilusParamFloat;
      param->bitWidth = floats[i].bits;
      param->byteSize = floats[i].bits / 8;
      param->signedness = TilusSignless;
      param->floatLayout = floats[i].layout;
      return true;
    }
  }
  if (!strcmp(text, "index")) {
    param->kind = TilusParamInteger;
    param->bitWidth = 64;
    param->byteSize = 8;
    param->signedness = TilusSignless;
    setIntegerRange(param);
    return true;
  }

  const char *digits = text + 1;
  TilusSignedness signedness = TilusSignless;
  if (!strncmp(text, "si", 2) || !strncmp(text, "ui", 2)) {
    signedness = text[0] == 's' ? TilusSigned : TilusUnsigned;
    digits = text + 2;
  } else if (text[0] != 'i') {
    return false;
  }
  static const int widths[] = {1, 8, 16, 32, 64};
  for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
    char spelled[4];
    snprintf(spelled, sizeof(spelled), "%d", widths[i]);
    if (!strcmp(digits, spelled)) {
      param->kind = TilusParamInteger;
      param->bitWidth = widths[i];
      // An i1 parameter occupies one byte in PTX's parameter space.
      param->byteSize = widths[i] == 1 ? 1 : widths[i] / 8;
      param->signedness = signedness;
      setIntegerRange(param);
      return true;
    }
  }
  return false;
}

static bool isElementTypeName(const char *text, size_t length) {
  if (length == 0 || length > 31)
    return false;
  for (size_t i = 0; i < length; i++)
    if (!isalnum((unsigned char)text[i]) && text[i] != '_')
      return false;
  return true;
}

static TilusStatus readParam(Reader *r, const Line *line) {
  TilusKernel *k = r->kernel;
  TilusParam param;
  memset(&param, 0, sizeof(param));
  if (wordIs(line, 1, "ptr")) {
    if (line->numWords != 3 ||
        !isElementTypeName(line->word[2], line->wordLength[2]))
      return lineError(r, TilusStatusParseError,
                       "expected 'param ptr <element type>'");
    param.kind = TilusParamPointer;
    param.bitWidth = 64;
    param.byteSize = 8;
    param.typeName = tilusCopyText("ptr", 3);
    param.elementType = tilusCopyText(line->word[2], line->wordLength[2]);
  } else {
    if (line->numWords != 2)
      return lineError(r, TilusStatusParseError,
                       "expected 'param <type>' or 'param ptr <element "
                       "type>'");
    if (!parseScalarType(line->word[1], line->wordLength[1], &param))
      return lineError(
          r, TilusStatusParseError,
          "unknown parameter type '%.*s' (expected ptr, i1, i8, "
          "i16, i32, i64, si*, ui*, index, f16, bf16, f32 or "
          "f64)",
          (int)(line->wordLength[1] > 32 ? 32 : line->wordLength[1]),
          line->word[1]);
    param.typeName = tilusCopyText(line->word[1], line->wordLength[1]);
    param.elementType = tilusCopyText("", 0);
  }
  TilusParam *grown =
      realloc(k->params, (size_t)(k->numParams + 1) * sizeof(TilusParam));
  if (!grown || !param.typeName || !param.elementType) {
    if (grown)
      k->params = grown;
    free(param.typeName);
    free(param.elementType);
    return tilusSetError(r->err, TilusStatusOutOfMemory, "out of memory");
  }
  k->params = grown;
  k->params[k->numParams++] = param;
  return TilusStatusSuccess;
}

//===----------------------------------------------------------------------===//
// Kernel blocks
//===----------------------------------------------------------------------===//

static TilusStatus readBlock(Reader *r, const Line *line) {
  uint64_t dims[3];
  if (line->numWords != 4 || !parseNumber(line, 1, 1u << 30, &dims[0]) ||
      !parseNumber(line, 2, 1u << 30, &dims[1]) ||
      !parseNumber(line, 3, 1u << 30, &dims[2]))
    return lineError(r, TilusStatusParseError,
                     "expected 'block <x> <y> <z>' with three numbers");
  // The limits of every architecture this runtime targets (sm_80 .. sm_90a).
  if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || dims[0] > 1024 ||
      dims[1] > 1024 || dims[2] > 64 || dims[0] * dims[1] * dims[2] > 1024)
    return lineError(r, TilusStatusParseError,
                     "block %llu x %llu x %llu is not a valid block (x, y in "
                     "1..1024, z in 1..64, at most 1024 threads)",
                     (unsigned long long)dims[0], (unsigned long long)dims[1],
                     (unsigned long long)dims[2]);
  for (int i = 0; i < 3; i++)
    r->kernel->block[i] = (uint32_t)dims[i];
  return TilusStatusSuccess;
}

static TilusStatus readGrid(Reader *r, const Line *line) {
  TilusKernel *k = r->kernel;
  // Everything after the `grid` word, split at ';'.
  const char *rest = line->word[0] + 4;
  const char *end = line->start + line->length;
  for (;;) {
    const char *semicolon = memchr(rest, ';', (size_t)(end - rest));
    const char *stop = semicolon ? semicolon : end;
    if (k->numGridDims == 3)
      return lineError(r, TilusStatusParseError,
                       "a grid has at most 3 expressions");
    while (rest < stop && isspace((unsigned char)*rest))
      rest++;
    size_t length = (size_t)(stop - rest);
    while (length > 0 && isspace((unsigned char)rest[length - 1]))
      length--;
    int dim = k->numGridDims;
    TilusRuntimeError exprErr;
    k->grid[dim] = tilusGridExprParse(rest, length, &exprErr);
    if (!k->grid[dim])
      return lineError(r, exprErr.code, "grid expression %d ('%.*s'): %s",
                       dim + 1, (int)(length > 64 ? 64 : length), rest,
                       exprErr.message);
    k->gridText[dim] = tilusCopyText(rest, length);
    k->numGridDims++;
    if (!k->gridText[dim])
      return tilusSetError(r->err, TilusStatusOutOfMemory, "out of memory");
    if (!semicolon)
      return TilusStatusSuccess;
    rest = semicolon + 1;
  }
}

// The largest extent a TMA tensor map takes (cuTensorMapEncodeTiled).
#define TENSOR_MAP_MAX_EXTENT (UINT64_C(1) << 32)

// Up to 32 characters of word `i`, for messages.
#define WORD_ARG(line, i)                                                      \
  (int)((line)->wordLength[i] > 32 ? 32 : (line)->wordLength[i]),              \
      (line)->word[i]

// `tensormap <p> <b> <rank> <d_0> ... box <x_0> ... swizzle <w>`. References
// to parameters (p, s<k>) are checked at `end`, when all are known.
static TilusStatus readTensorMap(Reader *r, const Line *line) {
  TilusKernel *k = r->kernel;
  int index = k->numTensorMaps;
  if (index == TILUS_MAX_KERNEL_TENSOR_MAPS)
    return lineError(r, TilusStatusParseError,
                     "kernel '%s' has more than %d tensor maps "
                     "(TILUS_MAX_KERNEL_TENSOR_MAPS)",
                     k->name, TILUS_MAX_KERNEL_TENSOR_MAPS);
  TilusTensorMap map;
  memset(&map, 0, sizeof(map));
  uint64_t p = 0, bytes = 0, rank = 0;
  if (!parseNumber(line, 1, INT32_MAX, &p) ||
      !parseNumber(line, 2, 1000, &bytes) || !parseNumber(line, 3, 1000, &rank))
    return lineError(r, TilusStatusParseError,
                     "expected 'tensormap <param> <element bytes> <rank> "
                     "<extents> box <sizes> swizzle <bytes>' in kernel '%s'",
                     k->name);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': element size %llu is not "
                     "1, 2, 4 or 8 bytes",
                     index, k->name, (unsigned long long)bytes);
  if (rank < 1 || rank > TILUS_TENSOR_MAP_MAX_RANK)
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': rank %llu is not in 1..%d",
                     index, k->name, (unsigned long long)rank,
                     TILUS_TENSOR_MAP_MAX_RANK);
  int n = (int)rank;
  if (line->numWords != 7 + 2 * n)
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': rank %d takes %d extents, "
                     "'box', %d sizes, 'swizzle' and its bytes (%d words), "
                     "but the line has %d words",
                     index, k->name, n, n, n, 7 + 2 * n, line->numWords);
  map.pointerParam = (int)p;
  map.elementBytes = (int)bytes;
  map.rank = n;
  for (int i = 0; i < n; i++) {
    const char *word = line->word[4 + i];
    size_t length = line->wordLength[4 + i];
    uint64_t v = 0;
    map.dimParam[i] = -1;
    if (length > 1 && word[0] == 's' &&
        parseDecimal(word + 1, length - 1, INT32_MAX, &v))
      map.dimParam[i] = (int)v;
    else if (parseNumber(line, 4 + i, TENSOR_MAP_MAX_EXTENT, &v) && v >= 1)
      map.dimValue[i] = v;
    else
      return lineError(r, TilusStatusParseError,
                       "tensor map %d of kernel '%s': extent %d is '%.*s', "
                       "neither s<k> nor a number in 1..4294967296",
                       index, k->name, i, WORD_ARG(line, 4 + i));
  }
  if (!wordIs(line, 4 + n, "box"))
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': expected 'box' after the "
                     "%d extents, found '%.*s'",
                     index, k->name, n, WORD_ARG(line, 4 + n));
  for (int i = 0; i < n; i++) {
    uint64_t v = 0;
    if (!parseNumber(line, 5 + n + i, 256, &v) || v < 1)
      return lineError(r, TilusStatusParseError,
                       "tensor map %d of kernel '%s': box size %d is '%.*s', "
                       "not a number in 1..256",
                       index, k->name, i, WORD_ARG(line, 5 + n + i));
    map.box[i] = (uint32_t)v;
  }
  uint64_t swizzle = 0;
  if (!wordIs(line, 5 + 2 * n, "swizzle"))
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': expected 'swizzle' after "
                     "the %d box sizes, found '%.*s'",
                     index, k->name, n, WORD_ARG(line, 5 + 2 * n));
  if (!parseNumber(line, 6 + 2 * n, 1000, &swizzle) ||
      (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128))
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': swizzle '%.*s' is not 0, "
                     "32, 64 or 128",
                     index, k->name, WORD_ARG(line, 6 + 2 * n));
  map.swizzleBytes = (int)swizzle;
  // The TMA unit moves the box's inner dimension in 16-byte units, and a
  // swizzle pattern spans at most its own width.
  uint64_t innerBytes = (uint64_t)map.box[n - 1] * bytes;
  if (innerBytes % 16 != 0)
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': the box's inner dimension "
                     "is %u elements of %llu bytes, %llu bytes, which is not "
                     "a multiple of 16",
                     index, k->name, map.box[n - 1], (unsigned long long)bytes,
                     (unsigned long long)innerBytes);
  if (swizzle != 0 && innerBytes > swizzle)
    return lineError(r, TilusStatusParseError,
                     "tensor map %d of kernel '%s': the box's inner dimension "
                     "is %u elements of %llu bytes, %llu bytes, wider than "
                     "the %llu-byte swizzle",
                     index, k->name, map.box[n - 1], (unsigned long long)bytes,
                     (unsigned long long)innerBytes,
                     (unsigned long long)swizzle);

  TilusTensorMap *grown =
      realloc(k->tensorMaps, (size_t)(index + 1) * sizeof(TilusTensorMap));
  if (!grown)
    return tilusSetError(r->err, TilusStatusOutOfMemory, "out of memory");
  k->tensorMaps = grown;
  k->tensorMaps[k->numTensorMaps++] = map;
  r->tensorMapLine[index] = r->lineNumber;
  return TilusStatusSuccess;
}

// The references of a kernel's tensor maps to its parameters: each base a
// `ptr` parameter, each s<k> an integer parameter. Errors name the map's own
// line.
static TilusStatus checkTensorMapParams(Reader *r) {
  const TilusKernel *k = r->kernel;
  int endLine = r->lineNumber;
  TilusStatus s = TilusStatusSuccess;
  for (int m = 0; m < k->numTensorMaps && s == TilusStatusSuccess; m++) {
    const TilusTensorMap *map = &k->tensorMaps[m];
    r->lineNumber = r->tensorMapLine[m];
    int p = map->pointerParam;
    if (p >= k->numParams)
      s = lineError(r, TilusStatusParseError,
                    "the base of tensor map %d of kernel '%s' is parameter "
                    "%d, but the kernel has %d parameters",
                    m, k->name, p, k->numParams);
    else if (k->params[p].kind != TilusParamPointer)
      s = lineError(r, TilusStatusParseError,
                    "the base of tensor map %d of kernel '%s' is parameter "
                    "%d, which has type '%s' (it must be a 'ptr' parameter)",
                    m, k->name, p, k->params[p].typeName);
    for (int i = 0; i < map->rank && s == TilusStatusSuccess; i++) {
      int d = map->dimParam[i];
      if (d < 0)
        continue;
      if (d >= k->numParams)
        s = lineError(r, TilusStatusParseError,
                      "extent %d of tensor map %d of kernel '%s' is s%d, but "
                      "the kernel has %d parameters",
                      i, m, k->name, d, k->numParams);
      else if (k->params[d].kind != TilusParamInteger)
        s = lineError(r, TilusStatusParseError,
                      "extent %d of tensor map %d of kernel '%s' is s%d, but "
                      "parameter %d has type '%s' (extents must be integer "
                      "parameters)",
                      i, m, k->name, d, d, k->params[d].typeName);
    }
  }
  r->lineNumber = endLine;
  return s;
}

// Checks run at `end`, when all of a kernel's lines are known.
static TilusStatus finishKernel(Reader *r) {
  TilusKernel *k = r->kernel;
  if (!r->seenBlock)
    return lineError(r, TilusStatusParseError,
                     "kernel '%s' has no 'block' line", k->name);
  if (!r->seenGrid)
    return lineError(r, TilusStatusParseError, "kernel '%s' has no 'grid' line",
                     k->name);
  for (int d = 0; d < k->numGridDims; d++) {
    int maxSymbol = tilusGridExprGetMaxSymbol(k->grid[d]);
    if (maxSymbol >= k->numParams)
      return lineError(r, TilusStatusParseError,
                       "the grid of kernel '%s' uses s%d but the kernel has "
                       "%d parameters",
                       k->name, maxSymbol, k->numParams);
    for (int p = 0; p <= maxSymbol; p++)
      if (k->params[p].kind != TilusParamInteger &&
          tilusGridExprUsesSymbol(k->grid[d], p))
        return lineError(r, TilusStatusParseError,
                         "the grid of kernel '%s' uses s%d, but parameter %d "
                         "has type '%s' (grid symbols must be integer "
                         "parameters)",
                         k->name, p, p, k->params[p].typeName);
  }
  TilusStatus s = checkTensorMapParams(r);
  if (s != TilusStatusSuccess)
    return s;
  r->kernel = NULL;
  return TilusStatusSuccess;
}

static TilusStatus startKernel(Reader *r, const Line *line) {
  TilusArtifact *a = r->artifact;
  if (line->numWords != 2)
    return lineError(r, TilusStatusParseError, "expected 'kernel <name>'");
  for (int i = 0; i < a->numKernels; i++)
    if (strlen(a->kernels[i].name) == line->wordLength[1] &&
        !memcmp(a->kernels[i].name, line->word[1], line->wordLength[1]))
      return lineError(r, TilusStatusParseError, "duplicate kernel '%s'",
                       a->kernels[i].name);
  TilusKernel *grown =
      realloc(a->kernels, (size_t)(a->numKernels + 1) * sizeof(TilusKernel));
  if (!grown)
    return tilusSetError(r->err, TilusStatusOutOfMemory, "out of memory");
  a->kernels = grown;
  TilusKernel *k = &a->kernels[a->numKernels++];
  memset(k, 0, sizeof(*k));
  k->name = tilusCopyText(line->word[1], line->wordLength[1]);
  if (!k->name)
    return tilusSetError(r->err, TilusStatusOutOfMemory, "out of memory");
  r->kernel = k;
  r->seenBlock = r->seenGrid = r->seenShared = r->seenWorkspace = false;
  r->seenCluster = false;
  k->cluster[0] = k->cluster[1] = k->cluster[2] = 1;
  return TilusStatusSuccess;
}

// Marks a once-only line as seen; an error if it was seen before.
static TilusStatus once(Reader *r, bool *seen, const char *what) {
  if (*seen)
    return lineError(r, TilusStatusParseError,
                     "duplicate '%s' line in kernel '%s'", what,
                     r->kernel->name);
  *seen = true;
  return TilusStatusSuccess;
}

// `cluster x y z`: each 1..8, at most 8 blocks in all.
static TilusStatus readCluster(Reader *r, const Line *line) {
  uint64_t v[3] = {0, 0, 0};
  if (line->numWords != 4 || !parseNumber(line, 1, 8, &v[0]) ||
      !parseNumber(line, 2, 8, &v[1]) || !parseNumber(line, 3, 8, &v[2]) ||
      !v[0] || !v[1] || !v[2] || v[0] * v[1] * v[2] > 8)
    return lineError(r, TilusStatusParseError,
                     "expected 'cluster <x> <y> <z>' with at most 8 blocks "
                     "in all (each at least 1)");
  for (int d = 0; d < 3; d++)
    r->kernel->cluster[d] = (uint32_t)v[d];
  return TilusStatusSuccess;
}

static TilusStatus readKernelLine(Reader *r, const Line *line) {
  TilusKernel *k = r->kernel;
  TilusStatus s;
  if (wordIs(line, 0, "end")) {
    if (line->numWords != 1)
      return lineError(r, TilusStatusParseError, "'end' takes no operands");
    return finishKernel(r);
  }
  if (wordIs(line, 0, "block")) {
    if ((s = once(r, &r->seenBlock, "block")) != TilusStatusSuccess)
      return s;
    return readBlock(r, line);
  }
  if (wordIs(line, 0, "grid")) {
    if ((s = once(r, &r->seenGrid, "grid")) != TilusStatusSuccess)
      return s;
    return readGrid(r, line);
  }
  if (wordIs(line, 0, "shared")) {
    uint64_t v = 0;
    if ((s = once(r, &r->seenShared, "shared")) != TilusStatusSuccess)
      return s;
    if (line->numWords != 2 || !parseNumber(line, 1, UINT32_MAX, &v))
      return lineError(r, TilusStatusParseError,
                       "expected 'shared <bytes>' with a number below 2^32");
    k->sharedBytes = (uint32_t)v;
    return TilusStatusSuccess;
  }
  if (wordIs(line, 0, "workspace")) {
    uint64_t v = 0;
    if ((s = once(r, &r->seenWorkspace, "workspace")) != TilusStatusSuccess)
      return s;
    if (line->numWords != 2 || !parseNumber(line, 1, INT64_MAX, &v))
      return lineError(r, TilusStatusParseError,
                       "expected 'workspace <bytes>' with a number below "
                       "2^63");
    k->workspaceBytes = v;
    return TilusStatusSuccess;
  }
  if (wordIs(line, 0, "param"))
    return readParam(r, line);
  if (wordIs(line, 0, "tensormap"))
    return readTensorMap(r, line);
  if (wordIs(line, 0, "cluster")) {
    if ((s = once(r, &r->seenCluster, "cluster")) != TilusStatusSuccess)
      return s;
    return readCluster(r, line);
  }
  if (wordIs(line, 0, "kernel") || wordIs(line, 0, "ptx:") ||
      wordIs(line, 0, "cubin:"))
    return lineError(r, TilusStatusParseError,
                     "kernel '%s' is missing its 'end' line", k->name);
  return lineError(r, TilusStatusParseError,
                   "unknown line '%.*s' in kernel '%s' (expected block, grid, "
                   "shared, workspace, param, tensormap, cluster or end)",
                   (int)(line->wordLength[0] > 32 ? 32 : line->wordLength[0]),
                   line->word[0], k->name);
}

//===----------------------------------------------------------------------===//
// The image
//===----------------------------------------------------------------------===//

static bool isIdentifierChar(unsigned char c) {
  return isalnum(c) || c == '_' || c == '$';
}

// Whether the PTX declares `.entry <name>` (followed by a non-identifier
// character). A cheap early check: a missing entry would otherwise surface as
// CUDA_ERROR_NOT_FOUND at launch time, far from its cause.
static bool ptxHasEntry(const char *ptx, const char *name) {
  size_t nameLength = strlen(name);
  for (const char *at = strstr(ptx, ".entry"); at;
       at = strstr(at + 1, ".entry")) {
    const char *p = at + 6;
    if (!isspace((unsigned char)*p))
      continue;
    while (isspace((unsigned char)*p))
      p++;
    if (!strncmp(p, name, nameLength) &&
        !isIdentifierChar((unsigned char)p[nameLength]))
      return true;
  }
  return false;
}

// 64-bit FNV-1a: cheap, and collisions are harmless since the runtime
// confirms cache hits with memcmp.
static uint64_t hashBytes(const unsigned char *data, size_t size) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < size; i++) {
    h ^= data[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static TilusStatus readImage(Reader *r, TilusImageKind kind) {
  TilusArtifact *a = r->artifact;
  if (!a->target)
    return lineError(r, TilusStatusParseError,
                     "the artifact has no 'target' line");
  if (a->numKernels == 0)
    return lineError(r, TilusStatusParseError,
                     "the artifact declares no kernel");
  a->imageKind = kind;
  a->imageSize = r->length - r->pos;
  a->image = malloc(a->imageSize + 1);
  if (!a->image)
    return tilusSetError(r->err, TilusStatusOutOfMemory, "out of memory");
  memcpy(a->image, r->text + r->pos, a->imageSize);
  a->image[a->imageSize] = '\0';
  a->imageHash = hashBytes(a->image, a->imageSize);

  if (kind == TilusImageCubin) {
    if (a->imageSize < 4 || memcmp(a->image,
                                   "\x7f"
                                   "ELF",
                                   4))
      return lineError(r, TilusStatusParseError,
                       "the bytes after 'cubin:' are not an ELF file");
    return TilusStatusSuccess;
  }
  if (memchr(a->image, '\0', a->imageSize))
    return lineError(r, TilusStatusParseError,
                     "the PTX after 'ptx:' contains a NUL byte");
  bool blank = true;
  for (size_t i = 0; i < a->imageSize && blank; i++)
    blank = isspace(a->image[i]);
  if (blank)
    return lineError(r, TilusStatusParseError, "the PTX after 'ptx:' is empty");
  for (int i = 0; i < a->numKernels; i++)
    if (!ptxHasEntry((const char *)a->image, a->kernels[i].name))
      return lineError(r, TilusStatusParseError,
                       "kernel '%s' has no '.entry %s' in the PTX",
                       a->kernels[i].name, a->kernels[i].name);
  return TilusStatusSuccess;
}

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

static TilusStatus readTarget(Reader *r, const Line *line) {
  static const char *const targets[] = {"sm_80", "sm_89", "sm_90", "sm_90a"};
  if (r->artifact->target)
    return lineError(r, TilusStatusParseError, "duplicate 'target' line");
  if (line->numWords != 2)
    return lineError(r, TilusStatusParseError, "expected 'target <sm_XX>'");
  for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
    if (wordIs(line, 1, targets[i])) {
      r->artifact->target = tilusCopyText(targets[i], strlen(targets[i]));
      return r->artifact->target ? TilusStatusSuccess
                                 : tilusSetError(r->err, TilusStatusOutOfMemory,
                                                 "out of memory");
    }
  }
  return lineError(r, TilusStatusParseError,
                   "unknown target '%.*s' (expected sm_80, sm_89, sm_90 or "
                   "sm_90a)",
                   (int)(line->wordLength[1] > 32 ? 32 : line->wordLength[1]),
                   line->word[1]);
}

static TilusStatus readMagic(Reader *r, const Line *line) {
  uint64_t version = 0;
  if (!wordIs(line, 0, "tilus-artifact") || line->numWords != 2 ||
      !parseNumber(line, 1, 1000000, &version))
    return lineError(r, TilusStatusParseError,
                     "not a Tilus artifact: the first line must be "
                     "'tilus-artifact 1'");
  if (version != 1)
    return lineError(r, TilusStatusParseError,
                     "unsupported artifact version %llu (this runtime reads "
                     "version 1)",
                     (unsigned long long)version);
  return TilusStatusSuccess;
}

static TilusStatus readArtifact(Reader *r) {
  Line line;
  bool sawMagic = false;
  while (nextLine(r, &line)) {
    if (line.length == 0 || line.start[0] == '#')
      continue;
    if (memchr(line.start, '\0', line.length))
      return lineError(r, TilusStatusParseError,
                       "NUL byte in the artifact's header");
    // Only `grid` lines are free-form; every other line has a few words.
    if (line.numWords > MaxWords && !wordIs(&line, 0, "grid"))
      return lineError(r, TilusStatusParseError, "too many words on a line");
    TilusStatus s;
    if (!sawMagic) {
      if ((s = readMagic(r, &line)) != TilusStatusSuccess)
        return s;
      sawMagic = true;
      continue;
    }
    if (r->kernel) {
      if ((s = readKernelLine(r, &line)) != TilusStatusSuccess)
        return s;
      continue;
    }
    if (wordIs(&line, 0, "ptx:") || wordIs(&line, 0, "cubin:")) {
      if (line.numWords != 1)
        return lineError(r, TilusStatusParseError,
                         "nothing may follow '%s' on its line",
                         wordIs(&line, 0, "ptx:") ? "ptx:" : "cubin:");
      return readImage(r, wordIs(&line, 0, "ptx:") ? TilusImagePTX
                                                   : TilusImageCubin);
    }
    if (wordIs(&line, 0, "target"))
      s = readTarget(r, &line);
    else if (wordIs(&line, 0, "kernel"))
      s = startKernel(r, &line);
    else if (wordIs(&line, 0, "block") || wordIs(&line, 0, "grid") ||
             wordIs(&line, 0, "shared") || wordIs(&line, 0, "workspace") ||
             wordIs(&line, 0, "param") || wordIs(&line, 0, "tensormap") ||
             wordIs(&line, 0, "end"))
      s = lineError(r, TilusStatusParseError, "'%.*s' outside a kernel block",
                    (int)line.wordLength[0], line.word[0]);
    else
      s = lineError(r, TilusStatusParseError,
                    "unknown line '%.*s' (expected target, kernel, ptx: or "
                    "cubin:)",
                    (int)(line.wordLength[0] > 32 ? 32 : line.wordLength[0]),
                    line.word[0]);
    if (s != TilusStatusSuccess)
      return s;
  }
  if (!sawMagic)
    return tilusSetError(r->err, TilusStatusParseError,
                         "not a Tilus artifact: the input is empty");
  if (r->kernel)
    return lineError(r, TilusStatusParseError,
                     "kernel '%s' is missing its 'end' line", r->kernel->name);
  return lineError(r, TilusStatusParseError,
                   "missing the 'ptx:' line that starts the module image");
}

TilusArtifact *tilusArtifactParse(const char *text, size_t length,
                                  TilusRuntimeError *err) {
  if (!text && length > 0) {
    tilusSetError(err, TilusStatusInvalidArgument,
                  "tilusArtifactParse: NULL text");
    return NULL;
  }
  TilusArtifact *artifact = calloc(1, sizeof(*artifact));
  if (!artifact) {
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return NULL;
  }
  Reader reader;
  memset(&reader, 0, sizeof(reader));
  reader.text = text ? text : "";
  reader.length = length;
  reader.artifact = artifact;
  reader.err = err;
  if (readArtifact(&reader) != TilusStatusSuccess) {
    tilusArtifactDestroy(artifact);
    return NULL;
  }
  return artifact;
}

char *tilusReadFile(const char *path, size_t *size, TilusRuntimeError *err) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    tilusSetError(err, TilusStatusIOError, "cannot open '%s': %s", path,
                  strerror(errno));
    return NULL;
  }
  // Read in chunks rather than trusting a file size: works on pipes too.
  // One byte is kept free for the NUL.
  size_t used = 0, capacity = 1 << 16;
  char *data = malloc(capacity);
  while (data) {
    used += fread(data + used, 1, capacity - used - 1, file);
    if (used < capacity - 1)
      break;
    char *grown = realloc(data, capacity * 2);
    if (!grown) {
      free(data);
      data = NULL;
      break;
    }
    data = grown;
    capacity *= 2;
  }
  bool readError = ferror(file);
  fclose(file);
  if (!data) {
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory reading '%s'",
                  path);
    return NULL;
  }
  if (readError) {
    free(data);
    tilusSetError(err, TilusStatusIOError, "cannot read '%s'", path);
    return NULL;
  }
  data[used] = '\0';
  *size = used;
  return data;
}

TilusArtifact *tilusArtifactLoadFile(const char *path, TilusRuntimeError *err) {
  if (!path) {
    tilusSetError(err, TilusStatusInvalidArgument,
                  "tilusArtifactLoadFile: NULL path");
    return NULL;
  }
  size_t size = 0;
  char *data = tilusReadFile(path, &size, err);
  if (!data)
    return NULL;
  TilusArtifact *artifact = tilusArtifactParse(data, size, err);
  free(data);
  if (!artifact)
    tilusPrefixError(err, path);
  return artifact;
}

void tilusArtifactDestroy(TilusArtifact *artifact) {
  if (!artifact)
    return;
  for (int i = 0; i < artifact->numKernels; i++)
    tilusKernelRelease(&artifact->kernels[i]);
  free(artifact->kernels);
  free(artifact->target);
  free(artifact->image);
  free(artifact);
}

//===----------------------------------------------------------------------===//
// Kernel descriptions
//===----------------------------------------------------------------------===//

void tilusKernelRelease(TilusKernel *k) {
  free(k->name);
  for (int d = 0; d < 3; d++) {
    free(k->gridText[d]);
    tilusGridExprDestroy(k->grid[d]);
  }
  for (int p = 0; p < k->numParams; p++) {
    free(k->params[p].typeName);
    free(k->params[p].elementType);
  }
  free(k->params);
  free(k->tensorMaps);
  memset(k, 0, sizeof(*k));
}

bool tilusKernelCopy(TilusKernel *copy, const TilusKernel *k) {
  // Start from the plain fields, then replace every owned pointer, so that a
  // failure part way leaves only NULLs or copies for the release below.
  *copy = *k;
  copy->name = NULL;
  memset(copy->gridText, 0, sizeof(copy->gridText));
  memset(copy->grid, 0, sizeof(copy->grid));
  copy->params = NULL;
  copy->numParams = 0;
  copy->tensorMaps = NULL;
  copy->numTensorMaps = 0;
  bool ok = (copy->name = tilusCopyText(k->name, strlen(k->name))) != NULL;
  for (int d = 0; ok && d < k->numGridDims; d++) {
    copy->gridText[d] = tilusCopyText(k->gridText[d], strlen(k->gridText[d]));
    copy->grid[d] = tilusGridExprClone(k->grid[d]);
    ok = copy->gridText[d] && copy->grid[d];
  }
  if (ok && k->numParams > 0) {
    copy->params = calloc((size_t)k->numParams, sizeof(TilusParam));
    ok = copy->params != NULL;
  }
  for (int p = 0; ok && p < k->numParams; p++) {
    const TilusParam *from = &k->params[p];
    TilusParam *to = &copy->params[copy->numParams++];
    *to = *from;
    to->typeName = tilusCopyText(from->typeName, strlen(from->typeName));
    to->elementType = tilusCopyText(from->elementType, strlen(from->elementType));
    ok = to->typeName && to->elementType;
  }
  if (ok && k->numTensorMaps > 0) {
    size_t size = (size_t)k->numTensorMaps * sizeof(TilusTensorMap);
    copy->tensorMaps = malloc(size);
    ok = copy->tensorMaps != NULL;
    if (ok) {
      memcpy(copy->tensorMaps, k->tensorMaps, size);
      copy->numTensorMaps = k->numTensorMaps;
    }
  }
  if (!ok)
    tilusKernelRelease(copy);
  return ok;
}

static bool tensorMapEquals(const TilusTensorMap *a, const TilusTensorMap *b) {
  if (a->pointerParam != b->pointerParam ||
      a->elementBytes != b->elementBytes || a->rank != b->rank ||
      a->swizzleBytes != b->swizzleBytes)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dimParam[i] != b->dimParam[i] || a->dimValue[i] != b->dimValue[i] ||
        a->box[i] != b->box[i])
      return false;
  return true;
}

bool tilusKernelEquals(const TilusKernel *a, const TilusKernel *b) {
  if (strcmp(a->name, b->name) ||
      memcmp(a->block, b->block, sizeof(a->block)) ||
      a->numGridDims != b->numGridDims || a->sharedBytes != b->sharedBytes ||
      a->workspaceBytes != b->workspaceBytes || a->numParams != b->numParams ||
      a->numTensorMaps != b->numTensorMaps)
    return false;
  for (int m = 0; m < a->numTensorMaps; m++)
    if (!tensorMapEquals(&a->tensorMaps[m], &b->tensorMaps[m]))
      return false;
  // Grids compare as written: equal text parses to the same tree.
  for (int d = 0; d < a->numGridDims; d++)
    if (strcmp(a->gridText[d], b->gridText[d]))
      return false;
  // The type's spelling determines every other field of a parameter.
  for (int p = 0; p < a->numParams; p++)
    if (strcmp(a->params[p].typeName, b->params[p].typeName) ||
        strcmp(a->params[p].elementType, b->params[p].elementType))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

static const TilusKernel *kernelAt(const TilusArtifact *a, int k) {
  return a && k >= 0 && k < a->numKernels ? &a->kernels[k] : NULL;
}

const char *tilusArtifactGetTarget(const TilusArtifact *a) {
  return a ? a->target : NULL;
}

TilusImageKind tilusArtifactGetImageKind(const TilusArtifact *a) {
  return a ? a->imageKind : TilusImagePTX;
}

const void *tilusArtifactGetImage(const TilusArtifact *a, size_t *size) {
  if (size)
    *size = a ? a->imageSize : 0;
  return a ? a->image : NULL;
}

int tilusArtifactGetNumKernels(const TilusArtifact *a) {
  return a ? a->numKernels : 0;
}

int tilusArtifactFindKernel(const TilusArtifact *a, const char *name) {
  if (!a || !name)
    return -1;
  for (int i = 0; i < a->numKernels; i++)
    if (!strcmp(a->kernels[i].name, name))
      return i;
  return -1;
}

const char *tilusKernelGetName(const TilusArtifact *a, int k) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel ? kernel->name : NULL;
}

void tilusKernelGetBlock(const TilusArtifact *a, int k, uint32_t block[3]) {
  const TilusKernel *kernel = kernelAt(a, k);
  for (int i = 0; i < 3; i++)
    block[i] = kernel ? kernel->block[i] : 0;
}

int tilusKernelGetNumGridDims(const TilusArtifact *a, int k) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel ? kernel->numGridDims : 0;
}

const char *tilusKernelGetGridExpr(const TilusArtifact *a, int k, int dim) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel && dim >= 0 && dim < kernel->numGridDims ? kernel->gridText[dim]
                                                         : NULL;
}

uint32_t tilusKernelGetSharedBytes(const TilusArtifact *a, int k) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel ? kernel->sharedBytes : 0;
}

uint64_t tilusKernelGetWorkspaceBytes(const TilusArtifact *a, int k) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel ? kernel->workspaceBytes : 0;
}

uint32_t tilusKernelGetClusterDim(const TilusArtifact *a, int k, int dim) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel && dim >= 0 && dim < 3 ? kernel->cluster[dim] : 1;
}

int tilusKernelGetNumParams(const TilusArtifact *a, int k) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel ? kernel->numParams : 0;
}

TilusParamInfo tilusKernelGetParam(const TilusArtifact *a, int k, int param) {
  TilusParamInfo info;
  memset(&info, 0, sizeof(info));
  const TilusKernel *kernel = kernelAt(a, k);
  if (!kernel || param < 0 || param >= kernel->numParams)
    return info;
  const TilusParam *p = &kernel->params[param];
  info.kind = p->kind;
  info.bitWidth = p->bitWidth;
  info.byteSize = p->byteSize;
  info.signedness = p->signedness;
  info.typeName = p->typeName;
  info.elementType = p->elementType;
  return info;
}

int tilusKernelGetNumTensorMaps(const TilusArtifact *a, int k) {
  const TilusKernel *kernel = kernelAt(a, k);
  return kernel ? kernel->numTensorMaps : 0;
}

TilusTensorMapInfo tilusKernelGetTensorMap(const TilusArtifact *a, int k,
                                           int map) {
  TilusTensorMapInfo info;
  memset(&info, 0, sizeof(info));
  const TilusKernel *kernel = kernelAt(a, k);
  if (kernel && map >= 0 && map < kernel->numTensorMaps)
    info = kernel->tensorMaps[map];
  return info;
}
