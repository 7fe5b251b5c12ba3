//===- Divisibility.c - Which index values are multiples of what ----------===//
//
// Vector accesses need offsets and row lengths that are provably multiples
// of the vector width. The facts come from the IR: constants, and sums,
// differences and products of known multiples. Widths are powers of two,
// so each value gets one number, the exponent of the largest power of two
// it is known to be a multiple of, computed once per value and remembered:
//   constant c      ctz(c) (0 is a multiple of everything)
//   a * b           max(a, b)   (a multiple times anything)
//   a + b, a - b    min(a, b)
//   anything else   0
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"

#include <stdlib.h>

// Exponents are capped here; 2^kMaxExponent is beyond any vector width.
enum { kMaxExponent = 62 };

static int exponentOfConstant(int64_t c) {
  if (c == 0)
    return kMaxExponent;
  int e = 0;
  while (e < kMaxExponent && (c & ((int64_t)1 << e)) == 0)
    ++e;
  return e;
}

// The map holds exponent + 1, so that a stored 0 is told from "not known".
static int exponentOf(TilusPtrMap *memo, MlirValue value) {
  void *known = tilusPtrMapLookup(memo, value.ptr);
  if (known)
    return (int)((intptr_t)known - 1);
  int64_t c;
  int result = 0;
  if (tilusValueGetConstantInt(value, &c)) {
    result = exponentOfConstant(c);
  } else if (mlirValueIsAOpResult(value)) {
    MlirOperation def = mlirOpResultGetOwner(value);
    bool mul = tilusOpIs(def, "arith.muli");
    if (mul || tilusOpIs(def, "arith.addi") || tilusOpIs(def, "arith.subi")) {
      int a = exponentOf(memo, mlirOperationGetOperand(def, 0));
      int b = exponentOf(memo, mlirOperationGetOperand(def, 1));
      result = mul ? (a > b ? a : b) : (a < b ? a : b);
    }
  }
  // Out of memory only loses the memo, not the answer.
  (void)tilusPtrMapInsert(memo, value.ptr, (void *)(intptr_t)(result + 1));
  return result;
}

bool tilusIsMultipleOf(TilusPtrMap *memo, MlirValue value, int64_t k) {
  if (k <= 1)
    return true;
  if (k & (k - 1)) {
    int64_t c; // not a power of two: only constants are decided
    return tilusValueGetConstantInt(value, &c) && c % k == 0;
  }
  int want = exponentOfConstant(k);
  return exponentOf(memo, value) >= want;
}
