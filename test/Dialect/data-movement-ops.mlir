// Reduce, ConvertLayout, Permute and Reshape parsed, verified, printed and
// parsed again.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

!x = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>
!r = !tilus.register<f16, array<i64: 32>, #tilus.layout<"reduce(spatial(8,4),dims=[1]).local(4)">>
!c = !tilus.register<f16, array<i64: 8>, #tilus.layout<"reduce(spatial(8,4),dims=[0]).local(2)">>
!y = !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
!t = !tilus.register<f16, array<i64: 8, 32>, #tilus.layout<"spatial(4,8).local(2,4)">>
!u = !tilus.register<f16, array<i64: 1, 256>, #tilus.layout<"spatial(1,32).local(1,8)">>
// CHECK-LABEL: func.func @moves
func.func @moves(%v: f16) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %x = "tilus.allocate_register"(%v) : (f16) -> !x
  // CHECK: "tilus.reduce"(%{{.*}}) {dims = array<i64: 1>, kind = "sum"}
  %s = "tilus.reduce"(%x) {dims = array<i64: 1>, kind = "sum"} : (!x) -> !r
  // CHECK: "tilus.reduce"(%{{.*}}) {dims = array<i64: 0>, kind = "max"}
  %m = "tilus.reduce"(%x) {dims = array<i64: 0>, kind = "max"} : (!x) -> !c
  // CHECK: "tilus.convert_layout"(%{{.*}}) : (!tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(8,4).local(4,2)">>) -> !tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
  %y = "tilus.convert_layout"(%x) : (!x) -> !y
  // CHECK: "tilus.permute"(%{{.*}}) {dims = array<i64: 1, 0>}
  %t = "tilus.permute"(%x) {dims = array<i64: 1, 0>} : (!x) -> !t
  // CHECK: "tilus.reshape"(%{{.*}}) : (!tilus.register<f16, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>) -> !tilus.register<f16, array<i64: 1, 256>
  %u = "tilus.reshape"(%y) : (!y) -> !u
  return
}
