//===- ElementConstants.c - Constants of any element type -----------------===//
//
// An arith.constant holding a TilusElementConstant (tilus-c/Types.h) in the
// type a register holds it in: standard floats as a FloatAttr (MLIR rounds
// the double to nearest even), integers and !tilus.float formats as the bits
// of a signless integer of their width. And the readers of such constants
// that patterns fold with.
//
//===----------------------------------------------------------------------===//

#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

MlirValue tilusEmitElementConstant(TilusEmitter *e, MlirType type,
                                   const TilusElementConstant *c) {
  bool isVector = mlirTypeIsAVector(type);
  MlirType element = isVector ? mlirShapedTypeGetElementType(type) : type;
  MlirAttribute scalar;
  if (c->isFloat) {
    scalar = mlirFloatAttrDoubleGet(e->ctx, element, c->value);
  } else {
    // The bits sign-extended from the width, so the value fits an APInt of
    // that width read as signed.
    unsigned n = mlirIntegerTypeGetWidth(element);
    int64_t v = (int64_t)c->bits;
    if (n < 64)
      v = (int64_t)(c->bits << (64 - n)) >> (64 - n);
    scalar = mlirIntegerAttrGet(element, v);
  }
  MlirAttribute value =
      isVector ? mlirDenseElementsAttrSplatGet(type, scalar) : scalar;
  MlirNamedAttribute attr = tilusNamedAttr(e->ctx, "value", value);
  return tilusEmitValue(e, "arith.constant", 0, NULL, type, 1, &attr);
}

// The value attribute of the arith.constant behind `c` (itself, or the
// scalar a vector.broadcast spreads); null for anything else.
static MlirAttribute constantValue(MlirValue c) {
  if (mlirValueIsAOpResult(c) && tilusOpIs(mlirOpResultGetOwner(c), "vector.broadcast")) {
    c = mlirOperationGetOperand(mlirOpResultGetOwner(c), 0);
    if (mlirTypeIsAVector(mlirValueGetType(c))) // only a scalar's broadcast is a splat
      return (MlirAttribute){NULL};
  }
  if (!mlirValueIsAOpResult(c) || !tilusOpIs(mlirOpResultGetOwner(c), "arith.constant"))
    return (MlirAttribute){NULL};
  return mlirOperationGetAttributeByName(mlirOpResultGetOwner(c),
                                         mlirStringRefCreateFromCString("value"));
}

bool tilusConstantElement(MlirValue c, uint64_t index, double *out) {
  MlirAttribute value = constantValue(c);
  if (mlirAttributeIsNull(value))
    return false;
  if (mlirAttributeIsAElements(value) &&
      index >= (uint64_t)mlirElementsAttrGetNumElements(value))
    return false;
  if (mlirAttributeIsAFloat(value)) {
    *out = mlirFloatAttrGetValueDouble(value);
    return true;
  }
  if (!mlirAttributeIsADenseElements(value))
    return false;
  if (mlirDenseElementsAttrIsSplat(value))
    index = 0;
  MlirAttribute element = mlirElementsAttrGetValue(value, 1, &index);
  if (!mlirAttributeIsAFloat(element))
    return false;
  *out = mlirFloatAttrGetValueDouble(element);
  return true;
}

bool tilusIsZeroConstant(MlirValue v) {
  MlirAttribute a = constantValue(v);
  if (mlirAttributeIsNull(a))
    return false;
  if (mlirAttributeIsADenseElements(a)) {
    if (!mlirDenseElementsAttrIsSplat(a))
      return false;
    a = mlirDenseElementsAttrGetSplatValue(a);
  }
  if (mlirAttributeIsAFloat(a))
    return mlirFloatAttrGetValueDouble(a) == 0.0;
  return mlirAttributeIsAInteger(a) && mlirIntegerAttrGetValueInt(a) == 0;
}
