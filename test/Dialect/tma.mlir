// tilus.tma_load and tma_store, parsed, verified, printed and parsed again:
// a stage of a 128-byte swizzled shared tensor to and from a view whose
// sizes are a kernel argument and a constant.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

!g = !tilus.global<bf16, array<i64: -1, 128>, #tilus.row_major>
!s = !tilus.shared<bf16, array<i64: 3, 64, 128>, #tilus.layout<"local(3,1,2).swizzle(local(1,64,8),dim=2,log_step=0).local(1,1,8)">>
!b = !tilus.shared<i64, array<i64: 3>, #tilus.layout<"local(3)">>
// CHECK-LABEL: func.func @tma
func.func @tma(%p: !tilus.ptr<bf16>, %m: i32) attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %M = arith.index_cast %m : i32 to index
  %g = "tilus.view_global"(%p, %M) : (!tilus.ptr<bf16>, index) -> !g
  %bars = "tilus.allocate_shared"() : () -> !b
  %s = "tilus.allocate_shared"() : () -> !s
  // CHECK: "tilus.tma_load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 3, 2, 1>, shape = array<i64: 64, 128>}
  "tilus.tma_load"(%s, %g, %bars, %c2, %c0, %c0, %c64, %c0, %c2) {operandSegmentSizes = array<i32: 1, 1, 1, 3, 2, 1>, shape = array<i64: 64, 128>} : (!s, !g, !b, index, index, index, index, index, index) -> ()
  // CHECK: "tilus.tma_store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 64, 128>}
  "tilus.tma_store"(%s, %g, %c2, %c0, %c0, %c64, %c0) {operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 64, 128>} : (!s, !g, index, index, index, index, index) -> ()
  // CHECK: "tilus.tma_store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {async_writes, operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 64, 128>}
  "tilus.tma_store"(%s, %g, %c2, %c0, %c0, %c64, %c0) {async_writes, operandSegmentSizes = array<i32: 1, 1, 3, 2>, shape = array<i64: 64, 128>} : (!s, !g, index, index, index, index, index) -> ()
  return
}
