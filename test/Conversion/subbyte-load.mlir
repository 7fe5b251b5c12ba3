// LoadGlobal of a compact sub-byte tensor: the element's bit offset, a byte
// load, a second byte only when the element straddles, then shift and mask.
// RUN: bash %S/../gpu/subbyte-kernels.sh %t
// RUN: tilus-opt %t/load_u3.mlir --tilus-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @load
// CHECK: scf.if
// CHECK: arith.muli %{{.*}}, %c3 : index
// CHECK: arith.divui %{{.*}}, %c8 : index
// CHECK: arith.remui %{{.*}}, %c8 : index
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.cmpi ugt, %{{.*}}, %c5_i32 : i32
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.shrui
// CHECK: arith.andi %{{.*}}, %c7_i32 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i3
// CHECK: arith.extui %{{.*}} : vector<12xi3> to vector<12xi32>
// CHECK-NEXT: arith.uitofp %{{.*}} : vector<12xi32> to vector<12xf32>
