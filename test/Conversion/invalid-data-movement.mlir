// What the lowering of Reduce and the layout changes refuses, each at the op:
// scratch not planned or planned outside the kernel's shared memory.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics --tilus-to-gpu

!mma = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!rows = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
func.func @unplanned(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%v) : (f32) -> !mma
  // expected-error@+1 {{'tilus.convert_layout' op cannot be lowered: needs 1024 bytes of shared scratch but has no tilus.scratch_offset; run --tilus-plan-shared first (--lower-to-nvvm does)}}
  %b = "tilus.convert_layout"(%a) : (!mma) -> !rows
  "tilus.print"(%b) : (!rows) -> ()
  return
}

// -----

!mma = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"local(2,1).spatial(8,4).local(2,2)">>
!rows = !tilus.register<f32, array<i64: 32, 8>, #tilus.layout<"spatial(32,1).local(1,8)">>
func.func @outside(%v: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>, tilus.shared_bytes = 1024 : i64} {
  %a = "tilus.allocate_register"(%v) : (f32) -> !mma
  // expected-error@+1 {{'tilus.convert_layout' op cannot be lowered: the scratch offset (tilus.scratch_offset = 128) must be a multiple of 128 with its 1024 bytes inside the kernel's 1024 bytes of shared memory (tilus.shared_bytes)}}
  %b = "tilus.convert_layout"(%a) {tilus.scratch_offset = 128 : i64} : (!mma) -> !rows
  "tilus.print"(%b) : (!rows) -> ()
  return
}
