// An op that LLVM IR cannot express is reported where it is, once, and
// nothing is written.
// RUN: not tilus-opt %s --emit-ptx --target=sm_80 -o %t.ptx 2>&1 | FileCheck %s
// RUN: not test -s %t.ptx

// CHECK: translate-error.mlir:[[@LINE+6]]:{{[0-9]+}}: error: cannot be converted to LLVM IR
// CHECK-NOT: error:

module attributes {gpu.container_module} {
  gpu.module @tilus_kernels {
    llvm.func @k() attributes {nvvm.kernel} {
      %0 = arith.constant 1 : i32
      llvm.return
    }
  }
}
