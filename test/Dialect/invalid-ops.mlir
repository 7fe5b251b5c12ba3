// The rules of each op: offsets and tiles of transfers, element types,
// elementwise shapes and layouts, Cast, View, Dot, CopyAsync, Print.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @sizes(%p: !tilus.ptr<f16>, %n: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.view_global' op expects 2 size operands (one per run-time dimension of the result), got 1}}
  %g = "tilus.view_global"(%p, %n) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  return
}

// -----

func.func @workspace_sizes(%n: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_global' op expects 0 size operands (one per run-time dimension of the result), got 1}}
  %g = "tilus.allocate_global"(%n) : (index) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  return
}

// -----

func.func @init(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the init value has type 'f32' but the element type is 'f16'}}
  %r = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @offset_count(%p: !tilus.ptr<f16>, %n: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p, %n) : (!tilus.ptr<f16>, index) -> !tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op expects 2 offsets for the source tensor (one per dimension), got 1}}
  %r = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f16, array<i64: -1, 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @tile_rank(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op a tile of rank 2 cannot address the source tensor of rank 1}}
  %r = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 8, 4>, #tilus.layout<"spatial(8,4)">>
  return
}

// -----

func.func @load_dtype(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op element types differ: the source has 'f16', the result has 'f32'}}
  %r = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @fill_type(%p: !tilus.ptr<f16>, %x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op the fill value has type 'f32' but the element type is 'f16'}}
  %r = "tilus.load_global"(%g, %c0, %x) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index, f32) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @global_offset(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c64 = arith.constant 64 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op offset 64 with tile extent 32 is out of bounds in dimension 0 of the source tensor (size 64)}}
  %r = "tilus.load_global"(%g, %c64) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @negative_offset(%p: !tilus.ptr<f16>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %cm1 = arith.constant -1 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f16>) -> !tilus.global<f16, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op offset -1 in dimension 0 of the source tensor is negative}}
  %r = "tilus.load_global"(%g, %cm1) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<f16, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @shared_offset() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c48 = arith.constant 48 : index
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 64>, #tilus.layout<"local(64)">>
  // expected-error@+1 {{'tilus.load_shared' op offset 48 with tile extent 32 is out of bounds in dimension 0 of the source tensor (size 64)}}
  %r = "tilus.load_shared"(%s, %c48) {operandSegmentSizes = array<i32: 1, 1, 0>} : (!tilus.shared<f16, array<i64: 64>, #tilus.layout<"local(64)">>, index) -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @shared_tile(%i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16>, #tilus.layout<"local(16)">>
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.store_shared' op tile [32] does not fit in the shared tensor [16] (dimension 0)}}
  "tilus.store_shared"(%r, %s, %i) : (!tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.shared<f16, array<i64: 16>, #tilus.layout<"local(16)">>, index) -> ()
  return
}

// -----

func.func @store_dtype(%p: !tilus.ptr<f32>, %i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 64>, #tilus.row_major>
  %r = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.store_global' op element types differ: the destination has 'f32', the stored value has 'f16'}}
  "tilus.store_global"(%r, %g, %i) : (!tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>, !tilus.global<f32, array<i64: 64>, #tilus.row_major>, index) -> ()
  return
}

// -----

!s = !tilus.shared<f16, array<i64: 2, 16, 32>, #tilus.layout<"local(2,16,32)">>
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @copy_shape(%p: !tilus.ptr<f16>, %i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %g = "tilus.view_global"(%p, %i, %i) : (!tilus.ptr<f16>, index, index) -> !g
  %s = "tilus.allocate_shared"() : () -> !s
  // expected-error@+1 {{'tilus.copy_async' op the 'shape' attribute must be array<i64: ...>}}
  "tilus.copy_async"(%s, %g, %i, %i, %i, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i32: 16, 32>} : (!s, !g, index, index, index, index, index) -> ()
  return
}

// -----

!s = !tilus.shared<f16, array<i64: 2, 16, 32>, #tilus.layout<"local(2,16,32)">>
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @copy_region(%p: !tilus.ptr<f16>, %i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %g = "tilus.view_global"(%p, %i, %i) : (!tilus.ptr<f16>, index, index) -> !g
  %s = "tilus.allocate_shared"() : () -> !s
  // expected-error@+1 {{'tilus.copy_async' op the copied region's dimension 1 is 0; it must be positive}}
  "tilus.copy_async"(%s, %g, %i, %i, %i, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 16, 0>} : (!s, !g, index, index, index, index, index) -> ()
  return
}

// -----

!s = !tilus.shared<f16, array<i64: 2, 16, 32>, #tilus.layout<"local(2,16,32)">>
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @copy_fit(%p: !tilus.ptr<f16>, %i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %g = "tilus.view_global"(%p, %i, %i) : (!tilus.ptr<f16>, index, index) -> !g
  %s = "tilus.allocate_shared"() : () -> !s
  // expected-error@+1 {{'tilus.copy_async' op tile [16, 64] does not fit in the shared tensor [2, 16, 32] (dimension 2)}}
  "tilus.copy_async"(%s, %g, %i, %i, %i, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 16, 64>} : (!s, !g, index, index, index, index, index) -> ()
  return
}

// -----

!s = !tilus.shared<f16, array<i64: 2, 16, 32>, #tilus.layout<"local(2,16,32)">>
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @copy_offsets(%p: !tilus.ptr<f16>, %i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %g = "tilus.view_global"(%p, %i, %i) : (!tilus.ptr<f16>, index, index) -> !g
  %s = "tilus.allocate_shared"() : () -> !s
  // expected-error@+1 {{'tilus.copy_async' op expects 3 offsets for the destination tensor (one per dimension), got 2}}
  "tilus.copy_async"(%s, %g, %i, %i, %i, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 2, 3>, shape = array<i64: 16, 32>} : (!s, !g, index, index, index, index, index) -> ()
  return
}

// -----

func.func @copy_dtype(%p: !tilus.ptr<f32>, %i: index) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %g = "tilus.view_global"(%p) : (!tilus.ptr<f32>) -> !tilus.global<f32, array<i64: 32>, #tilus.row_major>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  // expected-error@+1 {{'tilus.copy_async' op element types differ: the source has 'f32', the destination has 'f16'}}
  "tilus.copy_async"(%s, %g, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, shape = array<i64: 32>} : (!tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>, !tilus.global<f32, array<i64: 32>, #tilus.row_major>, index, index) -> ()
  return
}

// -----

func.func @wait_group() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.copy_async_wait_group' op waits for a negative number of groups (-1)}}
  "tilus.copy_async_wait_group"() {n = -1 : i64} : () -> ()
  return
}

// -----

!a = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
!b = !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
func.func @binary_shape() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  // expected-error@+1 {{'tilus.add' op shapes do not broadcast: the lhs is [32], the rhs is [64] (dimension 0: 32 vs 64; only a dimension of 1 broadcasts)}}
  %c = "tilus.add"(%a, %b) : (!a, !b) -> !a
  return
}

// -----

!a = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
!h = !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @binary_result() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  // expected-error@+1 {{'tilus.sub' op element types differ: the lhs has 'f32', the result has 'f16'}}
  %c = "tilus.sub"(%a, %a) : (!a, !a) -> !h
  return
}

// -----

!a = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @binary_scalar(%x: f16) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  // expected-error@+1 {{'tilus.div' op the scalar rhs has type 'f16' but the tensor's element type is 'f32'}}
  %c = "tilus.div"(%a, %x) : (!a, f16) -> !a
  return
}

// -----

!a = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @binary_memory() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 32>, #tilus.layout<"local(32)">>
  // expected-error@+1 {{'tilus.mod' op rhs must be a register tensor or a scalar}}
  %c = "tilus.mod"(%a, %s) : (!a, !tilus.shared<f32, array<i64: 32>, #tilus.layout<"local(32)">>) -> !a
  return
}

// -----

!a = !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
!b = !tilus.register<f32, array<i64: 8, 4>, #tilus.layout<"spatial(8,4)">>
func.func @neg() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  // expected-error@+1 {{'tilus.neg' op shapes differ: the operand is [32], the result is [8, 4]}}
  %c = "tilus.neg"(%a) : (!a) -> !b
  return
}

// -----

!a = !tilus.register<f32, array<i64: 64>, #tilus.layout<"local(2).spatial(32)">>
!h = !tilus.register<f16, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
func.func @cast_layout() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  // expected-error@+1 {{'tilus.cast' op layouts differ: the operand has 'local(2).spatial(32)', the result has 'spatial(32).local(2)'}}
  %c = "tilus.cast"(%a) : (!a) -> !h
  return
}

// -----

!u8 = !tilus.register<ui8, array<i64: 96>, #tilus.layout<"spatial(32).local(3)">>
!i8 = !tilus.register<i8, array<i64: 128>, #tilus.layout<"spatial(32).local(4)">>
func.func @view_bits() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !u8
  // expected-error@+1 {{'tilus.view' op a view keeps the bits per thread, but the operand has 24 (3 x ui8) and the result 32 (4 x i8)}}
  %b = "tilus.view"(%a) : (!u8) -> !i8
  return
}

// -----

!u8 = !tilus.register<ui8, array<i64: 96>, #tilus.layout<"spatial(32).local(3)">>
!u8b = !tilus.register<ui8, array<i64: 96>, #tilus.layout<"spatial(96)">>
func.func @view_threads() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !u8
  // expected-error@+2 {{'tilus.view' op a view keeps the thread count, but the operand has 32 threads and the result 96}}
  // expected-error@+1 {{'tilus.view' op register tensor layout 'spatial(96)' has 96 threads but the kernel's block size is 32}}
  %b = "tilus.view"(%a) : (!u8) -> !u8b
  return
}

// -----

!a = !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
!b = !tilus.register<f16, array<i64: 8, 16>, #tilus.layout<"local(1,2).spatial(8,4).local(1,2)">>
!c = !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
func.func @dot_shapes() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  %c = "tilus.allocate_register"() : () -> !c
  // expected-error@+1 {{'tilus.dot' op dot shapes do not agree: a is [16, 16], b is [8, 16], c is [16, 8] (expected a [M, K], b [K, N], c [M, N])}}
  %d = "tilus.dot"(%a, %b, %c) : (!a, !b, !c) -> !c
  return
}

// -----

!a = !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @dot_rank() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  // expected-error@+1 {{'tilus.dot' op dot needs rank-2 operands, got ranks 1, 1 and 1}}
  %d = "tilus.dot"(%a, %a, %a) : (!a, !a, !a) -> !a
  return
}

// -----

!a = !tilus.register<f16, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
!b = !tilus.register<bf16, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
!c = !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
func.func @dot_dtypes() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  %c = "tilus.allocate_register"() : () -> !c
  // expected-error@+1 {{'tilus.dot' op a and b must have the same element type, got 'f16' and 'bf16'}}
  %d = "tilus.dot"(%a, %b, %c) : (!a, !b, !c) -> !c
  return
}

// -----

!a = !tilus.register<i4, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
!b = !tilus.register<i4, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
!c = !tilus.register<i32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
func.func @dot_low_precision() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  %c = "tilus.allocate_register"() : () -> !c
  // expected-error@+1 {{'tilus.dot' op dot operands must be floats of 16 to 64 bits or integers of 8 to 32 bits; cast 'i4' first}}
  %d = "tilus.dot"(%a, %b, %c) : (!a, !b, !c) -> !c
  return
}

// -----

!a = !tilus.register<i8, array<i64: 16, 16>, #tilus.layout<"column_local(2,2).spatial(8,4).local(1,2)">>
!b = !tilus.register<i8, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
!c = !tilus.register<i16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
func.func @dot_accumulator() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !a
  %b = "tilus.allocate_register"() : () -> !b
  %c = "tilus.allocate_register"() : () -> !c
  // expected-error@+1 {{'tilus.dot' op the accumulator type 'i16' cannot hold products of 'i8'}}
  %d = "tilus.dot"(%a, %b, %c) : (!a, !b, !c) -> !c
  return
}

// -----

func.func @print() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %m = arith.constant dense<0.0> : vector<4xf32>
  // expected-error@+1 {{'tilus.print' op cannot print a value of type 'vector<4xf32>'}}
  "tilus.print"(%m) : (vector<4xf32>) -> ()
  return
}
