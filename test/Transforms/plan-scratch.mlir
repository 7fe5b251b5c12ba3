// tilus-plan-shared gives each op that needs shared scratch (a Reduce across
// warps, a layout change through shared memory) bytes of its own, alive
// during that op only: clear of the shared tensors alive then, and counted
// against the block's limit like them.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-plan-shared | FileCheck %s

!s = !tilus.shared<f32, array<i64: 32, 8>, #tilus.layout<"local(32,8)">>
!mma = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!rows = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!col = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).column_local(2,2)">>
// CHECK-LABEL: func.func @scratch
// CHECK-SAME: tilus.shared_bytes = 2048
// CHECK: "tilus.allocate_shared"() {tilus.shared_offset = 0 : i64}
// The first conversion runs while the shared tensor is alive: after it.
// CHECK: "tilus.convert_layout"(%{{.*}}) {tilus.scratch_offset = 1024 : i64}
// A conversion in registers needs none.
// CHECK: "tilus.convert_layout"(%{{.*}}) : (
// After the tensor's last use, its bytes are free again.
// CHECK: "tilus.convert_layout"(%{{.*}}) {tilus.scratch_offset = 0 : i64}
func.func @scratch(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %s = "tilus.allocate_shared"() : () -> !s
  %a = "tilus.allocate_register"(%v) : (f32) -> !mma
  %b = "tilus.convert_layout"(%a) : (!mma) -> !rows
  %c = "tilus.convert_layout"(%a) : (!mma) -> !col
  "tilus.store_shared"(%b, %s, %c0, %c0) : (!rows, !s, index, index) -> ()
  %d = "tilus.convert_layout"(%a) : (!mma) -> !rows
  "tilus.print"(%c) : (!col) -> ()
  "tilus.print"(%d) : (!rows) -> ()
  return
}

// -----

!big = !tilus.register<f32, array<i64: 512, 128>, #tilus.layout<"spatial(512,1).local(1,128)">>
!bigt = !tilus.register<f32, array<i64: 512, 128>, #tilus.layout<"local(128,1).spatial(4,128)">>
// expected-error@+1 {{the kernel needs 262144 bytes of shared memory; a thread block has at most 232448 (227 KiB, sm_90)}}
func.func @too_big(%v: f32) attributes {tilus.kernel, tilus.block_size = 512 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%v) : (f32) -> !big
  %b = "tilus.convert_layout"(%a) : (!big) -> !bigt
  "tilus.print"(%b) : (!bigt) -> ()
  return
}

// -----

!s = !tilus.shared<f32, array<i64: 32, 8>, #tilus.layout<"local(32,8)">>
!h = !tilus.register<f32, array<i64: 8, 256>, #tilus.layout<"local(8,1).spatial(1,128).local(1,2)">>
!h_r = !tilus.register<f32, array<i64: 8>, #tilus.layout<"local(8).reduce(spatial(1,128),dims=[1])">>
// A Reduce across warps inside a loop that uses a shared tensor allocated
// before it: the tensor stays alive through the loop, so the Reduce's 128
// bytes (4 warps x 8 f32) go after it.
// CHECK-LABEL: func.func @in_loop
// CHECK-SAME: tilus.shared_bytes = 1152
// CHECK: "tilus.allocate_shared"() {tilus.shared_offset = 0 : i64}
// CHECK: scf.for
// CHECK: "tilus.reduce"(%{{.*}}) {dims = array<i64: 1>, kind = "sum", tilus.scratch_offset = 1024 : i64}
func.func @in_loop(%v: f32, %n: index) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = "tilus.allocate_shared"() : () -> !s
  %x = "tilus.allocate_register"(%v) : (f32) -> !h
  scf.for %i = %c0 to %n step %c1 {
    %r = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!h) -> !h_r
    "tilus.print"(%r) : (!h_r) -> ()
    "tilus.print"(%s) : (!s) -> ()
  }
  return
}
