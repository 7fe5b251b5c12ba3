//===- Common.c - Helpers every TilusToGPU pattern uses -------------------===//

#include "Lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <string.h>

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

MlirValue tilusLoweredRegister(MlirValue value) {
  MlirValue inputs[1];
  if (tilusLookThroughCast(value, inputs, 1) != 1)
    return (MlirValue){NULL};
  return inputs[0];
}

MlirValue tilusEmitThreadIndex(TilusEmitter *e) {
  MlirNamedAttribute dim = tilusNamedAttr(
      e->ctx, "dimension",
      mlirAttributeParseGet(e->ctx,
                            mlirStringRefCreateFromCString("#gpu<dim x>")));
  return tilusEmitValue(e, "gpu.thread_id", 0, NULL, tilusIndexType(e->ctx), 1,
                        &dim);
}

bool tilusEmitThreadCoords(TilusEmitter *e, const TilusLayout *layout,
                           MlirValue tid, MlirValue *coords) {
  TilusLayoutThreadMode modes[32];
  intptr_t n = tilusLayoutGetThreadModes(layout, modes, 32);
  if (n < 0)
    return false;
  intptr_t rank = tilusLayoutGetRank(layout);
  int64_t threads = tilusLayoutGetNumThreads(layout);
  for (intptr_t d = 0; d < rank; ++d)
    coords[d] = tilusEmitIndex(e, 0);
  for (intptr_t k = 0; k < n; ++k) {
    MlirValue digit = tid;
    if (modes[k].divisor > 1)
      digit = tilusEmitArith(e, "divui", digit,
                             tilusEmitIndex(e, modes[k].divisor));
    // The top digit needs no modulo: the thread index is below T.
    if (modes[k].divisor * modes[k].modulus < threads)
      digit = tilusEmitArith(e, "remui", digit,
                             tilusEmitIndex(e, modes[k].modulus));
    digit = tilusEmitMulIndexConst(e, digit, modes[k].stride);
    coords[modes[k].dim] = tilusEmitAddIndex(e, coords[modes[k].dim], digit);
  }
  return true;
}

bool tilusIsMultipleOf(MlirValue value, int64_t k) {
  int64_t c;
  if (k <= 1)
    return true;
  if (tilusGetConstantIndex(value, &c))
    return c % k == 0;
  if (!mlirValueIsAOpResult(value))
    return false;
  MlirOperation def = mlirOpResultGetOwner(value);
  if (tilusOpIs(def, "arith.muli"))
    return tilusIsMultipleOf(mlirOperationGetOperand(def, 0), k) ||
           tilusIsMultipleOf(mlirOperationGetOperand(def, 1), k);
  if (tilusOpIs(def, "arith.addi") || tilusOpIs(def, "arith.subi"))
    return tilusIsMultipleOf(mlirOperationGetOperand(def, 0), k) &&
           tilusIsMultipleOf(mlirOperationGetOperand(def, 1), k);
  return false;
}

void tilusReplaceWithLowered(MlirRewriterBase rewriter, TilusEmitter *e,
                             MlirOperation op, MlirValue lowered) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue cast = tilusEmitCast(e, 1, &lowered, mlirValueGetType(result));
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &cast);
}

MlirLogicalResult tilusLoweringError(MlirOperation op, const char *message) {
  // The greedy driver may try a pattern many times, so the reason is kept on
  // the op and reported once by the pass when the op is still there.
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(TILUS_LOWERING_ERROR_ATTR),
      mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(message)));
  return mlirLogicalResultFailure();
}

static MlirLogicalResult matchAndRewrite(MlirRewritePattern pattern,
                                         MlirOperation op,
                                         MlirPatternRewriter rewriter,
                                         void *userData) {
  const TilusPattern *info = userData;
  MlirRewriterBase base = mlirPatternRewriterAsBase(rewriter);
  mlirRewriterBaseSetInsertionPointBefore(base, op);
  return info->rewrite(op, base);
}

void tilusAddPatterns(MlirRewritePatternSet set, MlirContext ctx,
                      const TilusPattern *patterns, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    MlirRewritePatternCallbacks callbacks = {NULL, NULL, matchAndRewrite};
    MlirRewritePattern pattern = mlirOpRewritePatternCreate(
        mlirStringRefCreateFromCString(patterns[k].opName), 1, ctx, callbacks,
        (void *)&patterns[k], 0, NULL);
    mlirRewritePatternSetAdd(set, pattern);
  }
}

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
    char typeText[64];
    snprintf(typeText, sizeof(typeText), "!llvm.array<%lld x i8>",
             (long long)(dynamic ? 0 : bytes));
    MlirType arrayType =
        mlirTypeParseGet(e->ctx, mlirStringRefCreateFromCString(typeText));
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
      tilusGetIntAttr(func, TILUS_STATIC_SHARED_BYTES_ATTR, &total);
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

bool tilusGetGlobalView(TilusEmitter *e, MlirValue global, TilusGlobalView *view) {
  MlirValue inputs[1 + TILUS_LAYOUT_MAX_RANK];
  intptr_t n = tilusLookThroughCast(global, inputs, 1 + TILUS_LAYOUT_MAX_RANK);
  if (n < 1)
    return false;
  TilusTensorType t;
  if (mlirLogicalResultIsFailure(
          tilusTensorTypeDecode(mlirValueGetType(global), &t, NULL)))
    return false;
  view->ptr = inputs[0];
  view->rank = t.rank;
  view->elementType = t.elementType;
  intptr_t next = 1;
  for (intptr_t d = 0; d < t.rank; ++d) {
    view->staticSizes[d] = t.shape[d];
    if (t.shape[d] == TILUS_DYNAMIC_DIM) {
      if (next >= n) {
        tilusTensorTypeRelease(&t);
        return false;
      }
      view->sizes[d] = inputs[next++];
    } else {
      view->sizes[d] = tilusEmitIndex(e, t.shape[d]);
    }
  }
  tilusTensorTypeRelease(&t);
  return true;
}

