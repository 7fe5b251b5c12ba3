// The unary math instructions on f32 (y[k] = op(x[k]) for k = 0..9, out[k*N
// + i]) and on f16 (computed in f32): exp, exp2, log, log2, sqrt, rsqrt, tanh,
// sin, cos, abs. 256 elements per block, 2 per thread.
!gf = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!gh = !tilus.global<f16, array<i64: -1>, #tilus.row_major>
!f = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!h = !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
func.func @math_f32(%x: !tilus.ptr<f32>, %y: !tilus.ptr<f32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %c10 = arith.constant 10 : index
  %N10 = arith.muli %N, %c10 : index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %gx = "tilus.view_global"(%x, %N) : (!tilus.ptr<f32>, index) -> !gf
  %gy = "tilus.view_global"(%y, %N10) : (!tilus.ptr<f32>, index) -> !gf
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
  %o1 = arith.addi %off, %N : index
  %o2 = arith.addi %o1, %N : index
  %o3 = arith.addi %o2, %N : index
  %o4 = arith.addi %o3, %N : index
  %o5 = arith.addi %o4, %N : index
  %o6 = arith.addi %o5, %N : index
  %o7 = arith.addi %o6, %N : index
  %o8 = arith.addi %o7, %N : index
  %o9 = arith.addi %o8, %N : index
  "tilus.store_global"(%r0, %gy, %off) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r1, %gy, %o1) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r2, %gy, %o2) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r3, %gy, %o3) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r4, %gy, %o4) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r5, %gy, %o5) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r6, %gy, %o6) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r7, %gy, %o7) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r8, %gy, %o8) : (!f, !gf, index) -> ()
  "tilus.store_global"(%r9, %gy, %o9) : (!f, !gf, index) -> ()
  return
}

func.func @math_f16(%x: !tilus.ptr<f16>, %y: !tilus.ptr<f16>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %c10 = arith.constant 10 : index
  %N10 = arith.muli %N, %c10 : index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %gx = "tilus.view_global"(%x, %N) : (!tilus.ptr<f16>, index) -> !gh
  %gy = "tilus.view_global"(%y, %N10) : (!tilus.ptr<f16>, index) -> !gh
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
  %o1 = arith.addi %off, %N : index
  %o2 = arith.addi %o1, %N : index
  %o3 = arith.addi %o2, %N : index
  %o4 = arith.addi %o3, %N : index
  %o5 = arith.addi %o4, %N : index
  %o6 = arith.addi %o5, %N : index
  %o7 = arith.addi %o6, %N : index
  %o8 = arith.addi %o7, %N : index
  %o9 = arith.addi %o8, %N : index
  "tilus.store_global"(%r0, %gy, %off) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r1, %gy, %o1) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r2, %gy, %o2) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r3, %gy, %o3) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r4, %gy, %o4) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r5, %gy, %o5) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r6, %gy, %o6) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r7, %gy, %o7) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r8, %gy, %o8) : (!h, !gh, index) -> ()
  "tilus.store_global"(%r9, %gy, %o9) : (!h, !gh, index) -> ()
  return
}
