// What the lowering cannot do yet is a located error, never a crash or a
// Tilus op left behind.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-to-gpu

func.func @sub_byte(%p: !tilus.ptr<i4>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i4>) -> !tilus.global<i4, array<i64: 64>, #tilus.row_major>
  %r = "tilus.allocate_register"() : () -> !tilus.register<i4, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>
  // expected-error@+1 {{'tilus.store_global' op cannot be lowered: stores of sub-byte element types are not lowered yet}}
  "tilus.store_global"(%r, %g, %c0) : (!tilus.register<i4, array<i64: 64>, #tilus.layout<"spatial(32).local(2)">>, !tilus.global<i4, array<i64: 64>, #tilus.row_major>, index) -> ()
  return
}

// -----

func.func @shared() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_shared' op cannot be lowered to gpu/nvvm yet}}
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 32>, #tilus.layout<"local(32)">>
  return
}
