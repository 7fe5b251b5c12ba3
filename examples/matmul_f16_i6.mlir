// The paper's Figure 2: C[M, N] = A[M, K] x B[K, N] with A in f16 and B in
// int6, one 16x8 tile of C per thread block of 32 threads, no shared memory.
//
// B is pre-transformed on the host ("Change Layout", Figure 8;
// tilusWeightPack in include/tilus-c/WeightPack.h) from i6[K, N] to
// u8[K / 16, N / 8, 96]: each 16x8 tile of B is 96 bytes, laid out as
// local(3).spatial(32), so thread t's 3 bytes (= 4 x int6) are bytes t,
// 32 + t and 64 + t of the tile, and each load is coalesced.
//
// Arguments: %a, %b, %c, M, N, K. The grid is (M / 16, N / 8): symbol s_k of
// the grid map is kernel argument k.
module {
  func.func @matmul(%a: !tilus.ptr<f16>, %b: !tilus.ptr<ui8>, %c: !tilus.ptr<f16>,
                    %m: i32, %n: i32, %k: i32)
      attributes {tilus.kernel, tilus.block_size = 32 : i64,
                  tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s3 floordiv 16, s4 floordiv 8)>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %M = arith.index_cast %m : i32 to index
    %N = arith.index_cast %n : i32 to index
    %K = arith.index_cast %k : i32 to index
    %kt = arith.divui %K, %c16 : index
    %nt = arith.divui %N, %c8 : index
    %bi, %bj = "tilus.block_indices"() : () -> (index, index)
    %ga = "tilus.view_global"(%a, %M, %K)
        : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
    %gb = "tilus.view_global"(%b, %kt, %nt)
        : (!tilus.ptr<ui8>, index, index) -> !tilus.global<ui8, array<i64: -1, -1, 96>, #tilus.row_major>
    %gc = "tilus.view_global"(%c, %M, %N)
        : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
    %zero = arith.constant 0.0 : f32
    %acc0 = "tilus.allocate_register"(%zero)
        : (f32) -> !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
    %om = arith.muli %bi, %c16 : index
    %on = arith.muli %bj, %c8 : index
    %acc = scf.for %kk = %c0 to %kt step %c1 iter_args(%acc_it = %acc0)
        -> (!tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>) {
      %ok = arith.muli %kk, %c16 : index
      %ra = "tilus.load_global"(%ga, %om, %ok) {operandSegmentSizes = array<i32: 1, 2, 0, 0>}
          : (!tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, index, index)
          -> !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
      %rbt = "tilus.load_global"(%gb, %kk, %bj, %c0) {operandSegmentSizes = array<i32: 1, 3, 0, 0>}
          : (!tilus.global<ui8, array<i64: -1, -1, 96>, #tilus.row_major>, index, index, index)
          -> !tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>
      %rb6 = "tilus.view"(%rbt) {operandSegmentSizes = array<i32: 1, 0>}
          : (!tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>)
          -> !tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
      %rb = "tilus.cast"(%rb6) {operandSegmentSizes = array<i32: 1, 0>}
          : (!tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>)
          -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
      %next = "tilus.dot"(%ra, %rb, %acc_it, %acc_it) {operandSegmentSizes = array<i32: 1, 1, 1, 1>}
          : (!tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>,
             !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>,
             !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>,
             !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>)
          -> !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
      scf.yield %next : !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
    }
    %out = "tilus.cast"(%acc) {operandSegmentSizes = array<i32: 1, 0>}
        : (!tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>)
        -> !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
    "tilus.store_global"(%out, %gc, %om, %on)
        : (!tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>,
           !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, index, index) -> ()
    return
  }
}
