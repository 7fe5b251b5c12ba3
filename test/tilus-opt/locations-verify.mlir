// --verify-diagnostics matches a diagnostic by the line of the file location
// nested in the op's location (here each names the op's own line).
// RUN: tilus-opt --verify-diagnostics %s

func.func @k() attributes {tilus.kernel, tilus.block_size = 32 : i64,
                           tilus.grid = affine_map<() -> (1)>} {
  // expected-error@+1 {{'spatial(64)' has 64 threads}}
  %a = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(64)">> loc(fused["no-file", "locations-verify.mlir":8:8, "other.py":1:1])
  // expected-error@+1 {{'spatial(16)' has 16 threads}}
  %b = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 16>, #tilus.layout<"spatial(16)">> loc("b"("locations-verify.mlir":10:8))
  // expected-error@+1 {{'spatial(8)' has 8 threads}}
  %c = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 8>, #tilus.layout<"spatial(8)">> loc(callsite("locations-verify.mlir":12:8 at "main.py":3:1))
  return
}
