// A program with a syntax error on line 4.
func.func @k() attributes {tilus.kernel, tilus.block_size = 32 : i64,
                           tilus.grid = affine_map<() -> (1)>} {
  %r = "tilus.allocate_register"( : () -> ()
  return
}
