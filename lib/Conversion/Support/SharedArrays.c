//===- SharedArrays.c - Shared-memory arrays of a gpu.module --------------===//

#include "Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <string.h>

MlirValue tilusEmitSharedArray(TilusEmitter *e, MlirOperation at,
                               const char *prefix, int64_t bytes,
                               bool dynamic) {
  MlirOperation gpuModule = mlirOperationGetParentOperation(at);
  while (!mlirOperationIsNull(gpuModule) && !tilusOpIs(gpuModule, "gpu.module"))
    gpuModule = mlirOperationGetParentOperation(gpuModule);
  if (mlirOperationIsNull(gpuModule))
    return (MlirValue){NULL};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  // The dynamic array is declared once per module; scratch arrays are new.
  char name[64];
  int count = 0;
  bool exists = false;
  for (MlirOperation g = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(g); g = mlirOperationGetNextInBlock(g)) {
    if (!tilusOpIs(g, "llvm.mlir.global"))
      continue;
    ++count;
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        g, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef text = mlirStringAttrGetValue(symbol);
    exists |= dynamic && text.length == strlen(prefix) &&
              !memcmp(text.data, prefix, text.length);
  }
  if (dynamic)
    snprintf(name, sizeof(name), "%s", prefix);
  else
    snprintf(name, sizeof(name), "%s_%d", prefix, count);

  if (!exists) {
    MlirType arrayType = tilusLLVMArrayType(mlirIntegerTypeGet(e->ctx, 8),
                                            (unsigned)(dynamic ? 0 : bytes));
    MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
    MlirType i64 = mlirIntegerTypeGet(e->ctx, 64);
    // Dynamic shared memory is an external array of size 0 (PTX: .extern
    // .shared ...[]); its size comes from the launch.
    MlirNamedAttribute attrs[] = {
        tilusNamedAttr(e->ctx, "addr_space", mlirIntegerAttrGet(i32, 3)),
        tilusNamedAttr(e->ctx, "alignment", mlirIntegerAttrGet(i64, dynamic ? 128 : 16)),
        tilusNamedAttr(e->ctx, "global_type", mlirTypeAttrGet(arrayType)),
        tilusNamedAttr(e->ctx, "linkage",
                       mlirAttributeParseGet(
                           e->ctx, mlirStringRefCreateFromCString(
                                       dynamic ? "#llvm.linkage<external>"
                                               : "#llvm.linkage<internal>"))),
        tilusNamedAttr(e->ctx, "sym_name",
                       mlirStringAttrGet(e->ctx,
                                         mlirStringRefCreateFromCString(name))),
    };
    MlirOperationState state = mlirOperationStateGet(
        mlirStringRefCreateFromCString("llvm.mlir.global"), e->loc);
    mlirOperationStateAddAttributes(&state, sizeof(attrs) / sizeof(attrs[0]),
                                    attrs);
    MlirRegion region = mlirRegionCreate();
    mlirOperationStateAddOwnedRegions(&state, 1, &region);
    MlirOperation global = mlirOperationCreate(&state);
    // Inserted directly (not through the rewriter): nothing rewrites globals.
    mlirBlockInsertOwnedOperationBefore(body, mlirBlockGetFirstOperation(body),
                                        global);
  }
  if (!dynamic) {
    // Static arrays count against the block's shared memory too: the kernel
    // keeps their total for the artifact's limit check.
    MlirOperation func = mlirOperationGetParentOperation(at);
    while (!mlirOperationIsNull(func) && !tilusOpIs(func, "gpu.func"))
      func = mlirOperationGetParentOperation(func);
    if (!mlirOperationIsNull(func)) {
      int64_t total = 0;
      tilusOpGetIntAttr(func, TILUS_STATIC_SHARED_BYTES_ATTR, &total);
      mlirOperationSetDiscardableAttributeByName(
          func, mlirStringRefCreateFromCString(TILUS_STATIC_SHARED_BYTES_ATTR),
          mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), total + bytes));
    }
  }
  MlirNamedAttribute ref = tilusNamedAttr(
      e->ctx, "global_name",
      mlirFlatSymbolRefAttrGet(e->ctx, mlirStringRefCreateFromCString(name)));
  return tilusEmitValue(e, "llvm.mlir.addressof", 0, NULL,
                        mlirLLVMPointerTypeGet(e->ctx, 3), 1, &ref);
}

bool tilusRaiseSharedAlignment(TilusEmitter *e, MlirOperation at,
                               int64_t alignment) {
  MlirOperation gpuModule = mlirOperationGetParentOperation(at);
  while (!mlirOperationIsNull(gpuModule) && !tilusOpIs(gpuModule, "gpu.module"))
    gpuModule = mlirOperationGetParentOperation(gpuModule);
  if (mlirOperationIsNull(gpuModule))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  MlirStringRef name = mlirStringRefCreateFromCString(TILUS_DYNAMIC_SHARED_NAME);
  MlirStringRef key = mlirStringRefCreateFromCString("alignment");
  for (MlirOperation g = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(g); g = mlirOperationGetNextInBlock(g)) {
    if (!tilusOpIs(g, "llvm.mlir.global"))
      continue;
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        g, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirStringRefEqual(mlirStringAttrGetValue(symbol), name))
      continue;
    MlirAttribute current = mlirOperationGetAttributeByName(g, key);
    if (mlirAttributeIsNull(current) ||
        mlirIntegerAttrGetValueInt(current) < alignment)
      mlirOperationSetAttributeByName(
          g, key,
          mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), alignment));
    return true;
  }
  return false;
}
