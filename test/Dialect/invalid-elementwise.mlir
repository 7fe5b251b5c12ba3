// The rules of the elementwise instructions (issue 11) and of the constant
// attributes, each misuse with its exact message.
// RUN: tilus-opt %s --split-input-file --verify-diagnostics

func.func @ranks(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  %b = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.add' op shapes do not broadcast: the lhs is [8, 32], the rhs is [32] (broadcasting needs equal ranks)}}
  %c = "tilus.add"(%a, %b) : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, !tilus.register<f32, array<i64: 32>, #tilus.layout<"spatial(32)">>) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @result_shape(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
  %b = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8)">>
  // expected-error@+1 {{'tilus.sub' op the result is [8, 1] but the operands broadcast to [8, 32]}}
  %c = "tilus.sub"(%a, %b) : (!tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>, !tilus.register<f32, array<i64: 1, 32>, #tilus.layout<"reduce(spatial(8,1,4), dims=[0]).local(1,8)">>) -> !tilus.register<f32, array<i64: 8, 1>, #tilus.layout<"reduce(spatial(8,1,4), dims=[2])">>
  return
}

// -----

func.func @and_float(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.and' op needs an integer element type, got 'f32'}}
  %c = "tilus.and"(%a, %a) : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @exp_int(%k: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%k) : (i32) -> !tilus.register<i32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.exp' op needs a float element type (f16, bf16, f32 or f64), got 'i32'}}
  %c = "tilus.exp"(%a) : (!tilus.register<i32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>) -> !tilus.register<i32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @abs_unsigned() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"() : () -> !tilus.register<ui8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.abs' op needs a float or signed integer element type, got 'ui8'}}
  %c = "tilus.abs"(%a) : (!tilus.register<ui8, array<i64: 32>, #tilus.layout<"spatial(32)">>) -> !tilus.register<ui8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @predicate(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.cmp' op the predicate must be one of "eq", "ne", "lt", "le", "gt", "ge", got "less"}}
  %c = "tilus.cmp"(%a, %x) {predicate = "less"} : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f32) -> !tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @cmp_result(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.cmp' op the result has element type 'f32', expected 'i1'}}
  %c = "tilus.cmp"(%a, %x) {predicate = "eq"} : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @where_cond(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.where' op the condition must be an i1 tensor, got element type 'f32'}}
  %c = "tilus.where"(%a, %a, %x) : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @where_types(%x: f32, %h: f16) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  %b = "tilus.cmp"(%a, %x) {predicate = "ge"} : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f32) -> !tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.where' op the scalar b has type 'f16' but the tensor's element type is 'f32'}}
  %c = "tilus.where"(%b, %a, %h) : (!tilus.register<i1, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f16) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @clamp_types(%x: f32, %h: f16) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  %l = "tilus.allocate_register"(%h) : (f16) -> !tilus.register<f16, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  // expected-error@+1 {{'tilus.clamp' op element types differ: the x has 'f32', the lo has 'f16'}}
  %c = "tilus.clamp"(%a, %l, %x) : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, !tilus.register<f16, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @out_type(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %a = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  %o = "tilus.allocate_register"(%x) : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"local(1,8).spatial(8,4)">>
  // IRDL binds out and the result to one type.
  // expected-error@+1 {{expected '!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"local(1,8).spatial(8,4)">>' but got '!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>'}}
  %c = "tilus.max"(%a, %x, %o) : (!tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>, f32, !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"local(1,8).spatial(8,4)">>) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @value_range() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'ui4': 16 does not fit in ui4}}
  %a = "tilus.allocate_register"() {value = 16 : i64} : () -> !tilus.register<ui4, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @value_signed() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'si4': -9 does not fit in si4}}
  %a = "tilus.allocate_register"() {value = -9 : i64} : () -> !tilus.register<si4, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @value_and_init(%x: f32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op takes the init operand or the 'value' attribute, not both}}
  %a = "tilus.allocate_register"(%x) {value = 1.0 : f64} : (f32) -> !tilus.register<f32, array<i64: 8, 32>, #tilus.layout<"spatial(8,4).local(1,8)">>
  return
}

// -----

func.func @value_format() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of '!tilus.float<4 : i64, 3 : i64>': 1000 is past the format's largest finite value 448}}
  %a = "tilus.allocate_register"() {value = 1000.0 : f64} : () -> !tilus.register<!tilus.float<4, 3>, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @value_nan() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of '!tilus.float<2 : i64, 1 : i64>': the format has no NaN}}
  %a = "tilus.allocate_register"() {value = 0x7FF8000000000000 : f64} : () -> !tilus.register<!tilus.float<2, 1>, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @value_f16() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'f16': 70000 is past the type's largest finite value}}
  %a = "tilus.allocate_register"() {value = 70000.0 : f64} : () -> !tilus.register<f16, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @fill_value(%p: !tilus.ptr<i32>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op the 'fill_value' attribute is not a constant of 'i32': needs an integer attribute for an integer element type}}
  %a = "tilus.load_global"(%g, %c0) {fill_value = 1.5 : f64, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<i32, array<i64: 64>, #tilus.row_major>, index) -> !tilus.register<i32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @fill_both(%p: !tilus.ptr<i32>, %k: i32) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %g = "tilus.view_global"(%p) : (!tilus.ptr<i32>) -> !tilus.global<i32, array<i64: 64>, #tilus.row_major>
  // expected-error@+1 {{'tilus.load_global' op takes the fill operand or the 'fill_value' attribute, not both}}
  %a = "tilus.load_global"(%g, %c0, %k) {fill_value = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!tilus.global<i32, array<i64: 64>, #tilus.row_major>, index, i32) -> !tilus.register<i32, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @value_unsigned_negative() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'ui8': -1 does not fit in ui8}}
  %a = "tilus.allocate_register"() {value = -1 : i64} : () -> !tilus.register<ui8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

func.func @value_signless_range() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // Signless integers take either range: 255 and -128 fit i8, -129 does not.
  %a = "tilus.allocate_register"() {value = 255 : i64} : () -> !tilus.register<i8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  %b = "tilus.allocate_register"() {value = -128 : i64} : () -> !tilus.register<i8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'i8': -129 does not fit in i8}}
  %c = "tilus.allocate_register"() {value = -129 : i64} : () -> !tilus.register<i8, array<i64: 32>, #tilus.layout<"spatial(32)">>
  return
}

// -----

// A constant of an invalid float format (found by the pipeline fuzzer: its
// largest value was computed with a negative shift, undefined behaviour that
// the sanitized run aborts on).
!e = !tilus.register<!tilus.float<0, 3>, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @invalid_format_constant() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+2 {{'tilus.allocate_register' op a register tensor has float format e0m3 (4 bits); Tilus floats need an exponent of at least 1 bit, a mantissa of at least 0 bits and 3 to 8 bits in all}}
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of '!tilus.float<0 : i64, 3 : i64>': the element type is not a valid float format}}
  %e = "tilus.allocate_register"() {value = 0.3 : f64} : () -> !e
  return
}

// -----

// Constants of integer widths Tilus has no tensors of (pipeline fuzzer: the
// range of a ui0 constant was computed by shifting by -1, UBSan).
!u = !tilus.register<ui0, array<i64: 32>, #tilus.layout<"spatial(32)">>
!w = !tilus.register<i128, array<i64: 32>, #tilus.layout<"spatial(32)">>
func.func @invalid_width_constants() attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+2 {{'tilus.allocate_register' op a register tensor has unsupported element type 'ui0'; Tilus supports integers of 1-8, 16, 32 and 64 bits, index, f16, bf16, f32, f64 and !tilus.float<e, m>}}
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'ui0': the element type is not an integer of 1 to 64 bits}}
  %u = "tilus.allocate_register"() {value = 1 : i64} : () -> !u
  // expected-error@+2 {{'tilus.allocate_register' op a register tensor has unsupported element type 'i128'; Tilus supports integers of 1-8, 16, 32 and 64 bits, index, f16, bf16, f32, f64 and !tilus.float<e, m>}}
  // expected-error@+1 {{'tilus.allocate_register' op the 'value' attribute is not a constant of 'i128': the element type is not an integer of 1 to 64 bits}}
  %w = "tilus.allocate_register"() {value = 1 : i64} : () -> !w
  return
}

// -----

// A signless scalar may stand for a ui8/si8 tensor's elements only at their
// width (MLIR has no unsigned constants): i16 for ui8 is still refused.
func.func @scalar_width(%p: !tilus.ptr<ui8>) attributes {tilus.kernel, tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {
  %c0 = arith.constant 0 : index
  %m = arith.constant 15 : i16
  %g = "tilus.view_global"(%p) : (!tilus.ptr<ui8>) -> !tilus.global<ui8, array<i64: 256>, #tilus.row_major>
  %b = "tilus.load_global"(%g, %c0) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (!tilus.global<ui8, array<i64: 256>, #tilus.row_major>, index) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  // expected-error@+1 {{'tilus.and' op the scalar rhs has type 'i16' but the tensor's element type is 'ui8'}}
  %a = "tilus.and"(%b, %m) : (!tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>, i16) -> !tilus.register<ui8, array<i64: 256>, #tilus.layout<"spatial(32).local(8)">>
  return
}
