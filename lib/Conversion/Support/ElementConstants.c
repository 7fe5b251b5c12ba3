//===- ElementConstants.c - Constants of any element type -----------------===//
//
// An arith.constant holding a TilusElementConstant (tilus-c/Types.h) in the
// type a register holds it in: standard floats as a FloatAttr (MLIR rounds
// the double to nearest even), integers and !tilus.float formats as the bits
// of a signless integer of their width.
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
