//===- NormTests.c - The serving examples: norms, softmax, SiLU-and-mul ---===//
//
// examples/rmsnorm.mlir, softmax.mlir, layernorm.mlir and silu_mul.mlir on
// f16 rows of 4096 (silu_mul: input rows of 2 x 4096), for a ragged number
// of rows, against a CPU reference computed in double from the same f16
// inputs. The kernels compute in f32 with PTX's approximate rsqrt and exp,
// then round to f16, so each output must lie within 2^-9 of the reference
// relative (two f16 units in the last place) plus a small absolute slack for
// values near zero (1e-4; 1e-7 for softmax, whose outputs are near 1/4096).
// Inputs are random f16 values: x in [-2, 2), w in [0.5, 1.5), b in
// [-0.5, 0.5), silu_mul's x and g in [-6, 6).
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { C = 4096 };

typedef enum { RMSNorm, Softmax, LayerNorm, SiluMul } NormKind;

static const char *const kNames[] = {"rmsnorm", "softmax", "layernorm",
                                     "silu_mul"};

// Random f16 values in [lo, lo + width), as bits.
static void fillHalf(uint16_t *out, int64_t n, double lo, double width,
                     uint32_t *state) {
  for (int64_t k = 0; k < n; ++k)
    out[k] = tilusF16FromDouble(lo + width * (nextRandom(state) % 65536) /
                                         65536.0);
}

// The reference of one row: `x` (the row's C or 2C inputs) -> `y` (C).
static void referenceRow(NormKind kind, const uint16_t *x, const uint16_t *w,
                         const uint16_t *b, double eps, double *y) {
  double v[C];
  for (int j = 0; j < C; ++j)
    v[j] = halfToFloat(x[j]);
  if (kind == SiluMul) {
    for (int j = 0; j < C; ++j)
      y[j] = v[j] / (1.0 + exp(-v[j])) * halfToFloat(x[C + j]);
    return;
  }
  if (kind == Softmax) {
    double m = v[0], sum = 0;
    for (int j = 1; j < C; ++j)
      m = v[j] > m ? v[j] : m;
    for (int j = 0; j < C; ++j)
      sum += exp(v[j] - m);
    for (int j = 0; j < C; ++j)
      y[j] = exp(v[j] - m) / sum;
    return;
  }
  double mean = 0, sq = 0;
  if (kind == LayerNorm) {
    for (int j = 0; j < C; ++j)
      mean += v[j];
    mean /= C;
  }
  for (int j = 0; j < C; ++j)
    sq += (v[j] - mean) * (v[j] - mean);
  double r = 1.0 / sqrt(sq / C + eps);
  for (int j = 0; j < C; ++j) {
    y[j] = (v[j] - mean) * r * halfToFloat(w[j]);
    if (kind == LayerNorm)
      y[j] += halfToFloat(b[j]);
  }
}

static void testNorm(Suite *s, const char *target, NormKind kind,
                     int64_t rows) {
  const char *name = kNames[kind];
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, rows, C, false, "no artifact");
    return;
  }
  int64_t inCols = kind == SiluMul ? 2 * C : C;
  size_t inBytes = 2 * (size_t)(rows * inCols), outBytes = 2 * (size_t)(rows * C);
  uint16_t *x = malloc(inBytes), *y = malloc(outBytes);
  uint16_t w[C], b[C];
  if (!x || !y) {
    report(s, name, target, rows, C, false, "out of host memory");
    free(x);
    free(y);
    tilusArtifactDestroy(artifact);
    return;
  }
  uint32_t state = (uint32_t)(rows * 977 + kind);
  if (kind == SiluMul)
    fillHalf(x, rows * inCols, -6, 12, &state);
  else
    fillHalf(x, rows * inCols, -2, 4, &state);
  fillHalf(w, C, 0.5, 1, &state);
  fillHalf(b, C, -0.5, 1, &state);
  const double eps = 1e-5;
  TilusDevicePtr dX = upload(s, x, inBytes), dY = upload(s, NULL, outBytes),
                 dW = upload(s, w, sizeof(w)), dB = upload(s, b, sizeof(b));
  TilusArg args[6];
  int numArgs = 0;
  args[numArgs++] = tilusArgPointer(dX);
  if (kind == RMSNorm || kind == LayerNorm)
    args[numArgs++] = tilusArgPointer(dW);
  if (kind == LayerNorm)
    args[numArgs++] = tilusArgPointer(dB);
  args[numArgs++] = tilusArgPointer(dY);
  args[numArgs++] = tilusArgInteger(rows);
  if (kind == RMSNorm || kind == LayerNorm)
    args[numArgs++] = tilusArgFloat(eps);
  bool guard = dX && dY && dW && dB &&
               launch(s, artifact, name, args, numArgs) &&
               download(s, y, dY, outBytes);
  bool ok = guard;
  double relTol = 1.0 / 512, absTol = kind == Softmax ? 1e-7 : 1e-4;
  double want[C];
  for (int64_t i = 0; i < rows && ok; ++i) {
    referenceRow(kind, x + i * inCols, w, b, eps, want);
    for (int j = 0; j < C && ok; ++j) {
      double got = halfToFloat(y[i * C + j]);
      if (!(fabs(got - want[j]) <= relTol * fabs(want[j]) + absTol)) {
        fprintf(stderr, "%s [%s]: row %lld column %d: %.8g, expected %.8g\n",
                name, target, (long long)i, j, got, want[j]);
        ok = false;
      }
    }
  }
  reportOutcome(s, name, target, rows, C, ok, guard);
  free(x);
  free(y);
  tilusArtifactDestroy(artifact);
}

void testNorms(Suite *s, const char *target) {
  for (int kind = RMSNorm; kind <= SiluMul; ++kind) {
    testNorm(s, target, (NormKind)kind, 1);
    testNorm(s, target, (NormKind)kind, 37);
  }
}
