func.func @f() {
  "foo.bar"() : () -> ()
  return
}
