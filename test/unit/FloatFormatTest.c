//===- FloatFormatTest.c - The low-precision float semantics --------------===//
//
// Hand-written values of the formats (OCP's FP8/FP6/FP4 tables where they
// apply), the special encodings, rounding to nearest even, overflow and NaN.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/FloatFormat.h"

#include <math.h>
#include <stdio.h>

static int numPassed, numFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      numPassed++;                                                             \
    } else {                                                                   \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

static const TilusFloatFormat e4m3 = {4, 3}, e5m2 = {5, 2}, e2m1 = {2, 1},
                              e3m2 = {3, 2}, e2m3 = {2, 3}, e1m1 = {1, 1};

static void testDecode(void) {
  // e2m1 (FP4): 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  const double fp4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint32_t k = 0; k < 8; ++k) {
    CHECK(tilusFloatFormatDecode(e2m1, k) == fp4[k]);
    CHECK(tilusFloatFormatDecode(e2m1, k | 8) == -fp4[k] || k == 0);
  }
  CHECK(tilusFloatFormatDecode(e4m3, 0x7e) == 448);     // E4M3 max
  CHECK(isnan(tilusFloatFormatDecode(e4m3, 0x7f)));     // its NaN
  CHECK(tilusFloatFormatDecode(e4m3, 0x78) == 256);     // no inf there
  CHECK(tilusFloatFormatDecode(e4m3, 0x01) == ldexp(1, -9));
  CHECK(tilusFloatFormatDecode(e5m2, 0x7b) == 57344);   // E5M2 max
  CHECK(isinf(tilusFloatFormatDecode(e5m2, 0x7c)));
  CHECK(isnan(tilusFloatFormatDecode(e5m2, 0x7d)));
  CHECK(tilusFloatFormatDecode(e5m2, 0x01) == ldexp(1, -16));
  CHECK(tilusFloatFormatDecode(e3m2, 0x1f) == 28);      // FP6 E3M2 max
  CHECK(tilusFloatFormatDecode(e2m3, 0x1f) == 7.5);     // FP6 E2M3 max
  CHECK(tilusFloatFormatDecode(e2m3, 0x01) == 0.125);
  // e1m1: bias 0; subnormals 0 and 2^1 * 1/2 = 1; normals 2 and 3.
  CHECK(tilusFloatFormatDecode(e1m1, 1) == 1);
  CHECK(tilusFloatFormatDecode(e1m1, 2) == 2);
  CHECK(tilusFloatFormatDecode(e1m1, 3) == 3);
  CHECK(tilusFloatFormatDecode(e1m1, 7) == -3);
  CHECK(signbit(tilusFloatFormatDecode(e1m1, 4)));      // -0
}

static void testEncode(void) {
  CHECK(tilusFloatFormatEncode(e2m1, 2.5) == 4);  // tie: 2 (even) over 3
  CHECK(tilusFloatFormatEncode(e2m1, 3.5) == 6);  // tie: 4 (even) over 3
  CHECK(tilusFloatFormatEncode(e2m1, 5.0) == 6);  // tie: 4 (even) over 6
  CHECK(tilusFloatFormatEncode(e2m1, 5.01) == 7);
  CHECK(tilusFloatFormatEncode(e2m1, 100) == 7);  // saturates
  CHECK(tilusFloatFormatEncode(e2m1, -100) == 15);
  CHECK(tilusFloatFormatEncode(e2m1, 0.25) == 0); // tie between 0 and 0.5
  CHECK(tilusFloatFormatEncode(e2m1, 0.26) == 1);
  CHECK(tilusFloatFormatEncode(e2m1, -0.0) == 8); // keeps the sign
  CHECK(tilusFloatFormatEncode(e2m1, NAN) == 0);  // no NaN: +0
  CHECK(tilusFloatFormatEncode(e2m1, INFINITY) == 7);
  CHECK(tilusFloatFormatEncode((TilusFloatFormat){3, 4}, INFINITY) == 0x7f);
  CHECK(tilusFloatFormatEncode(e4m3, 1000) == 0x7e); // saturates below NaN
  CHECK(tilusFloatFormatEncode(e4m3, NAN) == 0x7f);
  CHECK(tilusFloatFormatEncode(e4m3, INFINITY) == 0x7e);
  CHECK(tilusFloatFormatEncode(e5m2, 57344) == 0x7b);
  CHECK(tilusFloatFormatEncode(e5m2, 61439) == 0x7b);
  CHECK(tilusFloatFormatEncode(e5m2, 61440) == 0x7c); // max + ulp/2: inf
  CHECK(tilusFloatFormatEncode(e5m2, -INFINITY) == 0xfc);
  CHECK(tilusFloatFormatEncode(e5m2, NAN) == 0x7e);
  CHECK(tilusFloatFormatEncode(e5m2, ldexp(1, -17)) == 0);   // tie to 0
  CHECK(tilusFloatFormatEncode(e5m2, ldexp(3, -18)) == 1);
  // Round trip of every finite encoding of every format.
  for (int e = 1; e <= 7; ++e)
    for (int m = 0; 1 + e + m <= 8; ++m) {
      TilusFloatFormat f = {e, m};
      if (!tilusFloatFormatIsValid(f))
        continue;
      bool ok = true;
      for (uint32_t k = 0; k < (1u << (1 + e + m)); ++k) {
        double v = tilusFloatFormatDecode(f, k);
        if (!isnan(v) && tilusFloatFormatEncode(f, v) != k &&
            !(v == 0 && tilusFloatFormatEncode(f, v) == k))
          ok = false;
      }
      CHECK(ok);
    }
  CHECK(!tilusFloatFormatIsValid((TilusFloatFormat){0, 3}));
  CHECK(!tilusFloatFormatIsValid((TilusFloatFormat){5, 3}));
  CHECK(!tilusFloatFormatIsValid((TilusFloatFormat){1, 0}));
}

int main(void) {
  testDecode();
  testEncode();
  printf("float format tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
