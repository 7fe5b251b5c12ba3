// What the lowering cannot do yet is a located error, never a crash or a
// Tilus op left behind.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-to-gpu

func.func @shared() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_shared' op cannot be lowered to gpu/nvvm yet}}
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}
