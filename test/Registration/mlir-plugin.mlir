// The Tilus passes and lower-to-nvvm by name in stock mlir-opt, through the
// plugin: the same output as tilus-opt. Not in the sanitized build: mlir-opt
// is not instrumented, so a sanitized plugin cannot be loaded into it.
// UNSUPPORTED: asan
// RUN: tilus-opt --lower-to-nvvm %tilus_src_root/examples/matmul_naive_f16.mlir > %t.nvvm
// RUN: mlir-opt --load-pass-plugin=%tilus_plugin --irdl-file=%irdl --pass-pipeline='builtin.module(lower-to-nvvm)' %tilus_src_root/examples/matmul_naive_f16.mlir > %t.plugin
// RUN: diff %t.nvvm %t.plugin
// RUN: mlir-opt --load-pass-plugin=%tilus_plugin --load-dialect-plugin=%tilus_plugin --irdl-file=%irdl --pass-pipeline='builtin.module(tilus-verify,tilus-plan-shared,tilus-to-gpu)' %tilus_src_root/examples/matmul_naive_f16.mlir | FileCheck %s
// CHECK: gpu.module @tilus_kernels attributes {tilus.target = "sm_90a"}
// CHECK: gpu.func @matmul
// RUN: FileCheck %s --check-prefix=NVVM < %t.plugin
// NVVM: llvm.func @matmul
// NVVM-SAME: nvvm.kernel
