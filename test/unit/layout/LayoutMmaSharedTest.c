/*===-- LayoutMmaSharedTest.c - The shared layouts wgmma reads --------------===*\
|*                                                                            *|
|* Each layout of tilusLayoutCreateMmaShared must put every element where    *|
|* the hardware looks for it. The reference is the PTX ISA's description of  *|
|* a K-major operand, written here as byte addresses: with a W-byte swizzle, *|
|* element (row, k) of K block kb lies at kb*rows*W + row*W + (k bytes mod   *|
|* W), whose bits [4, 4+b) are then XORed with bits [7, 7+b), b = log2(W/16);*|
|* without one, core matrix (row/8, k bytes/16) starts at                    *|
|* (row/8)*SBO + (k bytes/16)*LBO and holds 8 rows of 16 bytes.              *|
\*===----------------------------------------------------------------------===*/

#include "LayoutTestSupport.h"

static int64_t referenceByte(int64_t row, int64_t kByte, int64_t rows,
                             int64_t W, const TilusMmaSharedOperand *d) {
  if (!W)
    return (row / 8) * d->strideBytes + (kByte / 16) * d->leadingBytes +
           (row % 8) * 16 + kByte % 16;
  int64_t linear = (kByte / W) * rows * W + row * W + kByte % W;
  int64_t mask = W / 16 - 1;
  return linear ^ (((linear >> 7) & mask) << 4);
}

/* Builds the layout, checks that it matches itself with the expected
 * descriptor, and that every element is at the reference address. */
static void checkTile(int64_t rows, int64_t k, int64_t kDim, int64_t bits,
                      TilusMmaSwizzle swizzle, int64_t W) {
  TilusLayoutError err = {0};
  TilusLayout *layout =
      tilusLayoutCreateMmaShared(rows, k, kDim, bits, swizzle, &err);
  CHECK_L(layout != NULL, err.message);
  if (!layout)
    return;
  TilusMmaSharedOperand d = {0};
  CHECK(tilusLayoutMatchMmaShared(layout, kDim, bits, &d));
  CHECK(d.swizzle == swizzle);
  CHECK(d.strideBytes == (W ? 8 * W : k * bits));
  int64_t bad = 0;
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t kk = 0; kk < k; ++kk) {
      int64_t index[2] = {kDim == 1 ? row : kk, kDim == 1 ? kk : row};
      int64_t thread, slot;
      if (!tilusLayoutLocate(layout, index, &thread, &slot) ||
          slot * bits / 8 != referenceByte(row, kk * bits / 8, rows, W, &d))
        ++bad;
    }
  CHECK(bad == 0);
  tilusLayoutDestroy(layout);
}

void testMmaShared(void) {
  static const struct {
    TilusMmaSwizzle swizzle;
    int64_t W;
  } kModes[] = {{TilusMmaSwizzle128B, 128},
                {TilusMmaSwizzle64B, 64},
                {TilusMmaSwizzle32B, 32},
                {TilusMmaSwizzleNone, 0}};
  for (int m = 0; m < 4; ++m)
    for (int64_t kDim = 0; kDim < 2; ++kDim) {
      int64_t W = kModes[m].W;
      checkTile(64, 2 * (W ? W : 16) / 2, kDim, 16, kModes[m].swizzle, W);
      checkTile(24, 128, kDim, 16, kModes[m].swizzle, W);
      checkTile(16, 256, kDim, 8, kModes[m].swizzle, W);
    }

  /* The examples' shared layouts: a 128-byte swizzle with a stage dim. */
  TilusMmaSharedOperand d;
  TilusLayout *staged = parse(
      "local(3,1,1).swizzle(local(64,8),dim=1,log_step=0).local(1,8)");
  CHECK(tilusLayoutMatchMmaShared(staged, 1, 16, &d) &&
        d.swizzle == TilusMmaSwizzle128B && d.strideBytes == 1024);
  /* The same tile read with K as dimension 0 is not K-major there. */
  CHECK(!tilusLayoutMatchMmaShared(staged, 0, 16, &d));
  tilusLayoutDestroy(staged);
  /* Row-major without a swizzle: rows of 128 bytes, not core matrices. */
  TilusLayout *rowMajor = parse("local(64,64)");
  CHECK(!tilusLayoutMatchMmaShared(rowMajor, 1, 16, &d));
  tilusLayoutDestroy(rowMajor);
  /* A stage dimension inside the tile's rows is not a leading one. */
  TilusLayout *inner = parse(
      "local(1,64,1).local(3,1,1).swizzle(local(1,8),dim=2).local(1,1,8)");
  CHECK(inner == NULL || !tilusLayoutMatchMmaShared(inner, 1, 16, &d));
  tilusLayoutDestroy(inner);

  /* Errors name what is wrong. */
  TilusLayoutError err = {0};
  CHECK(tilusLayoutCreateMmaShared(12, 64, 1, 16, TilusMmaSwizzle128B, &err) ==
        NULL);
  CHECK(strstr(err.message, "multiple of 8 rows") != NULL);
  CHECK(tilusLayoutCreateMmaShared(64, 32, 1, 16, TilusMmaSwizzle128B, &err) ==
        NULL);
  CHECK(strstr(err.message, "multiple of 64 (128 bytes)") != NULL);
  CHECK(tilusLayoutCreateMmaShared(64, 64, 1, 4, TilusMmaSwizzleNone, &err) ==
        NULL);
  CHECK(strstr(err.message, "not 4-bit") != NULL);
}

/* tilusLayoutTranspose against evaluation: every (t, i) of the transpose
 * is the original's with the last two coordinates exchanged. */
static void checkTranspose(const char *text) {
  TilusLayout *f = parse(text);
  TilusLayoutError err = {0};
  TilusLayout *g = f ? tilusLayoutTranspose(f, &err) : NULL;
  CHECK_L(g != NULL, text);
  if (!g) {
    tilusLayoutDestroy(f);
    return;
  }
  int64_t r = tilusLayoutGetRank(f), bad = 0;
  CHECK_L(tilusLayoutGetRank(g) == r &&
              tilusLayoutGetNumThreads(g) == tilusLayoutGetNumThreads(f) &&
              tilusLayoutGetLocalSize(g) == tilusLayoutGetLocalSize(f),
          text);
  for (int64_t t = 0; t < tilusLayoutGetNumThreads(f); ++t)
    for (int64_t i = 0; i < tilusLayoutGetLocalSize(f); ++i) {
      int64_t x[TILUS_LAYOUT_MAX_RANK], y[TILUS_LAYOUT_MAX_RANK];
      tilusLayoutEvaluate(f, t, i, x);
      tilusLayoutEvaluate(g, t, i, y);
      int64_t swap = x[r - 1];
      x[r - 1] = x[r - 2];
      x[r - 2] = swap;
      bad += !sameIndex(x, y, r);
    }
  CHECK_L(bad == 0, text);
  tilusLayoutDestroy(f);
  tilusLayoutDestroy(g);
}

void testTranspose(void) {
  checkTranspose("local(3,5)");
  checkTranspose("column_local(3,5)");
  checkTranspose("spatial(4,8).local(2,3)");
  checkTranspose("local(2,3,4)");
  checkTranspose("column_local(2,3,4)");
  checkTranspose("local(2,1).spatial(8,4).local(1,2)");
  checkTranspose("local(3,1,1).swizzle(local(64,8),dim=1,log_step=0).local(1,8)");
  checkTranspose("local(2,1,1).local(1,2,1).swizzle(column_local(1,4,32),dim=1,log_step=1).local(1,8,1)");
  checkTranspose("swizzle(local(16,4),dim=1,log_step=1).local(1,8)");
  /* The K-major wgmma layouts of [rows, k] transpose into those of [k, rows]. */
  static const TilusMmaSwizzle kModes[] = {TilusMmaSwizzle128B,
                                           TilusMmaSwizzle64B,
                                           TilusMmaSwizzle32B,
                                           TilusMmaSwizzleNone};
  for (int m = 0; m < 4; ++m) {
    TilusLayout *a = tilusLayoutCreateMmaShared(64, 128, 1, 16, kModes[m], NULL);
    TilusLayout *b = tilusLayoutCreateMmaShared(64, 128, 0, 16, kModes[m], NULL);
    TilusLayout *t = a ? tilusLayoutTranspose(a, NULL) : NULL;
    CHECK(t && b && tilusLayoutEqual(t, b));
    tilusLayoutDestroy(a), tilusLayoutDestroy(b), tilusLayoutDestroy(t);
  }
  TilusLayoutError err = {0};
  TilusLayout *replicated = parse("reduce(spatial(2,4), dims=[0])");
  CHECK(replicated && tilusLayoutTranspose(replicated, &err) == NULL);
  tilusLayoutDestroy(replicated);
  /* A swizzle along a leading dimension: its XOR term would change. */
  TilusLayout *lead = parse("swizzle(local(4,2,2),dim=0)");
  CHECK(lead && tilusLayoutTranspose(lead, &err) == NULL &&
        strstr(err.message, "leading dimension") != NULL);
  tilusLayoutDestroy(lead);
  TilusLayout *one = parse("local(4)");
  CHECK(tilusLayoutTranspose(one, &err) == NULL &&
        strstr(err.message, "rank >= 2") != NULL);
  tilusLayoutDestroy(one);
}
