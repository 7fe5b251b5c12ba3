// Thread-block clusters (test/gpu/kernels/cluster.mlir): the cluster shape
// compiled into the kernel (.reqnctapercluster, so a plain launch runs
// clusters) and written to the manifest; the rank from %cluster_ctarank;
// the cluster barrier as its aligned arrive and wait. Before sm_90, an error.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/cluster.mlir --lower-to-nvvm --emit-artifact --target=sm_90a | FileCheck %s
// RUN: not tilus-opt %tilus_src_root/test/gpu/kernels/cluster.mlir --lower-to-nvvm --target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: kernel cluster_ranks
// CHECK: cluster 2 1 1
// CHECK: end
// CHECK: .entry cluster_ranks(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: %cluster_ctarank

// SM80: error: thread-block clusters (tilus.cluster) need sm_90 or newer; this lowering is for sm_80
