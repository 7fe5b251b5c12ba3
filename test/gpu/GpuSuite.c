//===- GpuSuite.c - Compiled Tilus kernels against CPU references --------===//
//
// Runs the kernels of test/gpu/kernels, compiled by tilus-opt into artifacts
// for sm_80 (JIT-compiled by the driver on newer GPUs) and sm_90a, through the
// runtime, and compares every output with a CPU reference bit for bit. The
// inputs are chosen so that every floating-point result is exact, so no
// tolerance is needed. Each output buffer is followed by guard elements that
// must stay untouched (masked edges).
//
//   tilus-gpu-suite ARTIFACT_DIR
//
// prints one line per test and ends with "gpu tests: N passed, M failed,
// K skipped". Without a driver or a GPU every test is skipped (exit 77).
//
//===----------------------------------------------------------------------===//

#include "tilus-c/FloatFormat.h"
#include "tilus-c/Layout.h"
#include "tilus-c/Runtime.h"
#include "tilus-c/WeightPack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 1024
#define SENTINEL 0xA5

static int numPassed, numFailed, numSkipped;
static const char *const kTargets[] = {"sm_80", "sm_90a"};

typedef struct {
  TilusRuntime *rt;
  const char *dir;
} Suite;

static void report(const char *name, const char *target, int64_t a, int64_t b,
                   bool ok, const char *why) {
  printf("%s: %s [%s] (%lld, %lld)%s%s\n", ok ? "PASS" : "FAIL", name, target,
         (long long)a, (long long)b, why ? ": " : "", why ? why : "");
  if (ok)
    numPassed++;
  else
    numFailed++;
}

// Reports a test from whether its outputs matched (`ok`) and whether the
// launch and the guard check succeeded (`guard`).
static void reportOutcome(const char *name, const char *target, int64_t a,
                          int64_t b, bool ok, bool guard) {
  report(name, target, a, b, ok,
         ok ? NULL : guard ? "output differs" : "guard written or launch failed");
}

// The artifact <dir>/<stem>.<target>.tilus.
static TilusArtifact *loadArtifact(const Suite *s, const char *stem,
                                   const char *target) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s.%s.tilus", s->dir, stem, target);
  TilusRuntimeError err;
  TilusArtifact *artifact = tilusArtifactLoadFile(path, &err);
  if (!artifact)
    fprintf(stderr, "%s\n", err.message);
  return artifact;
}

// Device buffer of `bytes` plus a guard, filled with `host` (or sentinel).
static TilusDevicePtr upload(Suite *s, const void *host, size_t bytes) {
  TilusDevicePtr ptr = 0;
  TilusRuntimeError err;
  if (tilusRuntimeMalloc(s->rt, bytes + GUARD, &ptr, &err) ||
      tilusRuntimeMemset(s->rt, ptr, SENTINEL, bytes + GUARD, &err) ||
      (host && tilusRuntimeCopyToDevice(s->rt, ptr, host, bytes, &err))) {
    fprintf(stderr, "%s\n", err.message);
    return 0;
  }
  return ptr;
}

// Copies a buffer back and checks its guard; false if the guard was written.
static bool download(Suite *s, void *host, TilusDevicePtr ptr, size_t bytes) {
  unsigned char *all = malloc(bytes + GUARD);
  TilusRuntimeError err;
  bool ok = all && !tilusRuntimeCopyToHost(s->rt, all, ptr, bytes + GUARD, &err);
  for (size_t k = 0; ok && k < GUARD; ++k)
    ok = all[bytes + k] == SENTINEL;
  if (all)
    memcpy(host, all, bytes);
  free(all);
  return ok;
}

static bool launch(Suite *s, const TilusArtifact *artifact, const char *kernel,
                   const TilusArg *args, int numArgs) {
  TilusRuntimeError err;
  if (tilusRuntimeLaunch(s->rt, artifact, kernel, args, numArgs, NULL, &err) ||
      tilusRuntimeSynchronize(s->rt, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return false;
  }
  return true;
}

static uint32_t nextRandom(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

//===----------------------------------------------------------------------===//
// f16 on the CPU (the values used are exact in f16, so conversions from
// float need no rounding)
//===----------------------------------------------------------------------===//

static float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 31,
           mantissa = h & 1023, bits;
  if (exponent == 0 && mantissa == 0) {
    bits = sign;
  } else if (exponent == 0) { // subnormal
    int shift = 0;
    while (!(mantissa & 1024)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (uint32_t)(113 - shift) << 23 | (mantissa & 1023) << 13;
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 112) << 23 | mantissa << 13;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

// Element g of a compact stream of `bits`-bit values: bits [g*bits, ...).
static uint32_t unpackBits(const uint8_t *bytes, int64_t g, int bits) {
  uint32_t value = 0;
  for (int k = 0; k < bits; ++k) {
    int64_t bit = g * bits + k;
    value |= (uint32_t)((bytes[bit / 8] >> (bit % 8)) & 1) << k;
  }
  return value;
}

static void packBits(uint8_t *bytes, int64_t g, int bits, uint32_t value) {
  for (int k = 0; k < bits; ++k) {
    int64_t bit = g * bits + k;
    bytes[bit / 8] = (uint8_t)((bytes[bit / 8] & ~(1u << (bit % 8))) |
                               ((value >> k) & 1) << (bit % 8));
  }
}

//===----------------------------------------------------------------------===//
// The tests
//===----------------------------------------------------------------------===//

static void testCopy(Suite *s, const char *target, int64_t n) {
  const char *name = "copy_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, n, 0, false, "no artifact");
    return;
  }
  size_t bytes = (size_t)n * 4;
  uint32_t *src = malloc(bytes), *dst = malloc(bytes);
  uint32_t state = (uint32_t)n;
  for (int64_t i = 0; i < n; ++i)
    src[i] = nextRandom(&state) * 2654435761u; // any bits, NaNs included
  TilusDevicePtr dSrc = upload(s, src, bytes), dDst = upload(s, NULL, bytes);
  TilusArg args[] = {tilusArgPointer(dSrc), tilusArgPointer(dDst),
                     tilusArgInteger(n)};
  bool ok = dSrc && dDst && launch(s, artifact, name, args, 3);
  bool guard = ok && download(s, dst, dDst, bytes);
  ok = guard && !memcmp(src, dst, bytes);
  reportOutcome(name, target, n, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  free(src);
  free(dst);
  tilusArtifactDestroy(artifact);
}

static void testElementwise(Suite *s, const char *target, int64_t m,
                            int64_t n) {
  const char *name = "elementwise_f16";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, m, n, false, "no artifact");
    return;
  }
  size_t count = (size_t)(m * n);
  uint16_t *a = malloc(count * 2), *b = malloc(count * 2),
           *y = malloc(count * 2), *yRef = malloc(count * 2);
  float *z = malloc(count * 4), *zRef = malloc(count * 4);
  uint32_t state = 7;
  const double scale = 0.5;
  for (size_t k = 0; k < count; ++k) {
    // Integers in [-32, 32]: sums, halves and differences are exact in f16.
    int ia = (int)(nextRandom(&state) % 65) - 32;
    int ib = (int)(nextRandom(&state) % 65) - 32;
    a[k] = tilusF16FromDouble(ia);
    b[k] = tilusF16FromDouble(ib);
    double yv = (ia + ib) * scale;
    yRef[k] = tilusF16FromDouble(yv);
    zRef[k] = (float)(yv - ia);
  }
  TilusDevicePtr dA = upload(s, a, count * 2), dB = upload(s, b, count * 2),
                 dY = upload(s, NULL, count * 2), dZ = upload(s, NULL, count * 4);
  TilusArg args[] = {tilusArgPointer(dA),   tilusArgPointer(dB),
                     tilusArgPointer(dY),   tilusArgPointer(dZ),
                     tilusArgF16Bits(tilusF16FromDouble(scale)),
                     tilusArgInteger(m),    tilusArgInteger(n)};
  bool ok = dA && dB && dY && dZ && launch(s, artifact, name, args, 7);
  bool guard = ok && download(s, y, dY, count * 2) &&
               download(s, z, dZ, count * 4);
  ok = guard && !memcmp(y, yRef, count * 2) && !memcmp(z, zRef, count * 4);
  if (guard && !ok)
    for (size_t k = 0; k < count; ++k)
      if (y[k] != yRef[k] || z[k] != zRef[k]) {
        fprintf(stderr, "  first difference at %zu: y %g (want %g), z %g (want %g)\n",
                k, halfToFloat(y[k]), halfToFloat(yRef[k]), z[k], zRef[k]);
        break;
      }
  reportOutcome(name, target, m, n, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dY, &err);
  tilusRuntimeFree(s->rt, dZ, &err);
  free(a), free(b), free(y), free(yRef), free(z), free(zRef);
  tilusArtifactDestroy(artifact);
}

static void testIntegers(Suite *s, const char *target, int64_t n) {
  const char *name = "integer_ops";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, n, 0, false, "no artifact");
    return;
  }
  size_t bytes = (size_t)n * 4;
  int32_t *a = malloc(bytes), *d = malloc(bytes), *ref[4], *out[4];
  for (int k = 0; k < 4; ++k) {
    ref[k] = malloc(bytes);
    out[k] = malloc(bytes);
  }
  uint32_t state = 99;
  for (int64_t i = 0; i < n; ++i) {
    a[i] = (int32_t)(nextRandom(&state) % 2000001) - 1000000;
    int32_t v = (int32_t)(nextRandom(&state) % 201) - 100;
    d[i] = v ? v : 7;
    ref[0][i] = a[i] / d[i];
    ref[1][i] = a[i] % d[i];
    ref[2][i] = -a[i];
    ref[3][i] = (int32_t)((uint16_t)a[i] / 3);
  }
  TilusDevicePtr dA = upload(s, a, bytes), dD = upload(s, d, bytes), dOut[4];
  for (int k = 0; k < 4; ++k)
    dOut[k] = upload(s, NULL, bytes);
  TilusArg args[] = {tilusArgPointer(dA),      tilusArgPointer(dD),
                     tilusArgPointer(dOut[0]), tilusArgPointer(dOut[1]),
                     tilusArgPointer(dOut[2]), tilusArgPointer(dOut[3]),
                     tilusArgInteger(n)};
  bool ok = dA && dD && dOut[0] && dOut[1] && dOut[2] && dOut[3] &&
            launch(s, artifact, name, args, 7);
  bool guard = ok;
  for (int k = 0; k < 4 && guard; ++k)
    guard = download(s, out[k], dOut[k], bytes);
  ok = guard;
  for (int k = 0; k < 4 && ok; ++k)
    ok = !memcmp(out[k], ref[k], bytes);
  reportOutcome(name, target, n, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dD, &err);
  for (int k = 0; k < 4; ++k) {
    tilusRuntimeFree(s->rt, dOut[k], &err);
    free(ref[k]);
    free(out[k]);
  }
  free(a), free(d);
  tilusArtifactDestroy(artifact);
}

static void testLoops(Suite *s, const char *target, int64_t rows, int64_t k) {
  const char *name = "loops_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, rows, k, false, "no artifact");
    return;
  }
  size_t inBytes = (size_t)rows * 256 * 4, outBytes = 256 * 4;
  float *src = malloc(inBytes + 4), out[256], ref[256];
  uint32_t state = 5;
  for (int64_t i = 0; i < rows * 256; ++i)
    src[i] = (float)((int)(nextRandom(&state) % 201) - 100); // exact sums
  for (int j = 0; j < 256; ++j) {
    float acc = 0;
    for (int64_t i = 0; i < rows; ++i)
      acc += src[i * 256 + j];
    for (int64_t w = 0; w < k; ++w)
      acc *= 2;
    ref[j] = rows > 3 ? -acc : acc;
  }
  TilusDevicePtr dSrc = upload(s, src, inBytes), dDst = upload(s, NULL, outBytes);
  TilusArg args[] = {tilusArgPointer(dSrc), tilusArgPointer(dDst),
                     tilusArgInteger(rows), tilusArgInteger(k)};
  bool ok = dSrc && dDst && launch(s, artifact, name, args, 4);
  bool guard = ok && download(s, out, dDst, outBytes);
  ok = guard && !memcmp(out, ref, outBytes);
  reportOutcome(name, target, rows, k, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  free(src);
  tilusArtifactDestroy(artifact);
}

static void testWorkspace(Suite *s, const char *target) {
  const char *name = "workspace_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, 2048, 0, false, "no artifact");
    return;
  }
  float src[2048], dst[2048], ref[2048];
  uint32_t state = 11;
  for (int i = 0; i < 2048; ++i) {
    src[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    ref[i] = src[i] + 1;
  }
  TilusDevicePtr dSrc = upload(s, src, sizeof(src)),
                 dDst = upload(s, NULL, sizeof(dst));
  TilusArg args[] = {tilusArgPointer(dSrc), tilusArgPointer(dDst)};
  // Twice: the runtime reuses the workspace of the first launch.
  bool ok = dSrc && dDst && launch(s, artifact, name, args, 2) &&
            launch(s, artifact, name, args, 2);
  bool guard = ok && download(s, dst, dDst, sizeof(dst));
  ok = guard && !memcmp(dst, ref, sizeof(ref)) &&
       tilusRuntimeGetWorkspaceBytes(s->rt) >= 8192;
  reportOutcome(name, target, 2048, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  tilusArtifactDestroy(artifact);
}

// The paper's Figure 2 (examples/matmul_f16_i6.mlir): C = A x B with A f16
// [M, K] and B int6 [K, N], B pre-transformed on the host by tilusWeightPack
// for the register layout local(2,1).column_spatial(4,8).local(2,1). Small integer inputs keep every sum exact in f32; the f16 result is
// the sum rounded to nearest even, as the kernel's f32 -> f16 cast does.
static void testMatmul(Suite *s, const char *target, int64_t M, int64_t N,
                       int64_t K) {
  const char *name = "matmul";
  TilusRuntimeError err;
  TilusArtifact *artifact = loadArtifact(s, "matmul_f16_i6", target);
  if (!artifact) {
    report(name, target, M, N, false, "no artifact");
    return;
  }
  const char *layoutText = "local(2,1).column_spatial(4,8).local(2,1)";
  TilusLayout *layoutB = tilusLayoutParse(layoutText, strlen(layoutText), NULL);
  size_t aCount = (size_t)(M * K), bCount = (size_t)(K * N), cCount = (size_t)(M * N);
  uint16_t *a = malloc(aCount * 2), *c = malloc(cCount * 2), *cRef = malloc(cCount * 2);
  int *aInt = malloc(aCount * sizeof(int)), *bInt = malloc(bCount * sizeof(int));
  uint8_t *packed = malloc(bCount * 6 / 8);
  uint32_t state = 3;
  for (size_t k = 0; k < aCount; ++k) {
    aInt[k] = (int)(nextRandom(&state) % 9) - 4;
    a[k] = tilusF16FromDouble(aInt[k]);
  }
  for (size_t k = 0; k < bCount; ++k)
    bInt[k] = (int)(nextRandom(&state) % 64) - 32;
  // The int6 matrix, compact, then the library's pre-transform.
  uint8_t *compact = calloc(bCount * 6 / 8, 1);
  for (size_t k = 0; k < bCount; ++k)
    packBits(compact, (int64_t)k, 6, (uint32_t)bInt[k] & 63);
  TilusWeightPacking packing = {K, N, 16, 8, 6, layoutB};
  TilusLayoutError packError;
  if (!tilusWeightPack(&packing, compact, packed, &packError))
    fprintf(stderr, "  packing: %s\n", packError.message);
  free(compact);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      long sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += (long)aInt[i * K + k] * bInt[k * N + j];
      cRef[i * N + j] = tilusF16FromDouble((double)sum);
    }
  TilusDevicePtr dA = upload(s, a, aCount * 2),
                 dB = upload(s, packed, bCount * 6 / 8),
                 dC = upload(s, NULL, cCount * 2);
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB),
                     tilusArgPointer(dC), tilusArgInteger(M),
                     tilusArgInteger(N),  tilusArgInteger(K)};
  bool ok = dA && dB && dC && launch(s, artifact, name, args, 6);
  bool guard = ok && download(s, c, dC, cCount * 2);
  ok = guard && !memcmp(c, cRef, cCount * 2);
  if (guard && !ok)
    for (size_t k = 0; k < cCount; ++k)
      if (c[k] != cRef[k]) {
        fprintf(stderr, "  first difference at [%zu, %zu]: %g (want %g)\n",
                k / (size_t)N, k % (size_t)N, halfToFloat(c[k]),
                halfToFloat(cRef[k]));
        break;
      }
  reportOutcome(name, target, M, N, ok, guard);
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dC, &err);
  free(a), free(c), free(cRef), free(aInt), free(bInt), free(packed);
  tilusLayoutDestroy(layoutB);
  tilusArtifactDestroy(artifact);
}

static void testPad(Suite *s, const char *target, int64_t n, int64_t padded) {
  const char *name = "pad_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, n, padded, false, "no artifact");
    return;
  }
  float *src = malloc((size_t)n * 4), *dst = malloc((size_t)padded * 4),
        *ref = malloc((size_t)padded * 4);
  const float fill = -7.25f;
  for (int64_t i = 0; i < padded; ++i) {
    if (i < n)
      src[i] = (float)i * 0.5f;
    ref[i] = i < n ? (float)i * 0.5f : fill;
  }
  TilusDevicePtr dSrc = upload(s, src, (size_t)n * 4),
                 dDst = upload(s, NULL, (size_t)padded * 4);
  TilusArg args[] = {tilusArgPointer(dSrc), tilusArgPointer(dDst),
                     tilusArgInteger(n), tilusArgInteger(padded),
                     tilusArgFloat(fill)};
  bool ok = dSrc && dDst && launch(s, artifact, name, args, 5);
  bool guard = ok && download(s, dst, dDst, (size_t)padded * 4);
  ok = guard && !memcmp(dst, ref, (size_t)padded * 4);
  reportOutcome(name, target, n, padded, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  free(src), free(dst), free(ref);
  tilusArtifactDestroy(artifact);
}

static uint16_t bf16Bits(float value) { // exact for the values used
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return (uint16_t)(bits >> 16);
}

static void testCasts(Suite *s, const char *target, int64_t n) {
  const char *name = "casts_std";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, n, 0, false, "no artifact");
    return;
  }
  float *src = malloc((size_t)n * 4);
  uint16_t *b = malloc((size_t)n * 2), *h = malloc((size_t)n * 2),
           *bRef = malloc((size_t)n * 2), *hRef = malloc((size_t)n * 2);
  int8_t *i8 = malloc((size_t)n), *i8Ref = malloc((size_t)n);
  uint8_t *u8 = malloc((size_t)n), *u8Ref = malloc((size_t)n);
  for (int64_t k = 0; k < n; ++k) {
    src[k] = (float)(k % 240) * 0.5f; // 0 .. 119.5: exact in bf16 and f16
    bRef[k] = bf16Bits(src[k]);
    hRef[k] = tilusF16FromDouble(src[k]);
    i8Ref[k] = (int8_t)src[k]; // toward zero
    u8Ref[k] = (uint8_t)src[k];
  }
  TilusDevicePtr dSrc = upload(s, src, (size_t)n * 4),
                 dB = upload(s, NULL, (size_t)n * 2),
                 dH = upload(s, NULL, (size_t)n * 2),
                 dI = upload(s, NULL, (size_t)n), dU = upload(s, NULL, (size_t)n);
  TilusArg args[] = {tilusArgPointer(dSrc), tilusArgPointer(dB),
                     tilusArgPointer(dH),   tilusArgPointer(dI),
                     tilusArgPointer(dU),   tilusArgInteger(n)};
  bool ok = dSrc && dB && dH && dI && dU && launch(s, artifact, name, args, 6);
  bool guard = ok && download(s, b, dB, (size_t)n * 2) &&
               download(s, h, dH, (size_t)n * 2) &&
               download(s, i8, dI, (size_t)n) && download(s, u8, dU, (size_t)n);
  ok = guard && !memcmp(b, bRef, (size_t)n * 2) &&
       !memcmp(h, hRef, (size_t)n * 2) && !memcmp(i8, i8Ref, (size_t)n) &&
       !memcmp(u8, u8Ref, (size_t)n);
  report(name, target, n, 0, ok,
         ok ? NULL : guard ? "output differs (or a store after Exit ran)"
                           : "guard written or launch failed");
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dH, &err);
  tilusRuntimeFree(s->rt, dI, &err);
  tilusRuntimeFree(s->rt, dU, &err);
  free(src), free(b), free(h), free(bRef), free(hRef);
  free(i8), free(i8Ref), free(u8), free(u8Ref);
  tilusArtifactDestroy(artifact);
}

static bool sameFloat(float a, float b) {
  return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(float));
}

// The Figure 2 kernel for a weight type of `bits` bits (generated by
// test/gpu/matmul-kernels.sh): 16 x 16 tiles, weights packed by
// tilusWeightPack, integer activations in [-4, 4] so that every sum is exact
// in f32 and the f16 result is the exact sum rounded to nearest even.
typedef enum { WeightUnsigned, WeightSigned, WeightFloatE3M2 } WeightKind;

static void testLowBitMatmul(Suite *s, const char *target, const char *type,
                             int bits, WeightKind kind, int64_t M, int64_t N,
                             int64_t K) {
  char name[64];
  snprintf(name, sizeof(name), "matmul_f16_%s", type);
  TilusRuntimeError err;
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, M, N, false, "no artifact");
    return;
  }
  const char *layoutText = "local(2,2).column_spatial(4,8).local(2,1)";
  TilusLayout *layoutB = tilusLayoutParse(layoutText, strlen(layoutText), NULL);
  size_t aCount = (size_t)(M * K), bCount = (size_t)(K * N), cCount = (size_t)(M * N);
  size_t bBytes = bCount * (size_t)bits / 8;
  uint16_t *a = malloc(aCount * 2), *c = malloc(cCount * 2), *cRef = malloc(cCount * 2);
  int *aInt = malloc(aCount * sizeof(int));
  double *bValue = malloc(bCount * sizeof(double));
  uint8_t *compact = calloc(bBytes, 1), *packed = malloc(bBytes);
  uint32_t state = (uint32_t)bits * 7919u;
  for (size_t k = 0; k < aCount; ++k) {
    aInt[k] = (int)(nextRandom(&state) % 9) - 4;
    a[k] = tilusF16FromDouble(aInt[k]);
  }
  TilusFloatFormat e3m2 = {3, 2};
  for (size_t k = 0; k < bCount; ++k) {
    uint32_t code = nextRandom(&state) & ((1u << bits) - 1);
    packBits(compact, (int64_t)k, bits, code);
    if (kind == WeightFloatE3M2)
      bValue[k] = tilusFloatFormatDecode(e3m2, code);
    else if (kind == WeightSigned && (code >> (bits - 1)))
      bValue[k] = (double)code - (double)(1u << bits);
    else
      bValue[k] = code;
  }
  TilusWeightPacking packing = {K, N, 16, 16, bits, layoutB};
  TilusLayoutError packError;
  bool ok = tilusWeightPack(&packing, compact, packed, &packError);
  if (!ok)
    fprintf(stderr, "  packing: %s\n", packError.message);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += aInt[i * K + k] * bValue[k * N + j];
      cRef[i * N + j] = tilusF16FromDouble(sum);
    }
  TilusDevicePtr dA = upload(s, a, aCount * 2), dB = upload(s, packed, bBytes),
                 dC = upload(s, NULL, cCount * 2);
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB),
                     tilusArgPointer(dC), tilusArgInteger(M),
                     tilusArgInteger(N),  tilusArgInteger(K)};
  ok = ok && dA && dB && dC && launch(s, artifact, "matmul", args, 6);
  bool guard = ok && download(s, c, dC, cCount * 2);
  ok = guard && !memcmp(c, cRef, cCount * 2);
  if (guard && !ok)
    for (size_t k = 0; k < cCount; ++k)
      if (c[k] != cRef[k]) {
        fprintf(stderr, "  %s: first difference at [%zu, %zu]: %g (want %g)\n",
                name, k / (size_t)N, k % (size_t)N, halfToFloat(c[k]),
                halfToFloat(cRef[k]));
        break;
      }
  reportOutcome(name, target, M, N, ok, guard);
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dC, &err);
  free(a), free(c), free(cRef), free(aInt), free(bValue), free(compact),
      free(packed);
  tilusLayoutDestroy(layoutB);
  tilusArtifactDestroy(artifact);
}

// LoadGlobal of a compact [M, N] tensor of a sub-byte type (Cast to f32),
// StoreGlobal of the same values back into compact storage (Cast from f32),
// and a copy through a compact shared tensor (StoreShared, LoadShared in
// another layout), all tiled 16 x 24 with masked edges
// (test/gpu/subbyte-kernels.sh).
// The store's buffer starts as sentinel bytes: the bits after the last
// element must keep them.
static void testSubByte(Suite *s, const char *target, const char *type,
                        int bits, WeightKind kind, int64_t M, int64_t N) {
  char name[64];
  snprintf(name, sizeof(name), "load_%s", type);
  TilusRuntimeError err;
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, M, N, false, "no artifact");
    return;
  }
  size_t count = (size_t)(M * N), bytes = (count * (size_t)bits + 7) / 8;
  uint8_t *compact = calloc(bytes, 1);
  float *out = malloc(count * 4), *ref = malloc(count * 4);
  uint32_t state = (uint32_t)bits * 31u;
  TilusFloatFormat e3m2 = {3, 2};
  for (size_t k = 0; k < count; ++k) {
    uint32_t code = nextRandom(&state) & ((1u << bits) - 1);
    packBits(compact, (int64_t)k, bits, code);
    if (kind == WeightFloatE3M2)
      ref[k] = (float)tilusFloatFormatDecode(e3m2, code);
    else if (kind == WeightSigned && (code >> (bits - 1)))
      ref[k] = (float)((int)code - (1 << bits));
    else
      ref[k] = (float)code;
  }
  TilusDevicePtr dIn = upload(s, compact, bytes), dOut = upload(s, NULL, count * 4);
  TilusArg args[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                     tilusArgInteger(M), tilusArgInteger(N)};
  bool ok = dIn && dOut && launch(s, artifact, "load", args, 4);
  bool guard = ok && download(s, out, dOut, count * 4);
  ok = guard && !memcmp(out, ref, count * 4);
  reportOutcome(name, target, M, N, ok, guard);
  tilusRuntimeFree(s->rt, dIn, &err);
  tilusRuntimeFree(s->rt, dOut, &err);

  snprintf(name, sizeof(name), "store_%s", type);
  uint8_t *stored = malloc(bytes);
  TilusDevicePtr dValues = upload(s, ref, count * 4), dCompact = upload(s, NULL, bytes);
  TilusArg storeArgs[] = {tilusArgPointer(dValues), tilusArgPointer(dCompact),
                          tilusArgInteger(M), tilusArgInteger(N)};
  ok = dValues && dCompact && launch(s, artifact, "store", storeArgs, 4);
  guard = ok && download(s, stored, dCompact, bytes);
  ok = guard;
  for (size_t k = 0; ok && k < count; ++k) {
    ok = unpackBits(stored, (int64_t)k, bits) == unpackBits(compact, (int64_t)k, bits);
    if (!ok)
      fprintf(stderr, "  %s: element %zu is 0x%x (want 0x%x)\n", name, k,
              unpackBits(stored, (int64_t)k, bits), unpackBits(compact, (int64_t)k, bits));
  }
  for (size_t bit = count * (size_t)bits; ok && bit < bytes * 8; ++bit)
    ok = ((stored[bit / 8] ^ SENTINEL) >> (bit % 8) & 1) == 0;
  reportOutcome(name, target, M, N, ok, guard);
  tilusRuntimeFree(s->rt, dValues, &err);
  tilusRuntimeFree(s->rt, dCompact, &err);

  snprintf(name, sizeof(name), "shared_%s", type);
  TilusDevicePtr dSrc = upload(s, compact, bytes), dCopy = upload(s, NULL, bytes);
  TilusArg copyArgs[] = {tilusArgPointer(dSrc), tilusArgPointer(dCopy),
                         tilusArgInteger(M), tilusArgInteger(N)};
  ok = dSrc && dCopy && launch(s, artifact, "shared", copyArgs, 4);
  guard = ok && download(s, stored, dCopy, bytes);
  ok = guard;
  for (size_t k = 0; ok && k < count; ++k)
    ok = unpackBits(stored, (int64_t)k, bits) == unpackBits(compact, (int64_t)k, bits);
  reportOutcome(name, target, M, N, ok, guard);
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dCopy, &err);
  free(compact), free(out), free(ref), free(stored);
  tilusArtifactDestroy(artifact);
}

// !tilus.float<e, m> in registers: View from packed bytes and Cast to f32
// over every encoding (decode), and Cast from f32 to the format then View
// as bytes (encode) over every value of the format, the midpoints between
// neighbours (ties), values just beside them, values past the largest, and
// zeros, infinities and NaN, all with both signs. Compared bit for bit with
// lib/Types/FloatFormat.c (NaN compared as NaN).
static void testFloatFormat(Suite *s, const char *target, int e, int m) {
  char name[32];
  snprintf(name, sizeof(name), "float_e%dm%d", e, m);
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(name, target, e, m, false, "no artifact");
    return;
  }
  TilusFloatFormat f = {e, m};
  int bits = 1 + e + m, encodings = 1 << bits;
  int perThread = 1;
  while ((perThread * bits) % 8)
    perThread *= 2;
  int64_t perBlock = 32 * perThread;

  // Decode: every encoding, padded to whole blocks.
  int64_t n = (encodings + perBlock - 1) / perBlock * perBlock;
  int64_t nbytes = n * bits / 8;
  uint8_t *packed = calloc((size_t)nbytes, 1);
  float *decoded = malloc((size_t)n * 4);
  for (int64_t g = 0; g < n; ++g)
    packBits(packed, g, bits, (uint32_t)(g % encodings));
  TilusDevicePtr dIn = upload(s, packed, (size_t)nbytes),
                 dOut = upload(s, NULL, (size_t)n * 4);
  TilusArg decodeArgs[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                           tilusArgInteger(nbytes), tilusArgInteger(n)};
  bool ok = dIn && dOut && launch(s, artifact, "decode", decodeArgs, 4);
  bool guard = ok && download(s, decoded, dOut, (size_t)n * 4);
  ok = guard;
  for (int64_t g = 0; ok && g < n; ++g) {
    float want = (float)tilusFloatFormatDecode(f, (uint32_t)(g % encodings));
    if (!sameFloat(decoded[g], want)) {
      fprintf(stderr, "  decode of 0x%x: %g (want %g)\n", (unsigned)(g % encodings),
              decoded[g], want);
      ok = false;
    }
  }
  TilusRuntimeError ignored;
  tilusRuntimeFree(s->rt, dIn, &ignored);
  tilusRuntimeFree(s->rt, dOut, &ignored);

  // Encode: the interesting f32 values.
  // At most 6 values per encoding and 4 more, both signs, padded to a block.
  int64_t capacity = 2 * (6 * encodings + 4) + perBlock;
  float *values = malloc((size_t)capacity * 4);
  int64_t count = 0;
  for (int code = 0; code < encodings / 2; ++code) {
    double v = tilusFloatFormatDecode(f, (uint32_t)code);
    double next = tilusFloatFormatDecode(f, (uint32_t)code + 1);
    if (isnan(v) || isinf(v))
      continue;
    float candidates[] = {(float)v, nextafterf((float)v, INFINITY),
                          nextafterf((float)v, -INFINITY)};
    for (int c = 0; c < 3; ++c)
      values[count++] = candidates[c];
    if (!isnan(next) && !isinf(next) && code + 1 < encodings / 2) {
      float mid = (float)((v + next) / 2); // exact: few mantissa bits
      values[count++] = mid;
      values[count++] = nextafterf(mid, INFINITY);
      values[count++] = nextafterf(mid, -INFINITY);
    } else {
      values[count++] = (float)(v * 1.5);
      values[count++] = (float)(v * 2);
      values[count++] = (float)(v * 1e6);
    }
  }
  values[count++] = INFINITY;
  values[count++] = NAN;
  values[count++] = 1e-30f;
  values[count++] = 1e-45f; // an f32 subnormal
  int64_t half = count;
  for (int64_t k = 0; k < half; ++k)
    values[count++] = -values[k];
  int64_t m2 = (count + perBlock - 1) / perBlock * perBlock;
  for (int64_t k = count; k < m2; ++k)
    values[k] = 0;
  int64_t outBytes = m2 * bits / 8;
  uint8_t *encoded = malloc((size_t)outBytes);
  TilusDevicePtr dValues = upload(s, values, (size_t)m2 * 4),
                 dEncoded = upload(s, NULL, (size_t)outBytes);
  TilusArg encodeArgs[] = {tilusArgPointer(dValues), tilusArgPointer(dEncoded),
                           tilusArgInteger(m2), tilusArgInteger(outBytes)};
  bool encodeOk = dValues && dEncoded &&
                  launch(s, artifact, "encode", encodeArgs, 4) &&
                  download(s, encoded, dEncoded, (size_t)outBytes);
  guard = guard && encodeOk;
  for (int64_t k = 0; encodeOk && k < m2; ++k) {
    uint32_t got = unpackBits(encoded, k, bits);
    uint32_t want = tilusFloatFormatEncode(f, values[k]);
    if (got != want) {
      fprintf(stderr, "  encode of %.9g: 0x%x (want 0x%x)\n", values[k], got,
              want);
      encodeOk = false;
    }
  }
  ok = ok && encodeOk;
  reportOutcome(name, target, e, m, ok, guard);
  tilusRuntimeFree(s->rt, dValues, &ignored);
  tilusRuntimeFree(s->rt, dEncoded, &ignored);
  free(packed), free(decoded), free(values), free(encoded);
  tilusArtifactDestroy(artifact);
}

// The width of a type named uN, iN or eXmY.
static int typeBits(const char *type) {
  int e = 0, m = 0;
  if (type[0] == 'e' && sscanf(type, "e%dm%d", &e, &m) == 2)
    return 1 + e + m;
  return atoi(type + 1);
}

// The 16-bit IEEE-style encoding (f16: 5, 10; bf16: 8, 7) of `v`, rounded to
// nearest even, overflowing to inf.
static uint16_t roundTo16(double v, int exponentBits, int mantissaBits) {
  int bias = (1 << (exponentBits - 1)) - 1;
  uint32_t sign = signbit(v) ? 0x8000u : 0;
  uint32_t expOnes = ((1u << exponentBits) - 1) << mantissaBits;
  if (isnan(v))
    return (uint16_t)(sign | expOnes | 1u << (mantissaBits - 1));
  double a = fabs(v);
  if (isinf(a))
    return (uint16_t)(sign | expOnes);
  if (a == 0)
    return (uint16_t)sign;
  int ex;
  frexp(a, &ex);
  int E = ex - 1 < 1 - bias ? 1 - bias : ex - 1; // a < 2^(E+1)
  double q = rint(ldexp(a, mantissaBits - E));   // in quanta 2^(E - m)
  if (q >= ldexp(1, mantissaBits + 1)) {
    E += 1;
    q /= 2;
  }
  if (E + bias >= (1 << exponentBits) - 1)
    return (uint16_t)(sign | expOnes);
  uint32_t code = q < ldexp(1, mantissaBits)
                      ? (uint32_t)q // subnormal
                      : (uint32_t)(E + bias) << mantissaBits |
                            ((uint32_t)q - (1u << mantissaBits));
  return (uint16_t)(sign | code);
}

// Every encoding of a low-precision type (uN, iN or eXmY, `bits` wide) Cast
// to f16, bf16 and f32 by the widen_<type> kernels (test/gpu/widen-kernels.sh)
// against the CPU reference, bit for bit (NaN compared as NaN). The first
// block holds the encodings in order, the second random ones.
static void testWiden(Suite *s, const char *target, const char *type) {
  char stem[32];
  snprintf(stem, sizeof(stem), "widen_%s", type);
  int bits = typeBits(type), e = 0, m = 0;
  bool isFloat = type[0] == 'e', isSigned = type[0] == 'i';
  if (isFloat)
    sscanf(type, "e%dm%d", &e, &m);
  TilusArtifact *artifact = loadArtifact(s, stem, target);
  const int64_t n = 2048;
  int encodings = 1 << bits;
  int64_t nbytes = n * bits / 8;
  uint8_t *packed = calloc((size_t)nbytes, 1);
  double *want = malloc(n * sizeof(double));
  uint32_t state = (uint32_t)bits * 977u + (uint32_t)e;
  for (int64_t g = 0; g < n; ++g) {
    uint32_t code = (g < n / 2 ? (uint32_t)g : nextRandom(&state)) %
                    (uint32_t)encodings;
    packBits(packed, g, bits, code);
    if (isFloat)
      want[g] = tilusFloatFormatDecode((TilusFloatFormat){e, m}, code);
    else if (isSigned && code >> (bits - 1))
      want[g] = (double)code - encodings;
    else
      want[g] = code;
  }
  static const char *const kinds[] = {"to_f16", "to_bf16", "to_f32"};
  for (int k = 0; k < 3; ++k) {
    char name[48];
    snprintf(name, sizeof(name), "%s.%s", stem, kinds[k]);
    if (!artifact) {
      report(name, target, n, bits, false, "no artifact");
      continue;
    }
    size_t outBytes = (size_t)n * (k == 2 ? 4 : 2);
    uint8_t *out = malloc(outBytes);
    TilusDevicePtr dIn = upload(s, packed, (size_t)nbytes),
                   dOut = upload(s, NULL, outBytes);
    TilusArg args[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                       tilusArgInteger(n)};
    bool guard = dIn && dOut && launch(s, artifact, kinds[k], args, 3) &&
                 download(s, out, dOut, outBytes);
    bool ok = guard;
    for (int64_t g = 0; ok && g < n; ++g) {
      uint32_t got, expect;
      bool nan;
      if (k == 2) {
        float f = (float)want[g];
        memcpy(&got, out + 4 * g, 4);
        memcpy(&expect, &f, 4);
        nan = isnan(f) && (got & 0x7fffffffu) > 0x7f800000u;
      } else {
        uint16_t h;
        memcpy(&h, out + 2 * g, 2);
        got = h;
        expect = k == 0 ? roundTo16(want[g], 5, 10) : roundTo16(want[g], 8, 7);
        uint32_t ones = k == 0 ? 0x7c00u : 0x7f80u;
        nan = isnan(want[g]) && (got & 0x7fffu) > ones;
      }
      if (!nan && got != expect) {
        fprintf(stderr, "  %s %s element %lld: 0x%x (want 0x%x)\n", name,
                target, (long long)g, got, expect);
        ok = false;
      }
    }
    reportOutcome(name, target, n, bits, ok, guard);
    TilusRuntimeError ignored;
    tilusRuntimeFree(s->rt, dIn, &ignored);
    tilusRuntimeFree(s->rt, dOut, &ignored);
    free(out);
  }
  free(packed), free(want);
  tilusArtifactDestroy(artifact);
}

// The weight pre-transform as a Tilus program (test/gpu/pack-kernels.sh for
// every low-precision type, 16 x 16 tiles; examples/weight_pack_i6.mlir):
// `pack` must write exactly what tilusWeightPack writes for the same tile
// layout, and `unpack` must restore the compact matrix from it.
static void testPack(Suite *s, const char *target, const char *stem, int bits,
                     const char *layoutText, int64_t tileCols) {
  const int64_t K = 64, N = 96;
  TilusArtifact *artifact = loadArtifact(s, stem, target);
  if (!artifact) {
    report(stem, target, K, N, false, "no artifact");
    report(stem, target, K, N, false, "no artifact");
    return;
  }
  TilusLayout *layout = tilusLayoutParse(layoutText, strlen(layoutText), NULL);
  size_t bytes = (size_t)(K * N * bits / 8);
  uint8_t *compact = calloc(bytes, 1), *packed = malloc(bytes),
          *out = malloc(bytes);
  uint32_t state = (uint32_t)bits * 131u + (uint32_t)strlen(stem);
  for (int64_t g = 0; g < K * N; ++g)
    packBits(compact, g, bits, nextRandom(&state) & ((1u << bits) - 1));
  TilusWeightPacking packing = {K, N, 16, tileCols, bits, layout};
  TilusLayoutError packError;
  bool hostOk = tilusWeightPack(&packing, compact, packed, &packError);
  static const char *const kernels[] = {"pack", "unpack"};
  for (int k = 0; k < 2; ++k) {
    char name[48];
    snprintf(name, sizeof(name), "%s.%s", stem, kernels[k]);
    const uint8_t *in = k == 0 ? compact : packed, *want = k == 0 ? packed : compact;
    TilusDevicePtr dIn = upload(s, in, bytes), dOut = upload(s, NULL, bytes);
    TilusArg args[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                       tilusArgInteger(K), tilusArgInteger(N)};
    bool guard = hostOk && dIn && dOut && launch(s, artifact, kernels[k], args, 4) &&
                 download(s, out, dOut, bytes);
    bool ok = guard && !memcmp(out, want, bytes);
    for (size_t b = 0; guard && !ok && b < bytes; ++b)
      if (out[b] != want[b]) {
        fprintf(stderr, "  %s: byte %zu is 0x%02x (want 0x%02x)\n", name, b,
                out[b], want[b]);
        break;
      }
    reportOutcome(name, target, K, N, ok, guard);
    TilusRuntimeError ignored;
    tilusRuntimeFree(s->rt, dIn, &ignored);
    tilusRuntimeFree(s->rt, dOut, &ignored);
  }
  free(compact), free(packed), free(out);
  tilusLayoutDestroy(layout);
  tilusArtifactDestroy(artifact);
}

// Shared memory (test/gpu/kernels/shared_f16.mlir): a register tile through
// stage 1 of a swizzled two-stage buffer and back in another layout, and
// CopyAsync of edge tiles (zero-filled past the edge) read back from shared
// memory into an output padded to whole 64 x 64 tiles, by cp.async (when N
// is a multiple of 8) and element by element.
static void testShared(Suite *s, const char *target, int64_t M, int64_t N) {
  const char *name = "shared_f16";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    for (int k = 0; k < 3; ++k)
      report(name, target, M, N, false, "no artifact");
    return;
  }
  TilusRuntimeError err;
  uint16_t tile[64 * 64], back[64 * 64];
  for (int k = 0; k < 64 * 64; ++k)
    tile[k] = tilusF16FromDouble((double)(k % 1031) - 500);
  TilusDevicePtr dTile = upload(s, tile, sizeof(tile)),
                 dBack = upload(s, NULL, sizeof(back));
  TilusArg args[] = {tilusArgPointer(dTile), tilusArgPointer(dBack)};
  bool guard = dTile && dBack && launch(s, artifact, "roundtrip", args, 2) &&
               download(s, back, dBack, sizeof(back));
  reportOutcome("shared_f16.roundtrip", target, 64, 64,
                guard && !memcmp(tile, back, sizeof(tile)), guard);
  tilusRuntimeFree(s->rt, dTile, &err);
  tilusRuntimeFree(s->rt, dBack, &err);

  int64_t Mp = (M + 63) / 64 * 64, Np = (N + 63) / 64 * 64;
  size_t inCount = (size_t)(M * N), outCount = (size_t)(Mp * Np);
  uint16_t *in = malloc(inCount * 2), *out = malloc(outCount * 2),
           *want = malloc(outCount * 2);
  for (size_t k = 0; k < inCount; ++k)
    in[k] = tilusF16FromDouble((double)(k % 2039) - 1000);
  for (int64_t i = 0; i < Mp; ++i)
    for (int64_t j = 0; j < Np; ++j)
      want[i * Np + j] = i < M && j < N ? in[i * N + j] : tilusF16FromDouble(0);
  TilusDevicePtr dIn = upload(s, in, inCount * 2), dOut = upload(s, NULL, outCount * 2);
  TilusArg asyncArgs[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                          tilusArgInteger(M),   tilusArgInteger(N / 8),
                          tilusArgInteger(Mp),  tilusArgInteger(Np)};
  if (N % 8 == 0) { // the cp.async path takes N / 8
    guard = dIn && dOut && launch(s, artifact, "async", asyncArgs, 6) &&
            download(s, out, dOut, outCount * 2);
    reportOutcome("shared_f16.async", target, M, N,
                  guard && !memcmp(out, want, outCount * 2), guard);
  }
  tilusRuntimeFree(s->rt, dOut, &err);
  // The element-by-element path: N not provably a multiple of 8.
  dOut = upload(s, NULL, outCount * 2);
  asyncArgs[1] = tilusArgPointer(dOut);
  asyncArgs[3] = tilusArgInteger(N);
  guard = dIn && dOut && launch(s, artifact, "async_unaligned", asyncArgs, 6) &&
          download(s, out, dOut, outCount * 2);
  reportOutcome("shared_f16.async_unaligned", target, M, N,
                guard && !memcmp(out, want, outCount * 2), guard);
  tilusRuntimeFree(s->rt, dIn, &err);
  tilusRuntimeFree(s->rt, dOut, &err);
  free(in), free(out), free(want);
  tilusArtifactDestroy(artifact);
}

// Dot on each path (test/gpu/kernels/dot_kernels.mlir): the SIMT fallback
// (f32), mma.sync m16n8k16 (bf16 -> f32) and m16n8k32 (s8 -> s32), with
// small integers so that every sum is exact; compared with a CPU matmul.
static void testDotPaths(Suite *s, const char *target) {
  TilusArtifact *artifact = loadArtifact(s, "dot_kernels", target);
  static const struct {
    const char *kernel;
    int64_t M, N, K;
    int kind; // 0 f32, 1 bf16 -> f32, 2 s8 -> s32
  } cases[] = {{"simt_f32", 16, 16, 16, 0}, {"mma_bf16", 32, 16, 32, 1},
               {"mma_s8", 32, 16, 64, 2}};
  for (int c = 0; c < 3; ++c) {
    char name[48];
    snprintf(name, sizeof(name), "dot_kernels.%s", cases[c].kernel);
    if (!artifact) {
      report(name, target, 0, 0, false, "no artifact");
      continue;
    }
    int64_t M = cases[c].M, N = cases[c].N, K = cases[c].K;
    size_t inBytes = cases[c].kind == 0 ? 4 : cases[c].kind == 1 ? 2 : 1;
    uint8_t *a = malloc((size_t)(M * K) * inBytes), *b = malloc((size_t)(K * N) * inBytes);
    int *ai = malloc(sizeof(int) * (size_t)(M * K)), *bi = malloc(sizeof(int) * (size_t)(K * N));
    uint32_t state = 12345u + (uint32_t)c;
    for (int64_t k = 0; k < M * K + K * N; ++k) {
      int v = (int)(nextRandom(&state) % 7) - 3;
      bool isA = k < M * K;
      int64_t at = isA ? k : k - M * K;
      (isA ? ai : bi)[at] = v;
      uint8_t *dst = (isA ? a : b) + at * (int64_t)inBytes;
      if (cases[c].kind == 0) {
        float f = (float)v;
        memcpy(dst, &f, 4);
      } else if (cases[c].kind == 1) {
        uint16_t h = bf16Bits((float)v);
        memcpy(dst, &h, 2);
      } else {
        int8_t i = (int8_t)v;
        memcpy(dst, &i, 1);
      }
    }
    uint32_t *out = malloc(sizeof(uint32_t) * (size_t)(M * N)),
             *want = malloc(sizeof(uint32_t) * (size_t)(M * N));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += ai[i * K + k] * bi[k * N + j];
        if (cases[c].kind == 2) {
          want[i * N + j] = (uint32_t)sum;
        } else {
          float f = (float)sum;
          memcpy(&want[i * N + j], &f, 4);
        }
      }
    TilusDevicePtr dA = upload(s, a, (size_t)(M * K) * inBytes),
                   dB = upload(s, b, (size_t)(K * N) * inBytes),
                   dC = upload(s, NULL, sizeof(uint32_t) * (size_t)(M * N));
    TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB), tilusArgPointer(dC)};
    bool guard = dA && dB && dC && launch(s, artifact, cases[c].kernel, args, 3) &&
                 download(s, out, dC, sizeof(uint32_t) * (size_t)(M * N));
    reportOutcome(name, target, M, N,
                  guard && !memcmp(out, want, sizeof(uint32_t) * (size_t)(M * N)),
                  guard);
    TilusRuntimeError ignored;
    tilusRuntimeFree(s->rt, dA, &ignored);
    tilusRuntimeFree(s->rt, dB, &ignored);
    tilusRuntimeFree(s->rt, dC, &ignored);
    free(a), free(b), free(ai), free(bi), free(out), free(want);
  }
  tilusArtifactDestroy(artifact);
}

// The pipelined f16 matmul (bench/gemm/gemm-kernels.sh; the paper's Figure
// 14 with an f16 B, and the naive examples/matmul_naive_f16.mlir) on
// M x N x K, M not a multiple of the tile (zero-filled copies, masked
// stores): integers in [-2, 2], so the f32 sums are exact and their f16
// values are exact below 2048.
static void testGemm(Suite *s, const char *target, const char *stem,
                     int64_t BM, int64_t BN, int64_t BK, int64_t M, int64_t N,
                     int64_t K) {
  TilusArtifact *artifact = loadArtifact(s, stem, target);
  if (!artifact) {
    report(stem, target, M, N, false, "no artifact");
    return;
  }
  uint16_t *a = malloc(2 * (size_t)(M * K)), *b = malloc(2 * (size_t)(K * N)),
           *c = malloc(2 * (size_t)(M * N)), *want = malloc(2 * (size_t)(M * N));
  int *ai = malloc(sizeof(int) * (size_t)(M * K)), *bi = malloc(sizeof(int) * (size_t)(K * N));
  uint32_t state = (uint32_t)(M * 31 + N * 7 + K);
  for (int64_t k = 0; k < M * K; ++k) {
    ai[k] = (int)(nextRandom(&state) % 5) - 2;
    a[k] = tilusF16FromDouble(ai[k]);
  }
  for (int64_t k = 0; k < K * N; ++k) {
    bi[k] = (int)(nextRandom(&state) % 5) - 2;
    b[k] = tilusF16FromDouble(bi[k]);
  }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += ai[i * K + k] * bi[k * N + j];
      want[i * N + j] = tilusF16FromDouble(sum);
    }
  TilusDevicePtr dA = upload(s, a, 2 * (size_t)(M * K)), dB = upload(s, b, 2 * (size_t)(K * N)),
                 dC = upload(s, NULL, 2 * (size_t)(M * N));
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB), tilusArgPointer(dC),
                     tilusArgInteger(M),  tilusArgInteger(N / BN), tilusArgInteger(K / BK)};
  bool guard = dA && dB && dC && launch(s, artifact, "matmul", args, 6) &&
               download(s, c, dC, 2 * (size_t)(M * N));
  bool ok = guard && !memcmp(c, want, 2 * (size_t)(M * N));
  for (int64_t k = 0; guard && !ok && k < M * N; ++k)
    if (c[k] != want[k]) {
      fprintf(stderr, "  %s: first difference at [%lld, %lld]: %g (want %g)\n", stem,
              (long long)(k / N), (long long)(k % N), halfToFloat(c[k]),
              halfToFloat(want[k]));
      break;
    }
  reportOutcome(stem, target, M, N, ok, guard);
  TilusRuntimeError ignored;
  tilusRuntimeFree(s->rt, dA, &ignored);
  tilusRuntimeFree(s->rt, dB, &ignored);
  tilusRuntimeFree(s->rt, dC, &ignored);
  free(a), free(b), free(c), free(want), free(ai), free(bi);
  tilusArtifactDestroy(artifact);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tilus-gpu-suite ARTIFACT_DIR\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0); // keep every line if a test crashes
  Suite s = {NULL, argv[1]};
  TilusRuntimeError err;
  s.rt = tilusRuntimeCreate(&err);
  static const int formats[][2] = {{4, 3}, {5, 2}, {3, 4}, {3, 3}, {2, 4}, {3, 2},
                                   {2, 3}, {2, 2}, {1, 3}, {2, 1}, {1, 2}, {1, 1}};
  int numFormats = (int)(sizeof(formats) / sizeof(formats[0]));
  static const struct {
    const char *type;
    int bits;
    WeightKind kind;
  } weights[] = {{"u1", 1, WeightUnsigned},     {"u2", 2, WeightUnsigned},
                 {"u3", 3, WeightUnsigned},     {"u4", 4, WeightUnsigned},
                 {"i4", 4, WeightSigned},       {"u5", 5, WeightUnsigned},
                 {"f6e3m2", 6, WeightFloatE3M2}, {"u7", 7, WeightUnsigned},
                 {"u8", 8, WeightUnsigned}};
  int numWeights = (int)(sizeof(weights) / sizeof(weights[0]));
  static const char *const widened[] = {
      "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "i2", "i3",
      "i4", "i5", "i6", "i7", "i8", "e4m3", "e5m2", "e3m4", "e3m3", "e2m4",
      "e3m2", "e2m3", "e2m2", "e1m3", "e2m1", "e1m2", "e1m1", "e6m1"};
  int numWidened = (int)(sizeof(widened) / sizeof(widened[0]));
  int numTests = 2 * (4 + 3 + 2 + 3 + 1 + 2 + 3 + 2 + numFormats + numWeights +
                      12 + 5 * numWidened + 2 + 8 + 3 + 6);
  if (!s.rt) {
    printf("SKIPPED: %s\n", err.message);
    printf("gpu tests: 0 passed, 0 failed, %d skipped\n", numTests);
    return 77;
  }
  printf("device: %s\n", tilusRuntimeGetDeviceName(s.rt));
  for (size_t t = 0; t < sizeof(kTargets) / sizeof(kTargets[0]); ++t) {
    const char *target = kTargets[t];
    int64_t copySizes[] = {1, 1000, 3 * 4096 + 17, 1 << 20};
    for (int k = 0; k < 4; ++k)
      testCopy(&s, target, copySizes[k]);
    int64_t shapes[][2] = {{70, 150}, {64, 128}, {1, 1}};
    for (int k = 0; k < 3; ++k)
      testElementwise(&s, target, shapes[k][0], shapes[k][1]);
    testIntegers(&s, target, 1000);
    testIntegers(&s, target, 256 * 40);
    testLoops(&s, target, 3, 0);
    testLoops(&s, target, 5, 2);
    testLoops(&s, target, 1, 4);
    testWorkspace(&s, target);
    testPad(&s, target, 1000, 1024);
    testPad(&s, target, 1, 512);
    testPad(&s, target, 3 * 512 + 2, 4 * 512);
    testCasts(&s, target, 1000);
    testCasts(&s, target, 256);
    for (int k = 0; k < numFormats; ++k)
      testFloatFormat(&s, target, formats[k][0], formats[k][1]);
    for (int k = 0; k < numWeights; ++k)
      testLowBitMatmul(&s, target, weights[k].type, weights[k].bits,
                       weights[k].kind, 48, 64, 128);
    testSubByte(&s, target, "i4", 4, WeightSigned, 37, 53);
    testSubByte(&s, target, "u3", 3, WeightUnsigned, 37, 53);
    testSubByte(&s, target, "u1", 1, WeightUnsigned, 37, 53);
    testSubByte(&s, target, "f6e3m2", 6, WeightFloatE3M2, 37, 53);
    for (int k = 0; k < numWidened; ++k)
      testWiden(&s, target, widened[k]);
    for (int k = 0; k < numWidened; ++k) {
      char stem[32];
      snprintf(stem, sizeof(stem), "pack_%s", widened[k]);
      testPack(&s, target, stem, typeBits(widened[k]),
               "local(2,2).column_spatial(4,8).local(2,1)", 16);
    }
    testPack(&s, target, "weight_pack_i6", 6,
             "local(2,1).column_spatial(4,8).local(2,1)", 8);
    testDotPaths(&s, target);
    testGemm(&s, target, "matmul_pipelined_f16", 16, 32, 256, 16, 128, 1024);
    testGemm(&s, target, "matmul_pipelined_f16", 16, 32, 256, 13, 64, 512);
    testGemm(&s, target, "matmul_f16_decode", 16, 64, 256, 5, 128, 768);
    testGemm(&s, target, "matmul_f16_large", 128, 128, 32, 200, 256, 256);
    testGemm(&s, target, "matmul_f16_wide", 256, 128, 32, 300, 256, 160);
    testGemm(&s, target, "matmul_naive_f16", 16, 8, 16, 48, 64, 256);
    testShared(&s, target, 100, 136);
    testShared(&s, target, 64, 64);
    testShared(&s, target, 70, 131);
    testMatmul(&s, target, 32, 16, 64);
    testMatmul(&s, target, 64, 64, 256);
  }
  tilusRuntimeDestroy(s.rt);
  printf("gpu tests: %d passed, %d failed, %d skipped\n", numPassed, numFailed,
         numSkipped);
  return numFailed ? 1 : 0;
}
