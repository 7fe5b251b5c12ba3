//===- QuantizedMatmul.c - The quantized matmul's kernel table for C ------===//
//
// tilus-c/QuantizedMatmul.h: DIR/qmatmul-table.txt, written by
// `python3 -m tilus.ops.export`, is a header line `tilus-qmatmul-table 1`,
// comment lines (#) and one entry per line of 14 fields:
//
//   wtype offset group activation zeros bias m_min m_max n k split_k
//   block_rows block_cols artifact
//
// (zeros: 0 none, 1 values of the scales' type, 2 uint8 codes; m_max 0: no
// upper bound; split_k: the K splits, or -P for a stream-K kernel of at most
// P blocks, which takes P (or the units of work, if fewer) after k;
// artifact: a file name relative to DIR whose
// kernel `qmatmul` takes the parameters of python-bindings/tilus/ops/
// qmatmul.py's QuantizedMatmul.parameters()). The whole file is read into
// memory and parsed once; lookups scan the entries (a table holds tens to
// hundreds).
//
//===----------------------------------------------------------------------===//

// strtok_r under -std=c11.
#define _POSIX_C_SOURCE 200809L

#include "RuntimeInternal.h"
#include "tilus-c/QuantizedMatmul.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_FILE "qmatmul-table.txt"
#define TABLE_HEADER "tilus-qmatmul-table 1"
#define KERNEL_NAME "qmatmul"
enum { kFields = 14 };

typedef struct {
  char *wtype, *activation;
  int offset, group, splitK;
  int streamK; // stream-K: at most this many blocks; 0 otherwise
  int zeros;   // 0 none, 1 values, 2 uint8 codes
  bool bias;
  int64_t mMin, mMax, n, k, blockRows, blockCols;
  int artifact; // index into the table's artifacts
} Entry;

struct TilusQmatmulTable {
  Entry *entries;
  int numEntries, capacity;
  char **files; // artifact file names, as the table writes them
  TilusArtifact **artifacts;
  TilusLoadedKernel **kernels; // per artifact, on `rt` after Prepare
  int numArtifacts;
  TilusRuntime *rt;
};

// `text` as an integer in [lo, hi] (the whole token).
static bool parseInteger(const char *text, int64_t lo, int64_t hi, int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

static bool isActivation(const char *s) {
  return !strcmp(s, "float16") || !strcmp(s, "bfloat16") || !strcmp(s, "int8") ||
         !strcmp(s, "float8_e4m3");
}

// The index of artifact `name` (loaded from dir/name on first mention), or
// -1 with `err` filled.
static int artifactIndex(TilusQmatmulTable *t, const char *dir, const char *name,
                         int line, TilusRuntimeError *err) {
  for (int i = 0; i < t->numArtifacts; ++i)
    if (!strcmp(t->files[i], name))
      return i;
  size_t length = strlen(dir) + strlen(name) + 2;
  char *path = malloc(length);
  if (!path) {
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return -1;
  }
  snprintf(path, length, "%s/%s", dir, name);
  TilusArtifact *artifact = tilusArtifactLoadFile(path, err);
  if (artifact && tilusArtifactFindKernel(artifact, KERNEL_NAME) < 0) {
    tilusSetError(err, TilusStatusParseError,
                  TABLE_FILE " line %d: artifact '%s' has no kernel '" KERNEL_NAME "'",
                  line, path);
    tilusArtifactDestroy(artifact);
    artifact = NULL;
  } else if (!artifact) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, TABLE_FILE " line %d", line);
    tilusPrefixError(err, prefix);
  }
  free(path);
  if (!artifact)
    return -1;
  int n = t->numArtifacts + 1;
  char **files = realloc(t->files, sizeof(char *) * (size_t)n);
  if (files)
    t->files = files;
  TilusArtifact **artifacts = realloc(t->artifacts, sizeof(TilusArtifact *) * (size_t)n);
  if (artifacts)
    t->artifacts = artifacts;
  TilusLoadedKernel **kernels = realloc(t->kernels, sizeof(TilusLoadedKernel *) * (size_t)n);
  if (kernels)
    t->kernels = kernels;
  char *file = tilusCopyText(name, strlen(name));
  if (!files || !artifacts || !kernels || !file) {
    free(file);
    tilusArtifactDestroy(artifact);
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return -1;
  }
  t->files[t->numArtifacts] = file;
  t->artifacts[t->numArtifacts] = artifact;
  t->kernels[t->numArtifacts] = NULL;
  return t->numArtifacts++;
}

// Parses one entry line (its tokens); false with `err` filled.
static bool parseEntry(TilusQmatmulTable *t, const char *dir, char **tok, int line,
                       TilusRuntimeError *err) {
  static const char *const names[kFields] = {
      "wtype", "offset", "group", "activation", "zeros", "bias", "m_min",
      "m_max", "n", "k", "split_k", "block_rows", "block_cols", "artifact"};
  int64_t v[kFields] = {0};
  // Fields 1, 2 and 4 to 12 are integers: their ranges.
  static const int64_t lo[kFields] = {0, -255, 1, 0, 0, 0, 1, 0, 1, 1, -65536, 1, 1, 0};
  static const int64_t hi[kFields] = {0, 255, INT32_MAX, 0, 2, 1, INT32_MAX, INT32_MAX,
                                      INT32_MAX, INT32_MAX, 64, 4096, INT32_MAX, 0};
  for (int f = 1; f < kFields - 1; ++f) {
    if (f == 3)
      continue;
    if (!parseInteger(tok[f], lo[f], hi[f], &v[f])) {
      tilusSetError(err, TilusStatusParseError,
                    TABLE_FILE " line %d: %s '%s' is not an integer in [%lld, %lld]",
                    line, names[f], tok[f], (long long)lo[f], (long long)hi[f]);
      return false;
    }
  }
  if (!isActivation(tok[3])) {
    tilusSetError(err, TilusStatusParseError,
                  TABLE_FILE " line %d: activation '%s' is not float16, bfloat16, int8 or "
                             "float8_e4m3",
                  line, tok[3]);
    return false;
  }
  if (!v[10]) {
    tilusSetError(err, TilusStatusParseError,
                  TABLE_FILE " line %d: split_k is 0 (K splits from 1, or -P for stream-K "
                             "over P blocks)",
                  line);
    return false;
  }
  if (v[7] && v[7] < v[6]) {
    tilusSetError(err, TilusStatusParseError,
                  TABLE_FILE " line %d: m_max %lld is below m_min %lld", line,
                  (long long)v[7], (long long)v[6]);
    return false;
  }
  int artifact = artifactIndex(t, dir, tok[13], line, err);
  if (artifact < 0)
    return false;
  if (t->numEntries == t->capacity) {
    int capacity = t->capacity ? 2 * t->capacity : 16;
    Entry *grown = realloc(t->entries, sizeof(Entry) * (size_t)capacity);
    if (!grown) {
      tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
      return false;
    }
    t->entries = grown;
    t->capacity = capacity;
  }
  Entry e = {.wtype = tilusCopyText(tok[0], strlen(tok[0])),
             .activation = tilusCopyText(tok[3], strlen(tok[3])),
             .offset = (int)v[1], .group = (int)v[2], .zeros = (int)v[4], .bias = v[5],
             .mMin = v[6], .mMax = v[7], .n = v[8], .k = v[9],
             .splitK = v[10] > 0 ? (int)v[10] : 1, .streamK = v[10] < 0 ? (int)-v[10] : 0,
             .blockRows = v[11], .blockCols = v[12], .artifact = artifact};
  if (!e.wtype || !e.activation) {
    free(e.wtype), free(e.activation);
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return false;
  }
  t->entries[t->numEntries++] = e;
  return true;
}

// Parses the table's text (NUL-terminated, modified in place).
static bool parseTable(TilusQmatmulTable *t, const char *dir, char *text,
                       TilusRuntimeError *err) {
  int line = 0;
  bool header = false;
  for (char *next = text; next && *next;) {
    char *s = next;
    char *newline = strchr(s, '\n');
    next = newline ? newline + 1 : NULL;
    if (newline)
      *newline = '\0';
    ++line;
    char *tok[kFields + 1], *save = NULL;
    int count = 0;
    for (char *p = strtok_r(s, " \t\r", &save); p && count <= kFields;
         p = strtok_r(NULL, " \t\r", &save))
      tok[count++] = p;
    if (!count || tok[0][0] == '#')
      continue;
    if (!header) {
      if (count != 2 || strcmp(tok[0], "tilus-qmatmul-table") || strcmp(tok[1], "1")) {
        tilusSetError(err, TilusStatusParseError,
                      TABLE_FILE " line %d: expected the header '" TABLE_HEADER "'", line);
        return false;
      }
      header = true;
      continue;
    }
    if (count != kFields) {
      tilusSetError(err, TilusStatusParseError,
                    TABLE_FILE " line %d: %s fields, expected 14 (wtype offset group "
                    "activation zeros bias m_min m_max n k split_k block_rows block_cols "
                    "artifact)",
                    line, count > kFields ? "more than 14" : "fewer than 14");
      return false;
    }
    if (!parseEntry(t, dir, tok, line, err))
      return false;
  }
  if (!header)
    tilusSetError(err, TilusStatusParseError,
                  TABLE_FILE ": empty, expected the header '" TABLE_HEADER "'");
  return header;
}

TilusQmatmulTable *tilusQmatmulTableLoad(const char *dir, TilusRuntimeError *err) {
  if (!dir) {
    tilusSetError(err, TilusStatusInvalidArgument, "tilusQmatmulTableLoad: NULL dir");
    return NULL;
  }
  size_t length = strlen(dir) + sizeof(TABLE_FILE) + 1;
  char *path = malloc(length);
  if (!path) {
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return NULL;
  }
  snprintf(path, length, "%s/" TABLE_FILE, dir);
  size_t size = 0;
  char *text = tilusReadFile(path, &size, err);
  free(path);
  TilusQmatmulTable *t = text ? calloc(1, sizeof(TilusQmatmulTable)) : NULL;
  if (!t) {
    if (text)
      tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    free(text);
    return NULL;
  }
  if (memchr(text, '\0', size)) {
    tilusSetError(err, TilusStatusParseError, TABLE_FILE ": holds a NUL byte");
    free(text);
    tilusQmatmulTableDestroy(t);
    return NULL;
  }
  bool ok = parseTable(t, dir, text, err);
  free(text);
  if (!ok) {
    tilusQmatmulTableDestroy(t);
    return NULL;
  }
  return t;
}

void tilusQmatmulTableDestroy(TilusQmatmulTable *t) {
  if (!t)
    return;
  for (int i = 0; i < t->numEntries; ++i)
    free(t->entries[i].wtype), free(t->entries[i].activation);
  for (int i = 0; i < t->numArtifacts; ++i) {
    free(t->files[i]);
    tilusArtifactDestroy(t->artifacts[i]);
  }
  free(t->entries), free(t->files), free(t->artifacts), free(t->kernels);
  free(t);
}

int tilusQmatmulTableGetNumEntries(const TilusQmatmulTable *t) {
  return t ? t->numEntries : 0;
}

// The table's zeros field for a shape: 0 none, 1 values, 2 uint8 codes.
static int zerosKind(const TilusQmatmulShape *s) {
  return s->zeros ? (s->zeroCodes ? 2 : 1) : 0;
}

static bool sameKind(const Entry *e, const TilusQmatmulShape *s) {
  return !strcmp(e->wtype, s->wtype) && e->offset == s->offset &&
         e->group == s->groupSize && !strcmp(e->activation, s->activation) &&
         e->zeros == zerosKind(s) && e->bias == s->bias;
}

// The entry index for `shape` in *index, or the failure's status (with the
// reason in `err`).
static TilusStatus findEntry(const TilusQmatmulTable *t, const TilusQmatmulShape *s,
                             int *index, TilusRuntimeError *err) {
  if (!t || !s || !s->wtype || !s->activation)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusQmatmulFind: NULL table, shape, wtype or activation");
  if (s->zeroCodes && !s->zeros)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "quantized matmul: zeroCodes without zeros (zero codes are a kind "
                         "of zero points: set both)");
  if (s->m < 0 || s->n <= 0 || s->k <= 0 || s->m > INT32_MAX || s->n > INT32_MAX ||
      s->k > INT32_MAX) {
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "quantized matmul: M = %lld, N = %lld, K = %lld (M >= 0, N and K > 0, "
                         "each below 2^31)",
                         (long long)s->m, (long long)s->n, (long long)s->k);
  }
  int64_t m = s->m ? s->m : 1; // M = 0 launches nothing; its entry is M = 1's
  for (int i = 0; i < t->numEntries; ++i) {
    const Entry *e = &t->entries[i];
    if (sameKind(e, s) && e->n == s->n && e->k == s->k && m >= e->mMin &&
        (!e->mMax || m <= e->mMax)) {
      *index = i;
      return TilusStatusSuccess;
    }
  }
  // Say which N x K the table has for this kind of product (each once; an
  // item takes at most 21 characters, so `have` never overflows).
  char have[256] = "";
  size_t used = 0;
  for (int i = 0; i < t->numEntries; ++i) {
    const Entry *e = &t->entries[i];
    bool seen = !sameKind(e, s);
    for (int j = 0; j < i && !seen; ++j)
      seen = sameKind(&t->entries[j], s) && t->entries[j].n == e->n &&
             t->entries[j].k == e->k;
    if (seen)
      continue;
    if (used >= sizeof have - 32) {
      snprintf(have + used, sizeof have - used, ", ...");
      break;
    }
    used += (size_t)snprintf(have + used, sizeof have - used, "%s%lldx%lld",
                             used ? ", " : "", (long long)e->n, (long long)e->k);
  }
  return tilusSetError(err, TilusStatusUnsupported,
                "quantized matmul: the table has no kernel for %s (offset %d, group %d, "
                "%s activations, zeros %s, bias %d) at M = %lld, N = %lld, K = %lld; for "
                "those it has N x K: %s (python3 -m tilus.ops.export makes tables)",
                s->wtype, s->offset, s->groupSize, s->activation,
                (const char *const[]){"none", "values", "codes"}[zerosKind(s)], s->bias,
                (long long)s->m, (long long)s->n, (long long)s->k, used ? have : "none");
}

TilusStatus tilusQmatmulFind(const TilusQmatmulTable *t, const TilusQmatmulShape *s,
                             TilusQmatmulPlan *plan, TilusRuntimeError *err) {
  int i = -1;
  TilusStatus status = findEntry(t, s, &i, err);
  if (status != TilusStatusSuccess)
    return status;
  const Entry *e = &t->entries[i];
  uint64_t cells = (uint64_t)s->m * (uint64_t)s->n; // below 2^62
  uint64_t tiles = (uint64_t)((s->m + e->blockRows - 1) / e->blockRows) *
                   (uint64_t)(s->n / e->blockCols);
  // Partial slots: split-K's splits; stream-K's most blocks sharing a tile
  // (python-bindings/tilus/ops/qmatmul_wgmma.py, stream_k_plan: all but
  // a tile's first and last block cover at least units / blocks k tiles).
  uint64_t slots = e->splitK > 1 ? (uint64_t)e->splitK : 0, blocks = 0;
  uint64_t kt = (uint64_t)s->k / 128, units = tiles * kt;
  if (e->streamK && units) { // M = 0 launches nothing
    blocks = units < (uint64_t)e->streamK ? units : (uint64_t)e->streamK;
    slots = kt < 2 ? 1 : (kt - 2) / (units / blocks) + 2;
    if (slots > blocks)
      slots = blocks;
  }
  if (slots && cells > UINT64_MAX / (4 * slots))
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "quantized matmul: M = %lld, N = %lld: the partials need more "
                         "than 2^64 bytes",
                         (long long)s->m, (long long)s->n);
  if (plan)
    *plan = (TilusQmatmulPlan){.entry = i, .splitK = e->splitK, .blockRows = e->blockRows,
                               .blockCols = e->blockCols, .partialsBytes = 4 * slots * cells,
                               .countersBytes = slots ? 4 * tiles : 0,
                               .streamKBlocks = (int)blocks};
  return TilusStatusSuccess;
}

TilusStatus tilusQmatmulTablePrepare(TilusQmatmulTable *t, TilusRuntime *rt,
                                     TilusRuntimeError *err) {
  if (!t || !rt)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusQmatmulTablePrepare: NULL table or runtime");
  t->rt = NULL;
  for (int i = 0; i < t->numArtifacts; ++i) {
    TilusRuntimeError own;
    t->kernels[i] = tilusRuntimeGetKernel(rt, t->artifacts[i], KERNEL_NAME, &own);
    if (!t->kernels[i]) {
      char prefix[300];
      snprintf(prefix, sizeof prefix, "%s", t->files[i]);
      tilusPrefixError(&own, prefix);
      if (err)
        *err = own;
      return own.code;
    }
  }
  t->rt = rt;
  return TilusStatusSuccess;
}

// Whether buffer `name` is given exactly when the shape needs it.
static bool checkBuffer(TilusDevicePtr p, bool needed, const char *name, const char *why,
                        TilusRuntimeError *err) {
  if ((p != 0) == needed)
    return true;
  tilusSetError(err, TilusStatusInvalidArgument,
                needed ? "quantized matmul: buffer '%s' is 0, but %s"
                       : "quantized matmul: buffer '%s' is given, but %s",
                name, why);
  return false;
}

TilusStatus tilusQmatmulLaunch(TilusQmatmulTable *t, TilusRuntime *rt,
                               const TilusQmatmulShape *s, const TilusQmatmulBuffers *b,
                               void *stream, TilusRuntimeError *err) {
  TilusQmatmulPlan plan;
  TilusStatus status = tilusQmatmulFind(t, s, &plan, err);
  if (status != TilusStatusSuccess)
    return status;
  if (!b || !rt || t->rt != rt)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         !b || !rt ? "tilusQmatmulLaunch: NULL buffers or runtime"
                                   : "quantized matmul: the table is not prepared on this "
                                     "runtime (tilusQmatmulTablePrepare)");
  if (s->m == 0) // nothing to launch, no scratch needed
    return TilusStatusSuccess;
  // int8 and FP8 activations come with their row scales.
  bool scaled = !strcmp(s->activation, "int8") || !strcmp(s->activation, "float8_e4m3");
  bool split = plan.partialsBytes > 0; // split-K or stream-K
  // Why the scratch is needed: [stream-K][counters].
  static const char *const needs[2][2] = {
      {"its kernel splits K (TilusQmatmulPlan.partialsBytes)",
       "its kernel splits K (TilusQmatmulPlan.countersBytes)"},
      {"its kernel runs on a stream-K grid (TilusQmatmulPlan.partialsBytes)",
       "its kernel runs on a stream-K grid (TilusQmatmulPlan.countersBytes)"}};
  const char *const *why = needs[plan.streamKBlocks != 0];
  if (!checkBuffer(b->x, true, "x", "every product reads x", err) ||
      !checkBuffer(b->qweight, true, "qweight", "every product reads the weights", err) ||
      !checkBuffer(b->scales, true, "scales", "every product reads the scales", err) ||
      !checkBuffer(b->out, true, "out", "every product writes out", err) ||
      !checkBuffer(b->xScales, scaled, "xScales",
                   scaled ? "int8 and FP8 activations need their row scales"
                          : "only int8 and FP8 activations take row scales",
                   err) ||
      !checkBuffer(b->zeros, s->zeros, "zeros",
                   s->zeros ? "the shape has zero points" : "the shape has no zero points",
                   err) ||
      !checkBuffer(b->bias, s->bias, "bias",
                   s->bias ? "the shape has a bias" : "the shape has no bias", err) ||
      !checkBuffer(b->partials, split, "partials",
                   split ? why[0] : "its kernel does not split K", err) ||
      !checkBuffer(b->counters, split, "counters",
                   split ? why[1] : "its kernel does not split K", err))
    return TilusStatusInvalidArgument;
  // QuantizedMatmul.parameters(): a, [a_scales], w, scales, [zeros], [bias],
  // c, [partials, counters], m, n, k, [blocks (stream-K)].
  TilusArg args[15];
  int n = 0;
  args[n++] = tilusArgPointer(b->x);
  if (scaled)
    args[n++] = tilusArgPointer(b->xScales);
  args[n++] = tilusArgPointer(b->qweight);
  args[n++] = tilusArgPointer(b->scales);
  if (s->zeros)
    args[n++] = tilusArgPointer(b->zeros);
  if (s->bias)
    args[n++] = tilusArgPointer(b->bias);
  args[n++] = tilusArgPointer(b->out);
  if (split) {
    args[n++] = tilusArgPointer(b->partials);
    args[n++] = tilusArgPointer(b->counters);
  }
  args[n++] = tilusArgInteger(s->m);
  args[n++] = tilusArgInteger(s->n);
  args[n++] = tilusArgInteger(s->k);
  if (plan.streamKBlocks)
    args[n++] = tilusArgInteger(plan.streamKBlocks);
  TilusLoadedKernel *kernel = t->kernels[t->entries[plan.entry].artifact];
  return tilusRuntimeLaunchKernelWithWorkspace(rt, kernel, args, n, stream, 0, 0, err);
}
