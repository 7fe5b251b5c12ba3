// Masked loads with a fill value: dst[i] = i < n ? src[i] : fill, for a dst of
// `padded` elements (a multiple of 512) and a src of n <= padded elements.
!g = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!r = !tilus.register<f32, array<i64: 512>, #tilus.layout<"spatial(128).local(4)">>
func.func @pad_f32(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>, %n: i32, %padded: i32, %fill: f32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s3 ceildiv 512)>} {
  %N = arith.index_cast %n : i32 to index
  %P = arith.index_cast %padded : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c512 = arith.constant 512 : index
  %off = arith.muli %bi, %c512 : index
  %gs = "tilus.view_global"(%src, %N) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst, %P) : (!tilus.ptr<f32>, index) -> !g
  %r = "tilus.load_global"(%gs, %off, %fill) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!g, index, f32) -> !r
  "tilus.store_global"(%r, %gd, %off) : (!r, !g, index) -> ()
  return
}
