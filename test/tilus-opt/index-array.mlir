// MLIR 22's parser crashes on a dense array of index (llvm/llvm-project#179045,
// fixed after the release); tilus-opt reports it where it is instead. The
// same letters in a comment or a string are left alone: array<index: 1>.
// With --split-input-file every chunk is processed, also after a failed one.
// RUN: not tilus-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK: index-array.mlir:[[@LINE+2]]:32: error: a dense array of 'index' (array<index: ...>) is not valid: use array<i64: ...>
// CHECK-NOT: error
func.func @f() attributes {x = array<index: 1>} {
  return
}

// -----

// Spaces and line breaks between the words do not hide it.
// CHECK: index-array.mlir:[[@LINE+2]]:32: error: a dense array of 'index'
// CHECK-NOT: error
func.func @g() attributes {y = array <
    index>} {
  return
}

// -----

// CHECK-NOT: error
// CHECK: func.func @h() attributes {s = "array<index: 1>", t = array<i64: 1>}
func.func @h() attributes {s = "array<index: 1>", t = array<i64: 1>} {
  return
}
