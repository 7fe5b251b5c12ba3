// Broadcast operands whose threads do not hold what they need (issue 11):
// tilus-convert-broadcasts (in lower-to-nvvm) converts them first, here by a
// warp shuffle (the rows) and through shared memory (the columns).
//   out[i, j] = a[i, j] * r[i] + c[j]   on an [8, 32] f32 tile, 32 threads
// test/gpu/suite/ElementwiseTests.c compares it with a CPU reference.
!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!row = !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(column_spatial(8,4,1), dims=[1])">>
!col = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"local(1,8).reduce(spatial(8,1,4), dims=[0])">>
!g = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
!gr = !tilus.global<f32, array<i64: 8, 1>, #tilus.row_major>
!gc = !tilus.global<f32, array<i64: 1, 32>, #tilus.row_major>
func.func @broadcast_moved(%a: !tilus.ptr<f32>, %r: !tilus.ptr<f32>, %c: !tilus.ptr<f32>, %out: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %ga = "tilus.view_global"(%a) : (!tilus.ptr<f32>) -> !g
  %gr = "tilus.view_global"(%r) : (!tilus.ptr<f32>) -> !gr
  %gc = "tilus.view_global"(%c) : (!tilus.ptr<f32>) -> !gc
  %go = "tilus.view_global"(%out) : (!tilus.ptr<f32>) -> !g
  %x = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !f
  %rows = "tilus.load_global"(%gr, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gr, index, index) -> !row
  %cols = "tilus.load_global"(%gc, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gc, index, index) -> !col
  %t = "tilus.mul"(%x, %rows) : (!f, !row) -> !f
  %u = "tilus.add"(%t, %cols) : (!f, !col) -> !f
  "tilus.store_global"(%u, %go, %c0, %c0) : (!f, !g, index, index) -> ()
  return
}
