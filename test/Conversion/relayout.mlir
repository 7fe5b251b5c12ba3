// ConvertLayout, Permute and Reshape: a relabelling costs nothing, a
// permutation of a thread's slots is one vector.shuffle, the same slots at
// other lanes of a warp are warp shuffles, and anything else
// goes through shared scratch (planned by tilus-plan-shared) between
// barriers: stores at the source's row-major addresses, loads at the
// result's.
// RUN: tilus-opt %s --tilus-plan-shared --tilus-to-gpu | FileCheck %s

!mma = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!col = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).column_local(2,2)">>
!tr = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"column_local(1,2).column_spatial(4,8).column_local(2,2)">>
!rows = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!flat = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
!three = !tilus.register<f32, array<i64: 1, 32, 8>, #tilus.layout<"spatial(1,32,1).local(1,1,8)">>
!g = !tilus.global<f32, array<i64: 32, 8>, #tilus.row_major>
!w = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!sums = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
!kept = !tilus.register<f32, array<i64: 32, 1>, #tilus.layout<"reduce(spatial(8,4,1),dims=[1]).local(4,1)">>

// CHECK-LABEL: gpu.func @in_registers
// CHECK-SAME: tilus.shared_bytes = 0
// The column-major slots: one shuffle of the thread's 8 values.
// CHECK: vector.shuffle %[[X:.*]], %[[X]] [0, 2, 1, 3, 4, 6, 5, 7] : vector<8xf32>, vector<8xf32>
// The transpose with the transposed layout, the reshapes and the size-1
// dimension put back after a Reduce (keepdim) move nothing.
// CHECK-NOT: vector.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @in_registers(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !mma
  %c = "tilus.convert_layout"(%a) : (!mma) -> !col
  %t = "tilus.permute"(%a) {dims = array<i64: 1, 0>} : (!mma) -> !tr
  %r = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !rows
  %f = "tilus.reshape"(%r) : (!rows) -> !flat
  %h = "tilus.reshape"(%r) : (!rows) -> !three
  %w = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !w
  %s = "tilus.reduce"(%w) {dims = array<i64: 1>, kind = "sum"} : (!w) -> !sums
  %k = "tilus.reshape"(%s) : (!sums) -> !kept
  "tilus.print"(%k) : (!kept) -> ()
  "tilus.print"(%c) : (!col) -> ()
  "tilus.print"(%t) : (!tr) -> ()
  "tilus.print"(%f) : (!flat) -> ()
  "tilus.print"(%h) : (!three) -> ()
  return
}

!trows = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
// CHECK-LABEL: gpu.func @through_shared
// CHECK-SAME: tilus.shared_bytes = 1024
// mma fragments to a row per thread: 8 stores, a barrier, 8 loads.
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.barrier
// A transpose into a layout the algebra does not relabel: the same way.
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.barrier
func.func @through_shared(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !mma
  %b = "tilus.convert_layout"(%a) : (!mma) -> !rows
  %t = "tilus.permute"(%a) {dims = array<i64: 1, 0>} : (!mma) -> !trows
  "tilus.print"(%b) : (!rows) -> ()
  "tilus.print"(%t) : (!trows) -> ()
  return
}

!b32 = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!l32 = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"column_spatial(8,4).local(4,2)">>
!g16 = !tilus.global<f16, array<i64: 32, 8>, #tilus.row_major>
// The same slots at other lanes of the warp: the source lane is computed from
// the result lane's digits (lane % 8 gives the row block, lane / 8 the
// column pair; source lane = 4 * (row block) + column pair), then one
// shfl.sync idx per slot, f16 moved as i32. No shared memory.
// CHECK-LABEL: gpu.func @lanes
// CHECK-SAME: tilus.shared_bytes = 0
// CHECK-NOT: gpu.barrier
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK: %[[FROM:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[V:.*]] = llvm.bitcast %{{.*}} : f16 to i16
// CHECK: %[[W:.*]] = arith.extui %[[V]] : i16 to i32
// CHECK: %[[S:.*]] = nvvm.shfl.sync idx %c-1_i32, %[[W]], %[[FROM]], %c31_i32 : i32 -> i32
// CHECK: %[[T:.*]] = arith.trunci %[[S]] : i32 to i16
// CHECK: llvm.bitcast %[[T]] : i16 to f16
// CHECK-COUNT-7: nvvm.shfl.sync idx %c-1_i32, %{{.*}}, %[[FROM]], %c31_i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @lanes(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !g16
  %a = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g16, index, index) -> !b32
  %b = "tilus.convert_layout"(%a) : (!b32) -> !l32
  "tilus.print"(%b) : (!l32) -> ()
  return
}

!m4 = !tilus.register<ui4, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!r4 = !tilus.register<ui4, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!c4 = !tilus.register<ui4, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).column_local(2,2)">>
!g4 = !tilus.global<ui4, array<i64: 32, 8>, #tilus.row_major>
// Sub-byte elements: a byte each in the scratch (256 bytes), and vectors
// widened to i32 and narrowed back whole around element accesses.
// CHECK-LABEL: gpu.func @subbyte
// CHECK-SAME: tilus.shared_bytes = 256
// CHECK: arith.extui %{{.*}} : vector<8xi4> to vector<8xi32>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK: gpu.barrier
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi4>
// CHECK: %[[W:.*]] = arith.extui %{{.*}} : vector<8xi4> to vector<8xi32>
// CHECK: %[[P:.*]] = vector.shuffle %[[W]], %[[W]] [0, 2, 1, 3, 4, 6, 5, 7] : vector<8xi32>, vector<8xi32>
// CHECK: arith.trunci %[[P]] : vector<8xi32> to vector<8xi4>
func.func @subbyte(%p: !tilus.ptr<ui4>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui4>) -> !g4
  %a = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g4, index, index) -> !m4
  %b = "tilus.convert_layout"(%a) : (!m4) -> !r4
  %c = "tilus.convert_layout"(%a) : (!m4) -> !c4
  "tilus.print"(%b) : (!r4) -> ()
  "tilus.print"(%c) : (!c4) -> ()
  return
}
