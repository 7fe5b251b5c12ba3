// LoadGlobal -> StoreGlobal of a 1-D f32 tensor of run-time length: 1024
// elements per block (4 contiguous per thread and chunk: 16-byte accesses),
// the last block masked.
!g = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!r = !tilus.register<f32, array<i64: 1024>, #tilus.layout<"local(2).spatial(128).local(4)">>
func.func @copy_f32(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 1024)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c1024 = arith.constant 1024 : index
  %off = arith.muli %bi, %c1024 : index
  %gs = "tilus.view_global"(%src, %N) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst, %N) : (!tilus.ptr<f32>, index) -> !g
  %r = "tilus.load_global"(%gs, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  "tilus.store_global"(%r, %gd, %off) : (!r, !g, index) -> ()
  return
}
