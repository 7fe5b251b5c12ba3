// targets: sm_90a
// wgmma.mma_async (tilus.wgmma_mma) against a CPU reference
// (test/gpu/suite/WgmmaTests.c): C = A x W^T for row-major A [M, K] and
// W [N, K] (B = W^T: loaded as [N, K] and permuted in registers, which
// relabels the layout). The operands go through registers into the shared
// layouts wgmma reads (every swizzle mode and the K-major layouts of both
// operands appear), or A stays in registers; the accumulator goes through
// wgmma_wait_group to global.

// 1. f16, one warpgroup, 64 x 64 x 64, 128-byte swizzle.
!a1 = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!b1 = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!t1 = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(16,8).local(4,8)">>
!d1 = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!ra1 = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,4).column_local(2,2).spatial(8,4).local(1,2)">>
!ga1 = !tilus.global<f16, array<i64: 64, 64>, #tilus.row_major>
!gb1 = !tilus.global<f16, array<i64: 64, 64>, #tilus.row_major>
!p1 = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"column_spatial(8,16).column_local(8,4)">>
!gc1 = !tilus.global<f32, array<i64: 64, 64>, #tilus.row_major>
func.func @ss_f16(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<f16>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga1
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<f16>) -> !gb1
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc1
  %sa = "tilus.allocate_shared"() : () -> !a1
  %sb = "tilus.allocate_shared"() : () -> !b1
  %ta = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga1, index, index) -> !t1
  %tw = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb1, index, index) -> !t1
  %tb = "tilus.permute"(%tw) {dims = array<i64: 1, 0>} : (!t1) -> !p1
  "tilus.store_shared"(%ta, %sa, %c0, %c0) : (!t1, !a1, index, index) -> ()
  "tilus.store_shared"(%tb, %sb, %c0, %c0) : (!p1, !b1, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !d1
  "tilus.wgmma_fence"() : () -> ()
  %d = "tilus.wgmma_mma"(%sa, %sb, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!a1, !b1, !d1) -> !d1
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d1) -> !d1
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d1, !gc1, index, index) -> ()
  return
}

// 2. The same with A in registers (wgmma's register operand).
func.func @rs_f16(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<f16>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga1
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<f16>) -> !gb1
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc1
  %sb = "tilus.allocate_shared"() : () -> !b1
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga1, index, index) -> !ra1
  %tw = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb1, index, index) -> !t1
  %tb = "tilus.permute"(%tw) {dims = array<i64: 1, 0>} : (!t1) -> !p1
  "tilus.store_shared"(%tb, %sb, %c0, %c0) : (!p1, !b1, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !d1
  "tilus.wgmma_fence"() : () -> ()
  %d = "tilus.wgmma_mma"(%a, %sb, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra1, !b1, !d1) -> !d1
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d1) -> !d1
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d1, !gc1, index, index) -> ()
  return
}

// 3. bf16, two warpgroups over M, 128 x 128 x 128 (two 128-byte K blocks,
//    one m64n128 instruction per warpgroup and k step).
!a3 = !tilus.shared<bf16, array<i64: 128, 128>, #tilus.layout<"local(1,2).swizzle(local(128,8),dim=1,log_step=0).local(1,8)">>
!b3 = !tilus.shared<bf16, array<i64: 128, 128>, #tilus.layout<"local(2,1).swizzle(column_local(8,128),dim=0,log_step=0).local(8,1)">>
!t3 = !tilus.register<bf16, array<i64: 128, 128>, #tilus.layout<"spatial(32,8).local(4,16)">>
!d3 = !tilus.register<f32, array<i64: 128, 128>, #tilus.layout<"spatial(8,1).local(1,16).local(2,1).spatial(8,4).local(1,2)">>
!ga3 = !tilus.global<bf16, array<i64: 128, 128>, #tilus.row_major>
!gb3 = !tilus.global<bf16, array<i64: 128, 128>, #tilus.row_major>
!p3 = !tilus.register<bf16, array<i64: 128, 128>, #tilus.layout<"column_spatial(8,32).column_local(16,4)">>
!gc3 = !tilus.global<f32, array<i64: 128, 128>, #tilus.row_major>
func.func @ss_bf16_2wg(%pa: !tilus.ptr<bf16>, %pw: !tilus.ptr<bf16>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<bf16>) -> !ga3
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<bf16>) -> !gb3
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc3
  %sa = "tilus.allocate_shared"() : () -> !a3
  %sb = "tilus.allocate_shared"() : () -> !b3
  %ta = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga3, index, index) -> !t3
  %tw = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb3, index, index) -> !t3
  %tb = "tilus.permute"(%tw) {dims = array<i64: 1, 0>} : (!t3) -> !p3
  "tilus.store_shared"(%ta, %sa, %c0, %c0) : (!t3, !a3, index, index) -> ()
  "tilus.store_shared"(%tb, %sb, %c0, %c0) : (!p3, !b3, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !d3
  "tilus.wgmma_fence"() : () -> ()
  %d = "tilus.wgmma_mma"(%sa, %sb, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!a3, !b3, !d3) -> !d3
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d3) -> !d3
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d3, !gc3, index, index) -> ()
  return
}

// 4. int8 into i32, 64 x 64 x 64, 64-byte swizzle (K = 64 bytes).
!a4 = !tilus.shared<i8, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,4),dim=1,log_step=1).local(1,16)">>
!b4 = !tilus.shared<i8, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(4,64),dim=0,log_step=1).local(16,1)">>
!t4 = !tilus.register<i8, array<i64: 64, 64>, #tilus.layout<"spatial(16,8).local(4,8)">>
!d4 = !tilus.register<i32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!ga4 = !tilus.global<i8, array<i64: 64, 64>, #tilus.row_major>
!gb4 = !tilus.global<i8, array<i64: 64, 64>, #tilus.row_major>
!p4 = !tilus.register<i8, array<i64: 64, 64>, #tilus.layout<"column_spatial(8,16).column_local(8,4)">>
!gc4 = !tilus.global<i32, array<i64: 64, 64>, #tilus.row_major>
func.func @ss_s8(%pa: !tilus.ptr<i8>, %pw: !tilus.ptr<i8>, %pc: !tilus.ptr<i32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<i8>) -> !ga4
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<i8>) -> !gb4
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<i32>) -> !gc4
  %sa = "tilus.allocate_shared"() : () -> !a4
  %sb = "tilus.allocate_shared"() : () -> !b4
  %ta = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga4, index, index) -> !t4
  %tw = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb4, index, index) -> !t4
  %tb = "tilus.permute"(%tw) {dims = array<i64: 1, 0>} : (!t4) -> !p4
  "tilus.store_shared"(%ta, %sa, %c0, %c0) : (!t4, !a4, index, index) -> ()
  "tilus.store_shared"(%tb, %sb, %c0, %c0) : (!p4, !b4, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %d0 = "tilus.allocate_register"(%zero) : (i32) -> !d4
  "tilus.wgmma_fence"() : () -> ()
  %d = "tilus.wgmma_mma"(%sa, %sb, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!a4, !b4, !d4) -> !d4
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d4) -> !d4
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d4, !gc4, index, index) -> ()
  return
}

// 5. FP8 e4m3 (!tilus.float<4,3>, OCP) into f32, 64 x 64 x 64, 64-byte swizzle.
!a5f = !tilus.shared<!tilus.float<4,3>, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,4),dim=1,log_step=1).local(1,16)">>
!b5f = !tilus.shared<!tilus.float<4,3>, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(4,64),dim=0,log_step=1).local(16,1)">>
!t5f = !tilus.register<!tilus.float<4,3>, array<i64: 64, 64>, #tilus.layout<"spatial(16,8).local(4,8)">>
!d5f = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!ga5f = !tilus.global<!tilus.float<4,3>, array<i64: 64, 64>, #tilus.row_major>
!gb5f = !tilus.global<!tilus.float<4,3>, array<i64: 64, 64>, #tilus.row_major>
!p5f = !tilus.register<!tilus.float<4,3>, array<i64: 64, 64>, #tilus.layout<"column_spatial(8,16).column_local(8,4)">>
!gc5f = !tilus.global<f32, array<i64: 64, 64>, #tilus.row_major>
func.func @ss_e4m3(%pa: !tilus.ptr<!tilus.float<4,3>>, %pw: !tilus.ptr<!tilus.float<4,3>>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<!tilus.float<4,3>>) -> !ga5f
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<!tilus.float<4,3>>) -> !gb5f
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc5f
  %sa = "tilus.allocate_shared"() : () -> !a5f
  %sb = "tilus.allocate_shared"() : () -> !b5f
  %ta = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga5f, index, index) -> !t5f
  %tw = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb5f, index, index) -> !t5f
  %tb = "tilus.permute"(%tw) {dims = array<i64: 1, 0>} : (!t5f) -> !p5f
  "tilus.store_shared"(%ta, %sa, %c0, %c0) : (!t5f, !a5f, index, index) -> ()
  "tilus.store_shared"(%tb, %sb, %c0, %c0) : (!p5f, !b5f, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !d5f
  "tilus.wgmma_fence"() : () -> ()
  %d = "tilus.wgmma_mma"(%sa, %sb, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!a5f, !b5f, !d5f) -> !d5f
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d5f) -> !d5f
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d5f, !gc5f, index, index) -> ()
  return
}

// 6. FP8 e5m2 (!tilus.float<5,2>, OCP) into f32, 64 x 64 x 64, 64-byte swizzle.
!a6f = !tilus.shared<!tilus.float<5,2>, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,4),dim=1,log_step=1).local(1,16)">>
!b6f = !tilus.shared<!tilus.float<5,2>, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(4,64),dim=0,log_step=1).local(16,1)">>
!t6f = !tilus.register<!tilus.float<5,2>, array<i64: 64, 64>, #tilus.layout<"spatial(16,8).local(4,8)">>
!d6f = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!ga6f = !tilus.global<!tilus.float<5,2>, array<i64: 64, 64>, #tilus.row_major>
!gb6f = !tilus.global<!tilus.float<5,2>, array<i64: 64, 64>, #tilus.row_major>
!p6f = !tilus.register<!tilus.float<5,2>, array<i64: 64, 64>, #tilus.layout<"column_spatial(8,16).column_local(8,4)">>
!gc6f = !tilus.global<f32, array<i64: 64, 64>, #tilus.row_major>
func.func @ss_e5m2(%pa: !tilus.ptr<!tilus.float<5,2>>, %pw: !tilus.ptr<!tilus.float<5,2>>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<!tilus.float<5,2>>) -> !ga6f
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<!tilus.float<5,2>>) -> !gb6f
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc6f
  %sa = "tilus.allocate_shared"() : () -> !a6f
  %sb = "tilus.allocate_shared"() : () -> !b6f
  %ta = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga6f, index, index) -> !t6f
  %tw = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb6f, index, index) -> !t6f
  %tb = "tilus.permute"(%tw) {dims = array<i64: 1, 0>} : (!t6f) -> !p6f
  "tilus.store_shared"(%ta, %sa, %c0, %c0) : (!t6f, !a6f, index, index) -> ()
  "tilus.store_shared"(%tb, %sb, %c0, %c0) : (!p6f, !b6f, index, index) -> ()
  "tilus.synchronize"() : () -> ()
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !d6f
  "tilus.wgmma_fence"() : () -> ()
  %d = "tilus.wgmma_mma"(%sa, %sb, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!a6f, !b6f, !d6f) -> !d6f
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d6f) -> !d6f
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d6f, !gc6f, index, index) -> ()
  return
}

// 7. f16, two warpgroups over N, K = 128 in a loop of two 64-wide k tiles
//    through two-stage buffers (A without a swizzle; W's tiles stored as
//    [N, K] with a 64-byte swizzle and read as B [K, N] through
//    transpose_shared); the accumulator is carried through scf.for
//    unfinished.
!a5 = !tilus.shared<f16, array<i64: 2, 64, 64>, #tilus.layout<"local(2,1,1).local(1,8,8).local(1,8,8)">>
!w5 = !tilus.shared<f16, array<i64: 2, 128, 64>, #tilus.layout<"local(2,1,1).local(1,1,2).swizzle(local(1,128,4),dim=2,log_step=1).local(1,1,8)">>
!b5 = !tilus.shared<f16, array<i64: 2, 64, 128>, #tilus.layout<"local(2,1,1).local(1,2,1).swizzle(column_local(1,4,128),dim=1,log_step=1).local(1,8,1)">>
!ta5 = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(32,8).local(2,8)">>
!tw5 = !tilus.register<f16, array<i64: 128, 64>, #tilus.layout<"spatial(16,16).local(8,4)">>
!d5 = !tilus.register<f32, array<i64: 64, 128>, #tilus.layout<"column_spatial(1,2).spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>
!ga5 = !tilus.global<f16, array<i64: 64, 128>, #tilus.row_major>
!gb5 = !tilus.global<f16, array<i64: 128, 128>, #tilus.row_major>
!gc5 = !tilus.global<f32, array<i64: 64, 128>, #tilus.row_major>
func.func @loop_f16_2wg(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<f16>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga5
  %gb = "tilus.view_global"(%pw) : (!tilus.ptr<f16>) -> !gb5
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc5
  %sa = "tilus.allocate_shared"() : () -> !a5
  %sw = "tilus.allocate_shared"() : () -> !w5
  %sb = "tilus.transpose_shared"(%sw) : (!w5) -> !b5
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !d5
  %d = scf.for %s = %c0 to %c2 step %c1 iter_args(%acc = %d0) -> (!d5) {
    %k = arith.muli %s, %c64 : index
    %ta = "tilus.load_global"(%ga, %c0, %k) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga5, index, index) -> !ta5
    %tw = "tilus.load_global"(%gb, %c0, %k) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb5, index, index) -> !tw5
    "tilus.store_shared"(%ta, %sa, %s, %c0, %c0) : (!ta5, !a5, index, index, index) -> ()
    "tilus.store_shared"(%tw, %sw, %s, %c0, %c0) : (!tw5, !w5, index, index, index) -> ()
    "tilus.synchronize"() : () -> ()
    "tilus.wgmma_fence"() : () -> ()
    %n = "tilus.wgmma_mma"(%sa, %sb, %acc, %s, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (!a5, !b5, !d5, index, index) -> !d5
    "tilus.wgmma_commit_group"() : () -> ()
    scf.yield %n : !d5
  }
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!d5) -> !d5
  "tilus.store_global"(%r, %gc, %c0, %c0) : (!d5, !gc5, index, index) -> ()
  return
}
