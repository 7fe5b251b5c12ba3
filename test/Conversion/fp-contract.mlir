// tilus.fp_contract (tilus-c/Kernel.h) lets a float multiplication fuse into
// the addition that uses it: the arith ops carry the `contract` flag and the
// PTX has one fma.rn.f32. Without it each op rounds: mul.rn and add.rn.
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx | FileCheck %s --check-prefix=PTX

!r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
!g = !tilus.global<f32, array<i64: 32>, #tilus.row_major>

// CHECK-LABEL: gpu.func @contracted
// CHECK-SAME: tilus.fp_contract
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<1xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<1xf32>
// PTX-LABEL: .entry contracted(
// PTX: fma.rn.f32
// PTX-NOT: mul.rn.f32
func.func @contracted(%p: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  %m = "tilus.mul"(%a, %a) : (!r, !r) -> !r
  %s = "tilus.add"(%m, %a) : (!r, !r) -> !r
  "tilus.store_global"(%s, %g, %c0) : (!r, !g, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @rounded
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<1xf32>
// PTX-LABEL: .entry rounded(
// PTX: mul.rn.f32
// PTX: add.rn.f32
func.func @rounded(%p: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  %m = "tilus.mul"(%a, %a) : (!r, !r) -> !r
  %s = "tilus.add"(%m, %a) : (!r, !r) -> !r
  "tilus.store_global"(%s, %g, %c0) : (!r, !g, index) -> ()
  return
}
