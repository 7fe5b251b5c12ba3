// examples/softmax.mlir for rows of 8192: 256 threads, the same 4 chunks of
// 8 elements per thread (bench/norms: softmax over [R, 8192]).
!gx = !tilus.global<f16, array<i64: -1, 8192>, #tilus.row_major>
!xh = !tilus.register<f16, array<i64: 1, 8192>, #tilus.layout<"local(1,4).spatial(1,256).local(1,8)">>
!xf = !tilus.register<f32, array<i64: 1, 8192>, #tilus.layout<"local(1,4).spatial(1,256).local(1,8)">>
!s1 = !tilus.register<f32, array<i64: 1>, #tilus.layout<"reduce(spatial(1,256),dims=[1])">>
!s2 = !tilus.register<f32, array<i64: 1, 1>, #tilus.layout<"reduce(spatial(1,1,256),dims=[2])">>
func.func @softmax_8192(%x: !tilus.ptr<f16>, %y: !tilus.ptr<f16>, %rows: i32)
    attributes {tilus.kernel, tilus.block_size = 256 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2)>} {
  %R = arith.index_cast %rows : i32 to index
  %row = "tilus.block_indices"() : () -> index
  %c0 = arith.constant 0 : index
  %gx = "tilus.view_global"(%x, %R) : (!tilus.ptr<f16>, index) -> !gx
  %gy = "tilus.view_global"(%y, %R) : (!tilus.ptr<f16>, index) -> !gx
  %xh = "tilus.load_global"(%gx, %row, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gx, index, index) -> !xh
  %xf = "tilus.cast"(%xh) : (!xh) -> !xf
  %m = "tilus.reduce"(%xf) {dims = array<i64: 1>, kind = "max"} : (!xf) -> !s1
  %m2 = "tilus.reshape"(%m) : (!s1) -> !s2
  %d = "tilus.sub"(%xf, %m2) : (!xf, !s2) -> !xf
  %e = "tilus.exp"(%d) : (!xf) -> !xf
  %s = "tilus.reduce"(%e) {dims = array<i64: 1>, kind = "sum"} : (!xf) -> !s1
  %s2 = "tilus.reshape"(%s) : (!s1) -> !s2
  %p = "tilus.div"(%e, %s2) : (!xf, !s2) -> !xf
  %ph = "tilus.cast"(%p) : (!xf) -> !xh
  "tilus.store_global"(%ph, %gy, %row, %c0) : (!xh, !gx, index, index) -> ()
  return
}
