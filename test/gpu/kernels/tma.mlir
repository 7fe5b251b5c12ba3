// targets: sm_90a
// Tensor-memory copies (test/gpu/suite/WgmmaTests.c).
//
// tma_tiles: block b copies three tiles of the f16 tensor a [m, k] (m and k
// kernel arguments, so the runtime builds the tensor maps at launch) into
// shared memory with tilus.tma_load, all completing on one barrier (one arrival, by thread 0's expect_tx of no
// further bytes, so the phase completes when the tiles' bytes have landed):
//   - rows 64b..64b+63, columns 0..127 into stage 1 of a [2, 64, 128] tensor
//     in the 128-byte swizzled wgmma layout (two boxes of 64 columns);
//   - rows 64b+40.., columns 16..79 into a [32, 64] tensor in the 64-byte
//     swizzled layout (two boxes of 32 columns);
//   - rows 64b+3.., columns 104..135 into a row-major [16, 32] tensor (one
//     box; columns from k on arrive as zeros).
// The tiles are read back through their layouts and stored to y1 [192, 128],
// y2 [96, 64] and y3 [48, 32] at block b's rows; rows from m on are zeros.
!a = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
!b = !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
!s1 = !tilus.shared<f16, array<i64: 2, 64, 128>, #tilus.layout<"local(2,1,2).swizzle(local(1,64,8),dim=2,log_step=0).local(1,1,8)">>
!s2 = !tilus.shared<f16, array<i64: 32, 64>, #tilus.layout<"local(1,2).swizzle(local(32,4),dim=1,log_step=1).local(1,8)">>
!s3 = !tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"local(16,32)">>
!r1 = !tilus.register<f16, array<i64: 64, 128>, #tilus.layout<"spatial(32,4).local(2,32)">>
!r2 = !tilus.register<f16, array<i64: 32, 64>, #tilus.layout<"spatial(32,4).local(1,16)">>
!r3 = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(16,8).local(1,4)">>
!y1 = !tilus.global<f16, array<i64: 192, 128>, #tilus.row_major>
!y2 = !tilus.global<f16, array<i64: 96, 64>, #tilus.row_major>
!y3 = !tilus.global<f16, array<i64: 48, 32>, #tilus.row_major>
func.func @tma_tiles(%pa: !tilus.ptr<f16>, %p1: !tilus.ptr<f16>, %p2: !tilus.ptr<f16>, %p3: !tilus.ptr<f16>, %m: i32, %k: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s4 ceildiv 64)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %c104 = arith.constant 104 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %M = arith.index_cast %m : i32 to index
  %K = arith.index_cast %k : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %row = arith.muli %bi, %c64 : index
  %row2 = arith.addi %row, %c40 : index
  %row3 = arith.addi %row, %c3 : index
  %out2 = arith.muli %bi, %c32 : index
  %out3 = arith.muli %bi, %c16 : index
  %ga = "tilus.view_global"(%pa, %M, %K) : (!tilus.ptr<f16>, index, index) -> !a
  %g1 = "tilus.view_global"(%p1) : (!tilus.ptr<f16>) -> !y1
  %g2 = "tilus.view_global"(%p2) : (!tilus.ptr<f16>) -> !y2
  %g3 = "tilus.view_global"(%p3) : (!tilus.ptr<f16>) -> !y3
  %bars = "tilus.allocate_shared"() : () -> !b
  %s1 = "tilus.allocate_shared"() : () -> !s1
  %s2 = "tilus.allocate_shared"() : () -> !s2
  %s3 = "tilus.allocate_shared"() : () -> !s3
  "tilus.mbarrier_init"(%bars, %c0, %i1) : (!b, index, i32) -> ()
  "tilus.tma_load"(%s1, %ga, %bars, %c1, %c0, %c0, %row, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 3, 2, 1>, shape = array<i64: 64, 128>} : (!s1, !a, !b, index, index, index, index, index, index) -> ()
  "tilus.tma_load"(%s2, %ga, %bars, %c0, %c0, %row2, %c16, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 32, 64>} : (!s2, !a, !b, index, index, index, index, index) -> ()
  "tilus.tma_load"(%s3, %ga, %bars, %c0, %c0, %row3, %c104, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 32>} : (!s3, !a, !b, index, index, index, index, index) -> ()
  "tilus.mbarrier_arrive_expect_tx"(%bars, %c0, %i0) : (!b, index, i32) -> ()
  "tilus.mbarrier_wait"(%bars, %c0, %i0) : (!b, index, i32) -> ()
  %t1 = "tilus.load_shared"(%s1, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!s1, index, index, index) -> !r1
  %t2 = "tilus.load_shared"(%s2, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!s2, index, index) -> !r2
  %t3 = "tilus.load_shared"(%s3, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!s3, index, index) -> !r3
  "tilus.store_global"(%t1, %g1, %row, %c0) : (!r1, !y1, index, index) -> ()
  "tilus.store_global"(%t2, %g2, %out2, %c0) : (!r2, !y2, index, index) -> ()
  "tilus.store_global"(%t3, %g3, %out3, %c0) : (!r3, !y3, index, index) -> ()
  return
}

// tma_store_tiles: block b loads rows 64b..64b+63 of a into registers, stores
// them into a [64, 128] shared tile in the 128-byte swizzled layout and
// writes it to y [m, k] with tilus.tma_store (two boxes; rows from m on are
// not written); then rows 64b+3.., columns 104..135 through a row-major
// [16, 32] tile to z [m, k] (columns from k on are not written), with
// async_writes: the store returns once it has read the tile, which is then
// overwritten with zeros (z must get a's values: the copy read them first).
!rt = !tilus.register<f16, array<i64: 64, 128>, #tilus.layout<"spatial(32,4).local(2,32)">>
!st = !tilus.shared<f16, array<i64: 64, 128>, #tilus.layout<"local(1,2).swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
func.func @tma_store_tiles(%pa: !tilus.ptr<f16>, %py: !tilus.ptr<f16>, %pz: !tilus.ptr<f16>, %m: i32, %k: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s3 ceildiv 64)>} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c104 = arith.constant 104 : index
  %M = arith.index_cast %m : i32 to index
  %K = arith.index_cast %k : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %row = arith.muli %bi, %c64 : index
  %row3 = arith.addi %row, %c3 : index
  %ga = "tilus.view_global"(%pa, %M, %K) : (!tilus.ptr<f16>, index, index) -> !a
  %gy = "tilus.view_global"(%py, %M, %K) : (!tilus.ptr<f16>, index, index) -> !a
  %gz = "tilus.view_global"(%pz, %M, %K) : (!tilus.ptr<f16>, index, index) -> !a
  %st = "tilus.allocate_shared"() : () -> !st
  %s3 = "tilus.allocate_shared"() : () -> !s3
  %t = "tilus.load_global"(%ga, %row, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!a, index, index) -> !rt
  "tilus.store_shared"(%t, %st, %c0, %c0) : (!rt, !st, index, index) -> ()
  "tilus.tma_store"(%st, %gy, %c0, %c0, %row, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 64, 128>} : (!st, !a, index, index, index, index) -> ()
  %t3 = "tilus.load_global"(%ga, %row3, %c104) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!a, index, index) -> !r3
  "tilus.store_shared"(%t3, %s3, %c0, %c0) : (!r3, !s3, index, index) -> ()
  "tilus.tma_store"(%s3, %gz, %c0, %c0, %row3, %c104) {async_writes, operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 32>} : (!s3, !a, index, index, index, index) -> ()
  %zero = "tilus.allocate_register"() : () -> !r3
  "tilus.store_shared"(%zero, %s3, %c0, %c0) : (!r3, !s3, index, index) -> ()
  return
}
