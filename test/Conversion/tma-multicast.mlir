// TMA multicast and remote arrivals (test/gpu/kernels/tma_multicast.mlir):
// the copy with .multicast::cluster and a mask of both blocks, the barrier
// expecting twice the issued bytes; the barrier init released to the
// cluster; remote arrivals through mapa (the default release at CTA scope).
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/tma_multicast.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s

// CHECK-LABEL: .entry tma_multicast(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: mbarrier.init.shared::cta.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: barrier.cluster.arrive.aligned;
// 16 rows of 128 bytes, from each of the two blocks.
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 4096;
// CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{{%rd[0-9]+}}], [[BYTES]];
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}], [[MASK]];
// CHECK: mapa.shared::cluster.u64 ra, {{%rd[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT: mbarrier.arrive.shared::cluster.b64 _, [ra];
