// A masked load yields the fill operand (broadcast for vector accesses) for
// elements outside the tensor.
// RUN: tilus-opt %S/../gpu/kernels/pad_f32.mlir --tilus-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @pad_f32
// CHECK-SAME: %[[FILL:arg4]]: f32
// CHECK: scf.if
// CHECK: llvm.load {{.*}} -> vector<4xf32>
// CHECK: } else {
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[FILL]] : f32
