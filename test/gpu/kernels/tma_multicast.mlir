// targets: sm_90a
// TMA multicast and remote mbarrier arrivals in a cluster
// (test/gpu/suite/WgmmaTests.c). Blocks in clusters of two; cluster c
// copies rows 32c .. 32c + 31 of x [m, 64] (f16) into a [32, 64] tile in
// the 128-byte swizzled wgmma layout in both of its blocks: rank r issues
// rows 16r .. 16r + 15 with tilus.tma_load {multicast} into rows 16r.. of
// the tile in both blocks, so each block's barrier receives both halves
// (the expected bytes are twice the issued ones). Each block then stores
// the whole tile to y [32 x blocks, 64] at rows 32b. Before leaving, every
// thread arrives on the `done` barrier of both blocks (remote arrivals) and
// waits for its own, whose count needs both blocks' threads.
!x = !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
!y = !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
!b = !tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>
!s = !tilus.shared<f16, array<i64: 32, 64>, #tilus.layout<"swizzle(local(32,8),dim=1,log_step=0).local(1,8)">>
!r = !tilus.register<f16, array<i64: 32, 64>, #tilus.layout<"spatial(32,4).local(1,16)">>
func.func @tma_multicast(%px: !tilus.ptr<f16>, %py: !tilus.ptr<f16>, %m: i32, %blocks: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.cluster = array<i64: 2>,
                tilus.grid = affine_map<()[s0, s1, s2, s3] -> (s3)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i256 = arith.constant 256 : i32
  %M = arith.index_cast %m : i32 to index
  %B = arith.index_cast %blocks : i32 to index
  %rows = arith.muli %B, %c32 : index
  %gx = "tilus.view_global"(%px, %M) : (!tilus.ptr<f16>, index) -> !x
  %gy = "tilus.view_global"(%py, %rows) : (!tilus.ptr<f16>, index) -> !y
  %bars = "tilus.allocate_shared"() : () -> !b
  %tile = "tilus.allocate_shared"() : () -> !s
  "tilus.mbarrier_init"(%bars, %c0, %i1) : (!b, index, i32) -> ()
  "tilus.mbarrier_init"(%bars, %c1, %i256) : (!b, index, i32) -> ()
  // Both blocks' barriers are set before either block copies or arrives.
  "tilus.cluster_synchronize"() : () -> ()
  %bi = "tilus.block_indices"() : () -> index
  %rank = "tilus.cluster_block_rank"() : () -> index
  %cid = arith.divui %bi, %c2 : index
  %first = arith.muli %cid, %c32 : index
  %is0 = arith.cmpi eq, %rank, %c0 : index
  scf.if %is0 {
    "tilus.tma_load"(%tile, %gx, %bars, %c0, %c0, %first, %c0, %c0) {multicast, operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!s, !x, !b, index, index, index, index, index) -> ()
  } else {
    %second = arith.addi %first, %c16 : index
    "tilus.tma_load"(%tile, %gx, %bars, %c16, %c0, %second, %c0, %c0) {multicast, operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!s, !x, !b, index, index, index, index, index) -> ()
  }
  "tilus.mbarrier_arrive_expect_tx"(%bars, %c0, %i0) : (!b, index, i32) -> ()
  "tilus.mbarrier_wait"(%bars, %c0, %i0) : (!b, index, i32) -> ()
  %t = "tilus.load_shared"(%tile, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!s, index, index) -> !r
  %out = arith.muli %bi, %c32 : index
  "tilus.store_global"(%t, %gy, %out, %c0) : (!r, !y, index, index) -> ()
  "tilus.mbarrier_arrive_remote"(%bars, %c1, %c0) : (!b, index, index) -> ()
  "tilus.mbarrier_arrive_remote"(%bars, %c1, %c1) : (!b, index, index) -> ()
  "tilus.mbarrier_wait"(%bars, %c1, %i0) : (!b, index, i32) -> ()
  "tilus.cluster_synchronize"() : () -> ()
  return
}
