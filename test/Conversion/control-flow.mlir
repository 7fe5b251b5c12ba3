// scf.for, scf.while and scf.if that carry register tensors are rebuilt with
// the per-thread vector type.
// RUN: tilus-opt %S/../gpu/kernels/loops_f32.mlir --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %S/../gpu/kernels/loops_f32.mlir --lower-to-nvvm | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: gpu.func @loops_f32
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<2xf32>) {
// CHECK: arith.addf %[[A]], %{{.*}} : vector<2xf32>
// CHECK: scf.yield %{{.*}} : vector<2xf32>
// CHECK: %[[W:.*]]:2 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[SUM]]) : (i32, vector<2xf32>) -> (i32, vector<2xf32>) {
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : i32, vector<2xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: scf.if %{{.*}} -> (vector<2xf32>) {
// CHECK: arith.negf %{{.*}} : vector<2xf32>
// CHECK-NOT: "tilus.

// NVVM-NOT: unrealized_conversion_cast
// NVVM: llvm.func @loops_f32
