// The workspace is the sum of every AllocateGlobal of a kernel, each rounded
// up to 256 bytes; a sum past INT64_MAX is a located error at the tensor
// that overflows it (sixteen tensors of 2^59 bytes: the sixteenth), not a
// wrapped size in the artifact.
// RUN: tilus-opt %s --verify-diagnostics --tilus-to-gpu

!w = !tilus.global<i8, array<i64: 576460752303423488>, #tilus.row_major>
func.func @workspace_sum_wraps() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %w0 = "tilus.allocate_global"() : () -> !w
  %w1 = "tilus.allocate_global"() : () -> !w
  %w2 = "tilus.allocate_global"() : () -> !w
  %w3 = "tilus.allocate_global"() : () -> !w
  %w4 = "tilus.allocate_global"() : () -> !w
  %w5 = "tilus.allocate_global"() : () -> !w
  %w6 = "tilus.allocate_global"() : () -> !w
  %w7 = "tilus.allocate_global"() : () -> !w
  %w8 = "tilus.allocate_global"() : () -> !w
  %w9 = "tilus.allocate_global"() : () -> !w
  %w10 = "tilus.allocate_global"() : () -> !w
  %w11 = "tilus.allocate_global"() : () -> !w
  %w12 = "tilus.allocate_global"() : () -> !w
  %w13 = "tilus.allocate_global"() : () -> !w
  %w14 = "tilus.allocate_global"() : () -> !w
  // expected-error@+1 {{'tilus.allocate_global' op cannot be lowered: the kernel's workspace does not fit in 2^63 bytes}}
  %w15 = "tilus.allocate_global"() : () -> !w
  return
}
