/*===-- FloatFormat.c - Low-precision float formats ------------------------===*\
|*                                                                            *|
|* Decoding follows the definition; encoding is a search for the nearest     *|
|* encoding, which makes it an independent reference for the GPU's bit-level  *|
|* conversions (formats have at most 256 encodings).                          *|
\*===----------------------------------------------------------------------===*/

#include "tilus-c/FloatFormat.h"

#include <math.h>

bool tilusFloatFormatIsValid(TilusFloatFormat f) {
  int bits = 1 + f.exponentBits + f.mantissaBits;
  return f.exponentBits >= 1 && f.mantissaBits >= 0 && bits >= 3 && bits <= 8;
}

int tilusFloatFormatGetBitWidth(TilusFloatFormat f) {
  return 1 + f.exponentBits + f.mantissaBits;
}

int tilusFloatFormatGetBias(TilusFloatFormat f) {
  return (1 << (f.exponentBits - 1)) - 1;
}

bool tilusFloatFormatHasInfinity(TilusFloatFormat f) {
  return f.exponentBits >= 5;
}

bool tilusFloatFormatHasNaN(TilusFloatFormat f) {
  return (f.exponentBits >= 5 && f.mantissaBits >= 1) ||
         (f.exponentBits == 4 && f.mantissaBits == 3);
}

static uint32_t mantissaMask(TilusFloatFormat f) {
  return (1u << f.mantissaBits) - 1;
}

static uint32_t exponentOnes(TilusFloatFormat f) {
  return (1u << f.exponentBits) - 1;
}

// Whether the magnitude bits (no sign) are a NaN or an infinity.
static bool isSpecial(TilusFloatFormat f, uint32_t magnitude) {
  uint32_t exponent = magnitude >> f.mantissaBits;
  if (tilusFloatFormatHasInfinity(f))
    return exponent == exponentOnes(f);
  if (tilusFloatFormatHasNaN(f))
    return magnitude == (exponentOnes(f) << f.mantissaBits | mantissaMask(f));
  return false;
}

double tilusFloatFormatDecode(TilusFloatFormat f, uint32_t bits) {
  int width = tilusFloatFormatGetBitWidth(f);
  bits &= (1u << width) - 1;
  bool negative = bits >> (width - 1);
  uint32_t magnitude = bits & ((1u << (width - 1)) - 1);
  uint32_t exponent = magnitude >> f.mantissaBits;
  uint32_t mantissa = magnitude & mantissaMask(f);
  double value;
  if (isSpecial(f, magnitude))
    value = tilusFloatFormatHasInfinity(f) && mantissa == 0 ? INFINITY : NAN;
  else if (exponent == 0)
    value = ldexp((double)mantissa,
                  1 - tilusFloatFormatGetBias(f) - f.mantissaBits);
  else
    value = ldexp((double)(mantissa | (1u << f.mantissaBits)),
                  (int)exponent - tilusFloatFormatGetBias(f) - f.mantissaBits);
  return negative ? -value : value;
}

uint32_t tilusFloatFormatEncode(TilusFloatFormat f, double value) {
  int width = tilusFloatFormatGetBitWidth(f);
  uint32_t sign = signbit(value) ? 1u << (width - 1) : 0;
  if (isnan(value)) {
    if (!tilusFloatFormatHasNaN(f))
      return 0;
    // A quiet NaN: exponent all ones, the mantissa's top bit (or, in E4M3FN,
    // all its bits) set.
    uint32_t mantissa = tilusFloatFormatHasInfinity(f)
                            ? 1u << (f.mantissaBits - 1)
                            : mantissaMask(f);
    return exponentOnes(f) << f.mantissaBits | mantissa;
  }
  double magnitude = fabs(value);
  // The largest finite magnitude encoding.
  uint32_t maxFinite = (1u << (width - 1)) - 1;
  while (isSpecial(f, maxFinite))
    --maxFinite;
  double maxValue = tilusFloatFormatDecode(f, maxFinite);
  if (tilusFloatFormatHasInfinity(f)) {
    double ulp = maxValue - tilusFloatFormatDecode(f, maxFinite - 1);
    if (magnitude >= maxValue + ulp / 2) // IEEE overflow threshold
      return sign | exponentOnes(f) << f.mantissaBits;
  }
  if (isinf(magnitude)) // saturates (formats with inf returned above)
    return sign | maxFinite;
  // Nearest finite encoding; a tie goes to the even one.
  uint32_t best = 0;
  double bestDistance = INFINITY;
  for (uint32_t candidate = 0; candidate <= maxFinite; ++candidate) {
    double distance = fabs(tilusFloatFormatDecode(f, candidate) - magnitude);
    if (distance < bestDistance ||
        (distance == bestDistance && (candidate & 1) == 0)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return sign | best;
}
