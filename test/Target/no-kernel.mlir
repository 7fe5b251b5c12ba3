// An artifact describes Tilus kernels; a module with none is a located error
// (the runtime would refuse the artifact), while its PTX can still be emitted.
// RUN: not tilus-opt %s --emit-artifact --target=sm_80 2>&1 | FileCheck %s
// RUN: tilus-opt %s --emit-ptx --target=sm_80 | FileCheck %s --check-prefix=PTX

// CHECK: no-kernel.mlir:[[@LINE+4]]:3: error: the gpu.module has no Tilus kernel to write an artifact for
// PTX: .target sm_80

module attributes {gpu.container_module} {
  gpu.module @tilus_kernels {
  }
}
