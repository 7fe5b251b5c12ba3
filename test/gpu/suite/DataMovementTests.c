//===- DataMovementTests.c - Reduce and layout changes on the GPU ---------===//
//
// The kernels of test/gpu/kernels/reduce.mlir and relayout.mlir, one tile
// each, on random inputs, against a CPU reference bit for bit. Float inputs
// are small integers, so every sum is exact in any order (the f16 row sums
// stay below 2048, exact in f16); integer sums wrap like the reference's
// unsigned arithmetic.
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A kernel of artifact `stem` whose arguments are all buffers, reported as
// "stem.kernel".
static void runCase(Suite *s, const char *target, const char *stem,
                    const char *kernel, Buffer *buffers, int n) {
  char name[96];
  snprintf(name, sizeof(name), "%s.%s", stem, kernel);
  runBuffers(s, target, stem, kernel, name, buffers, n, NULL, 0);
}

// The f16 bits of an integer |v| <= 2048 (exact in f16).
static uint16_t halfOfInt(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = (unsigned)(v < 0 ? -v : v);
  int e = 0;
  while ((a >> (e + 1)) != 0)
    ++e;
  unsigned mantissa = (a << (10 - e)) & 0x3ff;
  return (uint16_t)(sign | (unsigned)((e + 15) << 10) | mantissa);
}

static int smallInt(uint32_t *state, int range) {
  return (int)(nextRandom(state) % (uint32_t)(2 * range + 1)) - range;
}

static void testReduceF32(Suite *s, const char *target) {
  enum { R = 32, C = 8 };
  float src[R * C], rowSum[R], colMax[C], rowMin[R];
  uint32_t state = 2024u;
  for (int k = 0; k < R * C; ++k)
    src[k] = (float)smallInt(&state, 8);
  for (int r = 0; r < R; ++r) {
    rowSum[r] = 0.0f;
    rowMin[r] = src[r * C];
    for (int c = 0; c < C; ++c) {
      rowSum[r] += src[r * C + c];
      rowMin[r] = src[r * C + c] < rowMin[r] ? src[r * C + c] : rowMin[r];
    }
  }
  for (int c = 0; c < C; ++c) {
    colMax[c] = src[c];
    for (int r = 0; r < R; ++r)
      colMax[c] = src[r * C + c] > colMax[c] ? src[r * C + c] : colMax[c];
  }
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, rowSum, sizeof(rowSum), "row sums"},
                {NULL, colMax, sizeof(colMax), "column maxima"},
                {NULL, rowMin, sizeof(rowMin), "row minima"}};
  runCase(s, target, "reduce", "reduce_f32", b, 4);
}

static void testReduceF16(Suite *s, const char *target) {
  enum { R = 8, C = 256 };
  uint16_t src[R * C], rowSum[R], rowMax[R];
  uint32_t state = 77u;
  int values[R * C];
  for (int k = 0; k < R * C; ++k) {
    values[k] = smallInt(&state, 4);
    src[k] = halfOfInt(values[k]);
  }
  for (int r = 0; r < R; ++r) {
    int sum = 0, max = values[r * C];
    for (int c = 0; c < C; ++c) {
      sum += values[r * C + c];
      max = values[r * C + c] > max ? values[r * C + c] : max;
    }
    rowSum[r] = halfOfInt(sum);
    rowMax[r] = halfOfInt(max);
  }
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, rowSum, sizeof(rowSum), "row sums"},
                {NULL, rowMax, sizeof(rowMax), "row maxima"}};
  runCase(s, target, "reduce", "reduce_f16", b, 3);
}

static void testReduceInt(Suite *s, const char *target) {
  enum { R = 16, C = 64 };
  uint32_t src[R * C], colSum[C] = {0}, rowSum[R] = {0};
  uint8_t usrc[R * C], umin[R];
  uint32_t state = 5u;
  for (int k = 0; k < R * C; ++k) {
    src[k] = nextRandom(&state) * 2654435761u; // the full range: sums wrap
    usrc[k] = (uint8_t)(nextRandom(&state) >> 7);
  }
  for (int r = 0; r < R; ++r) {
    umin[r] = usrc[r * C];
    for (int c = 0; c < C; ++c) {
      rowSum[r] += src[r * C + c];
      colSum[c] += src[r * C + c];
      umin[r] = usrc[r * C + c] < umin[r] ? usrc[r * C + c] : umin[r];
    }
  }
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, colSum, sizeof(colSum), "column sums"},
                {NULL, rowSum, sizeof(rowSum), "row sums"},
                {usrc, NULL, sizeof(usrc), "ui8 src"},
                {NULL, umin, sizeof(umin), "ui8 row minima"}};
  runCase(s, target, "reduce", "reduce_int", b, 5);
}

static void testRelayout(Suite *s, const char *target) {
  enum { R = 32, C = 8 };
  float src[R * C], trans[C * R];
  uint16_t src16[R * C];
  uint32_t state = 99u;
  for (int k = 0; k < R * C; ++k) {
    int v = smallInt(&state, 1000);
    src[k] = (float)v * 0.25f;
    src16[k] = halfOfInt(v);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      trans[c * R + r] = src[r * C + c];
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {src16, NULL, sizeof(src16), "src16"},
                {NULL, src, sizeof(src), "rows"},
                {NULL, src, sizeof(src), "cols"},
                {NULL, trans, sizeof(trans), "trans"},
                {NULL, trans, sizeof(trans), "trans2"},
                {NULL, src, sizeof(src), "flat"},
                {NULL, src16, sizeof(src16), "rows16"},
                {NULL, src16, sizeof(src16), "lanes16"}};
  runCase(s, target, "relayout", "relayout", b, 9);
}

static void testReduce3d(Suite *s, const char *target) {
  enum { A = 4, B = 8, C = 16 };
  int32_t src[A * B * C], sum02[B] = {0}, max1[A * C];
  uint32_t state = 31u;
  for (int k = 0; k < A * B * C; ++k)
    src[k] = smallInt(&state, 100000);
  for (int a = 0; a < A; ++a)
    for (int c = 0; c < C; ++c) {
      max1[a * C + c] = src[a * B * C + c];
      for (int b = 0; b < B; ++b) {
        int32_t v = src[(a * B + b) * C + c];
        sum02[b] += v;
        max1[a * C + c] = v > max1[a * C + c] ? v : max1[a * C + c];
      }
    }
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, sum02, sizeof(sum02), "sums over dims 0 and 2"},
                {NULL, max1, sizeof(max1), "maxima over dim 1"}};
  runCase(s, target, "reduce", "reduce_3d", b, 3);
}

static void testReduceI64(Suite *s, const char *target) {
  enum { R = 16, C = 64 };
  uint64_t src[R * C], colSum[C] = {0}, rowSum[R] = {0};
  uint32_t state = 64u;
  for (int k = 0; k < R * C; ++k) { // the full range: sums wrap
    uint64_t high = nextRandom(&state);
    src[k] = high << 40 ^ nextRandom(&state);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      rowSum[r] += src[r * C + c];
      colSum[c] += src[r * C + c];
    }
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, colSum, sizeof(colSum), "column sums"},
                {NULL, rowSum, sizeof(rowSum), "row sums"}};
  runCase(s, target, "reduce", "reduce_i64", b, 3);
}

static void testReduceArg(Suite *s, const char *target) {
  enum { R = 8, C = 256, IR = 16, IC = 64 };
  float src[R * C];
  int32_t amax[R], isrc[IR * IC], amin[IC], umax[IR];
  uint8_t usrc[IR * IC];
  uint32_t state = 808u;
  // Few distinct values: many ties, which the lowest index must win.
  for (int k = 0; k < R * C; ++k)
    src[k] = (float)smallInt(&state, 4);
  for (int k = 0; k < IR * IC; ++k) {
    isrc[k] = smallInt(&state, 3);
    usrc[k] = (uint8_t)(250 + nextRandom(&state) % 6);
  }
  for (int r = 0; r < R; ++r) {
    amax[r] = 0;
    for (int c = 1; c < C; ++c)
      if (src[r * C + c] > src[r * C + amax[r]])
        amax[r] = c;
  }
  for (int c = 0; c < IC; ++c) {
    amin[c] = 0;
    for (int r = 1; r < IR; ++r)
      if (isrc[r * IC + c] < isrc[amin[c] * IC + c])
        amin[c] = r;
  }
  for (int r = 0; r < IR; ++r) {
    umax[r] = 0;
    for (int c = 1; c < IC; ++c)
      if (usrc[r * IC + c] > usrc[r * IC + umax[r]])
        umax[r] = c;
  }
  Buffer b[] = {{src, NULL, sizeof(src), "f32 src"},
                {NULL, amax, sizeof(amax), "row argmax"},
                {isrc, NULL, sizeof(isrc), "i32 src"},
                {NULL, amin, sizeof(amin), "column argmin"},
                {usrc, NULL, sizeof(usrc), "ui8 src"},
                {NULL, umax, sizeof(umax), "ui8 row argmax"}};
  runCase(s, target, "reduce", "reduce_arg", b, 6);
}

static void testReduceShort(Suite *s, const char *target) {
  enum { R = 6, C = 16 };
  float src[R * C], rowSum[R], colMax[C];
  uint32_t state = 48u;
  for (int k = 0; k < R * C; ++k)
    src[k] = (float)smallInt(&state, 50);
  for (int r = 0; r < R; ++r) {
    rowSum[r] = 0.0f;
    for (int c = 0; c < C; ++c)
      rowSum[r] += src[r * C + c];
  }
  for (int c = 0; c < C; ++c) {
    colMax[c] = src[c];
    for (int r = 1; r < R; ++r)
      colMax[c] = src[r * C + c] > colMax[c] ? src[r * C + c] : colMax[c];
  }
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, rowSum, sizeof(rowSum), "row sums"},
                {NULL, colMax, sizeof(colMax), "column maxima"}};
  runCase(s, target, "reduce", "reduce_short", b, 3);
}

static void testRelayoutWarps(Suite *s, const char *target) {
  enum { R = 64, C = 32 };
  float src[R * C];
  uint32_t state = 4242u;
  for (int k = 0; k < R * C; ++k)
    src[k] = (float)smallInt(&state, 5000) * 0.5f;
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, src, sizeof(src), "column segments"},
                {NULL, src, sizeof(src), "column-major blocks"},
                {NULL, src, sizeof(src), "lane-permuted blocks"}};
  runCase(s, target, "relayout", "relayout_warps", b, 4);
}

static void testRelayoutU4(Suite *s, const char *target) {
  enum { BYTES = 32 * 8 / 2 }; // compact: two 4-bit elements a byte
  uint8_t src[BYTES];
  uint32_t state = 404u;
  for (int k = 0; k < BYTES; ++k)
    src[k] = (uint8_t)(nextRandom(&state) >> 5);
  Buffer b[] = {{src, NULL, sizeof(src), "src"},
                {NULL, src, sizeof(src), "rows"},
                {NULL, src, sizeof(src), "column-major slots"}};
  runCase(s, target, "relayout", "relayout_u4", b, 3);
}

// test/gpu/kernels/thread_groups.mlir: two groups of 128 threads at once,
// a Reduce across the warps of one and an exchange through shared memory in
// the other, each on its own barrier; small integers keep the sums exact.
static void testThreadGroups(Suite *s, const char *target) {
  enum { R = 8, C = 128 };
  float x[R * C], want0[4] = {0}, want1[4 * C];
  uint32_t state = 515u;
  for (int i = 0; i < R * C; ++i)
    x[i] = (float)((int)(nextRandom(&state) % 201) - 100);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < C; ++c) {
      want0[r] += x[r * C + c];
      want1[r * C + c] = 2 * x[(4 + r) * C + c];
    }
  Buffer b[] = {{x, NULL, sizeof x, "x"},
                {NULL, want0, sizeof want0, "y0"},
                {NULL, want1, sizeof want1, "y1"}};
  runBuffers(s, target, "thread_groups", "thread_groups", "thread_groups", b, 3, NULL, 0);
}

void testDataMovement(Suite *s, const char *target) {
  testReduceF32(s, target);
  testReduceF16(s, target);
  testReduceInt(s, target);
  testReduce3d(s, target);
  testReduceI64(s, target);
  testReduceArg(s, target);
  testReduceShort(s, target);
  testRelayout(s, target);
  testRelayoutWarps(s, target);
  testRelayoutU4(s, target);
  testThreadGroups(s, target);
}
