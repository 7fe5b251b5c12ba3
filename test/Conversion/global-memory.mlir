// LoadGlobal/StoreGlobal lowering: per-thread coordinates from the layout,
// masked edges, and 16-byte vector accesses where contiguity and alignment
// are provable.
// RUN: tilus-opt %s --split-input-file --tilus-to-gpu | FileCheck %s

// Four contiguous f32 per thread, 16-byte aligned offsets: vector<4xf32>
// accesses, guarded by a whole-group bounds check, with an element-by-element
// fallback for a group that straddles the run-time edge.
// CHECK-LABEL: gpu.func @vectorized
// CHECK-SAME: kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: arith.muli %[[TID]], %c4
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: "tilus.
!g = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!r = !tilus.register<f32, array<i64: 512>, #tilus.layout<"spatial(128).local(4)">>
func.func @vectorized(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 512)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c512 = arith.constant 512 : index
  %off = arith.muli %bi, %c512 : index
  %gs = "tilus.view_global"(%src, %N) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst, %N) : (!tilus.ptr<f32>, index) -> !g
  %r = "tilus.load_global"(%gs, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  "tilus.store_global"(%r, %gd, %off) : (!r, !g, index) -> ()
  return
}

// -----

// A static last dimension that is a multiple of the vector width: each
// group is wholly inside or outside, so one check guards each vector.
// CHECK-LABEL: gpu.func @static_rows
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xf16>
// CHECK-NOT: -> f16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<1>
!g = !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
!r = !tilus.register<f16, array<i64: 32, 64>, #tilus.layout<"spatial(32,16).local(1,4)">>
func.func @static_rows(%src: !tilus.ptr<f16>, %dst: !tilus.ptr<f16>, %m: i32)
    attributes {tilus.kernel, tilus.block_size = 512 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 32)>} {
  %M = arith.index_cast %m : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %row = arith.muli %bi, %c32 : index
  %gs = "tilus.view_global"(%src, %M) : (!tilus.ptr<f16>, index) -> !g
  %gd = "tilus.view_global"(%dst, %M) : (!tilus.ptr<f16>, index) -> !g
  %r = "tilus.load_global"(%gs, %row, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !r
  "tilus.store_global"(%r, %gd, %row, %c0) : (!r, !g, index, index) -> ()
  return
}

// -----

// Offsets that are not provably aligned, and a layout whose thread elements
// are not contiguous, get scalar accesses.
// CHECK-LABEL: gpu.func @scalar
// CHECK-NOT: !llvm.ptr<1> -> vector
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: !llvm.ptr<1> -> vector
// CHECK: gpu.return
!g = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!r = !tilus.register<f32, array<i64: 256>, #tilus.layout<"local(2).spatial(128)">>
func.func @scalar(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>, %n: i32, %o: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3] -> (1)>} {
  %N = arith.index_cast %n : i32 to index
  %off = arith.index_cast %o : i32 to index
  %gs = "tilus.view_global"(%src, %N) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst, %N) : (!tilus.ptr<f32>, index) -> !g
  %r = "tilus.load_global"(%gs, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  "tilus.store_global"(%r, %gd, %off) : (!r, !g, index) -> ()
  return
}
