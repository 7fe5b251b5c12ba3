// Integer elementwise instructions on i32 and (viewed) ui32, 256 elements
// per block; out[k, i] for k = 0..15 (a [16, N] tensor) (see ElementwiseTests.c for the
// reference): max, min, and, or, xor, shl, shr (arithmetic), shr of ui32
// (logical), max of ui32, where(ui32 a < b, a - b, b ^ 7), clamp(a, -1000,
// 1000), not, abs, where(a <= b, 1, 0), where(ui32 a >= b, 1, 0),
// (a == b) + 7 (a != b) - 31 (a > b). shl and shr of i32 shift by b, read as
// unsigned (an amount of 32 or more gives 0, or the sign fill for the
// arithmetic shr); the logical shr of ui32 by b & 31.
!gi = !tilus.global<i32, array<i64: -1>, #tilus.row_major>
!go = !tilus.global<i32, array<i64: 16, -1>, #tilus.row_major>
!i = !tilus.register<i32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!u = !tilus.register<ui32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
!b = !tilus.register<i1, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
func.func @elementwise_int(%a: !tilus.ptr<i32>, %bp: !tilus.ptr<i32>, %out: !tilus.ptr<i32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3] -> (s3 ceildiv 256)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c256 = arith.constant 256 : index
  %off = arith.muli %bi, %c256 : index
  %ga = "tilus.view_global"(%a, %N) : (!tilus.ptr<i32>, index) -> !gi
  %gb = "tilus.view_global"(%bp, %N) : (!tilus.ptr<i32>, index) -> !gi
  %go = "tilus.view_global"(%out, %N) : (!tilus.ptr<i32>, index) -> !go
  %ra = "tilus.load_global"(%ga, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gi, index) -> !i
  %rb = "tilus.load_global"(%gb, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!gi, index) -> !i
  %ua = "tilus.view"(%ra) : (!i) -> !u
  %ub = "tilus.view"(%rb) : (!i) -> !u
  %c31 = arith.constant 31 : i32
  %c1 = arith.constant 1 : i32
  %c0i = arith.constant 0 : i32
  %lo = arith.constant -1000 : i32
  %hi = arith.constant 1000 : i32
  %c7 = arith.constant 7 : i32
  %sh = "tilus.and"(%rb, %c31) : (!i, i32) -> !i
  %ush = "tilus.view"(%sh) : (!i) -> !u
  %o0 = "tilus.max"(%ra, %rb) : (!i, !i) -> !i
  %o1 = "tilus.min"(%ra, %rb) : (!i, !i) -> !i
  %o2 = "tilus.and"(%ra, %rb) : (!i, !i) -> !i
  %o3 = "tilus.or"(%ra, %rb) : (!i, !i) -> !i
  %o4 = "tilus.xor"(%ra, %rb) : (!i, !i) -> !i
  %o5 = "tilus.shl"(%ra, %rb) : (!i, !i) -> !i
  %o6 = "tilus.shr"(%ra, %rb) : (!i, !i) -> !i
  %u7 = "tilus.shr"(%ua, %ush) : (!u, !u) -> !u
  %o7 = "tilus.view"(%u7) : (!u) -> !i
  %u8 = "tilus.max"(%ua, %ub) : (!u, !u) -> !u
  %o8 = "tilus.view"(%u8) : (!u) -> !i
  %ltu = "tilus.cmp"(%ua, %ub) {predicate = "lt"} : (!u, !u) -> !b
  %d = "tilus.sub"(%ra, %rb) : (!i, !i) -> !i
  %x7 = "tilus.xor"(%rb, %c7) : (!i, i32) -> !i
  %o9 = "tilus.where"(%ltu, %d, %x7) : (!b, !i, !i) -> !i
  %o10 = "tilus.clamp"(%ra, %lo, %hi) : (!i, i32, i32) -> !i
  %o11 = "tilus.not"(%ra) : (!i) -> !i
  %o12 = "tilus.abs"(%ra) : (!i) -> !i
  %les = "tilus.cmp"(%ra, %rb) {predicate = "le"} : (!i, !i) -> !b
  %o13 = "tilus.where"(%les, %c1, %c0i) : (!b, i32, i32) -> !i
  %geu = "tilus.cmp"(%ua, %ub) {predicate = "ge"} : (!u, !u) -> !b
  %o14 = "tilus.where"(%geu, %c1, %c0i) : (!b, i32, i32) -> !i
  %eq = "tilus.cmp"(%ra, %rb) {predicate = "eq"} : (!i, !i) -> !b
  %ne = "tilus.cmp"(%ra, %rb) {predicate = "ne"} : (!i, !i) -> !b
  %gt = "tilus.cmp"(%ra, %rb) {predicate = "gt"} : (!i, !i) -> !b
  %eqv = "tilus.where"(%eq, %c1, %c0i) : (!b, i32, i32) -> !i
  %nev = "tilus.where"(%ne, %c7, %c0i) : (!b, i32, i32) -> !i
  %gtv = "tilus.where"(%gt, %c31, %c0i) : (!b, i32, i32) -> !i
  %s1 = "tilus.add"(%eqv, %nev) : (!i, !i) -> !i
  %o15 = "tilus.sub"(%s1, %gtv) : (!i, !i) -> !i
  %k0 = arith.constant 0 : index
  "tilus.store_global"(%o0, %go, %k0, %off) : (!i, !go, index, index) -> ()
  %k1 = arith.constant 1 : index
  "tilus.store_global"(%o1, %go, %k1, %off) : (!i, !go, index, index) -> ()
  %k2 = arith.constant 2 : index
  "tilus.store_global"(%o2, %go, %k2, %off) : (!i, !go, index, index) -> ()
  %k3 = arith.constant 3 : index
  "tilus.store_global"(%o3, %go, %k3, %off) : (!i, !go, index, index) -> ()
  %k4 = arith.constant 4 : index
  "tilus.store_global"(%o4, %go, %k4, %off) : (!i, !go, index, index) -> ()
  %k5 = arith.constant 5 : index
  "tilus.store_global"(%o5, %go, %k5, %off) : (!i, !go, index, index) -> ()
  %k6 = arith.constant 6 : index
  "tilus.store_global"(%o6, %go, %k6, %off) : (!i, !go, index, index) -> ()
  %k7 = arith.constant 7 : index
  "tilus.store_global"(%o7, %go, %k7, %off) : (!i, !go, index, index) -> ()
  %k8 = arith.constant 8 : index
  "tilus.store_global"(%o8, %go, %k8, %off) : (!i, !go, index, index) -> ()
  %k9 = arith.constant 9 : index
  "tilus.store_global"(%o9, %go, %k9, %off) : (!i, !go, index, index) -> ()
  %k10 = arith.constant 10 : index
  "tilus.store_global"(%o10, %go, %k10, %off) : (!i, !go, index, index) -> ()
  %k11 = arith.constant 11 : index
  "tilus.store_global"(%o11, %go, %k11, %off) : (!i, !go, index, index) -> ()
  %k12 = arith.constant 12 : index
  "tilus.store_global"(%o12, %go, %k12, %off) : (!i, !go, index, index) -> ()
  %k13 = arith.constant 13 : index
  "tilus.store_global"(%o13, %go, %k13, %off) : (!i, !go, index, index) -> ()
  %k14 = arith.constant 14 : index
  "tilus.store_global"(%o14, %go, %k14, %off) : (!i, !go, index, index) -> ()
  %k15 = arith.constant 15 : index
  "tilus.store_global"(%o15, %go, %k15, %off) : (!i, !go, index, index) -> ()
  return
}
