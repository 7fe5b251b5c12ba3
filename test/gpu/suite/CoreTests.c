//===- CoreTests.c - Copies, arithmetic, loops, casts, Figure 2
//-------------===//
//
// Global memory, register arithmetic, control flow, workspaces, padding,
// standard casts, and the paper's Figure 2 (examples/matmul_f16_i6.mlir).
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include "tilus-c/FloatFormat.h"
#include "tilus-c/Layout.h"
#include "tilus-c/WeightPack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void testCopy(Suite *s, const char *target, int64_t n) {
  const char *name = "copy_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, n, 0, false, "no artifact");
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
  reportOutcome(s, name, target, n, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  free(src);
  free(dst);
  tilusArtifactDestroy(artifact);
}

void testElementwise(Suite *s, const char *target, int64_t m, int64_t n) {
  const char *name = "elementwise_f16";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, m, n, false, "no artifact");
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
                 dY = upload(s, NULL, count * 2),
                 dZ = upload(s, NULL, count * 4);
  TilusArg args[] = {tilusArgPointer(dA),
                     tilusArgPointer(dB),
                     tilusArgPointer(dY),
                     tilusArgPointer(dZ),
                     tilusArgF16Bits(tilusF16FromDouble(scale)),
                     tilusArgInteger(m),
                     tilusArgInteger(n)};
  bool ok = dA && dB && dY && dZ && launch(s, artifact, name, args, 7);
  bool guard =
      ok && download(s, y, dY, count * 2) && download(s, z, dZ, count * 4);
  ok = guard && !memcmp(y, yRef, count * 2) && !memcmp(z, zRef, count * 4);
  if (guard && !ok)
    for (size_t k = 0; k < count; ++k)
      if (y[k] != yRef[k] || z[k] != zRef[k]) {
        fprintf(stderr,
                "  first difference at %zu: y %g (want %g), z %g (want %g)\n",
                k, halfToFloat(y[k]), halfToFloat(yRef[k]), z[k], zRef[k]);
        break;
      }
  reportOutcome(s, name, target, m, n, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dY, &err);
  tilusRuntimeFree(s->rt, dZ, &err);
  free(a), free(b), free(y), free(yRef), free(z), free(zRef);
  tilusArtifactDestroy(artifact);
}

void testIntegers(Suite *s, const char *target, int64_t n) {
  const char *name = "integer_ops";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, n, 0, false, "no artifact");
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
  reportOutcome(s, name, target, n, 0, ok, guard);
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

void testLoops(Suite *s, const char *target, int64_t rows, int64_t k) {
  const char *name = "loops_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, rows, k, false, "no artifact");
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
  TilusDevicePtr dSrc = upload(s, src, inBytes),
                 dDst = upload(s, NULL, outBytes);
  TilusArg args[] = {tilusArgPointer(dSrc), tilusArgPointer(dDst),
                     tilusArgInteger(rows), tilusArgInteger(k)};
  bool ok = dSrc && dDst && launch(s, artifact, name, args, 4);
  bool guard = ok && download(s, out, dDst, outBytes);
  ok = guard && !memcmp(out, ref, outBytes);
  reportOutcome(s, name, target, rows, k, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  free(src);
  tilusArtifactDestroy(artifact);
}

void testWorkspace(Suite *s, const char *target) {
  const char *name = "workspace_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, 2048, 0, false, "no artifact");
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
  reportOutcome(s, name, target, 2048, 0, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  tilusArtifactDestroy(artifact);
}

// The paper's Figure 2 (examples/matmul_f16_i6.mlir): C = A x B with A f16
// [M, K] and B int6 [K, N], B pre-transformed on the host by tilusWeightPack
// for the register layout local(2,1).column_spatial(4,8).local(2,1). Small
// integer inputs keep every sum exact in f32; the f16 result is the sum rounded
// to nearest even, as the kernel's f32 -> f16 cast does.
void testMatmul(Suite *s, const char *target, int64_t M, int64_t N, int64_t K) {
  const char *name = "matmul";
  TilusRuntimeError err;
  TilusArtifact *artifact = loadArtifact(s, "matmul_f16_i6", target);
  if (!artifact) {
    report(s, name, target, M, N, false, "no artifact");
    return;
  }
  const char *layoutText = "local(2,1).column_spatial(4,8).local(2,1)";
  TilusLayout *layoutB = tilusLayoutParse(layoutText, strlen(layoutText), NULL);
  size_t aCount = (size_t)(M * K), bCount = (size_t)(K * N),
         cCount = (size_t)(M * N);
  uint16_t *a = malloc(aCount * 2), *c = malloc(cCount * 2),
           *cRef = malloc(cCount * 2);
  int *aInt = malloc(aCount * sizeof(int)),
      *bInt = malloc(bCount * sizeof(int));
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
  reportOutcome(s, name, target, M, N, ok, guard);
  tilusRuntimeFree(s->rt, dA, &err);
  tilusRuntimeFree(s->rt, dB, &err);
  tilusRuntimeFree(s->rt, dC, &err);
  free(a), free(c), free(cRef), free(aInt), free(bInt), free(packed);
  tilusLayoutDestroy(layoutB);
  tilusArtifactDestroy(artifact);
}

void testPad(Suite *s, const char *target, int64_t n, int64_t padded) {
  const char *name = "pad_f32";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, n, padded, false, "no artifact");
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
  reportOutcome(s, name, target, n, padded, ok, guard);
  TilusRuntimeError err;
  tilusRuntimeFree(s->rt, dSrc, &err);
  tilusRuntimeFree(s->rt, dDst, &err);
  free(src), free(dst), free(ref);
  tilusArtifactDestroy(artifact);
}

void testCasts(Suite *s, const char *target, int64_t n) {
  const char *name = "casts_std";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    report(s, name, target, n, 0, false, "no artifact");
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
                 dI = upload(s, NULL, (size_t)n),
                 dU = upload(s, NULL, (size_t)n);
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
  report(s, name, target, n, 0, ok,
         ok      ? NULL
         : guard ? "output differs (or a store after Exit ran)"
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
