// Casts between standard types on 256 elements per block: f32 -> bf16, f32 ->
// i8 (toward zero), f32 -> ui8, and bf16 -> f16 (through f32), then Exit:
// the stores after it must not happen.
!gf = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!gb = !tilus.global<bf16, array<i64: -1>, #tilus.row_major>
!gh = !tilus.global<f16, array<i64: -1>, #tilus.row_major>
!gi = !tilus.global<i8, array<i64: -1>, #tilus.row_major>
!gu = !tilus.global<ui8, array<i64: -1>, #tilus.row_major>
!f = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(64).local(4)">>
!b = !tilus.register<bf16, array<i64: 256>, #tilus.layout<"spatial(64).local(4)">>
!h = !tilus.register<f16, array<i64: 256>, #tilus.layout<"spatial(64).local(4)">>
!i = !tilus.register<i8, array<i64: 256>, #tilus.layout<"spatial(64).local(4)">>
!u = !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(64).local(4)">>
func.func @casts_std(%src: !tilus.ptr<f32>, %pb: !tilus.ptr<bf16>, %ph: !tilus.ptr<f16>,
                     %pi: !tilus.ptr<i8>, %pu: !tilus.ptr<ui8>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 64 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s5 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %gs = "tilus.view_global"(%src, %N) : (!tilus.ptr<f32>, index) -> !gf
  %gb = "tilus.view_global"(%pb, %N) : (!tilus.ptr<bf16>, index) -> !gb
  %gh = "tilus.view_global"(%ph, %N) : (!tilus.ptr<f16>, index) -> !gh
  %gi = "tilus.view_global"(%pi, %N) : (!tilus.ptr<i8>, index) -> !gi
  %gu = "tilus.view_global"(%pu, %N) : (!tilus.ptr<ui8>, index) -> !gu
  %x = "tilus.load_global"(%gs, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gf, index) -> !f
  %xb = "tilus.cast"(%x) : (!f) -> !b
  %xh = "tilus.cast"(%xb) : (!b) -> !h
  %xi = "tilus.cast"(%x) : (!f) -> !i
  %xu = "tilus.cast"(%x) : (!f) -> !u
  "tilus.store_global"(%xb, %gb, %off) : (!b, !gb, index) -> ()
  "tilus.store_global"(%xh, %gh, %off) : (!h, !gh, index) -> ()
  "tilus.store_global"(%xi, %gi, %off) : (!i, !gi, index) -> ()
  "tilus.store_global"(%xu, %gu, %off) : (!u, !gu, index) -> ()
  "tilus.exit"() : () -> ()
  %zero = "tilus.allocate_register"() : () -> !i
  "tilus.store_global"(%zero, %gi, %off) : (!i, !gi, index) -> ()
  return
}
