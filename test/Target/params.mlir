// Every parameter type the verifier accepts is one the runtime reads back:
// the artifact of a kernel with all of them loads in tilus-run (--list needs
// no GPU), pointers to sub-byte integers and to Tilus floats included (a
// Tilus float is spelled float<bits>_e<e>m<m> in the manifest).
// RUN: tilus-opt %s --lower-to-nvvm --emit-artifact --target=sm_80 -o %t.tilus
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.tilus
// RUN: tilus-run --list %t.tilus | FileCheck %s --check-prefix=LIST

// MANIFEST: param ptr f16
// MANIFEST-NEXT: param ptr ui4
// MANIFEST-NEXT: param ptr si7
// MANIFEST-NEXT: param ptr i1
// MANIFEST-NEXT: param ptr float6_e3m2
// MANIFEST-NEXT: param ptr float8_e4m3
// MANIFEST-NEXT: param ptr bf16
// MANIFEST-NEXT: param i1
// MANIFEST-NEXT: param i8
// MANIFEST-NEXT: param si16
// MANIFEST-NEXT: param ui32
// MANIFEST-NEXT: param i64
// MANIFEST-NEXT: param index
// MANIFEST-NEXT: param f16
// MANIFEST-NEXT: param bf16
// MANIFEST-NEXT: param f32
// MANIFEST-NEXT: param f64
// MANIFEST-NEXT: end

// LIST: params
// LIST-SAME: ptr f16
// LIST-SAME: ptr float6_e3m2
// LIST-SAME: ptr float8_e4m3
// LIST-SAME: f64

func.func @params(%a: !tilus.ptr<f16>, %b: !tilus.ptr<ui4>, %c: !tilus.ptr<si7>,
                  %d: !tilus.ptr<i1>, %e: !tilus.ptr<!tilus.float<3, 2>>,
                  %f: !tilus.ptr<!tilus.float<4, 3>>, %g: !tilus.ptr<bf16>,
                  %h: i1, %i: i8, %j: si16, %k: ui32, %l: i64, %m: index,
                  %n: f16, %o: bf16, %p: f32, %q: f64)
    attributes {tilus.kernel, tilus.block_size = 32 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16] -> (1)>} {
  return
}
