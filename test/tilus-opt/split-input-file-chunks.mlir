// --split-input-file with passes: every chunk is parsed, verified and
// lowered on its own; a chunk's failure (in the verifier or in a pass) is
// reported and the next chunks still run; the exit status says one failed.
// RUN: not tilus-opt %s --split-input-file --tilus-plan-shared --tilus-to-gpu 2>&1 | FileCheck %s

// A verifier error in the first chunk.
// CHECK: split-input-file-chunks.mlir:[[@LINE+4]]:8: error: 'tilus.atomic_rmw' op kind 'or' is not one of 'add', 'max', 'min' or 'exchange'
func.func @verify(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "or"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// -----

// A lowering error in the second.
// CHECK: split-input-file-chunks.mlir:[[@LINE+4]]:8: error: 'tilus.atomic_rmw' op cannot be lowered: atomics on global tensors with a layout other than row_major are not lowered yet
func.func @lower(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.layout<"local(4)">>
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "add"} : (!tilus.global<i32, array<i64: 4>, #tilus.layout<"local(4)">>, index, i32) -> i32
  return
}

// -----

// The third is lowered and printed.
// CHECK: gpu.func @fine
// CHECK: llvm.atomicrmw add
func.func @fine(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0, s1] -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "add"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}
