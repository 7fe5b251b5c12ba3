// An expectation whose line does not fit (or lies before line 1) is rejected
// as malformed, naming the file and line of the comment, instead of wrapping
// around to some other line.
// RUN: not tilus-opt --verify-diagnostics %s 2>&1 | FileCheck %s -DFILE=%s

// CHECK: [[FILE]]:7: error: malformed expectation: the line after '@' is out of range
// expected-error@+99999999999999999999 {{overflows}}
// CHECK: [[FILE]]:9: error: malformed expectation: the line after '@' is out of range
// expected-error@2147483648 {{one past INT_MAX}}
// CHECK: [[FILE]]:11: error: malformed expectation: the line after '@' is out of range
// expected-error@+2147483647 {{fits, but the line it names does not}}
// CHECK: [[FILE]]:13: error: malformed expectation: the line after '@' is out of range
// expected-error@-13 {{before line 1}}
// CHECK-NOT: was not produced
func.func @f() {
  return
}
