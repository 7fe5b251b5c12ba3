// 2-D elementwise arithmetic on [M, N] f16 tensors of run-time size, one
// 32 x 64 tile per block at offsets from BlockIndices (edge tiles masked in
// both dimensions):
//   y = (a + b) * s        (f16)
//   z = f32(y) - f32(a)    (f32)
!gh = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
!gf = !tilus.global<f32, array<i64: -1, -1>, #tilus.row_major>
!h = !tilus.register<f16, array<i64: 32, 64>, #tilus.layout<"spatial(32,4).local(1,16)">>
!f = !tilus.register<f32, array<i64: 32, 64>, #tilus.layout<"spatial(32,4).local(1,16)">>
func.func @elementwise_f16(%a: !tilus.ptr<f16>, %b: !tilus.ptr<f16>, %y: !tilus.ptr<f16>,
                           %z: !tilus.ptr<f32>, %s: f16, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6] -> (s5 ceildiv 32, s6 ceildiv 64)>} {
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %bi, %c32 : index
  %col = arith.muli %bj, %c64 : index
  %ga = "tilus.view_global"(%a, %M, %N) : (!tilus.ptr<f16>, index, index) -> !gh
  %gb = "tilus.view_global"(%b, %M, %N) : (!tilus.ptr<f16>, index, index) -> !gh
  %gy = "tilus.view_global"(%y, %M, %N) : (!tilus.ptr<f16>, index, index) -> !gh
  %gz = "tilus.view_global"(%z, %M, %N) : (!tilus.ptr<f32>, index, index) -> !gf
  %ra = "tilus.load_global"(%ga, %row, %col) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gh, index, index) -> !h
  %rb = "tilus.load_global"(%gb, %row, %col) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gh, index, index) -> !h
  %sum = "tilus.add"(%ra, %rb) : (!h, !h) -> !h
  %ry = "tilus.mul"(%sum, %s) : (!h, f16) -> !h
  %yf = "tilus.cast"(%ry) : (!h) -> !f
  %af = "tilus.cast"(%ra) : (!h) -> !f
  %rz = "tilus.sub"(%yf, %af, %af) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!f, !f, !f) -> !f
  "tilus.store_global"(%ry, %gy, %row, %col) : (!h, !gh, index, index) -> ()
  "tilus.store_global"(%rz, %gz, %row, %col) : (!f, !gf, index, index) -> ()
  return
}
