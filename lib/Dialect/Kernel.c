//===- Kernel.c - Reading a kernel's attributes ---------------------------===//

#include "tilus-c/Kernel.h"

#include "mlir-c/BuiltinAttributes.h"
#include "tilus-c/Ops.h"

static MlirAttribute getAttr(MlirOperation op, const char *name) {
  return mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(name));
}

bool tilusOperationIsAKernel(MlirOperation op) {
  return !mlirOperationIsNull(op) && tilusOpIs(op, "func.func") &&
         !mlirAttributeIsNull(getAttr(op, TILUS_KERNEL_ATTR));
}

int64_t tilusKernelGetBlockSize(MlirOperation kernel) {
  MlirAttribute attr = getAttr(kernel, TILUS_BLOCK_SIZE_ATTR);
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAInteger(attr))
    return 0;
  return mlirIntegerAttrGetValueInt(attr);
}

MlirAffineMap tilusKernelGetGrid(MlirOperation kernel) {
  MlirAttribute attr = getAttr(kernel, TILUS_GRID_ATTR);
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAAffineMap(attr))
    return (MlirAffineMap){NULL};
  return mlirAffineMapAttrGetValue(attr);
}

bool tilusKernelAllowsContraction(MlirOperation kernel) {
  if (mlirOperationIsNull(kernel))
    return false;
  MlirAttribute attr = getAttr(kernel, TILUS_FP_CONTRACT_ATTR);
  return !mlirAttributeIsNull(attr) && mlirAttributeIsAUnit(attr);
}

bool tilusAllowsContraction(MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (tilusOpIs(op, "gpu.func") || tilusOpIs(op, "func.func"))
      return tilusKernelAllowsContraction(op);
  return false;
}

MlirOperation tilusGetEnclosingKernel(MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (tilusOperationIsAKernel(op))
      return op;
  return (MlirOperation){NULL};
}
