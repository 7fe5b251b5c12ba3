// A 64-thread register layout in a 32-thread kernel (line 4).
func.func @k() attributes {tilus.kernel, tilus.block_size = 32 : i64,
                           tilus.grid = affine_map<() -> (1)>} {
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(64)">>
  return
}
