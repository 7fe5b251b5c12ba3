// Broadcasting without data movement, in f32 and in f16 (broadcast_f16), an [M, 32] matrix a in tiles of
// [8, 32] (spatial(8,4).local(1,8): a row per 4 threads, 8 columns each), a
// column vector r [M, 1] whose threads hold their rows' values (replicated
// over the 4 threads of a row) and a row vector c [1, 32] whose threads hold
// their 8 columns (replicated over the rows):
//   o0 = where(a > r, a - r, a * c)
//   o1 = r + c                           (both operands broadcast)
//   o2 = clamp(a, min(r, c), max(r, c))  (lo and hi [8, 32] from broadcasts)
//   o3 = max(a, r) * 2                   (a scalar operand)
!ga = !tilus.global<f32, array<i64: -1, 32>, #tilus.row_major>
!gr = !tilus.global<f32, array<i64: -1, 1>, #tilus.row_major>
!gc = !tilus.global<f32, array<i64: 1, 32>, #tilus.row_major>
!f = !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!row = !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
!col = !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8)">>
!b = !tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
func.func @broadcast_f32(%a: !tilus.ptr<f32>, %r: !tilus.ptr<f32>, %c: !tilus.ptr<f32>,
                         %o0: !tilus.ptr<f32>, %o1: !tilus.ptr<f32>, %o2: !tilus.ptr<f32>,
                         %o3: !tilus.ptr<f32>, %m: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6, s7] -> (s7 ceildiv 8)>} {
  %M = arith.index_cast %m : i32 to index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %bi = "tilus.block_indices"() : () -> index
  %row0 = arith.muli %bi, %c8 : index
  %gA = "tilus.view_global"(%a, %M) : (!tilus.ptr<f32>, index) -> !ga
  %gR = "tilus.view_global"(%r, %M) : (!tilus.ptr<f32>, index) -> !gr
  %gC = "tilus.view_global"(%c) : (!tilus.ptr<f32>) -> !gc
  %g0 = "tilus.view_global"(%o0, %M) : (!tilus.ptr<f32>, index) -> !ga
  %g1 = "tilus.view_global"(%o1, %M) : (!tilus.ptr<f32>, index) -> !ga
  %g2 = "tilus.view_global"(%o2, %M) : (!tilus.ptr<f32>, index) -> !ga
  %g3 = "tilus.view_global"(%o3, %M) : (!tilus.ptr<f32>, index) -> !ga
  %va = "tilus.load_global"(%gA, %row0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ga, index, index) -> !f
  %vr = "tilus.load_global"(%gR, %row0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gr, index, index) -> !row
  %vc = "tilus.load_global"(%gC, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!gc, index, index) -> !col
  %gt = "tilus.cmp"(%va, %vr) {predicate = "gt"} : (!f, !row) -> !b
  %d = "tilus.sub"(%va, %vr) : (!f, !row) -> !f
  %p = "tilus.mul"(%va, %vc) : (!f, !col) -> !f
  %w0 = "tilus.where"(%gt, %d, %p) : (!b, !f, !f) -> !f
  %w1 = "tilus.add"(%vr, %vc) : (!row, !col) -> !f
  %lo = "tilus.min"(%vr, %vc) : (!row, !col) -> !f
  %hi = "tilus.max"(%vr, %vc) : (!row, !col) -> !f
  %w2 = "tilus.clamp"(%va, %lo, %hi) : (!f, !f, !f) -> !f
  %two = arith.constant 2.0 : f32
  %mx = "tilus.max"(%va, %vr) : (!f, !row) -> !f
  %w3 = "tilus.mul"(%mx, %two) : (!f, f32) -> !f
  "tilus.store_global"(%w0, %g0, %row0, %c0) : (!f, !ga, index, index) -> ()
  "tilus.store_global"(%w1, %g1, %row0, %c0) : (!f, !ga, index, index) -> ()
  "tilus.store_global"(%w2, %g2, %row0, %c0) : (!f, !ga, index, index) -> ()
  "tilus.store_global"(%w3, %g3, %row0, %c0) : (!f, !ga, index, index) -> ()
  return
}

// The same in f16 (small integers: every result exact).
!ha = !tilus.global<f16, array<i64: -1, 32>, #tilus.row_major>
!hr = !tilus.global<f16, array<i64: -1, 1>, #tilus.row_major>
!hc = !tilus.global<f16, array<i64: 1, 32>, #tilus.row_major>
!h = !tilus.register<f16, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
!hrow = !tilus.register<f16, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
!hcol = !tilus.register<f16, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8)">>
!hb = !tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
func.func @broadcast_f16(%a: !tilus.ptr<f16>, %r: !tilus.ptr<f16>, %c: !tilus.ptr<f16>,
                         %o0: !tilus.ptr<f16>, %o1: !tilus.ptr<f16>, %o2: !tilus.ptr<f16>,
                         %o3: !tilus.ptr<f16>, %m: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6, s7] -> (s7 ceildiv 8)>} {
  %M = arith.index_cast %m : i32 to index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %bi = "tilus.block_indices"() : () -> index
  %row0 = arith.muli %bi, %c8 : index
  %gA = "tilus.view_global"(%a, %M) : (!tilus.ptr<f16>, index) -> !ha
  %gR = "tilus.view_global"(%r, %M) : (!tilus.ptr<f16>, index) -> !hr
  %gC = "tilus.view_global"(%c) : (!tilus.ptr<f16>) -> !hc
  %g0 = "tilus.view_global"(%o0, %M) : (!tilus.ptr<f16>, index) -> !ha
  %g1 = "tilus.view_global"(%o1, %M) : (!tilus.ptr<f16>, index) -> !ha
  %g2 = "tilus.view_global"(%o2, %M) : (!tilus.ptr<f16>, index) -> !ha
  %g3 = "tilus.view_global"(%o3, %M) : (!tilus.ptr<f16>, index) -> !ha
  %va = "tilus.load_global"(%gA, %row0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!ha, index, index) -> !h
  %vr = "tilus.load_global"(%gR, %row0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!hr, index, index) -> !hrow
  %vc = "tilus.load_global"(%gC, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!hc, index, index) -> !hcol
  %gt = "tilus.cmp"(%va, %vr) {predicate = "gt"} : (!h, !hrow) -> !hb
  %d = "tilus.sub"(%va, %vr) : (!h, !hrow) -> !h
  %p = "tilus.mul"(%va, %vc) : (!h, !hcol) -> !h
  %w0 = "tilus.where"(%gt, %d, %p) : (!hb, !h, !h) -> !h
  %w1 = "tilus.add"(%vr, %vc) : (!hrow, !hcol) -> !h
  %lo = "tilus.min"(%vr, %vc) : (!hrow, !hcol) -> !h
  %hi = "tilus.max"(%vr, %vc) : (!hrow, !hcol) -> !h
  %w2 = "tilus.clamp"(%va, %lo, %hi) : (!h, !h, !h) -> !h
  %two = arith.constant 2.0 : f16
  %mx = "tilus.max"(%va, %vr) : (!h, !hrow) -> !h
  %w3 = "tilus.mul"(%mx, %two) : (!h, f16) -> !h
  "tilus.store_global"(%w0, %g0, %row0, %c0) : (!h, !ha, index, index) -> ()
  "tilus.store_global"(%w1, %g1, %row0, %c0) : (!h, !ha, index, index) -> ()
  "tilus.store_global"(%w2, %g2, %row0, %c0) : (!h, !ha, index, index) -> ()
  "tilus.store_global"(%w3, %g3, %row0, %c0) : (!h, !ha, index, index) -> ()
  return
}
