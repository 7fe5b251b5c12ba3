func.func @k(%n: index) attributes {tilus.kernel, tilus.block_size = 32 : i64,
                                    tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %s = arith.addi %n, %c0 : index
  %r = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  "tilus.print"(%s) : (index) -> ()
  return
}
