// --lower-to-nvvm leaves only llvm/nvvm ops; the PTX of every target is
// accepted by ptxas, and the artifact's manifest describes the kernel.
// REQUIRES: ptxas
// RUN: tilus-opt %s --lower-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: tilus-opt %s --lower-to-nvvm --emit-artifact --target=sm_80 | FileCheck %s --check-prefix=ART
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_80 -o %t.sm_80.ptx
// RUN: ptxas -arch=sm_80 %t.sm_80.ptx -o %t.sm_80.cubin
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_89 -o %t.sm_89.ptx
// RUN: ptxas -arch=sm_89 %t.sm_89.ptx -o %t.sm_89.cubin
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90 -o %t.sm_90.ptx
// RUN: ptxas -arch=sm_90 %t.sm_90.ptx -o %t.sm_90.cubin
// RUN: tilus-opt %s --lower-to-nvvm --emit-ptx --target=sm_90a -o %t.sm_90a.ptx
// RUN: ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_90a.ptx

// NVVM-NOT: "tilus.
// NVVM-NOT: unrealized_conversion_cast
// NVVM: llvm.func @copy
// NVVM-SAME: nvvm.kernel

// ART: tilus-artifact 1
// ART-NEXT: target sm_80
// ART-NEXT: kernel copy
// ART-NEXT:   block 128 1 1
// ART-NEXT:   grid s2 ceildiv 1024
// ART-NEXT:   shared 0
// ART-NEXT:   workspace 0
// ART-NEXT:   param ptr f32
// ART-NEXT:   param ptr f32
// ART-NEXT:   param i32
// ART-NEXT: end
// ART-NEXT: ptx:
// ART: .target sm_80
// ART: .visible .entry copy(

// PTX: .target sm_90a
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32

!g = !tilus.global<f32, array<i64: -1>, #tilus.row_major>
!r = !tilus.register<f32, array<i64: 1024>, #tilus.layout<"local(2).spatial(128).local(4)">>
func.func @copy(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>, %n: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2] -> (s2 ceildiv 1024)>} {
  %N = arith.index_cast %n : i32 to index
  %bi = "tilus.block_indices"() : () -> index
  %c1024 = arith.constant 1024 : index
  %off = arith.muli %bi, %c1024 : index
  %gs = "tilus.view_global"(%src, %N) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst, %N) : (!tilus.ptr<f32>, index) -> !g
  %r = "tilus.load_global"(%gs, %off) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!g, index) -> !r
  "tilus.store_global"(%r, %gd, %off) : (!r, !g, index) -> ()
  return
}
