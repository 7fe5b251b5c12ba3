// Dot with an f16 accumulator takes mma.sync m16n8k16 f16.f16.f16.f16: c
// and d are two registers of f16 pairs (rows l/4 and l/4 + 8, columns
// 2(l%4), +1), the same elements as the f32 accumulator's four.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/dot_f16acc.mlir --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/dot_f16acc.mlir --lower-to-nvvm --emit-ptx --target=sm_80 | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @mma_f16_acc
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[%{{[0-9]+}}, %{{[0-9]+}}]  {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// Two warps, two n tiles and two k steps per warp: four per thread.
// PTX-LABEL: .entry mma_f16_acc(
// PTX-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// PTX-NOT: mma.sync
// PTX: ret;
