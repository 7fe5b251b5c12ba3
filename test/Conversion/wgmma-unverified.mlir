// With tilus-verify off (the pass by name, the mlir-opt plugin), a wgmma_mma
// the verifier would refuse is a located lowering error, never a crash.
// RUN: tilus-opt %s --split-input-file --no-tilus-verify --verify-diagnostics --pass-pipeline='builtin.module(tilus-plan-shared,tilus-to-gpu)'

!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"local(64,64)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!gc1 = !tilus.global<f32, array<i64: 64, 64>, #tilus.row_major>
func.func @row_major_b(%pc: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc1
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op cannot be lowered: b's layout is not one wgmma reads (run tilus-verify for the layout it needs)}}
  %d = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!acc, !gc1, index, index) -> ()
  return
}

// -----

// An mbarrier op with no offsets, with tilus-verify off.
func.func @mbarrier_offsets() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>
  // expected-error@+1 {{'tilus.mbarrier_arrive' op cannot be lowered: the barrier must be one element of a shared tensor of 64-bit integers, at one offset per dimension (run tilus-verify)}}
  "tilus.mbarrier_arrive"(%bars) : (!tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>) -> ()
  return
}
