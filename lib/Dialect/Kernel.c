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

bool tilusKernelGetCluster(MlirOperation kernel, int64_t dims[3]) {
  if (mlirOperationIsNull(kernel))
    return false;
  MlirAttribute attr = getAttr(kernel, TILUS_CLUSTER_ATTR);
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsADenseI64Array(attr))
    return false;
  intptr_t n = mlirDenseArrayGetNumElements(attr);
  if (n < 1 || n > 3)
    return false;
  int64_t d[3] = {1, 1, 1}, total = 1;
  for (intptr_t k = 0; k < n; ++k) {
    d[k] = mlirDenseI64ArrayGetElement(attr, k);
    if (d[k] < 1 || d[k] > 8)
      return false;
    total *= d[k];
  }
  if (total > 8)
    return false;
  if (dims)
    for (int k = 0; k < 3; ++k)
      dims[k] = d[k];
  return true;
}

int64_t tilusOpGetClusterSize(MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (tilusOperationIsAKernel(op) || tilusOpIs(op, "gpu.func")) {
      int64_t d[3];
      return tilusKernelGetCluster(op, d) ? d[0] * d[1] * d[2] : 0;
    }
  return 0;
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

// The group an scf.if opens: its mark (after lowering), or its condition's
// tilus.in_thread_group (before).
static bool groupOfIf(MlirOperation op, int64_t *first, int64_t *count) {
  if (!tilusOpIs(op, "scf.if"))
    return false;
  MlirAttribute mark = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(TILUS_THREAD_GROUP_ATTR));
  if (!mlirAttributeIsNull(mark) && mlirAttributeIsADenseI64Array(mark) &&
      mlirDenseArrayGetNumElements(mark) == 2) {
    *first = mlirDenseI64ArrayGetElement(mark, 0);
    *count = mlirDenseI64ArrayGetElement(mark, 1);
    return true;
  }
  MlirValue cond = mlirOperationGetOperand(op, 0);
  if (!mlirValueIsAOpResult(cond))
    return false;
  MlirOperation def = mlirOpResultGetOwner(cond);
  return tilusOpIs(def, "tilus.in_thread_group") &&
         tilusOpGetIntAttr(def, "first", first) &&
         tilusOpGetIntAttr(def, "count", count);
}

bool tilusOpGetThreadGroup(MlirOperation op, int64_t *first, int64_t *count) {
  int64_t f, c;
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p) && !tilusOperationIsAKernel(p);
       p = mlirOperationGetParentOperation(p))
    if (groupOfIf(p, &f, &c)) {
      if (first)
        *first = f;
      if (count)
        *count = c;
      return true;
    }
  return false;
}

int64_t tilusOpGetThreadCount(MlirOperation op) {
  int64_t count;
  if (tilusOpGetThreadGroup(op, NULL, &count))
    return count;
  for (MlirOperation p = op; !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p)) {
    int64_t size;
    if (tilusOpGetIntAttr(p, TILUS_BLOCK_SIZE_ATTR, &size))
      return size;
  }
  return 0;
}
