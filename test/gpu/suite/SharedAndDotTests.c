//===- SharedAndDotTests.c - Shared memory and Dot
//--------------------------===//
//
// Shared tensors and CopyAsync, Dot on each path (SIMT, mma.sync), and the
// matmul examples and the generated pipelined matmuls.
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

// Shared memory (test/gpu/kernels/shared_f16.mlir): a register tile through
// stage 1 of a swizzled two-stage buffer and back in another layout, and
// CopyAsync of edge tiles (zero-filled past the edge) read back from shared
// memory into an output padded to whole 64 x 64 tiles, by cp.async (when N
// is a multiple of 8) and element by element.
void testShared(Suite *s, const char *target, int64_t M, int64_t N) {
  const char *name = "shared_f16";
  TilusArtifact *artifact = loadArtifact(s, name, target);
  if (!artifact) {
    for (int k = 0; k < 3; ++k)
      report(s, name, target, M, N, false, "no artifact");
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
  reportOutcome(s, "shared_f16.roundtrip", target, 64, 64,
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
  TilusDevicePtr dIn = upload(s, in, inCount * 2),
                 dOut = upload(s, NULL, outCount * 2);
  TilusArg asyncArgs[] = {tilusArgPointer(dIn), tilusArgPointer(dOut),
                          tilusArgInteger(M),   tilusArgInteger(N / 8),
                          tilusArgInteger(Mp),  tilusArgInteger(Np)};
  if (N % 8 == 0) { // the cp.async path takes N / 8
    guard = dIn && dOut && launch(s, artifact, "async", asyncArgs, 6) &&
            download(s, out, dOut, outCount * 2);
    reportOutcome(s, "shared_f16.async", target, M, N,
                  guard && !memcmp(out, want, outCount * 2), guard);
  }
  tilusRuntimeFree(s->rt, dOut, &err);
  // The element-by-element path: N not provably a multiple of 8.
  dOut = upload(s, NULL, outCount * 2);
  asyncArgs[1] = tilusArgPointer(dOut);
  asyncArgs[3] = tilusArgInteger(N);
  guard = dIn && dOut && launch(s, artifact, "async_unaligned", asyncArgs, 6) &&
          download(s, out, dOut, outCount * 2);
  reportOutcome(s, "shared_f16.async_unaligned", target, M, N,
                guard && !memcmp(out, want, outCount * 2), guard);
  tilusRuntimeFree(s->rt, dIn, &err);
  tilusRuntimeFree(s->rt, dOut, &err);
  free(in), free(out), free(want);
  tilusArtifactDestroy(artifact);
}

// 8-bit elements through ldmatrix (and stmatrix on sm_90a)
// (test/gpu/kernels/shared_i8.mlir): a 64x64 i8 tile through shared memory
// in the mma.sync s8 A fragment layout and back must come out unchanged.
void testSharedI8(Suite *s, const char *target) {
  const char *name = "shared_i8.roundtrip";
  TilusArtifact *artifact = loadArtifact(s, "shared_i8", target);
  if (!artifact) {
    report(s, name, target, 64, 64, false, "no artifact");
    return;
  }
  TilusRuntimeError err;
  uint8_t tile[64 * 64], back[64 * 64];
  uint32_t state = 777u;
  for (int k = 0; k < 64 * 64; ++k)
    tile[k] = (uint8_t)(nextRandom(&state) >> 8);
  TilusDevicePtr dTile = upload(s, tile, sizeof(tile)),
                 dBack = upload(s, NULL, sizeof(back));
  TilusArg args[] = {tilusArgPointer(dTile), tilusArgPointer(dBack)};
  bool guard = dTile && dBack && launch(s, artifact, "roundtrip", args, 2) &&
               download(s, back, dBack, sizeof(back));
  reportOutcome(s, name, target, 64, 64, guard && !memcmp(tile, back, sizeof(tile)), guard);
  tilusRuntimeFree(s->rt, dTile, &err);
  tilusRuntimeFree(s->rt, dBack, &err);
  tilusArtifactDestroy(artifact);
}

// Dot on each path (test/gpu/kernels/dot_kernels.mlir): the SIMT fallback
// (f32), mma.sync m16n8k16 (bf16 -> f32) and m16n8k32 (s8 -> s32), with
// small integers so that every sum is exact; compared with a CPU matmul.
void testDotPaths(Suite *s, const char *target) {
  TilusArtifact *artifact = loadArtifact(s, "dot_kernels", target);
  static const struct {
    const char *kernel;
    int64_t M, N, K;
    int kind; // 0 f32, 1 bf16 -> f32, 2 s8 -> s32
  } cases[] = {{"simt_f32", 16, 16, 16, 0},
               {"mma_bf16", 32, 16, 32, 1},
               {"mma_s8", 32, 16, 64, 2}};
  for (int c = 0; c < 3; ++c) {
    char name[48];
    snprintf(name, sizeof(name), "dot_kernels.%s", cases[c].kernel);
    if (!artifact) {
      report(s, name, target, 0, 0, false, "no artifact");
      continue;
    }
    int64_t M = cases[c].M, N = cases[c].N, K = cases[c].K;
    size_t inBytes = cases[c].kind == 0 ? 4 : cases[c].kind == 1 ? 2 : 1;
    uint8_t *a = malloc((size_t)(M * K) * inBytes),
            *b = malloc((size_t)(K * N) * inBytes);
    int *ai = malloc(sizeof(int) * (size_t)(M * K)),
        *bi = malloc(sizeof(int) * (size_t)(K * N));
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
    TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dB),
                       tilusArgPointer(dC)};
    bool guard = dA && dB && dC &&
                 launch(s, artifact, cases[c].kernel, args, 3) &&
                 download(s, out, dC, sizeof(uint32_t) * (size_t)(M * N));
    reportOutcome(
        s, name, target, M, N,
        guard && !memcmp(out, want, sizeof(uint32_t) * (size_t)(M * N)), guard);
    TilusRuntimeError ignored;
    tilusRuntimeFree(s->rt, dA, &ignored);
    tilusRuntimeFree(s->rt, dB, &ignored);
    tilusRuntimeFree(s->rt, dC, &ignored);
    free(a), free(b), free(ai), free(bi), free(out), free(want);
  }
  tilusArtifactDestroy(artifact);
}

// The pipelined f16 matmul (examples/python/matmul_pipelined_f16.py; the
// paper's Figure 14 with an f16 B, and the naive
// examples/matmul_naive_f16.mlir) on M x N x K, M not a multiple of the tile
// (zero-filled copies, masked stores): integers in [-2, 2], so the f32 sums
// are exact and their f16 values are exact below 2048.
void testGemm(Suite *s, const char *target, const char *stem, int64_t BM,
              int64_t BN, int64_t BK, int64_t M, int64_t N, int64_t K) {
  // The kernel's grid comes from M (its rows per block are BM, documented in
  // the calls); only the N and K tile counts are arguments.
  (void)BM;
  TilusArtifact *artifact = loadArtifact(s, stem, target);
  if (!artifact) {
    report(s, stem, target, M, N, false, "no artifact");
    return;
  }
  uint16_t *a = malloc(2 * (size_t)(M * K)), *b = malloc(2 * (size_t)(K * N)),
           *c = malloc(2 * (size_t)(M * N)),
           *want = malloc(2 * (size_t)(M * N));
  int *ai = malloc(sizeof(int) * (size_t)(M * K)),
      *bi = malloc(sizeof(int) * (size_t)(K * N));
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
  TilusDevicePtr dA = upload(s, a, 2 * (size_t)(M * K)),
                 dB = upload(s, b, 2 * (size_t)(K * N)),
                 dC = upload(s, NULL, 2 * (size_t)(M * N));
  TilusArg args[] = {tilusArgPointer(dA),     tilusArgPointer(dB),
                     tilusArgPointer(dC),     tilusArgInteger(M),
                     tilusArgInteger(N / BN), tilusArgInteger(K / BK)};
  bool guard = dA && dB && dC && launch(s, artifact, "matmul", args, 6) &&
               download(s, c, dC, 2 * (size_t)(M * N));
  bool ok = guard && !memcmp(c, want, 2 * (size_t)(M * N));
  for (int64_t k = 0; guard && !ok && k < M * N; ++k)
    if (c[k] != want[k]) {
      fprintf(stderr, "  %s: first difference at [%lld, %lld]: %g (want %g)\n",
              stem, (long long)(k / N), (long long)(k % N), halfToFloat(c[k]),
              halfToFloat(want[k]));
      break;
    }
  reportOutcome(s, stem, target, M, N, ok, guard);
  TilusRuntimeError ignored;
  tilusRuntimeFree(s->rt, dA, &ignored);
  tilusRuntimeFree(s->rt, dB, &ignored);
  tilusRuntimeFree(s->rt, dC, &ignored);
  free(a), free(b), free(c), free(want), free(ai), free(bi);
  tilusArtifactDestroy(artifact);
}
