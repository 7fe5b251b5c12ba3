//===- Checked.h - Integer arithmetic that reports overflow -----*- C -*-===//
//
// Sizes, offsets, strides and bit widths come from user-written types and
// constants, so any product or sum of them may exceed int64_t. Every such
// combination goes through these helpers; a false result becomes a located
// error in the caller, never a wrapped value. Header-only (compiler
// builtins, as in C23's ckd_add/ckd_mul), so every layer may use it.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_UTILS_CHECKED_H
#define TILUS_LIB_UTILS_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

// Each stores the exact result in *out and returns true, or returns false
// when it does not fit in int64_t (*out is then unspecified).
static inline bool tilusCheckedAdd(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

static inline bool tilusCheckedSub(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_sub_overflow(a, b, out);
}

static inline bool tilusCheckedMul(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

// The product of values[0..count); 1 when count is 0.
static inline bool tilusCheckedProduct(const int64_t *values, intptr_t count,
                                       int64_t *out) {
  int64_t product = 1;
  for (intptr_t i = 0; i < count; ++i)
    if (!tilusCheckedMul(product, values[i], &product))
      return false;
  *out = product;
  return true;
}

// ceil(bits / 8) for bits >= 0, without overflow.
static inline int64_t tilusBitsToBytes(int64_t bits) {
  return bits / 8 + (bits % 8 != 0);
}

#endif // TILUS_LIB_UTILS_CHECKED_H
