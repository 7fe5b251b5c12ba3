//===- Patterns.h - The op patterns of tilus-to-gpu -------------*- C -*-===//
//
// One folder per area: Memory/ (global and shared tensors, cp.async,
// ldmatrix/stmatrix, compact sub-byte elements, atomics and semaphores,
// mbarriers, tensor-memory copies),
// Compute/ (elementwise ops, casts, views), Dot/ (one file per instruction
// family: the SIMT fallback, mma.sync, wgmma), Movement/ (Reduce, ConvertLayout,
// Permute, Reshape), Control/ (block indices, synchronization, exit, print,
// and the scf ops that carry register tensors). Each area exports its table
// of patterns; the functions below are what one area's patterns use of
// another's.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_CONVERSION_PATTERNS_PATTERNS_H
#define TILUS_LIB_CONVERSION_PATTERNS_PATTERNS_H

#include "Lowering.h"

// The pattern table of each area (*count entries, constant).
const TilusPattern *tilusGetIndexingPatterns(size_t *count);
const TilusPattern *tilusGetGlobalMemoryPatterns(size_t *count);
const TilusPattern *tilusGetSharedMemoryPatterns(size_t *count);
const TilusPattern *tilusGetRegisterPatterns(size_t *count);
const TilusPattern *tilusGetElementwisePatterns(size_t *count);
const TilusPattern *tilusGetControlPatterns(size_t *count);
const TilusPattern *tilusGetClusterPatterns(size_t *count);
const TilusPattern *tilusGetDotPatterns(size_t *count);
const TilusPattern *tilusGetWgmmaPatterns(size_t *count);
const TilusPattern *tilusGetAtomicPatterns(size_t *count);
const TilusPattern *tilusGetTmaPatterns(size_t *count);
// Reduce and the layout changes (Movement/).
const TilusPattern *tilusGetReducePatterns(size_t *count);
const TilusPattern *tilusGetRelayoutPatterns(size_t *count);

// Rebuilds every scf.for/if/while under `root` that carries register
// tensors with the lowered types (Control/ControlFlow.c).
MlirLogicalResult tilusConvertControlFlowTypes(MlirOperation root);

// Casts of !tilus.float<e, m> vectors (stored as integers of their width)
// to and from vector<n x f32> (Compute/FloatCast.c).
MlirValue tilusEmitFloatDecode(TilusEmitter *e, MlirType format,
                               MlirValue value);
MlirValue tilusEmitFloatEncode(TilusEmitter *e, MlirType format,
                               MlirValue value);

// The unit attribute on the exact bias addition of FastCast's 1/2/4-bit path,
// which an mma Dot may move into its accumulator (MmaDot.c).
#define TILUS_CAST_BIAS_ATTR "tilus.cast_bias"
// The unit attribute on the power-of-two rescale of FastCast's f16 float
// pairs, which an mma Dot may apply to its f32 results instead (MmaDot.c).
#define TILUS_CAST_SCALE_ATTR "tilus.cast_scale"

// The fast Cast from uiN/siN (N <= 8) or !tilus.float to f16, bf16 or f32:
// `x` is the source vector, `resultType` the result vector type. Null when
// no fast path applies; the generic path then converts.
MlirValue tilusEmitFastCast(TilusEmitter *e, MlirValue x, MlirType from,
                            MlirType to, MlirType resultType);

// Element `linear` of a compact tensor of `bits`-bit elements at `base` (a
// pointer of any address space): loaded as an i<bits> (Memory/SubByte.c),
// or `value` (an integer holding the bits) stored with atomic AND/OR on the
// 32-bit words that hold it.
MlirValue tilusEmitSubByteLoad(TilusEmitter *e, MlirValue base, int64_t bits,
                               MlirValue linear);
void tilusEmitSubByteStore(TilusEmitter *e, MlirValue base, int64_t bits,
                           MlirValue linear, MlirValue value);

// LoadShared through ldmatrix when the register layout is made of 8x8
// matrix fragments (Memory/MatrixAccess.c); null, with nothing emitted, when
// it is not (or not provably).
MlirValue tilusEmitMatrixLoad(TilusEmitter *e, MlirOperation op,
                              MlirValue shared, MlirType resultType);
// StoreShared of `value` through stmatrix, when the lowering's target has it
// and the layout is made of the same fragments; false, with nothing emitted,
// otherwise.
bool tilusEmitMatrixStore(TilusEmitter *e, MlirOperation op, MlirValue shared,
                          MlirValue value);

// Dot (t: the a, b, c tensor types; va, vb, vc their lowered vectors) on
// tensor cores when the layouts are made of mma.sync fragments
// (Dot/MmaDot.c); false, with nothing emitted, when they are not, and then
// (when `why` is not NULL) the reason in `why` (`whySize` bytes, truncated).
bool tilusEmitMmaDot(TilusEmitter *e, MlirOperation op,
                     const TilusTensorType *t, MlirValue va, MlirValue vb,
                     MlirValue vc, MlirValue *result, char *why,
                     size_t whySize);

#endif // TILUS_LIB_CONVERSION_PATTERNS_PATTERNS_H
