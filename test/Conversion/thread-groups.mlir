// Thread groups: the condition is the thread's range; inside, the thread
// index is the group's (tid - first) and barriers are the group's named
// barrier (bar.sync 1 + first / 128, count), so two groups synchronize
// apart (test/gpu/kernels/thread_groups.mlir).
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/thread_groups.mlir --lower-to-nvvm --emit-ptx --target=sm_80 | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/thread_groups.mlir --lower-to-nvvm --target=sm_80 | FileCheck %s --check-prefix=MLIR

// MLIR: llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// MLIR: llvm.cond_br
// The group's barrier is the convergent intrinsic, not inline asm (LLVM may
// duplicate inline asm into both sides of a branch on the thread index).
// MLIR: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// MLIR-NOT: bar.sync

// CHECK-LABEL: .entry thread_groups(
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.x;
// Group 0's Reduce crosses its four warps through shared scratch.
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 1, 128;
// CHECK-NOT: bar.sync 0
// Group 1's Synchronize.
// CHECK: bar.sync 2, 128;
// CHECK-NOT: bar.sync 0
