// tilusCompile (Target.h) from a C program that handles no MLIR object: the
// artifact equals tilus-opt's, byte for byte, for every target and the
// default one, also from several threads at once; bad input gives located
// diagnostic lines and no output.
// RUN: tilus-compile-test %tilus_src_root/examples/matmul_pipelined_f16.mlir sm_90a > %t.lib
// RUN: tilus-opt %tilus_src_root/examples/matmul_pipelined_f16.mlir --lower-to-nvvm --emit-artifact --target=sm_90a -o %t.opt
// RUN: cmp %t.lib %t.opt
// Four threads compiling at once (tilusCompile shares nothing between calls;
// the process-wide registrations happen once).
// RUN: tilus-compile-test --threads 4 %tilus_src_root/examples/matmul_pipelined_f16.mlir sm_90a > %t.threads
// RUN: cmp %t.threads %t.opt
// RUN: tilus-compile-test %tilus_src_root/examples/matmul_naive_f16.mlir sm_80 > %t.lib80
// RUN: tilus-opt %tilus_src_root/examples/matmul_naive_f16.mlir --lower-to-nvvm --emit-artifact --target=sm_80 -o %t.opt80
// RUN: cmp %t.lib80 %t.opt80
// RUN: tilus-compile-test %tilus_src_root/examples/matmul_naive_f16.mlir > %t.default
// RUN: tilus-opt %tilus_src_root/examples/matmul_naive_f16.mlir --lower-to-nvvm --emit-artifact -o %t.optdefault
// RUN: cmp %t.default %t.optdefault
// RUN: not tilus-compile-test %s sm_80 > %t.bad 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: not test -s %t.bad
// RUN: not tilus-compile-test %s sm_75 2>&1 | FileCheck %s --check-prefix=TARGET

// CHECK: compile.mlir:[[@LINE+4]]:1: error: 'func.func' op block size must be between 1 and 1024, got 2048
// CHECK-NOT: error
// TARGET: error: unsupported target 'sm_75'; use sm_80, sm_89, sm_90 or sm_90a

func.func @k() attributes {tilus.kernel, tilus.block_size = 2048 : i64, tilus.grid = affine_map<() -> (1)>} {
  return
}
