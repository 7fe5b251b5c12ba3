// Element types, tensor types and layout attributes round-trip through
// tilus-opt, and the verifier accepts every supported element type.
// RUN: tilus-opt %s | tilus-opt | FileCheck %s

// CHECK-LABEL: func.func @element_types
// CHECK-SAME: %arg0: !tilus.ptr<ui1>
// CHECK-SAME: %arg1: !tilus.ptr<i2>
// CHECK-SAME: %arg2: !tilus.ptr<si3>
// CHECK-SAME: %arg3: !tilus.ptr<ui4>
// CHECK-SAME: %arg4: !tilus.ptr<i5>
// CHECK-SAME: %arg5: !tilus.ptr<ui6>
// CHECK-SAME: %arg6: !tilus.ptr<si7>
// CHECK-SAME: %arg7: !tilus.ptr<ui8>
// CHECK-SAME: %arg8: !tilus.ptr<!tilus.float<4 : i64, 3 : i64>>
// CHECK-SAME: %arg9: !tilus.ptr<!tilus.float<5 : i64, 2 : i64>>
// CHECK-SAME: %arg10: !tilus.ptr<!tilus.float<3 : i64, 2 : i64>>
// CHECK-SAME: %arg11: !tilus.ptr<!tilus.float<2 : i64, 2 : i64>>
// CHECK-SAME: %arg12: !tilus.ptr<!tilus.float<2 : i64, 1 : i64>>
// CHECK-SAME: %arg13: !tilus.ptr<!tilus.float<1 : i64, 1 : i64>>
// CHECK-SAME: %arg14: !tilus.ptr<bf16>
// CHECK-SAME: %arg15: f32
// CHECK-SAME: %arg16: i64
func.func @element_types(%a: !tilus.ptr<ui1>, %b: !tilus.ptr<i2>, %c: !tilus.ptr<si3>,
    %d: !tilus.ptr<ui4>, %e: !tilus.ptr<i5>, %f: !tilus.ptr<ui6>, %g: !tilus.ptr<si7>,
    %h: !tilus.ptr<ui8>, %i: !tilus.ptr<!tilus.float<4, 3>>, %j: !tilus.ptr<!tilus.float<5, 2>>,
    %k: !tilus.ptr<!tilus.float<3, 2>>, %l: !tilus.ptr<!tilus.float<2, 2>>,
    %m: !tilus.ptr<!tilus.float<2, 1>>, %n: !tilus.ptr<!tilus.float<1, 1>>,
    %o: !tilus.ptr<bf16>, %x: f32, %y: i64)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16] -> (s16 ceildiv 128, 4, 2)>} {
  return
}

// CHECK-LABEL: func.func @tensors
func.func @tensors() attributes {tilus.kernel, tilus.block_size = 128 : i64, tilus.grid = affine_map<() -> (1)>} {
  // The paper's Figure 14 layouts, with a 128-thread block.
  // CHECK: !tilus.register<f16, array<i64: 16, 64>, #tilus.layout<"reduce(spatial(1,1,4),dims=[2]).local(1,4).column_local(2,2).spatial(8,4).local(1,2)">>
  %a = "tilus.allocate_register"() : () -> !tilus.register<f16, array<i64: 16, 64>, #tilus.layout<"reduce(spatial(1,1,4),dims=[2]).local(1,4).column_local(2,2).spatial(8,4).local(1,2)">>
  // CHECK: !tilus.register<!tilus.float<3 : i64, 2 : i64>, array<i64: 64, 32>, #tilus.layout<"spatial(1, 4).local(4, 1).local(2, 1).column_spatial(4, 8).local(2, 1)">>
  %b = "tilus.allocate_register"() : () -> !tilus.register<!tilus.float<3, 2>, array<i64: 64, 32>, #tilus.layout<"spatial(1, 4).local(4, 1).local(2, 1).column_spatial(4, 8).local(2, 1)">>
  // CHECK: !tilus.register<f32, array<i64: 16, 32>, #tilus.layout<"spatial(1,4).local(2,1).spatial(8,4).local(1,2)">>
  %c = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 16, 32>, #tilus.layout<"spatial(1,4).local(2,1).spatial(8,4).local(1,2)">>
  // CHECK: !tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(4).local(3).spatial(32)">>
  %bt = "tilus.allocate_register"() : () -> !tilus.register<ui8, array<i64: 384>, #tilus.layout<"spatial(4).local(3).spatial(32)">>
  // CHECK: !tilus.shared<f16, array<i64: 3, 16, 256>, #tilus.layout<"local(3, 1, 1).swizzle(local(16, 32), dim=1).local(1, 8)">>
  %sa = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 3, 16, 256>, #tilus.layout<"local(3, 1, 1).swizzle(local(16, 32), dim=1).local(1, 8)">>
  // CHECK: !tilus.shared<i32, array<i64: 3, 1536>, #tilus.layout<"local(3, 1536)">>
  %sb = "tilus.allocate_shared"() : () -> !tilus.shared<i32, array<i64: 3, 1536>, #tilus.layout<"local(3, 1536)">>
  // CHECK: !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(1, 2).swizzle(local(16, 4), dim=1, log_step=1).local(1, 8)">>
  %sc = "tilus.allocate_shared"() : () -> !tilus.shared<f16, array<i64: 16, 64>, #tilus.layout<"local(1, 2).swizzle(local(16, 4), dim=1, log_step=1).local(1, 8)">>
  // Replication: every thread holds the whole 4-element vector.
  // CHECK: !tilus.register<i8, array<i64: 4>, #tilus.layout<"reduce(spatial(128,1),dims=[0]).local(4)">>
  %rep = "tilus.allocate_register"() : () -> !tilus.register<i8, array<i64: 4>, #tilus.layout<"reduce(spatial(128,1),dims=[0]).local(4)">>
  return
}
