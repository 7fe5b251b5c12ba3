//===- Atomics.c - Atomic memory operations from C ------------------------===//
//
// llvm.atomicrmw, llvm.cmpxchg and atomic loads and stores through the
// generic op builder, and the packed 16-bit float add LLVM has no native
// lowering for. The LLVM dialect keeps the operation and the ordering as
// integer enums with LLVM's numbering (AtomicRMWInst::BinOp,
// AtomicOrdering); syncscope "device" is NVPTX's .gpu scope.
//
//===----------------------------------------------------------------------===//

#include "Support/Support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

static MlirAttribute i64Attr(MlirContext ctx, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value);
}

static MlirNamedAttribute deviceScope(MlirContext ctx) {
  return tilusNamedAttr(
      ctx, "syncscope",
      mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("device")));
}

MlirValue tilusEmitAtomicRMW(TilusEmitter *e, TilusAtomicBinOp binOp,
                             MlirValue ptr, MlirValue value,
                             TilusAtomicOrdering ordering) {
  MlirNamedAttribute attrs[3] = {
      tilusNamedAttr(e->ctx, "bin_op", i64Attr(e->ctx, binOp)),
      tilusNamedAttr(e->ctx, "ordering", i64Attr(e->ctx, ordering)),
      deviceScope(e->ctx)};
  MlirValue operands[2] = {ptr, value};
  return tilusEmitValue(e, "llvm.atomicrmw", 2, operands,
                        mlirValueGetType(value), 3, attrs);
}

MlirValue tilusEmitAtomicCAS(TilusEmitter *e, MlirValue ptr, MlirValue compare,
                             MlirValue value) {
  MlirType type = mlirValueGetType(value);
  MlirType fields[2] = {type, mlirIntegerTypeGet(e->ctx, 1)};
  MlirNamedAttribute attrs[3] = {
      tilusNamedAttr(e->ctx, "success_ordering",
                     i64Attr(e->ctx, TilusAtomicOrderingMonotonic)),
      tilusNamedAttr(e->ctx, "failure_ordering",
                     i64Attr(e->ctx, TilusAtomicOrderingMonotonic)),
      deviceScope(e->ctx)};
  MlirValue operands[3] = {ptr, compare, value};
  MlirValue pair =
      tilusEmitValue(e, "llvm.cmpxchg", 3, operands,
                     tilusLLVMStructType(e->ctx, 2, fields), 3, attrs);
  int64_t zero = 0;
  MlirNamedAttribute position = tilusNamedAttr(
      e->ctx, "position", mlirDenseI64ArrayGet(e->ctx, 1, &zero));
  return tilusEmitValue(e, "llvm.extractvalue", 1, &pair, type, 1, &position);
}

void tilusEmitFence(TilusEmitter *e, TilusAtomicOrdering ordering) {
  MlirNamedAttribute attrs[2] = {
      tilusNamedAttr(e->ctx, "ordering", i64Attr(e->ctx, ordering)),
      deviceScope(e->ctx)};
  tilusEmitOp(e, "llvm.fence", 0, NULL, 0, NULL, 2, attrs);
}

static MlirNamedAttribute alignment(MlirContext ctx, int64_t bytes) {
  return tilusNamedAttr(ctx, "alignment", i64Attr(ctx, bytes));
}

MlirValue tilusEmitAtomicLoad(TilusEmitter *e, MlirValue ptr, MlirType type,
                              TilusAtomicOrdering ordering, int64_t bytes) {
  MlirNamedAttribute attrs[3] = {
      tilusNamedAttr(e->ctx, "ordering", i64Attr(e->ctx, ordering)),
      deviceScope(e->ctx), alignment(e->ctx, bytes)};
  return tilusEmitValue(e, "llvm.load", 1, &ptr, type, 3, attrs);
}

void tilusEmitAtomicStore(TilusEmitter *e, MlirValue value, MlirValue ptr,
                          TilusAtomicOrdering ordering, int64_t bytes) {
  MlirNamedAttribute attrs[3] = {
      tilusNamedAttr(e->ctx, "ordering", i64Attr(e->ctx, ordering)),
      deviceScope(e->ctx), alignment(e->ctx, bytes)};
  MlirValue operands[2] = {value, ptr};
  tilusEmitOp(e, "llvm.store", 2, operands, 0, NULL, 3, attrs);
}

// LLVM expands atomicrmw fadd of <2 x half> into a compare-and-swap loop
// (LLVM 22's NVPTX back end), so the packed add is the PTX instruction
// itself; `red` since the old value is not needed. The memory clobber keeps
// LLVM from moving other memory accesses across it.
void tilusEmitPackedHalfAtomicAdd(TilusEmitter *e, MlirValue ptr,
                                  MlirValue pair, bool bf16) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirValue word = tilusEmitValue(e, "llvm.bitcast", 1, &pair, i32, 0, NULL);
  const char *text = bf16 ? "red.relaxed.gpu.global.add.noftz.bf16x2 [$0], $1;"
                          : "red.relaxed.gpu.global.add.noftz.f16x2 [$0], $1;";
  MlirValue operands[2] = {ptr, word};
  tilusEmitInlineAsm(e, text, "l,r,~{memory}", 2, operands, (MlirType){NULL});
}
