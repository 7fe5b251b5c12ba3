//===- VerifyElementwise.c - Elementwise ops and broadcasting -------------===//
//
// The rules of the elementwise instructions: binary ops (add ... shr, cmp),
// where, clamp, and the unary math ops. Register operands broadcast by numpy's
// rules on one rank (the ranks must be equal; a dimension of 1 broadcasts
// against any extent), scalar operands are splat, and the result has the
// broadcast shape. Whether the threads of a broadcast operand already hold the
// elements they need is the lowering's question (it depends on the layouts
// only, which the result type fixes): see tilusLayoutBroadcastSlots.
//
//===----------------------------------------------------------------------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Which element types an op takes.
typedef enum {
  ElementsAny,     // integers and standard floats
  ElementsInteger, // bitwise ops and shifts
  ElementsFloat,   // f16, bf16, f32, f64 (the math functions)
  ElementsSigned,  // abs: floats and signed integers
} Elements;

typedef enum { KindBinary, KindCmp, KindWhere, KindClamp, KindUnary } Kind;

typedef struct {
  const char *name;
  Kind kind;
  Elements elements;
} OpRule;

static const OpRule kRules[] = {
    {"tilus.add", KindBinary, ElementsAny},
    {"tilus.sub", KindBinary, ElementsAny},
    {"tilus.mul", KindBinary, ElementsAny},
    {"tilus.div", KindBinary, ElementsAny},
    {"tilus.mod", KindBinary, ElementsAny},
    {"tilus.max", KindBinary, ElementsAny},
    {"tilus.min", KindBinary, ElementsAny},
    {"tilus.and", KindBinary, ElementsInteger},
    {"tilus.or", KindBinary, ElementsInteger},
    {"tilus.xor", KindBinary, ElementsInteger},
    {"tilus.shl", KindBinary, ElementsInteger},
    {"tilus.shr", KindBinary, ElementsInteger},
    {"tilus.cmp", KindCmp, ElementsAny},
    {"tilus.where", KindWhere, ElementsAny},
    {"tilus.clamp", KindClamp, ElementsAny},
    {"tilus.abs", KindUnary, ElementsSigned},
    {"tilus.not", KindUnary, ElementsInteger},
    {"tilus.exp", KindUnary, ElementsFloat},
    {"tilus.exp2", KindUnary, ElementsFloat},
    {"tilus.log", KindUnary, ElementsFloat},
    {"tilus.log2", KindUnary, ElementsFloat},
    {"tilus.sqrt", KindUnary, ElementsFloat},
    {"tilus.rsqrt", KindUnary, ElementsFloat},
    {"tilus.tanh", KindUnary, ElementsFloat},
    {"tilus.sin", KindUnary, ElementsFloat},
    {"tilus.cos", KindUnary, ElementsFloat},
};

static const char *const kPredicates[] = {"eq", "ne", "lt", "le", "gt", "ge"};

static void typeText(MlirType type, char *buffer, size_t size) {
  char *text = tilusPrintTypeToString(type);
  snprintf(buffer, size, "%s", text ? text : "?");
  free(text);
}

static bool elementsFit(Elements e, MlirType t) {
  bool isInt = mlirTypeIsAInteger(t);
  bool isFloat = mlirTypeIsAFloat(t); // f16, bf16, f32, f64, not tilus.float
  switch (e) {
  case ElementsAny:
    return true;
  case ElementsInteger:
    return isInt;
  case ElementsFloat:
    return isFloat;
  case ElementsSigned:
    return isFloat || (isInt && !mlirIntegerTypeIsUnsigned(t));
  }
  return false;
}

static const char *elementsText(Elements e) {
  switch (e) {
  case ElementsInteger:
    return "an integer element type";
  case ElementsFloat:
    return "a float element type (f16, bf16, f32 or f64)";
  case ElementsSigned:
    return "a float or signed integer element type";
  default:
    return "a numeric element type";
  }
}

// One operand of the broadcast: a register tensor (decoded) or a scalar.
typedef struct {
  const char *role;
  bool isTensor;
  TilusTensorType tensor; // when isTensor
  MlirType type;          // the operand's type
} Operand;

// Reads operand group `group` as a tensor or a scalar; false after an error
// (or silently when its type did not decode, reported where it was defined).
static bool readOperand(TilusVerifier *v, MlirOperation op, intptr_t group,
                        const char *role, bool mustBeTensor, Operand *out) {
  out->role = role;
  out->type = mlirValueGetType(tilusOpGetGroupOperand(op, group, 0));
  out->isTensor = tilusTypeIsARegister(out->type);
  if (out->isTensor)
    return tilusVerifierDecode(v, out->type, &out->tensor, NULL);
  if (tilusTypeIsATensor(out->type) || mustBeTensor) {
    tilusVerifierError(v, op, "%s must be a register tensor%s", role,
                       mustBeTensor ? "" : " or a scalar");
    return false;
  }
  return true;
}

static MlirType elementOf(const Operand *o) {
  return o->isTensor ? o->tensor.elementType : o->type;
}

// Whether `scalar` is a signless integer scalar of the width of `tensor`'s
// signed or unsigned integer elements.
static bool signlessScalarFor(const Operand *scalar, const Operand *tensor) {
  if (scalar->isTensor || !tensor->isTensor)
    return false;
  MlirType s = scalar->type, t = tensor->tensor.elementType;
  return mlirTypeIsAInteger(s) && mlirIntegerTypeIsSignless(s) &&
         mlirTypeIsAInteger(t) && !mlirIntegerTypeIsSignless(t) &&
         mlirIntegerTypeGetWidth(s) == mlirIntegerTypeGetWidth(t);
}

// The broadcast shape of the tensor operands into shape/rank; false after
// reporting the first pair that does not broadcast.
static bool broadcastShapes(TilusVerifier *v, MlirOperation op,
                            const Operand *ops, int n, intptr_t *rank,
                            int64_t *shape) {
  const Operand *first = NULL;
  for (int k = 0; k < n; ++k) {
    const Operand *o = &ops[k];
    if (!o->isTensor)
      continue;
    if (!first) {
      first = o;
      *rank = o->tensor.rank;
      memcpy(shape, o->tensor.shape, sizeof(int64_t) * (size_t)*rank);
      continue;
    }
    char sa[160], sb[160];
    tilusFormatShape(sa, sizeof(sa), first->tensor.rank, first->tensor.shape);
    tilusFormatShape(sb, sizeof(sb), o->tensor.rank, o->tensor.shape);
    if (o->tensor.rank != *rank) {
      tilusVerifierError(v, op,
                         "shapes do not broadcast: the %s is %s, the %s is %s "
                         "(broadcasting needs equal ranks)",
                         first->role, sa, o->role, sb);
      return false;
    }
    for (intptr_t d = 0; d < *rank; ++d) {
      int64_t a = shape[d], b = o->tensor.shape[d];
      if (a != b && a != 1 && b != 1) {
        tilusVerifierError(v, op,
                           "shapes do not broadcast: the %s is %s, the %s is "
                           "%s (dimension %" PRIdPTR ": %" PRId64 " vs %" PRId64
                           "; only a dimension of 1 broadcasts)",
                           first->role, sa, o->role, sb, d, a, b);
        return false;
      }
      if (a == 1)
        shape[d] = b;
    }
  }
  return first != NULL;
}

// The out operand, if any, has the result's type.
static void verifyOut(TilusVerifier *v, MlirOperation op, intptr_t group) {
  MlirValue out = tilusOpGetGroupOperand(op, group, 0);
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (mlirValueIsNull(out) || mlirTypeEqual(mlirValueGetType(out), result))
    return;
  char a[256], b[256];
  typeText(mlirValueGetType(out), a, sizeof(a));
  typeText(result, b, sizeof(b));
  tilusVerifierError(
      v, op, "the out operand has type '%s' but the result is '%s'", a, b);
}

static void verifyPredicate(TilusVerifier *v, MlirOperation op) {
  MlirAttribute p = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("predicate"));
  if (!mlirAttributeIsNull(p) && mlirAttributeIsAString(p)) {
    MlirStringRef s = mlirStringAttrGetValue(p);
    for (size_t k = 0; k < sizeof(kPredicates) / sizeof(kPredicates[0]); ++k)
      if (strlen(kPredicates[k]) == s.length &&
          !memcmp(kPredicates[k], s.data, s.length))
        return;
    tilusVerifierError(v, op,
                       "the predicate must be one of \"eq\", \"ne\", \"lt\", "
                       "\"le\", \"gt\", \"ge\", got \"%.*s\"",
                       (int)s.length, s.data);
    return;
  }
  tilusVerifierError(v, op, "the predicate must be a string attribute");
}

// Binary ops, cmp, where and clamp: operands broadcast to the result.
static void verifyBroadcastOp(TilusVerifier *v, MlirOperation op,
                              const OpRule *rule) {
  Operand ops[3];
  memset(ops, 0, sizeof(ops));
  int n = 0;
  intptr_t outGroup;
  bool ok = true;
  if (rule->kind == KindWhere) {
    ok = readOperand(v, op, TilusWhereCond, "condition", true, &ops[n++]) &&
         readOperand(v, op, TilusWhereA, "a", false, &ops[n++]) &&
         readOperand(v, op, TilusWhereB, "b", false, &ops[n++]);
    outGroup = TilusWhereOut;
  } else if (rule->kind == KindClamp) {
    ok = readOperand(v, op, TilusClampX, "x", true, &ops[n++]) &&
         readOperand(v, op, TilusClampLo, "lo", false, &ops[n++]) &&
         readOperand(v, op, TilusClampHi, "hi", false, &ops[n++]);
    outGroup = TilusClampOut;
  } else {
    ok = readOperand(v, op, TilusBinaryLhs, "lhs", true, &ops[n++]) &&
         readOperand(v, op, TilusBinaryRhs, "rhs", false, &ops[n++]);
    outGroup = TilusBinaryOut;
  }
  TilusTensorType result;
  bool haveResult =
      ok &&
      tilusVerifierDecode(v, mlirValueGetType(mlirOperationGetResult(op, 0)),
                          &result, NULL);
  if (!haveResult)
    goto done;
  // The value operands (all but where's condition) share one element type.
  int firstValue = rule->kind == KindWhere ? 1 : 0;
  const Operand *value = &ops[firstValue];
  for (int k = firstValue + 1; k < n && ok; ++k) {
    if (mlirTypeEqual(elementOf(&ops[k]), elementOf(value)))
      continue;
    // A scalar for a uiN/siN tensor may be the signless iN of its bits: MLIR
    // has no unsigned or signed constants, so `x & 15` on a ui8 tensor needs
    // it. The tensor's type says how the bits read.
    if (signlessScalarFor(&ops[k], value) || signlessScalarFor(value, &ops[k]))
      continue;
    char a[96], b[96];
    typeText(elementOf(&ops[k]), a, sizeof(a));
    typeText(elementOf(value), b, sizeof(b));
    if (ops[k].isTensor && value->isTensor)
      tilusVerifierError(v, op,
                         "element types differ: the %s has '%s', the %s has "
                         "'%s'",
                         value->role, b, ops[k].role, a);
    else if (!ops[k].isTensor)
      tilusVerifierError(v, op,
                         "the scalar %s has type '%s' but the tensor's element "
                         "type is '%s'",
                         ops[k].role, a, b);
    else
      tilusVerifierError(v, op,
                         "the scalar %s has type '%s' but the tensor's element "
                         "type is '%s'",
                         value->role, b, a);
    ok = false;
  }
  MlirType element = elementOf(value);
  if (ok && rule->kind == KindWhere) {
    MlirType cond = ops[0].tensor.elementType;
    if (!mlirTypeIsAInteger(cond) || mlirIntegerTypeGetWidth(cond) != 1 ||
        !mlirIntegerTypeIsSignless(cond)) {
      char a[96];
      typeText(cond, a, sizeof(a));
      tilusVerifierError(v, op,
                         "the condition must be an i1 tensor, got "
                         "element type '%s'",
                         a);
      ok = false;
    }
  }
  if (ok && !elementsFit(rule->elements, element)) {
    char a[96];
    typeText(element, a, sizeof(a));
    tilusVerifierError(v, op, "needs %s, got '%s'",
                       elementsText(rule->elements), a);
    ok = false;
  }
  if (ok && rule->kind == KindCmp)
    verifyPredicate(v, op);
  intptr_t rank = 0;
  int64_t shape[TILUS_LAYOUT_MAX_RANK];
  if (ok && broadcastShapes(v, op, ops, n, &rank, shape)) {
    char sr[160], sb[160];
    tilusFormatShape(sr, sizeof(sr), result.rank, result.shape);
    tilusFormatShape(sb, sizeof(sb), rank, shape);
    bool same = result.rank == rank &&
                !memcmp(result.shape, shape, sizeof(int64_t) * (size_t)rank);
    MlirType expected = rule->kind == KindCmp
                            ? mlirIntegerTypeGet(mlirTypeGetContext(element), 1)
                            : element;
    if (!same) {
      tilusVerifierError(
          v, op, "the result is %s but the operands broadcast to %s", sr, sb);
    } else if (!mlirTypeEqual(result.elementType, expected)) {
      char a[96], b[96];
      typeText(result.elementType, a, sizeof(a));
      typeText(expected, b, sizeof(b));
      if (rule->kind == KindCmp)
        tilusVerifierError(
            v, op, "the result has element type '%s', expected '%s'", a, b);
      else
        tilusVerifierError(v, op,
                           "element types differ: the %s has '%s', the result "
                           "has '%s'",
                           value->role, b, a);
    } else {
      verifyOut(v, op, outGroup);
    }
  }
  tilusTensorTypeRelease(&result);
done:
  for (int k = 0; k < n; ++k)
    if (ops[k].isTensor && ops[k].tensor.layout)
      tilusTensorTypeRelease(&ops[k].tensor);
}

// The unary math ops keep the type; only their element types are checked
// here (shape and layout as for neg).
static bool verifyUnaryElements(TilusVerifier *v, MlirOperation op,
                                const OpRule *rule) {
  MlirType x = mlirValueGetType(tilusOpGetGroupOperand(op, TilusUnaryX, 0));
  TilusTensorType t;
  if (!tilusVerifierDecode(v, x, &t, NULL))
    return false;
  bool ok = elementsFit(rule->elements, t.elementType);
  if (!ok) {
    char a[96];
    typeText(t.elementType, a, sizeof(a));
    tilusVerifierError(v, op, "needs %s, got '%s'",
                       elementsText(rule->elements), a);
  }
  tilusTensorTypeRelease(&t);
  if (ok)
    verifyOut(v, op, TilusUnaryOut);
  return ok;
}

static const OpRule *findRule(MlirOperation op) {
  for (size_t k = 0; k < sizeof(kRules) / sizeof(kRules[0]); ++k)
    if (tilusOpIs(op, kRules[k].name))
      return &kRules[k];
  return NULL;
}

bool tilusVerifyBroadcastOp(TilusVerifier *v, MlirOperation op) {
  const OpRule *rule = findRule(op);
  if (!rule || rule->kind == KindUnary)
    return false;
  verifyBroadcastOp(v, op, rule);
  return true;
}

bool tilusIsUnaryMathOp(MlirOperation op) {
  const OpRule *rule = findRule(op);
  return rule && rule->kind == KindUnary;
}

bool tilusVerifyUnaryMathElements(TilusVerifier *v, MlirOperation op) {
  const OpRule *rule = findRule(op);
  return rule && rule->kind == KindUnary && verifyUnaryElements(v, op, rule);
}
