// The weight pre-transform ("Change Layout", the paper's Figure 8) as a Tilus
// program, for the int6 weights of matmul_f16_i6.mlir: i6[K, N], compact and
// row-major, becomes u8[K / 16, N / 8, 96], each 16x8 tile rewritten so that
// matmul_f16_i6 loads it with coalesced byte loads (local(3).spatial(32)) and
// Views it as its register layout at no cost.
//
// Each block loads one tile in the layout the matmul wants its weights in
// (the generic sub-byte load: int6 elements straddle bytes), Views the
// thread's 24 bits as 3 bytes, and stores them where the matmul will load
// them. `unpack` is the inverse (its sub-byte stores write 32-bit words
// atomically, since neighbouring threads share them). The result is the same
// as tilusWeightPack's on the host (include/tilus-c/WeightPack.h).
//
// Arguments: %src, %dst, K, N. The grid is (K / 16, N / 8).
module {
  func.func @pack(%src: !tilus.ptr<ui8>, %dst: !tilus.ptr<ui8>, %k: i32, %n: i32)
      attributes {tilus.kernel, tilus.block_size = 32 : i64,
                  tilus.grid = affine_map<()[s0, s1, s2, s3] -> (s2 ceildiv 16, s3 ceildiv 8)>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %K = arith.index_cast %k : i32 to index
    %N = arith.index_cast %n : i32 to index
    %kt = arith.divui %K, %c16 : index
    %nt = arith.divui %N, %c8 : index
    %bi, %bj = "tilus.block_indices"() : () -> (index, index)
    %gw = "tilus.view_global"(%src, %K, %N)
        : (!tilus.ptr<ui8>, index, index) -> !tilus.global<i6, array<i64: -1, -1>, #tilus.row_major>
    %gp = "tilus.view_global"(%dst, %kt, %nt)
        : (!tilus.ptr<ui8>, index, index) -> !tilus.global<ui8, array<i64: -1, -1, 96>, #tilus.row_major>
    %row = arith.muli %bi, %c16 : index
    %col = arith.muli %bj, %c8 : index
    %w = "tilus.load_global"(%gw, %row, %col) {operandSegmentSizes = array<i32: 1, 2, 0, 0>}
        : (!tilus.global<i6, array<i64: -1, -1>, #tilus.row_major>, index, index)
        -> !tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
    %q = "tilus.view"(%w)
        : (!tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>)
        -> !tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>
    "tilus.store_global"(%q, %gp, %bi, %bj, %c0)
        : (!tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>,
           !tilus.global<ui8, array<i64: -1, -1, 96>, #tilus.row_major>, index, index, index) -> ()
    return
  }

  func.func @unpack(%src: !tilus.ptr<ui8>, %dst: !tilus.ptr<ui8>, %k: i32, %n: i32)
      attributes {tilus.kernel, tilus.block_size = 32 : i64,
                  tilus.grid = affine_map<()[s0, s1, s2, s3] -> (s2 ceildiv 16, s3 ceildiv 8)>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %K = arith.index_cast %k : i32 to index
    %N = arith.index_cast %n : i32 to index
    %kt = arith.divui %K, %c16 : index
    %nt = arith.divui %N, %c8 : index
    %bi, %bj = "tilus.block_indices"() : () -> (index, index)
    %gp = "tilus.view_global"(%src, %kt, %nt)
        : (!tilus.ptr<ui8>, index, index) -> !tilus.global<ui8, array<i64: -1, -1, 96>, #tilus.row_major>
    %gw = "tilus.view_global"(%dst, %K, %N)
        : (!tilus.ptr<ui8>, index, index) -> !tilus.global<i6, array<i64: -1, -1>, #tilus.row_major>
    %q = "tilus.load_global"(%gp, %bi, %bj, %c0) {operandSegmentSizes = array<i32: 1, 3, 0, 0>}
        : (!tilus.global<ui8, array<i64: -1, -1, 96>, #tilus.row_major>, index, index, index)
        -> !tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>
    %w = "tilus.view"(%q)
        : (!tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>)
        -> !tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
    %row = arith.muli %bi, %c16 : index
    %col = arith.muli %bj, %c8 : index
    "tilus.store_global"(%w, %gw, %row, %col)
        : (!tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>,
           !tilus.global<i6, array<i64: -1, -1>, #tilus.row_major>, index, index) -> ()
    return
  }
}
