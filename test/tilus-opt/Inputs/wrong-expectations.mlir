// Chunk 1: the message differs from the expectation.
func.func @a() attributes {tilus.kernel, tilus.block_size = 32 : i64,
                           tilus.grid = affine_map<() -> (1)>} {
  // The expectation below names line 6 but the wrong text.
  // expected-error@+1 {{this text is not in the message}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(64)">>
  return
}
// -----
// Chunk 2: an expected error that never comes.
func.func @b() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@below {{nothing is wrong here}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}
// -----
// Chunk 3: an error no one expected.
func.func @c() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 16>, #tilus.layout<"spatial(16)">>
  return
}
// -----
// expected-error@+1 without braces
