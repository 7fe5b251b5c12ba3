// In stock mlir-opt with the plugin, lower-to-nvvm takes the target from the
// module's tilus.target too (target-from-module.mlir does it in tilus-opt).
// Not in the sanitized build: mlir-opt is not instrumented.
// UNSUPPORTED: asan
// RUN: sed -e '/^func.func/i module attributes {tilus.target = "sm_80"} {' -e '$ a }' %tilus_src_root/examples/matmul_pipelined_f16.mlir > %t.sm80.mlir
// RUN: mlir-opt --load-pass-plugin=%tilus_plugin --irdl-file=%irdl --pass-pipeline='builtin.module(lower-to-nvvm)' %t.sm80.mlir | FileCheck %s
// RUN: mlir-opt --load-pass-plugin=%tilus_plugin --irdl-file=%irdl --pass-pipeline='builtin.module(lower-to-nvvm)' %tilus_src_root/examples/matmul_pipelined_f16.mlir | FileCheck %s --check-prefix=SM90
// CHECK: gpu.module @tilus_kernels attributes {tilus.target = "sm_80"}
// CHECK-NOT: stmatrix
// SM90: gpu.module @tilus_kernels attributes {tilus.target = "sm_90a"}
// SM90: stmatrix
