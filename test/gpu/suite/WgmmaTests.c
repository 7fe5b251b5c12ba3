//===- WgmmaTests.c - Hopper: wgmma against a CPU product, mbarriers -------===//
//
// The kernels of kernels/wgmma.mlir (sm_90a only): C = A x W^T for
// row-major A [M, K] and W [N, K] of small random integers, so every f32
// sum is exact and the comparison is bit for bit; int8 takes the whole
// signed range into i32; FP8 (e4m3, e5m2) encodes the same small integers
// (tilusFloatFormatEncode: OCP's formats). kernels/mbarrier.mlir: two rounds through shared
// memory ordered by mbarriers, against the CPU.
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include "tilus-c/FloatFormat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F16, BF16, S8, E4M3, E5M2 } Kind;

static void runCase(Suite *s, const char *kernel, Kind kind, int64_t M,
                    int64_t N, int64_t K) {
  char name[96];
  snprintf(name, sizeof name, "wgmma.%s", kernel);
  TilusArtifact *artifact = loadArtifact(s, "wgmma", "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", M, N, false, "no artifact");
    return;
  }
  bool fp8 = kind == E4M3 || kind == E5M2;
  TilusFloatFormat format = {kind == E4M3 ? 4 : 5, kind == E4M3 ? 3 : 2};
  size_t elementBytes = kind == S8 || fp8 ? 1 : 2;
  int *a = malloc(sizeof(int) * (size_t)(M * K));
  int *w = malloc(sizeof(int) * (size_t)(N * K));
  void *ha = malloc(elementBytes * (size_t)(M * K));
  void *hw = malloc(elementBytes * (size_t)(N * K));
  int32_t *want = malloc(4 * (size_t)(M * N)), *out = malloc(4 * (size_t)(M * N));
  uint32_t state = 1234u + (uint32_t)M * 7u + (uint32_t)kind;
  for (int64_t i = 0; i < M * K + N * K; ++i) {
    bool isA = i < M * K;
    int64_t j = isA ? i : i - M * K;
    int v = kind == S8 ? (int)(nextRandom(&state) % 256) - 128
                       : (int)(nextRandom(&state) % 7) - 3;
    (isA ? a : w)[j] = v;
    void *h = isA ? ha : hw;
    if (kind == S8)
      ((int8_t *)h)[j] = (int8_t)v;
    else if (fp8)
      ((uint8_t *)h)[j] = (uint8_t)tilusFloatFormatEncode(format, v);
    else
      ((uint16_t *)h)[j] = kind == F16 ? halfBits((float)v) : bf16Bits((float)v);
  }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int32_t sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += a[m * K + k] * w[n * K + k];
      if (kind == S8) {
        want[m * N + n] = sum;
      } else {
        float f = (float)sum;
        memcpy(&want[m * N + n], &f, 4);
      }
    }
  TilusDevicePtr dA = upload(s, ha, elementBytes * (size_t)(M * K));
  TilusDevicePtr dW = upload(s, hw, elementBytes * (size_t)(N * K));
  TilusDevicePtr dC = upload(s, NULL, 4 * (size_t)(M * N));
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dW),
                     tilusArgPointer(dC)};
  bool guard = dA && dW && dC && launch(s, artifact, kernel, args, 3) &&
               download(s, out, dC, 4 * (size_t)(M * N));
  bool same = guard && !memcmp(out, want, 4 * (size_t)(M * N));
  for (int64_t i = 0, shown = 0; guard && !same && i < M * N && shown < 4; ++i)
    if (out[i] != want[i]) {
      float g, x;
      memcpy(&g, &out[i], 4), memcpy(&x, &want[i], 4);
      printf("  %s: C[%lld, %lld] is %g (bits %08x), want %g\n", name,
             (long long)(i / N), (long long)(i % N), kind == S8 ? out[i] : g,
             (unsigned)out[i], kind == S8 ? want[i] : x);
      ++shown;
    }
  reportOutcome(s, name, "sm_90a", M, N, same, guard);
  TilusDevicePtr ptrs[] = {dA, dW, dC};
  freeAll(s, ptrs, 3);
  free(a), free(w), free(ha), free(hw), free(want), free(out);
  tilusArtifactDestroy(artifact);
}

void testWgmma(Suite *s) {
  runCase(s, "ss_f16", F16, 64, 64, 64);
  runCase(s, "rs_f16", F16, 64, 64, 64);
  runCase(s, "ss_bf16_2wg", BF16, 128, 128, 128);
  runCase(s, "ss_s8", S8, 64, 64, 64);
  runCase(s, "ss_e4m3", E4M3, 64, 64, 64);
  runCase(s, "ss_e5m2", E5M2, 64, 64, 64);
  runCase(s, "loop_f16_2wg", F16, 64, 128, 128);
}

// mbarrier_rounds: y = 2 x + 1 and z = 2 x ([4, 32] f32), each element
// written to shared memory by one thread and read back by another.
void testMbarrier(Suite *s) {
  const char *name = "mbarrier.mbarrier_rounds";
  TilusArtifact *artifact = loadArtifact(s, "mbarrier", "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 4, 32, false, "no artifact");
    return;
  }
  enum { N = 128 };
  float x[N], y[N], z[N], wantY[N], wantZ[N];
  uint32_t state = 77u;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    wantY[i] = 2 * x[i] + 1;
    wantZ[i] = 2 * x[i];
  }
  TilusDevicePtr dX = upload(s, x, sizeof x), dY = upload(s, NULL, sizeof y),
                 dZ = upload(s, NULL, sizeof z);
  TilusArg args[] = {tilusArgPointer(dX), tilusArgPointer(dY), tilusArgPointer(dZ)};
  bool guard = dX && dY && dZ && launch(s, artifact, "mbarrier_rounds", args, 3) &&
               download(s, y, dY, sizeof y) && download(s, z, dZ, sizeof z);
  reportOutcome(s, name, "sm_90a", 4, 32,
                guard && !memcmp(y, wantY, sizeof y) && !memcmp(z, wantZ, sizeof z),
                guard);
  TilusDevicePtr ptrs[] = {dX, dY, dZ};
  freeAll(s, ptrs, 3);
  tilusArtifactDestroy(artifact);
}

// test/gpu/kernels/tma.mlir: three tensor-memory copies per block (128- and
// 64-byte swizzled, row-major) of a [150, 128] f16 tensor, read back
// through their layouts; every element is compared bit for bit with the
// source (zeros past its edges).
void testTma(Suite *s) {
  const char *name = "tma.tma_tiles";
  TilusArtifact *artifact = loadArtifact(s, "tma", "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 150, 128, false, "no artifact");
    return;
  }
  enum { M = 150, K = 128, Blocks = (M + 63) / 64 };
  uint16_t a[M * K], y1[192 * 128], y2[96 * 64], y3[48 * 32];
  uint16_t w1[192 * 128], w2[96 * 64], w3[48 * 32];
  uint32_t state = 991u;
  for (int i = 0; i < M * K; ++i) // finite f16 values of both signs
    a[i] = (uint16_t)(nextRandom(&state) % 0x7C00u | (nextRandom(&state) & 1u) << 15);
  // The tile of a at (row, col) of `rows` x `cols`, zeros outside a.
  for (int b = 0; b < Blocks; ++b) {
    struct {
      uint16_t *want;
      int rows, cols, row, col, outRow, width;
    } tiles[] = {{w1, 64, 128, 64 * b, 0, 64 * b, 128},
                 {w2, 32, 64, 64 * b + 40, 16, 32 * b, 64},
                 {w3, 16, 32, 64 * b + 3, 104, 16 * b, 32}};
    for (int t = 0; t < 3; ++t)
      for (int r = 0; r < tiles[t].rows; ++r)
        for (int c = 0; c < tiles[t].cols; ++c) {
          int gr = tiles[t].row + r, gc = tiles[t].col + c;
          tiles[t].want[(tiles[t].outRow + r) * tiles[t].width + c] =
              gr < M && gc < K ? a[gr * K + gc] : 0;
        }
  }
  TilusDevicePtr dA = upload(s, a, sizeof a), d1 = upload(s, NULL, sizeof y1),
                 d2 = upload(s, NULL, sizeof y2), d3 = upload(s, NULL, sizeof y3);
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(d1),
                     tilusArgPointer(d2), tilusArgPointer(d3),
                     tilusArgInteger(M),  tilusArgInteger(K)};
  bool guard = dA && d1 && d2 && d3 && launch(s, artifact, "tma_tiles", args, 6) &&
               download(s, y1, d1, sizeof y1) && download(s, y2, d2, sizeof y2) &&
               download(s, y3, d3, sizeof y3);
  reportOutcome(s, name, "sm_90a", M, K,
                guard && !memcmp(y1, w1, sizeof y1) && !memcmp(y2, w2, sizeof y2) &&
                    !memcmp(y3, w3, sizeof y3),
                guard);
  TilusDevicePtr ptrs[] = {dA, d1, d2, d3};
  freeAll(s, ptrs, 4);
  tilusArtifactDestroy(artifact);
}

// test/gpu/kernels/tma.mlir's tma_store_tiles: y gets all of a [150, 128]
// through 128-byte swizzled tiles, z the [16, 32] tiles at rows 64b + 3,
// columns 104 on (clipped at the edges); the rest of z keeps its values.
void testTmaStore(Suite *s) {
  const char *name = "tma.tma_store_tiles";
  TilusArtifact *artifact = loadArtifact(s, "tma", "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 150, 128, false, "no artifact");
    return;
  }
  enum { M = 150, K = 128, Blocks = (M + 63) / 64 };
  uint16_t a[M * K], y[M * K], z[M * K], wantZ[M * K];
  uint32_t state = 4242u;
  for (int i = 0; i < M * K; ++i) {
    a[i] = (uint16_t)(nextRandom(&state) % 0x7C00u | (nextRandom(&state) & 1u) << 15);
    z[i] = wantZ[i] = (uint16_t)(nextRandom(&state) % 0x7C00u);
  }
  for (int b = 0; b < Blocks; ++b)
    for (int r = 64 * b + 3; r < 64 * b + 19 && r < M; ++r)
      for (int c = 104; c < 136 && c < K; ++c)
        wantZ[r * K + c] = a[r * K + c];
  TilusDevicePtr dA = upload(s, a, sizeof a), dY = upload(s, NULL, sizeof y),
                 dZ = upload(s, z, sizeof z);
  TilusArg args[] = {tilusArgPointer(dA), tilusArgPointer(dY), tilusArgPointer(dZ),
                     tilusArgInteger(M), tilusArgInteger(K)};
  bool guard = dA && dY && dZ && launch(s, artifact, "tma_store_tiles", args, 5) &&
               download(s, y, dY, sizeof y) && download(s, z, dZ, sizeof z);
  reportOutcome(s, name, "sm_90a", M, K,
                guard && !memcmp(y, a, sizeof y) && !memcmp(z, wantZ, sizeof z),
                guard);
  TilusDevicePtr ptrs[] = {dA, dY, dZ};
  freeAll(s, ptrs, 3);
  tilusArtifactDestroy(artifact);
}

// test/gpu/kernels/mbarrier.mlir's mbarrier_handoff: a producer thread group
// hands a tile to a consumer group through an mbarrier alone.
void testMbarrierHandoff(Suite *s) {
  const char *name = "mbarrier.mbarrier_handoff";
  TilusArtifact *artifact = loadArtifact(s, "mbarrier", "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 4, 32, false, "no artifact");
    return;
  }
  enum { N = 128 };
  float x[N], y[N], want[N];
  uint32_t state = 78u;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    want[i] = x[i] + 1;
  }
  TilusDevicePtr dX = upload(s, x, sizeof x), dY = upload(s, NULL, sizeof y);
  TilusArg args[] = {tilusArgPointer(dX), tilusArgPointer(dY)};
  bool guard = dX && dY && launch(s, artifact, "mbarrier_handoff", args, 2) &&
               download(s, y, dY, sizeof y);
  reportOutcome(s, name, "sm_90a", 4, 32, guard && !memcmp(y, want, sizeof y), guard);
  TilusDevicePtr ptrs[] = {dX, dY};
  freeAll(s, ptrs, 2);
  tilusArtifactDestroy(artifact);
}

// test/gpu/kernels/setmaxnreg.mlir: a group of 128 threads down to 40
// registers, a group of 256 up to 232 holding a 128-element row each; both
// outputs against the CPU (small integers: exact).
void testSetMaxRegisters(Suite *s) {
  const char *name = "setmaxnreg";
  TilusArtifact *artifact = loadArtifact(s, name, "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 256, 128, false, "no artifact");
    return;
  }
  enum { R = 256, C = 128 };
  static float x[R * C], y1[R * C], want1[R * C];
  float y0[128 * 4], want0[128 * 4];
  uint32_t state = 91u;
  for (int i = 0; i < R * C; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    want1[i] = 3 * x[i] + 1;
  }
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 4; ++c)
      want0[r * 4 + c] = 2 * x[r * C + c] + 1;
  TilusDevicePtr dX = upload(s, x, sizeof x), d0 = upload(s, NULL, sizeof y0),
                 d1 = upload(s, NULL, sizeof y1);
  TilusArg args[] = {tilusArgPointer(dX), tilusArgPointer(d0), tilusArgPointer(d1)};
  bool guard = dX && d0 && d1 && launch(s, artifact, name, args, 3) &&
               download(s, y0, d0, sizeof y0) && download(s, y1, d1, sizeof y1);
  reportOutcome(s, name, "sm_90a", R, C,
                guard && !memcmp(y0, want0, sizeof y0) && !memcmp(y1, want1, sizeof y1),
                guard);
  TilusDevicePtr ptrs[] = {dX, d0, d1};
  freeAll(s, ptrs, 3);
  tilusArtifactDestroy(artifact);
}

// test/gpu/kernels/cluster.mlir: six blocks in clusters of two; each adds
// 1000 x its rank in the cluster (block b: b mod 2) to its 32 elements.
void testClusterRanks(Suite *s) {
  const char *name = "cluster";
  TilusArtifact *artifact = loadArtifact(s, name, "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 6, 32, false, "no artifact");
    return;
  }
  enum { B = 6, N = 32 * B };
  int32_t x[N], y[N], want[N];
  uint32_t state = 17u;
  for (int i = 0; i < N; ++i) {
    x[i] = (int32_t)(nextRandom(&state) % 100000) - 50000;
    want[i] = x[i] + 1000 * ((i / 32) % 2);
  }
  TilusDevicePtr dX = upload(s, x, sizeof x), dY = upload(s, NULL, sizeof y);
  TilusArg args[] = {tilusArgPointer(dX), tilusArgPointer(dY), tilusArgInteger(B)};
  bool guard = dX && dY && launch(s, artifact, "cluster_ranks", args, 3) &&
               download(s, y, dY, sizeof y);
  reportOutcome(s, name, "sm_90a", B, 32, guard && !memcmp(y, want, sizeof y), guard);
  TilusDevicePtr ptrs[] = {dX, dY};
  freeAll(s, ptrs, 2);
  tilusArtifactDestroy(artifact);
}

// test/gpu/kernels/tma_multicast.mlir: two clusters of two blocks; each
// block of cluster c receives rows 32c .. 32c + 31 of x, half of them from
// its own multicast copy and half from its partner's, and stores them to
// its 32 rows of y; remote arrivals gate the end.
void testTmaMulticast(Suite *s) {
  const char *name = "tma_multicast";
  TilusArtifact *artifact = loadArtifact(s, name, "sm_90a");
  if (!artifact) {
    report(s, name, "sm_90a", 4, 32, false, "no artifact");
    return;
  }
  enum { Blocks = 4, M = 32 * Blocks / 2, K = 64 };
  uint16_t x[M * K], y[32 * Blocks * K], want[32 * Blocks * K];
  uint32_t state = 313u;
  for (int i = 0; i < M * K; ++i) // finite f16 values of both signs
    x[i] = (uint16_t)(nextRandom(&state) % 0x7C00u | (nextRandom(&state) & 1u) << 15);
  for (int b = 0; b < Blocks; ++b)
    memcpy(want + b * 32 * K, x + (b / 2) * 32 * K, 32 * K * sizeof(uint16_t));
  TilusDevicePtr dX = upload(s, x, sizeof x), dY = upload(s, NULL, sizeof y);
  TilusArg args[] = {tilusArgPointer(dX), tilusArgPointer(dY), tilusArgInteger(M),
                     tilusArgInteger(Blocks)};
  bool guard = dX && dY && launch(s, artifact, name, args, 4) &&
               download(s, y, dY, sizeof y);
  reportOutcome(s, name, "sm_90a", Blocks, 32, guard && !memcmp(y, want, sizeof y),
                guard);
  TilusDevicePtr ptrs[] = {dX, dY};
  freeAll(s, ptrs, 2);
  tilusArtifactDestroy(artifact);
}
