//===- Registers.c - Register tensor computation --------------------------===//
//
// A register tensor is one vector<m x T> per thread, so elementwise ops are
// vector arith ops on it (the binary ones, with broadcasting, in
// Elementwise.c), Cast is an arith conversion of the vector, and View
// reinterprets the thread's bits (the same number on both sides): a bit cast,
// or, for computed sub-byte values, the bits placed into words by shifts.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

static bool decodeResult(TilusLowering *L, MlirOperation op, TilusTensorType *t) {
  return mlirLogicalResultIsSuccess(tilusLoweringDecode(L, mlirValueGetType(mlirOperationGetResult(op, 0)), t));
}

// Integers of any width live in registers as LLVM integers of that width
// (vector<4 x i6>), and so do !tilus.float formats (FloatCast.c converts).
static bool isLowerable(MlirType elementType) {
  return tilusElementTypeGetBitWidth(elementType) != 0;
}

static MlirLogicalResult lowerAllocateRegister(TilusLowering *L, MlirOperation op,
                                               MlirRewriterBase rewriter) {
  TilusTensorType t;
  if (!decodeResult(L, op, &t))
    return mlirLogicalResultFailure();
  MlirValue init = tilusOpGetGroupOperand(op, TilusAllocateRegisterInit, 0);
  // The `value` attribute (checked by the verifier): a constant of any
  // element type, uiN/siN and !tilus.float included.
  MlirAttribute constant = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("value"));
  if (!mlirAttributeIsNull(constant)) {
    TilusElementConstant c;
    if (!tilusElementConstantGet(t.elementType, constant, &c, NULL, 0))
      return tilusLoweringError(op, "the 'value' attribute does not fit the "
                                    "element type (run tilus-verify)");
    TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
    MlirValue value = tilusEmitElementConstant(
        &e, tilusRegisterStorageType(e.ctx, &t), &c);
    tilusReplaceWithLowered(rewriter, &e, op, value);
    return mlirLogicalResultSuccess();
  }
  if (tilusTypeIsAFloat(t.elementType) && !mlirValueIsNull(init)) {
    return tilusLoweringError(op, "an init value of a !tilus.float tensor is "
                                  "not lowered yet; cast an f32 tensor instead");
  }
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType vectorType = tilusRegisterStorageType(e.ctx, &t);
  MlirValue value;
  if (!mlirValueIsNull(init)) {
    value = tilusEmitValue(&e, "vector.broadcast", 1, &init, vectorType, 0,
                           NULL);
  } else {
    value = tilusEmitSplatConstant(&e, vectorType, 0);
  }
  tilusReplaceWithLowered(rewriter, &e, op, value);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerNeg(TilusLowering *L, MlirOperation op, MlirRewriterBase rewriter) {
  MlirValue x = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusUnaryX, 0));
  if (mlirValueIsNull(x))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType type = mlirValueGetType(x);
  MlirValue result;
  if (mlirTypeIsAFloat(mlirShapedTypeGetElementType(type)))
    result = tilusEmitValue(&e, "arith.negf", 1, &x, type, 0, NULL);
  else
    result = tilusEmitArith(&e, "subi", tilusEmitSplatConstant(&e, type, 0), x);
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

// The arith conversion from `from` to `to` (Tilus element types), or NULL
// when none is needed.
static const char *castOp(MlirType from, MlirType to) {
  bool fromFloat = mlirTypeIsAFloat(from), toFloat = mlirTypeIsAFloat(to);
  int64_t fromBits = tilusElementTypeGetBitWidth(from);
  int64_t toBits = tilusElementTypeGetBitWidth(to);
  if (fromFloat && toFloat) {
    if (fromBits == toBits)
      return mlirTypeEqual(from, to) ? NULL : "arith.truncf_via_f32";
    return fromBits < toBits ? "arith.extf" : "arith.truncf";
  }
  if (!fromFloat && !toFloat) {
    if (fromBits == toBits)
      return NULL;
    if (fromBits > toBits)
      return "arith.trunci";
    return tilusElementIsUnsigned(from) ? "arith.extui" : "arith.extsi";
  }
  if (!fromFloat)
    return tilusElementIsUnsigned(from) ? "arith.uitofp" : "arith.sitofp";
  return tilusElementIsUnsigned(to) ? "arith.fptoui" : "arith.fptosi";
}

// Converts a standard-typed vector `x` (Tilus element type `from`) to
// `toType`, a vector of the standard Tilus element type `to`.
static MlirValue convertStandard(TilusEmitter *e, MlirValue x, MlirType from,
                                 MlirType to, MlirType toType) {
  const char *name = castOp(from, to);
  if (!name)
    return x;
  // Narrow integers are widened to i32 before going to float: the GPU
  // converts from 32-bit integers natively, while a vector of i4 or i8 to
  // float would be split element by element through odd widths.
  int64_t fromBits = tilusElementTypeGetBitWidth(from);
  if (mlirTypeIsAInteger(from) && mlirTypeIsAFloat(to) && fromBits < 32) {
    int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(x), 0);
    MlirType i32 = mlirVectorTypeGet(1, &m, mlirIntegerTypeGet(e->ctx, 32));
    x = tilusEmitValue(e, tilusElementIsUnsigned(from) ? "arith.extui"
                                                       : "arith.extsi",
                       1, &x, i32, 0, NULL);
  }
  // Floats to integers narrower than 32 bits go through i32 too: LLVM 22's
  // NVPTX back end inverts fptoui to i1 (it emitted x == 0 ? 1 : 0), and
  // the truncation of an in-range i32 is exact for every width.
  int64_t toBits = tilusElementTypeGetBitWidth(to);
  if (mlirTypeIsAFloat(from) && mlirTypeIsAInteger(to) && toBits < 32) {
    int64_t m = mlirShapedTypeGetDimSize(toType, 0);
    MlirType i32 = mlirVectorTypeGet(1, &m, mlirIntegerTypeGet(e->ctx, 32));
    x = tilusEmitValue(e, name, 1, &x, i32, 0, NULL);
    return tilusEmitValue(e, "arith.trunci", 1, &x, toType, 0, NULL);
  }
  if (!strcmp(name, "arith.truncf_via_f32")) {
    // f16 <-> bf16: through f32, which holds both exactly.
    int64_t m = mlirShapedTypeGetDimSize(toType, 0);
    MlirType f32 = mlirVectorTypeGet(1, &m, mlirF32TypeGet(e->ctx));
    x = tilusEmitValue(e, "arith.extf", 1, &x, f32, 0, NULL);
    return tilusEmitValue(e, "arith.truncf", 1, &x, toType, 0, NULL);
  }
  return tilusEmitValue(e, name, 1, &x, toType, 0, NULL);
}

// Arith conversions; casts that involve a !tilus.float go through f32 with
// FloatCast.c's bit-field code.
static MlirValue genericCast(TilusEmitter *e, MlirValue x, MlirType from,
                             MlirType to, MlirType resultType) {
  if (!tilusTypeIsAFloat(from) && !tilusTypeIsAFloat(to))
    return convertStandard(e, x, from, to, resultType);
  int64_t m = mlirShapedTypeGetDimSize(resultType, 0);
  MlirType f32Element = mlirF32TypeGet(e->ctx);
  MlirType f32 = mlirVectorTypeGet(1, &m, f32Element);
  MlirValue wide = tilusTypeIsAFloat(from)
                       ? tilusEmitFloatDecode(e, from, x)
                       : convertStandard(e, x, from, f32Element, f32);
  return tilusTypeIsAFloat(to) ? tilusEmitFloatEncode(e, to, wide)
                               : convertStandard(e, wide, f32Element, to, resultType);
}

// Casts that involve a !tilus.float go through f32: the format's values are
// exact in f32, and encoding rounds once (to nearest even) from f32. (A cast
// from f64 or from integers wider than 24 bits rounds to f32 first.)
static MlirLogicalResult lowerCast(TilusLowering *L, MlirOperation op, MlirRewriterBase rewriter) {
  MlirValue x = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusUnaryX, 0));
  if (mlirValueIsNull(x))
    return mlirLogicalResultFailure();
  TilusTensorType from, to;
  if (mlirLogicalResultIsFailure(tilusLoweringDecode(L, mlirValueGetType(tilusOpGetGroupOperand(op, TilusUnaryX, 0)), &from)))
    return mlirLogicalResultFailure();
  if (!decodeResult(L, op, &to)) {
    return mlirLogicalResultFailure();
  }
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType resultType = tilusRegisterStorageType(e.ctx, &to);
  MlirType fromElement = from.elementType, toElement = to.elementType;
  // The fast paths of FastCast.c where they apply, else the generic casts.
  MlirValue result =
      tilusEmitFastCast(&e, x, fromElement, toElement, resultType);
  if (mlirValueIsNull(result))
    result = genericCast(&e, x, fromElement, toElement, resultType);
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

// A vector of sub-byte integers as words (i32, or i8 when its bits are a
// multiple of 8 but not of 32) holding its elements in Tilus's compact order,
// element 0 in the least significant bits. The NVPTX back end gets the bit
// cast of some such vectors wrong (vector<32xi3> to vector<12xi8>, seen on
// the H100), so their bits are placed by shifts from the widened elements.
// Other vectors, and those of fewer or odd bits (no whole bytes to place
// them in), are returned as they are, for the plain bit cast.
static MlirValue packSubByte(TilusEmitter *e, MlirValue x) {
  MlirType type = mlirValueGetType(x);
  MlirType element = mlirShapedTypeGetElementType(type);
  if (!mlirTypeIsAInteger(element) || mlirIntegerTypeGetWidth(element) >= 8)
    return x;
  // A view of a view: the first one's source holds the bits already.
  if (mlirValueIsAOpResult(x) && tilusOpIs(mlirOpResultGetOwner(x), "llvm.bitcast"))
    return mlirOperationGetOperand(mlirOpResultGetOwner(x), 0);
  int64_t n = mlirIntegerTypeGetWidth(element), m = mlirShapedTypeGetDimSize(type, 0);
  if ((m * n) % 8 != 0)
    return x;
  int64_t wordBits = (m * n) % 32 == 0 ? 32 : 8, numWords = m * n / wordBits;
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirValue wide = tilusEmitWidenSubByte(e, x, true);
  MlirValue *words = malloc(sizeof(MlirValue) * (size_t)numWords);
  for (int64_t k = 0; k < numWords; ++k)
    words[k] = tilusEmitIntConstant(e, i32, 0);
  for (int64_t j = 0; j < m; ++j) {
    MlirValue v = tilusEmitExtract(e, wide, j);
    int64_t bit = j * n;
    for (int64_t k = bit / wordBits; k < numWords && k * wordBits < bit + n; ++k) {
      int64_t shift = bit - k * wordBits; // may be negative: the upper part
      MlirValue part = shift >= 0
          ? tilusEmitArith(e, "shli", v, tilusEmitIntConstant(e, i32, shift))
          : tilusEmitArith(e, "shrui", v, tilusEmitIntConstant(e, i32, -shift));
      words[k] = tilusEmitArith(e, "ori", words[k], part);
    }
  }
  MlirType wordType = mlirIntegerTypeGet(e->ctx, (unsigned)wordBits);
  MlirValue result = tilusEmitSplatConstant(
      e, mlirVectorTypeGet(1, &numWords, wordType), 0);
  for (int64_t k = 0; k < numWords; ++k) {
    MlirValue w = words[k];
    if (wordBits == 8)
      w = tilusEmitValue(e, "arith.trunci", 1, &w, wordType, 0, NULL);
    result = tilusEmitInsert(e, result, w, k);
  }
  free(words);
  return result;
}

static MlirLogicalResult lowerView(TilusLowering *L, MlirOperation op, MlirRewriterBase rewriter) {
  MlirValue x = tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusUnaryX, 0));
  if (mlirValueIsNull(x))
    return mlirLogicalResultFailure();
  TilusTensorType to;
  if (!decodeResult(L, op, &to))
    return mlirLogicalResultFailure();
  bool supported = isLowerable(to.elementType);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType resultType = tilusRegisterStorageType(e.ctx, &to);
  if (!supported ||
      !isLowerable(mlirShapedTypeGetElementType(mlirValueGetType(x))))
    return tilusLoweringError(op, "views of !tilus.float element types are "
                                  "not lowered yet");
  // The same bits per thread in and out (the verifier's rule): a bit cast,
  // which costs no instruction, except for computed sub-byte values, whose
  // bits packSubByte places by shifts. LLVM packs vectors of sub-byte
  // integers with element 0 in the least significant bits, which is Tilus's
  // compact order.
  MlirValue result = x;
  if (!mlirTypeEqual(mlirValueGetType(x), resultType)) {
    MlirValue words = packSubByte(&e, x);
    result = mlirTypeEqual(mlirValueGetType(words), resultType)
                 ? words
                 : tilusEmitValue(&e, "llvm.bitcast", 1, &words, resultType, 0, NULL);
  }
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.allocate_register", lowerAllocateRegister},
    {"tilus.neg", lowerNeg},
    {"tilus.cast", lowerCast},
    {"tilus.view", lowerView},
};

const TilusPattern *tilusGetRegisterPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
