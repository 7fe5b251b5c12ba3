// LoadGlobal of a compact sub-byte tensor: the element's bit offset, a byte
// load, a second byte only when the element straddles, then shift and mask.
// StoreGlobal/StoreShared: the element's bits cleared and set in their 32-bit word with
// atomic AND and OR (neighbouring threads share words), and in the next word
// only when the element straddles.
// The kernels are the GPU suite's (test/gpu/generators/subbyte_kernels.py),
// written by the DSL in python, which cannot load a sanitized libTilus.so.
// UNSUPPORTED: asan
// RUN: %tilus_python %tilus_src_root/test/gpu/generate.py %t load_u3 load_i4
// RUN: tilus-opt %t/load_u3.mlir --tilus-plan-shared --tilus-to-gpu | FileCheck %s
// RUN: tilus-opt %t/load_u3.mlir --tilus-plan-shared --tilus-to-gpu | FileCheck %s --check-prefix=STORE
// RUN: tilus-opt %t/load_i4.mlir --tilus-plan-shared --tilus-to-gpu | FileCheck %s --check-prefix=STORE4
// RUN: tilus-opt %t/load_u3.mlir --tilus-plan-shared --tilus-to-gpu | FileCheck %s --check-prefix=SHARED
// RUN: tilus-opt %t/load_u3.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s --check-prefix=PTX

// The same paths on shared memory (pointers of address space 3).
// SHARED-LABEL: gpu.func @shared
// SHARED: llvm.atomicrmw _and %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// SHARED: llvm.atomicrmw _or %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// SHARED: gpu.barrier
// SHARED: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<3> -> i8

// STORE-LABEL: gpu.func @store
// STORE: scf.if
// STORE: %[[BIT:.*]] = arith.muli %{{.*}}, %c3 : index
// STORE: %[[WORD:.*]] = arith.divui %[[BIT]], %c32 : index
// STORE: %[[SHIFT:.*]] = arith.remui %[[BIT]], %c32 : index
// STORE: %[[MASK:.*]] = arith.shli %c7_i64, %{{.*}} : i64
// STORE: %[[PTR:.*]] = llvm.getelementptr %{{.*}} -> !llvm.ptr<1>, i32
// STORE: %[[CLEAR:.*]] = arith.xori %{{.*}}, %c-1_i32 : i32
// STORE: llvm.atomicrmw _and %[[PTR]], %[[CLEAR]] monotonic : !llvm.ptr<1>, i32
// STORE: llvm.atomicrmw _or %[[PTR]], %{{.*}} monotonic : !llvm.ptr<1>, i32
// STORE: arith.cmpi ugt, %[[SHIFT]], %c29 : index
// STORE: scf.if
// STORE: llvm.atomicrmw _and
// STORE: llvm.atomicrmw _or
// STORE-NOT: llvm.store %{{.*}} : i3

// 4-bit elements never straddle a word: no second word.
// STORE4-LABEL: gpu.func @store
// STORE4: llvm.atomicrmw _and
// STORE4: llvm.atomicrmw _or
// STORE4-NOT: arith.cmpi ugt, %{{.*}}, %c28 : index

// PTX-LABEL: .entry store(
// PTX: atom.global.and.b32
// PTX: atom.global.or.b32

// CHECK-LABEL: gpu.func @load
// CHECK: scf.if
// CHECK: arith.muli %{{.*}}, %c3 : index
// CHECK: arith.divui %{{.*}}, %c8 : index
// CHECK: arith.remui %{{.*}}, %c8 : index
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.cmpi ugt, %{{.*}}, %c5_i32 : i32
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.shrui
// CHECK: arith.andi %{{.*}}, %c7_i32 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i3
// CHECK: arith.extui %{{.*}} : vector<12xi3> to vector<12xi32>
// CHECK-NEXT: arith.uitofp %{{.*}} : vector<12xi32> to vector<12xf32>
