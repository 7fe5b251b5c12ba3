// AllocateGlobal: each block writes its 256-element tile into its row of a
// workspace tensor with one layout, synchronizes, reads it back with another
// layout and adds 1, then stores the result. The round trip through the
// runtime-provided workspace must give back every element.
!g = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!w = !tilus.global<f32, array<i64: 8, 256>, #tilus.row_major>
!a = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!b = !tilus.register<f32, array<i64: 256>, #tilus.layout<"local(2).spatial(128)">>
func.func @workspace_f32(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1] -> (8)>} {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  %bi = "tilus.block_indices"() : () -> index
  %off = arith.muli %bi, %c256 : index
  %gs = "tilus.view_global"(%src, %c2048) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst, %c2048) : (!tilus.ptr<f32>, index) -> !g
  %ws = "tilus.allocate_global"() : () -> !w
  %x = "tilus.load_global"(%gs, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !a
  "tilus.store_global"(%x, %ws, %bi, %c0) : (!a, !w, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %y = "tilus.load_global"(%ws, %bi, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!w, index, index) -> !b
  %z = "tilus.add"(%y, %one) : (!b, f32) -> !b
  "tilus.store_global"(%z, %gd, %off) : (!b, !g, index) -> ()
  return
}
