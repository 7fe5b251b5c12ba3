// The artifact emitter checks each target's shared memory per thread block
// (sm_80: 163 KiB, sm_89: 99 KiB, sm_90/sm_90a: 227 KiB): the planned shared
// tensors plus the static scratch of SIMT Dots.
// RUN: tilus-opt %s --split-input-file --lower-to-nvvm --emit-ptx --target=sm_90a -o %t.ptx
// RUN: not tilus-opt %s --split-input-file --lower-to-nvvm --emit-ptx --target=sm_89 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=SM89
// RUN: tilus-opt %s --split-input-file --lower-to-nvvm --emit-ptx --target=sm_80 -o %t.ptx

// SM89: error: the kernel needs 122880 bytes of shared memory (122880 for shared tensors, 0 for Dot's scratch); sm_89 allows at most 101376 per thread block
func.func @big(%p: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 128>, #tilus.row_major>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 30720>, #tilus.layout<"local(30720)">>
  %r = "tilus.load_shared"(%s, %c0) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tilus.shared<f32, array<i64: 30720>, #tilus.layout<"local(30720)">>, index) -> !tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(128)">>
  "tilus.store_global"(%r, %g, %c0) : (!tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(128)">>, !tilus.global<f32, array<i64: 128>, #tilus.row_major>, index) -> ()
  return
}
