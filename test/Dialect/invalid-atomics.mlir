// The rules of the atomic ops and the semaphore pair, with the exact
// messages.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @kind(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op kind 'and' is not one of 'add', 'max', 'min' or 'exchange'}}
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "and"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// -----

func.func @value_type(%p: !tilus.ptr<f32>, %x: f16) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op the value has type 'f16' but the element type is 'f32'}}
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "add"} : (!tilus.global<f32, array<i64: 4>, #tilus.row_major>, index, f16) -> f16
  return
}

// -----

func.func @max_f16(%p: !tilus.ptr<f16>, %x: f16) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op atomic max takes 32- or 64-bit integers, f32 or f64, not 'f16'}}
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "max"} : (!tilus.global<f16, array<i64: 4>, #tilus.row_major>, index, f16) -> f16
  return
}

// -----

func.func @offsets(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4, 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op expects 2 offsets for the memory tensor (one per dimension), got 1}}
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "add"} : (!tilus.global<i32, array<i64: 4, 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// -----

func.func @out_of_bounds(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c4 = arith.constant 4 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op offset 4 with tile extent 1 is out of bounds in dimension 0 of the memory tensor (size 4)}}
  %o = "tilus.atomic_rmw"(%g, %c4, %x) {kind = "add"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// -----

func.func @cas_float(%p: !tilus.ptr<f32>, %x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_cas' op atomic cas takes 32- or 64-bit integers, not 'f32'}}
  %o = "tilus.atomic_cas"(%g, %c0, %x, %x) : (!tilus.global<f32, array<i64: 4>, #tilus.row_major>, index, f32, f32) -> f32
  return
}

// -----

func.func @cas_compare(%p: !tilus.ptr<i32>, %x: i32, %y: i64) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_cas' op the compare value has type 'i64' but the element type is 'i32'}}
  %o = "tilus.atomic_cas"(%g, %c0, %y, %y) : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i64, i64) -> i64
  return
}

// -----

func.func @add_type(%p: !tilus.ptr<i8>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i8>) -> !tilus.global<i8, array<i64: 64>, #tilus.row_major>
  %r = "tilus.allocate_register"() : () -> !tilus.register<i8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.atomic_add_global' op atomic add takes 32- or 64-bit integers, f16, bf16, f32 or f64, not 'i8'}}
  "tilus.atomic_add_global"(%r, %g, %c0) : (!tilus.register<i8, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.global<i8, array<i64: 64>, #tilus.row_major>, index) -> ()
  return
}

// -----

func.func @add_elements(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 64>, #tilus.row_major>
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.atomic_add_global' op element types differ: the destination has 'f32', the added value has 'f16'}}
  "tilus.atomic_add_global"(%r, %g, %c0) : (!tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.global<f32, array<i64: 64>, #tilus.row_major>, index) -> ()
  return
}

// -----

func.func @add_replicated(%p: !tilus.ptr<f32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 64>, #tilus.row_major>
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 8>, #tilus.layout<"reduce(spatial(8,4), dims=[1])">>
  // expected-error@+1 {{'tilus.atomic_add_global' op the value's layout holds 32 elements for a tile of 8; an atomic add needs each element in one thread and slot (no reduce)}}
  "tilus.atomic_add_global"(%r, %g, %c0) : (!tilus.register<f32, array<i64: 8>, #tilus.layout<"reduce(spatial(8,4), dims=[1])">>, !tilus.global<f32, array<i64: 64>, #tilus.row_major>, index) -> ()
  return
}

// -----

func.func @semaphore_type(%p: !tilus.ptr<i64>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i64>) -> !tilus.global<i64, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.semaphore_wait' op semaphore counters must be 32-bit integers, not 'i64'}}
  "tilus.semaphore_wait"(%g, %c0, %x) : (!tilus.global<i64, array<i64: 4>, #tilus.row_major>, index, i32) -> ()
  return
}

// -----

func.func @semaphore_offsets(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.semaphore_signal' op expects 1 offsets for the counter tensor (one per dimension), got 2}}
  "tilus.semaphore_signal"(%g, %c0, %c0, %x) : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, index, i32) -> ()
  return
}

// -----

func.func @order(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op order must be 'relaxed' or 'acq_rel', not 'seq_cst'}}
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "add", order = "seq_cst"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// -----

func.func @order_not_string(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_rmw' op order must be the string 'relaxed' or 'acq_rel', not a 'i64' attribute}}
  %o = "tilus.atomic_rmw"(%g, %c0, %x) {kind = "add", order = 1 : i64} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32) -> i32
  return
}

// -----

func.func @cas_order(%p: !tilus.ptr<i32>, %x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 4>, #tilus.row_major>
  // expected-error@+1 {{'tilus.atomic_cas' op takes no 'order' (atomic_cas is relaxed; order applies to atomic_rmw)}}
  %o = "tilus.atomic_cas"(%g, %c0, %x, %x) {order = "acq_rel"} : (!tilus.global<i32, array<i64: 4>, #tilus.row_major>, index, i32, i32) -> i32
  return
}
