// The mbarrier ops lower to inline PTX at CTA scope: init by thread 0 between
// two barriers, one arrive per thread, thread 0's arrive with expected bytes, and
// a try_wait.parity loop per thread (test/gpu/kernels/mbarrier.mlir); before
// sm_90 they are a located error.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/mbarrier.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s
// RUN: not tilus-opt %tilus_src_root/test/gpu/kernels/mbarrier.mlir --lower-to-nvvm --emit-ptx --target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// SM80: error: 'tilus.mbarrier_init' op cannot be lowered: mbarriers need sm_90 or newer (try_wait, expect_tx); this lowering is for sm_80

// CHECK-LABEL: .entry mbarrier_rounds(
// CHECK: bar.sync 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: mbarrier.init.shared::cta.b64 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: bar.sync 0;
// CHECK: mbarrier.init.shared::cta.b64
// CHECK: bar.sync 0;
// CHECK: mbarrier.arrive.shared::cta.b64 _, [%rd{{[0-9]+}}];
// CHECK: TILUS_MBAR_WAIT_[[L:[0-9]+]]:
// CHECK-NEXT: mbarrier.try_wait.parity.shared::cta.b64 p, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NEXT: @!p bra TILUS_MBAR_WAIT_[[L]];
// Only thread 0 runs arrive.expect_tx: a branch around it, to the label
// right after it.
// CHECK: @%p{{[0-9]+}} bra $[[SKIP:L__BB[0-9_]+]];
// CHECK-NOT: mbarrier
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: $[[SKIP]]:

// copy_async_handoff: the producer's copies, then its arrival made when they
// land, with no cp.async wait of its own.
// CHECK-LABEL: .entry copy_async_handoff(
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.cg.shared.global
// CHECK-NOT: cp.async.wait
// CHECK: cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%rd{{[0-9]+}}];
// CHECK-NOT: cp.async.wait
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
