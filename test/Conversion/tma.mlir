// tilus.tma_load and tma_store: tilus-to-gpu gives the kernel one tensor-map parameter per
// distinct map (after its own, marked by-value grid constants), the manifest
// describes each map for the runtime, and thread 0 declares the tile's bytes
// on the barrier and issues one cp.async.bulk.tensor per box: two for a
// 128-column f16 tile in the 128-byte swizzle (64 columns apart), two for
// the 64-byte one, one for a row-major tile (test/gpu/kernels/tma.mlir).
// Before sm_90 it is a located error.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/tma.mlir --lower-to-nvvm --emit-artifact --target=sm_90a | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/tma.mlir --lower-to-nvvm --target=sm_90a | FileCheck %s --check-prefix=MLIR
// RUN: not tilus-opt %s --lower-to-nvvm --target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// MLIR: llvm.func @tma_tiles({{.*}}%arg5: i32, %arg6: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg7: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg8: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// MLIR-SAME: tilus.tensor_maps = ["0 2 2 s4 s5 box 64 64 swizzle 128", "0 2 2 s4 s5 box 32 32 swizzle 64", "0 2 2 s4 s5 box 16 32 swizzle 0"]

// CHECK: kernel tma_tiles
// CHECK: param i32
// CHECK-NEXT: param i32
// CHECK-NEXT: tensormap 0 2 2 s4 s5 box 64 64 swizzle 128
// CHECK-NEXT: tensormap 0 2 2 s4 s5 box 32 32 swizzle 64
// CHECK-NEXT: tensormap 0 2 2 s4 s5 box 16 32 swizzle 0
// CHECK-NEXT: end
// CHECK: kernel tma_store_tiles
// CHECK: tensormap 1 2 2 s3 s4 box 64 64 swizzle 128
// CHECK-NEXT: tensormap 2 2 2 s3 s4 box 16 32 swizzle 0
// CHECK-NEXT: end
// CHECK: .param .u32 tma_tiles_param_5,
// CHECK-NEXT: .param .align 64 .b8 tma_tiles_param_6[128],
// CHECK-NEXT: .param .align 64 .b8 tma_tiles_param_7[128],
// CHECK-NEXT: .param .align 64 .b8 tma_tiles_param_8[128]
// CHECK: cvta.param.u64 [[MAP3:%rd[0-9]+]], %rd{{[0-9]+}};
// CHECK: cvta.param.u64 [[MAP2:%rd[0-9]+]], %rd{{[0-9]+}};
// CHECK: cvta.param.u64 [[MAP1:%rd[0-9]+]], %rd{{[0-9]+}};
// The barrier is initialized, then fenced for the async proxy.
// CHECK: mbarrier.init.shared::cta.b64
// CHECK-NEXT: fence.proxy.async.shared::cta;
// Thread 0 alone: a branch around the copies.
// CHECK: @%p{{[0-9]+}} bra $[[SKIP:L__BB[0-9_]+]];
// CHECK: mov.b32 [[B1:%r[0-9]+]], 16384;
// CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [[[BAR:%rd[0-9]+]]], [[B1]];
// CHECK: mov.b32 [[C0:%r[0-9]+]], 0;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[MAP1]], {[[C0]], [[ROW:%r[0-9]+]]}], [[[BAR]]];
// CHECK: mov.b32 [[C64:%r[0-9]+]], 64;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [[[MAP1]], {[[C64]], [[ROW]]}], [[[BAR]]];
// CHECK: mov.b32 [[B2:%r[0-9]+]], 4096;
// CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [[[BAR]]], [[B2]];
// CHECK: [[[MAP2]], {
// CHECK: [[[MAP2]], {
// CHECK: mov.b32 [[B3:%r[0-9]+]], 1024;
// CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [[[BAR]]], [[B3]];
// CHECK: [[[MAP3]], {
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: $[[SKIP]]:

// tilus.tma_store: the block's writes fenced for the async proxy, a block
// barrier, thread 0's boxes as one bulk group and its wait, a block barrier.
// CHECK: .entry tma_store_tiles(
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 0;
// CHECK: @%p{{[0-9]+}} bra $[[SKIP2:L__BB[0-9_]+]];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group 0;
// CHECK: $[[SKIP2]]:
// CHECK-NEXT: bar.sync 0;
// The second store has async_writes: thread 0 waits for the reads only.
// CHECK: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync 0;
// CHECK: st.shared

// SM80: error: 'tilus.tma_load' op cannot be lowered: tensor-memory copies need sm_90 or newer (cp.async.bulk.tensor); this lowering is for sm_80
!g = !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
!s = !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
!b = !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
func.func @tma_sm80(%p: !tilus.ptr<f16>, %m: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %M = arith.index_cast %m : i32 to index
  %g = "tilus.view_global"(%p, %M) : (!tilus.ptr<f16>, index) -> !g
  %bars = "tilus.allocate_shared"() : () -> !b
  %s = "tilus.allocate_shared"() : () -> !s
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!s, !g, !b, index, index, index, index, index) -> ()
  return
}
