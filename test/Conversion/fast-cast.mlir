// Cast from low-precision types to f16, bf16, f32 and i8 takes the fast paths of
// lib/Conversion/FastCast.c: fields cut out of 32-bit words (never vectors
// of odd-width integers), magic-number conversion for integers, field
// placement and one power-of-two multiplication for floats, and the
// hardware's FP8 pair conversion where the target has it.
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tilus-opt %s --tilus-to-gpu --target=sm_80 | FileCheck %s --check-prefix=SM80

!g8 = !tilus.global<ui8, array<i64: 256>, #tilus.row_major>

// uint4 -> f16: the nibbles 16 bits apart pair up (slots j and j + 4 of a
// word): one LOP3 (a & b) ^ c per pair masks them (983055 = 0x000F000F,
// 15728880 = 0x00F000F0) and sets an exponent that makes the field's lowest
// bit worth 1 (1677747200 = 0x64006400, 1024.0, for the field at bit 0;
// 1409307648 = 0x54005400, 64.0, for the one at bit 4), the upper nibbles
// after one shift right by 8, then one f16x2 addition of -1024 or -64; the
// shuffle puts each half in its slot. No vector of i4 and no conversion.
// CHECK-LABEL: gpu.func @u4_f16
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<[-1.024000e+03, -1.024000e+03, -6.400000e+01, -6.400000e+01, -1.024000e+03, -1.024000e+03, -6.400000e+01, -6.400000e+01]> : vector<8xf16>
// CHECK-NOT: xi4>
// CHECK: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[WORD:.*]], %c983055_i32, %c1677747200_i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[WORD]], %c15728880_i32, %c1409307648_i32
// CHECK-NEXT: %[[UP:.*]] = arith.shrui %[[WORD]], %c8_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 {{.*}} %[[UP]], %c983055_i32, %c1677747200_i32
// CHECK: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[W]], %[[BIAS]] {tilus.cast_bias} : vector<8xf16>
// CHECK-NEXT: vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6, 1, 3, 5, 7] : vector<8xf16>, vector<8xf16>
// CHECK-NOT: itofp
// PTX-LABEL: .entry u4_f16(
// PTX-NOT: cvt.rn
// PTX-NOT: prmt.b32
// PTX: lop3.b32 {{.*}}, 0x6a;
// PTX: shr.u32
// PTX: add.rn.f16x2
func.func @u4_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// uint3 -> f16 (32 elements per lane, 96 bits): neighbours pair up. Elements 0
// and 1 lie in byte 0 at bits 0 and 3: one PRMT copies byte 0 into both halves
// (selector 0), one LOP3 masks them (3670023 = 0x00380007) and sets the
// exponents that make bit 0 of the low half and bit 3 of the high half worth 1
// (1476420608 = 0x58006400: 1024.0 and 128.0). Elements 2 and 3 at bits 6 and
// 9 take bytes 0-1 and 1 (4368 = 0x1110), mask 917952 = 0x000E01C0 and
// exponents 0x60004C00 = 1610632192 (512.0 above, 16.0 below). One f16x2
// subtraction per pair of what each half reads above the value. No shifts.
// CHECK-LABEL: gpu.func @u3_f16
// CHECK-DAG: arith.constant dense<[1.024000e+03, 1.280000e+02, 1.600000e+01, 5.120000e+02, 6.400000e+01, 8.000000e+00, 2.560000e+02, 3.200000e+01, 1.024000e+03, {{.*}}]> : vector<32xf16>
// CHECK-NOT: xi3>
// CHECK: %[[P0:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[W0:.*]], %[[W0]], %c0_i32)
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[P0]], %c3670023_i32, %c1476420608_i32
// CHECK: %[[P1:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[W1:.*]], %[[W1]], %c4368_i32)
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[P1]], %c917952_i32, %c1610632192_i32
// CHECK-NOT: arith.shrui
// CHECK: arith.subf %{{.*}}, %{{.*}} : vector<32xf16>
// PTX-LABEL: .entry u3_f16(
// PTX-NOT: shf.
// PTX-NOT: cvt.rn
// PTX: prmt.b32
// PTX: lop3.b32 {{.*}}, 0x6a;
// PTX: add.rn.f16x2
func.func @u3_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 384>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 1024>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 384>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(32).local(12)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(32).local(12)">>) -> !tilus.register<ui3, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui3, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>) -> !tilus.register<f16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>, !tilus.global<f16, array<i64: 1024>, #tilus.row_major>, index) -> ()
  return
}

// int5 -> f16: elements 0 and 1 (bits 0 and 5; the second runs into byte 1,
// which 4096 = 0x1000 puts in the high half's upper byte) take one PRMT; the
// LOP3 also flips each sign bit (1375757328 = 0x52006410: 1024 + 16 below,
// 32 + 16 above). Element 3 starts at bit 7 of byte 1 (7 + 5 > 10 would reach
// the exponent), so elements 2 and 3 take two windows and two LOP3 (2031616 =
// 0x001F0000, 31; 1678795792 = 0x64106410) and subtract 1024 + 16.
// CHECK-LABEL: gpu.func @i5_f16
// CHECK-DAG: arith.constant dense<[1.040000e+03, 4.800000e+01, 1.040000e+03, 1.040000e+03, {{.*}}]> : vector<32xf16>
// CHECK: %[[P0:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[W0:.*]], %[[W0]], %c4096_i32)
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[P0]], %c65011743_i32, %c1375757328_i32
// CHECK: %[[H:.*]] = llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %{{.*}}, %c2031616_i32, %c1678795792_i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %{{.*}}, %c31_i32, %[[H]]
func.func @i5_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 640>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 1024>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 640>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 640>, #tilus.layout<"spatial(32).local(20)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 640>, #tilus.layout<"spatial(32).local(20)">>) -> !tilus.register<si5, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  %w = "tilus.cast"(%t) : (!tilus.register<si5, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>) -> !tilus.register<f16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>, !tilus.global<f16, array<i64: 1024>, #tilus.row_major>, index) -> ()
  return
}

// e3m2 -> f16, 32 elements per lane (six words): elements j and j + 4 of each
// run of eight lie 24 bits apart, at the same bit of their bytes. One PRMT
// brings both 16 bits apart (13056 = 0x3300: bytes 0 and 3 for elements 0 and 4;
// 17168 = 0x4310: bytes 0-1 and 3-4, across two words, for elements 1 and 5,
// at bit 6), then one shift puts both 5-bit magnitudes at bits 8-12 and 24-28
// (mask 520101632 = 0x1F001F00), one both signs at 15 and 31, and a LOP3 joins
// them.
// CHECK-LABEL: gpu.func @e3m2_f16
// CHECK: %[[P0:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[W0:.*]], %[[W0]], %c13056_i32)
// CHECK-NEXT: %[[X0:.*]] = arith.shli %[[P0]], %c8_i32 : i32
// CHECK-NEXT: %[[Y0:.*]] = arith.shli %[[P0]], %c10_i32 : i32
// CHECK-NEXT: %[[S0:.*]] = arith.andi %[[Y0]], %c-2147450880_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0xea;", "=r,r,r,r" %[[X0]], %c520101632_i32, %[[S0]]
// CHECK: %[[P1:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.*}}, %{{.*}}, %c17168_i32)
// CHECK-NEXT: %[[X1:.*]] = arith.shli %[[P1]], %c2_i32 : i32
// CHECK-NEXT: %[[Y1:.*]] = arith.shli %[[P1]], %c4_i32 : i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} {tilus.cast_scale} : vector<32xf16>
// CHECK-NEXT: vector.shuffle
// PTX-LABEL: .entry e3m2_f16(
// PTX-NOT: shf.
// PTX: prmt.b32
func.func @e3m2_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 768>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 1024>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 768>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 768>, #tilus.layout<"spatial(32).local(24)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 768>, #tilus.layout<"spatial(32).local(24)">>) -> !tilus.register<!tilus.float<3, 2>, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<3, 2>, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>) -> !tilus.register<f16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>, !tilus.global<f16, array<i64: 1024>, #tilus.row_major>, index) -> ()
  return
}

// int4 -> f16: the LOP3 also flips each sign bit (1678271496 = 0x64086408,
// 1417696384 = 0x54805480), and 1024 + 8 (64 + 8 for the nibbles at bit 4)
// is subtracted.
// CHECK-LABEL: gpu.func @i4_f16
// CHECK-DAG: arith.constant dense<[-1.032000e+03, -1.032000e+03, -7.200000e+01, -7.200000e+01, -1.032000e+03, -1.032000e+03, -7.200000e+01, -7.200000e+01]> : vector<8xf16>
// CHECK: llvm.inline_asm "lop3{{.*}}", "=r,r,r,r" %{{.*}}, %c983055_i32, %c1678271496_i32
// CHECK: llvm.inline_asm "lop3{{.*}}", "=r,r,r,r" %{{.*}}, %c15728880_i32, %c1417696384_i32
// CHECK: arith.addf
// CHECK-NOT: itofp
// PTX-LABEL: .entry i4_f16(
// PTX-NOT: cvt.rn
// PTX: add.rn.f16x2
func.func @i4_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<si4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<si4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// uint8 -> f16: two bytes under the magic byte 0x64 by one permute each
// (0x5140: bytes 0, 4, 1, 5 of {w, 0x64646464}; 0x7362 for bytes 2 and 3),
// then one f16x2 subtraction of 1024.
// CHECK-LABEL: gpu.func @u8_f16
// CHECK: %[[MAGIC:.*]] = arith.constant dense<1.024000e+03> : vector<4xf16>
// CHECK: llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.*}}, %c1684300900_i32, %c20800_i32)
// CHECK: llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.*}}, %c1684300900_i32, %c29538_i32)
// CHECK: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
// CHECK-NEXT: arith.subf %[[W]], %[[MAGIC]] : vector<4xf16>
// PTX-LABEL: .entry u8_f16(
// PTX-NOT: cvt.rn
// PTX: prmt.b32
// PTX: add.rn.f16x2
func.func @u8_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 128>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %w = "tilus.cast"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<f16, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>, !tilus.global<f16, array<i64: 128>, #tilus.row_major>, index) -> ()
  return
}

// uint4 -> bf16: the same pairs, but bf16 has 7 mantissa bits, so every
// nibble above the first is shifted down to bit 0 (by 4, 8 and 12) and
// masked under the exponent that makes bit 0 worth 1 (1124090624 =
// 0x43004300, 128.0); then one bf16x2 addition of -128, tagged for the Dot's
// fold as f16's. No f32 on the way.
// CHECK-LABEL: gpu.func @u4_bf16
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<-1.280000e+02> : vector<8xbf16>
// CHECK: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[WORD:.*]], %c983055_i32, %c1124090624_i32
// CHECK-NEXT: %[[S4:.*]] = arith.shrui %[[WORD]], %c4_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 {{.*}} %[[S4]], %c983055_i32, %c1124090624_i32
// CHECK-NEXT: %[[S8:.*]] = arith.shrui %[[WORD]], %c8_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 {{.*}} %[[S8]], %c983055_i32, %c1124090624_i32
// CHECK-NEXT: %[[S12:.*]] = arith.shrui %[[WORD]], %c12_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 {{.*}} %[[S12]], %c983055_i32, %c1124090624_i32
// CHECK: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xbf16>
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[W]], %[[BIAS]] {tilus.cast_bias} : vector<8xbf16>
// CHECK-NEXT: vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6, 1, 3, 5, 7] : vector<8xbf16>, vector<8xbf16>
// CHECK-NOT: vector<8xf32>
// PTX-LABEL: .entry u4_bf16(
// PTX-NOT: cvt.rn
// PTX: lop3.b32 {{.*}}, 0x6a;
// PTX: add.rn.bf16x2
func.func @u4_bf16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<bf16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<bf16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// int6 -> bf16: pairs as for f16, placed under the bf16 exponent
// (1124090624 = 0x43004300) with the sign bits flipped (0x00200020 =
// 2097184), then one subtraction of 128 + 32 in bf16x2 (an addition of its
// negation in the PTX).
// CHECK-LABEL: gpu.func @i6_bf16
// CHECK: %[[MAGIC:.*]] = arith.constant dense<1.600000e+02> : vector<8xbf16>
// CHECK-NOT: xi6>
// CHECK: arith.xori %{{.*}}, %c2097184_i32 : i32
// CHECK-NEXT: arith.ori %{{.*}}, %c1124090624_i32 : i32
// CHECK: arith.subf %{{.*}}, %[[MAGIC]] : vector<8xbf16>
// CHECK-NOT: vector<8xf32>
// PTX-LABEL: .entry i6_bf16(
// PTX-NOT: cvt.rn
// PTX: add.rn.bf16x2
func.func @i6_bf16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<bf16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 192>, #tilus.layout<"spatial(32).local(6)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 192>, #tilus.layout<"spatial(32).local(6)">>) -> !tilus.register<si6, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<si6, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<bf16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// int6 (fields straddle bytes): flip 0x00200020, subtract 1024 + 32.
// CHECK-LABEL: gpu.func @i6_f16
// CHECK: %[[MAGIC:.*]] = arith.constant dense<1.056000e+03> : vector<8xf16>
// CHECK-NOT: xi6>
// CHECK: arith.xori %{{.*}}, %c2097184_i32 : i32
// CHECK: arith.subf %{{.*}}, %[[MAGIC]] : vector<8xf16>
// CHECK-NOT: itofp
// PTX-LABEL: .entry i6_f16(
// PTX-NOT: cvt.rn
// PTX: add.rn.f16x2
func.func @i6_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 192>, #tilus.layout<"spatial(32).local(6)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 192>, #tilus.layout<"spatial(32).local(6)">>) -> !tilus.register<si6, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<si6, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// uint8 -> bf16: f32 magic 0x4B000000 (2^23), then the upper halves.
// CHECK-LABEL: gpu.func @u8_bf16
// CHECK: arith.ori %{{.*}}, %c1258291200_i32 : i32
// CHECK: arith.subf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK-NOT: itofp
// PTX-LABEL: .entry u8_bf16(
// PTX-NOT: cvt.rn
// PTX: prmt.b32 {{.*}}0x7632U
func.func @u8_bf16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<bf16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<bf16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// uint2 -> f16: sixteen per word, pairs j and j + 8: fields at bits 0..8
// directly, with the exponent that makes the field's lowest bit worth 1
// (1543527424 = 0x5C005C00, 256.0, for bit 2), those at bits 10..14 after
// the shift by 8; then -2^(10-o).
// CHECK-LABEL: gpu.func @u2_f16
// CHECK-DAG: arith.constant dense<[-1.024000e+03, -1.024000e+03, -2.560000e+02, -2.560000e+02, -6.400000e+01, -6.400000e+01, -1.600000e+01, -1.600000e+01, -4.000000e+00, -4.000000e+00, -2.560000e+02, -2.560000e+02, -6.400000e+01, -6.400000e+01, -1.600000e+01, -1.600000e+01]> : vector<16xf16>
// CHECK: llvm.inline_asm "lop3{{.*}}" %{{.*}}, %c196611_i32, %c1677747200_i32
// CHECK: llvm.inline_asm "lop3{{.*}}" %{{.*}}, %c786444_i32, %c1543527424_i32
// CHECK: vector.shuffle %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15]
// PTX-LABEL: .entry u2_f16(
// PTX-NOT: cvt.rn
// PTX: add.rn.f16x2
func.func @u2_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 512>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<ui2, array<i64: 512>, #tilus.layout<"spatial(32).local(16)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui2, array<i64: 512>, #tilus.layout<"spatial(32).local(16)">>) -> !tilus.register<f16, array<i64: 512>, #tilus.layout<"spatial(32).local(16)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 512>, #tilus.layout<"spatial(32).local(16)">>, !tilus.global<f16, array<i64: 512>, #tilus.row_major>, index) -> ()
  return
}

// uint2 -> f32: the f32 magic number.
// CHECK-LABEL: gpu.func @u2_f32
// CHECK: arith.ori %{{.*}}, %c1258291200_i32 : i32
// CHECK: arith.subf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: itofp
// PTX-LABEL: .entry u2_f32(
// PTX-NOT: cvt.rn
func.func @u2_f32(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>) -> !tilus.register<ui2, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui2, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f32, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// e2m1 -> f16, 8 elements per lane (one word): elements j and j + 4 (16 bits
// apart) pair up. For j = 0 one shift left by 9 puts both 3-bit magnitudes at
// bits 9-11 and 25-27 (mask 234884608 = 0x0E000E00), one by 12 both signs at
// 15 and 31 (0x80008000), and one LOP3 (a & b) | c (0xea) joins them; j = 3
// needs no shift for its signs. The multiplication by 2^14 (bias 15 - 1) is
// tagged for the Dot; the shuffle puts each half in its slot.
// CHECK-LABEL: gpu.func @e2m1_f16
// CHECK: %[[SCALE:.*]] = arith.constant dense<1.638400e+04> : vector<8xf16>
// CHECK: %[[X:.*]] = arith.shli %[[WORD:.*]], %c9_i32 : i32
// CHECK-NEXT: %[[Y:.*]] = arith.shli %[[WORD]], %c12_i32 : i32
// CHECK-NEXT: %[[S:.*]] = arith.andi %[[Y]], %c-2147450880_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0xea;", "=r,r,r,r" %[[X]], %c234884608_i32, %[[S]]
// CHECK: %[[X3:.*]] = arith.shrui %[[WORD3:.*]], %c3_i32 : i32
// CHECK-NEXT: %[[S3:.*]] = arith.andi %[[WORD3]], %c-2147450880_i32 : i32
// CHECK-NEXT: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0xea;", "=r,r,r,r" %[[X3]], %c234884608_i32, %[[S3]]
// CHECK: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[W]], %[[SCALE]] {tilus.cast_scale} : vector<8xf16>
// CHECK-NEXT: vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6, 1, 3, 5, 7] : vector<8xf16>, vector<8xf16>
// PTX-LABEL: .entry e2m1_f16(
// PTX-NOT: cvt.rn
// PTX: mul.rn.f16x2
func.func @e2m1_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<!tilus.float<2, 1>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<2, 1>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// float8_e4m3 (FN) -> f16: where the target converts FP8 pairs (sm_89+), one
// cvt.rn.f16x2.e4m3x2 per 16-bit half of each word, exact, NaN included, and
// nothing else. Before (sm_80): S.1111.111 selected as NaN, times 2^(15 - 7).
// CHECK-LABEL: gpu.func @e4m3_f16
// CHECK-NOT: arith.select
// CHECK: llvm.inline_asm "{ .reg .b16 l, h; mov.b32 {l, h}, $1; cvt.rn.f16x2.e4m3x2 $0, l; }", "=r,r" %[[WORD:.*]] : (i32) -> i32
// CHECK-NEXT: llvm.inline_asm "{ .reg .b16 l, h; mov.b32 {l, h}, $1; cvt.rn.f16x2.e4m3x2 $0, h; }", "=r,r" %[[WORD]] : (i32) -> i32
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.select
// CHECK: gpu.return
// PTX-LABEL: .entry e4m3_f16(
// PTX-COUNT-4: cvt.rn.f16x2.e4m3x2
// PTX-NOT: mul.rn
// SM80-LABEL: gpu.func @e4m3_f16
// SM80: %[[SCALE:.*]] = arith.constant dense<2.560000e+02> : vector<8xf16>
// SM80: arith.cmpi eq, %{{.*}}, %c127_i32 : i32
// SM80: arith.select
// SM80: arith.mulf %{{.*}}, %[[SCALE]] {tilus.cast_scale} : vector<8xf16>
func.func @e4m3_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<!tilus.float<4, 3>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<4, 3>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// float8_e5m2 -> f16: one cvt.rn.f16x2.e5m2x2 per pair on sm_89+; before,
// the same exponent, so only the placement.
// CHECK-LABEL: gpu.func @e5m2_f16
// CHECK: llvm.inline_asm "{ .reg .b16 l, h; mov.b32 {l, h}, $1; cvt.rn.f16x2.e5m2x2 $0, l; }"
// CHECK-NOT: arith.mulf
// PTX-LABEL: .entry e5m2_f16(
// PTX-COUNT-4: cvt.rn.f16x2.e5m2x2
// PTX-NOT: mul.rn
// SM80-LABEL: gpu.func @e5m2_f16
// SM80-NOT: arith.mulf
// SM80: llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
// SM80-NOT: arith.mulf
// SM80: gpu.return
func.func @e5m2_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<!tilus.float<5, 2>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<5, 2>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// float8_e6m1 does not fit f16: exact in f32 (exponent all ones selected
// as inf/NaN, times 2^(127 - 31)), then one rounding truncf.
// CHECK-LABEL: gpu.func @e6m1_f16
// CHECK: arith.cmpi eq, %{{.*}}, %c126_i32 : i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NEXT: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// PTX-LABEL: .entry e6m1_f16(
// PTX: cvt.rn.f16x2.f32
func.func @e6m1_f16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<!tilus.float<6, 1>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<6, 1>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<f16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// float6_e3m2 -> bf16: the fields placed in bf16 (its 8 exponent bits hold
// every format's), then one bf16x2 multiplication by 2^(127 - 3) =
// 2.126760e+37; no f32 on the way.
// CHECK-LABEL: gpu.func @e3m2_bf16
// CHECK: %[[SCALE:.*]] = arith.constant dense<2.126760e+37> : vector<8xbf16>
// CHECK-NOT: vector<8xf32>
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : vector<8xbf16>
// CHECK-NOT: vector<8xf32>
// PTX-LABEL: .entry e3m2_bf16(
// PTX-NOT: cvt.rn
// PTX: mul.rn.bf16x2
func.func @e3m2_bf16(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<bf16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 192>, #tilus.layout<"spatial(32).local(6)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 192>, #tilus.layout<"spatial(32).local(6)">>) -> !tilus.register<!tilus.float<3, 2>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<!tilus.float<3, 2>, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<bf16, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// int4 -> i8 (the int8-activation matmul's weights): the even and the odd
// nibbles masked into bytes with their sign bits flipped (252645135 =
// 0x0F0F0F0F, 134744072 = 0x08080808), two PRMT interleave them (20800 =
// 0x5140, 29538 = 0x7362), and each word is sign-extended bytewise: + 0x78
// per byte (2021161080), then ^ 0x80 per byte (-2139062144). No vector of
// i4, no per-element extension.
// CHECK-LABEL: gpu.func @i4_i8
// CHECK-NOT: xi4>
// CHECK: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[X:.*]], %c252645135_i32, %c134744072_i32
// CHECK: %[[HI:.*]] = arith.shrui %[[X]], %c4_i32 : i32
// CHECK: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %[[HI]], %c252645135_i32, %c134744072_i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.*}}, %{{.*}}, %c20800_i32)
// CHECK: llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.*}}, %{{.*}}, %c29538_i32)
// CHECK: arith.addi %{{.*}}, %c2021161080_i32 : i32
// CHECK-NEXT: arith.xori %{{.*}}, %c-2139062144_i32 : i32
// CHECK-NOT: arith.extsi
// PTX-LABEL: .entry i4_i8(
// PTX-NOT: cvt.s8
// PTX: prmt.b32
func.func @i4_i8(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<i8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !g8
  %o = "tilus.view_global"(%q) : (!tilus.ptr<i8>) -> !tilus.global<i8, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g8, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<si4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %w = "tilus.cast"(%t) : (!tilus.register<si4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<i8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<i8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, !tilus.global<i8, array<i64: 256>, #tilus.row_major>, index) -> ()
  return
}

// uint3 -> i8: elements j and j + 2 into one word at bits 0 and 16 (two
// windows, two LOP3 with the field masks 7 and 458752 = 0x70000), j + 1 and
// j + 3 into another, one PRMT interleaving their bytes (25152 = 0x6240);
// unsigned, so no sign fix. (32 elements per lane: 96 bits, whole words;
// a lane's bits that are not whole 32-bit words take the generic cast.)
// CHECK-LABEL: gpu.func @u3_i8
// CHECK-NOT: xi3>
// CHECK: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %{{.*}}, %c458752_i32, %c0_i32
// CHECK: llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,r,r" %{{.*}}, %c7_i32, %{{.*}}
// CHECK: llvm.call_intrinsic "llvm.nvvm.prmt"(%{{.*}}, %{{.*}}, %c25152_i32)
// CHECK-NOT: arith.addi %{{.*}}, %c2021161080_i32
// CHECK-NOT: arith.extui
// PTX-LABEL: .entry u3_i8(
// PTX: prmt.b32
func.func @u3_i8(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<i8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 384>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<i8>) -> !tilus.global<i8, array<i64: 1024>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 384>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(32).local(12)">>
  %t = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(32).local(12)">>) -> !tilus.register<ui3, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  %w = "tilus.cast"(%t) : (!tilus.register<ui3, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>) -> !tilus.register<i8, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<i8, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>, !tilus.global<i8, array<i64: 1024>, #tilus.row_major>, index) -> ()
  return
}
