// The naive f16 matmul (the paper's Figure 2 with an f16 B, no shared
// memory): C[M, N] = A[M, K] x B[K, N], one 16 x 8 tile of C per block of 32
// threads. A and B are loaded from global memory straight into the mma.sync
// fragment layouts, so Dot is one mma.sync m16n8k16 per 16-wide k step.
// Compare matmul_pipelined_f16.mlir, the same product with shared memory.
//
// Arguments: a, b, c, M, N / 8, K / 16. Grid: (M / 16 rounded up, N / 8).
!ga = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
!ra = !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
!rb = !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
!rc = !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
!rh = !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
func.func @matmul(%a: !tilus.ptr<f16>, %b: !tilus.ptr<f16>, %c: !tilus.ptr<f16>,
                  %m: i32, %n8: i32, %k16: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s3 ceildiv 16, s4)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %M = arith.index_cast %m : i32 to index
  %NT = arith.index_cast %n8 : i32 to index
  %KT = arith.index_cast %k16 : i32 to index
  %N = arith.muli %NT, %c8 : index
  %K = arith.muli %KT, %c16 : index
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)
  %om = arith.muli %bi, %c16 : index
  %on = arith.muli %bj, %c8 : index
  %gA = "tilus.view_global"(%a, %M, %K) : (!tilus.ptr<f16>, index, index) -> !ga
  %gB = "tilus.view_global"(%b, %K, %N) : (!tilus.ptr<f16>, index, index) -> !ga
  %gC = "tilus.view_global"(%c, %M, %N) : (!tilus.ptr<f16>, index, index) -> !ga
  %zero = arith.constant 0.0 : f32
  %acc0 = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %acc = scf.for %kk = %c0 to %KT step %c1 iter_args(%acc_k = %acc0) -> (!rc) {
    %ok = arith.muli %kk, %c16 : index
    %ra = "tilus.load_global"(%gA, %om, %ok) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
    %rb = "tilus.load_global"(%gB, %ok, %on) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !rb
    %d = "tilus.dot"(%ra, %rb, %acc_k) : (!ra, !rb, !rc) -> !rc
    scf.yield %d : !rc
  }
  %h = "tilus.cast"(%acc) : (!rc) -> !rh
  "tilus.store_global"(%h, %gC, %om, %on) : (!rh, !ga, index, index) -> ()
  return
}
