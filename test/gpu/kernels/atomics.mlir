// Atomics (test/gpu/suite/AtomicTests.c compares each with a CPU reference).
//
// atomic_add_*: every block (s, i, j) of a grid (g, ceil(m/16), ceil(n/32))
// adds the 16x32 tile (i, j) of input slice s into the m x n output with
// tilus.atomic_add_global, so g blocks add into each output element; tiles
// overhang the edges (masked). Small integers keep float sums exact in any
// order; integer sums are exact anyway.
//   f32, i32: one atomicrmw per element
//   f16, bf16 with 64 columns (rows provably even): packed f16x2 / bf16x2
//     red where the target has it (bf16x2: sm_90), elements otherwise
//   f16 with run-time columns: one f16 atomic per element
// atomic_scalars: the scalar atomics, once per block, on global and shared
// memory (see the kernel).
// splitk_semaphore: split-K in block order with the semaphore pair.

// f32 adds, edges in both dimensions.
func.func @atomic_add_f32(%pin: !tilus.ptr<f32>, %pout: !tilus.ptr<f32>, %g: i32, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s2, s3 ceildiv 16, s4 ceildiv 32)>} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %G = arith.index_cast %g : i32 to index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %s, %bi, %bj = "tilus.block_indices"() : () -> (index, index, index)
  %row = arith.muli %bi, %c16 : index
  %col = arith.muli %bj, %c32 : index
  %in = "tilus.view_global"(%pin, %G, %M, %N) : (!tilus.ptr<f32>, index, index, index) -> !tilus.global<f32, array<i64: -1, -1, -1>, #tilus.row_major>
  %out = "tilus.view_global"(%pout, %M, %N) : (!tilus.ptr<f32>, index, index) -> !tilus.global<f32, array<i64: -1, -1>, #tilus.row_major>
  %t = "tilus.load_global"(%in, %s, %row, %col) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!tilus.global<f32, array<i64: -1, -1, -1>, #tilus.row_major>, index, index, index) -> !tilus.register<f32, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>
  "tilus.atomic_add_global"(%t, %out, %row, %col) : (!tilus.register<f32, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>, !tilus.global<f32, array<i64: -1, -1>, #tilus.row_major>, index, index) -> ()
  return
}

// i32 adds (any values; wrap-around is exact too).
func.func @atomic_add_i32(%pin: !tilus.ptr<i32>, %pout: !tilus.ptr<i32>, %g: i32, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s2, s3 ceildiv 16, s4 ceildiv 32)>} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %G = arith.index_cast %g : i32 to index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %s, %bi, %bj = "tilus.block_indices"() : () -> (index, index, index)
  %row = arith.muli %bi, %c16 : index
  %col = arith.muli %bj, %c32 : index
  %in = "tilus.view_global"(%pin, %G, %M, %N) : (!tilus.ptr<i32>, index, index, index) -> !tilus.global<i32, array<i64: -1, -1, -1>, #tilus.row_major>
  %out = "tilus.view_global"(%pout, %M, %N) : (!tilus.ptr<i32>, index, index) -> !tilus.global<i32, array<i64: -1, -1>, #tilus.row_major>
  %t = "tilus.load_global"(%in, %s, %row, %col) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!tilus.global<i32, array<i64: -1, -1, -1>, #tilus.row_major>, index, index, index) -> !tilus.register<i32, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>
  "tilus.atomic_add_global"(%t, %out, %row, %col) : (!tilus.register<i32, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>, !tilus.global<i32, array<i64: -1, -1>, #tilus.row_major>, index, index) -> ()
  return
}

// f16 pairs: red.global.add.noftz.f16x2.
func.func @atomic_add_f16(%pin: !tilus.ptr<f16>, %pout: !tilus.ptr<f16>, %g: i32, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s2, s3 ceildiv 16, s4 ceildiv 32)>} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %G = arith.index_cast %g : i32 to index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %s, %bi, %bj = "tilus.block_indices"() : () -> (index, index, index)
  %row = arith.muli %bi, %c16 : index
  %col = arith.muli %bj, %c32 : index
  %in = "tilus.view_global"(%pin, %G, %M, %N) : (!tilus.ptr<f16>, index, index, index) -> !tilus.global<f16, array<i64: -1, -1, -1>, #tilus.row_major>
  %out = "tilus.view_global"(%pout, %M) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
  %t = "tilus.load_global"(%in, %s, %row, %col) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!tilus.global<f16, array<i64: -1, -1, -1>, #tilus.row_major>, index, index, index) -> !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>
  "tilus.atomic_add_global"(%t, %out, %row, %col) : (!tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>, !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index, index) -> ()
  return
}

// f16 with run-time (odd) rows: one f16 atomic add per element.
func.func @atomic_add_f16_odd(%pin: !tilus.ptr<f16>, %pout: !tilus.ptr<f16>, %g: i32, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s2, s3 ceildiv 16, s4 ceildiv 32)>} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %G = arith.index_cast %g : i32 to index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %s, %bi, %bj = "tilus.block_indices"() : () -> (index, index, index)
  %row = arith.muli %bi, %c16 : index
  %col = arith.muli %bj, %c32 : index
  %in = "tilus.view_global"(%pin, %G, %M, %N) : (!tilus.ptr<f16>, index, index, index) -> !tilus.global<f16, array<i64: -1, -1, -1>, #tilus.row_major>
  %out = "tilus.view_global"(%pout, %M, %N) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  %t = "tilus.load_global"(%in, %s, %row, %col) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!tilus.global<f16, array<i64: -1, -1, -1>, #tilus.row_major>, index, index, index) -> !tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>
  "tilus.atomic_add_global"(%t, %out, %row, %col) : (!tilus.register<f16, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, index, index) -> ()
  return
}

// bf16 pairs: .bf16x2 on sm_90, a compare-and-swap loop per element on sm_80.
func.func @atomic_add_bf16(%pin: !tilus.ptr<bf16>, %pout: !tilus.ptr<bf16>, %g: i32, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4] -> (s2, s3 ceildiv 16, s4 ceildiv 32)>} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %G = arith.index_cast %g : i32 to index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %s, %bi, %bj = "tilus.block_indices"() : () -> (index, index, index)
  %row = arith.muli %bi, %c16 : index
  %col = arith.muli %bj, %c32 : index
  %in = "tilus.view_global"(%pin, %G, %M, %N) : (!tilus.ptr<bf16>, index, index, index) -> !tilus.global<bf16, array<i64: -1, -1, -1>, #tilus.row_major>
  %out = "tilus.view_global"(%pout, %M) : (!tilus.ptr<bf16>, index) -> !tilus.global<bf16, array<i64: -1, 64>, #tilus.row_major>
  %t = "tilus.load_global"(%in, %s, %row, %col) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!tilus.global<bf16, array<i64: -1, -1, -1>, #tilus.row_major>, index, index, index) -> !tilus.register<bf16, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>
  "tilus.atomic_add_global"(%t, %out, %row, %col) : (!tilus.register<bf16, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>, !tilus.global<bf16, array<i64: -1, 64>, #tilus.row_major>, index, index) -> ()
  return
}

// The scalar atomics, each done once per block (thread 0) with the old value
// given to every thread. Block b (of g) computes v = (37 b mod 101) - 50 and
//   ints[0] += 1, the old value exchanged into olds[b] (a permutation of
//     0..g-1 in the end; exchange's own old value is dropped)
//   ints[1] = max(ints[1], v) (signed)
//   uints[0] = min(uints[0], v) (unsigned: the least v >= 0)
//   floats[0] += v; floats[1] = max(floats[1], v / 2)
//   ints[2]: CAS from 0 to b + 1, its old value exchanged into cas_olds[b]
//     (exactly one block sees 0)
//   a shared i32 counter, zeroed, gets 0 + 1 + ... + 7 in a loop; its last
//   old value (21) plus 7 goes to ints[3] with max.
func.func @atomic_scalars(%pints: !tilus.ptr<i32>, %puints: !tilus.ptr<ui32>, %pfloats: !tilus.ptr<f32>, %polds: !tilus.ptr<i32>, %pcas: !tilus.ptr<i32>, %g: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s5)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i7 = arith.constant 7 : i32
  %i37 = arith.constant 37 : i32
  %i50 = arith.constant 50 : i32
  %i101 = arith.constant 101 : i32
  %half = arith.constant 0.5 : f32
  %G = arith.index_cast %g : i32 to index
  %b = "tilus.block_indices"() : () -> index
  %bi = arith.index_cast %b : index to i32
  %m = arith.muli %bi, %i37 : i32
  %r = arith.remsi %m, %i101 : i32
  %v = arith.subi %r, %i50 : i32
  %vf = arith.sitofp %v : i32 to f32
  %vh = arith.mulf %vf, %half : f32
  %ints = "tilus.view_global"(%pints) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  %uints = "tilus.view_global"(%puints) : (!tilus.ptr<ui32>) -> !tilus.global<ui32, array<i64: 1>, #tilus.row_major>
  %floats = "tilus.view_global"(%pfloats) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 2>, #tilus.row_major>
  %olds = "tilus.view_global"(%polds, %G) : (!tilus.ptr<i32>, index) -> !tilus.global<i32, array<i64: -1>, #tilus.row_major>
  %cas = "tilus.view_global"(%pcas, %G) : (!tilus.ptr<i32>, index) -> !tilus.global<i32, array<i64: -1>, #tilus.row_major>
  %old = "tilus.atomic_rmw"(%ints, %c0, %i1) {kind = "add"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  %x = "tilus.atomic_rmw"(%olds, %b, %old) {kind = "exchange"} : (!tilus.global<i32, array<i64: -1>, #tilus.row_major>, index, i32) -> i32
  %mx = "tilus.atomic_rmw"(%ints, %c1, %v) {kind = "max"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  %mn = "tilus.atomic_rmw"(%uints, %c0, %v) {kind = "min"} : (!tilus.global<ui32, array<i64: 1>, #tilus.row_major>, index, i32) -> i32
  %fa = "tilus.atomic_rmw"(%floats, %c0, %vf) {kind = "add"} : (!tilus.global<f32, array<i64: 2>, #tilus.row_major>, index, f32) -> f32
  %fm = "tilus.atomic_rmw"(%floats, %c1, %vh) {kind = "max"} : (!tilus.global<f32, array<i64: 2>, #tilus.row_major>, index, f32) -> f32
  %b1 = arith.addi %bi, %i1 : i32
  %co = "tilus.atomic_cas"(%ints, %c2, %i0, %b1) : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32, i32) -> i32
  %y = "tilus.atomic_rmw"(%cas, %b, %co) {kind = "exchange"} : (!tilus.global<i32, array<i64: -1>, #tilus.row_major>, index, i32) -> i32
  %sh = "tilus.allocate_shared"() : () -> !tilus.shared<i32, array<i64: 128>, #tilus.layout<"local(128)">>
  %zeros = "tilus.allocate_register"(%i0) : (i32) -> !tilus.register<i32, array<i64: 128>, #tilus.layout<"spatial(128)">>
  "tilus.store_shared"(%zeros, %sh, %c0) : (!tilus.register<i32, array<i64: 128>, #tilus.layout<"spatial(128)">>, !tilus.shared<i32, array<i64: 128>, #tilus.layout<"local(128)">>, index) -> ()
  "tilus.synchronize"() : () -> ()
  %last = scf.for %k = %c0 to %c8 step %c1 iter_args(%prev = %i0) -> (i32) {
    %ki = arith.index_cast %k : index to i32
    %o = "tilus.atomic_rmw"(%sh, %c5, %ki) {kind = "add"} : (!tilus.shared<i32, array<i64: 128>, #tilus.layout<"local(128)">>, index, i32) -> i32
    scf.yield %o : i32
  }
  %total = arith.addi %last, %i7 : i32
  %z = "tilus.atomic_rmw"(%ints, %c3, %total) {kind = "max"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// Split-K in block order: block (s, i, j) of a grid (splits, ceil(m/16),
// ceil(n/32)) adds partial sum k = splits - 1 - s (the reverse of the
// launch order, so blocks really wait) of tile (i, j) into C: it waits until
// the tile's counter sem[i * ceil(n/32) + j] is k, loads the C tile, adds
// parts[k]'s tile, stores it and signals k + 1. C ends as
// ((C + P0) + P1) + ... in this order, bit-identical to a sequential CPU
// sum of any floats.
!tile = !tilus.register<f32, array<i64: 16, 32>, #tilus.layout<"spatial(8,16).local(2,2)">>
func.func @splitk_semaphore(%pparts: !tilus.ptr<f32>, %pc: !tilus.ptr<f32>, %psem: !tilus.ptr<i32>, %splits: i32, %m: i32, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5] -> (s3, s4 ceildiv 16, s5 ceildiv 32)>} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %i1 = arith.constant 1 : i32
  %S = arith.index_cast %splits : i32 to index
  %M = arith.index_cast %m : i32 to index
  %N = arith.index_cast %n : i32 to index
  %s, %bi, %bj = "tilus.block_indices"() : () -> (index, index, index)
  %last = arith.subi %S, %c1 : index
  %k = arith.subi %last, %s : index
  %ki = arith.index_cast %k : index to i32
  %k1 = arith.addi %ki, %i1 : i32
  %n31 = arith.addi %N, %c31 : index
  %cols = arith.divui %n31, %c32 : index
  %rowTiles = arith.muli %bi, %cols : index
  %tileId = arith.addi %rowTiles, %bj : index
  %row = arith.muli %bi, %c16 : index
  %col = arith.muli %bj, %c32 : index
  %parts = "tilus.view_global"(%pparts, %S, %M, %N) : (!tilus.ptr<f32>, index, index, index) -> !tilus.global<f32, array<i64: -1, -1, -1>, #tilus.row_major>
  %c = "tilus.view_global"(%pc, %M, %N) : (!tilus.ptr<f32>, index, index) -> !tilus.global<f32, array<i64: -1, -1>, #tilus.row_major>
  %c15 = arith.constant 15 : index
  %m15 = arith.addi %M, %c15 : index
  %rows = arith.divui %m15, %c16 : index
  %numTiles = arith.muli %rows, %cols : index
  %sem = "tilus.view_global"(%psem, %numTiles) : (!tilus.ptr<i32>, index) -> !tilus.global<i32, array<i64: -1>, #tilus.row_major>
  %p = "tilus.load_global"(%parts, %k, %row, %col) {operandSegmentSizes = array<i32: 1, 3, 0, 0>} : (!tilus.global<f32, array<i64: -1, -1, -1>, #tilus.row_major>, index, index, index) -> !tile
  "tilus.semaphore_wait"(%sem, %tileId, %ki) : (!tilus.global<i32, array<i64: -1>, #tilus.row_major>, index, i32) -> ()
  %acc = "tilus.load_global"(%c, %row, %col) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!tilus.global<f32, array<i64: -1, -1>, #tilus.row_major>, index, index) -> !tile
  %sum = "tilus.add"(%acc, %p) : (!tile, !tile) -> !tile
  "tilus.store_global"(%sum, %c, %row, %col) : (!tile, !tilus.global<f32, array<i64: -1, -1>, #tilus.row_major>, index, index) -> ()
  "tilus.semaphore_signal"(%sem, %tileId, %k1) : (!tilus.global<i32, array<i64: -1>, #tilus.row_major>, index, i32) -> ()
  return
}
