// 8-bit elements through ldmatrix and stmatrix (test/gpu/suite/):
//   roundtrip: a 64x64 i8 tile, global -> registers (a plain layout) ->
//     stage 1 of a two-stage swizzled shared buffer -> registers in the
//     mma.sync s8 A fragment layout (four bytes per lane and 8x8 matrix of
//     16-bit pairs: ldmatrix) -> stage 0 (stmatrix where the target has it)
//     -> registers (the plain layout) -> global. The output must equal the
//     input.
!g = !tilus.global<i8, array<i64: 64, 64>, #tilus.row_major>
!s = !tilus.shared<i8, array<i64: 2, 64, 64>, #tilus.layout<"local(2,1,1).swizzle(local(64,4), dim=1).local(1,16)">>
!rp = !tilus.register<i8, array<i64: 64, 64>, #tilus.layout<"spatial(16,8).local(4,8)">>
!rq = !tilus.register<i8, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,2).column_local(2,2).spatial(8,4).local(1,4)">>
func.func @roundtrip(%src: !tilus.ptr<i8>, %dst: !tilus.ptr<i8>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gs = "tilus.view_global"(%src) : (!tilus.ptr<i8>) -> !g
  %gd = "tilus.view_global"(%dst) : (!tilus.ptr<i8>) -> !g
  %a = "tilus.load_global"(%gs, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !rp
  %s = "tilus.allocate_shared"() : () -> !s
  "tilus.store_shared"(%a, %s, %c1, %c0, %c0) : (!rp, !s, index, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %q = "tilus.load_shared"(%s, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!s, index, index, index) -> !rq
  "tilus.store_shared"(%q, %s, %c0, %c0, %c0) : (!rq, !s, index, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %b = "tilus.load_shared"(%s, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!s, index, index, index) -> !rp
  "tilus.store_global"(%b, %gd, %c0, %c0) : (!rp, !g, index, index) -> ()
  return
}
