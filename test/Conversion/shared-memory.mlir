// Shared tensors live in the block's one dynamic shared buffer (an external
// array of size 0: PTX .extern .shared), at the offsets tilus-plan-shared
// gave them. A swizzled layout is inverted with one XOR per access; rows of
// 8 f16 contiguous in both layouts are one 16-byte st.shared, rows of 4 one
// 8-byte ld.shared. CopyAsync becomes 16-byte cp.async.cg with a src-size
// operand (zero fill past the global tensor's edge), then commit and wait;
// where no chunk is provably aligned, element-by-element copies.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/shared_f16.mlir --tilus-plan-shared --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/shared_f16.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX

// CHECK: llvm.mlir.global external @__tilus_dynamic_shared() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @roundtrip
// CHECK-SAME: tilus.shared_bytes = 16384 : i64
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @__tilus_dynamic_shared : !llvm.ptr<3>
// CHECK: arith.xori %{{.*}}, %{{.*}} : index
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: arith.xori %{{.*}}, %{{.*}} : index
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
// Each 16-byte chunk is wholly inside the tensor or outside: src-size 16 or 0.
// CHECK-LABEL: gpu.func @async
// CHECK: %[[SIZE:.*]] = arith.select %{{.*}}, %c16_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// A row length known only at run time: no aligned chunk, element copies.
// CHECK-LABEL: gpu.func @async_unaligned
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> f16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : f16, !llvm.ptr<3>
// CHECK: nvvm.cp.async.commit.group

// PTX: .extern .shared .align 128 .b8 __tilus_dynamic_shared[];
// PTX-LABEL: .entry roundtrip(
// PTX: st.shared.v4.b32
// PTX: bar.sync
// PTX: ld.shared.v2.b32
// PTX-LABEL: .entry async(
// PTX: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %{{.*}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
