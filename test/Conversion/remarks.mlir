// --tilus-remarks: the lowering says where it takes a silent slow path and
// why, at the op: every Dot on the SIMT fallback, every global load/store
// narrower than 16 bytes per thread access, every copy_async done element by
// element. Off by default.
// RUN: tilus-opt %s --tilus-plan-shared --tilus-to-gpu --tilus-remarks -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=remark
// RUN: tilus-opt %s --lower-to-nvvm --tilus-remarks -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=remark
// RUN: tilus-opt %s --lower-to-nvvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
// OFF-NOT: remark
// RUN: tilus-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --tilus-remarks          Report slow paths the lowering takes

!f32x4 = !tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
func.func @accesses(%p: !tilus.ptr<f32>, %q: !tilus.ptr<ui8>, %n: i32, %o: index)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1, s2, s3] -> (1)>} {
  %c0 = arith.constant 0 : index
  %N = arith.index_cast %n : i32 to index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 1024>, #tilus.row_major>
  // 16 bytes per access: no remark.
  %full = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f32, array<i64: 1024>, #tilus.row_major>, index) -> !f32x4
  // CHECK: remarks.mlir:[[@LINE+1]]:10: remark: 'tilus.load_global' accesses 4 bytes per thread at a time, not 16 bytes: each thread holds only 1 element (4 bytes)
  %one = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f32, array<i64: 1024>, #tilus.row_major>, index) -> !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // CHECK: remarks.mlir:[[@LINE+1]]:11: remark: 'tilus.load_global' accesses 8 bytes per thread at a time, not 16 bytes: the layout gives each thread runs of 2 contiguous elements along the last dimension (8 bytes)
  %runs = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f32, array<i64: 1024>, #tilus.row_major>, index) -> !tilus.register<f32, array<i64: 128>, #tilus.layout<"local(2).spatial(32).local(2)">>
  // CHECK: remarks.mlir:[[@LINE+1]]:3: remark: 'tilus.store_global' accesses 4 bytes per thread at a time, not 16 bytes: the offset in the last dimension is not provably a multiple of 2 elements
  "tilus.store_global"(%full, %g, %o) : (!f32x4, !tilus.global<f32, array<i64: 1024>, #tilus.row_major>, index) -> ()
  %g2 = "tilus.view_global"(%p, %N) : (!tilus.ptr<f32>, index) -> !tilus.global<f32, array<i64: 4, -1>, #tilus.row_major>
  // CHECK: remarks.mlir:[[@LINE+1]]:10: remark: 'tilus.load_global' accesses 4 bytes per thread at a time, not 16 bytes: the length of the last dimension is not provably a multiple of 2 elements, so rows may start misaligned
  %row = "tilus.load_global"(%g2, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f32, array<i64: 4, -1>, #tilus.row_major>, index, index) -> !tilus.register<f32, array<i64: 1, 128>, #tilus.layout<"spatial(1,32).local(1,4)">>
  %gq = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !tilus.global<ui4, array<i64: 256>, #tilus.row_major>
  // CHECK: remarks.mlir:[[@LINE+1]]:10: remark: 'tilus.load_global' accesses one 4-bit element per thread at a time, not 16 bytes: its 4-bit elements are accessed one by one
  %sub = "tilus.load_global"(%gq, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui4, array<i64: 256>, #tilus.row_major>, index) -> !tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %gd = "tilus.view_global"(%p, %N) : (!tilus.ptr<f32>, index) -> !tilus.global<f32, array<i64: -1>, #tilus.row_major>
  // CHECK: remarks.mlir:[[@LINE+1]]:11: remark: 'tilus.load_global' accesses one element at a time where a group of 4 may straddle the tensor's edge: its length is not provably a multiple of 4
  %edge = "tilus.load_global"(%gd, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f32, array<i64: -1>, #tilus.row_major>, index) -> !f32x4
  // Atomic adds are narrow by nature: no remark.
  "tilus.atomic_add_global"(%one, %g, %c0) : (!tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.global<f32, array<i64: 1024>, #tilus.row_major>, index) -> ()
  return
}

// Dot: mma.sync layouts take tensor cores (no remark); anything else says
// which operand or type misses the fragments.
!ah = !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
!bh = !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
!ch = !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
!other = !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"spatial(8,4).local(2,4)">>
!a8 = !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"spatial(8,4).local(2,2)">>
!b8 = !tilus.register<f16, array<i64: 8, 8>, #tilus.layout<"spatial(8,4).local(1,2)">>
func.func @dots()
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !ah
  %b = "tilus.allocate_register"() : () -> !bh
  %c = "tilus.allocate_register"() : () -> !ch
  %x = "tilus.allocate_register"() : () -> !other
  %a8 = "tilus.allocate_register"() : () -> !a8
  %b8 = "tilus.allocate_register"() : () -> !b8
  %mma = "tilus.dot"(%a, %b, %c) : (!ah, !bh, !ch) -> !ch
  // CHECK: remarks.mlir:[[@LINE+1]]:11: remark: Dot takes the SIMT fallback (no tensor cores; operands through a shared-memory scratch): the layout of a is not made of the A fragments of mma.sync m16n8k16 (f16)
  %simt = "tilus.dot"(%x, %b, %c) : (!other, !bh, !ch) -> !ch
  // CHECK: remarks.mlir:[[@LINE+1]]:9: remark: Dot takes the SIMT fallback (no tensor cores; operands through a shared-memory scratch): K = 8 is not a multiple of mma.sync m16n8k16's k
  %k8 = "tilus.dot"(%a8, %b8, %c) : (!a8, !b8, !ch) -> !ch
  return
}

!af = !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(4,8).local(4,2)">>
!cf = !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(8,4).local(2,4)">>
func.func @dot_f32()
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !af
  %c = "tilus.allocate_register"() : () -> !cf
  // CHECK: remarks.mlir:[[@LINE+1]]:8: remark: Dot takes the SIMT fallback (no tensor cores; operands through a shared-memory scratch): mma.sync has no instruction for f32 x f32 -> f32 (it takes f16 x f16 -> f16 or f32, bf16 x bf16 -> f32, s8 x s8 -> i32)
  %d = "tilus.dot"(%a, %a, %c) : (!af, !af, !cf) -> !cf
  return
}

// copy_async: 16-byte chunks where the rows are provably aligned (no
// remark); element by element, with the reason, where they are not (the
// quantized matmul's plain wgmma variant once viewed A with the kernel's k
// and lost 3-10x at M = 64-128).
!sa = !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
!ga = !tilus.global<f16, array<i64: 16, -1>, #tilus.row_major>
func.func @copies(%p: !tilus.ptr<f16>, %k: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = arith.index_cast %k : i32 to index
  %KT = arith.divui %K, %c64 : index
  %K64 = arith.muli %KT, %c64 : index
  %s = "tilus.allocate_shared"() : () -> !sa
  %aligned = "tilus.view_global"(%p, %K64) : (!tilus.ptr<f16>, index) -> !ga
  "tilus.copy_async"(%s, %aligned, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 64>} : (!sa, !ga, index, index, index, index) -> ()
  %any = "tilus.view_global"(%p, %K) : (!tilus.ptr<f16>, index) -> !ga
  // CHECK: remarks.mlir:[[@LINE+1]]:3: remark: 'tilus.copy_async' copies element by element with ordinary loads and stores (not cp.async): no chunk of 4 bytes is provably aligned in both tensors: the global tensor's row length is not provably a multiple of it, so rows may start misaligned
  "tilus.copy_async"(%s, %any, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 64>} : (!sa, !ga, index, index, index, index) -> ()
  "tilus.copy_async_commit_group"() : () -> ()
  "tilus.copy_async_wait_group"() {n = 0 : i64} : () -> ()
  return
}
