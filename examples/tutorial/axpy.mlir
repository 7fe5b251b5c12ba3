// The tutorial's kernel (docs/tutorial.md): y = a * x + y over f32 vectors of
// n elements, n known at run time. Each block of 128 threads handles 512
// elements; each thread holds 4 neighbouring elements, so its loads and
// stores are 16-byte accesses. The last block is masked at n.
!vec = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!tile = !tilus.register<f32, array<i64: 512>, #tilus.layout<"spatial(128).local(4)">>

func.func @axpy(%x: !tilus.ptr<f32>, %y: !tilus.ptr<f32>, %a: f32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3] -> (s3 ceildiv 512)>} {
  %len = arith.index_cast %n : i32 to index
  %block = "tilus.block_indices"() : () -> index
  %c512 = arith.constant 512 : index
  %start = arith.muli %block, %c512 : index
  %gx = "tilus.view_global"(%x, %len) : (!tilus.ptr<f32>, index) -> !vec
  %gy = "tilus.view_global"(%y, %len) : (!tilus.ptr<f32>, index) -> !vec
  %rx = "tilus.load_global"(%gx, %start) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!vec, index) -> !tile
  %ry = "tilus.load_global"(%gy, %start) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!vec, index) -> !tile
  %ax = "tilus.mul"(%rx, %a) : (!tile, f32) -> !tile
  %sum = "tilus.add"(%ax, %ry) : (!tile, !tile) -> !tile
  "tilus.store_global"(%sum, %gy, %start) : (!tile, !vec, index) -> ()
  return
}
