// Kernel attributes and where Tilus ops may appear.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'func.func' op a kernel needs an integer 'tilus.block_size' attribute}}
func.func @no_block_size() attributes {tilus.kernel, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op block size must be between 1 and 1024, got 2048}}
func.func @big_block() attributes {tilus.kernel, tilus.block_size = 2048 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op a kernel needs a 'tilus.grid' affine map attribute, e.g. affine_map<()[s0] -> (s0 ceildiv 128)>}}
func.func @no_grid() attributes {tilus.kernel, tilus.block_size = 32 : i64} {
  return
}

// -----

// expected-error@+1 {{'func.func' op the grid map must use symbols only (s_k is kernel argument k), but it has 1 dimension(s)}}
func.func @grid_dims() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<(d0) -> (d0)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op the grid must have 1 to 3 dimensions, got 4}}
func.func @grid_rank() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1, 1, 1, 1)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op the grid map has 2 symbols but the kernel has only 1 arguments}}
func.func @grid_symbols(%n: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1] -> (s1)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op grid symbol s0 refers to argument 0 of type '!tilus.ptr<f16>', which is not an integer}}
func.func @grid_pointer(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0] -> (s0 floordiv 4)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op grid dimension 1 is 0; it must be positive}}
func.func @grid_zero() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (4, 0)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op kernel argument 0 has type 'memref<4xf32>'; kernel arguments are i1, i8, i16, i32 or i64 (signless, si or ui), index, f16, bf16, f32, f64 or !tilus.ptr<...> (to any element type)}}
func.func @bad_argument(%m: memref<4xf32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}

// -----

// Scalars the runtime cannot pass (a launch has no sub-byte, 128-bit or
// Tilus-float scalar parameter): refused here rather than by the runtime
// when it loads the artifact.
// expected-error@+5 {{kernel argument 0 has type 'i4'}}
// expected-error@+4 {{kernel argument 1 has type 'ui2'}}
// expected-error@+3 {{kernel argument 2 has type 'si7'}}
// expected-error@+2 {{kernel argument 3 has type 'i128'}}
// expected-error@+1 {{kernel argument 4 has type '!tilus.float<3 : i64, 2 : i64>'}}
func.func @unpassable(%a: i4, %b: ui2, %c: si7, %d: i128, %e: !tilus.float<3, 2>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (1)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op a kernel returns nothing, but this one returns 1 value(s)}}
func.func @returns(%n: i32) -> i32 attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  return %n : i32
}

// -----

func.func @not_a_kernel() {
  // expected-error@+1 {{'tilus.synchronize' op must be inside a func.func marked 'tilus.kernel'}}
  "tilus.synchronize"() : () -> ()
  return
}

// -----

func.func @too_many_indices() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (4, 4)>} {
  // expected-error@+1 {{'tilus.block_indices' op asks for 3 indices but the kernel's grid has 2 dimension(s)}}
  %a, %b, %c = "tilus.block_indices"() : () -> (index, index, index)
  return
}

// -----

func.func @four_indices() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (4, 4, 4)>} {
  // expected-error@+1 {{'tilus.block_indices' op expects 1 to 3 results, got 4}}
  %a, %b, %c, %d = "tilus.block_indices"() : () -> (index, index, index, index)
  return
}

// -----

// expected-error@+1 {{'tilus.fp_contract' is a unit attribute (present or absent), not a value}}
func.func @contract_value() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract = 1 : i64} {
  return
}
