// tilus.load_global's source must be a !tilus.global (line 5).
func.func @k(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64,
                                  tilus.grid = affine_map<() -> (1)>} {
  %s = "tilus.allocate_shared"() : () -> !tilus.shared<f32, array<i64: 32>, #tilus.layout<"local(32)">>
  %r = "tilus.load_global"(%s) : (!tilus.shared<f32, array<i64: 32>, #tilus.layout<"local(32)">>) -> !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}
