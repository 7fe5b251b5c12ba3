// Types: element types, shapes, layouts against shapes, thread counts.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @element_type() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op a register tensor has unsupported element type 'i12'; Tilus supports integers of 1-8, 16, 32 and 64 bits, index, f16, bf16, f32, f64 and !tilus.float<e, m>}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<i12, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @float_format() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op a register tensor has float format e5m3 (9 bits); Tilus floats need an exponent of at least 1 bit, a mantissa of at least 0 bits and 3 to 8 bits in all}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<!tilus.float<5, 3>, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

// expected-error@+1 {{'func.func' op a pointer has unsupported element type 'vector<4xf32>'}}
func.func @pointer(%p: !tilus.ptr<vector<4xf32>>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

// A parameter that is not a type: one error, at the function (the parser's
// own complaint about the text "16 : i64" is not passed on).
// expected-error@+1 {{'func.func' op the pointer type '!tilus.ptr<16 : i64>' has a parameter that is not a type}}
func.func @pointer_to_number(%p: !tilus.ptr<16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

// expected-error@+2 {{'func.func' op kernel argument 0 has type '!tilus.global<16 : i64, array<i64: 4>, #tilus.row_major>'}}
// expected-error@+1 {{'func.func' op invalid type '!tilus.global<16 : i64, array<i64: 4>, #tilus.row_major>': cannot read the element type}}
func.func @tensor_of_number(%p: !tilus.global<16, array<i64: 4>, #tilus.row_major>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

// expected-error@+2 {{'func.func' op a scalar has float format e0m4 (5 bits)}}
// expected-error@+1 {{'func.func' op kernel argument 0 has type '!tilus.float<0 : i64, 4 : i64>'}}
func.func @scalar_float(%x: !tilus.float<0, 4>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

func.func @shape() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_shared' op shared tensor dimension 1 is 0; dimensions must be positive}}
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 4, 0>, #tilus.layout<"local(4,1)">>
  return
}

// -----

func.func @global_shape() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_global' op global tensor dimension 0 is -2; dimensions must be positive (or -1 for a run-time size)}}
  %g = "tilus.allocate_global"() : () -> !tilus.global<f16, array<i64: -2>, #tilus.row_major>
  return
}

// -----

func.func @dynamic_with_layout(%n: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_global' op a global tensor with run-time dimensions must be #tilus.row_major}}
  %g = "tilus.allocate_global"(%n) : (index) -> !tilus.global<f16, array<i64: -1>, #tilus.layout<"local(4)">>
  return
}

// -----

func.func @bad_layout_text() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op invalid type '!tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32">>': invalid layout 'spatial(32': }}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32">>
  return
}

// -----

func.func @layout_shape() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op layout 'local(2,1).spatial(8,4).local(1,2)' has shape [16, 8] but the register tensor has shape [16, 16]}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  return
}

// -----

func.func @shared_threads() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_shared' op the layout of a shared tensor must have one thread, but 'spatial(4,8)' has 32}}
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 4, 8>, #tilus.layout<"spatial(4,8)">>
  return
}

// -----

func.func @global_threads(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.view_global' op the layout of a global tensor must have one thread, but 'spatial(32)' has 32}}
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @block_size() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op register tensor layout 'local(2,1).spatial(8,4).local(1,2)' has 32 threads but the kernel's block size is 128}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  return
}

// -----

// A block argument of an scf.for is checked too.
func.func @loop_carried(%n: index) attributes {tilus.kernel, tilus.block_size = 64 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'tilus.allocate_register' op register tensor layout 'spatial(32)' has 32 threads but the kernel's block size is 64}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'scf.for' op register tensor layout 'spatial(32)' has 32 threads but the kernel's block size is 64}}
  %x = scf.for %i = %c0 to %n step %c1 iter_args(%a = %r) -> (!tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>) {
    scf.yield %a : !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  }
  return
}
