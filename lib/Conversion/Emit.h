//===- Emit.h - Building upstream ops from C --------------------*- C -*-===//
//
// The lowering creates gpu/arith/vector/llvm ops through the generic
// MlirOperationState API. These helpers keep that in one place: every
// pattern builds its ops through an emitter that carries the rewriter (or a
// plain insertion block) and the location of the op being lowered.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_CONVERSION_EMIT_H
#define TILUS_LIB_CONVERSION_EMIT_H

#include "mlir-c/IR.h"
#include "mlir-c/Rewrite.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  MlirContext ctx;
  MlirRewriterBase rewriter;
  MlirLocation loc;
} TilusEmitter;

TilusEmitter tilusEmitterCreate(MlirRewriterBase rewriter, MlirOperation at);

// A named attribute for tilusEmitOp.
MlirNamedAttribute tilusNamedAttr(MlirContext ctx, const char *name,
                                  MlirAttribute value);

// Creates `name` with the given operands, result types and attributes at the
// emitter's insertion point.
MlirOperation tilusEmitOp(TilusEmitter *e, const char *name,
                          intptr_t numOperands, const MlirValue *operands,
                          intptr_t numResults, const MlirType *resultTypes,
                          intptr_t numAttrs, const MlirNamedAttribute *attrs);

// The single result of a one-result op built by tilusEmitOp.
MlirValue tilusEmitValue(TilusEmitter *e, const char *name,
                         intptr_t numOperands, const MlirValue *operands,
                         MlirType resultType, intptr_t numAttrs,
                         const MlirNamedAttribute *attrs);

MlirType tilusIndexType(MlirContext ctx);
MlirValue tilusEmitIndex(TilusEmitter *e, int64_t value);
MlirValue tilusEmitIntConstant(TilusEmitter *e, MlirType type, int64_t value);
MlirValue tilusEmitFloatConstant(TilusEmitter *e, MlirType type, double value);

// `arith.<op>` on two values of one type (result type = operand type).
MlirValue tilusEmitArith(TilusEmitter *e, const char *op, MlirValue lhs,
                         MlirValue rhs);
// index arithmetic that folds constants, so the emitted IR stays small.
MlirValue tilusEmitAddIndex(TilusEmitter *e, MlirValue a, MlirValue b);
MlirValue tilusEmitMulIndexConst(TilusEmitter *e, MlirValue a, int64_t c);
MlirValue tilusEmitAddIndexConst(TilusEmitter *e, MlirValue a, int64_t c);

// Whether `op` is named `name` (e.g. "scf.for").
bool tilusOpIs(MlirOperation op, const char *name);

// The integer attribute `name` of `op` (discardable or inherent) in *out;
// false when there is none.
bool tilusGetIntAttr(MlirOperation op, const char *name, int64_t *out);

// Whether `v` is an index/integer constant; its value in *out.
bool tilusGetConstantIndex(MlirValue v, int64_t *out);

// &base[index] (llvm.getelementptr) for elements of `elementType`; `index`
// is an index value.
MlirValue tilusEmitElementPointer(TilusEmitter *e, MlirValue base,
                                  MlirType elementType, MlirValue index);

// builtin.unrealized_conversion_cast from `inputs` to `resultType`.
MlirValue tilusEmitCast(TilusEmitter *e, intptr_t numInputs,
                        const MlirValue *inputs, MlirType resultType);

// If `v` is produced by an unrealized_conversion_cast, its inputs (at most
// `capacity`); returns their count, or -1.
intptr_t tilusLookThroughCast(MlirValue v, MlirValue *inputs,
                              intptr_t capacity);

// scf.if on `cond` with `numResults` results; the new then/else blocks are
// returned empty (without terminators) for the caller to fill and end with
// scf.yield (tilusEmitYield). `elseBlock` may be NULL for an if with no else
// and no results.
MlirOperation tilusEmitIf(TilusEmitter *e, MlirValue cond, intptr_t numResults,
                          const MlirType *resultTypes, MlirBlock *thenBlock,
                          MlirBlock *elseBlock);
void tilusEmitYield(TilusEmitter *e, intptr_t numValues,
                    const MlirValue *values);

// Moves the emitter's insertion point to the end of `block`.
void tilusEmitterSetToEnd(TilusEmitter *e, MlirBlock block);
void tilusEmitterSetAfter(TilusEmitter *e, MlirOperation op);

// llvm.extractelement / llvm.insertelement at a constant position.
MlirValue tilusEmitExtract(TilusEmitter *e, MlirValue vector, int64_t position);
MlirValue tilusEmitInsert(TilusEmitter *e, MlirValue vector, MlirValue value,
                          int64_t position);

// A vector<n x T> (or T when n is 1) type.
MlirType tilusVectorOrScalarType(MlirType elementType, int64_t n);

// arith.constant of `type` (a vector or scalar) with every element `value`:
// an integer for integer element types, else a float.
MlirValue tilusEmitSplatConstant(TilusEmitter *e, MlirType type, double value);

#endif // TILUS_LIB_CONVERSION_EMIT_H
