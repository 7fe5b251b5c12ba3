//===- Elementwise.c - Elementwise ops with broadcasting ------------------===//
//
// Binary ops (add ... shr), cmp, where and clamp on register tensors, one
// vector arith op per thread. An operand of the result's shape and layout is
// its vector; a scalar is splat; a broadcast operand (size-1 dimensions, or
// the same shape in a replicated layout) is read from the thread's own
// vector, one fixed slot per result slot, when the layouts prove that every
// thread holds what it needs (tilusLayoutBroadcastSlots, closed form).
// Otherwise the op is refused with the reason and a layout that would work:
// moving data between threads is layout conversion, not done here.
// The unary math ops (exp ... cos) use PTX's approximate instructions.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The arith op of each binary op, by element kind
//===----------------------------------------------------------------------===//

typedef struct {
  const char *name;
  const char *onFloat, *onSigned, *onUnsigned; // arith.<op>; NULL: none
} BinaryRule;

// Max and min of floats are maxnumf/minnumf (PTX max.f32/min.f32: a NaN
// operand gives the other operand).
static const BinaryRule kBinary[] = {
    {"tilus.add", "addf", "addi", "addi"},
    {"tilus.sub", "subf", "subi", "subi"},
    {"tilus.mul", "mulf", "muli", "muli"},
    {"tilus.div", "divf", "divsi", "divui"},
    {"tilus.mod", "remf", "remsi", "remui"},
    {"tilus.max", "maxnumf", "maxsi", "maxui"},
    {"tilus.min", "minnumf", "minsi", "minui"},
    {"tilus.and", NULL, "andi", "andi"},
    {"tilus.or", NULL, "ori", "ori"},
    {"tilus.xor", NULL, "xori", "xori"},
    {"tilus.shl", NULL, "shli", "shli"},
    {"tilus.shr", NULL, "shrsi", "shrui"},
};

static const BinaryRule *findBinary(MlirOperation op) {
  for (size_t k = 0; k < sizeof(kBinary) / sizeof(kBinary[0]); ++k)
    if (tilusOpIs(op, kBinary[k].name))
      return &kBinary[k];
  return NULL;
}

static const char *arithFor(const BinaryRule *r, MlirType elementType) {
  if (mlirTypeIsAFloat(elementType))
    return r->onFloat;
  return tilusElementIsUnsigned(elementType) ? r->onUnsigned : r->onSigned;
}

//===----------------------------------------------------------------------===//
// Operands: decide (no IR), then read
//===----------------------------------------------------------------------===//

typedef struct {
  MlirValue value;  // the Tilus operand
  MlirValue vector; // its lowered vector (tensors) or the scalar
  bool isTensor;
  bool direct;            // a tensor used as it is
  MlirType scalarStorage; // a scalar's signless type
  int64_t *slots; // otherwise: the operand slot of each result slot (owned)
} PlannedOperand;

// Decides how operand `value` (`role`) is read for `result`; false after
// reporting why at `op`.
static bool planOperand(TilusLowering *L, MlirOperation op, MlirValue value,
                        const char *role, const TilusTensorType *result,
                        PlannedOperand *p) {
  memset(p, 0, sizeof(*p));
  p->value = value;
  p->isTensor = tilusTypeIsARegister(mlirValueGetType(value));
  if (!p->isTensor) {
    // A scalar of a signed or unsigned integer type (a uiN kernel argument)
    // is read as its signless bits; the verifier checked its type.
    p->vector = value;
    MlirType type = mlirValueGetType(value);
    p->scalarStorage = tilusStorageElementType(mlirTypeGetContext(type), type);
    if (!mlirTypeEqual(p->scalarStorage, type) && !mlirTypeIsAInteger(type)) {
      tilusLoweringError(op, "a scalar operand must have the tensor's "
                             "element type");
      return false;
    }
    return true;
  }
  p->vector = tilusLoweredRegister(value);
  TilusTensorType t;
  if (mlirValueIsNull(p->vector) ||
      mlirLogicalResultIsFailure(
          tilusLoweringDecode(L, mlirValueGetType(value), &t)))
    return false;
  bool sameShape =
      t.rank == result->rank &&
      !memcmp(t.shape, result->shape, sizeof(int64_t) * (size_t)t.rank);
  if (sameShape && tilusLayoutEqual(t.layout, result->layout)) {
    p->direct = true;
    return true;
  }
  int64_t m = tilusLayoutGetLocalSize(result->layout);
  p->slots = malloc(sizeof(int64_t) * (size_t)m);
  if (!p->slots) {
    tilusLoweringError(op, "out of memory");
    return false;
  }
  TilusLayoutError err = {{0}};
  bool ok = tilusLayoutBroadcastSlots(result->layout, t.layout, p->slots, &err);
  if (!ok) {
    // A layout that would work: the result's with the broadcast dimensions
    // replicated.
    int64_t dims[TILUS_LAYOUT_MAX_RANK];
    int64_t numDims = 0;
    for (intptr_t d = 0; d < t.rank && d < result->rank; ++d)
      if (t.shape[d] == 1 && result->shape[d] != 1)
        dims[numDims++] = d;
    TilusLayout *source =
        tilusLayoutBroadcastSource(result->layout, numDims, dims, NULL);
    char *sourceText = source ? tilusLayoutPrint(source) : NULL;
    char *operandText = tilusLayoutPrint(t.layout);
    char message[1024];
    snprintf(message, sizeof(message),
             "%s of operand '%s' needs data movement: %s (its layout is '%s'; "
             "a layout whose threads hold what they need is '%s'; "
             "tilus-convert-broadcasts, part of lower-to-nvvm, converts it)",
             sameShape ? "reading" : "broadcast", role, err.message,
             operandText ? operandText : "?", sourceText ? sourceText : "?");
    free(sourceText);
    free(operandText);
    tilusLayoutDestroy(source);
    tilusLoweringError(op, message);
    free(p->slots);
    p->slots = NULL;
  }
  return ok; // t's layout is the lowering's (borrowed)
}

static void releasePlans(PlannedOperand *p, int n) {
  for (int k = 0; k < n; ++k)
    free(p[k].slots);
}

// The operand as a vector of `vectorType` (m elements, the operand's storage
// element type), one element per slot of the result.
static MlirValue readOperand(TilusEmitter *e, const PlannedOperand *p,
                             MlirType vectorType, int64_t m) {
  if (!p->isTensor || p->direct) {
    if (p->isTensor)
      return p->vector;
    MlirValue scalar = p->vector;
    if (!mlirTypeEqual(mlirValueGetType(scalar), p->scalarStorage))
      scalar = tilusEmitCast(e, 1, &scalar, p->scalarStorage);
    return tilusEmitValue(e, "vector.broadcast", 1, &scalar, vectorType, 0,
                          NULL);
  }
  MlirValue source = p->vector;
  MlirType sourceType = mlirValueGetType(source);
  MlirType element = mlirShapedTypeGetElementType(sourceType);
  int64_t sourceSize = mlirShapedTypeGetDimSize(sourceType, 0);
  bool identity = sourceSize == m;
  for (int64_t i = 0; i < m && identity; ++i)
    identity = p->slots[i] == i;
  if (identity)
    return source;
  // Odd-width integers (and i1) are shuffled as i32: the NVPTX back end
  // mishandles some vectors of them (Support.h, tilusEmitWidenSubByte).
  bool odd =
      mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) < 8;
  if (odd) {
    MlirType wide =
        mlirVectorTypeGet(1, &sourceSize, mlirIntegerTypeGet(e->ctx, 32));
    source = tilusEmitValue(e, "arith.extui", 1, &source, wide, 0, NULL);
  }
  MlirType shuffledType = mlirVectorTypeGet(
      1, &m, mlirShapedTypeGetElementType(mlirValueGetType(source)));
  MlirValue operands[2] = {source, source};
  MlirNamedAttribute mask =
      tilusNamedAttr(e->ctx, "mask", mlirDenseI64ArrayGet(e->ctx, m, p->slots));
  MlirValue result =
      tilusEmitValue(e, "vector.shuffle", 2, operands, shuffledType, 1, &mask);
  if (odd)
    result = tilusEmitValue(e, "arith.trunci", 1, &result, vectorType, 0, NULL);
  return result;
}

static bool decodeResult(TilusLowering *L, MlirOperation op,
                         TilusTensorType *t) {
  return mlirLogicalResultIsSuccess(tilusLoweringDecode(
      L, mlirValueGetType(mlirOperationGetResult(op, 0)), t));
}

// Plans `n` operands of groups `groups` (roles `roles`) against the result.
static bool planAll(TilusLowering *L, MlirOperation op, const intptr_t *groups,
                    const char *const *roles, int n,
                    const TilusTensorType *result, PlannedOperand *plans) {
  for (int k = 0; k < n; ++k) {
    if (!planOperand(L, op, tilusOpGetGroupOperand(op, groups[k], 0), roles[k],
                     result, &plans[k])) {
      releasePlans(plans, k);
      return false;
    }
  }
  return true;
}

static MlirLogicalResult refuseTilusFloat(MlirOperation op) {
  return tilusLoweringError(op, "elementwise ops on !tilus.float tensors are "
                                "not lowered; cast them to f16 or f32 first");
}

// `intrinsic` (an LLVM intrinsic on one scalar, e.g.
// "llvm.nvvm.ex2.approx.f32") on each element of the vector `x`. With `afn`
// the NVPTX back end selects llvm.sin/cos/tanh.f32 as sin/cos/tanh.approx.f32.
static MlirValue emitIntrinsic(TilusEmitter *e, const char *intrinsic,
                               MlirValue x) {
  MlirType type = mlirValueGetType(x);
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t m = mlirShapedTypeGetDimSize(type, 0);
  MlirValue result = tilusEmitSplatConstant(e, type, 0);
  for (int64_t i = 0; i < m; ++i) {
    MlirValue v = tilusEmitExtract(e, x, i);
    v = tilusEmitCallIntrinsic(e, intrinsic, 1, &v, element);
    result = tilusEmitInsert(e, result, v, i);
  }
  return result;
}

// llvm.maxnum / llvm.minnum on two float vectors (PTX max/min: a NaN operand
// gives the other one), named for the vector type, e.g. llvm.maxnum.v8f32.
static MlirValue emitFloatMinMax(TilusEmitter *e, bool isMax, MlirValue lhs,
                                 MlirValue rhs) {
  MlirType type = mlirValueGetType(lhs);
  MlirType element = mlirShapedTypeGetElementType(type);
  const char *suffix = mlirTypeIsAF16(element)    ? "f16"
                       : mlirTypeIsABF16(element) ? "bf16"
                       : mlirTypeIsAF64(element)  ? "f64"
                                                  : "f32";
  char name[64];
  snprintf(name, sizeof(name), "llvm.%s.v%lld%s", isMax ? "maxnum" : "minnum",
           (long long)mlirShapedTypeGetDimSize(type, 0), suffix);
  MlirValue operands[2] = {lhs, rhs};
  return tilusEmitCallIntrinsic(e, name, 2, operands, type);
}

// Shifts with PTX's semantics for every amount (LLVM's shifts by the bit
// width or more are poison): the amount is read as unsigned, and one of w or
// more gives 0 (shl, logical shr) or the sign fill (arithmetic shr, as a
// shift by w - 1).
static MlirValue emitShift(TilusEmitter *e, const char *op, MlirValue x,
                           MlirValue amount) {
  MlirType type = mlirValueGetType(x);
  int64_t w = mlirIntegerTypeGetWidth(mlirShapedTypeGetElementType(type));
  if (!strcmp(op, "shrsi")) {
    MlirValue clamped = tilusEmitArith(
        e, "minui", amount, tilusEmitSplatConstant(e, type, (double)(w - 1)));
    return tilusEmitArith(e, op, x, clamped);
  }
  // (w < 2^w: the width fits the amount's type, sub-byte ones included.)
  MlirValue width = tilusEmitSplatConstant(e, type, (double)w);
  MlirValue tooLarge = tilusEmitCmp(e, TilusCmpUGE, amount, width);
  MlirValue shifted = tilusEmitArith(e, op, x, amount);
  MlirValue operands[3] = {tooLarge, tilusEmitSplatConstant(e, type, 0),
                           shifted};
  return tilusEmitValue(e, "arith.select", 3, operands, type, 0, NULL);
}

// `arith.<op>`, except float max/min (emitFloatMinMax). With `contract`,
// float add, sub and mul carry the `contract` fast-math flag, which lets
// LLVM fuse a multiplication into the addition that uses it (FFMA).
static MlirValue emitBinaryArith(TilusEmitter *e, const char *op, MlirValue lhs,
                                 MlirValue rhs, bool contract) {
  if (!strcmp(op, "maxnumf") || !strcmp(op, "minnumf"))
    return emitFloatMinMax(e, op[1] == 'a', lhs, rhs);
  if (!strncmp(op, "sh", 2))
    return emitShift(e, op, lhs, rhs);
  if (contract && (!strcmp(op, "addf") || !strcmp(op, "subf") || !strcmp(op, "mulf"))) {
    char name[16] = "arith.";
    strncat(name, op, sizeof(name) - strlen(name) - 1);
    MlirNamedAttribute flags = tilusNamedAttr(
        e->ctx, "fastmath",
        mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                          "#arith.fastmath<contract>")));
    MlirValue operands[2] = {lhs, rhs};
    return tilusEmitValue(e, name, 2, operands, mlirValueGetType(lhs), 1, &flags);
  }
  return tilusEmitArith(e, op, lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Binary ops, cmp, where, clamp
//===----------------------------------------------------------------------===//

// cmp's predicates, in the order of the tables below.
static const char *const kPredicates[6] = {"eq", "ne", "lt", "le", "gt", "ge"};

// The index of cmp's predicate in kPredicates, or -1 (the verifier checked
// it; unverified IR is refused before anything is emitted).
static int findPredicate(MlirOperation op) {
  MlirAttribute p = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("predicate"));
  if (mlirAttributeIsNull(p) || !mlirAttributeIsAString(p))
    return -1;
  MlirStringRef text = mlirStringAttrGetValue(p);
  for (int k = 0; k < 6; ++k)
    if (strlen(kPredicates[k]) == text.length &&
        !memcmp(kPredicates[k], text.data, text.length))
      return k;
  return -1;
}

static MlirValue emitCompare(TilusEmitter *e, int predicate, MlirType element,
                             MlirValue lhs, MlirValue rhs) {
  // arith's CmpFPredicate (ordered, but ne is une: true on NaN, as C's !=)
  static const int64_t floatPredicates[6] = {1, 13, 4, 5, 2, 3};
  static const TilusCmpPredicate signedPredicates[6] = {
      TilusCmpEQ,  TilusCmpNE,  TilusCmpSLT,
      TilusCmpSLE, TilusCmpSGT, TilusCmpSGE};
  static const TilusCmpPredicate unsignedPredicates[6] = {
      TilusCmpEQ,  TilusCmpNE,  TilusCmpULT,
      TilusCmpULE, TilusCmpUGT, TilusCmpUGE};
  if (!mlirTypeIsAFloat(element))
    return tilusEmitCmp(e,
                        tilusElementIsUnsigned(element)
                            ? unsignedPredicates[predicate]
                            : signedPredicates[predicate],
                        lhs, rhs);
  int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(lhs), 0);
  MlirType i1 = mlirVectorTypeGet(1, &m, mlirIntegerTypeGet(e->ctx, 1));
  MlirNamedAttribute attr =
      tilusNamedAttr(e->ctx, "predicate",
                     mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64),
                                        floatPredicates[predicate]));
  MlirValue operands[2] = {lhs, rhs};
  return tilusEmitValue(e, "arith.cmpf", 2, operands, i1, 1, &attr);
}

static MlirLogicalResult lowerBinary(TilusLowering *L, MlirOperation op,
                                     MlirRewriterBase rewriter) {
  TilusTensorType t;
  if (!decodeResult(L, op, &t))
    return mlirLogicalResultFailure();
  // The operands' element type (cmp's result is i1).
  TilusTensorType lhsType;
  if (mlirLogicalResultIsFailure(tilusLoweringDecode(
          L, mlirValueGetType(tilusOpGetGroupOperand(op, TilusBinaryLhs, 0)),
          &lhsType)))
    return mlirLogicalResultFailure();
  MlirType element = lhsType.elementType;
  if (tilusTypeIsAFloat(element))
    return refuseTilusFloat(op);
  bool isCmp = tilusOpIs(op, "tilus.cmp");
  int predicate = isCmp ? findPredicate(op) : -1;
  if (isCmp && predicate < 0)
    return tilusLoweringError(op, "the predicate is not one of eq, ne, lt, "
                                  "le, gt, ge (run tilus-verify)");
  static const intptr_t groups[2] = {TilusBinaryLhs, TilusBinaryRhs};
  static const char *const roles[2] = {"lhs", "rhs"};
  PlannedOperand plans[2];
  if (!planAll(L, op, groups, roles, 2, &t, plans))
    return mlirLogicalResultFailure();
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  int64_t m = tilusLayoutGetLocalSize(t.layout);
  MlirType operandType =
      mlirVectorTypeGet(1, &m, tilusStorageElementType(e.ctx, element));
  MlirValue lhs = readOperand(&e, &plans[0], operandType, m);
  MlirValue rhs = readOperand(&e, &plans[1], operandType, m);
  releasePlans(plans, 2);
  MlirValue result =
      isCmp ? emitCompare(&e, predicate, element, lhs, rhs)
            : emitBinaryArith(&e, arithFor(findBinary(op), element), lhs, rhs,
                              tilusAllowsContraction(op));
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

// The three operands of where or clamp (groups `groups`, roles `roles`) read
// as vectors of the result `t`'s storage type, the first as i1 when
// `conditionFirst` (where's condition). Decodes `t`; false after an error.
static bool readThree(TilusLowering *L, MlirOperation op,
                      const intptr_t groups[3], const char *const roles[3],
                      bool conditionFirst, TilusTensorType *t, TilusEmitter *e,
                      MlirValue values[3]) {
  if (!decodeResult(L, op, t))
    return false;
  if (tilusTypeIsAFloat(t->elementType)) {
    refuseTilusFloat(op);
    return false;
  }
  PlannedOperand plans[3];
  if (!planAll(L, op, groups, roles, 3, t, plans))
    return false;
  int64_t m = tilusLayoutGetLocalSize(t->layout);
  MlirType vectorType = tilusRegisterStorageType(e->ctx, t);
  MlirType i1 = mlirVectorTypeGet(1, &m, mlirIntegerTypeGet(e->ctx, 1));
  for (int k = 0; k < 3; ++k)
    values[k] = readOperand(e, &plans[k],
                            k == 0 && conditionFirst ? i1 : vectorType, m);
  releasePlans(plans, 3);
  return true;
}

static MlirLogicalResult lowerWhere(TilusLowering *L, MlirOperation op,
                                    MlirRewriterBase rewriter) {
  static const intptr_t groups[3] = {TilusWhereCond, TilusWhereA, TilusWhereB};
  static const char *const roles[3] = {"condition", "a", "b"};
  TilusTensorType t;
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue operands[3];
  if (!readThree(L, op, groups, roles, true, &t, &e, operands))
    return mlirLogicalResultFailure();
  MlirValue result = tilusEmitValue(&e, "arith.select", 3, operands,
                                    tilusRegisterStorageType(e.ctx, &t), 0,
                                    NULL);
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerClamp(TilusLowering *L, MlirOperation op,
                                    MlirRewriterBase rewriter) {
  static const intptr_t groups[3] = {TilusClampX, TilusClampLo, TilusClampHi};
  static const char *const roles[3] = {"x", "lo", "hi"};
  TilusTensorType t;
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue v[3];
  if (!readThree(L, op, groups, roles, false, &t, &e, v))
    return mlirLogicalResultFailure();
  bool isFloat = mlirTypeIsAFloat(t.elementType);
  bool isUnsigned = tilusElementIsUnsigned(t.elementType);
  // min(max(x, lo), hi): hi wins where lo > hi.
  MlirValue r = emitBinaryArith(&e,
                                isFloat      ? "maxnumf"
                                : isUnsigned ? "maxui"
                                             : "maxsi",
                                v[0], v[1], false);
  r = emitBinaryArith(&e,
                      isFloat      ? "minnumf"
                      : isUnsigned ? "minui"
                                   : "minsi",
                      r, v[2], false);
  tilusReplaceWithLowered(rewriter, &e, op, r);
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// The f32 forms (PTX): ex2.approx.f32, lg2.approx.f32, sqrt.approx.f32,
// rsqrt.approx.f32, tanh.approx.f32, sin.approx.f32, cos.approx.f32.
static MlirValue emitMathF32(TilusEmitter *e, MlirOperation op, MlirValue x) {
  MlirType type = mlirValueGetType(x);
  static const struct {
    const char *op, *intrinsic;
  } direct[] = {
      {"tilus.exp2", "llvm.nvvm.ex2.approx.f32"},
      {"tilus.log2", "llvm.nvvm.lg2.approx.f"},
      {"tilus.sqrt", "llvm.nvvm.sqrt.approx.f"},
      {"tilus.rsqrt", "llvm.nvvm.rsqrt.approx.f"},
      {"tilus.tanh", "llvm.tanh.f32"},
      {"tilus.sin", "llvm.sin.f32"},
      {"tilus.cos", "llvm.cos.f32"},
  };
  for (size_t k = 0; k < sizeof(direct) / sizeof(direct[0]); ++k)
    if (tilusOpIs(op, direct[k].op))
      return emitIntrinsic(e, direct[k].intrinsic, x);
  // exp(x) = 2^(x log2 e), log(x) = log2(x) ln 2, as CUDA's __expf/__logf.
  if (tilusOpIs(op, "tilus.exp"))
    return emitIntrinsic(
        e, "llvm.nvvm.ex2.approx.f32",
        tilusEmitArith(e, "mulf", x,
                       tilusEmitSplatConstant(e, type, 1.4426950408889634)));
  return tilusEmitArith(e, "mulf",
                        emitIntrinsic(e, "llvm.nvvm.lg2.approx.f", x),
                        tilusEmitSplatConstant(e, type, 0.6931471805599453));
}

// llvm.fabs.<f16|bf16|f32|f64>: clears the sign bit.
static const char *fabsIntrinsic(MlirType element) {
  if (mlirTypeIsAF16(element))
    return "llvm.fabs.f16";
  if (mlirTypeIsABF16(element))
    return "llvm.fabs.bf16";
  if (mlirTypeIsAF64(element))
    return "llvm.fabs.f64";
  return "llvm.fabs.f32";
}

static MlirLogicalResult lowerUnary(TilusLowering *L, MlirOperation op,
                                    MlirRewriterBase rewriter) {
  MlirValue x =
      tilusLoweredRegister(tilusOpGetGroupOperand(op, TilusUnaryX, 0));
  TilusTensorType t;
  if (mlirValueIsNull(x) || !decodeResult(L, op, &t))
    return mlirLogicalResultFailure();
  if (tilusTypeIsAFloat(t.elementType))
    return refuseTilusFloat(op);
  bool isFloat = mlirTypeIsAFloat(t.elementType);
  int64_t bits = tilusElementTypeGetBitWidth(t.elementType);
  bool isMath = !tilusOpIs(op, "tilus.abs") && !tilusOpIs(op, "tilus.not");
  if (isMath && bits == 64)
    return tilusLoweringError(op, "f64 math functions are not lowered (PTX "
                                  "has no approximate f64 forms); cast to f32");
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirType type = mlirValueGetType(x);
  MlirValue result;
  if (tilusOpIs(op, "tilus.not")) {
    result =
        tilusEmitArith(&e, "xori", x, tilusEmitSplatConstant(&e, type, -1));
  } else if (tilusOpIs(op, "tilus.abs")) {
    result = isFloat
                 ? emitIntrinsic(&e, fabsIntrinsic(t.elementType), x)
                 : tilusEmitArith(
                       &e, "maxsi", x,
                       tilusEmitArith(&e, "subi",
                                      tilusEmitSplatConstant(&e, type, 0), x));
  } else if (bits == 32) {
    result = emitMathF32(&e, op, x);
  } else {
    // f16 and bf16 compute in f32 and round once at the end.
    int64_t m = mlirShapedTypeGetDimSize(type, 0);
    MlirType f32 = mlirVectorTypeGet(1, &m, mlirF32TypeGet(e.ctx));
    MlirValue wide = tilusEmitValue(&e, "arith.extf", 1, &x, f32, 0, NULL);
    wide = emitMathF32(&e, op, wide);
    result = tilusEmitValue(&e, "arith.truncf", 1, &wide, type, 0, NULL);
  }
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.add", lowerBinary},  {"tilus.sub", lowerBinary},
    {"tilus.mul", lowerBinary},  {"tilus.div", lowerBinary},
    {"tilus.mod", lowerBinary},  {"tilus.max", lowerBinary},
    {"tilus.min", lowerBinary},  {"tilus.and", lowerBinary},
    {"tilus.or", lowerBinary},   {"tilus.xor", lowerBinary},
    {"tilus.shl", lowerBinary},  {"tilus.shr", lowerBinary},
    {"tilus.cmp", lowerBinary},  {"tilus.where", lowerWhere},
    {"tilus.clamp", lowerClamp}, {"tilus.abs", lowerUnary},
    {"tilus.not", lowerUnary},   {"tilus.exp", lowerUnary},
    {"tilus.exp2", lowerUnary},  {"tilus.log", lowerUnary},
    {"tilus.log2", lowerUnary},  {"tilus.sqrt", lowerUnary},
    {"tilus.rsqrt", lowerUnary}, {"tilus.tanh", lowerUnary},
    {"tilus.sin", lowerUnary},   {"tilus.cos", lowerUnary},
};

const TilusPattern *tilusGetElementwisePatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
