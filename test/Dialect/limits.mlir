// Sizes, offsets and bit widths that do not fit (in int64_t, in the shared
// memory of any target, in the registers of a thread) are located errors,
// found before any arithmetic on them can wrap. Each case once compiled to
// wrong code, crashed or ran without end.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

// offset + extent wrapped past INT64_MAX: the access became [base - 16].
!s = !tilus.shared<f32, array<i64: 256>, #tilus.layout<"local(256)">>
!r = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
func.func @shared_offset_wraps() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c = arith.constant 9223372036854775800 : index
  %s = "tilus.allocate_shared"() : () -> !s
  // expected-error@+1 {{'tilus.load_shared' op offset 9223372036854775800 with tile extent 256 is out of bounds in dimension 0 of the source tensor (size 256)}}
  %r = "tilus.load_shared"(%s, %c) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!s, index) -> !r
  return
}

// -----

// A workspace of 2^64 f32 wrapped to 0 bytes: the kernel stored through its
// own argument.
func.func @workspace_wraps(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<()[s0] -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_global' op the global tensor [4294967296, 4294967296] of 32-bit elements is too large: its size in bits does not fit in 64 bits}}
  %g = "tilus.allocate_global"() : () -> !tilus.global<f32, array<i64: 4294967296, 4294967296>, #tilus.row_major>
  return
}

// -----

// The same without arguments read argument -1 and crashed.
func.func @workspace_wraps_no_args() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{the global tensor [4294967296, 4294967296] of 32-bit elements is too large}}
  %g = "tilus.allocate_global"() : () -> !tilus.global<f32, array<i64: 4294967296, 4294967296>, #tilus.row_major>
  return
}

// -----

// A stride of 2^62 * 4 elements wrapped.
func.func @stride_wraps(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0] -> (1)>} {
  // expected-error@+1 {{'tilus.view_global' op the global tensor [2, 4611686018427387904, 4] of 32-bit elements is too large}}
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 2, 4611686018427387904, 4>, #tilus.row_major>
  return
}

// -----

// The static part of a shape with run-time dimensions is checked too.
func.func @stride_wraps_dynamic(%p: !tilus.ptr<f32>, %n: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  // expected-error@+1 {{'tilus.view_global' op the global tensor [-1, 4611686018427387904] of 32-bit elements is too large}}
  %g = "tilus.view_global"(%p, %n) : (!tilus.ptr<f32>, index) -> !tilus.global<f32, array<i64: -1, 4611686018427387904>, #tilus.row_major>
  return
}

// -----

// 1 + e + m overflowed and the type was accepted.
// expected-error@+1 {{'func.func' op a pointer has float format e9223372036854775807m1; Tilus floats need an exponent of at least 1 bit}}
func.func @float_bits_wrap(%p: !tilus.ptr<!tilus.float<9223372036854775807, 1>>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0] -> (1)>} {
  return
}

// -----

// 2^31 f32 per thread: the lowering ran without end.
func.func @registers_per_thread() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the register tensor [274877906944] holds 2147483648 elements of 32 bits per thread: 2147483648 32-bit registers, but a thread has at most 255}}
  %a = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 274877906944>, #tilus.layout<"local(2147483648).spatial(128)">>
  return
}

// -----

// 65,536 f32 per thread (16,384 took 52 s and 5.4 GB to lower).
func.func @registers_per_thread_add() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{holds 65536 elements of 32 bits per thread: 65536 32-bit registers, but a thread has at most 255}}
  %a = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 2097152>, #tilus.layout<"local(65536).spatial(32)">>
  return
}

// -----

// 255 registers: 510 f16, or 2040 4-bit elements, per thread fit.
!h = !tilus.register<f16, array<i64: 16320>, #tilus.layout<"local(510).spatial(32)">>
!q = !tilus.register<ui4, array<i64: 65280>, #tilus.layout<"local(2040).spatial(32)">>
func.func @registers_at_the_limit() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !h
  %b = "tilus.allocate_register"() : () -> !q
  return
}

// -----

// One element more is 256 registers.
func.func @registers_past_the_limit() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{holds 2041 elements of 4 bits per thread: 256 32-bit registers, but a thread has at most 255}}
  %a = "tilus.allocate_register"() : () -> !tilus.register<ui4, array<i64: 65312>, #tilus.layout<"local(2041).spatial(32)">>
  return
}
