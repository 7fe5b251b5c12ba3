// The Tilus passes used by name take the target from the module's
// tilus.target attribute (default sm_90a): the epilogue's StoreShared is
// stmatrix on sm_90a only (test/Conversion/matrix-access.mlir), and the
// gpu.module records the target. The example is wrapped in a module that
// names the target.
// RUN: sed -e '/^func.func/i module attributes {tilus.target = "sm_80"} {' -e '$ a }' %tilus_src_root/examples/matmul_pipelined_f16.mlir > %t.sm80.mlir
// RUN: sed -e '/^func.func/i module attributes {tilus.target = "sm_90a"} {' -e '$ a }' %tilus_src_root/examples/matmul_pipelined_f16.mlir > %t.sm90a.mlir
// RUN: tilus-opt %t.sm80.mlir --pass-pipeline='builtin.module(lower-to-nvvm)' | FileCheck %s --check-prefix=SM80
// RUN: tilus-opt %t.sm90a.mlir --pass-pipeline='builtin.module(lower-to-nvvm)' | FileCheck %s --check-prefix=SM90
// RUN: tilus-opt %t.sm80.mlir --pass-pipeline='builtin.module(tilus-plan-shared,tilus-to-gpu)' | FileCheck %s --check-prefix=SM80
// Without the attribute: sm_90a.
// RUN: tilus-opt %tilus_src_root/examples/matmul_pipelined_f16.mlir --pass-pipeline='builtin.module(lower-to-nvvm)' | FileCheck %s --check-prefix=SM90
// tilus-opt's pass flags do the same without --target; --target wins.
// RUN: tilus-opt %t.sm80.mlir --lower-to-nvvm | FileCheck %s --check-prefix=SM80
// RUN: tilus-opt %t.sm80.mlir --lower-to-nvvm --target=sm_90a | FileCheck %s --check-prefix=SM90
// --emit-ptx takes the module's target too.
// RUN: tilus-opt %t.sm80.mlir --lower-to-nvvm --emit-ptx | FileCheck %s --check-prefix=PTX80
// An attribute that names no supported target is an error at the module.
// RUN: sed -e 's/"sm_80"/"sm_75"/' %t.sm80.mlir | not tilus-opt --pass-pipeline='builtin.module(tilus-to-gpu)' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed -e 's/"sm_80"/80/' %t.sm80.mlir | not tilus-opt --pass-pipeline='builtin.module(tilus-to-gpu)' 2>&1 | FileCheck %s --check-prefix=BAD

// SM80: gpu.module @tilus_kernels attributes {tilus.target = "sm_80"}
// SM80-NOT: stmatrix
// SM90: gpu.module @tilus_kernels attributes {tilus.target = "sm_90a"}
// SM90: stmatrix
// PTX80: .target sm_80
// PTX80-NOT: stmatrix
// BAD: <stdin>:34:1: error: the module's tilus.target is not a supported target: use a string, one of sm_80, sm_89, sm_90 or sm_90a
