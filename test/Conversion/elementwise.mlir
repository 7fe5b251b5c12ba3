// Elementwise instructions become vector arith ops on the thread's vector;
// broadcast operands are read from the thread's own vector (vector.shuffle of
// fixed slots); math functions are PTX approximate instructions; constants
// of every element type are their bit patterns.
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx | FileCheck %s --check-prefix=PTX
// (No libdevice call: the artifacts link none.)
// PTX-NOT: __nv_

!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!row = !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
!col = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8)">>
!col2 = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8).local(1,1)">>
!i = !tilus.register<i32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!u = !tilus.register<ui8, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!b = !tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!h = !tilus.register<f16, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!gf = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
!gi = !tilus.global<i32, array<i64: 8, 32>, #tilus.row_major>
!gu = !tilus.global<ui8, array<i64: 8, 32>, #tilus.row_major>
!gb = !tilus.global<i1, array<i64: 8, 32>, #tilus.row_major>
!gh = !tilus.global<f16, array<i64: 8, 32>, #tilus.row_major>
// CHECK-LABEL: gpu.func @binary
// PTX-LABEL: .entry binary
// PTX-DAG: min.f32
// PTX-DAG: max.s32
func.func @binary(%x: f32, %k: i32, %pf: !tilus.ptr<f32>, %pi: !tilus.ptr<i32>,
                  %pu: !tilus.ptr<ui8>, %pb: !tilus.ptr<i1>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gf = "tilus.view_global"(%pf) : (!tilus.ptr<f32>) -> !gf
  %gi = "tilus.view_global"(%pi) : (!tilus.ptr<i32>) -> !gi
  %gu = "tilus.view_global"(%pu) : (!tilus.ptr<ui8>) -> !gu
  %gb = "tilus.view_global"(%pb) : (!tilus.ptr<i1>) -> !gb
  %a = "tilus.load_global"(%gf, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gf, index, index) -> !f
  %ia = "tilus.load_global"(%gi, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gi, index, index) -> !i
  %ua = "tilus.load_global"(%gu, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gu, index, index) -> !u
  // CHECK: %[[ROW:.*]] = vector.broadcast %arg0 : f32 to vector<1xf32>
  %r = "tilus.allocate_register"(%x) : (f32) -> !row
  // CHECK: %[[COL:.*]] = vector.broadcast %arg0 : f32 to vector<8xf32>
  %c = "tilus.allocate_register"(%x) : (f32) -> !col
  // A row of the result's rows: slot 0 read for each of the 8 slots.
  // CHECK: %[[R8:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<1xf32>, vector<1xf32>
  // CHECK: %[[MAX:.*]] = llvm.call_intrinsic "llvm.maxnum.v8f32"(%{{.*}}, %[[R8]])
  %m = "tilus.max"(%a, %r) : (!f, !row) -> !f
  // Both operands broadcast; the column operand's slots are the result's.
  // CHECK: %[[R8B:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [0, 0, 0, 0, 0, 0, 0, 0]
  // CHECK: llvm.call_intrinsic "llvm.minnum.v8f32"(%[[COL]], %[[R8B]])
  %n = "tilus.min"(%c, %r) : (!col, !row) -> !f
  // CHECK: arith.andi %{{.*}}, %{{.*}} : vector<8xi32>
  %and = "tilus.and"(%ia, %k) : (!i, i32) -> !i
  // CHECK: arith.ori
  %or = "tilus.or"(%ia, %and) : (!i, !i) -> !i
  // CHECK: arith.xori
  %xor = "tilus.xor"(%ia, %or) : (!i, !i) -> !i
  // CHECK: arith.shli
  %shl = "tilus.shl"(%xor, %k) : (!i, i32) -> !i
  // Signed shifts are arithmetic, unsigned ones logical.
  // CHECK: arith.shrsi %{{.*}} : vector<8xi32>
  %shr = "tilus.shr"(%shl, %k) : (!i, i32) -> !i
  // CHECK: arith.shrui %{{.*}} : vector<8xi8>
  %shru = "tilus.shr"(%ua, %ua) : (!u, !u) -> !u
  // CHECK: arith.maxui %{{.*}} : vector<8xi8>
  %maxu = "tilus.max"(%shru, %ua) : (!u, !u) -> !u
  // CHECK: arith.cmpf olt, %{{.*}}, %[[R8C:.*]] : vector<8xf32>
  %lt = "tilus.cmp"(%a, %r) {predicate = "lt"} : (!f, !row) -> !b
  // CHECK: arith.cmpi sge, %{{.*}} : vector<8xi32>
  %ge = "tilus.cmp"(%ia, %k) {predicate = "ge"} : (!i, i32) -> !b
  // CHECK: arith.cmpi ugt, %{{.*}} : vector<8xi8>
  %gt = "tilus.cmp"(%ua, %maxu) {predicate = "gt"} : (!u, !u) -> !b
  // CHECK: arith.cmpf une
  %ne = "tilus.cmp"(%a, %x) {predicate = "ne"} : (!f, f32) -> !b
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
  %w = "tilus.where"(%lt, %m, %x) : (!b, !f, f32) -> !f
  // CHECK: %[[LO:.*]] = llvm.call_intrinsic "llvm.maxnum.v8f32"
  // CHECK: llvm.call_intrinsic "llvm.minnum.v8f32"(%[[LO]]
  %cl = "tilus.clamp"(%w, %r, %c) : (!f, !row, !col) -> !f
  // CHECK: %[[CLI:.*]] = arith.maxsi
  // CHECK: arith.minsi %[[CLI]]
  %cli = "tilus.clamp"(%ia, %k, %shr) : (!i, i32, !i) -> !i
  // not: xor with all ones; abs: max(x, 0 - x).
  // CHECK: arith.xori %{{.*}}, %cst{{.*}} : vector<8xi32>
  %not = "tilus.not"(%cli) : (!i) -> !i
  // CHECK: %[[NEG:.*]] = arith.subi
  // CHECK: arith.maxsi %{{.*}}, %[[NEG]]
  %abs = "tilus.abs"(%not) : (!i) -> !i
  %any = "tilus.xor"(%ge, %gt) : (!b, !b) -> !b
  %any2 = "tilus.or"(%any, %ne) : (!b, !b) -> !b
  "tilus.store_global"(%cl, %gf, %c0, %c0) : (!f, !gf, index, index) -> ()
  "tilus.store_global"(%n, %gf, %c0, %c0) : (!f, !gf, index, index) -> ()
  "tilus.store_global"(%abs, %gi, %c0, %c0) : (!i, !gi, index, index) -> ()
  "tilus.store_global"(%any2, %gb, %c0, %c0) : (!b, !gb, index, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @math
// PTX-LABEL: .entry math
func.func @math(%pf: !tilus.ptr<f32>, %ph: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gf = "tilus.view_global"(%pf) : (!tilus.ptr<f32>) -> !gf
  %gh = "tilus.view_global"(%ph) : (!tilus.ptr<f16>) -> !gh
  %a = "tilus.load_global"(%gf, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gf, index, index) -> !f
  %h = "tilus.load_global"(%gh, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gh, index, index) -> !h
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
  // PTX-DAG: ex2.approx.f32
  %u0 = "tilus.exp2"(%a) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
  // PTX-DAG: lg2.approx.f32
  %u1 = "tilus.log2"(%u0) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.approx.f"
  // PTX-DAG: sqrt.approx.f32
  %u2 = "tilus.sqrt"(%u1) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
  // PTX-DAG: rsqrt.approx.f32
  %u3 = "tilus.rsqrt"(%u2) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.tanh.f32"({{.*}}) {fastmathFlags = #llvm.fastmath<afn>}
  // PTX-DAG: tanh.approx.f32
  %u4 = "tilus.tanh"(%u3) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.sin.f32"
  // PTX-DAG: sin.approx.f32
  %u5 = "tilus.sin"(%u4) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.cos.f32"
  // PTX-DAG: cos.approx.f32
  %u6 = "tilus.cos"(%u5) : (!f) -> !f
  // exp(x) = 2^(x log2 e)
  // CHECK: arith.mulf %{{.*}}, %cst{{.*}} : vector<8xf32>
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
  %u7 = "tilus.exp"(%u6) : (!f) -> !f
  // log(x) = log2(x) ln 2
  // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
  // CHECK: arith.mulf
  %u8 = "tilus.log"(%u7) : (!f) -> !f
  // CHECK: llvm.call_intrinsic "llvm.fabs.f32"
  %u9 = "tilus.abs"(%u8) : (!f) -> !f
  // f16 computes in f32 and rounds once.
  // CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
  // CHECK: llvm.call_intrinsic "llvm.tanh.f32"
  // CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
  %t = "tilus.tanh"(%h) : (!h) -> !h
  "tilus.store_global"(%u9, %gf, %c0, %c0) : (!f, !gf, index, index) -> ()
  "tilus.store_global"(%t, %gh, %c0, %c0) : (!h, !gh, index, index) -> ()
  return
}

!g4 = !tilus.global<ui4, array<i64: 32>, #tilus.row_major>
!ge = !tilus.global<!tilus.float<4, 3>, array<i64: 32>, #tilus.row_major>
!gs = !tilus.global<si8, array<i64: 32>, #tilus.row_major>
!gx = !tilus.global<f16, array<i64: 32>, #tilus.row_major>
// CHECK-LABEL: gpu.func @constants
func.func @constants(%p4: !tilus.ptr<ui4>, %pe: !tilus.ptr<!tilus.float<4, 3>>,
                     %ps: !tilus.ptr<si8>, %px: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g4 = "tilus.view_global"(%p4) : (!tilus.ptr<ui4>) -> !g4
  %ge = "tilus.view_global"(%pe) : (!tilus.ptr<!tilus.float<4, 3>>) -> !ge
  %gs = "tilus.view_global"(%ps) : (!tilus.ptr<si8>) -> !gs
  %gx = "tilus.view_global"(%px) : (!tilus.ptr<f16>) -> !gx
  // ui4 13 is the 4-bit pattern 1101, stored through a zero extension
  // (folded).
  // CHECK-DAG: arith.constant dense<13> : vector<1xi32>
  %u = "tilus.allocate_register"() {value = 13 : i64} : () -> !tilus.register<ui4, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // e4m3 0.3 rounds to nearest even, 0.3125 = 0 0101 010 = 42.
  // CHECK-DAG: arith.constant dense<42> : vector<1xi8>
  %e = "tilus.allocate_register"() {value = 0.3 : f64} : () -> !tilus.register<!tilus.float<4, 3>, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // si8 -100 and the f16 fill of a load: the element type's constants.
  // CHECK-DAG: arith.constant dense<-100> : vector<1xi8>
  %s = "tilus.allocate_register"() {value = -100 : i64} : () -> !tilus.register<si8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // CHECK-DAG: arith.constant -2.500000e-01 : f16
  %x = "tilus.load_global"(%gx, %c0) {fill_value = -0.25 : f64, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gx, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  "tilus.store_global"(%u, %g4, %c0) : (!tilus.register<ui4, array<i64: 32>, #tilus.layout<"spatial(32)">>, !g4, index) -> ()
  "tilus.store_global"(%e, %ge, %c0) : (!tilus.register<!tilus.float<4, 3>, array<i64: 32>, #tilus.layout<"spatial(32)">>, !ge, index) -> ()
  "tilus.store_global"(%s, %gs, %c0) : (!tilus.register<si8, array<i64: 32>, #tilus.layout<"spatial(32)">>, !gs, index) -> ()
  "tilus.store_global"(%x, %gx, %c0) : (!tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>, !gx, index) -> ()
  return
}

// An i1 operand broadcast through i32 (odd widths are shuffled wide), and
// shifts that are defined for every amount.
!row_b = !tilus.register<i1, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
!row_i = !tilus.register<i32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
// CHECK-LABEL: gpu.func @bits
func.func @bits(%k: i32, %pi: !tilus.ptr<i32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gi = "tilus.view_global"(%pi) : (!tilus.ptr<i32>) -> !gi
  %ia = "tilus.load_global"(%gi, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gi, index, index) -> !i
  %r = "tilus.allocate_register"(%k) : (i32) -> !row_i
  %c = "tilus.cmp"(%r, %k) {predicate = "ne"} : (!row_i, i32) -> !row_b
  // CHECK: %[[W:.*]] = arith.extui %{{.*}} : vector<1xi1> to vector<1xi32>
  // CHECK: %[[S:.*]] = vector.shuffle %[[W]], %[[W]] [0, 0, 0, 0, 0, 0, 0, 0] : vector<1xi32>, vector<1xi32>
  // CHECK: %[[C:.*]] = arith.trunci %[[S]] : vector<8xi32> to vector<8xi1>
  // CHECK: arith.select %[[C]]
  %w = "tilus.where"(%c, %ia, %k) : (!row_b, !i, i32) -> !i
  // shl: an amount of 32 or more (unsigned) gives 0.
  // CHECK: %[[BIG:.*]] = arith.cmpi uge, %[[AMT:.*]], %{{.*}} : vector<8xi32>
  // CHECK: %[[SHL:.*]] = arith.shli %{{.*}}, %[[AMT]] : vector<8xi32>
  // CHECK: arith.select %[[BIG]], %{{.*}}, %[[SHL]]
  %s = "tilus.shl"(%w, %k) : (!i, i32) -> !i
  // arithmetic shr: the amount clamped to 31 (the sign fill).
  // CHECK: %[[CL:.*]] = arith.minui %{{.*}}, %{{.*}} : vector<8xi32>
  // CHECK: arith.shrsi %{{.*}}, %[[CL]] : vector<8xi32>
  %t = "tilus.shr"(%s, %k) : (!i, i32) -> !i
  "tilus.store_global"(%t, %gi, %c0, %c0) : (!i, !gi, index, index) -> ()
  return
}

// A scalar of an unsigned type (a ui8 kernel argument) is read as its
// signless bits.
!gu8 = !tilus.global<ui8, array<i64: 32>, #tilus.row_major>
!u8 = !tilus.register<ui8, array<i64: 32>, #tilus.layout<"spatial(32)">>
// CHECK-LABEL: gpu.func @unsigned_scalar
func.func @unsigned_scalar(%p: !tilus.ptr<ui8>, %s: ui8)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !gu8
  %a = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gu8, index) -> !u8
  // CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %arg1 : ui8 to i8
  // CHECK: %[[V:.*]] = vector.broadcast %[[S]] : i8 to vector<1xi8>
  // CHECK: arith.maxui %{{.*}}, %[[V]] : vector<1xi8>
  %b = "tilus.max"(%a, %s) : (!u8, ui8) -> !u8
  "tilus.store_global"(%b, %g, %c0) : (!u8, !gu8, index) -> ()
  return
}
