// Thread groups (test/gpu/suite/DataMovementTests.c): a block of 256 threads
// in two groups of 128 that run at the same time, each with its own layouts
// and its own barrier.
//   group 0 (threads 0..127): row sums of x[0:4, :] in a layout whose rows
//     span the group's four warps (a Reduce through shared scratch and the
//     group's barrier) into y0 [4];
//   group 1 (threads 128..255): 2 x[4:8, :] stored to shared memory by one
//     layout, the group's Synchronize, read back by another (each thread
//     reads what threads of other warps wrote) into y1 [4, 128].
!xa = !tilus.register<f32, array<i64: 4, 128>, #tilus.layout<"column_spatial(4,32).local(1,4)">>
!sa = !tilus.register<f32, array<i64: 4>, #tilus.layout<"reduce(column_spatial(4,32),dims=[1]).local(1)">>
!xb = !tilus.register<f32, array<i64: 4, 128>, #tilus.layout<"spatial(4,32).local(1,4)">>
!sh = !tilus.shared<f32, array<i64: 4, 128>, #tilus.layout<"local(4,128)">>
!g = !tilus.global<f32, array<i64: 8, 128>, #tilus.row_major>
!g4 = !tilus.global<f32, array<i64: 4>, #tilus.row_major>
!g4x = !tilus.global<f32, array<i64: 4, 128>, #tilus.row_major>
func.func @thread_groups(%px: !tilus.ptr<f32>, %py0: !tilus.ptr<f32>, %py1: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %gx = "tilus.view_global"(%px) : (!tilus.ptr<f32>) -> !g
  %gy0 = "tilus.view_global"(%py0) : (!tilus.ptr<f32>) -> !g4
  %gy1 = "tilus.view_global"(%py1) : (!tilus.ptr<f32>) -> !g4x
  %sh = "tilus.allocate_shared"() : () -> !sh
  %in0 = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in0 {
    %a = "tilus.load_global"(%gx, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !xa
    %s = "tilus.reduce"(%a) {dims = array<i64: 1>, kind = "sum"} : (!xa) -> !sa
    "tilus.store_global"(%s, %gy0, %c0) : (!sa, !g4, index) -> ()
  }
  %in1 = "tilus.in_thread_group"() {first = 128 : i64, count = 128 : i64} : () -> i1
  scf.if %in1 {
    %b = "tilus.load_global"(%gx, %c4, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !xb
    %b2 = "tilus.mul"(%b, %two) : (!xb, f32) -> !xb
    "tilus.store_shared"(%b2, %sh, %c0, %c0) : (!xb, !sh, index, index) -> ()
    "tilus.synchronize"() : () -> ()
    %t = "tilus.load_shared"(%sh, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!sh, index, index) -> !xa
    "tilus.store_global"(%t, %gy1, %c0, %c0) : (!xa, !g4x, index, index) -> ()
  }
  return
}
