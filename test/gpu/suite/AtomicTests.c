//===- AtomicTests.c - Atomics, the split-K semaphore, f16-accumulator Dot ===//
//
// The kernels of test/gpu/kernels/atomics.mlir and dot_f16acc.mlir against
// CPU references. Many blocks add into the same outputs: integer results
// are exact in any order, float inputs are small integers so that every
// order gives the same sum; the split-K kernel adds arbitrary floats in
// block order, so its result must equal the sequential CPU sum bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float bf16ToFloat(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

// An element of the atomic-add test in its type: 0 f32, 1 i32, 2 f16,
// 3 bf16.
static void putElement(uint8_t *buffer, int64_t k, int kind, int value) {
  if (kind == 0) {
    float f = (float)value;
    memcpy(buffer + 4 * k, &f, 4);
  } else if (kind == 1) {
    int32_t i = value;
    memcpy(buffer + 4 * k, &i, 4);
  } else {
    uint16_t h = kind == 2 ? halfBits((float)value) : bf16Bits((float)value);
    memcpy(buffer + 2 * k, &h, 2);
  }
}

// g blocks add slices [g, m, n] into out [m, n] (initialized with small
// integers); the reference is init + the sum over the slices.
void testAtomicAdd(Suite *s, const char *target, const char *kernel, int kind,
                   int64_t g, int64_t m, int64_t n) {
  char name[64];
  snprintf(name, sizeof(name), "atomics.%s", kernel);
  TilusArtifact *artifact = loadArtifact(s, "atomics", target);
  if (!artifact) {
    report(s, name, target, m, n, false, "no artifact");
    return;
  }
  size_t bytes = kind <= 1 ? 4 : 2;
  int64_t numOut = m * n, numIn = g * m * n;
  uint8_t *in = malloc((size_t)numIn * bytes),
          *init = malloc((size_t)numOut * bytes),
          *want = malloc((size_t)numOut * bytes),
          *out = malloc((size_t)numOut * bytes);
  int64_t *sums = calloc((size_t)numOut, sizeof(int64_t));
  uint32_t state = 777u + (uint32_t)kind;
  // Integers take any values (sums wrap exactly); floats small integers:
  // |sum| <= 3 g + 3 stays exact in f16 and bf16 (g <= 40).
  for (int64_t k = 0; k < numOut; ++k) {
    int v =
        kind == 1 ? (int)nextRandom(&state) : (int)(nextRandom(&state) % 7) - 3;
    putElement(init, k, kind, v);
    sums[k] = v;
  }
  for (int64_t k = 0; k < numIn; ++k) {
    int v =
        kind == 1 ? (int)nextRandom(&state) : (int)(nextRandom(&state) % 7) - 3;
    putElement(in, k, kind, v);
    sums[k % numOut] += v;
  }
  for (int64_t k = 0; k < numOut; ++k)
    putElement(want, k, kind, (int)(int32_t)(uint32_t)sums[k]);
  TilusDevicePtr dIn = upload(s, in, (size_t)numIn * bytes),
                 dOut = upload(s, init, (size_t)numOut * bytes);
  TilusArg args[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                     tilusArgInteger(g), tilusArgInteger(m),
                     tilusArgInteger(n)};
  bool guard = dIn && dOut && launch(s, artifact, kernel, args, 5) &&
               download(s, out, dOut, (size_t)numOut * bytes);
  bool ok = guard && !memcmp(out, want, (size_t)numOut * bytes);
  if (guard && !ok)
    for (int64_t k = 0; k < numOut; ++k)
      if (memcmp(out + k * (int64_t)bytes, want + k * (int64_t)bytes, bytes)) {
        float got = kind == 0   ? ((float *)out)[k]
                    : kind == 1 ? (float)((int32_t *)out)[k]
                    : kind == 2 ? halfToFloat(((uint16_t *)out)[k])
                                : bf16ToFloat(((uint16_t *)out)[k]);
        fprintf(stderr, "  %s: element %lld is %g, expected %lld\n", name,
                (long long)k, got, (long long)sums[k]);
        break;
      }
  reportOutcome(s, name, target, m, n, ok, guard);
  TilusDevicePtr ptrs[] = {dIn, dOut};
  freeAll(s, ptrs, 2);
  free(in), free(init), free(want), free(out), free(sums);
  tilusArtifactDestroy(artifact);
}

// The scalar atomics of atomic_scalars (see the kernel), g blocks.
void testAtomicScalars(Suite *s, const char *target, int64_t g) {
  const char *name = "atomics.atomic_scalars";
  TilusArtifact *artifact = loadArtifact(s, "atomics", target);
  if (!artifact) {
    report(s, name, target, g, 0, false, "no artifact");
    return;
  }
  int32_t ints[4] = {0, -1000, 0, -1000};
  uint32_t uints[1] = {0xffffffffu};
  float floats[2] = {0.0f, -1000.0f};
  int32_t *olds = malloc(sizeof(int32_t) * (size_t)g),
          *cas = malloc(sizeof(int32_t) * (size_t)g);
  int32_t wantMax = -1000;
  uint32_t wantMin = 0xffffffffu;
  float wantSum = 0.0f, wantFMax = -1000.0f;
  for (int64_t b = 0; b < g; ++b) {
    int32_t v = (int32_t)((37 * b) % 101) - 50;
    wantMax = v > wantMax ? v : wantMax;
    wantMin = (uint32_t)v < wantMin ? (uint32_t)v : wantMin;
    wantSum += (float)v;
    wantFMax = (float)v * 0.5f > wantFMax ? (float)v * 0.5f : wantFMax;
  }
  TilusDevicePtr dInts = upload(s, ints, sizeof(ints)),
                 dUints = upload(s, uints, sizeof(uints)),
                 dFloats = upload(s, floats, sizeof(floats)),
                 dOlds = upload(s, NULL, sizeof(int32_t) * (size_t)g),
                 dCas = upload(s, NULL, sizeof(int32_t) * (size_t)g);
  TilusArg args[] = {tilusArgPointer(dInts),   tilusArgPointer(dUints),
                     tilusArgPointer(dFloats), tilusArgPointer(dOlds),
                     tilusArgPointer(dCas),    tilusArgInteger(g)};
  bool guard = dInts && dUints && dFloats && dOlds && dCas &&
               launch(s, artifact, "atomic_scalars", args, 6) &&
               download(s, ints, dInts, sizeof(ints)) &&
               download(s, uints, dUints, sizeof(uints)) &&
               download(s, floats, dFloats, sizeof(floats)) &&
               download(s, olds, dOlds, sizeof(int32_t) * (size_t)g) &&
               download(s, cas, dCas, sizeof(int32_t) * (size_t)g);
  const char *why = NULL;
  if (guard) {
    // The add's old values are a permutation of 0..g-1.
    char *seen = calloc((size_t)g, 1);
    for (int64_t b = 0; b < g && !why; ++b) {
      if (olds[b] < 0 || olds[b] >= g || seen[olds[b]])
        why = "the atomic add's old values are not a permutation";
      else
        seen[olds[b]] = 1;
    }
    free(seen);
    // Exactly one block's CAS saw 0; it stored its b + 1; the others saw
    // that value.
    int64_t winners = 0, winner = -1;
    for (int64_t b = 0; b < g; ++b)
      if (cas[b] == 0)
        ++winners, winner = b;
    if (!why && (winners != 1 || ints[2] != winner + 1))
      why = "not exactly one CAS succeeded";
    for (int64_t b = 0; b < g && !why; ++b)
      if (b != winner && cas[b] != ints[2])
        why = "a failed CAS returned another value than the stored one";
    if (!why && ints[0] != g)
      why = "atomic add i32";
    if (!why && ints[1] != wantMax)
      why = "atomic max i32";
    if (!why && uints[0] != wantMin)
      why = "atomic min ui32";
    if (!why && !sameFloat(floats[0], wantSum))
      why = "atomic add f32";
    if (!why && !sameFloat(floats[1], wantFMax))
      why = "atomic max f32";
    if (!why && ints[3] != 28)
      why = "atomic add on shared memory";
  }
  report(s, name, target, g, 0, guard && !why,
         !guard ? "guard written or launch failed" : why);
  TilusDevicePtr ptrs[] = {dInts, dUints, dFloats, dOlds, dCas};
  freeAll(s, ptrs, 5);
  free(olds), free(cas);
  tilusArtifactDestroy(artifact);
}

// Split-K in block order: C = ((C0 + P0) + P1) + ... over `splits`
// partials of arbitrary floats, compared bit for bit with the sequential
// CPU sum (any other order would differ in the last bits).
void testSplitKSemaphore(Suite *s, const char *target, int64_t splits,
                         int64_t m, int64_t n) {
  const char *name = "atomics.splitk_semaphore";
  TilusArtifact *artifact = loadArtifact(s, "atomics", target);
  if (!artifact) {
    report(s, name, target, m, n, false, "no artifact");
    return;
  }
  int64_t numC = m * n, numP = splits * m * n;
  int64_t numTiles = ((m + 15) / 16) * ((n + 31) / 32);
  float *parts = malloc(sizeof(float) * (size_t)numP),
        *c = malloc(sizeof(float) * (size_t)numC),
        *want = malloc(sizeof(float) * (size_t)numC),
        *out = malloc(sizeof(float) * (size_t)numC);
  int32_t *sem = calloc((size_t)numTiles, sizeof(int32_t));
  uint32_t state = 4242u;
  // Values over several binades with 24 significant bits: the rounding of
  // each partial sum depends on the order.
  for (int64_t k = 0; k < numP + numC; ++k) {
    float v = (float)((int32_t)(nextRandom(&state) % 2000001u) - 1000000) /
              (float)(1 + nextRandom(&state) % 977u);
    if (k < numP)
      parts[k] = v;
    else
      c[k - numP] = v;
  }
  for (int64_t k = 0; k < numC; ++k) {
    float sum = c[k];
    for (int64_t p = 0; p < splits; ++p)
      sum += parts[p * numC + k];
    want[k] = sum;
  }
  TilusDevicePtr dP = upload(s, parts, sizeof(float) * (size_t)numP),
                 dC = upload(s, c, sizeof(float) * (size_t)numC),
                 dS = upload(s, sem, sizeof(int32_t) * (size_t)numTiles);
  TilusArg args[] = {tilusArgPointer(dP), tilusArgPointer(dC),
                     tilusArgPointer(dS), tilusArgInteger(splits),
                     tilusArgInteger(m),  tilusArgInteger(n)};
  bool guard = dP && dC && dS &&
               launch(s, artifact, "splitk_semaphore", args, 6) &&
               download(s, out, dC, sizeof(float) * (size_t)numC) &&
               download(s, sem, dS, sizeof(int32_t) * (size_t)numTiles);
  bool ok = guard && !memcmp(out, want, sizeof(float) * (size_t)numC);
  for (int64_t t = 0; ok && t < numTiles; ++t)
    ok = sem[t] == splits; // every tile signalled by its last split
  reportOutcome(s, name, target, m, n, ok, guard);
  TilusDevicePtr ptrs[] = {dP, dC, dS};
  freeAll(s, ptrs, 3);
  free(parts), free(c), free(want), free(out), free(sem);
  tilusArtifactDestroy(artifact);
}

// D = A x B + C in f16 on mma.sync f16.f16.f16.f16 (32x32 by 32x16):
// integers in [-2, 2] keep |D| <= 130, exact in f16.
void testDotF16Accumulator(Suite *s, const char *target) {
  const char *name = "dot_f16acc.mma_f16_acc";
  TilusArtifact *artifact = loadArtifact(s, "dot_f16acc", target);
  if (!artifact) {
    report(s, name, target, 32, 16, false, "no artifact");
    return;
  }
  enum { M = 32, N = 16, K = 32 };
  int a[M * K], b[K * N], c[M * N];
  uint16_t ha[M * K], hb[K * N], hc[M * N], want[M * N], out[M * N];
  uint32_t state = 99u;
  for (int k = 0; k < M * K; ++k)
    ha[k] = halfBits((float)(a[k] = (int)(nextRandom(&state) % 5) - 2));
  for (int k = 0; k < K * N; ++k)
    hb[k] = halfBits((float)(b[k] = (int)(nextRandom(&state) % 5) - 2));
  for (int k = 0; k < M * N; ++k)
    hc[k] = halfBits((float)(c[k] = (int)(nextRandom(&state) % 5) - 2));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int sum = c[i * N + j];
      for (int k = 0; k < K; ++k)
        sum += a[i * K + k] * b[k * N + j];
      want[i * N + j] = halfBits((float)sum);
    }
  TilusDevicePtr dA = upload(s, ha, sizeof(ha)), dB = upload(s, hb, sizeof(hb)),
                 dC = upload(s, hc, sizeof(hc)),
                 dD = upload(s, NULL, sizeof(out));
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB),
                     tilusArgPointer(dC), tilusArgPointer(dD)};
  bool guard = dA && dB && dC && dD &&
               launch(s, artifact, "mma_f16_acc", args, 4) &&
               download(s, out, dD, sizeof(out));
  reportOutcome(s, name, target, M, N, guard && !memcmp(out, want, sizeof(out)),
                guard);
  TilusDevicePtr ptrs[] = {dA, dB, dC, dD};
  freeAll(s, ptrs, 4);
  tilusArtifactDestroy(artifact);
}
