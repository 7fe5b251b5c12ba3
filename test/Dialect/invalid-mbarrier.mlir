// The rules of the mbarrier ops, with the exact messages.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @element_type(%n: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i32, array<i64: 2>, #tilus.layout<"local(2)">>
  // expected-error@+1 {{'tilus.mbarrier_init' op mbarriers are 64-bit integers in shared memory, not 'i32'}}
  "tilus.mbarrier_init"(%bars, %c0, %n) : (!tilus.shared<i32, array<i64: 2>, #tilus.layout<"local(2)">>, index, i32) -> ()
  return
}

// -----

func.func @copy_async_element_type() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 2>, #tilus.layout<"local(2)">>
  // expected-error@+1 {{'tilus.copy_async_mbarrier_arrive' op mbarriers are 64-bit integers in shared memory, not 'f32'}}
  "tilus.copy_async_mbarrier_arrive"(%bars, %c0) : (!tilus.shared<f32, array<i64: 2>, #tilus.layout<"local(2)">>, index) -> ()
  return
}

// -----

func.func @offsets(%n: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>
  // expected-error@+1 {{'tilus.mbarrier_wait' op expects 1 offsets for the barrier tensor (one per dimension), got 0}}
  "tilus.mbarrier_wait"(%bars, %n) : (!tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>, i32) -> ()
  return
}

// -----

func.func @not_shared(%p: !tilus.ptr<i64>) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i64>) -> !tilus.global<i64, array<i64: 2>, #tilus.row_major>
  // expected-error@+1 {{expected base type 'tilus.shared' but got 'tilus.global'}}
  "tilus.mbarrier_arrive"(%g, %c0) : (!tilus.global<i64, array<i64: 2>, #tilus.row_major>, index) -> ()
  return
}

// -----

func.func @constants() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %two = arith.constant 2 : i32
  %bytes = arith.constant 4096 : i32
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>
  // expected-error@+1 {{'tilus.mbarrier_init' op count must be from 1 to 1048575, not 0}}
  "tilus.mbarrier_init"(%bars, %c0, %zero) : (!tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>, index, i32) -> ()
  // expected-error@+1 {{'tilus.mbarrier_wait' op phase must be 0 or 1, not 2}}
  "tilus.mbarrier_wait"(%bars, %c0, %two) : (!tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>, index, i32) -> ()
  // expected-error@+1 {{'tilus.mbarrier_arrive_expect_tx' op bytes must be 0: each tilus.tma_load adds the bytes it delivers to the phase's expected count itself, so any other count would never complete the phase}}
  "tilus.mbarrier_arrive_expect_tx"(%bars, %c0, %bytes) : (!tilus.shared<i64, array<i64: 2>, #tilus.layout<"local(2)">>, index, i32) -> ()
  return
}
