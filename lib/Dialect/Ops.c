//===- Ops.c - Readers of Tilus operations --------------------------------===//

#include "tilus-c/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <string.h>

bool tilusOpIs(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}

bool tilusOpIsInDialect(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length > 6 && !memcmp(name.data, "tilus.", 6);
}

bool tilusOpGetIntAttr(MlirOperation op, const char *name, int64_t *out) {
  MlirStringRef key = mlirStringRefCreateFromCString(name);
  MlirAttribute a = mlirOperationGetDiscardableAttributeByName(op, key);
  if (mlirAttributeIsNull(a))
    a = mlirOperationGetAttributeByName(op, key);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

bool tilusValueGetConstantInt(MlirValue value, int64_t *out) {
  if (!mlirValueIsAOpResult(value))
    return false;
  MlirOperation def = mlirOpResultGetOwner(value);
  if (!tilusOpIs(def, "arith.constant"))
    return false;
  MlirAttribute attr = mlirOperationGetAttributeByName(
      def, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAInteger(attr))
    return false;
  *out = mlirIntegerAttrGetValueInt(attr);
  return true;
}

void tilusSharedTensorWalkUses(MlirValue value,
                               void (*visit)(MlirOpOperand use, void *userData),
                               void *userData) {
  for (MlirOpOperand use = mlirValueGetFirstUse(value);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    visit(use, userData);
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (tilusOpIs(user, "tilus.transpose_shared"))
      tilusSharedTensorWalkUses(mlirOperationGetResult(user, 0), visit,
                                userData);
  }
}
