//===- Emit.c - Building upstream ops from C ------------------------------===//

#include "Support.h"
#include "tilus-c/Kernel.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdlib.h>
#include <string.h>

TilusEmitter tilusEmitterCreate(struct TilusLowering *lowering,
                                MlirRewriterBase rewriter, MlirOperation at) {
  TilusEmitter e = {mlirRewriterBaseGetContext(rewriter), rewriter,
                    mlirOperationGetLocation(at), lowering, 0, 0};
  if (!tilusOpGetThreadGroup(at, &e.groupFirst, &e.groupCount))
    e.groupFirst = e.groupCount = 0;
  return e;
}

MlirNamedAttribute tilusNamedAttr(MlirContext ctx, const char *name,
                                  MlirAttribute value) {
  return mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)), value);
}

MlirOperation tilusEmitOp(TilusEmitter *e, const char *name,
                          intptr_t numOperands, const MlirValue *operands,
                          intptr_t numResults, const MlirType *resultTypes,
                          intptr_t numAttrs, const MlirNamedAttribute *attrs) {
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString(name), e->loc);
  if (numOperands)
    mlirOperationStateAddOperands(&state, numOperands, operands);
  if (numResults)
    mlirOperationStateAddResults(&state, numResults, resultTypes);
  if (numAttrs)
    mlirOperationStateAddAttributes(&state, numAttrs, attrs);
  return mlirRewriterBaseInsert(e->rewriter, mlirOperationCreate(&state));
}

MlirValue tilusEmitValue(TilusEmitter *e, const char *name,
                         intptr_t numOperands, const MlirValue *operands,
                         MlirType resultType, intptr_t numAttrs,
                         const MlirNamedAttribute *attrs) {
  MlirOperation op = tilusEmitOp(e, name, numOperands, operands, 1,
                                 &resultType, numAttrs, attrs);
  return mlirOperationGetResult(op, 0);
}

MlirType tilusIndexType(MlirContext ctx) { return mlirIndexTypeGet(ctx); }

MlirValue tilusEmitIntConstant(TilusEmitter *e, MlirType type, int64_t value) {
  MlirNamedAttribute attr =
      tilusNamedAttr(e->ctx, "value", mlirIntegerAttrGet(type, value));
  return tilusEmitValue(e, "arith.constant", 0, NULL, type, 1, &attr);
}

MlirValue tilusEmitIndex(TilusEmitter *e, int64_t value) {
  return tilusEmitIntConstant(e, tilusIndexType(e->ctx), value);
}

MlirValue tilusEmitFloatConstant(TilusEmitter *e, MlirType type,
                                 double value) {
  MlirNamedAttribute attr =
      tilusNamedAttr(e->ctx, "value", mlirFloatAttrDoubleGet(e->ctx, type, value));
  return tilusEmitValue(e, "arith.constant", 0, NULL, type, 1, &attr);
}

MlirValue tilusEmitArith(TilusEmitter *e, const char *op, MlirValue lhs,
                         MlirValue rhs) {
  char name[64] = "arith.";
  strncat(name, op, sizeof(name) - strlen(name) - 1);
  MlirValue operands[2] = {lhs, rhs};
  return tilusEmitValue(e, name, 2, operands, mlirValueGetType(lhs), 0, NULL);
}

// Index arithmetic on constants wraps as arith.addi/muli on index values do
// at run time (two's complement), instead of C's undefined overflow. The
// verifier bounds every static size, stride and offset so that it does not
// wrap; only run-time values the program gets wrong can.
static int64_t wrapAdd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wrapMul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

MlirValue tilusEmitAddIndex(TilusEmitter *e, MlirValue a, MlirValue b) {
  int64_t ca, cb;
  bool ka = tilusValueGetConstantInt(a, &ca), kb = tilusValueGetConstantInt(b, &cb);
  if (ka && kb)
    return tilusEmitIndex(e, wrapAdd(ca, cb));
  if (ka && ca == 0)
    return b;
  if (kb && cb == 0)
    return a;
  return tilusEmitArith(e, "addi", a, b);
}

MlirValue tilusEmitAddIndexConst(TilusEmitter *e, MlirValue a, int64_t c) {
  int64_t ca;
  if (tilusValueGetConstantInt(a, &ca))
    return tilusEmitIndex(e, wrapAdd(ca, c));
  if (c == 0)
    return a;
  return tilusEmitArith(e, "addi", a, tilusEmitIndex(e, c));
}

MlirValue tilusEmitMulIndexConst(TilusEmitter *e, MlirValue a, int64_t c) {
  int64_t ca;
  if (tilusValueGetConstantInt(a, &ca))
    return tilusEmitIndex(e, wrapMul(ca, c));
  if (c == 1)
    return a;
  if (c == 0)
    return tilusEmitIndex(e, 0);
  return tilusEmitArith(e, "muli", a, tilusEmitIndex(e, c));
}

MlirValue tilusEmitElementPointer(TilusEmitter *e, MlirValue base,
                                  MlirType elementType, MlirValue index) {
  MlirValue index64 = tilusEmitValue(e, "arith.index_cast", 1, &index,
                                     mlirIntegerTypeGet(e->ctx, 64), 0, NULL);
  MlirValue operands[2] = {base, index64};
  int32_t dynamicIndex = INT32_MIN; // "take the index from the operands"
  MlirNamedAttribute attrs[2] = {
      tilusNamedAttr(e->ctx, "rawConstantIndices",
                     mlirDenseI32ArrayGet(e->ctx, 1, &dynamicIndex)),
      tilusNamedAttr(e->ctx, "elem_type", mlirTypeAttrGet(elementType)),
  };
  return tilusEmitValue(e, "llvm.getelementptr", 2, operands,
                        mlirValueGetType(base), 2, attrs);
}

MlirValue tilusEmitCast(TilusEmitter *e, intptr_t numInputs,
                        const MlirValue *inputs, MlirType resultType) {
  return tilusEmitValue(e, "builtin.unrealized_conversion_cast", numInputs,
                        inputs, resultType, 0, NULL);
}

intptr_t tilusLookThroughCast(MlirValue v, MlirValue *inputs,
                              intptr_t capacity) {
  if (!mlirValueIsAOpResult(v))
    return -1;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!tilusOpIs(def, "builtin.unrealized_conversion_cast"))
    return -1;
  intptr_t n = mlirOperationGetNumOperands(def);
  if (n > capacity)
    return -1;
  for (intptr_t k = 0; k < n; ++k)
    inputs[k] = mlirOperationGetOperand(def, k);
  return n;
}

MlirOperation tilusEmitIf(TilusEmitter *e, MlirValue cond, intptr_t numResults,
                          const MlirType *resultTypes, MlirBlock *thenBlock,
                          MlirBlock *elseBlock) {
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("scf.if"), e->loc);
  mlirOperationStateAddOperands(&state, 1, &cond);
  if (numResults)
    mlirOperationStateAddResults(&state, numResults, resultTypes);
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  *thenBlock = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(regions[0], *thenBlock);
  if (elseBlock) {
    *elseBlock = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[1], *elseBlock);
  }
  mlirOperationStateAddOwnedRegions(&state, 2, regions);
  return mlirRewriterBaseInsert(e->rewriter, mlirOperationCreate(&state));
}

void tilusEmitYield(TilusEmitter *e, intptr_t numValues,
                    const MlirValue *values) {
  tilusEmitOp(e, "scf.yield", numValues, values, 0, NULL, 0, NULL);
}

void tilusEmitterSetToEnd(TilusEmitter *e, MlirBlock block) {
  mlirRewriterBaseSetInsertionPointToEnd(e->rewriter, block);
}

void tilusEmitterSetAfter(TilusEmitter *e, MlirOperation op) {
  mlirRewriterBaseSetInsertionPointAfter(e->rewriter, op);
}

// The value a chain of llvm.insertelement ops at constant positions put at
// `position` of `vector`, or null when the chain does not say.
static MlirValue findInserted(MlirValue vector, int64_t position) {
  while (mlirValueIsAOpResult(vector)) {
    MlirOperation def = mlirOpResultGetOwner(vector);
    int64_t at;
    if (!tilusOpIs(def, "llvm.insertelement") ||
        !tilusValueGetConstantInt(mlirOperationGetOperand(def, 2), &at))
      break;
    if (at == position)
      return mlirOperationGetOperand(def, 1);
    vector = mlirOperationGetOperand(def, 0);
  }
  return (MlirValue){NULL};
}

MlirValue tilusEmitElement(TilusEmitter *e, MlirValue vector,
                           int64_t position) {
  MlirValue known = findInserted(vector, position);
  return mlirValueIsNull(known) ? tilusEmitExtract(e, vector, position) : known;
}

MlirValue tilusEmitExtract(TilusEmitter *e, MlirValue vector,
                           int64_t position) {
  MlirValue operands[2] = {
      vector, tilusEmitIntConstant(e, mlirIntegerTypeGet(e->ctx, 32), position)};
  MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(vector));
  return tilusEmitValue(e, "llvm.extractelement", 2, operands, element, 0,
                        NULL);
}

MlirValue tilusEmitInsert(TilusEmitter *e, MlirValue vector, MlirValue value,
                          int64_t position) {
  MlirValue operands[3] = {
      vector, value,
      tilusEmitIntConstant(e, mlirIntegerTypeGet(e->ctx, 32), position)};
  return tilusEmitValue(e, "llvm.insertelement", 3, operands,
                        mlirValueGetType(vector), 0, NULL);
}

MlirType tilusVectorOrScalarType(MlirType elementType, int64_t n) {
  if (n == 1)
    return elementType;
  return mlirVectorTypeGet(1, &n, elementType);
}

MlirValue tilusEmitSplatConstant(TilusEmitter *e, MlirType type, double value) {
  MlirType element = mlirTypeIsAVector(type)
                         ? mlirShapedTypeGetElementType(type)
                         : type;
  MlirAttribute scalar =
      mlirTypeIsAInteger(element) || mlirTypeIsAIndex(element)
          ? mlirIntegerAttrGet(element, (int64_t)value)
          : mlirFloatAttrDoubleGet(e->ctx, element, value);
  MlirAttribute attr = mlirTypeIsAVector(type)
                           ? mlirDenseElementsAttrSplatGet(type, scalar)
                           : scalar;
  MlirNamedAttribute named = tilusNamedAttr(e->ctx, "value", attr);
  return tilusEmitValue(e, "arith.constant", 0, NULL, type, 1, &named);
}

MlirValue tilusEmitFloatVectorConstant(TilusEmitter *e, MlirType type,
                                       const double *values) {
  MlirType element = mlirShapedTypeGetElementType(type);
  intptr_t n = mlirShapedTypeGetDimSize(type, 0);
  MlirAttribute *elements = malloc(sizeof(MlirAttribute) * (size_t)n);
  for (intptr_t i = 0; i < n; ++i)
    elements[i] = mlirFloatAttrDoubleGet(e->ctx, element, values[i]);
  MlirAttribute attr = mlirDenseElementsAttrGet(type, n, elements);
  free(elements);
  MlirNamedAttribute named = tilusNamedAttr(e->ctx, "value", attr);
  return tilusEmitValue(e, "arith.constant", 0, NULL, type, 1, &named);
}

static MlirValue emitAsm(TilusEmitter *e, const char *text,
                         const char *constraints, intptr_t n,
                         const MlirValue *operands, MlirType resultType,
                         bool effects) {
  MlirNamedAttribute attrs[3] = {
      tilusNamedAttr(e->ctx, "asm_string",
                     mlirStringAttrGet(e->ctx, mlirStringRefCreateFromCString(text))),
      tilusNamedAttr(e->ctx, "constraints",
                     mlirStringAttrGet(e->ctx, mlirStringRefCreateFromCString(constraints))),
      tilusNamedAttr(e->ctx, "has_side_effects", mlirUnitAttrGet(e->ctx))};
  if (mlirTypeIsNull(resultType)) {
    tilusEmitOp(e, "llvm.inline_asm", n, operands, 0, NULL, 3, attrs);
    return (MlirValue){NULL};
  }
  return tilusEmitValue(e, "llvm.inline_asm", n, operands, resultType,
                        effects ? 3 : 2, attrs);
}

MlirValue tilusEmitInlineAsm(TilusEmitter *e, const char *text,
                             const char *constraints, intptr_t n,
                             const MlirValue *operands, MlirType resultType) {
  return emitAsm(e, text, constraints, n, operands, resultType, false);
}

MlirValue tilusEmitVolatileAsm(TilusEmitter *e, const char *text,
                               const char *constraints, intptr_t n,
                               const MlirValue *operands, MlirType resultType) {
  return emitAsm(e, text, constraints, n, operands, resultType, true);
}

MlirValue tilusEmitCmp(TilusEmitter *e, TilusCmpPredicate predicate,
                       MlirValue lhs, MlirValue rhs) {
  MlirType type = mlirValueGetType(lhs);
  MlirType i1 = mlirIntegerTypeGet(e->ctx, 1);
  MlirType resultType = i1;
  if (mlirTypeIsAVector(type)) {
    int64_t n = mlirShapedTypeGetDimSize(type, 0);
    resultType = mlirVectorTypeGet(1, &n, i1);
  }
  MlirNamedAttribute attr = tilusNamedAttr(
      e->ctx, "predicate",
      mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), (int64_t)predicate));
  MlirValue operands[2] = {lhs, rhs};
  return tilusEmitValue(e, "arith.cmpi", 2, operands, resultType, 1, &attr);
}

MlirType tilusLLVMArrayType(MlirType element, unsigned n) {
  return mlirLLVMArrayTypeGet(element, n);
}

MlirType tilusLLVMStructType(MlirContext ctx, intptr_t numFields,
                             const MlirType *fields) {
  return mlirLLVMStructTypeLiteralGet(ctx, numFields, fields, false);
}

MlirValue tilusEmitRemIndexConst(TilusEmitter *e, MlirValue x, int64_t c) {
  int64_t v;
  if (c == 1)
    return tilusEmitIndex(e, 0);
  if (tilusValueGetConstantInt(x, &v))
    return tilusEmitIndex(e, v % c);
  return tilusEmitArith(e, "remui", x, tilusEmitIndex(e, c));
}

MlirValue tilusEmitDivIndexConst(TilusEmitter *e, MlirValue x, int64_t c) {
  int64_t v;
  if (c == 1)
    return x;
  if (tilusValueGetConstantInt(x, &v))
    return tilusEmitIndex(e, v / c);
  return tilusEmitArith(e, "divui", x, tilusEmitIndex(e, c));
}

void tilusTextAppend(MlirStringRef piece, void *userData) {
  tilusStringBufferAppend(userData, piece.data, piece.length);
}

void tilusOpListPush(TilusOpList *list, MlirOperation op) {
  if (list->outOfMemory)
    return;
  if (list->size == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 64;
    MlirOperation *ops = realloc(list->ops, capacity * sizeof(*ops));
    if (!ops) {
      list->outOfMemory = true;
      return;
    }
    list->ops = ops;
    list->capacity = capacity;
  }
  list->ops[list->size++] = op;
}

void tilusOpListRelease(TilusOpList *list) {
  free(list->ops);
  list->ops = NULL;
  list->size = list->capacity = 0;
  list->outOfMemory = false;
}

// An LLVM intrinsic through llvm.call_intrinsic, with the `afn` flag. The
// llvm.intr.* ops and arith's maxnumf/minnumf are not used: convert-gpu-to-
// nvvm turns them into libdevice calls (__nv_fminf, ...), which the
// artifacts do not link.
MlirValue tilusEmitCallIntrinsic(TilusEmitter *e, const char *intrinsic,
                                 intptr_t numOperands, const MlirValue *operands,
                                 MlirType type) {
  int32_t segments[2] = {(int32_t)numOperands, 0};
  MlirNamedAttribute attrs[4] = {
      tilusNamedAttr(
          e->ctx, "intrin",
          mlirStringAttrGet(e->ctx, mlirStringRefCreateFromCString(intrinsic))),
      tilusNamedAttr(
          e->ctx, "fastmathFlags",
          mlirAttributeParseGet(
              e->ctx, mlirStringRefCreateFromCString("#llvm.fastmath<afn>"))),
      tilusNamedAttr(e->ctx, "op_bundle_sizes",
                     mlirDenseI32ArrayGet(e->ctx, 0, NULL)),
      tilusNamedAttr(e->ctx, "operandSegmentSizes",
                     mlirDenseI32ArrayGet(e->ctx, 2, segments)),
  };
  return tilusEmitValue(e, "llvm.call_intrinsic", numOperands, operands, type,
                        4, attrs);
}

MlirValue tilusEmitPackRegister(TilusEmitter *e, MlirValue value,
                                const int64_t *slots, int count, bool asI32) {
  MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(value));
  int64_t n = count;
  MlirType packed = mlirVectorTypeGet(1, &n, element);
  MlirValue v = tilusEmitSplatConstant(e, packed, 0);
  // An element the load just put into `value` is used directly.
  for (int j = 0; j < count; ++j)
    v = tilusEmitInsert(e, v, tilusEmitElement(e, value, slots[j]), j);
  if (!asI32)
    return v;
  return tilusEmitValue(e, "llvm.bitcast", 1, &v, mlirIntegerTypeGet(e->ctx, 32),
                        0, NULL);
}
