// The Tilus passes by name in a textual pipeline (tilusRegisterPasses), in
// tilus-opt and in stock mlir-opt with the plugin.
// RUN: tilus-opt --split-input-file --verify-diagnostics --tilus-plan-shared %S/../Transforms/plan-shared.mlir > %t.flag
// RUN: tilus-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tilus-plan-shared)' %S/../Transforms/plan-shared.mlir > %t.named
// RUN: diff %t.flag %t.named
// RUN: FileCheck %s --check-prefix=PLAN < %t.named
// PLAN: tilus.shared_offset

// RUN: tilus-opt --lower-to-nvvm %tilus_src_root/examples/matmul_naive_f16.mlir > %t.nvvm
// RUN: mlir-opt --load-pass-plugin=%tilus_plugin --irdl-file=%irdl --pass-pipeline='builtin.module(lower-to-nvvm)' %tilus_src_root/examples/matmul_naive_f16.mlir > %t.plugin
// RUN: diff %t.nvvm %t.plugin
// RUN: mlir-opt --load-pass-plugin=%tilus_plugin --load-dialect-plugin=%tilus_plugin --irdl-file=%irdl --pass-pipeline='builtin.module(tilus-verify,tilus-plan-shared,tilus-to-gpu)' %tilus_src_root/examples/matmul_naive_f16.mlir | FileCheck %s
// CHECK: gpu.module @tilus_kernels attributes {tilus.target = "sm_90a"}
// CHECK: gpu.func @matmul
// RUN: FileCheck %s --check-prefix=NVVM < %t.plugin
// NVVM: llvm.func @matmul
// NVVM-SAME: nvvm.kernel
