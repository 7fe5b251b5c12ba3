// Register tensors carried through scf.for, scf.while and scf.if:
//   acc[j] = sum over rows i of src[i, j]        (scf.for, run-time trip count)
//   acc    = acc * 2, k times                    (scf.while)
//   out    = rows > 3 ? -acc : acc               (scf.if)
// for a [rows, 256] f32 input and one block of 128 threads.
!g = !tilus.global<f32, array<i64: -1, 256>, #tilus.row_major>
!o = !tilus.global<f32, array<i64: 256>, #tilus.row_major>
!r = !tilus.register<f32, array<i64: 256>, #tilus.layout<"spatial(128).local(2)">>
func.func @loops_f32(%src: !tilus.ptr<f32>, %dst: !tilus.ptr<f32>, %rows: i32, %k: i32)
    attributes {tilus.kernel, tilus.block_size = 128 : i64,
                tilus.grid = affine_map<()[s0, s1, s2, s3] -> (1)>} {
  %R = arith.index_cast %rows : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gs = "tilus.view_global"(%src, %R) : (!tilus.ptr<f32>, index) -> !g
  %gd = "tilus.view_global"(%dst) : (!tilus.ptr<f32>) -> !o
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %acc0 = "tilus.allocate_register"(%zero) : (f32) -> !r
  %sum = scf.for %i = %c0 to %R step %c1 iter_args(%a = %acc0) -> (!r) {
    %x = "tilus.load_global"(%gs, %i, %c0) {operandSegmentSizes = array<i32: 1, 2, 0, 0>} : (!g, index, index) -> !r
    %s = "tilus.add"(%a, %x) : (!r, !r) -> !r
    scf.yield %s : !r
  }
  %zero32 = arith.constant 0 : i32
  %one32 = arith.constant 1 : i32
  %doubled:2 = scf.while (%count = %zero32, %v = %sum) : (i32, !r) -> (i32, !r) {
    %more = arith.cmpi slt, %count, %k : i32
    scf.condition(%more) %count, %v : i32, !r
  } do {
  ^bb0(%count: i32, %v: !r):
    %next = arith.addi %count, %one32 : i32
    %w = "tilus.mul"(%v, %two) : (!r, f32) -> !r
    scf.yield %next, %w : i32, !r
  }
  %three = arith.constant 3 : i32
  %many = arith.cmpi sgt, %rows, %three : i32
  %out = scf.if %many -> (!r) {
    %n = "tilus.neg"(%doubled#1) : (!r) -> !r
    scf.yield %n : !r
  } else {
    scf.yield %doubled#1 : !r
  }
  "tilus.store_global"(%out, %gd, %c0) : (!r, !o, index) -> ()
  return
}
