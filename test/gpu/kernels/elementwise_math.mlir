// The unary math instructions on f32 (y[k, i] = op_k(x[i]) for k = 0..9, y a [10, N]
// row-major tensor) and on f16 (computed in f32): exp, exp2, log, log2, sqrt, rsqrt, tanh,
// sin, cos, abs. 256 elements per block, 2 per thread.
!gf = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!gh = !tilus.global<f16, array<i64: -1>, #tilus.row_major>
!gf10 = !tilus.global<f32, array<i64: 10, -1>, #tilus.row_major>
!gh10 = !tilus.global<f16, array<i64: 10, -1>, #tilus.row_major>
!f = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!h = !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
func.func @math_f32(%x: !tilus.ptr<f32>, %y: !tilus.ptr<f32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %gx = "tilus.view_global"(%x, %N) : (!tilus.ptr<f32>, index) -> !gf
  %gy = "tilus.view_global"(%y, %N) : (!tilus.ptr<f32>, index) -> !gf10
  %a = "tilus.load_global"(%gx, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gf, index) -> !f
  %r0 = "tilus.exp"(%a) : (!f) -> !f
  %r1 = "tilus.exp2"(%a) : (!f) -> !f
  %r2 = "tilus.log"(%a) : (!f) -> !f
  %r3 = "tilus.log2"(%a) : (!f) -> !f
  %r4 = "tilus.sqrt"(%a) : (!f) -> !f
  %r5 = "tilus.rsqrt"(%a) : (!f) -> !f
  %r6 = "tilus.tanh"(%a) : (!f) -> !f
  %r7 = "tilus.sin"(%a) : (!f) -> !f
  %r8 = "tilus.cos"(%a) : (!f) -> !f
  %na = "tilus.neg"(%a) : (!f) -> !f
  %r9 = "tilus.abs"(%na) : (!f) -> !f
  %k0 = arith.constant 0 : index
  "tilus.store_global"(%r0, %gy, %k0, %off) : (!f, !gf10, index, index) -> ()
  %k1 = arith.constant 1 : index
  "tilus.store_global"(%r1, %gy, %k1, %off) : (!f, !gf10, index, index) -> ()
  %k2 = arith.constant 2 : index
  "tilus.store_global"(%r2, %gy, %k2, %off) : (!f, !gf10, index, index) -> ()
  %k3 = arith.constant 3 : index
  "tilus.store_global"(%r3, %gy, %k3, %off) : (!f, !gf10, index, index) -> ()
  %k4 = arith.constant 4 : index
  "tilus.store_global"(%r4, %gy, %k4, %off) : (!f, !gf10, index, index) -> ()
  %k5 = arith.constant 5 : index
  "tilus.store_global"(%r5, %gy, %k5, %off) : (!f, !gf10, index, index) -> ()
  %k6 = arith.constant 6 : index
  "tilus.store_global"(%r6, %gy, %k6, %off) : (!f, !gf10, index, index) -> ()
  %k7 = arith.constant 7 : index
  "tilus.store_global"(%r7, %gy, %k7, %off) : (!f, !gf10, index, index) -> ()
  %k8 = arith.constant 8 : index
  "tilus.store_global"(%r8, %gy, %k8, %off) : (!f, !gf10, index, index) -> ()
  %k9 = arith.constant 9 : index
  "tilus.store_global"(%r9, %gy, %k9, %off) : (!f, !gf10, index, index) -> ()
  return
}

func.func @math_f16(%x: !tilus.ptr<f16>, %y: !tilus.ptr<f16>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %gx = "tilus.view_global"(%x, %N) : (!tilus.ptr<f16>, index) -> !gh
  %gy = "tilus.view_global"(%y, %N) : (!tilus.ptr<f16>, index) -> !gh10
  %a = "tilus.load_global"(%gx, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gh, index) -> !h
  %r0 = "tilus.exp"(%a) : (!h) -> !h
  %r1 = "tilus.exp2"(%a) : (!h) -> !h
  %r2 = "tilus.log"(%a) : (!h) -> !h
  %r3 = "tilus.log2"(%a) : (!h) -> !h
  %r4 = "tilus.sqrt"(%a) : (!h) -> !h
  %r5 = "tilus.rsqrt"(%a) : (!h) -> !h
  %r6 = "tilus.tanh"(%a) : (!h) -> !h
  %r7 = "tilus.sin"(%a) : (!h) -> !h
  %r8 = "tilus.cos"(%a) : (!h) -> !h
  %na = "tilus.neg"(%a) : (!h) -> !h
  %r9 = "tilus.abs"(%na) : (!h) -> !h
  %k0 = arith.constant 0 : index
  "tilus.store_global"(%r0, %gy, %k0, %off) : (!h, !gh10, index, index) -> ()
  %k1 = arith.constant 1 : index
  "tilus.store_global"(%r1, %gy, %k1, %off) : (!h, !gh10, index, index) -> ()
  %k2 = arith.constant 2 : index
  "tilus.store_global"(%r2, %gy, %k2, %off) : (!h, !gh10, index, index) -> ()
  %k3 = arith.constant 3 : index
  "tilus.store_global"(%r3, %gy, %k3, %off) : (!h, !gh10, index, index) -> ()
  %k4 = arith.constant 4 : index
  "tilus.store_global"(%r4, %gy, %k4, %off) : (!h, !gh10, index, index) -> ()
  %k5 = arith.constant 5 : index
  "tilus.store_global"(%r5, %gy, %k5, %off) : (!h, !gh10, index, index) -> ()
  %k6 = arith.constant 6 : index
  "tilus.store_global"(%r6, %gy, %k6, %off) : (!h, !gh10, index, index) -> ()
  %k7 = arith.constant 7 : index
  "tilus.store_global"(%r7, %gy, %k7, %off) : (!h, !gh10, index, index) -> ()
  %k8 = arith.constant 8 : index
  "tilus.store_global"(%r8, %gy, %k8, %off) : (!h, !gh10, index, index) -> ()
  %k9 = arith.constant 9 : index
  "tilus.store_global"(%r9, %gy, %k9, %off) : (!h, !gh10, index, index) -> ()
  return
}
