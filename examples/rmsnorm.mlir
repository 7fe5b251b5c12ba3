// RMSNorm of f16 rows of 4096 (LLaMA's normalization), written the
// straightforward way: y = x / sqrt(mean(x^2) + eps) * w, in f32, one row per
// block of 128 threads. Each thread holds 4 chunks of 8 neighbouring
// elements (16-byte accesses); the row sum is reduced in the thread, across
// lanes with shuffles and across the 4 warps through shared memory, and the
// reshaped sum broadcasts back over the row with no data movement. The weight
// is loaded with x, so that its latency overlaps the reduction.
// rsqrt is PTX's rsqrt.approx.f32 (docs/dialect.md). The GPU suite checks it
// against a CPU reference (test/gpu/suite/NormTests.c).
!gx = !tilus.global<f16, array<i64: -1, 4096>, #tilus.row_major>
!gw = !tilus.global<f16, array<i64: 1, 4096>, #tilus.row_major>
!xh = !tilus.register<f16, array<i64: 1, 4096>, #tilus.layout<"local(1,4).spatial(1,128).local(1,8)">>
!xf = !tilus.register<f32, array<i64: 1, 4096>, #tilus.layout<"local(1,4).spatial(1,128).local(1,8)">>
!s1 = !tilus.register<f32, array<i64: 1>, #tilus.layout<"reduce(spatial(1,128),dims=[1])">>
!s2 = !tilus.register<f32, array<i64: 1, 1>, #tilus.layout<"reduce(spatial(1,1,128),dims=[2])">>
func.func @rmsnorm(%x: !tilus.ptr<f16>, %w: !tilus.ptr<f16>, %y: !tilus.ptr<f16>, %rows: i32, %eps: f32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s3)>} {
  %R = arith.index_cast %rows : i32 to index
  %row = "tilus.block_indices"() : () -> index
  %c0 = arith.constant 0 : index
  %gx = "tilus.view_global"(%x, %R) : (!tilus.ptr<f16>, index) -> !gx
  %gy = "tilus.view_global"(%y, %R) : (!tilus.ptr<f16>, index) -> !gx
  %gw = "tilus.view_global"(%w) : (!tilus.ptr<f16>) -> !gw
  %xh = "tilus.load_global"(%gx, %row, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gx, index, index) -> !xh
  %xf = "tilus.cast"(%xh) : (!xh) -> !xf
  %wh = "tilus.load_global"(%gw, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gw, index, index) -> !xh
  %wf = "tilus.cast"(%wh) : (!xh) -> !xf
  %sq = "tilus.mul"(%xf, %xf) : (!xf, !xf) -> !xf
  %ss = "tilus.reduce"(%sq) {dims = array<i64: 1>, kind = "sum"} : (!xf) -> !s1
  %inv = arith.constant 2.44140625e-04 : f32
  %ms = "tilus.mul"(%ss, %inv) : (!s1, f32) -> !s1
  %ms2 = "tilus.add"(%ms, %eps) : (!s1, f32) -> !s1
  %r = "tilus.rsqrt"(%ms2) : (!s1) -> !s1
  %r2 = "tilus.reshape"(%r) : (!s1) -> !s2
  %yf = "tilus.mul"(%xf, %r2) : (!xf, !s2) -> !xf
  %yw = "tilus.mul"(%yf, %wf) : (!xf, !xf) -> !xf
  %yh = "tilus.cast"(%yw) : (!xf) -> !xh
  "tilus.store_global"(%yh, %gy, %row, %c0) : (!xh, !gx, index, index) -> ()
  return
}
