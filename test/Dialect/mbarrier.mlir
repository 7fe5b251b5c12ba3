// The mbarrier ops, parsed, verified, printed and parsed again.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

!b = !tilus.shared<i64, array<i64: 2, 2>, #tilus.layout<"local(2,2)">>
// CHECK-LABEL: func.func @mbarriers
func.func @mbarriers(%n: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant 1 : i32
  %bars = "tilus.allocate_shared"() : () -> !b
  // CHECK: "tilus.mbarrier_init"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!tilus.shared<i64, array<i64: 2, 2>, #tilus.layout<"local(2,2)">>, index, index, i32) -> ()
  "tilus.mbarrier_init"(%bars, %c0, %c1, %n) : (!b, index, index, i32) -> ()
  // CHECK: "tilus.mbarrier_arrive"
  "tilus.mbarrier_arrive"(%bars, %c0, %c1) : (!b, index, index) -> ()
  // CHECK: "tilus.copy_async_mbarrier_arrive"
  "tilus.copy_async_mbarrier_arrive"(%bars, %c0, %c1) : (!b, index, index) -> ()
  // CHECK: "tilus.mbarrier_arrive_expect_tx"
  "tilus.mbarrier_arrive_expect_tx"(%bars, %c1, %c1, %n) : (!b, index, index, i32) -> ()
  // CHECK: "tilus.mbarrier_wait"
  "tilus.mbarrier_wait"(%bars, %c0, %c1, %p) : (!b, index, index, i32) -> ()
  return
}
