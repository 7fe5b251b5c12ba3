// The innermost offset of a TMA box must be a multiple of 16 bytes (the H100
// traps on another start); the lowering refuses one it cannot prove so (here
// a kernel argument) at the op.
// RUN: not tilus-opt %s --lower-to-nvvm --target=sm_90a 2>&1 | FileCheck %s

// CHECK: error: 'tilus.tma_load' op cannot be lowered: TMA starts a box on a 16-byte boundary of the global tensor's rows: the innermost offset must be a multiple of 8 elements, which cannot be proven of this one
func.func @tma_unaligned(%p: !tilus.ptr<f16>, %m: i32, %col: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %M = arith.index_cast %m : i32 to index
  %C = arith.index_cast %col : i32 to index
  %g = "tilus.view_global"(%p, %M) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %C, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}
