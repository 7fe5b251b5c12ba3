// With tilus.fp_contract, a Dot whose B is a fast cast (FastCast.c: magic-
// number halves plus a constant bias) takes the halves as B and starts each
// accumulator chain from A x bias instead: one extra mma chain per row
// tile (here 2 k steps, shared by 8 column tiles) instead of one f16x2
// addition per pair of B (64 here). Without the attribute the bias is added
// to B (add.rn.f16x2) and there are only the 16 mma of the product. (With
// fewer than 8 pairs of B per added mma the lowering keeps the additions.)
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX

!ga = !tilus.global<f16, array<i64: 16, 32>, #tilus.row_major>
!gw = !tilus.global<ui8, array<i64: 1024>, #tilus.row_major>
!gc = !tilus.global<f32, array<i64: 16, 64>, #tilus.row_major>
!ra = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"local(1,2).column_local(2,2).spatial(8,4).local(1,2)">>
!rw8 = !tilus.register<ui8, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
!rw4 = !tilus.register<si4, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
!rwf = !tilus.register<f16, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
!rc = !tilus.register<f32, array<i64: 16, 64>, #tilus.layout<"local(1,8).local(2,1).spatial(8,4).local(1,2)">>

// CHECK-LABEL: gpu.func @folded
// CHECK: %[[X:.*]] = vector.shuffle
// CHECK: nvvm.mma.sync A[{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}]
// CHECK-COUNT-17: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// PTX-LABEL: .entry folded(
// PTX-NOT: add.rn.f16x2
// PTX-COUNT-18: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
// PTX: ret;
func.func @folded(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @rounded
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// PTX-LABEL: .entry rounded(
// PTX: add.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
func.func @rounded(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}
