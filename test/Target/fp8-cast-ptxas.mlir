// The FP8 casts' cvt.rn.f16x2.e4m3x2 / .e5m2x2 (FastCast.c, sm_89+) are
// accepted by ptxas on every target that has them: sm_89 needs PTX ISA 8.1
// for them (its target entry asks for +ptx81); sm_80 takes the field path.
// REQUIRES: ptxas
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_89 -o %t.sm_89.ptx
// RUN: ptxas -arch=sm_89 %t.sm_89.ptx -o %t.sm_89.cubin
// RUN: FileCheck %s --check-prefixes=CVT,SM89 < %t.sm_89.ptx
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a -o %t.sm_90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin
// RUN: FileCheck %s --check-prefix=CVT < %t.sm_90a.ptx
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_80 -o %t.sm_80.ptx
// RUN: ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm_80.ptx

// SM89: .version 8.1
// CVT: cvt.rn.f16x2.e4m3x2
// CVT: cvt.rn.f16x2.e5m2x2
// SM80-NOT: cvt.rn.f16x2.e

!g8 = !tilus.global<ui8, array<i64: 256>, #tilus.row_major>
!r8 = !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
!rh = !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
!gh = !tilus.global<f16, array<i64: 256>, #tilus.row_major>

func.func @fp8_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>, %r: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !gh
  %o2 = "tilus.view_global"(%r) : (!tilus.ptr<f16>) -> !gh
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !r8
  %t = "tilus.view"(%b) : (!r8) -> !tilus.register<!tilus.float<4, 3>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<4, 3>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !rh
  "tilus.store_global"(%w, %o, %c0) : (!rh, !gh, index) -> ()
  %t2 = "tilus.view"(%b) : (!r8) -> !tilus.register<!tilus.float<5, 2>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w2 = "tilus.cast"(%t2) : (!tilus.register<!tilus.float<5, 2>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !rh
  "tilus.store_global"(%w2, %o2, %c0) : (!rh, !gh, index) -> ()
  return
}
