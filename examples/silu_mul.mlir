// SiLU-and-multiply, the gated MLP's activation: for an input row [x | g]
// of 2 x 4096 f16, out = silu(x) * g with silu(x) = x / (1 + exp(-x)), in
// f32, one row per block of 128 threads. Purely elementwise: no reduction.
// The GPU suite checks it against a CPU reference (test/gpu/suite/NormTests.c).
!gi = !tilus.global<f16, array<i64: -1, 8192>, #tilus.row_major>
!go = !tilus.global<f16, array<i64: -1, 4096>, #tilus.row_major>
!xh = !tilus.register<f16, array<i64: 1, 4096>, #tilus.layout<"local(1,4).spatial(1,128).local(1,8)">>
!xf = !tilus.register<f32, array<i64: 1, 4096>, #tilus.layout<"local(1,4).spatial(1,128).local(1,8)">>
func.func @silu_mul(%in: !tilus.ptr<f16>, %out: !tilus.ptr<f16>, %rows: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2)>} {
  %R = arith.index_cast %rows : i32 to index
  %row = "tilus.block_indices"() : () -> index
  %c0 = arith.constant 0 : index
  %cD = arith.constant 4096 : index
  %one = arith.constant 1.0 : f32
  %gi = "tilus.view_global"(%in, %R) : (!tilus.ptr<f16>, index) -> !gi
  %go = "tilus.view_global"(%out, %R) : (!tilus.ptr<f16>, index) -> !go
  %xh = "tilus.load_global"(%gi, %row, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gi, index, index) -> !xh
  %gh = "tilus.load_global"(%gi, %row, %cD) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gi, index, index) -> !xh
  %x = "tilus.cast"(%xh) : (!xh) -> !xf
  %g = "tilus.cast"(%gh) : (!xh) -> !xf
  %nx = "tilus.neg"(%x) : (!xf) -> !xf
  %e = "tilus.exp"(%nx) : (!xf) -> !xf
  %den = "tilus.add"(%e, %one) : (!xf, f32) -> !xf
  %silu = "tilus.div"(%x, %den) : (!xf, !xf) -> !xf
  %o = "tilus.mul"(%silu, %g) : (!xf, !xf) -> !xf
  %oh = "tilus.cast"(%o) : (!xf) -> !xh
  "tilus.store_global"(%oh, %go, %row, %c0) : (!xh, !go, index, index) -> ()
  return
}
