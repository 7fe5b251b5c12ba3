// Constants and fills of every element type (the `value` attribute of
// allocate_register, the `fill_value` attribute of load_global), read back
// through casts and added to an input, 128 elements per block, 1 per thread:
//   out[0, i] = a[i] + i32(ui4 13)      out[1, i] = a[i] + i32(si4 -7)
//   out[2, i] = a[i] + i32(ui8 200)     out[3, i] = a[i] + i32(si8 -100)
//   out[4, i] = a[i] + i32(si3 -1)      out[5, i] = a[i] + i32(ui16 65535)
//   out[6, i] = i32(ui4 load of q at i + 64, fill_value 9 past the end)
// (out a [7, N] tensor) and f32 outputs fp[k, i] = x[i] + v ([6, N]):
//   k=0: f32(!tilus.float<4,3> 1.375) (exact)   k=1: f32(e4m3 0.3 -> 0.3125)
//   k=2: f32(!tilus.float<2,1> 5.2 -> 6.0)      k=3: f32(f16 2.5)
//   k=4: f32(bf16 -3.140625)                    k=5: x shifted by 64 with
//        fill_value -1.5 past the end (load_global of x at i + 64)
// u8[i] = ui8 load of b at i + 64 with fill_value 255 past the end.
!gi = !tilus.global<i32, array<i64: -1>, #tilus.row_major>
!gf = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!gb = !tilus.global<ui8, array<i64: -1>, #tilus.row_major>
!gi6 = !tilus.global<i32, array<i64: 7, -1>, #tilus.row_major>
!g4 = !tilus.global<ui4, array<i64: -1>, #tilus.row_major>
!r4 = !tilus.register<ui4, array<i64: 128>, #tilus.layout<"spatial(128)">>
!gf6 = !tilus.global<f32, array<i64: 6, -1>, #tilus.row_major>
!i = !tilus.register<i32, array<i64: 128>, #tilus.layout<"spatial(128)">>
!f = !tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(128)">>
!b = !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(128)">>
func.func @fills(%a: !tilus.ptr<i32>, %x: !tilus.ptr<f32>, %bp: !tilus.ptr<ui8>,
                 %q: !tilus.ptr<ui4>, %out: !tilus.ptr<i32>, %fp: !tilus.ptr<f32>,
                 %u8: !tilus.ptr<ui8>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6, s7] -> (s7 ceildiv 128)>} {
  %N = arith.index_cast %n : i32 to index
  %c64 = arith.constant 64 : index
  %bi = "tilus.block_indices"() : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %bi, %c128 : index
  %off64 = arith.addi %off, %c64 : index
  %ga = "tilus.view_global"(%a, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gx = "tilus.view_global"(%x, %N) : (!tilus.ptr<f32>, index) -> !gf
  %gb = "tilus.view_global"(%bp, %N) : (!tilus.ptr<ui8>, index) -> !gb
  %gq = "tilus.view_global"(%q, %N) : (!tilus.ptr<ui4>, index) -> !g4
  %go = "tilus.view_global"(%out, %N) : (!tilus.ptr<i32>, index) -> !gi6
  %gf = "tilus.view_global"(%fp, %N) : (!tilus.ptr<f32>, index) -> !gf6
  %gu = "tilus.view_global"(%u8, %N) : (!tilus.ptr<ui8>, index) -> !gb
  %ra = "tilus.load_global"(%ga, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gi, index) -> !i
  %rx = "tilus.load_global"(%gx, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gf, index) -> !f

  %u4 = "tilus.allocate_register"() {value = 13 : i64} : () -> !tilus.register<ui4, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %s4 = "tilus.allocate_register"() {value = -7 : i64} : () -> !tilus.register<si4, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %u8c = "tilus.allocate_register"() {value = 200 : i64} : () -> !tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %s8 = "tilus.allocate_register"() {value = -100 : i64} : () -> !tilus.register<si8, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %s3 = "tilus.allocate_register"() {value = -1 : i64} : () -> !tilus.register<si3, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %u16 = "tilus.allocate_register"() {value = 65535 : i64} : () -> !tilus.register<ui16, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %w0 = "tilus.cast"(%u4) : (!tilus.register<ui4, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !i
  %w1 = "tilus.cast"(%s4) : (!tilus.register<si4, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !i
  %w2 = "tilus.cast"(%u8c) : (!tilus.register<ui8, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !i
  %w3 = "tilus.cast"(%s8) : (!tilus.register<si8, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !i
  %w4 = "tilus.cast"(%s3) : (!tilus.register<si3, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !i
  %w5 = "tilus.cast"(%u16) : (!tilus.register<ui16, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !i
  %i0 = "tilus.add"(%ra, %w0) : (!i, !i) -> !i
  %i1 = "tilus.add"(%ra, %w1) : (!i, !i) -> !i
  %i2 = "tilus.add"(%ra, %w2) : (!i, !i) -> !i
  %i3 = "tilus.add"(%ra, %w3) : (!i, !i) -> !i
  %i4 = "tilus.add"(%ra, %w4) : (!i, !i) -> !i
  %i5 = "tilus.add"(%ra, %w5) : (!i, !i) -> !i

  %f0 = "tilus.allocate_register"() {value = 1.375 : f64} : () -> !tilus.register<!tilus.float<4, 3>, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %f1 = "tilus.allocate_register"() {value = 0.3 : f64} : () -> !tilus.register<!tilus.float<4, 3>, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %f2 = "tilus.allocate_register"() {value = 5.2 : f64} : () -> !tilus.register<!tilus.float<2, 1>, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %f3 = "tilus.allocate_register"() {value = 2.5 : f64} : () -> !tilus.register<f16, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %f4 = "tilus.allocate_register"() {value = -3.140625 : f64} : () -> !tilus.register<bf16, array<i64: 128>, #tilus.layout<"spatial(128)">>
  %v0 = "tilus.cast"(%f0) : (!tilus.register<!tilus.float<4, 3>, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !f
  %v1 = "tilus.cast"(%f1) : (!tilus.register<!tilus.float<4, 3>, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !f
  %v2 = "tilus.cast"(%f2) : (!tilus.register<!tilus.float<2, 1>, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !f
  %v3 = "tilus.cast"(%f3) : (!tilus.register<f16, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !f
  %v4 = "tilus.cast"(%f4) : (!tilus.register<bf16, array<i64: 128>, #tilus.layout<"spatial(128)">>) -> !f
  %x0 = "tilus.add"(%rx, %v0) : (!f, !f) -> !f
  %x1 = "tilus.add"(%rx, %v1) : (!f, !f) -> !f
  %x2 = "tilus.add"(%rx, %v2) : (!f, !f) -> !f
  %x3 = "tilus.add"(%rx, %v3) : (!f, !f) -> !f
  %x4 = "tilus.add"(%rx, %v4) : (!f, !f) -> !f
  %x5 = "tilus.load_global"(%gx, %off64) {fill_value = -1.5 : f64, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gf, index) -> !f
  %q6 = "tilus.load_global"(%gq, %off64) {fill_value = 9 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g4, index) -> !r4
  %i6 = "tilus.cast"(%q6) : (!r4) -> !i
  %b5 = "tilus.load_global"(%gb, %off64) {fill_value = 255 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gb, index) -> !b

  %gok0 = arith.constant 0 : index
  "tilus.store_global"(%i0, %go, %gok0, %off) : (!i, !gi6, index, index) -> ()
  %gok1 = arith.constant 1 : index
  "tilus.store_global"(%i1, %go, %gok1, %off) : (!i, !gi6, index, index) -> ()
  %gok2 = arith.constant 2 : index
  "tilus.store_global"(%i2, %go, %gok2, %off) : (!i, !gi6, index, index) -> ()
  %gok3 = arith.constant 3 : index
  "tilus.store_global"(%i3, %go, %gok3, %off) : (!i, !gi6, index, index) -> ()
  %gok4 = arith.constant 4 : index
  "tilus.store_global"(%i4, %go, %gok4, %off) : (!i, !gi6, index, index) -> ()
  %gok5 = arith.constant 5 : index
  "tilus.store_global"(%i5, %go, %gok5, %off) : (!i, !gi6, index, index) -> ()
  %gfk0 = arith.constant 0 : index
  "tilus.store_global"(%x0, %gf, %gfk0, %off) : (!f, !gf6, index, index) -> ()
  %gfk1 = arith.constant 1 : index
  "tilus.store_global"(%x1, %gf, %gfk1, %off) : (!f, !gf6, index, index) -> ()
  %gfk2 = arith.constant 2 : index
  "tilus.store_global"(%x2, %gf, %gfk2, %off) : (!f, !gf6, index, index) -> ()
  %gfk3 = arith.constant 3 : index
  "tilus.store_global"(%x3, %gf, %gfk3, %off) : (!f, !gf6, index, index) -> ()
  %gfk4 = arith.constant 4 : index
  "tilus.store_global"(%x4, %gf, %gfk4, %off) : (!f, !gf6, index, index) -> ()
  %gfk5 = arith.constant 5 : index
  "tilus.store_global"(%x5, %gf, %gfk5, %off) : (!f, !gf6, index, index) -> ()
  %gok6 = arith.constant 6 : index
  "tilus.store_global"(%i6, %go, %gok6, %off) : (!i, !gi6, index, index) -> ()
  "tilus.store_global"(%b5, %gu, %off) : (!b, !gb, index) -> ()
  return
}
