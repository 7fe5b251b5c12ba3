// The atomics' lowering. Scalar atomics run once per block in thread 0
// (relaxed, gpu scope: syncscope "device" monotonic) and give their old
// value to every thread through a static shared word between two barriers;
// an unused old value needs neither. atomic_add_global adds each element
// (masked at the edges), f16/bf16 pairs packed where the target has the
// instruction. The semaphore pair: thread 0 spins on an acquire load, then
// a barrier; a barrier, then thread 0's release store.
// RUN: tilus-opt %s --tilus-plan-shared --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/atomics.mlir --tilus-plan-shared --tilus-to-gpu --target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/atomics.mlir --tilus-plan-shared --tilus-to-gpu --target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/atomics.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX90
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/atomics.mlir --lower-to-nvvm --emit-ptx --target=sm_80 | FileCheck %s --check-prefix=PTX80

!g = !tilus.global<f32, array<i64: 64>, #tilus.row_major>
!gi = !tilus.global<i32, array<i64: 8, 8>, #tilus.row_major>
!s = !tilus.shared<ui32, array<i64: 8>, #tilus.layout<"local(8)">>

// CHECK-LABEL: gpu.func @scalars
func.func @scalars(%p: !tilus.ptr<f32>, %q: !tilus.ptr<i32>, %x: f32, %i: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1, s2, s3] -> (1)>} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !g
  %gi = "tilus.view_global"(%q) : (!tilus.ptr<i32>) -> !gi
  %s = "tilus.allocate_shared"() : () -> !s
  // The old value is used: barrier, thread 0 adds and stores it, barrier,
  // every thread loads it.
  // CHECK: gpu.barrier
  // CHECK: %[[T:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
  // CHECK: scf.if %[[T]] {
  // CHECK-NEXT: %[[OLD:.*]] = llvm.atomicrmw fadd %{{.*}}, %arg2 syncscope("device") monotonic : !llvm.ptr<1>, f32
  // CHECK-NEXT: llvm.store %[[OLD]], %[[SCRATCH:.*]] : f32, !llvm.ptr<3>
  // CHECK: gpu.barrier
  // CHECK-NEXT: %[[V:.*]] = llvm.load %[[SCRATCH]] : !llvm.ptr<3> -> f32
  %old = "tilus.atomic_rmw"(%g, %c3, %x) {kind = "add"} : (!g, index, f32) -> f32
  // Unused: no barrier, no scratch. Signed max at row-major [1, 3] (11).
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %arg1[11] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  // CHECK-NOT: gpu.barrier
  // CHECK: scf.if
  // CHECK-NEXT: llvm.atomicrmw max %[[P]], %arg3 syncscope("device") monotonic : !llvm.ptr<1>, i32
  // CHECK-NEXT: }
  // CHECK-NOT: gpu.barrier
  %m = "tilus.atomic_rmw"(%gi, %c1, %c3, %i) {kind = "max"} : (!gi, index, index, i32) -> i32
  // Unsigned min on shared memory, exchange, compare-and-swap.
  // CHECK: llvm.atomicrmw umin %{{.*}}, %arg3 syncscope("device") monotonic : !llvm.ptr<3>, i32
  %u = "tilus.atomic_rmw"(%s, %c3, %i) {kind = "min"} : (!s, index, i32) -> i32
  // CHECK: llvm.atomicrmw xchg %{{.*}}, %arg3 syncscope("device") monotonic : !llvm.ptr<1>, i32
  %e = "tilus.atomic_rmw"(%gi, %c1, %c1, %i) {kind = "exchange"} : (!gi, index, index, i32) -> i32
  // CHECK: %[[C:.*]] = llvm.cmpxchg %{{.*}}, %arg3, %{{.*}} syncscope("device") monotonic monotonic : !llvm.ptr<1>, i32
  // CHECK-NEXT: %[[OLDC:.*]] = llvm.extractvalue %[[C]][0] : !llvm.struct<(i32, i1)>
  // CHECK-NEXT: llvm.store %[[OLDC]]
  %c = "tilus.atomic_cas"(%gi, %c1, %c1, %i, %e) : (!gi, index, index, i32, i32) -> i32
  %c2 = "tilus.atomic_rmw"(%gi, %c3, %c3, %c) {kind = "add"} : (!gi, index, index, i32) -> i32
  // CHECK: llvm.atomicrmw fmax %{{.*}}, %[[V]]
  %f = "tilus.atomic_rmw"(%g, %c1, %old) {kind = "max"} : (!g, index, f32) -> f32
  // CHECK: gpu.return
  return
}

// Packed pairs where the target has them: f16x2 on both, bf16x2 on sm_90
// only; elsewhere one atomicrmw per element (LLVM expands bf16 into a
// compare-and-swap loop before sm_90).
// SM90-LABEL: gpu.func @atomic_add_f32
// SM90-COUNT-4: llvm.atomicrmw fadd %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// SM90-LABEL: gpu.func @atomic_add_i32
// SM90-COUNT-4: llvm.atomicrmw add %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// SM90-LABEL: gpu.func @atomic_add_f16
// SM90-COUNT-2: llvm.inline_asm has_side_effects "red.relaxed.gpu.global.add.noftz.f16x2 [$0], $1;", "l,r,~{memory}"
// SM90-NOT: llvm.atomicrmw
// SM90-LABEL: gpu.func @atomic_add_f16_odd
// SM90-COUNT-4: llvm.atomicrmw fadd %{{.*}} : !llvm.ptr<1>, f16
// SM90-LABEL: gpu.func @atomic_add_bf16
// SM90-COUNT-2: llvm.inline_asm has_side_effects "red.relaxed.gpu.global.add.noftz.bf16x2 [$0], $1;"
// SM90-NOT: llvm.atomicrmw
// SM90-LABEL: gpu.func @atomic_scalars
// The semaphore pair.
// SM90-LABEL: gpu.func @splitk_semaphore
// SM90: %[[LEAD:.*]] = arith.cmpi eq, %thread_id_x{{.*}}, %c0 : index
// SM90-NEXT: scf.if %[[LEAD]] {
// SM90-NEXT: scf.while : () -> () {
// SM90-NEXT: %[[N:.*]] = llvm.load %[[SEM:.*]] atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// SM90-NEXT: %[[W:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : i32
// SM90-NEXT: scf.condition(%[[W]])
// SM90: gpu.barrier
// SM90: gpu.barrier
// SM90: scf.if
// SM90-NEXT: llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr<1>
// SM90: gpu.return

// SM80-LABEL: gpu.func @atomic_add_f16(
// SM80-COUNT-2: red.relaxed.gpu.global.add.noftz.f16x2
// SM80-LABEL: gpu.func @atomic_add_bf16(
// SM80-NOT: inline_asm
// SM80-COUNT-4: llvm.atomicrmw fadd %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, bf16
// SM80-NOT: inline_asm
// SM80: gpu.return

// PTX90-LABEL: .entry atomic_add_bf16(
// PTX90: red.relaxed.gpu.global.add.noftz.bf16x2
// PTX90-LABEL: .entry splitk_semaphore(
// PTX90: ld.acquire.gpu.global.b32
// PTX90: bar.sync
// PTX90: st.release.gpu.global.b32
// PTX80-LABEL: .entry atomic_add_f16(
// PTX80: red.relaxed.gpu.global.add.noftz.f16x2
// PTX80-LABEL: .entry atomic_add_bf16(
// PTX80-NOT: bf16x2
// PTX80: atom.relaxed.gpu.global.cas.b32
// PTX80-LABEL: .entry atomic_scalars(
