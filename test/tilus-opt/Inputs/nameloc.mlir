func.func @f(%a: index) -> index {
  %0 = arith.addi %a, %a : index loc("sum")
  return %0 : index
}
