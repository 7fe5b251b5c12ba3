// A kernel with more threads per block than CUDA allows.

func.func @k() attributes {tilus.kernel, tilus.block_size = 2048 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}
