// targets: sm_90a
// Thread-block clusters (test/gpu/suite/WgmmaTests.c): a grid of n blocks in
// clusters of two. Each block of 32 threads adds its rank in the cluster,
// times 1000, to its 32 elements of x; the cluster barrier comes before the
// store, so every block of a cluster runs to it.
!r = !tilus.register<i32, array<i64: 32>, #tilus.layout<"spatial(32)">>
!g = !tilus.global<i32, array<i64: -1>, #tilus.row_major>
func.func @cluster_ranks(%px: !tilus.ptr<i32>, %py: !tilus.ptr<i32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.cluster = array<i64: 2>,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2)>} {
  %c32 = arith.constant 32 : index
  %k1000 = arith.constant 1000 : i32
  %N = arith.index_cast %n : i32 to index
  %size = arith.muli %N, %c32 : index
  %gx = "tilus.view_global"(%px, %size) : (!tilus.ptr<i32>, index) -> !g
  %gy = "tilus.view_global"(%py, %size) : (!tilus.ptr<i32>, index) -> !g
  %b = "tilus.block_indices"() : () -> index
  %rank = "tilus.cluster_block_rank"() : () -> index
  %rank32 = arith.index_cast %rank : index to i32
  %add = arith.muli %rank32, %k1000 : i32
  %off = arith.muli %b, %c32 : index
  %x = "tilus.load_global"(%gx, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  %y = "tilus.add"(%x, %add) : (!r, i32) -> !r
  "tilus.cluster_synchronize"() : () -> ()
  "tilus.store_global"(%y, %gy, %off) : (!r, !g, index) -> ()
  return
}
