// Broadcast operands whose threads do not already hold what they need are
// refused by tilus-to-gpu alone with the reason and a layout that works
// (moving data between threads is layout conversion, which
// tilus-convert-broadcasts inserts: Transforms/convert-broadcasts.mlir).
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-to-gpu

!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!row = !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(column_spatial(8,4,1), dims=[1])">>
!g = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
func.func @rows_elsewhere(%x: f32, %p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.allocate_register"(%x) : (f32) -> !f
  %r = "tilus.allocate_register"(%x) : (f32) -> !row
  // expected-error@+1 {{'tilus.add' op cannot be lowered: broadcast of operand 'rhs' needs data movement: thread 1 needs element [0, 0] of it for its slot 0, but the operand's layout puts element [1, 0] there (its layout is 'reduce(column_spatial(8,1,4),dims=[2])'; a layout whose threads hold what they need is 'reduce(spatial(8,1,4),dims=[2])'; tilus-convert-broadcasts, part of lower-to-nvvm, converts it)}}
  %s = "tilus.add"(%a, %r) : (!f, !row) -> !f
  "tilus.store_global"(%s, %g, %c0, %c0) : (!f, !g, index, index) -> ()
  return
}

// -----

// Same shape, another layout: no broadcast, but the data is elsewhere.
!a = !tilus.register<f32, array<i64: 64>, #tilus.layout<"local(2).spatial(32)">>
!b = !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
func.func @binary_layout() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  // expected-error@+1 {{'tilus.mul' op cannot be lowered: reading of operand 'rhs' needs data movement: thread 1 needs element [1] of it for its slot 0, but the operand's layout puts element [2] there (its layout is 'spatial(32).local(2)'; a layout whose threads hold what they need is 'local(2).spatial(32)'; tilus-convert-broadcasts, part of lower-to-nvvm, converts it)}}
  %c = "tilus.mul"(%a, %b) : (!a, !b) -> !a
  return
}

// -----

// Columns spread over the threads differently.
!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!col = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"local(1,8).reduce(spatial(8,1,4), dims=[0])">>
func.func @columns_elsewhere(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !f
  %c = "tilus.allocate_register"(%x) : (f32) -> !col
  // expected-error@+1 {{'tilus.clamp' op cannot be lowered: broadcast of operand 'lo' needs data movement: thread 1 needs element [0, 8] of it for its slot 0, but the operand's layout puts element [0, 1] there (its layout is 'local(1,8).reduce(spatial(1,8,4),dims=[1])'; a layout whose threads hold what they need is 'reduce(spatial(1,8,4),dims=[1]).local(1,8)'; tilus-convert-broadcasts, part of lower-to-nvvm, converts it)}}
  %w = "tilus.clamp"(%a, %c, %x) : (!f, !col, f32) -> !f
  return
}

// -----

!d = !tilus.register<f64, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @f64_math(%x: f64) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f64) -> !d
  // expected-error@+1 {{'tilus.exp' op cannot be lowered: f64 math functions are not lowered (PTX has no approximate f64 forms); cast to f32}}
  %e = "tilus.exp"(%a) : (!d) -> !d
  return
}
