// A signless scalar operand for a uiN/siN tensor (MLIR has no unsigned or
// signed constants): the bits are the scalar's, the tensor's type says how
// they read, so max is unsigned on ui8 and signed on si8.
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s

!g8 = !tilus.global<ui8, array<i64: 256>, #tilus.row_major>
!gs = !tilus.global<si8, array<i64: 256>, #tilus.row_major>
!r8 = !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
!rs = !tilus.register<si8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>

// CHECK-LABEL: .entry unsigned_mask(
// CHECK: and.b16 {{.*}}, 15;
// CHECK: max.u16 {{.*}}, 7;
func.func @unsigned_mask(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %m = arith.constant 15 : i8
  %s = arith.constant 7 : i8
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !g8
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !r8
  %a = "tilus.and"(%b, %m) : (!r8, i8) -> !r8
  %d = "tilus.max"(%a, %s) : (!r8, i8) -> !r8
  "tilus.store_global"(%d, %o, %c0) : (!r8, !g8, index) -> ()
  return
}

// CHECK-LABEL: .entry signed_max(
// CHECK: max.s16 {{.*}}, -3;
func.func @signed_max(%p: !tilus.ptr<si8>, %q: !tilus.ptr<si8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %s = arith.constant -3 : i8
  %g = "tilus.view_global"(%p) : (!tilus.ptr<si8>) -> !gs
  %o = "tilus.view_global"(%q) : (!tilus.ptr<si8>) -> !gs
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gs, index) -> !rs
  %d = "tilus.max"(%b, %s) : (!rs, i8) -> !rs
  "tilus.store_global"(%d, %o, %c0) : (!rs, !gs, index) -> ()
  return
}
