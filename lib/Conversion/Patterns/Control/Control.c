//===- Control.c - Synchronize, Exit, Print, thread groups, registers -----===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Kernel.h"

#include <stdio.h>
#include <string.h>

static MlirLogicalResult lowerSynchronize(TilusLowering *L, MlirOperation op,
                                          MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  // Shared writes before the barrier may be read by wgmma after it: each
  // thread orders its own writes before the async proxy's reads, and the
  // barrier orders every thread's.
  if (L->asyncProxyReadsShared)
    tilusEmitVolatileAsm(&e, "fence.proxy.async.shared::cta;", "~{memory}", 0,
                         NULL, (MlirType){NULL});
  tilusEmitBarrier(&e);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

// InThreadGroup: whether the thread is one of the group's (first <= tid <
// first + count); the scf.if it guards is marked as the group's
// (TILUS_THREAD_GROUP_ATTR), which the lowering of the ops inside reads
// (group-relative thread index, the group's own barrier).
static MlirLogicalResult lowerInThreadGroup(TilusLowering *L, MlirOperation op,
                                            MlirRewriterBase rewriter) {
  int64_t first, count;
  if (!tilusOpGetIntAttr(op, "first", &first) ||
      !tilusOpGetIntAttr(op, "count", &count))
    return tilusLoweringError(op, "no first or count (run tilus-verify)");
  MlirValue member = mlirOperationGetResult(op, 0);
  int64_t bounds[2] = {first, count};
  for (MlirOpOperand use = mlirValueGetFirstUse(member);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
    mlirOperationSetDiscardableAttributeByName(
        mlirOpOperandGetOwner(use),
        mlirStringRefCreateFromCString(TILUS_THREAD_GROUP_ATTR),
        mlirDenseI64ArrayGet(mlirOperationGetContext(op), 2, bounds));
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue tid = tilusEmitThreadIndex(&e);
  MlirValue in = tilusEmitArith(
      &e, "andi", tilusEmitCmp(&e, TilusCmpUGE, tid, tilusEmitIndex(&e, first)),
      tilusEmitCmp(&e, TilusCmpULT, tid, tilusEmitIndex(&e, first + count)));
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &in);
  return mlirLogicalResultSuccess();
}

// SetMaxRegisters: nvvm.setmaxregister, whose intrinsic is convergent (the
// instruction is .sync.aligned: a warpgroup's warps execute it together).
static MlirLogicalResult lowerSetMaxRegisters(TilusLowering *L,
                                              MlirOperation op,
                                              MlirRewriterBase rewriter) {
  if (!L->target->hasSetmaxnreg)
    return tilusLoweringNeedsTarget(
        L, op, "set_max_registers (setmaxnreg) needs the sm_90a target");
  int64_t count;
  MlirAttribute action = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("action"));
  if (!tilusOpGetIntAttr(op, "count", &count) ||
      !mlirAttributeIsAString(action))
    return tilusLoweringError(op, "no count or action (run tilus-verify)");
  MlirStringRef a = mlirStringAttrGetValue(action);
  bool increase = a.length == 3 && !memcmp(a.data, "inc", 3);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirNamedAttribute attrs[2] = {
      tilusNamedAttr(e.ctx, "regCount",
                     mlirIntegerAttrGet(mlirIntegerTypeGet(e.ctx, 32), count)),
      tilusNamedAttr(e.ctx, "action",
                     mlirAttributeParseGet(
                         e.ctx, mlirStringRefCreateFromCString(
                                    increase ? "#nvvm<action increase>"
                                             : "#nvvm<action decrease>")))};
  tilusEmitOp(&e, "nvvm.setmaxregister", 0, NULL, 0, NULL, 2, attrs);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

// Exit ends every thread of the block (PTX `exit`).
static MlirLogicalResult lowerExit(TilusLowering *L, MlirOperation op, MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  tilusEmitOp(&e, "nvvm.exit", 0, NULL, 0, NULL, 0, NULL);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

// A scalar as a printf argument: integers widened to i32 (or i64), floats
// to f32 (the printf lowering passes them on as double). `conversion` gets
// the matching %-spec.
static MlirValue printfArgument(TilusEmitter *e, MlirValue value,
                                bool isUnsigned, const char **conversion) {
  MlirType type = mlirValueGetType(value);
  if (mlirTypeIsAFloat(type)) {
    *conversion = "%g";
    MlirType f32 = mlirF32TypeGet(e->ctx);
    if (mlirTypeIsAF32(type) || mlirTypeIsAF64(type))
      return value;
    return tilusEmitValue(e, "arith.extf", 1, &value, f32, 0, NULL);
  }
  if (mlirTypeIsAIndex(type)) {
    *conversion = "%lld";
    return tilusEmitValue(e, "arith.index_cast", 1, &value,
                          mlirIntegerTypeGet(e->ctx, 64), 0, NULL);
  }
  unsigned width = mlirIntegerTypeGetWidth(type);
  if (width == 64) {
    *conversion = isUnsigned ? "%llu" : "%lld";
    return value;
  }
  *conversion = isUnsigned ? "%u" : "%d";
  if (width == 32)
    return value;
  return tilusEmitValue(e, isUnsigned || width == 1 ? "arith.extui" : "arith.extsi",
                        1, &value, mlirIntegerTypeGet(e->ctx, 32), 0, NULL);
}

static void emitPrintf(TilusEmitter *e, const char *format, intptr_t numArgs,
                       const MlirValue *args) {
  MlirNamedAttribute attr = tilusNamedAttr(
      e->ctx, "format",
      mlirStringAttrGet(e->ctx, mlirStringRefCreateFromCString(format)));
  tilusEmitOp(e, "gpu.printf", numArgs, args, 0, NULL, 1, &attr);
}

// Print of a register tensor: every thread prints each element it holds as
//   [i0, i1, ...] = value (thread t)
// one line per element; lines of different threads may interleave in any
// order. Print of a scalar prints its value once per thread.
static MlirLogicalResult lowerPrint(TilusLowering *L, MlirOperation op, MlirRewriterBase rewriter) {
  MlirValue operand = tilusOpGetGroupOperand(op, TilusPrintX, 0);
  MlirType type = mlirValueGetType(operand);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  if (!tilusTypeIsATensor(type)) {
    const char *conversion;
    MlirValue arg = printfArgument(&e, operand, tilusElementIsUnsigned(type),
                                   &conversion);
    char format[32];
    snprintf(format, sizeof(format), "%s\n", conversion);
    emitPrintf(&e, format, 1, &arg);
    mlirRewriterBaseEraseOp(rewriter, op);
    return mlirLogicalResultSuccess();
  }
  if (!tilusTypeIsARegister(type))
    return tilusLoweringError(op, "printing shared or global tensors is not "
                                  "lowered yet; load them into registers");
  MlirValue value = tilusLoweredRegister(operand);
  if (mlirValueIsNull(value))
    return mlirLogicalResultFailure();
  TilusTensorType t;
  if (mlirLogicalResultIsFailure(tilusLoweringDecode(L, type, &t)))
    return mlirLogicalResultFailure();
  if (!tilusRegisterLayoutIsSupported(t.layout))
    return tilusLoweringError(op, "register layouts with a swizzle are not "
                                  "supported");
  MlirValue tid = tilusEmitThreadIndex(&e);
  MlirValue coords[TILUS_LAYOUT_MAX_RANK];
  tilusEmitThreadCoords(&e, t.layout, tid, coords);
  int64_t m = tilusLayoutGetLocalSize(t.layout);
  bool isUnsigned = tilusElementIsUnsigned(t.elementType);
  value = tilusEmitWidenSubByte(&e, value, isUnsigned);
  for (int64_t i = 0; i < m; ++i) {
    int64_t local[TILUS_LAYOUT_MAX_RANK];
    tilusLayoutEvaluate(t.layout, 0, i, local);
    MlirValue args[TILUS_LAYOUT_MAX_RANK + 2];
    char format[256] = "[";
    for (intptr_t d = 0; d < t.rank; ++d) {
      MlirValue index = tilusEmitAddIndexConst(&e, coords[d], local[d]);
      const char *conversion;
      args[d] = printfArgument(&e, index, false, &conversion);
      strcat(format, d ? ", %lld" : "%lld");
    }
    const char *conversion;
    args[t.rank] = printfArgument(&e, tilusEmitExtract(&e, value, i),
                                  isUnsigned, &conversion);
    const char *threadConversion;
    args[t.rank + 1] = printfArgument(&e, tid, false, &threadConversion);
    strcat(format, "] = ");
    strcat(format, conversion);
    strcat(format, " (thread %lld)\n");
    emitPrintf(&e, format, t.rank + 2, args);
  }
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.print", lowerPrint},
    {"tilus.synchronize", lowerSynchronize},
    {"tilus.exit", lowerExit},
    {"tilus.in_thread_group", lowerInThreadGroup},
    {"tilus.set_max_registers", lowerSetMaxRegisters},
};

const TilusPattern *tilusGetControlPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
