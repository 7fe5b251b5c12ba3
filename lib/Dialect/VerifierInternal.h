//===- VerifierInternal.h - Shared pieces of the verifier -------*- C -*-===//

#ifndef TILUS_LIB_DIALECT_VERIFIERINTERNAL_H
#define TILUS_LIB_DIALECT_VERIFIERINTERNAL_H

#include "mlir-c/IR.h"
#include "tilus-c/Types.h"

#include <stdbool.h>

// The state of one verification run.
typedef struct {
  int numErrors;
  TilusTypeCache *types; // each tensor type decoded once per run
} TilusVerifier;

// Decodes a tensor type through the run's cache into *out, which owns a copy
// of the layout (release it with tilusTensorTypeRelease); false, with the
// reason in `err` if given, when the type does not decode.
bool tilusVerifierDecode(TilusVerifier *v, MlirType type, TilusTensorType *out,
                         TilusLayoutError *err);

// Emits "'<op name>' op <message>" as an error at `op`'s location.
void tilusVerifierError(TilusVerifier *v, MlirOperation op, const char *format,
                        ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

// Checks a value's type where it is defined (`op` gives the location;
// `blockSize` is the enclosing kernel's, or 0 outside a kernel).
void tilusVerifyValueType(TilusVerifier *v, MlirOperation op, MlirType type,
                          int64_t blockSize);

// Checks one tilus.* op's own rules (`blockSize` as above).
void tilusVerifyOp(TilusVerifier *v, MlirOperation op, int64_t blockSize);

// Checks the offsets (operand group `offsetsGroup`) of a tile of rank
// `tileRank` and shape `tileShape` in `memory` (VerifyOps.c); false after
// reporting the first problem. A scalar access is a tile of rank 0.
bool tilusVerifierCheckTileAccess(TilusVerifier *v, MlirOperation op,
                                  const TilusTensorType *memory,
                                  const char *memoryRole, intptr_t tileRank,
                                  const int64_t *tileShape,
                                  intptr_t offsetsGroup);

// Checks an atomic op, its structure first, as tilusVerifyOp does for the
// others (VerifyAtomics.c); false when `op` is not one.
bool tilusVerifyAtomicOp(TilusVerifier *v, MlirOperation op);

// Checks a warpgroup MMA op (VerifyWgmma.c) in a block of `blockSize`
// threads (0: unknown); false when `op` is not one.
bool tilusVerifyWgmmaOp(TilusVerifier *v, MlirOperation op, int64_t blockSize);

// Checks an mbarrier op, its structure first (VerifyMbarrier.c); false when
// `op` is not one.
bool tilusVerifyMbarrierOp(TilusVerifier *v, MlirOperation op);

// Checks a tensor-memory copy, its structure first (VerifyTma.c); false when
// `op` is not one.
bool tilusVerifyTmaOp(TilusVerifier *v, MlirOperation op);

// Elementwise ops (VerifyElementwise.c). tilusVerifyBroadcastOp checks a
// binary op, cmp, where or clamp (operands, broadcast shapes, the result) and
// returns true, or returns false at once for other ops.
bool tilusVerifyBroadcastOp(TilusVerifier *v, MlirOperation op);
// Whether `op` is a unary math op (abs, exp, ..., not), and whether its
// element type fits it (an error otherwise) and its out operand its result.
bool tilusIsUnaryMathOp(MlirOperation op);
bool tilusVerifyUnaryMathElements(TilusVerifier *v, MlirOperation op);

// Checks tilus.reduce, convert_layout, permute and reshape
// (VerifyDataMovement.c).
void tilusVerifyDataMovementOp(TilusVerifier *v, MlirOperation op);

// Checks a func.func marked tilus.kernel.
void tilusVerifyKernel(TilusVerifier *v, MlirOperation kernel);

// Writes "[d0, d1, ...]" into `buffer`.
void tilusFormatShape(char *buffer, size_t size, intptr_t rank,
                      const int64_t *shape);

#endif // TILUS_LIB_DIALECT_VERIFIERINTERNAL_H
