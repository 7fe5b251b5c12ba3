//===- LoweredTypes.c - The types Tilus values take once lowered ----------===//
//
// Integers are computed signless (arith's rule; the signedness stays with the
// Tilus type), !tilus.float<e, m> as an integer of its width, and a register
// tensor is one vector<m x T> per thread.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

MlirType tilusStorageElementType(MlirContext ctx, MlirType elementType) {
  if (mlirTypeIsAInteger(elementType))
    return mlirIntegerTypeGet(ctx, mlirIntegerTypeGetWidth(elementType));
  if (tilusTypeIsAFloat(elementType))
    return mlirIntegerTypeGet(
        ctx, (unsigned)tilusElementTypeGetBitWidth(elementType));
  return elementType;
}

bool tilusElementIsUnsigned(MlirType elementType) {
  return mlirTypeIsAInteger(elementType) &&
         mlirIntegerTypeIsUnsigned(elementType);
}

MlirType tilusRegisterStorageType(MlirContext ctx, const TilusTensorType *t) {
  int64_t m = tilusLayoutGetLocalSize(t->layout);
  return mlirVectorTypeGet(1, &m, tilusStorageElementType(ctx, t->elementType));
}

MlirValue tilusEmitWidenSubByte(TilusEmitter *e, MlirValue vector,
                                bool isUnsigned) {
  MlirType type = mlirValueGetType(vector);
  MlirType element = mlirShapedTypeGetElementType(type);
  if (!mlirTypeIsAInteger(element) || mlirIntegerTypeGetWidth(element) >= 8)
    return vector;
  int64_t m = mlirShapedTypeGetDimSize(type, 0);
  MlirType wide = mlirVectorTypeGet(1, &m, mlirIntegerTypeGet(e->ctx, 32));
  return tilusEmitValue(e, isUnsigned ? "arith.extui" : "arith.extsi", 1,
                        &vector, wide, 0, NULL);
}
