// 8-bit LoadShared/StoreShared through ldmatrix/stmatrix: the mma.sync s8 A
// fragment layout (four consecutive bytes per lane) is made of 8x8 matrices
// of 16-bit pairs, so each warp's 16x64 rows are two ldmatrix.x4 from the
// swizzled buffer, and their store back is two stmatrix.x4 on sm_90a and
// 4-byte st.shared on sm_80; the plain layout takes neither.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/shared_i8.mlir --target=sm_90a --tilus-plan-shared --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/shared_i8.mlir --lower-to-nvvm --emit-ptx --target=sm_80 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: gpu.func @roundtrip
// CHECK-NOT: nvvm.ldmatrix
// CHECK: gpu.barrier
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-2: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK-NOT: nvvm.stmatrix
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.ldmatrix

// SM80-LABEL: .entry roundtrip(
// SM80-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-NOT: stmatrix
// SM80: st.shared.b32
