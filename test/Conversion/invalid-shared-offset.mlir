// tilus.shared_offset and tilus.shared_bytes come from tilus-plan-shared but
// may be written by hand (running --tilus-to-gpu alone): an offset that is
// negative, unaligned, or puts the tensor past the kernel's shared bytes is a
// located error, never an access outside the buffer.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-to-gpu

func.func @negative() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 256 : i64} {
  // expected-error@+1 {{'tilus.allocate_shared' op cannot be lowered: the shared tensor's offset (tilus.shared_offset = -1) must be a multiple of 128 with the tensor inside the kernel's 256 bytes of shared memory (tilus.shared_bytes)}}
  %s = "tilus.allocate_shared"() {tilus.shared_offset = -1 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

func.func @huge() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 256 : i64} {
  // expected-error@+1 {{(tilus.shared_offset = 9223372036854775807) must be a multiple of 128}}
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 9223372036854775807 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

// The largest multiple of 128: offset + bytes overflows int64.
func.func @wraps() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 256 : i64} {
  // expected-error@+1 {{(tilus.shared_offset = 9223372036854775680) must be a multiple of 128}}
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 9223372036854775680 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

func.func @unaligned() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 256 : i64} {
  // expected-error@+1 {{(tilus.shared_offset = 4) must be a multiple of 128}}
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 4 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

// 64 bytes at offset 256 end past the kernel's 256 bytes.
func.func @past_the_end() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 256 : i64} {
  // expected-error@+1 {{(tilus.shared_offset = 256) must be a multiple of 128 with the tensor inside the kernel's 256 bytes}}
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 256 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

// An offset without the kernel's tilus.shared_bytes.
func.func @no_kernel_bytes() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_shared' op cannot be lowered: the kernel has no tilus.shared_bytes; run --tilus-plan-shared first (--lower-to-nvvm does)}}
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 0 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}

// -----

// At offset 128 the 64 bytes end at 192, inside: lowered.
func.func @inside() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 256 : i64} {
  %s = "tilus.allocate_shared"() {tilus.shared_offset = 128 : i64} : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}
