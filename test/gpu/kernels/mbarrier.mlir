// targets: sm_90a
// mbarriers (test/gpu/suite/WgmmaTests.c): 128 threads store x [4, 32] into
// shared memory, thread t at (t % 4, t / 4); they arrive on barrier 0 (128
// arrivals per phase) and wait for phase 0, then read the tile back in
// another layout (thread t at (t / 32, t % 32), written by other threads)
// and store 2 x + 1 to y. Barrier 1 (128 arrivals) orders those reads before
// the second round's writes, which go through phase 1 of barrier 0 with the
// tile doubled, into z. No block barrier orders any of it (racecheck would
// see the hazards if the barriers did not); barrier 2 (one arrival) completes
// phase 0 from thread 0's arrive.expect_tx with no bytes.
!s = !tilus.shared<f32, array<i64: 4, 32>, #tilus.layout<"local(4,32)">>
!b = !tilus.shared<i64, array<i64: 3>, #tilus.layout<"local(3)">>
!w = !tilus.register<f32, array<i64: 4, 32>, #tilus.layout<"column_spatial(4,32)">>
!r = !tilus.register<f32, array<i64: 4, 32>, #tilus.layout<"spatial(4,32)">>
!g = !tilus.global<f32, array<i64: 4, 32>, #tilus.row_major>
func.func @mbarrier_rounds(%px: !tilus.ptr<f32>, %py: !tilus.ptr<f32>, %pz: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i128 = arith.constant 128 : i32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %gx = "tilus.view_global"(%px) : (!tilus.ptr<f32>) -> !g
  %gy = "tilus.view_global"(%py) : (!tilus.ptr<f32>) -> !g
  %gz = "tilus.view_global"(%pz) : (!tilus.ptr<f32>) -> !g
  %bars = "tilus.allocate_shared"() : () -> !b
  %tile = "tilus.allocate_shared"() : () -> !s
  "tilus.mbarrier_init"(%bars, %c0, %i128) : (!b, index, i32) -> ()
  "tilus.mbarrier_init"(%bars, %c1, %i128) : (!b, index, i32) -> ()
  "tilus.mbarrier_init"(%bars, %c2, %i1) : (!b, index, i32) -> ()
  %x = "tilus.load_global"(%gx, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !w
  "tilus.store_shared"(%x, %tile, %c0, %c0) : (!w, !s, index, index) -> ()
  "tilus.mbarrier_arrive"(%bars, %c0) : (!b, index) -> ()
  "tilus.mbarrier_wait"(%bars, %c0, %i0) : (!b, index, i32) -> ()
  %t = "tilus.load_shared"(%tile, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!s, index, index) -> !r
  %t2 = "tilus.mul"(%t, %two) : (!r, f32) -> !r
  %y = "tilus.add"(%t2, %one) : (!r, f32) -> !r
  "tilus.store_global"(%y, %gy, %c0, %c0) : (!r, !g, index, index) -> ()
  // Round 2, once every thread has read the tile (barrier 1).
  "tilus.mbarrier_arrive"(%bars, %c1) : (!b, index) -> ()
  "tilus.mbarrier_wait"(%bars, %c1, %i0) : (!b, index, i32) -> ()
  "tilus.mbarrier_arrive_expect_tx"(%bars, %c2, %i0) : (!b, index, i32) -> ()
  "tilus.mbarrier_wait"(%bars, %c2, %i0) : (!b, index, i32) -> ()
  %x2 = "tilus.mul"(%x, %two) : (!w, f32) -> !w
  "tilus.store_shared"(%x2, %tile, %c0, %c0) : (!w, !s, index, index) -> ()
  "tilus.mbarrier_arrive"(%bars, %c0) : (!b, index) -> ()
  "tilus.mbarrier_wait"(%bars, %c0, %i1) : (!b, index, i32) -> ()
  %u = "tilus.load_shared"(%tile, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!s, index, index) -> !r
  "tilus.store_global"(%u, %gz, %c0, %c0) : (!r, !g, index, index) -> ()
  return
}

// mbarrier_handoff: a producer and a consumer thread group (warp
// specialization): threads 0..127 store x [4, 32] into shared memory and
// arrive on the barrier (128 arrivals); threads 128..255 wait for its phase
// 0, read the tile in another layout and store x + 1 to y. Nothing else
// orders the two groups.
!p = !tilus.register<f32, array<i64: 4, 32>, #tilus.layout<"column_spatial(4,32)">>
!c = !tilus.register<f32, array<i64: 4, 32>, #tilus.layout<"spatial(4,32)">>
!b1 = !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
func.func @mbarrier_handoff(%px: !tilus.ptr<f32>, %py: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %i0 = arith.constant 0 : i32
  %i128 = arith.constant 128 : i32
  %one = arith.constant 1.0 : f32
  %gx = "tilus.view_global"(%px) : (!tilus.ptr<f32>) -> !g
  %gy = "tilus.view_global"(%py) : (!tilus.ptr<f32>) -> !g
  %bar = "tilus.allocate_shared"() : () -> !b1
  %tile = "tilus.allocate_shared"() : () -> !s
  "tilus.mbarrier_init"(%bar, %c0, %i128) : (!b1, index, i32) -> ()
  %producer = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %producer {
    %x = "tilus.load_global"(%gx, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !p
    "tilus.store_shared"(%x, %tile, %c0, %c0) : (!p, !s, index, index) -> ()
    "tilus.mbarrier_arrive"(%bar, %c0) : (!b1, index) -> ()
  }
  %consumer = "tilus.in_thread_group"() {first = 128 : i64, count = 128 : i64} : () -> i1
  scf.if %consumer {
    "tilus.mbarrier_wait"(%bar, %c0, %i0) : (!b1, index, i32) -> ()
    %t = "tilus.load_shared"(%tile, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!s, index, index) -> !c
    %y = "tilus.add"(%t, %one) : (!c, f32) -> !c
    "tilus.store_global"(%y, %gy, %c0, %c0) : (!c, !g, index, index) -> ()
  }
  return
}

// copy_async_handoff: the same hand-off of a tile x [32, 32] with the copies
// left in flight: threads 0..127 copy it into shared memory with cp.async
// (two 16-byte copies each) and arrive through copy_async_mbarrier_arrive,
// which the hardware completes once each thread's copies have landed; no
// thread of theirs waits for a copy. Threads 128..255 wait for phase 0,
// read the tile in a layout of their own and store x + 1 to y.
!sq = !tilus.shared<f32, array<i64: 32, 32>, #tilus.layout<"local(32,32)">>
!gq = !tilus.global<f32, array<i64: 32, 32>, #tilus.row_major>
!cq = !tilus.register<f32, array<i64: 32, 32>, #tilus.layout<"local(8,1).spatial(4,32)">>
func.func @copy_async_handoff(%px: !tilus.ptr<f32>, %py: !tilus.ptr<f32>)
    attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %i0 = arith.constant 0 : i32
  %i128 = arith.constant 128 : i32
  %one = arith.constant 1.0 : f32
  %gx = "tilus.view_global"(%px) : (!tilus.ptr<f32>) -> !gq
  %gy = "tilus.view_global"(%py) : (!tilus.ptr<f32>) -> !gq
  %bar = "tilus.allocate_shared"() : () -> !b1
  %tile = "tilus.allocate_shared"() : () -> !sq
  "tilus.mbarrier_init"(%bar, %c0, %i128) : (!b1, index, i32) -> ()
  %producer = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %producer {
    "tilus.copy_async"(%tile, %gx, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 32, 32>} : (!sq, !gq, index, index, index, index) -> ()
    "tilus.copy_async_mbarrier_arrive"(%bar, %c0) : (!b1, index) -> ()
  }
  %consumer = "tilus.in_thread_group"() {first = 128 : i64, count = 128 : i64} : () -> i1
  scf.if %consumer {
    "tilus.mbarrier_wait"(%bar, %c0, %i0) : (!b1, index, i32) -> ()
    %t = "tilus.load_shared"(%tile, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 0>} : (!sq, index, index) -> !cq
    %y = "tilus.add"(%t, %one) : (!cq, f32) -> !cq
    "tilus.store_global"(%y, %gy, %c0, %c0) : (!cq, !gq, index, index) -> ()
  }
  return
}
