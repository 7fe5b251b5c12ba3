// LayerNorm of f16 rows of 4096: y = (x - mean) / sqrt(var + eps) * w + b,
// in f32 (the variance of the centred values, as the two-pass formula),
// one row per block of 128 threads. The GPU suite checks it against a CPU
// reference (test/gpu/suite/NormTests.c).
!gx = !tilus.global<f16, array<i64: -1, 4096>, #tilus.row_major>
!gw = !tilus.global<f16, array<i64: 1, 4096>, #tilus.row_major>
!xh = !tilus.register<f16, array<i64: 1, 4096>, #tilus.layout<"local(1,4).spatial(1,128).local(1,8)">>
!xf = !tilus.register<f32, array<i64: 1, 4096>, #tilus.layout<"local(1,4).spatial(1,128).local(1,8)">>
!s1 = !tilus.register<f32, array<i64: 1>, #tilus.layout<"reduce(spatial(1,128),dims=[1])">>
!s2 = !tilus.register<f32, array<i64: 1, 1>, #tilus.layout<"reduce(spatial(1,1,128),dims=[2])">>
func.func @layernorm(%x: !tilus.ptr<f16>, %w: !tilus.ptr<f16>, %b: !tilus.ptr<f16>, %y: !tilus.ptr<f16>, %rows: i32, %eps: f32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s4)>} {
  %R = arith.index_cast %rows : i32 to index
  %row = "tilus.block_indices"() : () -> index
  %c0 = arith.constant 0 : index
  %inv = arith.constant 2.44140625e-04 : f32
  %gx = "tilus.view_global"(%x, %R) : (!tilus.ptr<f16>, index) -> !gx
  %gy = "tilus.view_global"(%y, %R) : (!tilus.ptr<f16>, index) -> !gx
  %gw = "tilus.view_global"(%w) : (!tilus.ptr<f16>) -> !gw
  %gb = "tilus.view_global"(%b) : (!tilus.ptr<f16>) -> !gw
  %xh = "tilus.load_global"(%gx, %row, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gx, index, index) -> !xh
  %xf = "tilus.cast"(%xh) : (!xh) -> !xf
  %sum = "tilus.reduce"(%xf) {dims = array<i64: 1>, kind = "sum"} : (!xf) -> !s1
  %mean = "tilus.mul"(%sum, %inv) : (!s1, f32) -> !s1
  %mean2 = "tilus.reshape"(%mean) : (!s1) -> !s2
  %d = "tilus.sub"(%xf, %mean2) : (!xf, !s2) -> !xf
  %sq = "tilus.mul"(%d, %d) : (!xf, !xf) -> !xf
  %ss = "tilus.reduce"(%sq) {dims = array<i64: 1>, kind = "sum"} : (!xf) -> !s1
  %var = "tilus.mul"(%ss, %inv) : (!s1, f32) -> !s1
  %ve = "tilus.add"(%var, %eps) : (!s1, f32) -> !s1
  %r = "tilus.rsqrt"(%ve) : (!s1) -> !s1
  %r2 = "tilus.reshape"(%r) : (!s1) -> !s2
  %n = "tilus.mul"(%d, %r2) : (!xf, !s2) -> !xf
  %wh = "tilus.load_global"(%gw, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gw, index, index) -> !xh
  %bh = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gw, index, index) -> !xh
  %wf = "tilus.cast"(%wh) : (!xh) -> !xf
  %bf = "tilus.cast"(%bh) : (!xh) -> !xf
  %nw = "tilus.mul"(%n, %wf) : (!xf, !xf) -> !xf
  %o = "tilus.add"(%nw, %bf) : (!xf, !xf) -> !xf
  %oh = "tilus.cast"(%o) : (!xf) -> !xh
  "tilus.store_global"(%oh, %gy, %row, %c0) : (!xh, !gx, index, index) -> ()
  return
}
