// The rules of the warpgroup MMA ops, with the exact messages.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @read_before_wait() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op the accumulator is read by 'tilus.add' before a tilus.wgmma_wait_group: wgmma results may only go to wgmma_mma (as d), scf.for or wgmma_wait_group}}
  %d = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  %s = "tilus.add"(%d, %d) : (!acc, !acc) -> !acc
  return
}

// -----

!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @read_after_loop() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  %d = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %d0) -> (!acc) {
    // expected-error@+1 {{'tilus.wgmma_mma' op the accumulator is read by 'tilus.store_shared' before a tilus.wgmma_wait_group}}
    %n = "tilus.wgmma_mma"(%a, %b, %acc) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
    scf.yield %n : !acc
  }
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 64, 64>, #tilus.layout<"local(64,64)">>
  "tilus.store_shared"(%d, %s, %c0, %c0) : (!acc, !tilus.shared<f32, array<i64: 64, 64>, #tilus.layout<"local(64,64)">>, index, index) -> ()
  return
}

// -----

!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"local(64,64)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @b_layout() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op b's layout is not one wgmma reads: its last two dimensions must be K-major (K is dimension 0 of the tile) in core matrices, e.g. "swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)" (128-, 64- or 32-byte swizzle or none, leading dimensions outermost; docs/hopper.md)}}
  %d = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  return
}

// -----

!sa = !tilus.shared<f32, array<i64: 64, 64>, #tilus.layout<"local(64,64)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @f32_operands() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op wgmma multiplies f16 or bf16, or FP8 e4m3 or e5m2 (!tilus.float<4,3> or <5,2>), into f32, or 8-bit integers into i32, not 'f32' into 'f32'}}
  %d = "tilus.wgmma_mma"(%a, %a, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sa, !acc) -> !acc
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  return
}

// -----

!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(2,1).local(2,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @block() attributes {tilus.kernel, tilus.block_size = 64 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op wgmma needs whole warpgroups: the block has 64 threads, not a multiple of 128}}
  %d = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  return
}

// -----

!sa = !tilus.shared<f16, array<i64: 2, 64, 64>, #tilus.layout<"local(2,1,1).swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @offsets() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op a is a rank-3 shared tensor with 0 offsets; it needs rank >= 2 and one offset per dimension before its last two}}
  %d = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  return
}

// -----

!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!acc = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).local(1,4).local(2,1).spatial(8,4).local(1,2)">>

func.func @shapes() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_mma' op shapes do not agree: the tiles must be a [M, K], b [K, N] and d [M, N]}}
  %d = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  return
}

// -----

!acc = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).local(1,4).local(2,1).spatial(8,4).local(1,2)">>
!acc2 = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).local(1,4).local(2,1).spatial(8,4).local(2,1)">>

func.func @wait_type() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // IRDL itself requires the value's type of the result.
  // expected-error@+1 {{but got '!tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).local(1,4).local(2,1).spatial(8,4).local(2,1)">>'}}
  %r = "tilus.wgmma_wait_group"(%d0) {n = 0 : i64} : (!acc) -> !acc2
  return
}

// -----

!acc = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).local(1,4).local(2,1).spatial(8,4).local(1,2)">>

func.func @wait_value_pending() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  // expected-error@+1 {{'tilus.wgmma_wait_group' op a wait that returns a value needs n = 0, or n groups committed after the value's own (its wgmma_mma in this block): with n = 1 the value's own group may still be running}}
  %r = "tilus.wgmma_wait_group"(%d0) {n = 1 : i64} : (!acc) -> !acc
  return
}

// -----

// wait(1) for the newest group: its own group is the one left running.
!sb = !tilus.shared<f16, array<i64: 64, 32>, #tilus.layout<"swizzle(column_local(8,32),dim=0,log_step=0).local(8,1)">>
!sa = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
!acc = !tilus.register<f32, array<i64: 64, 32>, #tilus.layout<"spatial(4,1).local(1,4).local(2,1).spatial(8,4).local(1,2)">>

func.func @wait_newest_pending() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %a = "tilus.allocate_shared"() : () -> !sa
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  %p = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  %q = "tilus.wgmma_mma"(%a, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!sa, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  %r = "tilus.wgmma_wait_group"(%p) {n = 1 : i64} : (!acc) -> !acc
  // expected-error@+1 {{with n = 1 the value's own group may still be running}}
  %s = "tilus.wgmma_wait_group"(%q) {n = 1 : i64} : (!acc) -> !acc
  return
}

// -----

// A register a whose last use is the product: the next tile's operand,
// computed before the wait, may be given its registers while the product
// still reads them (wrong results on the H100, no warning from ptxas).
!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!ra = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,4).column_local(2,2).spatial(8,4).local(1,2)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @register_a_overwritten() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %h = arith.constant 1.0 : f16
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  %ra = "tilus.allocate_register"(%h) : (f16) -> !ra
  // expected-error@+1 {{'tilus.wgmma_mma' op the register operand a may be overwritten while the product still reads it: 'tilus.add' comes before a wgmma_wait_group(0) retires it; wait first, or pass a to that wait (wgmma_wait_group(0, a)) to keep its registers}}
  %d = "tilus.wgmma_mma"(%ra, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  %next = "tilus.add"(%ra, %ra) : (!ra, !ra) -> !ra
  %r = "tilus.wgmma_wait_group"(%d) {n = 0 : i64} : (!acc) -> !acc
  return
}

// -----

!sb = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(column_local(8,64),dim=0,log_step=0).local(8,1)">>
!ra = !tilus.register<f16, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,4).column_local(2,2).spatial(8,4).local(1,2)">>
!acc = !tilus.register<f32, array<i64: 64, 64>, #tilus.layout<"spatial(4,1).local(1,8).local(2,1).spatial(8,4).local(1,2)">>

func.func @register_a_never_waited() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %zero = arith.constant 0.0 : f32
  %h = arith.constant 1.0 : f16
  %b = "tilus.allocate_shared"() : () -> !sb
  %d0 = "tilus.allocate_register"(%zero) : (f32) -> !acc
  %ra = "tilus.allocate_register"(%h) : (f16) -> !ra
  // expected-error@+1 {{'tilus.wgmma_mma' op a register operand a needs a wgmma_wait_group(0) after the product in its block (the product reads a's registers until it is retired)}}
  %d = "tilus.wgmma_mma"(%ra, %b, %d0) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (!ra, !sb, !acc) -> !acc
  "tilus.wgmma_commit_group"() : () -> ()
  return
}
