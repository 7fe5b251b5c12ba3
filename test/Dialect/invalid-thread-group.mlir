// The rules of tilus.in_thread_group, with the exact messages.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @alignment() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.in_thread_group' op a thread group is whole warpgroups of the block: first and count multiples of 128, count >= 128, first + count <= 256 (the block size); got first 64, count 128}}
  %in = "tilus.in_thread_group"() {first = 64 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
  }
  return
}

// -----

func.func @past_the_block() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.in_thread_group' op a thread group is whole warpgroups of the block: first and count multiples of 128, count >= 128, first + count <= 256 (the block size); got first 128, count 256}}
  %in = "tilus.in_thread_group"() {first = 128 : i64, count = 256 : i64} : () -> i1
  scf.if %in {
  }
  return
}

// -----

func.func @nested() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 256 : i64} : () -> i1
  scf.if %in {
    // expected-error@+1 {{'tilus.in_thread_group' op thread groups do not nest}}
    %inner = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
    scf.if %inner {
    }
  }
  return
}

// -----

func.func @not_a_condition(%p: !tilus.ptr<i1>) attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.in_thread_group' op its result may only be the condition of an scf.if without results or else branch (the group's body)}}
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
  } else {
  }
  return
}

// -----

// A register tensor inside a group spans the group's threads.
func.func @layout_threads() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %in = "tilus.in_thread_group"() {first = 128 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
    // expected-error@+1 {{'tilus.allocate_register' op register tensor layout 'spatial(256)' has 256 threads but the thread group's size is 128}}
    %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(256)">>
  }
  return
}

// -----

func.func @registers_count() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
    // expected-error@+1 {{'tilus.set_max_registers' op count must be a multiple of 8 from 24 to 256, not 20}}
    "tilus.set_max_registers"() {count = 20 : i64, action = "dec"} : () -> ()
  }
  return
}

// -----

func.func @registers_count_multiple() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
    // expected-error@+1 {{'tilus.set_max_registers' op count must be a multiple of 8 from 24 to 256, not 100}}
    "tilus.set_max_registers"() {count = 100 : i64, action = "inc"} : () -> ()
  }
  return
}

// -----

func.func @registers_action() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
    // expected-error@+1 {{'tilus.set_max_registers' op action must be "inc" or "dec", not "up"}}
    "tilus.set_max_registers"() {count = 40 : i64, action = "up"} : () -> ()
  }
  return
}

// -----

func.func @registers_in_a_branch(%c: i1) attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.grid = affine_map<() -> (1)>} {
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
    scf.if %c {
      // expected-error@+1 {{'tilus.set_max_registers' op whole warpgroups run set_max_registers together: it must be directly in a thread group's body, or in the kernel's body when the block size is a multiple of 128}}
      "tilus.set_max_registers"() {count = 40 : i64, action = "dec"} : () -> ()
    }
  }
  return
}

// -----

func.func @registers_partial_warpgroup() attributes {tilus.kernel, tilus.block_size = 96 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.set_max_registers' op whole warpgroups run set_max_registers together: it must be directly in a thread group's body, or in the kernel's body when the block size is a multiple of 128}}
  "tilus.set_max_registers"() {count = 40 : i64, action = "dec"} : () -> ()
  return
}
