//===- ThreadCoords.c - A thread's coordinates in a register layout -------===//
//
// For a layout without swizzle, f(t, i) = f(t, 0) + f(0, i), and f(t, 0) is a
// sum of mixed-radix digits of t (the layout's thread modes): a few divisions
// and remainders by constants per thread.
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdlib.h>

MlirValue tilusEmitThreadIndex(TilusEmitter *e) {
  MlirNamedAttribute dim = tilusNamedAttr(
      e->ctx, "dimension",
      mlirAttributeParseGet(e->ctx,
                            mlirStringRefCreateFromCString("#gpu<dim x>")));
  MlirValue tid = tilusEmitValue(e, "gpu.thread_id", 0, NULL,
                                 tilusIndexType(e->ctx), 1, &dim);
  // In a thread group, thread `first` is the group's thread 0.
  return e->groupCount ? tilusEmitValue(e, "arith.subi", 2,
                                        (MlirValue[]){tid, tilusEmitIndex(
                                                               e, e->groupFirst)},
                                        tilusIndexType(e->ctx), 0, NULL)
                       : tid;
}

bool tilusRegisterLayoutIsSupported(const TilusLayout *layout) {
  for (intptr_t k = 0; k < tilusLayoutGetNumFactors(layout); ++k) {
    TilusLayoutFactor factor;
    tilusLayoutGetFactor(layout, k, &factor);
    if (factor.kind == TilusLayoutFactorSwizzle)
      return false;
  }
  return true;
}

TilusLayoutThreadMode *tilusGetThreadModes(const TilusLayout *layout,
                                           intptr_t *count) {
  // Each factor gives at most one mode per dimension and per replicated
  // dimension between them (2 * rank + 1); a swizzle gives -1 at once.
  intptr_t factors = tilusLayoutGetNumFactors(layout);
  intptr_t capacity = factors * (2 * tilusLayoutGetRank(layout) + 1) + 1;
  TilusLayoutThreadMode *modes = malloc(sizeof(*modes) * (size_t)capacity);
  *count = -1;
  if (!modes)
    return NULL;
  *count = tilusLayoutGetThreadModes(layout, modes, capacity);
  if (*count < 0) {
    free(modes);
    return NULL;
  }
  return modes;
}

bool tilusEmitThreadCoords(TilusEmitter *e, const TilusLayout *layout,
                           MlirValue tid, MlirValue *coords) {
  intptr_t n;
  TilusLayoutThreadMode *modes = tilusGetThreadModes(layout, &n);
  if (!modes)
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
  free(modes);
  return true;
}

MlirOperation tilusEmitBeginLeader(TilusEmitter *e) {
  MlirValue isLeader = tilusEmitCmp(e, TilusCmpEQ, tilusEmitThreadIndex(e),
                                    tilusEmitIndex(e, 0));
  MlirBlock thenBlock;
  MlirOperation ifOp = tilusEmitIf(e, isLeader, 0, NULL, &thenBlock, NULL);
  tilusEmitterSetToEnd(e, thenBlock);
  return ifOp;
}

void tilusEmitEndLeader(TilusEmitter *e, MlirOperation ifOp) {
  tilusEmitYield(e, 0, NULL);
  tilusEmitterSetAfter(e, ifOp);
}
