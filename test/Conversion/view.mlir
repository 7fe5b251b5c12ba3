// View reinterprets a thread's bits as another type (same bits per thread):
// one llvm.bitcast, and no instruction in the PTX. The paper's examples,
// u8 local(3).spatial(32) <-> i6 with 4 elements per thread, u32 <-> u4 x 8
// and u8 x 5 <-> u5 x 8, are viewed there and back: the two bit casts
// cancel, and the loaded registers are stored as they are.
// RUN: tilus-opt %s --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.func @u8_i6
// CHECK-NOT: llvm.bitcast
// PTX-LABEL: .entry u8_i6(
// PTX: ld.global.b8
// PTX: ld.global.b8
// PTX: ld.global.b8
// PTX-NOT: {{shl|shr|and|or|bfe|prmt}}
// PTX: st.global.b8
func.func @u8_i6(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 96>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 96>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 96>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>
  %w = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>) -> !tilus.register<si6, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %v = "tilus.view"(%w) : (!tilus.register<si6, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>
  "tilus.store_global"(%v, %o, %c0) : (!tilus.register<ui8, array<i64: 96>, #tilus.layout<"local(3).spatial(32)">>, !tilus.global<ui8, array<i64: 96>, #tilus.row_major>, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @u32_u4
// CHECK-NOT: llvm.bitcast
// PTX-LABEL: .entry u32_u4(
// PTX: ld.global.b32
// PTX-NOT: {{shl|shr|and|or|bfe|prmt}}
// PTX: st.global.b32
func.func @u32_u4(%p: !tilus.ptr<ui32>, %q: !tilus.ptr<ui32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui32>) -> !tilus.global<ui32, array<i64: 32>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui32>) -> !tilus.global<ui32, array<i64: 32>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui32, array<i64: 32>, #tilus.row_major>, index) -> !tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  %w = "tilus.view"(%b) : (!tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>) -> !tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %v = "tilus.view"(%w) : (!tilus.register<ui4, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  "tilus.store_global"(%v, %o, %c0) : (!tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.global<ui32, array<i64: 32>, #tilus.row_major>, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @u8_u5
// CHECK-NOT: llvm.bitcast
// PTX-LABEL: .entry u8_u5(
// PTX: ld.global
// PTX-NOT: {{shl|shr|and|or|bfe|prmt}}
// PTX: st.global
func.func @u8_u5(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 160>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 160>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 160>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 160>, #tilus.layout<"spatial(32).local(5)">>
  %w = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 160>, #tilus.layout<"spatial(32).local(5)">>) -> !tilus.register<ui5, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  %v = "tilus.view"(%w) : (!tilus.register<ui5, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>) -> !tilus.register<ui8, array<i64: 160>, #tilus.layout<"spatial(32).local(5)">>
  "tilus.store_global"(%v, %o, %c0) : (!tilus.register<ui8, array<i64: 160>, #tilus.layout<"spatial(32).local(5)">>, !tilus.global<ui8, array<i64: 160>, #tilus.row_major>, index) -> ()
  return
}

// One View alone is one bit cast; the bytes loaded one by one are stored as
// one 32-bit word.
// CHECK-LABEL: gpu.func @u8_u32
// CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// PTX-LABEL: .entry u8_u32(
// PTX: st.global.b32
func.func @u8_u32(%p: !tilus.ptr<ui8>, %q: !tilus.ptr<ui32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 128>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui32>) -> !tilus.global<ui32, array<i64: 32>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 128>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"local(4).spatial(32)">>
  %w = "tilus.view"(%b) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"local(4).spatial(32)">>) -> !tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  "tilus.store_global"(%w, %o, %c0) : (!tilus.register<ui32, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.global<ui32, array<i64: 32>, #tilus.row_major>, index) -> ()
  return
}

// A view of computed sub-byte values (here a cast to si3) places each
// element's bits with shifts into words instead of bit-casting the vector of
// i3, which the NVPTX back end got wrong on the H100 (the GPU test
// test_device_pack_equals_host_pack[uint3-4] in python-bindings/tests).
// CHECK-LABEL: gpu.func @i16_i3_u8
// CHECK: arith.trunci %{{.*}} : vector<32xi16> to vector<32xi3>
// CHECK-NOT: llvm.bitcast %{{.*}} : vector<32xi3>
// CHECK: arith.extui %{{.*}} : vector<32xi3> to vector<32xi32>
// CHECK: arith.shli
// CHECK: llvm.bitcast %{{.*}} : vector<3xi32> to vector<12xi8>
func.func @i16_i3_u8(%p: !tilus.ptr<i16>, %q: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i16>) -> !tilus.global<i16, array<i64: 1024>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 384>, #tilus.row_major>
  %a = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<i16, array<i64: 1024>, #tilus.row_major>, index) -> !tilus.register<i16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  %t = "tilus.cast"(%a) : (!tilus.register<i16, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>) -> !tilus.register<si3, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>
  %v = "tilus.view"(%t) : (!tilus.register<si3, array<i64: 1024>, #tilus.layout<"spatial(32).local(32)">>) -> !tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(32).local(12)">>
  "tilus.store_global"(%v, %o, %c0) : (!tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(32).local(12)">>, !tilus.global<ui8, array<i64: 384>, #tilus.row_major>, index) -> ()
  return
}

// Computed sub-byte values whose bits per thread are not whole bytes (12: si3
// x 4 -> ui4 x 3; 4: si2 x 2 -> ui1 x 4) keep the plain bit cast, and the
// PTX still loads and converts (no constant store).
// CHECK-LABEL: gpu.func @i16_i3_12bits
// CHECK: llvm.bitcast %{{.*}} : vector<4xi3> to vector<3xi4>
// PTX-LABEL: .entry i16_i3_12bits(
// PTX: ld.global
func.func @i16_i3_12bits(%p: !tilus.ptr<i16>, %q: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i16>) -> !tilus.global<i16, array<i64: 128>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !tilus.global<ui4, array<i64: 96>, #tilus.row_major>
  %a = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<i16, array<i64: 128>, #tilus.row_major>, index) -> !tilus.register<i16, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %t = "tilus.cast"(%a) : (!tilus.register<i16, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<si3, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  %v = "tilus.view"(%t) : (!tilus.register<si3, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>) -> !tilus.register<ui4, array<i64: 96>, #tilus.layout<"spatial(32).local(3)">>
  "tilus.store_global"(%v, %o, %c0) : (!tilus.register<ui4, array<i64: 96>, #tilus.layout<"spatial(32).local(3)">>, !tilus.global<ui4, array<i64: 96>, #tilus.row_major>, index) -> ()
  return
}

// CHECK-LABEL: gpu.func @i16_i2_4bits
// CHECK: llvm.bitcast %{{.*}} : vector<2xi2> to vector<4xi1>
// PTX-LABEL: .entry i16_i2_4bits(
// PTX: ld.global
func.func @i16_i2_4bits(%p: !tilus.ptr<i16>, %q: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i16>) -> !tilus.global<i16, array<i64: 64>, #tilus.row_major>
  %o = "tilus.view_global"(%q) : (!tilus.ptr<ui8>) -> !tilus.global<ui1, array<i64: 128>, #tilus.row_major>
  %a = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<i16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<i16, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  %t = "tilus.cast"(%a) : (!tilus.register<i16, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>) -> !tilus.register<si2, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  %v = "tilus.view"(%t) : (!tilus.register<si2, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>) -> !tilus.register<ui1, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
  "tilus.store_global"(%v, %o, %c0) : (!tilus.register<ui1, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>, !tilus.global<ui1, array<i64: 128>, #tilus.row_major>, index) -> ()
  return
}
