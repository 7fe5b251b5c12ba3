//===- QmatmulTests.c - The quantized matmul from C, through its table ----===//
//
// tilus-c/QuantizedMatmul.h on the GPU: the table that build-artifacts.sh
// exports (python3 -m tilus.ops.export: uint3 and uint8-with-offset-128
// weights for f16 activations, uint4-with-offset-8 for int8 activations,
// uint3 and uint4-with-offset-8 for FP8 (E4M3) ones, N = 256, K = 1024, with
// and without a bias where it is taken) is loaded, prepared and launched
// for several M, with weights packed here by tilusWeightPack, and compared
// with a CPU product in double: within 1e-3 of the largest output (the
// kernel sums in f32 and rounds to f16 once). At N = 256 the f16 mma.sync
// entries split K, so their launches also check the caller's scratch; above
// M = 32 the f16 entries without a bias are wgmma kernels (from M = 65 on
// a stream-K grid: at M = 100, 16 blocks of one k tile, 8 to a tile, whose
// partials and counters the launch also checks), and the FP8
// entries always are (the table's artifacts are all sm_90a). Zero points as
// uint8 codes (GPTQ style, zeros 2 in the table) with f16, int8 and FP8
// activations: random codes per group within each activation's limits.
//
//===----------------------------------------------------------------------===//

#include "Suite.h"

#include "tilus-c/Layout.h"
#include "tilus-c/QuantizedMatmul.h"
#include "tilus-c/WeightPack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The template's tile layouts (python-bindings/tilus/ops/qmatmul.py):
// TILE_LAYOUT for f16 activations, S8_TILE_LAYOUT for int8 and FP8 ones.
static const char kF16Tile[] = "local(8,1).local(2,1).column_spatial(4,8).local(2,1)";
static const char kS8Tile[] = "local(4,1).local(2,1).column_spatial(4,8).local(4,1)";

typedef enum { kF16, kInt8, kFp8 } Activation;

typedef struct {
  const char *wtype;
  int bits, offset;
  Activation act;
  bool bias;
  int64_t m;
  bool codes; // zero points as uint8 codes (offset 0)
} Case;

static const char *activationName(Activation a) {
  return a == kInt8 ? "int8" : a == kFp8 ? "float8_e4m3" : "float16";
}

// The E4M3 (E4M3FN) byte of an integer |v| <= 15: 1.m x 2^e with a 3-bit m.
static uint8_t e4m3Byte(int v) {
  int a = abs(v), e = 0;
  if (!a)
    return 0;
  while (a >> (e + 1))
    ++e;
  int mantissa = ((a << 3) >> e) & 7;
  return (uint8_t)((v < 0 ? 0x80 : 0) | (e + 7) << 3 | mantissa);
}

// The packed weights of `codes` [K, N] (values code - offset, stored as the
// signed b-bit value when the offset is 2^(b-1), as tilus.ops.pack does; for
// FP8 activations a negative value v as 2^(b-1) | (-1 - v), the FP8 format).
static uint8_t *packWeights(const Case *c, const uint32_t *codes, int64_t K, int64_t N,
                            char *why, size_t whySize) {
  size_t bytes = (size_t)(K * N * c->bits / 8);
  uint8_t *compact = calloc(bytes, 1), *packed = malloc(bytes);
  bool symmetric = c->offset == 1 << (c->bits - 1);
  for (int64_t g = 0; g < K * N; ++g) {
    int v = (int)codes[g] - c->offset;
    uint32_t stored = !symmetric                 ? codes[g]
                      : c->act != kFp8 ? codes[g] ^ (uint32_t)c->offset
                      : v < 0          ? (uint32_t)(c->offset | (-1 - v))
                                       : (uint32_t)v;
    packBits(compact, g, c->bits, stored);
  }
  const char *text = c->act == kF16 ? kF16Tile : kS8Tile;
  TilusLayoutError err;
  TilusLayout *layout = tilusLayoutParse(text, strlen(text), &err);
  TilusWeightPacking packing = {K, N, 128, 8, c->bits, layout};
  TilusLayoutError packError;
  bool ok = layout && tilusWeightPack(&packing, compact, packed, &packError);
  if (!ok) {
    snprintf(why, whySize, "packing failed: %s", layout ? packError.message : err.message);
    free(packed);
    packed = NULL;
  }
  tilusLayoutDestroy(layout);
  free(compact);
  return packed;
}

static void runCase(Suite *s, TilusQmatmulTable *table, const Case *c, uint32_t seed) {
  const int64_t M = c->m, N = 256, K = 1024, G = 128;
  char name[96], why[600] = "";
  snprintf(name, sizeof name, "qmatmul_table.%s_o%d_%s%s%s", c->wtype, c->offset,
           c->act == kInt8 ? "int8" : c->act == kFp8 ? "fp8" : "f16",
           c->bias ? "_bias" : "", c->codes ? "_zero_codes" : "");
  uint32_t state = seed;
  uint32_t *codes = malloc(sizeof(uint32_t) * (size_t)(K * N));
  for (int64_t g = 0; g < K * N; ++g)
    codes[g] = nextRandom(&state) % (1u << c->bits);
  uint16_t *scales = malloc(2 * (size_t)(K / G * N)), *bias = malloc(2 * (size_t)N);
  double *scale = malloc(sizeof(double) * (size_t)(K / G * N));
  for (int64_t i = 0; i < K / G * N; ++i) {
    scale[i] = (double)(nextRandom(&state) % 64 + 16) / 4096;
    scales[i] = tilusF16FromDouble(scale[i]);
  }
  for (int64_t j = 0; j < N; ++j)
    bias[j] = tilusF16FromDouble(c->bias ? (double)((int)(nextRandom(&state) % 17) - 8) / 8 : 0);
  // Zero codes per group: up to 2^bits (GPTQ's original format) with f16
  // and FP8 x (FP8 takes at most 16), below 2^bits with int8 x.
  uint8_t *zeros = malloc((size_t)(K / G * N));
  uint32_t zlimit = c->act == kInt8 ? (1u << c->bits) : (1u << c->bits) + 1;
  for (int64_t i = 0; i < K / G * N; ++i)
    zeros[i] = c->codes ? (uint8_t)(nextRandom(&state) % zlimit) : 0;
  // x: f16 values k/16 in [-2, 2), or int8 (or E4M3 integers in [-15, 15])
  // with per-row scales.
  size_t xBytes = (size_t)(M * K) * (c->act == kF16 ? 2 : 1);
  uint8_t *x = malloc(xBytes);
  double *xv = malloc(sizeof(double) * (size_t)(M * K));
  float *xs = malloc(sizeof(float) * (size_t)M);
  for (int64_t i = 0; i < M; ++i)
    xs[i] = (float)(nextRandom(&state) % 8 + 1) / 64;
  for (int64_t g = 0; g < M * K; ++g) {
    int v = (int)(nextRandom(&state) % 255) - 127;
    if (c->act == kInt8) {
      x[g] = (uint8_t)(int8_t)v;
      xv[g] = v * (double)xs[g / K];
    } else if (c->act == kFp8) {
      v = v % 16;
      x[g] = e4m3Byte(v);
      xv[g] = v * (double)xs[g / K];
    } else {
      xv[g] = (double)(v / 4) / 16;
      uint16_t h = tilusF16FromDouble(xv[g]);
      memcpy(x + 2 * g, &h, 2);
    }
  }
  double *want = calloc((size_t)(M * N), sizeof(double)), peak = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double sum = c->bias ? (double)halfToFloat(bias[j]) : 0;
      for (int64_t k = 0; k < K; ++k)
        sum += xv[i * K + k] *
               ((double)codes[k * N + j] - c->offset - zeros[k / G * N + j]) *
               (double)halfToFloat(scales[k / G * N + j]);
      want[i * N + j] = sum;
      peak = fmax(peak, fabs(sum));
    }
  uint8_t *packed = packWeights(c, codes, K, N, why, sizeof why);
  TilusQmatmulShape shape = {.wtype = c->wtype, .offset = c->offset, .groupSize = (int)G,
                             .activation = activationName(c->act), .bias = c->bias,
                             .zeros = c->codes, .m = M, .n = N, .k = K,
                             .zeroCodes = c->codes};
  TilusQmatmulPlan plan = {0};
  TilusRuntimeError err;
  bool ok = packed != NULL;
  if (ok && tilusQmatmulFind(table, &shape, &plan, &err) != TilusStatusSuccess) {
    snprintf(why, sizeof why, "%s", err.message);
    ok = false;
  }
  // At N = 256 the f16 entries without a bias from M = 65 to 256 are
  // stream-K kernels (their grid of output tiles is far from a wave).
  if (ok && c->act == kF16 && !c->bias && M > 64 && M <= 256 && !plan.streamKBlocks) {
    snprintf(why, sizeof why, "expected a stream-K entry at M = %lld", (long long)M);
    ok = false;
  }
  TilusQmatmulBuffers b = {0};
  uint16_t *out = malloc(2 * (size_t)(M * N));
  if (ok) {
    b.x = upload(s, x, xBytes);
    b.xScales = c->act != kF16 ? upload(s, xs, sizeof(float) * (size_t)M) : 0;
    b.qweight = upload(s, packed, (size_t)(K * N * c->bits / 8));
    b.scales = upload(s, scales, 2 * (size_t)(K / G * N));
    b.bias = c->bias ? upload(s, bias, 2 * (size_t)N) : 0;
    b.zeros = c->codes ? upload(s, zeros, (size_t)(K / G * N)) : 0;
    b.out = upload(s, NULL, 2 * (size_t)(M * N));
    if (plan.partialsBytes) { // split-K or stream-K
      b.partials = upload(s, NULL, plan.partialsBytes);
      uint8_t *zero = calloc(plan.countersBytes, 1);
      b.counters = upload(s, zero, plan.countersBytes);
      free(zero);
    }
    ok = tilusQmatmulLaunch(table, s->rt, &shape, &b, NULL, &err) == TilusStatusSuccess &&
         tilusRuntimeSynchronize(s->rt, &err) == TilusStatusSuccess;
    if (!ok)
      snprintf(why, sizeof why, "%s", err.message);
    ok = ok && download(s, out, b.out, 2 * (size_t)(M * N));
    if (!ok && !why[0])
      snprintf(why, sizeof why, "the output's guard bytes were written");
    // A stream-K launch leaves its counters zero for the next one.
    uint32_t *left = plan.streamKBlocks ? malloc(plan.countersBytes) : NULL;
    if (ok && left && download(s, left, b.counters, plan.countersBytes))
      for (uint64_t i = 0; ok && i < plan.countersBytes / 4; ++i)
        if (left[i]) {
          snprintf(why, sizeof why, "stream-K counter %llu left at %u",
                   (unsigned long long)i, left[i]);
          ok = false;
        }
    free(left);
  }
  double worst = 0;
  for (int64_t g = 0; ok && g < M * N; ++g)
    worst = fmax(worst, fabs((double)halfToFloat(out[g]) - want[g]) / peak);
  if (ok && worst > 1e-3) {
    snprintf(why, sizeof why, "relative error %.3g (split_k %d)", worst, plan.splitK);
    ok = false;
  }
  report(s, name, "table", M, plan.splitK, ok, ok ? NULL : why);
  TilusDevicePtr all[] = {b.x, b.xScales, b.qweight, b.scales, b.bias, b.zeros, b.out,
                          b.partials, b.counters};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (all[i])
      tilusRuntimeFree(s->rt, all[i], &err);
  free(codes), free(scales), free(bias), free(zeros), free(scale), free(x), free(xv), free(xs);
  free(want), free(packed), free(out);
}

void testQmatmulTable(Suite *s) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/qmatmul-table", s->dir);
  TilusRuntimeError err;
  TilusQmatmulTable *table = tilusQmatmulTableLoad(dir, &err);
  if (table && tilusQmatmulTablePrepare(table, s->rt, &err) != TilusStatusSuccess) {
    tilusQmatmulTableDestroy(table);
    table = NULL;
  }
  static const Case cases[] = {
      {"uint3", 3, 0, kF16, false, 5, false},   {"uint3", 3, 0, kF16, true, 21, false},
      {"uint8", 8, 128, kF16, true, 40, false}, {"uint8", 8, 128, kF16, false, 1, false},
      // int8: mma.sync up to M = 32, the wgmma variant above (40).
      {"uint4", 4, 8, kInt8, false, 5, false},  {"uint4", 4, 8, kInt8, true, 40, false},
      {"uint4", 4, 8, kInt8, true, 19, false},
      // Above M = 32 the f16 entries without a bias are the wgmma variant's.
      {"uint8", 8, 128, kF16, false, 100, false}, {"uint3", 3, 0, kF16, false, 33, false},
      // FP8: blocks of 16, 32 and 64 rows (at N = 256, 64 rows fill less
      // than a wave at any of these M; ragged M).
      {"uint4", 4, 8, kFp8, false, 7, false},   {"uint4", 4, 8, kFp8, false, 40, false},
      {"uint4", 4, 8, kFp8, false, 300, false}, {"uint3", 3, 0, kFp8, false, 129, false},
      // Zero codes: f16 on mma.sync (split K) and on wgmma, int8, FP8. (f16's
      // 4-bit format interleaves its tiles, which packWeights does not.)
      {"uint3", 3, 0, kF16, false, 21, true}, {"uint3", 3, 0, kF16, false, 40, true},
      {"uint4", 4, 0, kInt8, false, 5, true}, {"uint4", 4, 0, kInt8, false, 70, true},
      {"uint4", 4, 0, kFp8, false, 40, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    if (!table) {
      report(s, "qmatmul_table", "table", cases[i].m, 0, false, err.message);
      continue;
    }
    runCase(s, table, &cases[i], 1234u + (uint32_t)i * 77u);
  }
  tilusQmatmulTableDestroy(table);
}
