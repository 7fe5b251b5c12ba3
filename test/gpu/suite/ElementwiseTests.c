//===- ElementwiseTests.c - Issue 11's elementwise instructions ----------===//
//
// The kernels test/gpu/kernels/elementwise_math.mlir, elementwise_int.mlir,
// broadcast.mlir and fills.mlir against CPU references. Inputs are hashes of
// the element index. Integer results, broadcasts and fills match bit for
// bit; the math functions use PTX's approximate instructions and are
// compared with the double-precision libm value within a tolerance
// |got - ref| <= abs + rel * |ref| (docs/dialect.md, "Accuracy"):
//   f32: abs 4e-6, rel 4e-6 (ex2/lg2/sqrt/rsqrt/sin/cos.approx are within a
//        few ulp on the inputs used, [0.125, 4)); tanh: rel 2^-10 (tanh.approx
//        has a relative error of about 2^-11); abs: exact
//   f16 (computed in f32, rounded once): abs 1e-3, rel 2e-3
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A well-mixed hash of the index (murmur3's finalizer): non-constant inputs.
static uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

//===----------------------------------------------------------------------===//
// Math functions
//===----------------------------------------------------------------------===//

enum { NumMath = 10 };

// The reference of output k (the kernel's order).
static double mathReference(int k, double x) {
  switch (k) {
  case 0:
    return exp(x);
  case 1:
    return exp2(x);
  case 2:
    return log(x);
  case 3:
    return log2(x);
  case 4:
    return sqrt(x);
  case 5:
    return 1.0 / sqrt(x);
  case 6:
    return tanh(x);
  case 7:
    return sin(x);
  case 8:
    return cos(x);
  default:
    return x; // abs(-x)
  }
}

static bool withinTolerance(int k, bool half, double got, double ref) {
  if (k == 9)
    return got == ref; // abs is exact
  double absTol = half ? 1e-3 : 4e-6;
  double relTol = half ? 2e-3 : (k == 6 ? 1.0 / 1024 : 4e-6);
  return fabs(got - ref) <= absTol + relTol * fabs(ref);
}

// math_f32 (half = false) or math_f16 on n elements.
static void runMath(Suite *s, const TilusArtifact *artifact, const char *target,
                    bool half, int64_t n) {
  const char *kernel = half ? "math_f16" : "math_f32";
  size_t elem = half ? 2 : 4;
  size_t inBytes = (size_t)n * elem, outBytes = inBytes * NumMath;
  void *in = malloc(inBytes), *out = malloc(outBytes);
  double *x = malloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t h = hash32((uint32_t)i + 17);
    if (half) {
      // Exponent field 12..16: [0.125, 4), any mantissa.
      uint16_t bits = (uint16_t)(((12 + h % 5) << 10) | ((h >> 8) & 0x3ff));
      ((uint16_t *)in)[i] = bits;
      x[i] = halfToFloat(bits);
    } else {
      float v = 0.125f + (float)(h % 30000) / 8000.0f;
      ((float *)in)[i] = v;
      x[i] = v;
    }
  }
  TilusDevicePtr dIn = upload(s, in, inBytes), dOut = upload(s, NULL, outBytes);
  TilusArg args[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                     tilusArgInteger(n)};
  bool ok = dIn && dOut && launch(s, artifact, kernel, args, 3);
  bool guard = ok && download(s, out, dOut, outBytes);
  ok = guard;
  int64_t bad = 0;
  for (int k = 0; k < NumMath && ok; ++k) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t at = k * n + i;
      double got =
          half ? halfToFloat(((uint16_t *)out)[at]) : ((float *)out)[at];
      double ref = mathReference(k, x[i]);
      if (!withinTolerance(k, half, got, ref)) {
        if (bad++ == 0)
          printf("  %s output %d element %lld: x = %.9g, got %.9g, "
                 "expected %.9g\n",
                 kernel, k, (long long)i, x[i], got, ref);
        ok = false;
      }
    }
  }
  reportOutcome(s, kernel, target, n, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dIn, &err);
  tilusRuntimeFree(s->rt, dOut, &err);
  free(in);
  free(out);
  free(x);
}

void testElementwiseMath(Suite *s, const char *target, int64_t n) {
  const char *name = "elementwise_math";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, "math_f32", target, n, 0, false, "no artifact");
    report(s, "math_f16", target, n, 0, false, "no artifact");
    return;
  }
  runMath(s, artifact, target, false, n);
  runMath(s, artifact, target, true, n);
  tilusArtifactDestroy(artifact);
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

enum { NumInt = 16 };

static int32_t shiftRightArithmetic(int32_t a, int s) {
  return a < 0 ? (int32_t) ~(~(uint32_t)a >> s) : (int32_t)((uint32_t)a >> s);
}

static void intReference(int32_t a, int32_t b, int32_t *r) {
  uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
  int sh = b & 31;
  r[0] = a > b ? a : b;
  r[1] = a < b ? a : b;
  r[2] = a & b;
  r[3] = a | b;
  r[4] = a ^ b;
  // shl and shr by b, read as unsigned: 32 or more shifts everything out.
  r[5] = ub >= 32 ? 0 : (int32_t)(ua << ub);
  r[6] = shiftRightArithmetic(a, ub >= 32 ? 31 : (int)ub);
  r[7] = (int32_t)(ua >> sh);
  r[8] = (int32_t)(ua > ub ? ua : ub);
  r[9] = ua < ub ? (int32_t)(ua - ub) : (b ^ 7);
  r[10] = a < -1000 ? -1000 : a > 1000 ? 1000 : a;
  r[11] = ~a;
  r[12] = a == INT32_MIN ? a : (a < 0 ? -a : a);
  r[13] = a <= b;
  r[14] = ua >= ub;
  r[15] = (a == b) + 7 * (a != b) - 31 * (a > b);
}

void testElementwiseInt(Suite *s, const char *target, int64_t n) {
  const char *name = "elementwise_int";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, n, 0, false, "no artifact");
    return;
  }
  size_t bytes = (size_t)n * 4;
  int32_t *a = malloc(bytes), *b = malloc(bytes);
  int32_t *out = malloc(bytes * NumInt), *ref = malloc(bytes * NumInt);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (int32_t)hash32((uint32_t)(2 * i));
    // Some equal pairs, some small values, the rest anything.
    uint32_t h = hash32((uint32_t)(2 * i + 1));
    b[i] = i % 7 == 0   ? a[i]
           : i % 5 == 0 ? (int32_t)(h % 64) - 32
           : i % 3 == 0 ? (int32_t)(h % 40) // shift amounts around 32
                        : (int32_t)h;
    if (i % 11 == 0)
      a[i] = (int32_t)(h % 4001) - 2000; // inside and around the clamp
    if (i == 3)
      a[i] = INT32_MIN;
    int32_t r[NumInt];
    intReference(a[i], b[i], r);
    for (int k = 0; k < NumInt; ++k)
      ref[k * n + i] = r[k];
  }
  TilusDevicePtr dA = upload(s, a, bytes), dB = upload(s, b, bytes),
                 dOut = upload(s, NULL, bytes * NumInt);
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB),
                     tilusArgPointer(dOut), tilusArgInteger(n)};
  bool ok = dA && dB && dOut && launch(s, artifact, name, args, 4);
  bool guard = ok && download(s, out, dOut, bytes * NumInt);
  ok = guard && !memcmp(out, ref, bytes * NumInt);
  for (int64_t at = 0; guard && !ok && at < n * NumInt; ++at)
    if (out[at] != ref[at]) {
      printf("  output %lld element %lld: got %d, expected %d\n",
             (long long)(at / n), (long long)(at % n), out[at], ref[at]);
      break;
    }
  reportOutcome(s, name, target, n, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dOut, &err);
  free(a), free(b), free(out), free(ref);
  tilusArtifactDestroy(artifact);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

// The f16 bits of a float that f16 holds exactly (the small integers here),
// -0 included.
static uint16_t halfBitsExact(float v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  v = fabsf(v);
  if (v == 0)
    return sign;
  int e;
  float f = frexpf(v, &e); // v = f * 2^e, f in [0.5, 1)
  uint16_t mant = (uint16_t)((f * 2 - 1) * 1024);
  return (uint16_t)(sign | ((e - 1 + 15) << 10) | mant);
}

// broadcast_f32, or broadcast_f16 (`half`) on the same values.
void testBroadcast(Suite *s, const char *target, int64_t m, bool half) {
  const char *name = half ? "broadcast_f16" : "broadcast_f32";
  TilusArtifact *artifact = loadArtifact(s, "broadcast", target);
  if (!artifact) {
    report(s, name, target, m, 0, false, "no artifact");
    return;
  }
  // Small integers: every result is exact in both types.
  size_t elem = half ? 2 : 4;
  int64_t count = m * 32;
  float *a = malloc(sizeof(float) * (size_t)count);
  float *r = malloc(sizeof(float) * (size_t)m), c[32];
  float *ref[4];
  for (int k = 0; k < 4; ++k)
    ref[k] = malloc(sizeof(float) * (size_t)count);
  for (int64_t i = 0; i < count; ++i)
    a[i] = (float)((int)(hash32((uint32_t)i) % 101) - 50);
  for (int64_t i = 0; i < m; ++i)
    r[i] = (float)((int)(hash32((uint32_t)i + 100000) % 61) - 30);
  for (int j = 0; j < 32; ++j)
    c[j] = (float)((int)(hash32((uint32_t)j + 200000) % 9) - 4);
  for (int64_t i = 0; i < m; ++i) {
    for (int j = 0; j < 32; ++j) {
      int64_t at = i * 32 + j;
      float x = a[at], lo = fminf(r[i], c[j]), hi = fmaxf(r[i], c[j]);
      ref[0][at] = x > r[i] ? x - r[i] : x * c[j];
      ref[1][at] = r[i] + c[j];
      ref[2][at] = fminf(fmaxf(x, lo), hi);
      ref[3][at] = fmaxf(x, r[i]) * 2.0f;
    }
  }
  // The device's inputs and expected outputs in the kernel's type.
  size_t bytes = (size_t)count * elem;
  void *da = malloc(bytes), *dr = malloc((size_t)m * elem),
       *dc = malloc(32 * elem);
  void *expect[4], *out[4];
  float *sources[3] = {a, r, c};
  void *targets[3] = {da, dr, dc};
  int64_t sizes[3] = {count, m, 32};
  for (int k = 0; k < 7; ++k) {
    bool isOutput = k >= 3;
    if (isOutput) {
      expect[k - 3] = malloc(bytes);
      out[k - 3] = malloc(bytes);
    }
    const float *from = isOutput ? ref[k - 3] : sources[k];
    void *to = isOutput ? expect[k - 3] : targets[k];
    for (int64_t i = 0; i < (isOutput ? count : sizes[k]); ++i) {
      if (half)
        ((uint16_t *)to)[i] = halfBitsExact(from[i]);
      else
        ((float *)to)[i] = from[i];
    }
  }
  TilusDevicePtr dA = upload(s, da, bytes),
                 dR = upload(s, dr, (size_t)m * elem),
                 dC = upload(s, dc, 32 * elem), dOut[4];
  for (int k = 0; k < 4; ++k)
    dOut[k] = upload(s, NULL, bytes);
  TilusArg args[] = {tilusArgPointer(dA),      tilusArgPointer(dR),
                     tilusArgPointer(dC),      tilusArgPointer(dOut[0]),
                     tilusArgPointer(dOut[1]), tilusArgPointer(dOut[2]),
                     tilusArgPointer(dOut[3]), tilusArgInteger(m)};
  bool ok = dA && dR && dC && dOut[0] && dOut[1] && dOut[2] && dOut[3] &&
            launch(s, artifact, name, args, 8);
  bool guard = ok;
  for (int k = 0; k < 4 && guard; ++k)
    guard = download(s, out[k], dOut[k], bytes);
  ok = guard;
  for (int k = 0; k < 4 && ok; ++k)
    ok = !memcmp(out[k], expect[k], bytes);
  reportOutcome(s, name, target, m, 32, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dR, &err);
  tilusRuntimeFree(s->rt, dC, &err);
  for (int k = 0; k < 4; ++k) {
    tilusRuntimeFree(s->rt, dOut[k], &err);
    free(out[k]);
    free(expect[k]);
    free(ref[k]);
  }
  free(a), free(r), free(da), free(dr), free(dc);
  tilusArtifactDestroy(artifact);
}

//===----------------------------------------------------------------------===//
// Constants and fills
//===----------------------------------------------------------------------===//

void testFills(Suite *s, const char *target, int64_t n) {
  const char *name = "fills";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, n, 0, false, "no artifact");
    return;
  }
  // The constants of the kernel, as the CPU reads them.
  static const int32_t ints[6] = {13, -7, 200, -100, -1, 65535};
  static const float floats[5] = {1.375f, 0.3125f, 6.0f, 2.5f, -3.140625f};
  size_t bytes = (size_t)n * 4, qBytes = ((size_t)n + 1) / 2 + 4;
  int32_t *a = malloc(bytes), *io = malloc(bytes * 7),
          *iref = malloc(bytes * 7);
  float *x = malloc(bytes), *fo = malloc(bytes * 6), *fref = malloc(bytes * 6);
  uint8_t *b = malloc((size_t)n), *bo = malloc((size_t)n),
          *bref = malloc((size_t)n);
  uint8_t *q = calloc(qBytes, 1); // compact ui4, two per byte
  for (int64_t i = 0; i < n; ++i) {
    uint32_t h = hash32((uint32_t)i * 3 + 1);
    a[i] = (int32_t)(h % 200001) - 100000;
    x[i] = (float)((int)(h % 2001) - 1000);
    b[i] = (uint8_t)(h >> 24);
    packBits(q, i, 4, (h >> 20) & 15);
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < 6; ++k)
      iref[k * n + i] = a[i] + ints[k];
    iref[6 * n + i] = i + 64 < n ? (int32_t)unpackBits(q, i + 64, 4) : 9;
    for (int k = 0; k < 5; ++k)
      fref[k * n + i] = x[i] + floats[k];
    fref[5 * n + i] = i + 64 < n ? x[i + 64] : -1.5f;
    bref[i] = i + 64 < n ? b[i + 64] : 255;
  }
  TilusDevicePtr dA = upload(s, a, bytes), dX = upload(s, x, bytes),
                 dB = upload(s, b, (size_t)n), dQ = upload(s, q, qBytes),
                 dIo = upload(s, NULL, bytes * 7),
                 dFo = upload(s, NULL, bytes * 6),
                 dBo = upload(s, NULL, (size_t)n);
  TilusArg args[] = {tilusArgPointer(dA),  tilusArgPointer(dX),
                     tilusArgPointer(dB),  tilusArgPointer(dQ),
                     tilusArgPointer(dIo), tilusArgPointer(dFo),
                     tilusArgPointer(dBo), tilusArgInteger(n)};
  bool ok = dA && dX && dB && dQ && dIo && dFo && dBo &&
            launch(s, artifact, name, args, 8);
  bool guard = ok && download(s, io, dIo, bytes * 7) &&
               download(s, fo, dFo, bytes * 6) &&
               download(s, bo, dBo, (size_t)n);
  ok = guard && !memcmp(io, iref, bytes * 7) && !memcmp(fo, fref, bytes * 6) &&
       !memcmp(bo, bref, (size_t)n);
  reportOutcome(s, name, target, n, 0, ok, guard);
  TilusRuntimeError err;
  TilusDevicePtr all[] = {dA, dX, dB, dQ, dIo, dFo, dBo};
  for (int k = 0; k < 7; ++k)
    tilusRuntimeFree(s->rt, all[k], &err);
  free(a), free(io), free(iref), free(x), free(fo), free(fref);
  free(b), free(bo), free(bref), free(q);
  tilusArtifactDestroy(artifact);
}

// kernels/broadcast_moved.mlir: operands whose threads do not hold what the
// broadcast needs, converted by tilus-convert-broadcasts (a shuffle for the
// rows, shared memory for the columns): out = a * r[i] + c[j] on [8, 32],
// small integers so every result is exact.
void testBroadcastMoved(Suite *s, const char *target) {
  const char *name = "broadcast_moved";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, 8, 32, false, "no artifact");
    return;
  }
  float a[256], r[8], c[32], want[256], got[256];
  for (int i = 0; i < 256; ++i)
    a[i] = (float)((int)(hash32((uint32_t)i + 300000) % 41) - 20);
  for (int i = 0; i < 8; ++i)
    r[i] = (float)((int)(hash32((uint32_t)i + 400000) % 17) - 8);
  for (int j = 0; j < 32; ++j)
    c[j] = (float)((int)(hash32((uint32_t)j + 500000) % 13) - 6);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 32; ++j)
      want[i * 32 + j] = a[i * 32 + j] * r[i] + c[j];
  TilusDevicePtr dA = upload(s, a, sizeof(a)), dR = upload(s, r, sizeof(r)),
                 dC = upload(s, c, sizeof(c)), dOut = upload(s, NULL, sizeof(got));
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dR),
                     tilusArgPointer(dC), tilusArgPointer(dOut)};
  bool guard = dA && dR && dC && dOut && launch(s, artifact, name, args, 4) &&
               download(s, got, dOut, sizeof(got));
  bool ok = guard;
  for (int k = 0; k < 256 && ok; ++k)
    ok = sameFloat(got[k], want[k]);
  reportOutcome(s, name, target, 8, 32, ok, guard);
  tilusArtifactDestroy(artifact);
}
