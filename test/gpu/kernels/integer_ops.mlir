// Integer arithmetic and casts on a 1-D i32 tensor, 256 elements per block
// (a layout with non-contiguous thread elements: scalar accesses):
//   q = a / d, r = a mod d (truncating, as C), n = -a   (i32)
//   u = ui16(a) / 3 as unsigned, widened back to i32 (zero-extended)
!gi = !tilus.global<i32, array<i64: -1>, #tilus.row_major>
!i = !tilus.register<i32, array<i64: 256>, #tilus.layout<"local(2).spatial(128)">>
!u = !tilus.register<ui16, array<i64: 256>, #tilus.layout<"local(2).spatial(128)">>
func.func @integer_ops(%a: !tilus.ptr<i32>, %d: !tilus.ptr<i32>, %q: !tilus.ptr<i32>,
                       %r: !tilus.ptr<i32>, %neg: !tilus.ptr<i32>, %u: !tilus.ptr<i32>,
                       %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6] -> (s6 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %ga = "tilus.view_global"(%a, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gd = "tilus.view_global"(%d, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gq = "tilus.view_global"(%q, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gr = "tilus.view_global"(%r, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gn = "tilus.view_global"(%neg, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gu = "tilus.view_global"(%u, %N) : (!tilus.ptr<i32>, index) -> !gi
  %ra = "tilus.load_global"(%ga, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gi, index) -> !i
  %rd = "tilus.load_global"(%gd, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gi, index) -> !i
  %rq = "tilus.div"(%ra, %rd) : (!i, !i) -> !i
  %rr = "tilus.mod"(%ra, %rd) : (!i, !i) -> !i
  %rn = "tilus.neg"(%ra) : (!i) -> !i
  %a16 = "tilus.cast"(%ra) : (!i) -> !u
  %three = "tilus.allocate_register"() : () -> !u
  %c3 = arith.constant 3 : i16
  %t3 = "tilus.allocate_register"(%c3) : (i16) -> !tilus.register<i16, array<i64: 256>, #tilus.layout<"local(2).spatial(128)">>
  %t3u = "tilus.view"(%t3) : (!tilus.register<i16, array<i64: 256>, #tilus.layout<"local(2).spatial(128)">>) -> !u
  %uq = "tilus.div"(%a16, %t3u) : (!u, !u) -> !u
  %uw = "tilus.cast"(%uq) : (!u) -> !i
  "tilus.store_global"(%rq, %gq, %off) : (!i, !gi, index) -> ()
  "tilus.store_global"(%rr, %gr, %off) : (!i, !gi, index) -> ()
  "tilus.store_global"(%rn, %gn, %off) : (!i, !gi, index) -> ()
  "tilus.store_global"(%uw, %gu, %off) : (!i, !gi, index) -> ()
  return
}
