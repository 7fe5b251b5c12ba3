// Reduce in three stages: within a thread (no shuffle, no shared memory),
// shfl.sync.bfly over the lane bits that index the reduced dims (the xor
// masks), and shared scratch planned by tilus-plan-shared only when the
// reduced dims are spread over warps. f16 sums accumulate in f32; integers
// narrower than 32 bits in i32 (extended by their signedness).
// RUN: tilus-opt %s --tilus-plan-shared --tilus-to-gpu | FileCheck %s

!rows = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!rows_r = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32).local(1)">>
!go = !tilus.global<f32, array<i64: 32>, #tilus.row_major>
// Each thread holds a whole row: seven adds, nothing else.
// CHECK-LABEL: gpu.func @in_thread
// CHECK-SAME: tilus.shared_bytes = 0
// CHECK-COUNT-7: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @in_thread(%v: f32, %q: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %x = "tilus.allocate_register"(%v) : (f32) -> !rows
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!rows) -> !rows_r
  %go = "tilus.view_global"(%q) : (!tilus.ptr<f32>) -> !go
  "tilus.store_global"(%s, %go, %c0) : (!rows_r, !go, index) -> ()
  return
}

!w = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!w_rows = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
!w_cols = !tilus.register<f32, array<i64: 8>, #tilus.layout<"reduce(spatial(8,4),dims=[0]).local(2)">>
!go8 = !tilus.global<f32, array<i64: 8>, #tilus.row_major>
// Rows spread over lane bits 0-1 (4 lanes a row), columns over lane bits
// 2-4: each of the 4 row results takes masks 1 and 2, each of the 2 column
// results masks 4, 8 and 16. No shared memory.
// CHECK-LABEL: gpu.func @in_warp
// CHECK-SAME: tilus.shared_bytes = 0
// CHECK-NOT: gpu.barrier
// CHECK: %[[S:.*]] = nvvm.shfl.sync bfly %c-1_i32, %[[V:.*]], %c1_i32, %c31_i32 : f32 -> f32
// CHECK: %[[A:.*]] = arith.addf %[[V]], %[[S]] : f32
// CHECK: %[[S2:.*]] = nvvm.shfl.sync bfly %c-1_i32, %[[A]], %c2_i32, %c31_i32 : f32 -> f32
// CHECK: arith.addf %[[A]], %[[S2]] : f32
// CHECK-COUNT-3: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32
// CHECK: arith.maximumf
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c4_i32, %c31_i32
// CHECK: arith.maximumf
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c8_i32, %c31_i32
// CHECK: arith.maximumf
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32, %c31_i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @in_warp(%v: f32, %q: !tilus.ptr<f32>, %q8: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %x = "tilus.allocate_register"(%v) : (f32) -> !w
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!w) -> !w_rows
  %m = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "max"} : (!w) -> !w_cols
  %go = "tilus.view_global"(%q) : (!tilus.ptr<f32>) -> !go
  "tilus.store_global"(%s, %go, %c0) : (!w_rows, !go, index) -> ()
  %go8 = "tilus.view_global"(%q8) : (!tilus.ptr<f32>) -> !go8
  "tilus.store_global"(%m, %go8, %c0) : (!w_cols, !go8, index) -> ()
  return
}

!h = !tilus.register<f16, array<i64: 8, 256>, #tilus.layout<"local(8,1).spatial(1,128).local(1,2)">>
!h_r = !tilus.register<f16, array<i64: 8>, #tilus.layout<"local(8).reduce(spatial(1,128),dims=[1])">>
!gh = !tilus.global<f16, array<i64: 8>, #tilus.row_major>
// A row spread over 128 threads: lanes by shuffles (masks 1 to 16), then 4
// warps' partials (f32) in 4 rows of 8 of the scratch (128 bytes), between
// barriers; one rounding to f16 at the end.
// CHECK-LABEL: gpu.func @across_warps
// CHECK-SAME: tilus.shared_bytes = 128
// CHECK: arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c2_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c4_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c8_i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c16_i32
// The warp's row of the scratch: (tid / 32) % 4.
// CHECK: %[[WARP:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK: arith.remui %[[WARP]], %c4 : index
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-32: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.barrier
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
func.func @across_warps(%v: f16, %q: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %x = "tilus.allocate_register"(%v) : (f16) -> !h
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!h) -> !h_r
  %g = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !gh
  "tilus.store_global"(%s, %g, %c0) : (!h_r, !gh, index) -> ()
  return
}

!i = !tilus.register<si8, array<i64: 4, 64>, #tilus.layout<"spatial(4,8).local(1,8)">>
!i_r = !tilus.register<si8, array<i64: 4>, #tilus.layout<"reduce(spatial(4,8),dims=[1])">>
!u = !tilus.register<ui8, array<i64: 4, 64>, #tilus.layout<"spatial(4,8).local(1,8)">>
!u_r = !tilus.register<ui8, array<i64: 4>, #tilus.layout<"reduce(spatial(4,8),dims=[1])">>
!gi = !tilus.global<si8, array<i64: 4>, #tilus.row_major>
!gu = !tilus.global<ui8, array<i64: 4>, #tilus.row_major>
// Integers by their signedness, in i32 (shfl.sync moves 32 bits).
// CHECK-LABEL: gpu.func @integers
// CHECK: arith.extsi %{{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.maxsi
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : i32 -> i32
// CHECK: arith.trunci %{{.*}} : vector<1xi32> to vector<1xi8>
// CHECK: arith.extui %{{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.minui
!gix = !tilus.global<si8, array<i64: 4, 64>, #tilus.row_major>
!gux = !tilus.global<ui8, array<i64: 4, 64>, #tilus.row_major>
func.func @integers(%q: !tilus.ptr<si8>, %r: !tilus.ptr<ui8>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gix = "tilus.view_global"(%q) : (!tilus.ptr<si8>) -> !gix
  %gux = "tilus.view_global"(%r) : (!tilus.ptr<ui8>) -> !gux
  %x = "tilus.load_global"(%gix, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gix, index, index) -> !i
  %y = "tilus.load_global"(%gux, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gux, index, index) -> !u
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "max"} : (!i) -> !i_r
  %t = "tilus.reduce"(%y) {dims = array<i64: 1>, kind = "min"} : (!u) -> !u_r
  %gi = "tilus.view_global"(%q) : (!tilus.ptr<si8>) -> !gi
  "tilus.store_global"(%s, %gi, %c0) : (!i_r, !gi, index) -> ()
  %gu = "tilus.view_global"(%r) : (!tilus.ptr<ui8>) -> !gu
  "tilus.store_global"(%t, %gu, %c0) : (!u_r, !gu, index) -> ()
  return
}

!d = !tilus.register<f64, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!d_r = !tilus.register<f64, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
!gd = !tilus.global<f64, array<i64: 32, 8>, #tilus.row_major>
!gdo = !tilus.global<f64, array<i64: 32>, #tilus.row_major>
// 64-bit values cross lanes as their two 32-bit halves.
// CHECK-LABEL: gpu.func @wide
// CHECK: %[[H:.*]] = llvm.bitcast %{{.*}} : f64 to vector<2xi32>
// CHECK: %[[LO:.*]] = llvm.extractelement %[[H]]
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %[[LO]], %c1_i32, %c31_i32 : i32 -> i32
// CHECK: %[[HI:.*]] = llvm.extractelement %[[H]]
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %[[HI]], %c1_i32, %c31_i32 : i32 -> i32
// CHECK: llvm.bitcast %{{.*}} : vector<2xi32> to f64
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
func.func @wide(%p: !tilus.ptr<f64>, %q: !tilus.ptr<f64>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f64>) -> !gd
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gd, index, index) -> !d
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!d) -> !d_r
  %go = "tilus.view_global"(%q) : (!tilus.ptr<f64>) -> !gdo
  "tilus.store_global"(%s, %go, %c0) : (!d_r, !gdo, index) -> ()
  return
}

!a = !tilus.register<f32, array<i64: 8, 256>, #tilus.layout<"local(8,1).spatial(1,128).local(1,2)">>
!a_r = !tilus.register<i32, array<i64: 8>, #tilus.layout<"local(8).reduce(spatial(1,128),dims=[1])">>
!ga = !tilus.global<f32, array<i64: 8, 256>, #tilus.row_major>
!gao = !tilus.global<i32, array<i64: 8>, #tilus.row_major>
// ArgMax carries (value, i32 index): the index of slot i is the thread's
// column plus the slot's; b wins when greater, or equal with a lower index;
// values and indices are both shuffled, and the scratch holds 4 rows of 8
// values then 4 rows of 8 indices (256 bytes).
// CHECK-LABEL: gpu.func @argmax
// CHECK-SAME: tilus.shared_bytes = 256
// CHECK: %[[B:.*]] = arith.cmpf ogt, %[[Y:.*]], %[[X:.*]] : f32
// CHECK: %[[E:.*]] = arith.cmpf oeq, %[[X]], %[[Y]] : f32
// CHECK: %[[L:.*]] = arith.cmpi slt, %[[J:.*]], %[[I:.*]] : i32
// CHECK: %[[T:.*]] = arith.andi %[[E]], %[[L]] : i1
// CHECK: %[[W:.*]] = arith.ori %[[B]], %[[T]] : i1
// CHECK: arith.select %[[W]], %[[Y]], %[[X]] : f32
// CHECK: arith.select %[[W]], %[[J]], %[[I]] : i32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : f32 -> f32
// CHECK: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : i32 -> i32
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
func.func @argmax(%p: !tilus.ptr<f32>, %q: !tilus.ptr<i32>) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !ga
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !a
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "argmax"} : (!a) -> !a_r
  %go = "tilus.view_global"(%q) : (!tilus.ptr<i32>) -> !gao
  "tilus.store_global"(%s, %go, %c0) : (!a_r, !gao, index) -> ()
  return
}

!s48 = !tilus.register<f32, array<i64: 6, 16>, #tilus.layout<"spatial(3,16).local(2,1)">>
!s48_r = !tilus.register<f32, array<i64: 6>, #tilus.layout<"reduce(spatial(3,16),dims=[1]).local(2)">>
!g48 = !tilus.global<f32, array<i64: 6, 16>, #tilus.row_major>
!g48o = !tilus.global<f32, array<i64: 6>, #tilus.row_major>
// 48 threads: the last warp has 16 lanes, and its shuffles name only them.
// CHECK-LABEL: gpu.func @short_warp
// CHECK: %[[W:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[W]], %c1 : index
// CHECK: %[[M:.*]] = arith.select %[[LAST]], %c65535_i32, %c-1_i32 : i32
// CHECK: nvvm.shfl.sync bfly %[[M]], %{{.*}}, %c1_i32, %c31_i32 : f32 -> f32
func.func @short_warp(%p: !tilus.ptr<f32>, %q: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 48 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g48
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g48, index, index) -> !s48
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!s48) -> !s48_r
  %go = "tilus.view_global"(%q) : (!tilus.ptr<f32>) -> !g48o
  "tilus.store_global"(%s, %go, %c0) : (!s48_r, !g48o, index) -> ()
  return
}
