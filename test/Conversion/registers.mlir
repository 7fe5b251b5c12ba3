// Register tensors become one vector per thread; elementwise ops, casts and
// views act on it. Block indices become gpu.block_id.
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s

!f = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!h = !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!i = !tilus.register<i32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!u = !tilus.register<ui16, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!v = !tilus.register<i32, array<i64: 128>, #tilus.layout<"spatial(128).local(1)">>
// CHECK-LABEL: gpu.func @compute
// Results are stored, so that none is dead code.
!gf = !tilus.global<f32, array<i64: 256>, #tilus.row_major>
!gh = !tilus.global<f16, array<i64: 256>, #tilus.row_major>
!gi = !tilus.global<i32, array<i64: 256>, #tilus.row_major>
!gu = !tilus.global<ui16, array<i64: 256>, #tilus.row_major>
func.func @compute(%x: f32, %k: i32, %pf: !tilus.ptr<f32>, %ph: !tilus.ptr<f16>,
                   %pi: !tilus.ptr<i32>, %pu: !tilus.ptr<ui16>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<() -> (4, 2)>} {
  %c0 = arith.constant 0 : index
  %gf = "tilus.view_global"(%pf) : (!tilus.ptr<f32>) -> !gf
  %gh = "tilus.view_global"(%ph) : (!tilus.ptr<f16>) -> !gh
  %gi = "tilus.view_global"(%pi) : (!tilus.ptr<i32>) -> !gi
  %gu = "tilus.view_global"(%pu) : (!tilus.ptr<ui16>) -> !gu
  // CHECK-DAG: gpu.block_id x
  // CHECK-DAG: gpu.block_id y
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)
  // CHECK: %[[A:.*]] = vector.broadcast %arg0 : f32 to vector<2xf32>
  %a = "tilus.allocate_register"(%x) : (f32) -> !f
  // (the zero vector is a constant, hoisted to the top)
  %z = "tilus.allocate_register"() : () -> !f
  // CHECK: %[[S:.*]] = arith.addf %[[A]], %{{.*}} : vector<2xf32>
  %s = "tilus.add"(%a, %z) : (!f, !f) -> !f
  // CHECK: %[[XB:.*]] = vector.broadcast %arg0 : f32 to vector<2xf32>
  // CHECK: %[[M:.*]] = arith.mulf %[[S]], %[[XB]] : vector<2xf32>
  %m = "tilus.mul"(%s, %x) : (!f, f32) -> !f
  // CHECK: %[[D:.*]] = arith.divf %[[M]], %[[A]] : vector<2xf32>
  %d = "tilus.div"(%m, %a, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!f, !f, !f) -> !f
  // CHECK: %[[N:.*]] = arith.negf %[[D]] : vector<2xf32>
  %n = "tilus.neg"(%d) : (!f) -> !f
  // CHECK: %[[H:.*]] = arith.truncf %[[N]] : vector<2xf32> to vector<2xf16>
  %h = "tilus.cast"(%n) : (!f) -> !h
  // CHECK: %[[I:.*]] = arith.fptosi %[[N]] : vector<2xf32> to vector<2xi32>
  %i = "tilus.cast"(%n) : (!f) -> !i
  // CHECK: arith.remsi %[[I]], %{{.*}} : vector<2xi32>
  %r = "tilus.mod"(%i, %k) : (!i, i32) -> !i
  // CHECK: %[[U:.*]] = arith.trunci %[[I]] : vector<2xi32> to vector<2xi16>
  %u = "tilus.cast"(%i) : (!i) -> !u
  // Unsigned: divui and extui.
  // CHECK: arith.divui %[[U]], %[[U]] : vector<2xi16>
  %q = "tilus.div"(%u, %u) : (!u, !u) -> !u
  // CHECK: arith.extui %{{.*}} : vector<2xi16> to vector<2xi32>
  %w = "tilus.cast"(%q) : (!u) -> !i
  // CHECK: arith.subi
  %sub = "tilus.sub"(%w, %i) : (!i, !i) -> !i
  // A view reinterprets the thread's 32 bits: a bit cast, no arithmetic.
  // CHECK: llvm.bitcast %[[H]] : vector<2xf16> to vector<1xi32>
  %view = "tilus.view"(%h) : (!h) -> !v
  "tilus.store_global"(%n, %gf, %bi) : (!f, !gf, index) -> ()
  "tilus.store_global"(%h, %gh, %bj) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r, %gi, %c0) : (!i, !gi, index) -> ()
  "tilus.store_global"(%sub, %gi, %c0) : (!i, !gi, index) -> ()
  "tilus.store_global"(%q, %gu, %c0) : (!u, !gu, index) -> ()
  "tilus.store_global"(%view, %gi, %c0) : (!v, !gi, index) -> ()
  // CHECK: gpu.barrier
  "tilus.synchronize"() : () -> ()
  // CHECK: nvvm.exit
  "tilus.exit"() : () -> ()
  // CHECK: gpu.return
  return
}
