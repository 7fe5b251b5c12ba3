// Reduce on the GPU, each kernel one tile (test/gpu/suite/DataMovementTests.c
// compares with a CPU reference). The layouts cover the three stages:
//   reduce_f32: row sums and column maxima of a [32, 8] tile spread over
//     lanes (in-thread + shuffles), row minima with a row per thread
//     (in-thread only);
//   reduce_f16: row sums (f32 accumulation) and maxima of an [8, 256] tile
//     whose rows span 4 warps (in-thread + shuffles + shared memory);
//   reduce_int: column sums of a [16, 64] i32 tile whose columns span warps
//     but no lanes (in-thread + shared only), row sums (shuffles), and row
//     minima of a ui8 tile (unsigned, widened to i32 for the shuffles).
!f = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!f_rows = !tilus.register<f32, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
!f_cols = !tilus.register<f32, array<i64: 8>, #tilus.layout<"reduce(spatial(8,4),dims=[0]).local(2)">>
!f_t = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!f_t_rows = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32).local(1)">>
!g_f = !tilus.global<f32, array<i64: 32, 8>, #tilus.row_major>
!g_f32 = !tilus.global<f32, array<i64: 32>, #tilus.row_major>
!g_f8 = !tilus.global<f32, array<i64: 8>, #tilus.row_major>
func.func @reduce_f32(%src: !tilus.ptr<f32>, %rowsum: !tilus.ptr<f32>, %colmax: !tilus.ptr<f32>, %rowmin: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<f32>) -> !g_f
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_f, index, index) -> !f
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!f) -> !f_rows
  %m = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "max"} : (!f) -> !f_cols
  %y = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_f, index, index) -> !f_t
  %n = "tilus.reduce"(%y) {dims = array<i64: 1>, kind = "min"} : (!f_t) -> !f_t_rows
  %gs = "tilus.view_global"(%rowsum) : (!tilus.ptr<f32>) -> !g_f32
  %gm = "tilus.view_global"(%colmax) : (!tilus.ptr<f32>) -> !g_f8
  %gn = "tilus.view_global"(%rowmin) : (!tilus.ptr<f32>) -> !g_f32
  "tilus.store_global"(%s, %gs, %c0) : (!f_rows, !g_f32, index) -> ()
  "tilus.store_global"(%m, %gm, %c0) : (!f_cols, !g_f8, index) -> ()
  "tilus.store_global"(%n, %gn, %c0) : (!f_t_rows, !g_f32, index) -> ()
  return
}

!h = !tilus.register<f16, array<i64: 8, 256>, #tilus.layout<"local(8,1).spatial(1,128).local(1,2)">>
!h_rows = !tilus.register<f16, array<i64: 8>, #tilus.layout<"local(8).reduce(spatial(1,128),dims=[1])">>
!g_h = !tilus.global<f16, array<i64: 8, 256>, #tilus.row_major>
!g_h8 = !tilus.global<f16, array<i64: 8>, #tilus.row_major>
func.func @reduce_f16(%src: !tilus.ptr<f16>, %rowsum: !tilus.ptr<f16>, %rowmax: !tilus.ptr<f16>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<f16>) -> !g_h
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_h, index, index) -> !h
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!h) -> !h_rows
  %m = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "max"} : (!h) -> !h_rows
  %gs = "tilus.view_global"(%rowsum) : (!tilus.ptr<f16>) -> !g_h8
  %gm = "tilus.view_global"(%rowmax) : (!tilus.ptr<f16>) -> !g_h8
  "tilus.store_global"(%s, %gs, %c0) : (!h_rows, !g_h8, index) -> ()
  "tilus.store_global"(%m, %gm, %c0) : (!h_rows, !g_h8, index) -> ()
  return
}

!i = !tilus.register<i32, array<i64: 16, 64>, #tilus.layout<"spatial(4,32).local(4,2)">>
!i_cols = !tilus.register<i32, array<i64: 64>, #tilus.layout<"reduce(spatial(4,32),dims=[0]).local(2)">>
!i_rows = !tilus.register<i32, array<i64: 16>, #tilus.layout<"reduce(spatial(4,32),dims=[1]).local(4)">>
!u = !tilus.register<ui8, array<i64: 16, 64>, #tilus.layout<"spatial(4,32).local(4,2)">>
!u_rows = !tilus.register<ui8, array<i64: 16>, #tilus.layout<"reduce(spatial(4,32),dims=[1]).local(4)">>
!g_i = !tilus.global<i32, array<i64: 16, 64>, #tilus.row_major>
!g_i64 = !tilus.global<i32, array<i64: 64>, #tilus.row_major>
!g_i16 = !tilus.global<i32, array<i64: 16>, #tilus.row_major>
!g_u = !tilus.global<ui8, array<i64: 16, 64>, #tilus.row_major>
!g_u16 = !tilus.global<ui8, array<i64: 16>, #tilus.row_major>
func.func @reduce_int(%src: !tilus.ptr<i32>, %colsum: !tilus.ptr<i32>, %rowsum: !tilus.ptr<i32>, %usrc: !tilus.ptr<ui8>, %umin: !tilus.ptr<ui8>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<i32>) -> !g_i
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_i, index, index) -> !i
  %cs = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "sum"} : (!i) -> !i_cols
  %rs = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!i) -> !i_rows
  %gu = "tilus.view_global"(%usrc) : (!tilus.ptr<ui8>) -> !g_u
  %y = "tilus.load_global"(%gu, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_u, index, index) -> !u
  %um = "tilus.reduce"(%y) {dims = array<i64: 1>, kind = "min"} : (!u) -> !u_rows
  %gcs = "tilus.view_global"(%colsum) : (!tilus.ptr<i32>) -> !g_i64
  %grs = "tilus.view_global"(%rowsum) : (!tilus.ptr<i32>) -> !g_i16
  %gum = "tilus.view_global"(%umin) : (!tilus.ptr<ui8>) -> !g_u16
  "tilus.store_global"(%cs, %gcs, %c0) : (!i_cols, !g_i64, index) -> ()
  "tilus.store_global"(%rs, %grs, %c0) : (!i_rows, !g_i16, index) -> ()
  "tilus.store_global"(%um, %gum, %c0) : (!u_rows, !g_u16, index) -> ()
  return
}

// reduce_3d: sums over dims 0 and 2 of a [4, 8, 16] i32 tile on 128 threads
// (lanes along dim 2 and dim 1, warps along dim 0: shuffles for dim 2, the
// shared stage for dim 0), and the maxima over dim 1 (lanes only).
!t = !tilus.register<i32, array<i64: 4, 8, 16>, #tilus.layout<"spatial(4,4,8).local(1,2,2)">>
!t_02 = !tilus.register<i32, array<i64: 8>, #tilus.layout<"reduce(spatial(4,4,8),dims=[0,2]).local(2)">>
!t_1 = !tilus.register<i32, array<i64: 4, 16>, #tilus.layout<"reduce(spatial(4,4,8),dims=[1]).local(1,2)">>
!g_t = !tilus.global<i32, array<i64: 4, 8, 16>, #tilus.row_major>
!g_t8 = !tilus.global<i32, array<i64: 8>, #tilus.row_major>
!g_t416 = !tilus.global<i32, array<i64: 4, 16>, #tilus.row_major>
func.func @reduce_3d(%src: !tilus.ptr<i32>, %sum02: !tilus.ptr<i32>, %max1: !tilus.ptr<i32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<i32>) -> !g_t
  %x = "tilus.load_global"(%g, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!g_t, index, index, index) -> !t
  %s = "tilus.reduce"(%x) {dims = array<i64: 0, 2>, kind = "sum"} : (!t) -> !t_02
  %m = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "max"} : (!t) -> !t_1
  %gs = "tilus.view_global"(%sum02) : (!tilus.ptr<i32>) -> !g_t8
  %gm = "tilus.view_global"(%max1) : (!tilus.ptr<i32>) -> !g_t416
  "tilus.store_global"(%s, %gs, %c0) : (!t_02, !g_t8, index) -> ()
  "tilus.store_global"(%m, %gm, %c0, %c0) : (!t_1, !g_t416, index, index) -> ()
  return
}

// reduce_i64: row sums (shuffles of two 32-bit halves) and column sums (the
// shared stage, 64-bit scratch) of a [16, 64] i64 tile on 128 threads.
!l = !tilus.register<i64, array<i64: 16, 64>, #tilus.layout<"spatial(4,32).local(4,2)">>
!l_cols = !tilus.register<i64, array<i64: 64>, #tilus.layout<"reduce(spatial(4,32),dims=[0]).local(2)">>
!l_rows = !tilus.register<i64, array<i64: 16>, #tilus.layout<"reduce(spatial(4,32),dims=[1]).local(4)">>
!g_l = !tilus.global<i64, array<i64: 16, 64>, #tilus.row_major>
!g_l64 = !tilus.global<i64, array<i64: 64>, #tilus.row_major>
!g_l16 = !tilus.global<i64, array<i64: 16>, #tilus.row_major>
func.func @reduce_i64(%src: !tilus.ptr<i64>, %colsum: !tilus.ptr<i64>, %rowsum: !tilus.ptr<i64>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<i64>) -> !g_l
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_l, index, index) -> !l
  %cs = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "sum"} : (!l) -> !l_cols
  %rs = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!l) -> !l_rows
  %gcs = "tilus.view_global"(%colsum) : (!tilus.ptr<i64>) -> !g_l64
  %grs = "tilus.view_global"(%rowsum) : (!tilus.ptr<i64>) -> !g_l16
  "tilus.store_global"(%cs, %gcs, %c0) : (!l_cols, !g_l64, index) -> ()
  "tilus.store_global"(%rs, %grs, %c0) : (!l_rows, !g_l16, index) -> ()
  return
}

// reduce_arg: the index of the first maximum of each row of an [8, 256] f32
// tile whose rows span 4 warps (shuffles and the shared stage, values and
// indices), the first minimum of each column of a [16, 64] i32 tile across
// warps only, and the first maximum of each row of a ui8 tile (unsigned
// comparison, shuffles). Inputs have many ties: the lowest index wins.
!af = !tilus.register<f32, array<i64: 8, 256>, #tilus.layout<"local(8,1).spatial(1,128).local(1,2)">>
!af_r = !tilus.register<i32, array<i64: 8>, #tilus.layout<"local(8).reduce(spatial(1,128),dims=[1])">>
!g_af = !tilus.global<f32, array<i64: 8, 256>, #tilus.row_major>
!g_af8 = !tilus.global<i32, array<i64: 8>, #tilus.row_major>
!ai = !tilus.register<i32, array<i64: 16, 64>, #tilus.layout<"spatial(4,32).local(4,2)">>
!ai_c = !tilus.register<i32, array<i64: 64>, #tilus.layout<"reduce(spatial(4,32),dims=[0]).local(2)">>
!au = !tilus.register<ui8, array<i64: 16, 64>, #tilus.layout<"spatial(4,32).local(4,2)">>
!au_r = !tilus.register<i32, array<i64: 16>, #tilus.layout<"reduce(spatial(4,32),dims=[1]).local(4)">>
func.func @reduce_arg(%src: !tilus.ptr<f32>, %amax: !tilus.ptr<i32>, %isrc: !tilus.ptr<i32>, %amin: !tilus.ptr<i32>,
                      %usrc: !tilus.ptr<ui8>, %umax: !tilus.ptr<i32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<f32>) -> !g_af
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_af, index, index) -> !af
  %m = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "argmax"} : (!af) -> !af_r
  %gm = "tilus.view_global"(%amax) : (!tilus.ptr<i32>) -> !g_af8
  "tilus.store_global"(%m, %gm, %c0) : (!af_r, !g_af8, index) -> ()
  %gi = "tilus.view_global"(%isrc) : (!tilus.ptr<i32>) -> !g_i
  %y = "tilus.load_global"(%gi, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_i, index, index) -> !ai
  %n = "tilus.reduce"(%y) {dims = array<i64: 0>, kind = "argmin"} : (!ai) -> !ai_c
  %gn = "tilus.view_global"(%amin) : (!tilus.ptr<i32>) -> !g_i64
  "tilus.store_global"(%n, %gn, %c0) : (!ai_c, !g_i64, index) -> ()
  %gu = "tilus.view_global"(%usrc) : (!tilus.ptr<ui8>) -> !g_u
  %z = "tilus.load_global"(%gu, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_u, index, index) -> !au
  %u = "tilus.reduce"(%z) {dims = array<i64: 1>, kind = "argmax"} : (!au) -> !au_r
  %gum = "tilus.view_global"(%umax) : (!tilus.ptr<i32>) -> !g_i16
  "tilus.store_global"(%u, %gum, %c0) : (!au_r, !g_i16, index) -> ()
  return
}

// reduce_short: 48 threads, so the last warp has 16 lanes: row sums of a
// [6, 16] tile by shuffles among 16 lanes, and column maxima across the
// three groups of 16 (two in warp 0, one in the short warp 1: shared).
!s = !tilus.register<f32, array<i64: 6, 16>, #tilus.layout<"spatial(3,16).local(2,1)">>
!s_rows = !tilus.register<f32, array<i64: 6>, #tilus.layout<"reduce(spatial(3,16),dims=[1]).local(2)">>
!s_cols = !tilus.register<f32, array<i64: 16>, #tilus.layout<"reduce(spatial(3,16),dims=[0])">>
!g_s = !tilus.global<f32, array<i64: 6, 16>, #tilus.row_major>
!g_s6 = !tilus.global<f32, array<i64: 6>, #tilus.row_major>
!g_s16 = !tilus.global<f32, array<i64: 16>, #tilus.row_major>
func.func @reduce_short(%src: !tilus.ptr<f32>, %rowsum: !tilus.ptr<f32>, %colmax: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 48 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%src) : (!tilus.ptr<f32>) -> !g_s
  %x = "tilus.load_global"(%g, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g_s, index, index) -> !s
  %r = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!s) -> !s_rows
  %m = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "max"} : (!s) -> !s_cols
  %gr = "tilus.view_global"(%rowsum) : (!tilus.ptr<f32>) -> !g_s6
  %gm = "tilus.view_global"(%colmax) : (!tilus.ptr<f32>) -> !g_s16
  "tilus.store_global"(%r, %gr, %c0) : (!s_rows, !g_s6, index) -> ()
  "tilus.store_global"(%m, %gm, %c0) : (!s_cols, !g_s16, index) -> ()
  return
}
