// Dot on each path (test/gpu/suite/ compares with a CPU matmul):
//   simt_f32: layouts that are not mma fragments -> the SIMT fallback
//   mma_bf16: bf16 x bf16 -> f32, two warps over M, B replicated in both
//             (reduce), two k steps and two n tiles per warp -> m16n8k16
//   mma_s8:   s8 x s8 -> s32 in the same arrangement -> m16n8k32
// Each kernel reads A [M, K] and B [K, N] (row-major) and writes C = A x B.
func.func @simt_f32(%pa: !tilus.ptr<f32>, %pb: !tilus.ptr<f32>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1, s2] -> (1)>} {
  %c0 = arith.constant 0 : index
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 16, 16>, #tilus.row_major>
  %gb = "tilus.view_global"(%pb) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 16, 16>, #tilus.row_major>
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 16, 16>, #tilus.row_major>
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f32, array<i64: 16, 16>, #tilus.row_major>, index, index) -> !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(4,8).local(4,2)">>
  %b = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f32, array<i64: 16, 16>, #tilus.row_major>, index, index) -> !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"local(2,1).spatial(8,4).local(1,4)">>
  %z = arith.constant 0.0 : f32
  %c = "tilus.allocate_register"(%z) : (f32) -> !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(8,4).local(2,4)">>
  %d = "tilus.dot"(%a, %b, %c) : (!tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(4,8).local(4,2)">>, !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"local(2,1).spatial(8,4).local(1,4)">>, !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(8,4).local(2,4)">>) -> !tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(8,4).local(2,4)">>
  "tilus.store_global"(%d, %gc, %c0, %c0) : (!tilus.register<f32, array<i64: 16, 16>, #tilus.layout<"spatial(8,4).local(2,4)">>, !tilus.global<f32, array<i64: 16, 16>, #tilus.row_major>, index, index) -> ()
  return
}

!abf = !tilus.register<bf16, array<i64: 32, 32>, #tilus.layout<"spatial(2,1).local(1,2).column_local(2,2).spatial(8,4).local(1,2)">>
!bbf = !tilus.register<bf16, array<i64: 32, 16>, #tilus.layout<"reduce(spatial(1,1,2), dims=[2]).local(2,2).local(2,1).column_spatial(4,8).local(2,1)">>
!cf = !tilus.register<f32, array<i64: 32, 16>, #tilus.layout<"spatial(2,1).local(1,2).local(2,1).spatial(8,4).local(1,2)">>
func.func @mma_bf16(%pa: !tilus.ptr<bf16>, %pb: !tilus.ptr<bf16>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 64 : i64, tilus.grid = affine_map<()[s0, s1, s2] -> (1)>} {
  %c0 = arith.constant 0 : index
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 32, 32>, #tilus.row_major>
  %gb = "tilus.view_global"(%pb) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 32, 16>, #tilus.row_major>
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 32, 16>, #tilus.row_major>
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<bf16, array<i64: 32, 32>, #tilus.row_major>, index, index) -> !abf
  %b = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<bf16, array<i64: 32, 16>, #tilus.row_major>, index, index) -> !bbf
  %z = arith.constant 0.0 : f32
  %c = "tilus.allocate_register"(%z) : (f32) -> !cf
  %d = "tilus.dot"(%a, %b, %c) : (!abf, !bbf, !cf) -> !cf
  "tilus.store_global"(%d, %gc, %c0, %c0) : (!cf, !tilus.global<f32, array<i64: 32, 16>, #tilus.row_major>, index, index) -> ()
  return
}

!as8 = !tilus.register<i8, array<i64: 32, 64>, #tilus.layout<"spatial(2,1).local(1,2).column_local(2,2).spatial(8,4).local(1,4)">>
!bs8 = !tilus.register<i8, array<i64: 64, 16>, #tilus.layout<"reduce(spatial(1,1,2), dims=[2]).local(2,2).local(2,1).column_spatial(4,8).local(4,1)">>
!ci = !tilus.register<i32, array<i64: 32, 16>, #tilus.layout<"spatial(2,1).local(1,2).local(2,1).spatial(8,4).local(1,2)">>
func.func @mma_s8(%pa: !tilus.ptr<i8>, %pb: !tilus.ptr<i8>, %pc: !tilus.ptr<i32>)
    attributes {tilus.kernel, tilus.block_size = 64 : i64, tilus.grid = affine_map<()[s0, s1, s2] -> (1)>} {
  %c0 = arith.constant 0 : index
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<i8>) -> !tilus.global<i8, array<i64: 32, 64>, #tilus.row_major>
  %gb = "tilus.view_global"(%pb) : (!tilus.ptr<i8>) -> !tilus.global<i8, array<i64: 64, 16>, #tilus.row_major>
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 32, 16>, #tilus.row_major>
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<i8, array<i64: 32, 64>, #tilus.row_major>, index, index) -> !as8
  %b = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<i8, array<i64: 64, 16>, #tilus.row_major>, index, index) -> !bs8
  %z = arith.constant 0 : i32
  %c = "tilus.allocate_register"(%z) : (i32) -> !ci
  %d = "tilus.dot"(%a, %b, %c) : (!as8, !bs8, !ci) -> !ci
  "tilus.store_global"(%d, %gc, %c0, %c0) : (!ci, !tilus.global<i32, array<i64: 32, 16>, #tilus.row_major>, index, index) -> ()
  return
}
