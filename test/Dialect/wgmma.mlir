// The warpgroup MMA ops, parsed, verified, printed and parsed again: a from
// shared memory (a stage of a two-stage buffer) and from registers, an
// accumulator carried through a loop, the wait that makes it readable, and
// a register a kept live through its wait.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

!sa = !tilus.shared<f16, array<i64: 2, 64, 64>, #tilus.layout<"local(2,1,1).swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!ra = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,4).column_local(2,2).spatial(8,4).local(1,2)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

// CHECK-LABEL: func.func @wgmma
func.func @wgmma() attributes {tilus.kernel, tilus.block_size = 128 : i64,
                                     tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  %h = arith.constant 1.0 : f16
  %ra = "tilus.allocate_register"(%h) : (f16) -> !ra
  // CHECK: "tilus.wgmma_fence"() : () -> ()
  "tilus.wgmma_fence"() : () -> ()
  // CHECK: scf.for
  %d = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %d0) -> (!acc) {
    // CHECK: "tilus.wgmma_mma"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}
    %n = "tilus.wgmma_mma"(%a, %b, %acc, %c1) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (!sa, !sb, !acc, index) -> !acc
    // CHECK: "tilus.wgmma_mma"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}
    %m = "tilus.wgmma_mma"(%ra, %b, %n) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra, !sb, !acc) -> !acc
    // CHECK: "tilus.wgmma_commit_group"() : () -> ()
    "tilus.wgmma_commit_group"() : () -> ()
    scf.yield %m : !acc
  }
  // CHECK: "tilus.wgmma_wait_group"(%{{.*}}) {n = 0 : i64}
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  %s = "tilus.add"(%r, %r) : (!acc, !acc) -> !acc
  // The next operand computed while the product runs: a passed to the
  // wait keeps its registers from being taken.
  // CHECK: "tilus.wgmma_mma"
  %p = "tilus.wgmma_mma"(%ra, %b, %r) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  %next = "tilus.add"(%ra, %ra) : (!ra, !ra) -> !ra
  // CHECK: "tilus.wgmma_wait_group"(%{{.*}}) {n = 0 : i64} : (!tilus.register<f16
  %kept = "tilus.wgmma_wait_group"(%ra) {n = 0 : i64} : (!ra) -> !ra
  %q = "tilus.wgmma_wait_group"(%p) {n = 0 : i64} : (!acc) -> !acc
  // Two products in flight: the first is readable once one group (the
  // second's) is left pending.
  %u = "tilus.wgmma_mma"(%ra, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  %w = "tilus.wgmma_mma"(%ra, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  // CHECK: "tilus.wgmma_wait_group"(%{{.*}}) {n = 1 : i64}
  %u1 = "tilus.wgmma_wait_group"(%u) {n = 1 : i64} : (!acc) -> !acc
  %w1 = "tilus.wgmma_wait_group"(%w) {n = 0 : i64} : (!acc) -> !acc
  %ra1 = "tilus.wgmma_wait_group"(%ra) {n = 0 : i64} : (!ra) -> !ra
  return
}
