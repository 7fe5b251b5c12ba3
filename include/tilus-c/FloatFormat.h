/*===-- tilus-c/FloatFormat.h - Low-precision float formats ----------*- C -*-===*\
|*                                                                            *|
|* The semantics of !tilus.float<e, m>: a sign bit, e exponent bits and m     *|
|* mantissa bits (3 to 8 bits in all, e >= 1), stored in the low 1 + e + m    *|
|* bits of an integer, sign highest. Pure C, no MLIR: host tools and the      *|
|* runtime use it too, and it is the CPU reference of the GPU casts.          *|
|*                                                                            *|
|* - bias = 2^(e-1) - 1. Exponent field 0 is subnormal:                       *|
|*   (-1)^s * 2^(1-bias) * mant / 2^m; otherwise                              *|
|*   (-1)^s * 2^(E-bias) * (1 + mant / 2^m).                                  *|
|* - Special encodings: e5m2 (and any e >= 5) is IEEE-like: exponent all ones *|
|*   is inf (mant 0) or NaN (mant != 0; so no NaN when m = 0). e4m3 follows   *|
|*   OCP E4M3FN: S.1111.111 is NaN, no inf. Every other format has no special *|
|*   encodings: all are finite.                                               *|
|* - Encoding from a wider float rounds to nearest, ties to even. Values past *|
|*   the largest finite one become inf where the format has it, and saturate  *|
|*   to the largest finite value otherwise. NaN becomes the format's NaN, or  *|
|*   +0 in a format without one. -0 keeps its sign.                          *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_FLOATFORMAT_H
#define TILUS_C_FLOATFORMAT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int exponentBits;
  int mantissaBits;
} TilusFloatFormat;

/* Whether the format is one Tilus supports (3 to 8 bits, e >= 1, m >= 0). */
bool tilusFloatFormatIsValid(TilusFloatFormat format);

int tilusFloatFormatGetBitWidth(TilusFloatFormat format);
int tilusFloatFormatGetBias(TilusFloatFormat format);
bool tilusFloatFormatHasInfinity(TilusFloatFormat format);
bool tilusFloatFormatHasNaN(TilusFloatFormat format);

/* The value of `bits` (its low 1 + e + m bits). */
double tilusFloatFormatDecode(TilusFloatFormat format, uint32_t bits);

/* The encoding of `value` under the rules above. */
uint32_t tilusFloatFormatEncode(TilusFloatFormat format, double value);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_FLOATFORMAT_H */
