// Layout changes on the GPU (test/gpu/suite/DataMovementTests.c compares
// with a CPU reference). From a [32, 8] tile in the mma.sync accumulator
// layout (rows l/4 + 8 j, columns 2 (l%4) + j%2 per 16 rows):
//   rows:    convert_layout to a row per thread (shared memory);
//   cols:    convert_layout to column-major slots (a register shuffle);
//   trans:   permute to [8, 32] in the transposed layout (no movement);
//   trans2:  permute to [8, 32] in a row-major layout (shared memory);
//   flat:    reshape of `rows` to [256] (no movement);
//   rows16:  the f16 tile converted to a row per thread (shared memory);
//   lanes16: the f16 tile with its lanes permuted (warp shuffles).
!mma = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!rows = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!cols = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).column_local(2,2)">>
!trans = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"column_local(1,2).column_spatial(4,8).column_local(2,2)">>
!trans2 = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!flat = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
!mma16 = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!rows16 = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!lanes16 = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"local(2,1).column_spatial(8,4).local(2,2)">>
!g = !tilus.global<f32, array<i64: 32, 8>, #tilus.row_major>
!gt = !tilus.global<f32, array<i64: 8, 32>, #tilus.row_major>
!gflat = !tilus.global<f32, array<i64: 256>, #tilus.row_major>
!g16 = !tilus.global<f16, array<i64: 32, 8>, #tilus.row_major>
func.func @relayout(%src: !tilus.ptr<f32>, %src16: !tilus.ptr<f16>, %rows: !tilus.ptr<f32>, %cols: !tilus.ptr<f32>,
                    %trans: !tilus.ptr<f32>, %trans2: !tilus.ptr<f32>, %flat: !tilus.ptr<f32>, %rows16: !tilus.ptr<f16>,
                    %lanes16: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gs = "tilus.view_global"(%src) : (!tilus.ptr<f32>) -> !g
  %a = "tilus.load_global"(%gs, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !mma
  %r = "tilus.convert_layout"(%a) : (!mma) -> !rows
  %c = "tilus.convert_layout"(%a) : (!mma) -> !cols
  %t = "tilus.permute"(%a) {dims = array<i64: 1, 0>} : (!mma) -> !trans
  %t2 = "tilus.permute"(%a) {dims = array<i64: 1, 0>} : (!mma) -> !trans2
  %f = "tilus.reshape"(%r) : (!rows) -> !flat
  %gr = "tilus.view_global"(%rows) : (!tilus.ptr<f32>) -> !g
  %gc = "tilus.view_global"(%cols) : (!tilus.ptr<f32>) -> !g
  %gt = "tilus.view_global"(%trans) : (!tilus.ptr<f32>) -> !gt
  %gt2 = "tilus.view_global"(%trans2) : (!tilus.ptr<f32>) -> !gt
  %gf = "tilus.view_global"(%flat) : (!tilus.ptr<f32>) -> !gflat
  "tilus.store_global"(%r, %gr, %c0, %c0) : (!rows, !g, index, index) -> ()
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!cols, !g, index, index) -> ()
  "tilus.store_global"(%t, %gt, %c0, %c0) : (!trans, !gt, index, index) -> ()
  "tilus.store_global"(%t2, %gt2, %c0, %c0) : (!trans2, !gt, index, index) -> ()
  "tilus.store_global"(%f, %gf, %c0) : (!flat, !gflat, index) -> ()
  %gs16 = "tilus.view_global"(%src16) : (!tilus.ptr<f16>) -> !g16
  %a16 = "tilus.load_global"(%gs16, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g16, index, index) -> !mma16
  %r16 = "tilus.convert_layout"(%a16) : (!mma16) -> !rows16
  %gr16 = "tilus.view_global"(%rows16) : (!tilus.ptr<f16>) -> !g16
  "tilus.store_global"(%r16, %gr16, %c0, %c0) : (!rows16, !g16, index, index) -> ()
  %l16 = "tilus.convert_layout"(%a16) : (!mma16) -> !lanes16
  %gl16 = "tilus.view_global"(%lanes16) : (!tilus.ptr<f16>) -> !g16
  "tilus.store_global"(%l16, %gl16, %c0, %c0) : (!lanes16, !g16, index, index) -> ()
  return
}

// relayout_warps: a [64, 32] f32 tile on 128 threads from 4x4 blocks per
// thread to 16-row column segments (shared memory across warps), and
// to column-major slots of the same blocks (a slot shuffle), and to the
// same blocks at other lanes of each warp (warp shuffles).
!blocks = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(16,8).local(4,4)">>
!columns = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"column_spatial(4,32).local(16,1)">>
!cblocks = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(16,8).column_local(4,4)">>
!lanes = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).column_spatial(4,8).local(4,4)">>
!g6432 = !tilus.global<f32, array<i64: 64, 32>, #tilus.row_major>
func.func @relayout_warps(%src: !tilus.ptr<f32>, %cols: !tilus.ptr<f32>, %back: !tilus.ptr<f32>, %lanes: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gs = "tilus.view_global"(%src) : (!tilus.ptr<f32>) -> !g6432
  %a = "tilus.load_global"(%gs, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g6432, index, index) -> !blocks
  %c = "tilus.convert_layout"(%a) : (!blocks) -> !columns
  %b = "tilus.convert_layout"(%a) : (!blocks) -> !cblocks
  %gc = "tilus.view_global"(%cols) : (!tilus.ptr<f32>) -> !g6432
  %gb = "tilus.view_global"(%back) : (!tilus.ptr<f32>) -> !g6432
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!columns, !g6432, index, index) -> ()
  "tilus.store_global"(%b, %gb, %c0, %c0) : (!cblocks, !g6432, index, index) -> ()
  %l = "tilus.convert_layout"(%a) : (!blocks) -> !lanes
  %gl = "tilus.view_global"(%lanes) : (!tilus.ptr<f32>) -> !g6432
  "tilus.store_global"(%l, %gl, %c0, %c0) : (!lanes, !g6432, index, index) -> ()
  return
}

// relayout_u4: a [32, 8] ui4 tile (compact in global memory) from the mma
// layout to a row per thread (a byte per element in the scratch) and to
// column-major slots (a widened slot shuffle).
!m4 = !tilus.register<ui4, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!r4 = !tilus.register<ui4, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!c4 = !tilus.register<ui4, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).column_local(2,2)">>
!g4 = !tilus.global<ui4, array<i64: 32, 8>, #tilus.row_major>
func.func @relayout_u4(%src: !tilus.ptr<ui4>, %rows: !tilus.ptr<ui4>, %cols: !tilus.ptr<ui4>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %gs = "tilus.view_global"(%src) : (!tilus.ptr<ui4>) -> !g4
  %a = "tilus.load_global"(%gs, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g4, index, index) -> !m4
  %r = "tilus.convert_layout"(%a) : (!m4) -> !r4
  %c = "tilus.convert_layout"(%a) : (!m4) -> !c4
  %gr = "tilus.view_global"(%rows) : (!tilus.ptr<ui4>) -> !g4
  %gc = "tilus.view_global"(%cols) : (!tilus.ptr<ui4>) -> !g4
  "tilus.store_global"(%r, %gr, %c0, %c0) : (!r4, !g4, index, index) -> ()
  "tilus.store_global"(%c, %gc, %c0, %c0) : (!c4, !g4, index, index) -> ()
  return
}
