//===- RuntimeGridTest.c - The grid expression evaluator ---===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// Grid expressions
//===----------------------------------------------------------------------===//

void testGridValues(void) {
  const int64_t s[] = {100, 7, -7, 0, 3};
  static const struct {
    const char *text;
    int64_t value;
  } cases[] = {
      {"42", 42},
      {"s0", 100},
      {"s0 + s1 * 2", 114}, // * binds tighter than +
      {"(s0 + s1) * 2", 214},
      {"s0 - s1 - 3", 90}, // left-associative
      {"s0 floordiv 8", 12},
      {"s0 ceildiv 8", 13},
      {"s0 mod 8", 4},
      {"s0 floordiv 5 * 2", 40},  // (s0 floordiv 5) * 2
      {"s0 + 7 floordiv 2", 103}, // floordiv binds tighter than +
      {"s0 mod 7 mod 4", 2},      // (100 mod 7) mod 4 = 2 mod 4
      {"-7 floordiv 2", -4},      // unary minus binds to the operand
      {"-(7 floordiv 2)", -3},
      {"s2 floordiv 2", -4}, // floor, not truncation
      {"s2 ceildiv 2", -3},
      {"s2 mod 3", 2}, // the result takes the divisor's sign
      {"7 mod -3", -2},
      {"7 floordiv -2", -4},
      {"7 ceildiv -2", -3},
      {"-s2", 7},
      {"- -s1", 7},
      {"s3 ceildiv 16", 0},
      {"(s0 + 127) floordiv 128", 1},
      {"((s4))", 3},
      {"s1*s4-s0", -79}, // no spaces needed
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775807 - 1", INT64_MIN},
      {"(-9223372036854775807 - 1) mod -1", 0},
  };
  int n = (int)(sizeof(cases) / sizeof(cases[0]));
  for (int i = 0; i < n; i++) {
    int64_t v = 0;
    TilusRuntimeError err;
    TilusStatus status = tilusAffineExprEvaluate(cases[i].text, s, 5, &v, &err);
    CHECK(status == TilusStatusSuccess && v == cases[i].value);
    if (status != TilusStatusSuccess || v != cases[i].value)
      fprintf(stderr, "  '%s' gave %lld (%s)\n", cases[i].text, (long long)v,
              status ? err.message : "ok");
  }
}

void testGridErrors(void) {
  const int64_t s[] = {100, 0, INT64_MAX};
  static const struct {
    const char *text;
    TilusStatus code;
    const char *message;
  } cases[] = {
      {"s0 floordiv s1", TilusStatusGridError,
       "division by zero in 'floordiv' at column 4"},
      {"s0 mod 0", TilusStatusGridError,
       "division by zero in 'mod' at column 4"},
      {"s0 ceildiv (s1 * 3)", TilusStatusGridError,
       "division by zero in 'ceildiv' at column 4"},
      {"s2 + 1", TilusStatusGridError, "int64 overflow in '+' at column 4"},
      {"s2 * 2", TilusStatusGridError, "int64 overflow in '*' at column 4"},
      {"-s2 - 2", TilusStatusGridError, "int64 overflow in '-' at column 5"},
      {"(-s2 - 1) floordiv -1", TilusStatusGridError,
       "int64 overflow in 'floordiv' at column 11"},
      {"s7", TilusStatusGridError, "s7 has no value (only 3 symbols)"},
      {"", TilusStatusParseError, "empty expression at column 1"},
      {"s0 +", TilusStatusParseError,
       "expected an operand, found the end at column 5"},
      {"s0 s1", TilusStatusParseError, "expected an operator at column 4"},
      {"(s0", TilusStatusParseError, "expected ')' at column 4"},
      {"s0)", TilusStatusParseError, "unbalanced ')' at column 3"},
      {"s0 / 2", TilusStatusParseError, "unexpected character '/' at column 4"},
      {"s0 floordiv", TilusStatusParseError,
       "expected an operand, found the end at column 12"},
      {"x + 1", TilusStatusParseError,
       "unknown identifier 'x' (only symbols s0, s1, ... may appear) at "
       "column 1"},
      {"99999999999999999999", TilusStatusParseError,
       "integer literal does not fit in int64 at column 1"},
      {"* 2", TilusStatusParseError, "expected an operand at column 1"},
  };
  int n = (int)(sizeof(cases) / sizeof(cases[0]));
  for (int i = 0; i < n; i++) {
    int64_t v = 0;
    TilusRuntimeError err;
    memset(&err, 0, sizeof(err));
    CHECK(tilusAffineExprEvaluate(cases[i].text, s, 3, &v, &err) ==
          cases[i].code);
    CHECK_ERROR(err, cases[i].code, cases[i].message);
  }
  // Deep nesting is refused instead of exhausting the stack.
  char deep[1024];
  memset(deep, '(', 300);
  strcpy(deep + 300, "1");
  memset(deep + 301, ')', 300);
  deep[601] = '\0';
  int64_t v = 0;
  TilusRuntimeError err;
  CHECK(tilusAffineExprEvaluate(deep, s, 3, &v, &err) == TilusStatusParseError);
  CHECK_CONTAINS(err, "nested too deeply");
  CHECK(tilusAffineExprEvaluate(NULL, s, 3, &v, &err) ==
        TilusStatusInvalidArgument);
}
