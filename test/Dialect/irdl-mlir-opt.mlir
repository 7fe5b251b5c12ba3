// Stock mlir-opt parses Tilus programs with nothing but the IRDL file.
// RUN: mlir-opt --irdl-file=%irdl %tilus_src_root/examples/matmul_f16_i6.mlir | FileCheck %s
// RUN: mlir-opt --irdl-file=%irdl %S/ops.mlir | tilus-opt | FileCheck %s --check-prefix=OPS

// CHECK-LABEL: func.func @matmul
// CHECK: "tilus.block_indices"() : () -> (index, index)
// CHECK: "tilus.view"
// CHECK-SAME: -> !tilus.register<i6, array<i64: 16, 8>, #tilus.layout<"local(2,1).column_spatial(4,8).local(2,1)">>
// CHECK: "tilus.dot"
// CHECK: "tilus.store_global"

// OPS-LABEL: func.func @all_ops
// OPS: "tilus.copy_async"
// OPS-LABEL: func.func @compute
// OPS: "tilus.dot"
