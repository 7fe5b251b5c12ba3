// The elementwise instructions of issue 11 (binary ops with broadcasting,
// cmp, where, clamp, the unary math ops) and the constant attributes, parsed,
// verified, printed and parsed again.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!row = !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
!col = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8)">>
!i = !tilus.register<i32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!u = !tilus.register<ui8, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!b = !tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!e = !tilus.register<!tilus.float<4, 3>, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!g = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: f32, %k: i32, %p: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  // CHECK: "tilus.allocate_register"() {value = 1.500000e+00 : f64}
  %a = "tilus.allocate_register"() {value = 1.5 : f64} : () -> !f
  // CHECK: "tilus.allocate_register"() {value = 200 : i64}
  %ub = "tilus.allocate_register"() {value = 200 : i64} : () -> !u
  // CHECK: "tilus.allocate_register"() {value = 3.000000e-01 : f64}
  %e = "tilus.allocate_register"() {value = 0.3 : f64} : () -> !e
  %r = "tilus.allocate_register"(%x) : (f32) -> !row
  %c = "tilus.allocate_register"(%x) : (f32) -> !col
  %ia = "tilus.allocate_register"(%k) : (i32) -> !i
  // CHECK: "tilus.max"(%{{.*}}, %{{.*}}) : (!tilus.register<f32, array<i64: 8, 32>
  %m = "tilus.max"(%a, %r) : (!f, !row) -> !f
  // CHECK: "tilus.min"
  %n = "tilus.min"(%c, %r) : (!col, !row) -> !f
  // CHECK: "tilus.and"
  %and = "tilus.and"(%ia, %k) : (!i, i32) -> !i
  // CHECK: "tilus.or"
  %or = "tilus.or"(%ia, %and) : (!i, !i) -> !i
  // CHECK: "tilus.xor"
  %xor = "tilus.xor"(%ia, %or, %or) : (!i, !i, !i) -> !i
  // CHECK: "tilus.shl"
  %shl = "tilus.shl"(%ia, %k) : (!i, i32) -> !i
  // CHECK: "tilus.shr"
  %shr = "tilus.shr"(%ub, %ub) : (!u, !u) -> !u
  // CHECK: "tilus.cmp"(%{{.*}}, %{{.*}}) {predicate = "lt"}
  %lt = "tilus.cmp"(%a, %r) {predicate = "lt"} : (!f, !row) -> !b
  // CHECK: "tilus.where"
  %w = "tilus.where"(%lt, %m, %x) : (!b, !f, f32) -> !f
  // CHECK: "tilus.clamp"
  %cl = "tilus.clamp"(%w, %r, %c) : (!f, !row, !col) -> !f
  // CHECK: "tilus.not"
  %not = "tilus.not"(%shl) : (!i) -> !i
  // CHECK: "tilus.abs"
  %abs = "tilus.abs"(%not) : (!i) -> !i
  // CHECK: "tilus.exp"
  %u0 = "tilus.exp"(%cl) : (!f) -> !f
  // CHECK: "tilus.exp2"
  %u1 = "tilus.exp2"(%u0) : (!f) -> !f
  // CHECK: "tilus.log"
  %u2 = "tilus.log"(%u1) : (!f) -> !f
  // CHECK: "tilus.log2"
  %u3 = "tilus.log2"(%u2) : (!f) -> !f
  // CHECK: "tilus.sqrt"
  %u4 = "tilus.sqrt"(%u3) : (!f) -> !f
  // CHECK: "tilus.rsqrt"
  %u5 = "tilus.rsqrt"(%u4) : (!f) -> !f
  // CHECK: "tilus.tanh"
  %u6 = "tilus.tanh"(%u5) : (!f) -> !f
  // CHECK: "tilus.sin"
  %u7 = "tilus.sin"(%u6) : (!f) -> !f
  // CHECK: "tilus.cos"
  %u8 = "tilus.cos"(%u7, %u7) : (!f, !f) -> !f
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  // CHECK: "tilus.load_global"(%{{.*}}, %{{.*}}, %{{.*}}) {fill_value = -1.500000e+00 : f64
  %l = "tilus.load_global"(%g, %c0, %c0) {fill_value = -1.5 : f64, operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !f
  return
}
