// Every Tilus op (Table 1 of the paper), with the in-place `out` forms, parsed,
// verified, printed and parsed again.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

// CHECK-LABEL: func.func @all_ops
// CHECK-SAME: tilus.block_size = 32 : i64
// CHECK-SAME: tilus.kernel
func.func @all_ops(%p: !tilus.ptr<f16>, %q: !tilus.ptr<f32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 64, 2)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_cast %n : i32 to index
  %one = arith.constant 1.0 : f16

  // CHECK: %{{.*}}:2 = "tilus.block_indices"() : () -> (index, index)
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)

  // CHECK: "tilus.view_global"(%arg0, %{{.*}}) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
  %g = "tilus.view_global"(%p, %N) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
  // CHECK: "tilus.view_global"(%arg1) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 16, 8>, #tilus.layout<"column_local(16,8)">>
  %gcol = "tilus.view_global"(%q) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 16, 8>, #tilus.layout<"column_local(16,8)">>
  // CHECK: "tilus.allocate_global"() : () -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  %ws = "tilus.allocate_global"() : () -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // CHECK: "tilus.allocate_global"(%{{.*}}) : (index) -> !tilus.global<f32, array<i64: -1>, #tilus.row_major>
  %wsd = "tilus.allocate_global"(%N) : (index) -> !tilus.global<f32, array<i64: -1>, #tilus.row_major>
  // CHECK: "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 2, 16, 64>, #tilus.layout<"local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 2, 16, 64>, #tilus.layout<"local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)">>
  // CHECK: "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 8>
  %r0 = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  // CHECK: "tilus.allocate_register"(%{{.*}}) : (f16) -> !tilus.register<f16, array<i64: 16, 8>
  %r1 = "tilus.allocate_register"(%one) : (f16) -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>

  // CHECK: "tilus.load_global"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 2, 0, 0>}
  %l = "tilus.load_global"(%g, %bi, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index) -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  // CHECK: "tilus.load_global"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 2, 0, 1>}
  %lo = "tilus.load_global"(%g, %bi, %c0, %l) {operandSegmentSizes = array<i32: 1, 2, 0, 1>} : (!tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index, !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>) -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  // The fill value of elements outside the tensor.
  // CHECK: "tilus.load_global"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 2, 1, 0>}
  %lf = "tilus.load_global"(%g, %bi, %c0, %one) {operandSegmentSizes = array<i32: 1, 2, 1, 0>} : (!tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index, f16) -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  // CHECK: "tilus.store_shared"
  "tilus.store_shared"(%l, %s, %c1, %c0, %c0) : (!tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>, !tilus.shared<f16, array<i64: 2, 16, 64>, #tilus.layout<"local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)">>, index, index, index) -> ()
  // CHECK: "tilus.load_shared"
  %ls = "tilus.load_shared"(%s, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!tilus.shared<f16, array<i64: 2, 16, 64>, #tilus.layout<"local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)">>, index, index, index) -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  // CHECK: "tilus.load_shared"{{.*}}array<i32: 1, 3, 1>
  %lso = "tilus.load_shared"(%s, %c1, %c0, %c0, %ls) {operandSegmentSizes = array<i32: 1, 3, 1>} : (!tilus.shared<f16, array<i64: 2, 16, 64>, #tilus.layout<"local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)">>, index, index, index, !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>) -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
  // CHECK: "tilus.store_global"
  "tilus.store_global"(%ls, %g, %bi, %c0) : (!tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>, !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index) -> ()
  // CHECK: "tilus.copy_async"({{.*}}) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 16, 64>}
  "tilus.copy_async"(%s, %g, %c0, %c0, %c0, %bi, %c0) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 2, 16, 64>, #tilus.layout<"local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)">>, !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index, index, index, index) -> ()
  // CHECK: "tilus.copy_async_commit_group"() : () -> ()
  "tilus.copy_async_commit_group"() : () -> ()
  // CHECK: "tilus.copy_async_wait_group"() {n = 1 : i64} : () -> ()
  "tilus.copy_async_wait_group"() {n = 1 : i64} : () -> ()
  // CHECK: "tilus.synchronize"() : () -> ()
  "tilus.synchronize"() : () -> ()
  %ga = "tilus.view_global"(%p, %N) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
  "tilus.store_global"(%lso, %ga, %c0, %c0) : (!tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>, !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index) -> ()
  return
}

!r = !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
!h = !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>

// CHECK-LABEL: func.func @compute
func.func @compute(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64,
                                        tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !r
  %b = "tilus.allocate_register"(%x) : (f32) -> !r
  // CHECK: "tilus.add"(%{{.*}}, %{{.*}}) : (!tilus.register<f32
  %add = "tilus.add"(%a, %b) : (!r, !r) -> !r
  // CHECK: "tilus.add"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>}
  %addo = "tilus.add"(%a, %b, %add) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!r, !r, !r) -> !r
  // CHECK: "tilus.sub"(%{{.*}}, %arg0) : (!tilus.register<f32, {{.*}}, f32) ->
  %sub = "tilus.sub"(%a, %x) : (!r, f32) -> !r
  // CHECK: "tilus.sub"{{.*}}array<i32: 1, 1, 1>
  %subo = "tilus.sub"(%a, %x, %sub) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!r, f32, !r) -> !r
  // CHECK: "tilus.mul"
  %mul = "tilus.mul"(%a, %b) : (!r, !r) -> !r
  // CHECK: "tilus.mul"{{.*}}array<i32: 1, 1, 1>
  %mulo = "tilus.mul"(%a, %b, %mul) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!r, !r, !r) -> !r
  // CHECK: "tilus.div"
  %div = "tilus.div"(%a, %x) : (!r, f32) -> !r
  // CHECK: "tilus.div"{{.*}}array<i32: 1, 1, 1>
  %divo = "tilus.div"(%a, %x, %div) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!r, f32, !r) -> !r
  // CHECK: "tilus.mod"
  %mod = "tilus.mod"(%a, %b) : (!r, !r) -> !r
  // CHECK: "tilus.mod"{{.*}}array<i32: 1, 1, 1>
  %modo = "tilus.mod"(%a, %b, %mod) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!r, !r, !r) -> !r
  // CHECK: "tilus.neg"(%{{.*}}) : (!tilus.register<f32
  %neg = "tilus.neg"(%a) : (!r) -> !r
  // CHECK: "tilus.neg"(%{{.*}}, %{{.*}}) : (!tilus.register<f32
  %nego = "tilus.neg"(%a, %neg) : (!r, !r) -> !r
  // CHECK: "tilus.cast"(%{{.*}}) : (!tilus.register<f32{{.*}}) -> !tilus.register<f16
  %h = "tilus.cast"(%a) : (!r) -> !h
  // CHECK: "tilus.cast"(%{{.*}}, %{{.*}}) : (!tilus.register<f32
  %ho = "tilus.cast"(%a, %h) : (!r, !h) -> !h
  // CHECK: "tilus.view"(%{{.*}}) : (!tilus.register<f16, array<i64: 16, 8>{{.*}}) -> !tilus.register<i32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  %v = "tilus.view"(%h) : (!h) -> !tilus.register<i32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  %v0 = "tilus.allocate_register"() : () -> !tilus.register<i32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  // CHECK: "tilus.view"(%{{.*}}, %{{.*}}) : (!tilus.register<f16
  %vo = "tilus.view"(%h, %v0) : (!h, !tilus.register<i32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>) -> !tilus.register<i32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  %fa = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
  %fb = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
  // CHECK: "tilus.dot"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 0>}
  %d = "tilus.dot"(%fa, %fb, %a) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>, !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>, !r) -> !r
  // CHECK: "tilus.dot"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 1>}
  %do = "tilus.dot"(%fa, %fb, %d, %d) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (!tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>, !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>, !r, !r) -> !r
  // CHECK: "tilus.print"(%{{.*}}) : (!tilus.register<f32
  "tilus.print"(%do) : (!r) -> ()
  // CHECK: "tilus.print"(%arg0) : (f32) -> ()
  "tilus.print"(%x) : (f32) -> ()
  // CHECK: "tilus.exit"() : () -> ()
  "tilus.exit"() : () -> ()
  return
}
