// tilus-plan-shared: every shared tensor gets a 128-byte aligned offset;
// tensors alive at the same time never overlap, and a tensor allocated after
// another's last use takes its bytes. A use inside a loop keeps a tensor
// allocated outside the loop alive to the loop's end.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-plan-shared | FileCheck %s

!a = !tilus.shared<f16, array<i64: 3, 16, 256>, #tilus.layout<"local(3,1,1).swizzle(local(16,32), dim=1).local(1,8)">>
!b = !tilus.shared<ui32, array<i64: 3, 1536>, #tilus.layout<"local(3,1536)">>
!c = !tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"local(16,32)">>
!t = !tilus.shared<ui3, array<i64: 10>, #tilus.layout<"local(10)">>
!r = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(16,2).local(1,16)">>

// CHECK-LABEL: func.func @pipeline
// CHECK-SAME: tilus.shared_bytes = 43008 : i64
// A (24576 bytes) and B (18432) are both alive in the loop; C comes after
// the loop and reuses offset 0; T (10 x 3 bits = 4 bytes) is alive with C.
// CHECK: "tilus.allocate_shared"() {tilus.shared_offset = 0 : i64} : () -> !tilus.shared<f16, array<i64: 3, 16, 256>
// CHECK: "tilus.allocate_shared"() {tilus.shared_offset = 24576 : i64} : () -> !tilus.shared<ui32
// CHECK: scf.for
// CHECK: "tilus.allocate_shared"() {tilus.shared_offset = 0 : i64} : () -> !tilus.shared<f16, array<i64: 16, 32>
// CHECK: "tilus.allocate_shared"() {tilus.shared_offset = 1024 : i64} : () -> !tilus.shared<ui3
func.func @pipeline(%n: index)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sa = "tilus.allocate_shared"() : () -> !a
  %sb = "tilus.allocate_shared"() : () -> !b
  scf.for %i = %c0 to %n step %c1 {
    %x = "tilus.load_shared"(%sa, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!a, index, index, index) -> !r
    %y = "tilus.load_shared"(%sb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!b, index, index) -> !tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>
    "tilus.synchronize"() : () -> ()
  }
  %sc = "tilus.allocate_shared"() : () -> !c
  %st = "tilus.allocate_shared"() : () -> !t
  %z = "tilus.load_shared"(%sc, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!c, index, index) -> !r
  "tilus.print"(%st) : (!t) -> ()
  return
}

// -----

!c = !tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"local(16,32)">>
!r = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(16,2).local(1,16)">>

// Two buffers alive together may not share bytes even when one is
// allocated inside the loop that uses the other.
// CHECK-LABEL: func.func @inside
// CHECK-SAME: tilus.shared_bytes = 2048 : i64
// CHECK: tilus.shared_offset = 0 : i64
// CHECK: scf.for
// CHECK: tilus.shared_offset = 1024 : i64
func.func @inside(%n: index)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sa = "tilus.allocate_shared"() : () -> !c
  scf.for %i = %c0 to %n step %c1 {
    %sb = "tilus.allocate_shared"() : () -> !c
    %x = "tilus.load_shared"(%sb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!c, index, index) -> !r
    %y = "tilus.load_shared"(%sa, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!c, index, index) -> !r
  }
  return
}

// -----

// Two live tensors of 128 KiB: each fits a thread block, both do not.
!h = !tilus.shared<f32, array<i64: 32768>, #tilus.layout<"local(32768)">>
!x = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
// expected-error@+1 {{the kernel needs 262144 bytes of shared memory; a thread block has at most 232448 (227 KiB, sm_90)}}
func.func @too_big()
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %a = "tilus.allocate_shared"() : () -> !h
  %b = "tilus.allocate_shared"() : () -> !h
  %x = "tilus.load_shared"(%a, %c0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!h, index) -> !x
  %y = "tilus.load_shared"(%b, %c0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!h, index) -> !x
  return
}

// -----

// One tensor larger than any target's shared memory is refused by the
// verifier, with the limit.
// expected-error@+3 {{'tilus.allocate_shared' op the shared tensor [65536] of 32-bit elements (262144 bytes) does not fit the shared memory of any target (at most 232448 bytes per thread block)}}
func.func @too_big_one()
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 65536>, #tilus.layout<"local(65536)">>
  return
}

// -----

!c = !tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"local(16,32)">>
!g = !tilus.global<f16, array<i64: 16, 32>, #tilus.row_major>

// CopyAsync may still be writing into a buffer after its last use: until a
// copy_async_wait_group(0), its bytes are not reused.
// CHECK-LABEL: func.func @pending
// CHECK-SAME: tilus.shared_bytes = 2048 : i64
// CHECK: tilus.shared_offset = 0 : i64
// CHECK: tilus.shared_offset = 1024 : i64
func.func @pending(%p: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !g
  %sa = "tilus.allocate_shared"() : () -> !c
  "tilus.copy_async"(%sa, %g, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 32>} : (!c, !g, index, index, index, index) -> ()
  "tilus.copy_async_wait_group"() {n = 1 : i64} : () -> ()
  %sb = "tilus.allocate_shared"() : () -> !c
  "tilus.print"(%sb) : (!c) -> ()
  return
}

// CHECK-LABEL: func.func @drained
// CHECK-SAME: tilus.shared_bytes = 1024 : i64
// CHECK: tilus.shared_offset = 0 : i64
// CHECK: tilus.shared_offset = 0 : i64
func.func @drained(%p: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !g
  %sa = "tilus.allocate_shared"() : () -> !c
  "tilus.copy_async"(%sa, %g, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 32>} : (!c, !g, index, index, index, index) -> ()
  "tilus.copy_async_wait_group"() {n = 0 : i64} : () -> ()
  "tilus.synchronize"() : () -> ()
  %sb = "tilus.allocate_shared"() : () -> !c
  "tilus.print"(%sb) : (!c) -> ()
  return
}

// -----

// A buffer wgmma reads is 1024-byte aligned and stays allocated until a
// wgmma_wait_group with n = 0 that surely runs after the product: not the
// one in the scf.if, which may not run, but the one after it. So the
// tensor allocated between them does not take the operands' bytes.
!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!x = !tilus.shared<f32, array<i64: 64, 64>, #tilus.layout<"local(64,64)">>
// CHECK-LABEL: func.func @wgmma_operands
func.func @wgmma_operands(%flag: i1) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // CHECK: tilus.shared_offset = 16384
  %a = "tilus.allocate_shared"() : () -> !sa
  // CHECK: tilus.shared_offset = 24576
  %b = "tilus.allocate_shared"() : () -> !sb
  %n = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  scf.if %flag {
    "tilus.wgmma_wait_group"() {n = 0 : i64} : () -> ()
  }
  // CHECK: tilus.shared_offset = 0
  %xs = "tilus.allocate_shared"() : () -> !x
  "tilus.store_shared"(%d0, %xs, %c0, %c0) : (!acc, !x, index, index) -> ()
  %w = "tilus.wgmma_wait_group"(%n) {n = 0 : i64} : (!acc) -> !acc
  return
}
