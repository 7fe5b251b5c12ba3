// The atomic ops and the semaphore pair, parsed, verified, printed and
// parsed again.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

!g32 = !tilus.global<f32, array<i64: -1, 64>, #tilus.row_major>
!gi = !tilus.global<i32, array<i64: 16>, #tilus.row_major>
!gh = !tilus.global<f16, array<i64: 16, 64>, #tilus.row_major>
!si = !tilus.shared<ui32, array<i64: 8>, #tilus.layout<"local(8)">>
!r32 = !tilus.register<f32, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>
!rh = !tilus.register<f16, array<i64: 16, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">>

// CHECK-LABEL: func.func @atomics
func.func @atomics(%p: !tilus.ptr<f32>, %q: !tilus.ptr<i32>, %h: !tilus.ptr<f16>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 32 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3] -> (4)>} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %N = arith.index_cast %n : i32 to index
  %one = arith.constant 1.0 : f32
  %i5 = arith.constant 5 : i32
  %u5 = arith.constant 5 : i32
  %g = "tilus.view_global"(%p, %N) : (!tilus.ptr<f32>, index) -> !g32
  %gi = "tilus.view_global"(%q) : (!tilus.ptr<i32>) -> !gi
  %gh = "tilus.view_global"(%h) : (!tilus.ptr<f16>) -> !gh
  %s = "tilus.allocate_shared"() : () -> !si
  // CHECK: "tilus.atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {kind = "add"} : (!tilus.global<f32, array<i64: -1, 64>, #tilus.row_major>, index, index, f32) -> f32
  %old = "tilus.atomic_rmw"(%g, %c0, %c3, %one) {kind = "add"} : (!g32, index, index, f32) -> f32
  // CHECK: "tilus.atomic_rmw"({{.*}}) {kind = "max"} : (!tilus.global<i32, array<i64: 16>, #tilus.row_major>, index, i32) -> i32
  %m = "tilus.atomic_rmw"(%gi, %c3, %i5) {kind = "max"} : (!gi, index, i32) -> i32
  // CHECK: "tilus.atomic_rmw"({{.*}}) {kind = "min"} : (!tilus.shared<ui32, array<i64: 8>, #tilus.layout<"local(8)">>, index, i32) -> i32
  %u = "tilus.atomic_rmw"(%s, %c3, %u5) {kind = "min"} : (!si, index, i32) -> i32
  // CHECK: "tilus.atomic_rmw"({{.*}}) {kind = "exchange"}
  %x = "tilus.atomic_rmw"(%gi, %c0, %i5) {kind = "exchange"} : (!gi, index, i32) -> i32
  // CHECK: "tilus.atomic_cas"({{.*}}) : (!tilus.global<i32, array<i64: 16>, #tilus.row_major>, index, i32, i32) -> i32
  %c = "tilus.atomic_cas"(%gi, %c0, %m, %i5) : (!gi, index, i32, i32) -> i32
  %r = "tilus.allocate_register"() : () -> !r32
  // CHECK: "tilus.atomic_add_global"({{.*}}) : (!tilus.register<f32, {{.*}}>, !tilus.global<f32, array<i64: -1, 64>, #tilus.row_major>, index, index) -> ()
  "tilus.atomic_add_global"(%r, %g, %c0, %c0) : (!r32, !g32, index, index) -> ()
  %rh = "tilus.allocate_register"() : () -> !rh
  // CHECK: "tilus.atomic_add_global"({{.*}}) : (!tilus.register<f16, {{.*}}>, !tilus.global<f16, {{.*}}>, index, index) -> ()
  "tilus.atomic_add_global"(%rh, %gh, %c0, %c0) : (!rh, !gh, index, index) -> ()
  // CHECK: "tilus.semaphore_wait"(%{{.*}}, %{{.*}}, %{{.*}}) : (!tilus.global<i32, array<i64: 16>, #tilus.row_major>, index, i32) -> ()
  "tilus.semaphore_wait"(%gi, %c3, %i5) : (!gi, index, i32) -> ()
  // CHECK: "tilus.semaphore_signal"(%{{.*}}, %{{.*}}, %{{.*}}) : (!tilus.global<i32, array<i64: 16>, #tilus.row_major>, index, i32) -> ()
  "tilus.semaphore_signal"(%gi, %c3, %i5) : (!gi, index, i32) -> ()
  return
}
