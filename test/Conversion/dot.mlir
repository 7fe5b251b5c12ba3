// Dot's SIMT fallback: operands meet in a shared-memory scratch between two
// barriers, and each thread accumulates its elements of the result over K.
// The int6 weights of the paper's Figure 2 are viewed and cast in registers:
// the view costs nothing and the cast is the magic-number fast path
// (fast-cast.mlir shows each path).
// RUN: tilus-opt %tilus_src_root/examples/matmul_f16_i6.mlir --tilus-to-gpu | FileCheck %s

// CHECK: llvm.mlir.global internal @__tilus_dot_scratch_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<768 x i8>
// CHECK-LABEL: gpu.func @matmul
// CHECK: llvm.mlir.addressof @__tilus_dot_scratch_0 : !llvm.ptr<3>
// CHECK: scf.for
// CHECK: llvm.insertelement %{{.*}}, %{{.*}}[%{{.*}} : i32] : vector<3xi8>
// CHECK-NOT: vector<4xi6>
// CHECK: arith.xori %{{.*}}, %c2097184_i32 : i32
// CHECK: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
// CHECK-NEXT: arith.subf %[[W]], %{{.*}} : vector<4xf16>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<4xf32>) {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK-NOT: tilus.
