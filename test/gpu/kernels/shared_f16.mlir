// Shared memory round trips (test/gpu/suite/):
//   roundtrip: a 64x64 f16 tile, global -> registers (one layout) -> stage 1
//     of a two-stage swizzled shared buffer -> registers (another layout)
//     -> global. The output must equal the input.
//   async: CopyAsync of a 64x64 tile of an [M, N] tensor at the block's
//     offsets (edge tiles zero-filled) into the same kind of buffer, then
//     LoadShared and StoreGlobal into an [Mp, Np] output padded to whole
//     tiles: the tile's elements past the edge must read 0. N is passed as
//     N / 8 so that 16-byte chunks are provably aligned.
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
!s = !tilus.shared<f16, array<i64: 2, 64, 64>, #tilus.layout<"local(2,1,1).swizzle(local(64,8), dim=1).local(1,8)">>
!ra = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(16,8).local(4,8)">>
!rb = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"local(2,1).spatial(8,16).local(4,4)">>
func.func @roundtrip(%src: !tilus.ptr<f16>, %dst: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %gs = "tilus.view_global"(%src, %c64, %c64) : (!tilus.ptr<f16>, index, index) -> !g
  %gd = "tilus.view_global"(%dst, %c64, %c64) : (!tilus.ptr<f16>, index, index) -> !g
  %a = "tilus.load_global"(%gs, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !ra
  %s = "tilus.allocate_shared"() : () -> !s
  "tilus.store_shared"(%a, %s, %c1, %c0, %c0) : (!ra, !s, index, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %b = "tilus.load_shared"(%s, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!s, index, index, index) -> !rb
  "tilus.store_global"(%b, %gd, %c0, %c0) : (!rb, !g, index, index) -> ()
  return
}
func.func @async(%src: !tilus.ptr<f16>, %dst: !tilus.ptr<f16>, %m: i32, %n8: i32, %mp: i32, %np: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s2 ceildiv 64, s3 ceildiv 8)>} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %M = arith.index_cast %m : i32 to index
  %N8 = arith.index_cast %n8 : i32 to index
  %N = arith.muli %N8, %c8 : index
  %Mp = arith.index_cast %mp : i32 to index
  %Np = arith.index_cast %np : i32 to index
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)
  %om = arith.muli %bi, %c64 : index
  %on = arith.muli %bj, %c64 : index
  %gs = "tilus.view_global"(%src, %M, %N) : (!tilus.ptr<f16>, index, index) -> !g
  %gd = "tilus.view_global"(%dst, %Mp, %Np) : (!tilus.ptr<f16>, index, index) -> !g
  %s = "tilus.allocate_shared"() : () -> !s
  "tilus.copy_async"(%s, %gs, %c0, %c0, %c0, %om, %on) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 64, 64>} : (!s, !g, index, index, index, index, index) -> ()
  "tilus.copy_async_commit_group"() : () -> ()
  "tilus.copy_async_wait_group"() {n = 0 : i64} : () -> ()
  "tilus.synchronize"() : () -> ()
  %b = "tilus.load_shared"(%s, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!s, index, index, index) -> !rb
  "tilus.store_global"(%b, %gd, %om, %on) : (!rb, !g, index, index) -> ()
  return
}
// async_unaligned: the same with N passed as is, so no 16-byte chunk is
// provably aligned: CopyAsync copies element by element.
func.func @async_unaligned(%src: !tilus.ptr<f16>, %dst: !tilus.ptr<f16>, %m: i32, %n: i32, %mp: i32, %np: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s2 ceildiv 64, s3 ceildiv 64)>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %Mp = arith.index_cast %mp : i32 to index
  %Np = arith.index_cast %np : i32 to index
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)
  %om = arith.muli %bi, %c64 : index
  %on = arith.muli %bj, %c64 : index
  %gs = "tilus.view_global"(%src, %M, %N) : (!tilus.ptr<f16>, index, index) -> !g
  %gd = "tilus.view_global"(%dst, %Mp, %Np) : (!tilus.ptr<f16>, index, index) -> !g
  %s = "tilus.allocate_shared"() : () -> !s
  "tilus.copy_async"(%s, %gs, %c0, %c0, %c0, %om, %on) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 64, 64>} : (!s, !g, index, index, index, index, index) -> ()
  "tilus.copy_async_commit_group"() : () -> ()
  "tilus.copy_async_wait_group"() {n = 0 : i64} : () -> ()
  "tilus.synchronize"() : () -> ()
  %b = "tilus.load_shared"(%s, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!s, index, index, index) -> !rb
  "tilus.store_global"(%b, %gd, %om, %on) : (!rb, !g, index, index) -> ()
  return
}
