// What the lowering cannot do is a located error, never a crash or a Tilus
// op left behind.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-to-gpu

// Shared tensors get their offsets from tilus-plan-shared.
func.func @unplanned() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_shared' op cannot be lowered: the shared tensor has no offset; run --tilus-plan-shared first (--lower-to-nvvm does)}}
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

// cp.async moves whole bytes; sub-byte tensors are copied as bytes.
func.func @subbyte_copy(%p: !tilus.ptr<ui4>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 128 : i64} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui4>) -> !tilus.global<ui4, array<i64: 256>, #tilus.row_major>
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 0 : i64} : () -> !tilus.shared<ui4, array<i64: 256>, #tilus.layout<"local(256)">>
  // expected-error@+1 {{'tilus.copy_async' op cannot be lowered: copy_async of sub-byte element types is not lowered; view the tensors as bytes (ui8/ui32)}}
  "tilus.copy_async"(%s, %g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, shape = array<i64: 256>} : (!tilus.shared<ui4, array<i64: 256>, #tilus.layout<"local(256)">>, !tilus.global<ui4, array<i64: 256>, #tilus.row_major>, index, index) -> ()
  return
}

// -----

// A swizzled register layout is reported once, at the first op that cannot be
// lowered; lowering stops there (the Print below, equally unsupported, is not
// reported).
func.func @swizzled_register(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 1 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 8, 8>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op cannot be lowered: register layouts with a swizzle are not supported}}
  %r = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f16, array<i64: 8, 8>, #tilus.row_major>, index, index) -> !tilus.register<f16, array<i64: 8, 8>, #tilus.layout<"swizzle(local(8, 8), dim=1)">>
  "tilus.print"(%r) : (!tilus.register<f16, array<i64: 8, 8>, #tilus.layout<"swizzle(local(8, 8), dim=1)">>) -> ()
  return
}

// -----

// Global tensors are addressed row-major; another layout would be misread.
func.func @column_major_global(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.view_global' op cannot be lowered: global tensors are addressed row-major; a layout other than #tilus.row_major is not lowered (view the memory with the transposed shape instead)}}
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 4, 8>, #tilus.layout<"column_local(4,8)">>
  return
}
