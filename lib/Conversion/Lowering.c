//===- Lowering.c - The state of one tilus-to-gpu run ---------------------===//

#include "Lowering.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tilusLoweringInit(TilusLowering *L, const TilusTargetInfo *target) {
  memset(L, 0, sizeof(*L));
  L->target = target;
  L->types = tilusTypeCacheCreate();
  return L->types != NULL;
}

void tilusLoweringRelease(TilusLowering *L) {
  tilusTypeCacheDestroy(L->types);
  tilusPtrMapRelease(&L->multiples);
  tilusFragmentCacheRelease(&L->fragments);
}

bool tilusLoweringRemarksOn(const TilusLowering *L) {
  return L->onRemark != NULL;
}

void tilusLoweringRemark(TilusLowering *L, MlirOperation op, const char *format,
                         ...) {
  if (!L->onRemark)
    return;
  // Measured first, then formatted into exactly that much.
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int length = vsnprintf(NULL, 0, format, args);
  va_end(args);
  char *text = length >= 0 ? malloc((size_t)length + 1) : NULL;
  if (text) {
    vsnprintf(text, (size_t)length + 1, format, again);
    L->onRemark(mlirOperationGetLocation(op),
                mlirStringRefCreate(text, (size_t)length), L->remarkUserData);
  }
  va_end(again);
  free(text);
}

const TilusTensorType *tilusLoweringTensorType(TilusLowering *L, MlirType type) {
  return tilusTypeCacheGetTensor(L->types, type, NULL);
}

MlirLogicalResult tilusLoweringDecode(TilusLowering *L, MlirType type,
                                      TilusTensorType *out) {
  const TilusTensorType *t = tilusLoweringTensorType(L, type);
  if (!t)
    return mlirLogicalResultFailure();
  *out = *t;
  return mlirLogicalResultSuccess();
}

bool tilusLoweringIsMultipleOf(TilusLowering *L, MlirValue value, int64_t k) {
  return tilusIsMultipleOf(&L->multiples, value, k);
}

const TilusFragments *tilusLoweringFragments(TilusLowering *L,
                                             const TilusLayout *layout,
                                             const TilusLayoutFragment *pattern) {
  return tilusFragmentCacheFind(&L->fragments, layout, pattern);
}

intptr_t tilusLoweredValues(MlirValue value, MlirValue *out,
                            intptr_t capacity) {
  return tilusLookThroughCast(value, out, capacity);
}

MlirValue tilusLoweredRegister(MlirValue value) {
  MlirValue inputs[1];
  if (tilusLoweredValues(value, inputs, 1) != 1)
    return (MlirValue){NULL};
  return inputs[0];
}

intptr_t tilusOperandGroupStart(MlirOperation op, intptr_t group) {
  intptr_t start = 0, count = 0;
  // The verifier has checked the groups; a malformed op reads as empty.
  if (!tilusOpGetOperandGroup(op, group, &start, &count))
    return mlirOperationGetNumOperands(op);
  return start;
}

void tilusReplaceWithLowered(MlirRewriterBase rewriter, TilusEmitter *e,
                             MlirOperation op, MlirValue lowered) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue cast = tilusEmitCast(e, 1, &lowered, mlirValueGetType(result));
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &cast);
}

MlirLogicalResult tilusLoweringError(MlirOperation op, const char *message) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  size_t size = strlen(message) + name.length + 64;
  char *text = malloc(size);
  if (text) {
    snprintf(text, size, "'%.*s' op cannot be lowered: %s", (int)name.length,
             name.data, message);
    mlirEmitError(mlirOperationGetLocation(op), text);
    free(text);
  } else {
    mlirEmitError(mlirOperationGetLocation(op), message);
  }
  return mlirLogicalResultFailure();
}

MlirLogicalResult tilusLoweringNeedsTarget(const TilusLowering *L,
                                           MlirOperation op,
                                           const char *requirement) {
  char message[256];
  snprintf(message, sizeof message, "%s; this lowering is for %s",
           requirement, L->target->name);
  return tilusLoweringError(op, message);
}

bool tilusGetGlobalView(TilusEmitter *e, MlirValue global,
                        TilusGlobalView *view) {
  MlirValue inputs[1 + TILUS_LAYOUT_MAX_RANK];
  intptr_t n = tilusLoweredValues(global, inputs, 1 + TILUS_LAYOUT_MAX_RANK);
  if (n < 1)
    return false;
  const TilusTensorType *t =
      tilusLoweringTensorType(e->lowering, mlirValueGetType(global));
  if (!t)
    return false;
  // Check before emitting: a run-time size for every dynamic dimension.
  intptr_t dynamic = 0;
  for (intptr_t d = 0; d < t->rank; ++d)
    dynamic += t->shape[d] == TILUS_DYNAMIC_DIM;
  if (1 + dynamic > n)
    return false;
  view->ptr = inputs[0];
  view->rank = t->rank;
  view->elementType = t->elementType;
  intptr_t next = 1;
  for (intptr_t d = 0; d < t->rank; ++d) {
    view->staticSizes[d] = t->shape[d];
    view->sizes[d] = t->shape[d] == TILUS_DYNAMIC_DIM
                         ? inputs[next++]
                         : tilusEmitIndex(e, t->shape[d]);
  }
  return true;
}
