//===- RuntimeHalfTest.c - f16 and bf16 rounding ---===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// Half precision
//===----------------------------------------------------------------------===//

void testHalfConversion(void) {
  CHECK(tilusF16FromDouble(0.0) == 0x0000);
  CHECK(tilusF16FromDouble(-0.0) == 0x8000);
  CHECK(tilusF16FromDouble(1.0) == 0x3c00);
  CHECK(tilusF16FromDouble(-2.0) == 0xc000);
  CHECK(tilusF16FromDouble(0.5) == 0x3800);
  CHECK(tilusF16FromDouble(65504.0) == 0x7bff); // largest finite
  CHECK(tilusF16FromDouble(65519.0) == 0x7bff); // rounds down
  CHECK(tilusF16FromDouble(65520.0) == 0x7c00); // rounds to infinity
  CHECK(tilusF16FromDouble(1e10) == 0x7c00);
  CHECK(tilusF16FromDouble(-INFINITY) == 0xfc00);
  CHECK((tilusF16FromDouble(NAN) & 0x7c00) == 0x7c00 &&
        (tilusF16FromDouble(NAN) & 0x03ff) != 0);
  CHECK(tilusF16FromDouble(0x1p-14) == 0x0400);       // smallest normal
  CHECK(tilusF16FromDouble(0x1p-24) == 0x0001);       // smallest subnormal
  CHECK(tilusF16FromDouble(0x1p-25) == 0x0000);       // tie to even: 0
  CHECK(tilusF16FromDouble(0x3p-26) == 0x0001);       // 0.75 ulp: up
  CHECK(tilusF16FromDouble(1.0 + 0x1p-11) == 0x3c00); // tie: to even
  CHECK(tilusF16FromDouble(1.0 + 0x3p-11) == 0x3c02); // tie: to even
  CHECK(tilusF16FromDouble(0.1) == 0x2e66);
  CHECK(tilusF16FromDouble(0x3ffp-24) == 0x03ff); // largest subnormal
  CHECK(tilusF16FromDouble(0x7ffp-25) == 0x0400); // rounds up to normal

  CHECK(tilusBF16FromDouble(1.0) == 0x3f80);
  CHECK(tilusBF16FromDouble(-1.5) == 0xbfc0);
  CHECK(tilusBF16FromDouble(3.140625) == 0x4049);
  CHECK(tilusBF16FromDouble(0.1) == 0x3dcd);
  CHECK(tilusBF16FromDouble(1e39) == 0x7f80); // beyond bf16's max
  CHECK(tilusBF16FromDouble(0x1p-133) == 0x0001);
  CHECK(tilusBF16FromDouble(1.0 + 0x1p-8) == 0x3f80); // tie: to even
}

// The value of small-float bits, computed independently of the library.
static double decodeSmallFloat(uint32_t bits, int expBits, int mantBits) {
  int bias = (1 << (expBits - 1)) - 1;
  uint32_t mant = bits & ((1u << mantBits) - 1);
  int exp = (int)((bits >> mantBits) & ((1u << expBits) - 1));
  double v = exp ? (double)(mant | (1u << mantBits)) : (double)mant;
  int power = (exp ? exp : 1) - bias - mantBits;
  for (; power > 0; power--)
    v *= 2;
  for (; power < 0; power++)
    v /= 2;
  return (bits >> (expBits + mantBits)) ? -v : v;
}

// Every finite value converts back to its own bits, and every midpoint
// between neighbours rounds to the one with an even mantissa.
void testHalfConversionExhaustive(int expBits, int mantBits,
                                         uint16_t (*convert)(double)) {
  uint32_t expMask = ((1u << expBits) - 1) << mantBits;
  int roundTrips = 0, ties = 0, total = 0;
  for (uint32_t bits = 0; bits < 65536; bits++) {
    if ((bits & expMask) == expMask)
      continue; // infinities and NaNs are tested above
    total++;
    double v = decodeSmallFloat(bits, expBits, mantBits);
    roundTrips += convert(v) == bits;
    uint32_t next = bits + 1; // the neighbour away from zero (same sign)
    double w = decodeSmallFloat(next, expBits, mantBits);
    uint32_t even = (bits & 1) ? next : bits;
    if ((next & expMask) == expMask) // the top binade rounds ties to inf
      even = next;
    ties += convert((v + w) / 2) == even;
  }
  CHECK(roundTrips == total);
  CHECK(ties == total);
}
