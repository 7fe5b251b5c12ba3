// With tilus.fp_contract, a Dot whose B is a fast cast (FastCast.c: magic-
// number halves plus a constant bias) takes the halves as B and starts each
// accumulator chain from A x bias instead: one extra mma chain per row
// tile (here 2 k steps, shared by 8 column tiles) instead of one f16x2
// addition per pair of B (64 here). Without the attribute the bias is added
// to B (add.rn.f16x2) and there are only the 16 mma of the product. (With
// fewer than 8 pairs of B per added mma the lowering keeps the additions.)
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=SCALE

!ga = !tilus.global<f16, array<i64: 16, 32>, #tilus.row_major>
!gw = !tilus.global<ui8, array<i64: 1024>, #tilus.row_major>
!gc = !tilus.global<f32, array<i64: 16, 64>, #tilus.row_major>
!ra = !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"local(1,2).column_local(2,2).spatial(8,4).local(1,2)">>
!rw8 = !tilus.register<ui8, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
!rw4 = !tilus.register<si4, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
!rwf = !tilus.register<f16, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
!rc = !tilus.register<f32, array<i64: 16, 64>, #tilus.layout<"local(1,8).local(2,1).spatial(8,4).local(1,2)">>

// The cast's tagged addition is gone: B is the shuffled bit cast of the
// LOP3 words; the bias pair (-1032 for the nibble at bit 0, -72 at bit 4 of
// each half) is B of the correction chain, which starts from the zero
// accumulator; each product chain starts from its result, with no f32 add.
// CHECK-LABEL: gpu.func @folded
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[-1.032000e+03, -7.200000e+01]> : vector<2xf16>
// CHECK-DAG: %[[H:.*]] = llvm.bitcast %{{.*}} : vector<32xi32> to vector<64xf16>
// CHECK: %[[X:.*]] = vector.shuffle %[[H]], %[[H]]
// CHECK: %[[C1:.*]] = nvvm.mma.sync A[{{.*}}] B[%[[B]], %[[B]]] C[%[[Z:.*]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK: nvvm.mma.sync A[{{.*}}] B[%[[B]], %[[B]]] C[
// CHECK-NOT: arith.addf {{.*}} : f32
// CHECK: nvvm.mma.sync
// CHECK-COUNT-15: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// PTX-LABEL: .entry folded(
// PTX-NOT: add.rn.f16x2
// PTX-COUNT-18: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
// PTX: ret;
func.func @folded(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// bf16 likewise: the cast's halves are 128 + v (bf16's magic number, the
// nibbles shifted down to bit 0), so every bias is -(128 + 8) for si4,
// exact in bf16, and the correction chain's B is that bf16 pair.
// CHECK-LABEL: gpu.func @folded_bf16
// CHECK-DAG: %[[P:.*]] = arith.constant dense<-1.360000e+02> : vector<2xbf16>
// CHECK-DAG: %[[H:.*]] = llvm.bitcast %{{.*}} : vector<32xi32> to vector<64xbf16>
// CHECK: llvm.bitcast %[[P]] : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[Z:.*]], %[[Z]], %[[Z]], %[[Z]]]
// CHECK: llvm.bitcast %[[P]] : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// PTX-LABEL: .entry folded_bf16(
// PTX-NOT: add.rn.bf16x2
// PTX-COUNT-18: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT: mma.sync
// PTX: ret;
func.func @folded_bf16(%pa: !tilus.ptr<bf16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<bf16>) -> !tilus.global<bf16, array<i64: 16, 32>, #tilus.row_major>
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<bf16, array<i64: 16, 32>, #tilus.row_major>, index, index) -> !tilus.register<bf16, array<i64: 16, 32>, #tilus.layout<"local(1,2).column_local(2,2).spatial(8,4).local(1,2)">>
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !tilus.register<bf16, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!tilus.register<bf16, array<i64: 16, 32>, #tilus.layout<"local(1,2).column_local(2,2).spatial(8,4).local(1,2)">>, !tilus.register<bf16, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @rounded
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// PTX-LABEL: .entry rounded(
// PTX: add.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
func.func @rounded(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// A program's own addition of a constant to B is not moved: only the cast's
// exact one is (folding this one would skip its f16 rounding).
!gb = !tilus.global<f16, array<i64: 32, 64>, #tilus.row_major>
// CHECK-LABEL: gpu.func @user_add
// PTX-LABEL: .entry user_add(
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<64xf16>
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
func.func @user_add(%pa: !tilus.ptr<f16>, %pb: !tilus.ptr<f16>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1000.0 : f16
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gb = "tilus.view_global"(%pb) : (!tilus.ptr<f16>) -> !gb
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %b = "tilus.load_global"(%gb, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gb, index, index) -> !rwf
  %k = "tilus.allocate_register"(%big) : (f16) -> !rwf
  %b2 = "tilus.add"(%b, %k) : (!rwf, !rwf) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %b2, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// An integer constant subtracted after the cast (a symmetric offset) joins
// the bias: every value stays an integer exact in f16, so B of the
// correction chain is the pair less 3 and no f16 addition is left.
// CHECK-LABEL: gpu.func @offset
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[-1.035000e+03, -7.500000e+01]> : vector<2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[%[[B]], %[[B]]] C[
// PTX-LABEL: .entry offset(
// PTX-NOT: add.rn.f16x2
// PTX-NOT: sub.rn.f16x2
// PTX-COUNT-18: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
// PTX: ret;
func.func @offset(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %three = arith.constant 3.0 : f16
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %wo = "tilus.sub"(%wf, %three) : (!rwf, f16) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wo, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// A fractional constant does not join: the joint bias (-1032.5) is not an f16
// value, where the spacing is 1 between 1024 and 2048. The cast's bias and the
// subtraction stay in B.
// PTX-LABEL: .entry fractional(
// PTX: add.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
func.func @fractional(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f16
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %wo = "tilus.sub"(%wf, %half) : (!rwf, f16) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wo, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// Constants whose magnitudes sum past 1024 do not join, even when their sum is
// small: w + 1024 + 1024 rounds in f16 (2049 is not an f16 value), so moving
// them would change B.
// PTX-LABEL: .entry chain(
// PTX: add.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
func.func @chain(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1024.0 : f16
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw, index) -> !rw8
  %w4 = "tilus.view"(%w8) : (!rw8) -> !rw4
  %wf = "tilus.cast"(%w4) : (!rw4) -> !rwf
  %w1 = "tilus.add"(%wf, %big) : (!rwf, f16) -> !rwf
  %w2 = "tilus.add"(%w1, %big) : (!rwf, f16) -> !rwf
  %w3 = "tilus.sub"(%w2, %big) : (!rwf, f16) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %w3, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// Widths whose fields straddle words (3, 5, 6, 7 bits) and bytes keep their
// subtraction in B: folding it was 1-7 % slower on the H100 (FastCast.c).
!gw6 = !tilus.global<ui8, array<i64: 1536>, #tilus.row_major>
!rw68 = !tilus.register<ui8, array<i64: 1536>, #tilus.layout<"spatial(32).local(48)">>
!rw6 = !tilus.register<si6, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
// PTX-LABEL: .entry six_bits(
// PTX: add.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
// PTX: ret;
func.func @six_bits(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gw6
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gw6, index) -> !rw68
  %w6 = "tilus.view"(%w8) : (!rw68) -> !rw6
  %wf = "tilus.cast"(%w6) : (!rw6) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}

// A float cast's rescale (float<2, 1>: times 2^14) leaves B when the Dot
// starts from zero under tilus.fp_contract: the chains run on the placed
// fields and each f32 result (32 per thread here) is multiplied by 2^14 once.
// From a non-zero accumulator, or without the attribute, the rescale stays in
// B (mul.rn.f16x2).
!gwf = !tilus.global<ui8, array<i64: 1024>, #tilus.row_major>
!rwe = !tilus.register<!tilus.float<2, 1>, array<i64: 32, 64>, #tilus.layout<"local(1,8).local(2,1).local(2,1).column_spatial(4,8).local(2,1)">>
// CHECK-LABEL: gpu.func @float_scale
// CHECK-NOT: tilus.cast_scale
// CHECK: nvvm.mma.sync
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: gpu.return
// PTX-LABEL: .entry float_scale(
// PTX-NOT: mul.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mma.sync
// PTX-NOT: mul.rn.f16x2
// PTX: ret;
// SCALE-LABEL: .entry float_scale(
// SCALE-COUNT-32: mul.rn.f32 %{{.*}}, 0f46800000;
// SCALE-NOT: mul.rn.f32
// SCALE: ret;
// PTX-LABEL: .entry float_scale_acc(
// PTX: mul.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mul.rn.f32
// PTX: ret;
// PTX-LABEL: .entry float_scale_strict(
// PTX: mul.rn.f16x2
// PTX-COUNT-16: mma.sync.aligned.m16n8k16
// PTX-NOT: mul.rn.f32
// PTX: ret;
func.func @float_scale(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gwf
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gwf, index) -> !rw8
  %we = "tilus.view"(%w8) : (!rw8) -> !rwe
  %wf = "tilus.cast"(%we) : (!rwe) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}
func.func @float_scale_acc(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.fp_contract} {
  %c0 = arith.constant 0 : index
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gwf
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gwf, index) -> !rw8
  %we = "tilus.view"(%w8) : (!rw8) -> !rwe
  %wf = "tilus.cast"(%we) : (!rwe) -> !rwf
  %c_in = "tilus.load_global"(%gc, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gc, index, index) -> !rc
  %c = "tilus.dot"(%a, %wf, %c_in) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}
func.func @float_scale_strict(%pa: !tilus.ptr<f16>, %pw: !tilus.ptr<ui8>, %pc: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ga = "tilus.view_global"(%pa) : (!tilus.ptr<f16>) -> !ga
  %gw = "tilus.view_global"(%pw) : (!tilus.ptr<ui8>) -> !gwf
  %gc = "tilus.view_global"(%pc) : (!tilus.ptr<f32>) -> !gc
  %a = "tilus.load_global"(%ga, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !ra
  %w8 = "tilus.load_global"(%gw, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gwf, index) -> !rw8
  %we = "tilus.view"(%w8) : (!rw8) -> !rwe
  %wf = "tilus.cast"(%we) : (!rwe) -> !rwf
  %z = "tilus.allocate_register"(%zero) : (f32) -> !rc
  %c = "tilus.dot"(%a, %wf, %z) : (!ra, !rwf, !rc) -> !rc
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!rc, !gc, index, index) -> ()
  return
}
