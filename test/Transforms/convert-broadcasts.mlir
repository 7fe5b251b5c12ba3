// tilus-convert-broadcasts puts a tilus.convert_layout before an elementwise
// operand whose threads do not hold the elements they need, to the layout
// that tilus-to-gpu's error names, and leaves operands that are readable in
// place alone. Through lower-to-nvvm the three cases that tilus-to-gpu alone
// refuses (Conversion/broadcast-invalid.mlir) lower, the conversions planned
// in shared memory or done with shuffles.
// RUN: tilus-opt %s --split-input-file --tilus-convert-broadcasts | FileCheck %s
// RUN: tilus-opt %s --split-input-file --lower-to-nvvm --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!row = !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(column_spatial(8,4,1), dims=[1])">>
!g = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
// CHECK-LABEL: func.func @rows_elsewhere
// CHECK: "tilus.allocate_register"
// CHECK: %[[R:.*]] = "tilus.allocate_register"
// CHECK: %[[C:.*]] = "tilus.convert_layout"(%[[R]])
// CHECK-SAME: -> !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4),dims=[2])">>
// CHECK: "tilus.add"(%{{.*}}, %[[C]])
func.func @rows_elsewhere(%x: f32, %p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.allocate_register"(%x) : (f32) -> !f
  %r = "tilus.allocate_register"(%x) : (f32) -> !row
  %s = "tilus.add"(%a, %r) : (!f, !row) -> !f
  "tilus.store_global"(%s, %g, %c0, %c0) : (!f, !g, index, index) -> ()
  return
}

// -----

!a = !tilus.register<f32, array<i64: 64>, #tilus.layout<"local(2).spatial(32)">>
!b = !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
!g = !tilus.global<f32, array<i64: 64>, #tilus.row_major>
// CHECK-LABEL: func.func @binary_layout
// CHECK: %[[B:.*]] = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
// CHECK: %[[C:.*]] = "tilus.convert_layout"(%[[B]])
// CHECK-SAME: #tilus.layout<"local(2).spatial(32)">
// CHECK: "tilus.mul"(%{{.*}}, %[[C]])
func.func @binary_layout(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  %c = "tilus.mul"(%a, %b) : (!a, !b) -> !a
  "tilus.store_global"(%c, %g, %c0) : (!a, !g, index) -> ()
  return
}

// -----

!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!col = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"local(1,8).reduce(spatial(8,1,4), dims=[0])">>
!ok = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(1,8,4),dims=[1]).local(1,8)">>
!g = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
// CHECK-LABEL: func.func @columns_elsewhere
// CHECK: %[[C:.*]] = "tilus.convert_layout"
// CHECK-SAME: -> !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(1,8,4),dims=[1]).local(1,8)">>
// CHECK: %[[W:.*]] = "tilus.clamp"(%{{.*}}, %[[C]], %{{.*}})
// The readable operand of the next op is left alone.
// CHECK-NOT: convert_layout
// CHECK: "tilus.max"(%[[W]], %{{.*}})
func.func @columns_elsewhere(%x: f32, %p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.allocate_register"(%x) : (f32) -> !f
  %c = "tilus.allocate_register"(%x) : (f32) -> !col
  %w = "tilus.clamp"(%a, %c, %x) : (!f, !col, f32) -> !f
  %k = "tilus.allocate_register"(%x) : (f32) -> !ok
  %m = "tilus.max"(%w, %k) : (!f, !ok) -> !f
  "tilus.store_global"(%m, %g, %c0, %c0) : (!f, !g, index, index) -> ()
  return
}

// The conversions move data: through shared memory (with barriers) or by a
// warp shuffle.
// PTX: .entry rows_elsewhere
// PTX-NOT: bar.sync
// PTX: shfl.sync.idx
// PTX: .entry binary_layout
// PTX: bar.sync
// PTX: .entry columns_elsewhere
// PTX: bar.sync
