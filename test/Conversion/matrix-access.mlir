// LoadShared/StoreShared instruction selection in the pipelined matmul (Figure 14 with
// f16 B): A's register layout is made of row pairs of 8x8 matrices -> one
// ldmatrix.x4 per 16x16 tile; B's of column pairs -> ldmatrix.trans (x2 for
// the 16x8 tile of each warp); the epilogue's coalesced layout is not made
// of matrix fragments -> an 8-byte ld.shared. CopyAsync: 16-byte cp.async.
// The epilogue's StoreShared of the mma.sync C layout is stmatrix when the
// target (--target, default sm_90a) has it, and 4-byte st.shared on sm_80.
// RUN: tilus-opt %tilus_src_root/examples/matmul_pipelined_f16.mlir --target=sm_80 --tilus-plan-shared --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %tilus_src_root/examples/matmul_pipelined_f16.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tilus-opt %tilus_src_root/examples/matmul_pipelined_f16.mlir --target=sm_90a --tilus-plan-shared --tilus-to-gpu | FileCheck %s --check-prefix=SM90
// RUN: tilus-opt %tilus_src_root/examples/matmul_pipelined_f16.mlir --lower-to-nvvm --emit-ptx --target=sm_80 | FileCheck %s --check-prefix=SM80

// SM90: gpu.module @tilus_kernels attributes {tilus.target = "sm_90a"}
// SM90: scf.yield
// SM90: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32
// SM90-NOT: llvm.store %{{.*}} : vector<2xf16>, !llvm.ptr<3>
// SM90: gpu.barrier
// SM80: mma.sync
// SM80-NOT: stmatrix
// SM80: st.shared.b32

// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME: tilus.shared_bytes = 73728 : i64
// CHECK-COUNT-12: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: gpu.barrier
// The first k step of the first tile, then the loop over K tiles.
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: scf.for
// CHECK-COUNT-12: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// 16 unrolled k steps: 15 inside the tile, then the barrier and the next
// tile's first step; one mma.sync per step.
// CHECK-COUNT-15: nvvm.mma.sync
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>

// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: stmatrix.sync.aligned.m8n8.x2.shared.b16
