// Diagnostics show the file location nested in any kind of location: a name's
// child, a call site's callee (its caller when the callee is unknown), the
// first file location of a fused location ("no-file" is a name without one).
// A location with no file location inside prints none.
// RUN: not tilus-opt %s 2>&1 | FileCheck %s

#callee = loc("kernel.py":30:7)

func.func @k() attributes {tilus.kernel, tilus.block_size = 32 : i64,
                           tilus.grid = affine_map<() -> (1)>} {
  // CHECK: kernel.py:10:4: error: 'tilus.allocate_register' op register tensor layout 'spatial(64)' has 64 threads
  %a = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 64>, #tilus.layout<"spatial(64)">> loc(fused["no-file", "kernel.py":10:4, "other.py":1:1])
  // CHECK: kernel.py:11:5: error: 'tilus.allocate_register' op register tensor layout 'spatial(16)'
  %b = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 16>, #tilus.layout<"spatial(16)">> loc("b"("kernel.py":11:5))
  // CHECK: kernel.py:30:7: error: 'tilus.allocate_register' op register tensor layout 'spatial(8)'
  %c = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 8>, #tilus.layout<"spatial(8)">> loc(callsite(#callee at "main.py":3:1))
  // CHECK: main.py:4:2: error: 'tilus.allocate_register' op register tensor layout 'spatial(4)'
  %d = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 4>, #tilus.layout<"spatial(4)">> loc(callsite(unknown at "main.py":4:2))
  // Nested kinds: a name inside a fused location around a call site.
  // CHECK: kernel.py:40:9: error: 'tilus.allocate_register' op register tensor layout 'spatial(2)'
  %e = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 2>, #tilus.layout<"spatial(2)">> loc(fused<"meta">["no-file", "e"(callsite("kernel.py":40:9 at "main.py":5:3))])
  // CHECK: {{^}}error: 'tilus.allocate_register' op register tensor layout 'spatial(128)'
  %f = "tilus.allocate_register"() : () -> !tilus.register<f32, array<i64: 128>, #tilus.layout<"spatial(128)">> loc(fused["f"])
  return
}
