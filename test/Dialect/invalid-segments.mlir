// Malformed operandSegmentSizes give an error at the op, never a crash. In
// parsed IR IRDL reports them (these messages are IRDL's); IR built through
// the C API and never verified gets the same check from the op schema in
// tilus-verify (test/unit/OpSchemaTest.c).
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @length(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'operandSegmentSizes' attribute for specifying operand segments must have 4 elements, but got 3}}
  %r = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @negative(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'operandSegmentSizes' attribute for specifying operand segments must have non-negative values}}
  %r = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, -1, 1, 1>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @sum(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{sum of elements in 'operandSegmentSizes' attribute must be equal to the number of operands}}
  %r = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @missing(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'operandSegmentSizes' attribute is expected but not provided}}
  %r = "tilus.load_global"(%g, %c0) : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}
