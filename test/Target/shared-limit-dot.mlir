// A SIMT Dot's static scratch counts against the limit too: 104 KiB of
// shared tensors and 128 KiB of scratch exceed sm_90a's 227 KiB.
// RUN: not tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a -o %t.ptx 2>&1 | FileCheck %s

// CHECK: error: the kernel needs 237568 bytes of shared memory (106496 for shared tensors, 131072 for Dot's scratch); sm_90a allows at most 232448 per thread block
!r = !tilus.register<f32, array<i64: 128, 128>, #tilus.layout<"spatial(8,16).local(16,8)">>
func.func @dot(%p: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 128, 128>, #tilus.row_major>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 26624>, #tilus.layout<"local(26624)">>
  %a = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f32, array<i64: 128, 128>, #tilus.row_major>, index, index) -> !r
  %d = "tilus.dot"(%a, %a, %a) : (!r, !r, !r) -> !r
  "tilus.store_global"(%d, %g, %c0, %c0) : (!r, !tilus.global<f32, array<i64: 128, 128>, #tilus.row_major>, index, index) -> ()
  %z = "tilus.load_shared"(%s, %c0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tilus.shared<f32, array<i64: 26624>, #tilus.layout<"local(26624)">>, index) -> !tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(128)">>
  return
}
