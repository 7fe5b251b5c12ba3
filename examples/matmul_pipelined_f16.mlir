// The paper's Figure 14 with an f16 B operand: the pipelined matmul
// C[M, N] = A[M, K] x B[K, N], all f16, f32 accumulation, for decoding
// shapes (M small): one 16 x 32 tile of C per block of 4 warps, K in tiles
// of 256 through a three-stage cp.async pipeline.
//
//  - Shared memory: three stages of A [16, 256] and B [256, 32]; their
//    layouts swizzle 16-byte chunks with the row (chunk ^ row), so that
//    neither the cp.async stores nor the ldmatrix reads conflict on banks.
//    tilus-plan-shared places them, and lets the epilogue's C tile reuse
//    their bytes.
//  - Each 16-wide k step loads A [16, 16] (ldmatrix.x4) and B [16, 32]
//    (ldmatrix.trans) in the mma.sync fragment layouts, and Dot becomes
//    mma.sync m16n8k16. Warps split N; A is replicated in all of them
//    (reduce(spatial(1,1,4), dims=[2])).
//  - The refill of the stage read in the previous iteration is issued
//    before the math. The 16 k steps are unrolled, each loading the next
//    step's fragments before its Dot; the last one first waits for the next
//    tile (wait_group(1) and a barrier) and loads that tile's first step,
//    which the loop carries over.
//  - Epilogue: drain the copies still in flight (wait_group(0), barrier),
//    cast to f16, through shared memory, 8-byte coalesced stores.
//
// The DSL's MatmulPipelined(16, 32, 256, 1, 4, 3) (examples/python/).
// Arguments: a, b, c, M, N / 32, K / 256. Grid: (M / 16 rounded up, N / 32).
!ga = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
!sa = !tilus.shared<f16, array<i64: 3, 16, 256>, #tilus.layout<"local(3,1,1).swizzle(local(16,32), dim=1, log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 3, 256, 32>, #tilus.layout<"local(3,1,1).swizzle(local(256,4), dim=1, log_step=1).local(1,8)">>
!sc = !tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"swizzle(local(16,4), dim=1, log_step=1).local(1,8)">>
!ra = !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"reduce(spatial(1,1,4), dims=[2]).local(1,1).column_local(2,2).spatial(8,4).local(1,2)">>
!rb = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"reduce(spatial(1,1,4), dims=[0]).local(1,1).local(2,1).column_spatial(4,8).local(2,1)">>
!rc = !tilus.register<f32, array<i64: 16, 32>, #tilus.layout<"spatial(1,4).local(1,1).local(2,1).spatial(8,4).local(1,2)">>
!rh = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(1,4).local(1,1).local(2,1).spatial(8,4).local(1,2)">>
!ro = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"local(1,1).spatial(16,8).local(1,4)">>
func.func @matmul(%a: !tilus.ptr<f16>, %b: !tilus.ptr<f16>, %c: !tilus.ptr<f16>,
                  %m: i32, %nt: i32, %kt: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s3 ceildiv 16, s4)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cS = arith.constant 3 : index
  %cBM = arith.constant 16 : index
  %cBN = arith.constant 32 : index
  %cBK = arith.constant 256 : index
  %M = arith.index_cast %m : i32 to index
  %NT = arith.index_cast %nt : i32 to index
  %KT = arith.index_cast %kt : i32 to index
  %N = arith.muli %NT, %cBN : index
  %K = arith.muli %KT, %cBK : index
  %bi, %bj = "tilus.block_indices"() : () -> (index, index)
  %om = arith.muli %bi, %cBM : index
  %on = arith.muli %bj, %cBN : index
  %gA = "tilus.view_global"(%a, %M, %K) : (!tilus.ptr<f16>, index, index) -> !ga
  %gB = "tilus.view_global"(%b, %K, %N) : (!tilus.ptr<f16>, index, index) -> !ga
  %gC = "tilus.view_global"(%c, %M, %N) : (!tilus.ptr<f16>, index, index) -> !ga
  %sA = "tilus.allocate_shared"() : () -> !sa
  %sB = "tilus.allocate_shared"() : () -> !sb
  %zero = arith.constant 0.0 : f32
  %acc0 = "tilus.allocate_register"(%zero) : (f32) -> !rc
  // Prologue: the first 2 tiles of K in flight.
  %cS1 = arith.constant 2 : index
  scf.for %s = %c0 to %cS1 step %c1 {
    %ok = arith.muli %s, %cBK : index
    "tilus.copy_async"(%sA, %gA, %s, %c0, %c0, %om, %ok) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 16, 256>} : (!sa, !ga, index, index, index, index, index) -> ()
    "tilus.copy_async"(%sB, %gB, %s, %c0, %c0, %ok, %on) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 256, 32>} : (!sb, !ga, index, index, index, index, index) -> ()
    "tilus.copy_async_commit_group"() : () -> ()
  }
  "tilus.copy_async_wait_group"() {n = 1 : i64} : () -> ()
  "tilus.synchronize"() : () -> ()
  %ra0 = "tilus.load_shared"(%sA, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
  %rb0 = "tilus.load_shared"(%sB, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
  %acc, %ra_last, %rb_last = scf.for %kb = %c0 to %KT step %c1
      iter_args(%acc_k = %acc0, %ra_k = %ra0, %rb_k = %rb0) -> (!rc, !ra, !rb) {
    // Refill the stage read in the previous iteration (past K: zero-filled).
    %ahead = arith.addi %kb, %cS1 : index
    %pre = arith.remui %ahead, %cS : index
    %opre = arith.muli %ahead, %cBK : index
    "tilus.copy_async"(%sA, %gA, %pre, %c0, %c0, %om, %opre) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 16, 256>} : (!sa, !ga, index, index, index, index, index) -> ()
    "tilus.copy_async"(%sB, %gB, %pre, %c0, %c0, %opre, %on) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 256, 32>} : (!sb, !ga, index, index, index, index, index) -> ()
    "tilus.copy_async_commit_group"() : () -> ()
    %cur = arith.remui %kb, %cS : index
    %kb1 = arith.addi %kb, %c1 : index
    %nxt = arith.remui %kb1, %cS : index
    %ou_1 = arith.constant 16 : index
    %ra_1 = "tilus.load_shared"(%sA, %cur, %c0, %ou_1) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_1 = "tilus.load_shared"(%sB, %cur, %ou_1, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_1 = "tilus.dot"(%ra_k, %rb_k, %acc_k) : (!ra, !rb, !rc) -> !rc
    %ou_2 = arith.constant 32 : index
    %ra_2 = "tilus.load_shared"(%sA, %cur, %c0, %ou_2) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_2 = "tilus.load_shared"(%sB, %cur, %ou_2, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_2 = "tilus.dot"(%ra_1, %rb_1, %acc_1) : (!ra, !rb, !rc) -> !rc
    %ou_3 = arith.constant 48 : index
    %ra_3 = "tilus.load_shared"(%sA, %cur, %c0, %ou_3) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_3 = "tilus.load_shared"(%sB, %cur, %ou_3, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_3 = "tilus.dot"(%ra_2, %rb_2, %acc_2) : (!ra, !rb, !rc) -> !rc
    %ou_4 = arith.constant 64 : index
    %ra_4 = "tilus.load_shared"(%sA, %cur, %c0, %ou_4) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_4 = "tilus.load_shared"(%sB, %cur, %ou_4, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_4 = "tilus.dot"(%ra_3, %rb_3, %acc_3) : (!ra, !rb, !rc) -> !rc
    %ou_5 = arith.constant 80 : index
    %ra_5 = "tilus.load_shared"(%sA, %cur, %c0, %ou_5) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_5 = "tilus.load_shared"(%sB, %cur, %ou_5, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_5 = "tilus.dot"(%ra_4, %rb_4, %acc_4) : (!ra, !rb, !rc) -> !rc
    %ou_6 = arith.constant 96 : index
    %ra_6 = "tilus.load_shared"(%sA, %cur, %c0, %ou_6) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_6 = "tilus.load_shared"(%sB, %cur, %ou_6, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_6 = "tilus.dot"(%ra_5, %rb_5, %acc_5) : (!ra, !rb, !rc) -> !rc
    %ou_7 = arith.constant 112 : index
    %ra_7 = "tilus.load_shared"(%sA, %cur, %c0, %ou_7) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_7 = "tilus.load_shared"(%sB, %cur, %ou_7, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_7 = "tilus.dot"(%ra_6, %rb_6, %acc_6) : (!ra, !rb, !rc) -> !rc
    %ou_8 = arith.constant 128 : index
    %ra_8 = "tilus.load_shared"(%sA, %cur, %c0, %ou_8) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_8 = "tilus.load_shared"(%sB, %cur, %ou_8, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_8 = "tilus.dot"(%ra_7, %rb_7, %acc_7) : (!ra, !rb, !rc) -> !rc
    %ou_9 = arith.constant 144 : index
    %ra_9 = "tilus.load_shared"(%sA, %cur, %c0, %ou_9) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_9 = "tilus.load_shared"(%sB, %cur, %ou_9, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_9 = "tilus.dot"(%ra_8, %rb_8, %acc_8) : (!ra, !rb, !rc) -> !rc
    %ou_10 = arith.constant 160 : index
    %ra_10 = "tilus.load_shared"(%sA, %cur, %c0, %ou_10) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_10 = "tilus.load_shared"(%sB, %cur, %ou_10, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_10 = "tilus.dot"(%ra_9, %rb_9, %acc_9) : (!ra, !rb, !rc) -> !rc
    %ou_11 = arith.constant 176 : index
    %ra_11 = "tilus.load_shared"(%sA, %cur, %c0, %ou_11) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_11 = "tilus.load_shared"(%sB, %cur, %ou_11, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_11 = "tilus.dot"(%ra_10, %rb_10, %acc_10) : (!ra, !rb, !rc) -> !rc
    %ou_12 = arith.constant 192 : index
    %ra_12 = "tilus.load_shared"(%sA, %cur, %c0, %ou_12) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_12 = "tilus.load_shared"(%sB, %cur, %ou_12, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_12 = "tilus.dot"(%ra_11, %rb_11, %acc_11) : (!ra, !rb, !rc) -> !rc
    %ou_13 = arith.constant 208 : index
    %ra_13 = "tilus.load_shared"(%sA, %cur, %c0, %ou_13) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_13 = "tilus.load_shared"(%sB, %cur, %ou_13, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_13 = "tilus.dot"(%ra_12, %rb_12, %acc_12) : (!ra, !rb, !rc) -> !rc
    %ou_14 = arith.constant 224 : index
    %ra_14 = "tilus.load_shared"(%sA, %cur, %c0, %ou_14) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_14 = "tilus.load_shared"(%sB, %cur, %ou_14, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_14 = "tilus.dot"(%ra_13, %rb_13, %acc_13) : (!ra, !rb, !rc) -> !rc
    %ou_15 = arith.constant 240 : index
    %ra_15 = "tilus.load_shared"(%sA, %cur, %c0, %ou_15) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_15 = "tilus.load_shared"(%sB, %cur, %ou_15, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_15 = "tilus.dot"(%ra_14, %rb_14, %acc_14) : (!ra, !rb, !rc) -> !rc
    "tilus.copy_async_wait_group"() {n = 1 : i64} : () -> ()
    "tilus.synchronize"() : () -> ()
    %ra_n = "tilus.load_shared"(%sA, %nxt, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sa, index, index, index) -> !ra
    %rb_n = "tilus.load_shared"(%sB, %nxt, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0>} : (!sb, index, index, index) -> !rb
    %acc_16 = "tilus.dot"(%ra_15, %rb_15, %acc_15) : (!ra, !rb, !rc) -> !rc
    scf.yield %acc_16, %ra_n, %rb_n : !rc, !ra, !rb
  }
  // Epilogue: f16 through shared memory, then coalesced 16-byte stores. The
  // C tile reuses the pipeline's bytes: first drain the copies still in
  // flight (the prefetches past K) and let every warp finish reading.
  "tilus.copy_async_wait_group"() {n = 0 : i64} : () -> ()
  "tilus.synchronize"() : () -> ()
  %h = "tilus.cast"(%acc) : (!rc) -> !rh
  %sC = "tilus.allocate_shared"() : () -> !sc
  "tilus.store_shared"(%h, %sC, %c0, %c0) : (!rh, !sc, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %o = "tilus.load_shared"(%sC, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!sc, index, index) -> !ro
  "tilus.store_global"(%o, %gC, %om, %on) : (!ro, !ga, index, index) -> ()
  return
}
