// atomic_rmw with order = "acq_rel": the block synchronizes, thread 0 does
// a release fence, the read-modify-write and an acquire fence at gpu scope,
// the block synchronizes again, whether or not the old value is used. (An
// acq_rel llvm.atomicrmw would come out of LLVM 22's NVPTX back end as a
// relaxed atom.) The "last block reduces" pattern of the quantized
// matmul's split-K.
// RUN: tilus-opt %s --tilus-plan-shared --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX

!gi = !tilus.global<i32, array<i64: 8>, #tilus.row_major>

// CHECK-LABEL: gpu.func @ordered
// PTX-LABEL: .entry ordered
func.func @ordered(%q: !tilus.ptr<i32>, %i: i32)
    attributes {tilus.kernel, tilus.block_size = 64 : i64, tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %gi = "tilus.view_global"(%q) : (!tilus.ptr<i32>) -> !gi
  // Used: barrier, thread 0's acq_rel add, the shared word, barrier.
  // CHECK: gpu.barrier
  // CHECK: scf.if
  // CHECK-NEXT: llvm.fence syncscope("device") release
  // CHECK-NEXT: %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %arg1 syncscope("device") monotonic : !llvm.ptr<1>, i32
  // CHECK-NEXT: llvm.fence syncscope("device") acquire
  // CHECK-NEXT: llvm.store %[[OLD]]
  // CHECK: gpu.barrier
  // CHECK-NEXT: llvm.load
  // PTX: bar.sync
  // PTX: fence.acq_rel.gpu;
  // PTX-NEXT: atom.global.add.u32
  // PTX-NEXT: fence.acq_rel.gpu;
  // PTX: bar.sync
  %old = "tilus.atomic_rmw"(%gi, %c2, %i) {kind = "add", order = "acq_rel"} : (!gi, index, i32) -> i32
  // Unused: still a barrier on each side, and no shared word.
  // CHECK: gpu.barrier
  // CHECK: arith.cmpi
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: llvm.fence syncscope("device") release
  // CHECK-NEXT: llvm.atomicrmw xchg %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
  // CHECK-NEXT: llvm.fence syncscope("device") acquire
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.barrier
  // PTX: bar.sync
  // PTX: fence.acq_rel.gpu;
  // PTX-NEXT: atom.global.exch.b32
  // PTX-NEXT: fence.acq_rel.gpu;
  // PTX: bar.sync
  %x = "tilus.atomic_rmw"(%gi, %c5, %old) {kind = "exchange", order = "acq_rel"} : (!gi, index, i32) -> i32
  // "relaxed" spelled out is the default: no barrier for an unused result,
  // no fence.
  // CHECK-NOT: gpu.barrier
  // CHECK-NOT: llvm.fence
  // CHECK: llvm.atomicrmw add %{{.*}} syncscope("device") monotonic
  // CHECK-NOT: llvm.fence
  // PTX: atom.global.add.u32
  // PTX-NOT: fence
  %r = "tilus.atomic_rmw"(%gi, %c5, %i) {kind = "add", order = "relaxed"} : (!gi, index, i32) -> i32
  return
}
