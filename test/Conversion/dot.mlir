// Dot's instruction selection. Figure 2's layouts are made of mma.sync
// fragments (a: column_local(2,2).spatial(8,4).local(1,2), b:
// local(2,1).column_spatial(4,8).local(2,1), c: local(2,1).spatial(8,4).
// local(1,2)), so its Dot is one mma.sync m16n8k16 per k step, with the
// int6 weights viewed and cast in registers on the magic-number fast path.
// Other layouts take the SIMT fallback: operands meet in a shared-memory
// scratch between two barriers, and each thread accumulates its elements
// over K. bf16 takes m16n8k16 too, s8 m16n8k32.
// RUN: tilus-opt %tilus_src_root/examples/matmul_f16_i6.mlir --tilus-to-gpu | FileCheck %s --check-prefix=FIG2
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/dot_kernels.mlir --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/dot_kernels.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX

// FIG2-NOT: __tilus_dot_scratch
// FIG2-LABEL: gpu.func @matmul
// FIG2: scf.for
// FIG2-NOT: vector<4xi6>
// FIG2: arith.xori %{{.*}}, %c2097184_i32 : i32
// FIG2: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
// FIG2-NEXT: arith.subf %[[W]], %{{.*}} : vector<4xf16>
// FIG2: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// FIG2-NOT: nvvm.mma.sync
// FIG2: scf.yield
// FIG2-NOT: gpu.barrier

// CHECK: llvm.mlir.global internal @__tilus_dot_scratch_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// CHECK-LABEL: gpu.func @simt_f32
// CHECK: llvm.mlir.addressof @__tilus_dot_scratch_0 : !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: nvvm.mma.sync
// Two warps, two n tiles and two k steps each: four mma.sync per warp.
// CHECK-LABEL: gpu.func @mma_bf16
// CHECK-COUNT-4: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK-LABEL: gpu.func @mma_s8
// CHECK-COUNT-4: nvvm.mma.sync {{.*}}{intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.mma.sync

// PTX-LABEL: .entry simt_f32(
// PTX-NOT: mma.sync
// PTX-LABEL: .entry mma_bf16(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-LABEL: .entry mma_s8(
// PTX: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
