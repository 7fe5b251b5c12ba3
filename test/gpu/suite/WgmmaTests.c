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
  enum { N = 128 };
  float x[N], wantY[N], wantZ[N];
  uint32_t state = 77u;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    wantY[i] = 2 * x[i] + 1;
    wantZ[i] = 2 * x[i];
  }
  Buffer b[] = {{x, NULL, sizeof x, "x"},
                {NULL, wantY, sizeof wantY, "y"},
                {NULL, wantZ, sizeof wantZ, "z"}};
  runBuffers(s, "sm_90a", "mbarrier", "mbarrier_rounds", "mbarrier.mbarrier_rounds", b, 3,
             NULL, 0);
}

// test/gpu/kernels/tma.mlir: three tensor-memory copies per block (128- and
// 64-byte swizzled, row-major) of a [150, 128] f16 tensor, read back
// through their layouts; every element is compared bit for bit with the
// source (zeros past its edges).
void testTma(Suite *s) {
  enum { M = 150, K = 128, Blocks = (M + 63) / 64 };
  static uint16_t a[M * K], w1[192 * 128], w2[96 * 64], w3[48 * 32];
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
  Buffer b[] = {{a, NULL, sizeof a, "a"},
                {NULL, w1, sizeof w1, "y1"},
                {NULL, w2, sizeof w2, "y2"},
                {NULL, w3, sizeof w3, "y3"}};
  TilusArg sizes[] = {tilusArgInteger(M), tilusArgInteger(K)};
  runBuffers(s, "sm_90a", "tma", "tma_tiles", "tma.tma_tiles", b, 4, sizes, 2);
}

// test/gpu/kernels/tma.mlir's tma_store_tiles: y gets all of a [150, 128]
// through 128-byte swizzled tiles, z the [16, 32] tiles at rows 64b + 3,
// columns 104 on (clipped at the edges; written with async_writes, the
// shared tile zeroed right after); the rest of z keeps its values.
void testTmaStore(Suite *s) {
  enum { M = 150, K = 128, Blocks = (M + 63) / 64 };
  static uint16_t a[M * K], z[M * K], wantZ[M * K];
  uint32_t state = 4242u;
  for (int i = 0; i < M * K; ++i) {
    a[i] = (uint16_t)(nextRandom(&state) % 0x7C00u | (nextRandom(&state) & 1u) << 15);
    z[i] = wantZ[i] = (uint16_t)(nextRandom(&state) % 0x7C00u);
  }
  for (int b = 0; b < Blocks; ++b)
    for (int r = 64 * b + 3; r < 64 * b + 19 && r < M; ++r)
      for (int c = 104; c < 136 && c < K; ++c)
        wantZ[r * K + c] = a[r * K + c];
  Buffer b[] = {{a, NULL, sizeof a, "a"},
                {NULL, a, sizeof a, "y"},
                {z, wantZ, sizeof z, "z"}};
  TilusArg sizes[] = {tilusArgInteger(M), tilusArgInteger(K)};
  runBuffers(s, "sm_90a", "tma", "tma_store_tiles", "tma.tma_store_tiles", b, 3, sizes, 2);
}

// test/gpu/kernels/mbarrier.mlir's mbarrier_handoff: a producer thread group
// hands a tile to a consumer group through an mbarrier alone.
void testMbarrierHandoff(Suite *s) {
  enum { N = 128 };
  float x[N], want[N];
  uint32_t state = 78u;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    want[i] = x[i] + 1;
  }
  Buffer b[] = {{x, NULL, sizeof x, "x"}, {NULL, want, sizeof want, "y"}};
  runBuffers(s, "sm_90a", "mbarrier", "mbarrier_handoff", "mbarrier.mbarrier_handoff", b, 2,
             NULL, 0);
}

// test/gpu/kernels/mbarrier.mlir's copy_async_handoff: the producer group's
// arrivals are made when its cp.async copies land, with no wait of its own.
void testCopyAsyncHandoff(Suite *s) {
  enum { N = 32 * 32 };
  float x[N], want[N];
  uint32_t state = 79u;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    want[i] = x[i] + 1;
  }
  Buffer b[] = {{x, NULL, sizeof x, "x"}, {NULL, want, sizeof want, "y"}};
  runBuffers(s, "sm_90a", "mbarrier", "copy_async_handoff", "mbarrier.copy_async_handoff",
             b, 2, NULL, 0);
}

// test/gpu/kernels/setmaxnreg.mlir: a group of 128 threads down to 40
// registers, a group of 256 up to 232 holding a 128-element row each; both
// outputs against the CPU (small integers: exact).
void testSetMaxRegisters(Suite *s) {
  enum { R = 256, C = 128 };
  static float x[R * C], want1[R * C];
  float want0[128 * 4];
  uint32_t state = 91u;
  for (int i = 0; i < R * C; ++i) {
    x[i] = (float)((int)(nextRandom(&state) % 2001) - 1000);
    want1[i] = 3 * x[i] + 1;
  }
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 4; ++c)
      want0[r * 4 + c] = 2 * x[r * C + c] + 1;
  Buffer b[] = {{x, NULL, sizeof x, "x"},
                {NULL, want0, sizeof want0, "y0"},
                {NULL, want1, sizeof want1, "y1"}};
  runBuffers(s, "sm_90a", "setmaxnreg", "setmaxnreg", "setmaxnreg", b, 3, NULL, 0);
}

// test/gpu/kernels/cluster.mlir: six blocks in clusters of two; each adds
// 1000 x its rank in the cluster (block b: b mod 2) to its 32 elements.
void testClusterRanks(Suite *s) {
  enum { B = 6, N = 32 * B };
  int32_t x[N], want[N];
  uint32_t state = 17u;
  for (int i = 0; i < N; ++i) {
    x[i] = (int32_t)(nextRandom(&state) % 100000) - 50000;
    want[i] = x[i] + 1000 * ((i / 32) % 2);
  }
  Buffer b[] = {{x, NULL, sizeof x, "x"}, {NULL, want, sizeof want, "y"}};
  TilusArg blocks = tilusArgInteger(B);
  runBuffers(s, "sm_90a", "cluster", "cluster_ranks", "cluster", b, 2, &blocks, 1);
}

// test/gpu/kernels/tma_multicast.mlir: two clusters of two blocks; each
// block of cluster c receives rows 32c .. 32c + 31 of x, half of them from
// its own multicast copy and half from its partner's, and stores them to
// its 32 rows of y; remote arrivals gate the end.
void testTmaMulticast(Suite *s) {
  enum { Blocks = 4, M = 32 * Blocks / 2, K = 64 };
  uint16_t x[M * K], want[32 * Blocks * K];
  uint32_t state = 313u;
  for (int i = 0; i < M * K; ++i) // finite f16 values of both signs
    x[i] = (uint16_t)(nextRandom(&state) % 0x7C00u | (nextRandom(&state) & 1u) << 15);
  for (int b = 0; b < Blocks; ++b)
    memcpy(want + b * 32 * K, x + (b / 2) * 32 * K, 32 * K * sizeof(uint16_t));
  Buffer b[] = {{x, NULL, sizeof x, "x"}, {NULL, want, sizeof want, "y"}};
  TilusArg sizes[] = {tilusArgInteger(M), tilusArgInteger(Blocks)};
  runBuffers(s, "sm_90a", "tma_multicast", "tma_multicast", "tma_multicast", b, 2, sizes, 2);
}
