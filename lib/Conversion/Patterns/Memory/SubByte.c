//===- SubByte.c - Compact sub-byte elements in memory --------------------===//
//
// Reading and writing one element of a compact sub-byte tensor (paper,
// Figure 7: element g occupies bits [g*b, (g+1)*b) of the byte stream, least
// significant first) through a base pointer of any address space: the
// fallback paths of LoadGlobal/StoreGlobal and LoadShared/StoreShared. Fast
// kernels move packed bytes and View them instead.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

static MlirValue loadByte(TilusEmitter *e, MlirValue base, MlirValue index) {
  MlirType i8 = mlirIntegerTypeGet(e->ctx, 8);
  MlirValue ptr = tilusEmitElementPointer(e, base, i8, index);
  MlirNamedAttribute align = tilusNamedAttr(
      e->ctx, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), 1));
  return tilusEmitValue(e, "llvm.load", 1, &ptr, i8, 1, &align);
}

// A compact sub-byte element (paper, Figure 7): bits [g*b, (g+1)*b) of the
// byte stream, least significant first, read from its byte and, when it
// straddles, the next one.
MlirValue tilusEmitSubByteLoad(TilusEmitter *e, MlirValue base, int64_t bits,
                               MlirValue linear) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirValue bit = tilusEmitMulIndexConst(e, linear, bits);
  MlirValue byte = tilusEmitArith(e, "divui", bit, tilusEmitIndex(e, 8));
  MlirValue shiftIndex = tilusEmitArith(e, "remui", bit, tilusEmitIndex(e, 8));
  MlirValue shift =
      tilusEmitValue(e, "arith.index_cast", 1, &shiftIndex, i32, 0, NULL);
  MlirValue low = loadByte(e, base, byte);
  low = tilusEmitValue(e, "arith.extui", 1, &low, i32, 0, NULL);
  MlirValue straddles = tilusEmitCmp(e, TilusCmpUGT, shift,
                                     tilusEmitIntConstant(e, i32, 8 - bits));
  MlirBlock thenBlock, elseBlock;
  MlirOperation ifOp = tilusEmitIf(e, straddles, 1, &i32, &thenBlock, &elseBlock);
  tilusEmitterSetToEnd(e, thenBlock);
  MlirValue high = loadByte(e, base, tilusEmitAddIndexConst(e, byte, 1));
  high = tilusEmitValue(e, "arith.extui", 1, &high, i32, 0, NULL);
  high = tilusEmitArith(e, "shli", high, tilusEmitIntConstant(e, i32, 8));
  tilusEmitYield(e, 1, &high);
  tilusEmitterSetToEnd(e, elseBlock);
  MlirValue zero = tilusEmitIntConstant(e, i32, 0);
  tilusEmitYield(e, 1, &zero);
  tilusEmitterSetAfter(e, ifOp);
  MlirValue word = tilusEmitArith(e, "ori", low, mlirOperationGetResult(ifOp, 0));
  word = tilusEmitArith(e, "shrui", word, shift);
  word = tilusEmitArith(e, "andi", word,
                        tilusEmitIntConstant(e, i32, (1 << bits) - 1));
  return tilusEmitValue(e, "arith.trunci", 1, &word,
                        mlirIntegerTypeGet(e->ctx, (unsigned)bits), 0, NULL);
}

// llvm.atomicrmw (monotonic) of `value` at `ptr`. The LLVM dialect keeps
// the operation and the ordering as integer enums (LLVM's AtomicRMWInst
// numbering: 3 is And, 5 is Or; 2 is monotonic).
enum { ATOMIC_AND = 3, ATOMIC_OR = 5, ORDERING_MONOTONIC = 2 };

static void emitAtomic(TilusEmitter *e, int64_t binOp, MlirValue ptr,
                       MlirValue value) {
  MlirType i64 = mlirIntegerTypeGet(e->ctx, 64);
  MlirNamedAttribute attrs[2] = {
      tilusNamedAttr(e->ctx, "bin_op", mlirIntegerAttrGet(i64, binOp)),
      tilusNamedAttr(e->ctx, "ordering",
                     mlirIntegerAttrGet(i64, ORDERING_MONOTONIC))};
  MlirValue operands[2] = {ptr, value};
  tilusEmitValue(e, "llvm.atomicrmw", 2, operands, mlirValueGetType(value), 2,
                 attrs);
}

// Stores a compact sub-byte element: its bits are cleared and then set in
// the 32-bit word (or two) holding them, with atomic AND and OR, so that
// threads writing neighbouring elements of one word never lose each other's
// bits. (So the tensor's bytes are accessed as whole aligned words: its
// allocation must extend to a multiple of 4 bytes; bits outside the element
// are never changed.) The atomics work on global and shared memory alike.
void tilusEmitSubByteStore(TilusEmitter *e, MlirValue base, int64_t bits,
                           MlirValue linear, MlirValue value) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32), i64 = mlirIntegerTypeGet(e->ctx, 64);
  MlirValue bit = tilusEmitMulIndexConst(e, linear, bits);
  MlirValue word = tilusEmitArith(e, "divui", bit, tilusEmitIndex(e, 32));
  MlirValue shiftIndex = tilusEmitArith(e, "remui", bit, tilusEmitIndex(e, 32));
  MlirValue shift =
      tilusEmitValue(e, "arith.index_cast", 1, &shiftIndex, i64, 0, NULL);
  MlirValue field = tilusEmitValue(e, "arith.extui", 1, &value, i64, 0, NULL);
  field = tilusEmitArith(e, "andi", field,
                         tilusEmitIntConstant(e, i64, (1 << bits) - 1));
  field = tilusEmitArith(e, "shli", field, shift);
  MlirValue mask = tilusEmitArith(
      e, "shli", tilusEmitIntConstant(e, i64, (1 << bits) - 1), shift);
  MlirValue allOnes = tilusEmitIntConstant(e, i32, -1);
  for (int half = 0; half < 2; ++half) {
    if (half == 1 && 32 % bits == 0)
      break; // elements never straddle words
    MlirBlock thenBlock;
    MlirOperation ifOp = {NULL};
    if (half == 1) {
      // Only an element whose bits pass bit 32 of its word touches the next.
      MlirValue straddles = tilusEmitCmp(e, TilusCmpUGT, shiftIndex,
                                         tilusEmitIndex(e, 32 - bits));
      ifOp = tilusEmitIf(e, straddles, 0, NULL, &thenBlock, NULL);
      tilusEmitterSetToEnd(e, thenBlock);
    }
    MlirValue part = field, partMask = mask;
    if (half == 1) {
      MlirValue c32 = tilusEmitIntConstant(e, i64, 32);
      part = tilusEmitArith(e, "shrui", part, c32);
      partMask = tilusEmitArith(e, "shrui", partMask, c32);
    }
    part = tilusEmitValue(e, "arith.trunci", 1, &part, i32, 0, NULL);
    partMask = tilusEmitValue(e, "arith.trunci", 1, &partMask, i32, 0, NULL);
    MlirValue ptr = tilusEmitElementPointer(e, base, i32,
                                            tilusEmitAddIndexConst(e, word, half));
    emitAtomic(e, ATOMIC_AND, ptr, tilusEmitArith(e, "xori", partMask, allOnes));
    emitAtomic(e, ATOMIC_OR, ptr, part);
    if (half == 1) {
      tilusEmitYield(e, 0, NULL);
      tilusEmitterSetAfter(e, ifOp);
    }
  }
}

