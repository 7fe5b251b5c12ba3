// The rules of tilus.tma_load, with the exact messages.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @source_not_a_view(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %g = "tilus.allocate_global"() : () -> !tilus.global<f16, array<i64: 16, 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op the global tensor must be a tilus.view_global of a kernel argument (the runtime builds the tensor map from the kernel's arguments at launch)}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: 16, 64>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @size_computed(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %two = arith.constant 2 : i32
  %k2 = arith.muli %k, %two : i32
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k2 : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op the global tensor's size 1 must be an integer argument of the kernel or a constant (the runtime builds the tensor map from the kernel's arguments at launch); it is computed in the kernel}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @narrow_elements(%p: !tilus.ptr<ui4>) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<ui4, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui4>) -> !tilus.global<ui4, array<i64: 16, 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op TMA copies elements of 8, 16, 32 or 64 bits, not 4 (view packed narrower elements as bytes)}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<ui4, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<ui4, array<i64: 16, 64>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @layout(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"column_local(16,64)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op TMA writes its box row-major or in a swizzled K-major wgmma operand layout (tilus.mma_shared with a 32, 64 or 128-byte swizzle); the shared tensor's layout is neither}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"column_local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @partial_tile(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op the tile must fill the shared tensor's last 2 dimensions (a 2-D tile may be a range of its rows at a constant offset; the leading offsets pick the stage)}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 32>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @rows_past_the_end(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op offset 12 with tile extent 8 is out of bounds in dimension 0 of the destination tensor (size 16)}}
  "tilus.tma_load"(%s, %g, %bars, %c12, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 8, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @rows_unaligned(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"local(16,32)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op a range of rows of a row-major tile must start on a multiple of 128 bytes (TMA's alignment); row 1 starts at byte 64}}
  "tilus.tma_load"(%s, %g, %bars, %c1, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 8, 32>} : (!tilus.shared<f16, array<i64: 16, 32>, #tilus.layout<"local(16,32)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @box_too_large(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 512, 8>, #tilus.layout<"local(512,8)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op a TMA box has at most 256 elements per dimension; the tile's dimension 0 needs 512}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 512, 8>} : (!tilus.shared<f16, array<i64: 512, 8>, #tilus.layout<"local(512,8)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @narrow_rows(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 4>, #tilus.layout<"local(16,4)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op TMA copies rows of whole 16-byte chunks; the tile's rows have 8 bytes}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 4>} : (!tilus.shared<f16, array<i64: 16, 4>, #tilus.layout<"local(16,4)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @stage_alignment(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 3, 1, 8>, #tilus.layout<"local(3,1,8)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op each stage of the shared tensor must start on a multiple of 128 bytes (TMA's alignment for this box); a tile has 16}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 3, 2, 1>, shape = array<i64: 1, 8>} : (!tilus.shared<f16, array<i64: 3, 1, 8>, #tilus.layout<"local(3,1,8)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @barrier_type(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %b32 = "tilus.allocate_shared"() : () -> !tilus.shared<i32, array<i64: 1>, #tilus.layout<"local(1)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op mbarriers are 64-bit integers in shared memory}}
  "tilus.tma_load"(%s, %g, %b32, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i32, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @element_types(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<bf16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op the shared and the global tensor have different element types}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<bf16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @unaligned_start(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op TMA starts a box on a 16-byte boundary of the global tensor's rows: the innermost offset must be a multiple of 8 elements, not 4}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c4, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

func.func @store_layout(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"column_local(16,64)">>
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_store' op TMA writes its box row-major or in a swizzled K-major wgmma operand layout (tilus.mma_shared with a 32, 64 or 128-byte swizzle); the shared tensor's layout is neither}}
  "tilus.tma_store"(%s, %g, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 64>} : (!tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"column_local(16,64)">>, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, index, index, index, index) -> ()
  return
}

// -----

// A swizzled tile's rows start on a whole swizzle pattern (8 rows).
!sw = !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<"swizzle(local(64,8),dim=1,log_step=0).local(1,8)">>
func.func @swizzled_rows_unaligned(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !sw
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
  // expected-error@+1 {{'tilus.tma_load' op a range of rows of a swizzled tile must start on a multiple of 8 rows (a whole swizzle pattern), not row 4}}
  "tilus.tma_load"(%s, %g, %bars, %c4, %c0, %c0, %c0, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 32, 64>} : (!sw, !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

// async_writes: a unit attribute, and of tma_store only.
!rm = !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
!gm = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @async_writes_load(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
  %s = "tilus.allocate_shared"() : () -> !rm
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !gm
  // expected-error@+1 {{'tilus.tma_load' op 'async_writes' is a unit attribute of tma_store}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {async_writes, operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!rm, !gm, !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>, index, index, index, index, index) -> ()
  return
}

// -----

!rm = !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
!gm = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @async_writes_not_unit(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %s = "tilus.allocate_shared"() : () -> !rm
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !gm
  // expected-error@+1 {{'tilus.tma_store' op 'async_writes' is a unit attribute of tma_store}}
  "tilus.tma_store"(%s, %g, %c0, %c0, %c0, %c0) {async_writes = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 64>} : (!rm, !gm, index, index, index, index) -> ()
  return
}
