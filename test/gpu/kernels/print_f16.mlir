// Print of a register tensor (one line per element and thread) and of a
// scalar argument. scripts/gpu-test.sh compares the sorted output.
!r = !tilus.register<f16, array<i64: 4, 8>, #tilus.layout<"spatial(4,8)">>
func.func @print_f16(%x: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64,
                                          tilus.grid = affine_map<()[s0] -> (1)>} {
  %h = arith.constant 1.5 : f16
  %r = "tilus.allocate_register"(%h) : (f16) -> !r
  "tilus.print"(%r) : (!r) -> ()
  "tilus.print"(%x) : (i32) -> ()
  return
}
