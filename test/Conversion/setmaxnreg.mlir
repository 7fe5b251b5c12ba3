// set_max_registers: setmaxnreg through the convergent nvvm.setmaxregister
// (test/gpu/kernels/setmaxnreg.mlir), in the PTX each group's own; an error
// naming the target elsewhere.
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/setmaxnreg.mlir --lower-to-nvvm --emit-ptx --target=sm_90a | FileCheck %s
// RUN: tilus-opt %tilus_src_root/test/gpu/kernels/setmaxnreg.mlir --lower-to-nvvm --target=sm_90a | FileCheck %s --check-prefix=MLIR
// RUN: not tilus-opt %tilus_src_root/test/gpu/kernels/setmaxnreg.mlir --lower-to-nvvm --target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// MLIR: nvvm.setmaxregister decrease 40
// MLIR: nvvm.setmaxregister increase 232

// CHECK-LABEL: .entry setmaxnreg(
// CHECK: .maxntid 384, 1, 1
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: st.global
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;

// SM80: error: 'tilus.set_max_registers' op cannot be lowered: set_max_registers (setmaxnreg) needs the sm_90a target; this lowering is for sm_80
