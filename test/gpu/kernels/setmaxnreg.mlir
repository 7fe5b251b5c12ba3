// targets: sm_90a
// set_max_registers (test/gpu/suite/WgmmaTests.c): a block of 384 threads in
// two thread groups that move registers between them, as a warp-specialized
// producer and its consumers do.
//   group 0 (threads 0..127) gives registers back down to 40 per thread and
//     stores 2 x[0:128, 0:4] + 1 to y0 [128, 4];
//   group 1 (threads 128..383) takes 232 per thread and holds a whole row of
//     x [256, 128] per thread (128 registers of data), storing 3 x + 1 to
//     y1 [256, 128].
!r0 = !tilus.register<f32, array<i64: 128, 4>, #tilus.layout<"spatial(128,1).local(1,4)">>
!r1 = !tilus.register<f32, array<i64: 256, 128>, #tilus.layout<"spatial(256,1).local(1,128)">>
!g = !tilus.global<f32, array<i64: 256, 128>, #tilus.row_major>
!g0 = !tilus.global<f32, array<i64: 128, 4>, #tilus.row_major>
func.func @setmaxnreg(%px: !tilus.ptr<f32>, %py0: !tilus.ptr<f32>, %py1: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 384 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %gx = "tilus.view_global"(%px) : (!tilus.ptr<f32>) -> !g
  %gy0 = "tilus.view_global"(%py0) : (!tilus.ptr<f32>) -> !g0
  %gy1 = "tilus.view_global"(%py1) : (!tilus.ptr<f32>) -> !g
  %producer = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %producer {
    "tilus.set_max_registers"() {count = 40 : i64, action = "dec"} : () -> ()
    %a = "tilus.load_global"(%gx, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !r0
    %b = "tilus.mul"(%a, %two) : (!r0, f32) -> !r0
    %c = "tilus.add"(%b, %one) : (!r0, f32) -> !r0
    "tilus.store_global"(%c, %gy0, %c0, %c0) : (!r0, !g0, index, index) -> ()
  }
  %consumers = "tilus.in_thread_group"() {first = 128 : i64, count = 256 : i64} : () -> i1
  scf.if %consumers {
    "tilus.set_max_registers"() {count = 232 : i64, action = "inc"} : () -> ()
    %a = "tilus.load_global"(%gx, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !r1
    %b = "tilus.mul"(%a, %three) : (!r1, f32) -> !r1
    %c = "tilus.add"(%b, %one) : (!r1, f32) -> !r1
    "tilus.store_global"(%c, %gy1, %c0, %c0) : (!r1, !g, index, index) -> ()
  }
  return
}
