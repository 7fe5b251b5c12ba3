// tilus.wgmma_mma lowers to wgmma.mma_async, one per (64-row tile, column
// run, k step) of each warpgroup, reading shared operands through matrix
// descriptors and a register a as four 32-bit registers; barriers of a
// kernel with wgmma first fence the async proxy; the dynamic shared buffer
// is aligned to 1024 bytes (the kernels are test/gpu/kernels/wgmma.mlir).
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/wgmma.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s
// RUN: not tilus-opt %tilus_src_root/test/gpu/kernels/wgmma.mlir --lower-to-nvvm --emit-ptx --target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// SM80: wgmma.mlir:{{[0-9]+}}:3: error: 'tilus.wgmma_fence' op cannot be lowered: wgmma needs the sm_90a target; this lowering is for sm_80

// CHECK: .extern .shared .align 1024 .b8 __tilus_dynamic_shared[];
// CHECK-LABEL: .entry ss_f16(
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0;
// A product into allocate_register's zero: the first k step takes scale-d
// = 0 (no register zeroed for it), the others accumulate.
// CHECK: wgmma.fence.sync.aligned;
// CHECK-NOT: mov.b32 %r{{[0-9]+}}, 0;
// CHECK: mov.pred %p[[ZERO:[0-9]+]], 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r{{[0-9]+(, %r[0-9]+){31,31}[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p[[ZERO]], 1, 1, 0, 0;
// CHECK: mov.pred %p[[ONE:[0-9]+]], -1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r{{[0-9]+(, %r[0-9]+){31,31}[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p[[ONE]], 1, 1, 0, 0;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: st.global

// CHECK-LABEL: .entry rs_f16(
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 0;

// CHECK-LABEL: .entry ss_bf16_2wg(
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%r{{[0-9]+(, %r[0-9]+){63,63}[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 0, 0;
// CHECK-NOT: wgmma.mma_async

// CHECK-LABEL: .entry ss_s8(
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}};
// CHECK-NOT: wgmma.mma_async

// FP8 (the dialect's float<4,3> and <5,2>): K of 32, f32 accumulators,
// scale-a and scale-b but no transposes (K-major only).
// CHECK-LABEL: .entry ss_e4m3(
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%r{{[0-9]+(, %r[0-9]+){31,31}[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK-LABEL: .entry ss_e5m2(
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 {%r{{[0-9]+(, %r[0-9]+){31,31}[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1;
// CHECK-NOT: wgmma.mma_async

// CHECK-LABEL: .entry loop_f16_2wg(
// The accumulator carried through the loop: every step accumulates.
// CHECK-NOT: mov.pred %p{{[0-9]+}}, 0;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
