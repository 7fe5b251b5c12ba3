// The rules of tilus.cluster and the cluster ops, with the exact messages.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'func.func' op 'tilus.cluster' is the blocks per cluster in 1 to 3 dimensions, at most 8 in all, e.g. array<i64: 2, 1, 1>}}
func.func @too_many() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.cluster = array<i64: 4, 4>, tilus.grid = affine_map<() -> (16, 16)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'tilus.cluster' is the blocks per cluster in 1 to 3 dimensions, at most 8 in all, e.g. array<i64: 2, 1, 1>}}
func.func @not_an_array() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.cluster = 2 : i64, tilus.grid = affine_map<() -> (16)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op grid dimension 0 is 3, not a multiple of the cluster's 2}}
func.func @grid_not_multiple() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.cluster = array<i64: 2>, tilus.grid = affine_map<() -> (3)>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op the cluster has 2 blocks in dimension 1, which the grid does not have}}
func.func @grid_lacks_dimension() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.cluster = array<i64: 1, 2>, tilus.grid = affine_map<() -> (4)>} {
  return
}

// -----

func.func @rank_without_cluster() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (4)>} {
  // expected-error@+1 {{'tilus.cluster_block_rank' op needs a kernel that runs in thread-block clusters (a 'tilus.cluster' attribute)}}
  %r = "tilus.cluster_block_rank"() : () -> index
  return
}

// -----

func.func @cluster_barrier_in_group() attributes {tilus.kernel, tilus.block_size = 256 : i64, tilus.cluster = array<i64: 2>, tilus.grid = affine_map<() -> (4)>} {
  %in = "tilus.in_thread_group"() {first = 0 : i64, count = 128 : i64} : () -> i1
  scf.if %in {
    // expected-error@+1 {{'tilus.cluster_synchronize' op waits for every thread of the cluster, so it cannot be in a thread group}}
    "tilus.cluster_synchronize"() : () -> ()
  }
  return
}
