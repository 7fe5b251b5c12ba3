//===- KernelParams.c - Tensor-map parameters as by-value grid constants --===//
//
// The last step of lower-to-nvvm. A kernel's tensor maps (TMA) are 128-byte
// parameters that the instructions read in place, through the generic
// address of the parameter: in LLVM, a pointer argument `byval([128 x i8])
// align 64` marked "nvvm.grid_constant", which NVPTX lowers to
// `.param .align 64 .b8 name[128]` and a cvta.param of its address (without
// the mark it would copy the bytes to local memory first, where TMA cannot
// read them). convert-gpu-to-nvvm drops byval from gpu.func arguments and
// the NVVM dialect accepts the mark on llvm.func kernels only, so the
// attributes are set here, on the llvm.func, for the arguments that
// tilus-to-gpu added (TILUS_TENSOR_MAPS_ATTR: after the kernel's own
// parameters, TILUS_PARAM_TYPES_ATTR).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/LLVM.h"
#include "tilus-c/Ops.h"

#include <stdalign.h>
#include <stdlib.h>

static const alignas(8) char kernelParamsPassID = 0;

enum { kTensorMapBytes = 128, kTensorMapAlignment = 64 };

static MlirAttribute arrayAttr(MlirOperation op, const char *name) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  return !mlirAttributeIsNull(a) && mlirAttributeIsAArray(a)
             ? a
             : (MlirAttribute){NULL};
}

// false when memory runs out.
static bool markTensorMaps(MlirOperation func) {
  MlirAttribute maps = arrayAttr(func, TILUS_TENSOR_MAPS_ATTR);
  MlirAttribute params = arrayAttr(func, TILUS_PARAM_TYPES_ATTR);
  if (mlirAttributeIsNull(maps) || mlirAttributeIsNull(params))
    return true;
  MlirContext ctx = mlirOperationGetContext(func);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t numArgs = mlirBlockGetNumArguments(entry);
  intptr_t first = mlirArrayAttrGetNumElements(params);
  intptr_t last = first + mlirArrayAttrGetNumElements(maps);
  MlirAttribute old = arrayAttr(func, "arg_attrs");
  MlirAttribute *dicts = malloc((size_t)numArgs * sizeof(MlirAttribute));
  if (!dicts)
    return false;
  MlirNamedAttribute map[] = {
      tilusNamedAttr(ctx, "llvm.byval",
                     mlirTypeAttrGet(mlirLLVMArrayTypeGet(
                         mlirIntegerTypeGet(ctx, 8), kTensorMapBytes))),
      tilusNamedAttr(ctx, "llvm.align",
                     mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64),
                                        kTensorMapAlignment)),
      tilusNamedAttr(ctx, "nvvm.grid_constant", mlirUnitAttrGet(ctx)),
  };
  for (intptr_t k = 0; k < numArgs; ++k)
    dicts[k] = first <= k && k < last
                   ? mlirDictionaryAttrGet(ctx, sizeof map / sizeof map[0], map)
               : !mlirAttributeIsNull(old) &&
                       k < mlirArrayAttrGetNumElements(old)
                   ? mlirArrayAttrGetElement(old, k)
                   : mlirDictionaryAttrGet(ctx, 0, NULL);
  mlirOperationSetAttributeByName(func,
                                  mlirStringRefCreateFromCString("arg_attrs"),
                                  mlirArrayAttrGet(ctx, numArgs, dicts));
  free(dicts);
  return true;
}

static MlirWalkResult visit(MlirOperation op, void *userData) {
  bool *ok = userData;
  if (tilusOpIs(op, "llvm.func") && !markTensorMaps(op))
    *ok = false;
  return MlirWalkResultAdvance;
}

static void run(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  bool ok = true;
  mlirOperationWalk(module, visit, &ok, MlirWalkPreOrder);
  if (!ok) {
    mlirEmitError(mlirOperationGetLocation(module),
                  "tilus-kernel-params ran out of memory");
    mlirExternalPassSignalFailure(pass);
  }
}

static void construct(void *userData) { (void)userData; }
static void destruct(void *userData) { (void)userData; }
static void *clonePass(void *userData) { return userData; }

MlirPass tilusCreateKernelParamsPass(void) {
  MlirExternalPassCallbacks callbacks = {construct, destruct, NULL, clonePass,
                                         run};
  MlirDialectHandle dialects[] = {mlirGetDialectHandle__llvm__()};
  return mlirCreateExternalPass(
      mlirTypeIDCreate(&kernelParamsPassID),
      mlirStringRefCreateFromCString("TilusKernelParams"),
      mlirStringRefCreateFromCString("tilus-kernel-params"),
      mlirStringRefCreateFromCString(
          "Tensor-map kernel parameters become by-value grid constants"),
      mlirStringRefCreateFromCString("builtin.module"), 1, dialects, callbacks,
      NULL);
}
