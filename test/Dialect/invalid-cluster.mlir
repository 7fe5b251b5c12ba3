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

// -----

!b = !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
func.func @remote_arrive_without_cluster() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (4)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !b
  // expected-error@+1 {{'tilus.mbarrier_arrive_remote' op needs a kernel that runs in thread-block clusters (a 'tilus.cluster' attribute)}}
  "tilus.mbarrier_arrive_remote"(%bars, %c0, %c0) : (!b, index, index) -> ()
  return
}

// -----

!b = !tilus.shared<i64, array<i64: 1>, #tilus.layout<"local(1)">>
!s = !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @multicast_without_cluster(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %bars = "tilus.allocate_shared"() : () -> !b
  %s = "tilus.allocate_shared"() : () -> !s
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !g
  // expected-error@+1 {{'tilus.tma_load' op multicast needs a kernel that runs in thread-block clusters (a 'tilus.cluster' attribute)}}
  "tilus.tma_load"(%s, %g, %bars, %c0, %c0, %c0, %c0, %c0) {multicast, operandSegmentSizes = array<i32: 1, 1, 1, 2, 2, 1>, shape = array<i64: 16, 64>} : (!s, !g, !b, index, index, index, index, index) -> ()
  return
}

// -----

!s = !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(16,64)">>
!g = !tilus.global<f16, array<i64: -1, -1>, #tilus.row_major>
func.func @multicast_store(%p: !tilus.ptr<f16>, %m: i32, %k: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.cluster = array<i64: 2>, tilus.grid = affine_map<() -> (2)>} {
  %c0 = arith.constant 0 : index
  %s = "tilus.allocate_shared"() : () -> !s
  %m0 = arith.index_cast %m : i32 to index
  %k0 = arith.index_cast %k : i32 to index
  %g = "tilus.view_global"(%p, %m0, %k0) : (!tilus.ptr<f16>, index, index) -> !g
  // expected-error@+1 {{'tilus.tma_store' op 'multicast' is a unit attribute of tma_load}}
  "tilus.tma_store"(%s, %g, %c0, %c0, %c0, %c0) {multicast, operandSegmentSizes = array<i32: 1, 1, 2, 2>, shape = array<i64: 16, 64>} : (!s, !g, index, index, index, index) -> ()
  return
}
