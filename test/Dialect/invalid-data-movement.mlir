// The rules of Reduce, ConvertLayout, Permute and Reshape: attributes, result
// shapes and element types, and Reduce's result layout.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @kind(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op unknown reduction kind 'prod' (expected "sum", "max", "min", "argmax" or "argmin")}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "prod"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @dims_type(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op the 'dims' attribute must be array<i64: ...> of at most 8 dimensions}}
  %s = "tilus.reduce"(%x) {dims = array<i32: 1>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @dims_range(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op dimension 2 is out of range for an operand of rank 2}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 2>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @dims_twice(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op dimension 1 is listed twice}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1, 1>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @dims_empty(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op reduces no dimension ('dims' is empty)}}
  %s = "tilus.reduce"(%x) {dims = array<i64>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
!r = !tilus.register<f32, array<i64: 1>, #tilus.layout<"reduce(spatial(32,1),dims=[0])">>
func.func @every_dim(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op cannot reduce every dimension (a tensor has rank >= 1); reshape to add a dimension of size 1 first}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "max"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f16, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @element_type(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op element types differ: the operand has 'f32', the result has 'f16'}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<!tilus.float<3, 2>, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<!tilus.float<3, 2>, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @float6(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"() : () -> !x
  // expected-error@+1 {{'tilus.reduce' op cannot reduce elements of type '!tilus.float<3 : i64, 2 : i64>' (f16, bf16, f32, f64 and integers; cast first)}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 8>, #tilus.layout<"reduce(spatial(8,4),dims=[0]).local(2)">>
func.func @shape(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op the result shape is [8], expected [32] (the operand's without the reduced dimensions)}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"local(4).reduce(spatial(8,4),dims=[1])">>
func.func @layout(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op the result layout is 'local(4).reduce(spatial(8,4),dims=[1])', expected 'reduce(spatial(8,4),dims=[1]).local(4)' (the operand's layout reduced over 'dims')}}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!y = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(4,8).local(2,4)">>
func.func @convert_shape(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.convert_layout' op the result shape is [8, 32], expected [32, 8] (a layout change keeps the shape)}}
  %y = "tilus.convert_layout"(%x) : (!x) -> !y
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!y = !tilus.register<i32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
func.func @convert_type(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.convert_layout' op element types differ: the operand has 'f32', the result has 'i32'}}
  %y = "tilus.convert_layout"(%x) : (!x) -> !y
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!y = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(4,8).local(2,4)">>
func.func @permute_count(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.permute' op 'dims' must list each of the operand's 2 dimensions once, got 1}}
  %y = "tilus.permute"(%x) {dims = array<i64: 1>} : (!x) -> !y
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!y = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
func.func @permute_shape(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.permute' op the result shape is [32, 8], expected [8, 32] (dimension k is the operand's dims[k])}}
  %y = "tilus.permute"(%x) {dims = array<i64: 1, 0>} : (!x) -> !y
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!y = !tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
func.func @reshape_count(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reshape' op a reshape keeps the number of elements, but the operand has 256 and the result 128}}
  %y = "tilus.reshape"(%x) : (!x) -> !y
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!y = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @missing_kind(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // (IRDL checks the structure first)
  // expected-error@+1 {{'tilus.reduce' op attribute "kind" is expected but not provided}}
  %y = "tilus.reduce"(%x) {dims = array<i64: 1>} : (!x) -> !y
  return
}

// -----

!x = !tilus.register<f32, array<i64: 4, 8, 4>, #tilus.layout<"spatial(4,8,1).local(1,1,4)">>
!r = !tilus.register<i32, array<i64: 8>, #tilus.layout<"reduce(spatial(4,8),dims=[0])">>
func.func @argmax_dims(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op argmax reduces exactly one dimension, got 2}}
  %y = "tilus.reduce"(%x) {dims = array<i64: 0, 2>, kind = "argmax"} : (!x) -> !r
  return
}

// -----

!x = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
func.func @argmin_type(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f32) -> !x
  // expected-error@+1 {{'tilus.reduce' op the result of argmin holds indices: its element type must be i32, got 'f32'}}
  %y = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "argmin"} : (!x) -> !r
  return
}
