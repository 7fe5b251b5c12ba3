// Dot with an f16 accumulator: f16 x f16 + f16 -> f16 on mma.sync m16n8k16
// (f16.f16.f16.f16), in the arrangement of dot_kernels.mlir's mma_bf16: two
// warps over M, B replicated in both (reduce), two k steps and two n tiles
// per warp. The kernel reads A [32, 32], B [32, 16] and C [32, 16]
// (row-major f16) and writes D = A x B + C (test/gpu/suite/AtomicTests.c
// compares with a CPU reference; small integers keep every f16 sum exact).
!ah = !tilus.register<f16, array<i64: 32, 32>, #tilus.layout<"spatial(2,1).local(1,2).column_local(2,2).spatial(8,4).local(1,2)">>
!bh = !tilus.register<f16, array<i64: 32, 16>, #tilus.layout<"reduce(spatial(1,1,2), dims=[2]).local(2,2).local(2,1).column_spatial(4,8).local(2,1)">>
!ch = !tilus.register<f16, array<i64: 32, 16>, #tilus.layout<"spatial(2,1).local(1,2).local(2,1).spatial(8,4).local(1,2)">>
func.func @mma_f16_acc(%pa: !tilus.ptr<f16>, %pb: !tilus.ptr<f16>, %pc: !tilus.ptr<f16>, %pd: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 64 : i64, tilus.grid = affine_map<()[s0, s1, s2, s3] -> (1)>} {
  %c0 = arith.constant 0 : index
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 32, 32>, #tilus.row_major>
  %gb = "tilus.view_global"(%pb) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 32, 16>, #tilus.row_major>
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 32, 16>, #tilus.row_major>
  %gd = "tilus.view_global"(%pd) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 32, 16>, #tilus.row_major>
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f16, array<i64: 32, 32>, #tilus.row_major>, index, index) -> !ah
  %b = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f16, array<i64: 32, 16>, #tilus.row_major>, index, index) -> !bh
  %c = "tilus.load_global"(%gc, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f16, array<i64: 32, 16>, #tilus.row_major>, index, index) -> !ch
  %d = "tilus.dot"(%a, %b, %c) : (!ah, !bh, !ch) -> !ch
  "tilus.store_global"(%d, %gd, %c0, %c0) : (!ch, !tilus.global<f16, array<i64: 32, 16>, #tilus.row_major>, index, index) -> ()
  return
}
