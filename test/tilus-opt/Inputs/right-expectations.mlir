func.func @a() attributes {tilus.kernel, tilus.block_size = 32 : i64,
                           tilus.grid = affine_map<() -> (1)>} {
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(64)">>
  // expected-error@-1 {{has 64 threads but the kernel's block size is 32}}
  return
}
// -----
func.func @b() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@below {{has 16 threads}}
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 16>, #tilus.layout<"spatial(16)">>
  return
}
// -----
// expected-error@16 {{block size must be between 1 and 1024, got 0}}
// The absolute form (@16) names the line of the func below.
func.func @c() attributes {tilus.kernel, tilus.block_size = 0 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}
