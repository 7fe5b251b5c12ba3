//===- MmaDot.c - Dot on tensor cores (mma.sync) --------------------------===//
//
// d = a x b + c with mma.sync when the operand layouts are made of the
// instruction's fragments (Fragments.c):
//
//   f16 x f16 -> f32, f16 x f16 -> f16 and bf16 x bf16 -> f32: m16n8k16
//     a (16x16): lane l holds rows l/4 (+8), columns 2(l%4), +1 (+8)
//     b (16x8):  rows 2(l%4), +1 (+8), column l/4
//     c (16x8):  rows l/4 (+8), columns 2(l%4), +1 (an f16 accumulator
//                holds the same elements, as two f16 pairs)
//   s8 x s8 -> s32: m16n8k32, four consecutive k per register
//
// For every 16x8 tile of c a warp holds, and every k step, the a and b
// tiles it needs must sit in the same warp's registers, in the same slots in
// every warp; then each (tile, k step) is one mma.sync. Otherwise Dot.c's
// SIMT path runs.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"
#include "tilus-c/Kernel.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// The operand fragments of mma.sync (tilusFragmentA16 and friends,
// Analysis.h): each lane of a warp holds a fixed pattern around a base.
typedef struct {
  const char *ptxType; // mma_type
  int aCount, bCount, perRegister, k;
  const TilusLayoutFragment *a, *b;
  bool integer;
  bool halfAccumulator; // c and d are f16 pairs (f16.f16.f16.f16)
} MmaShape;

// clang-format off
static const MmaShape kHalf = {"f16", 8, 4, 2, 16, &tilusFragmentA16, &tilusFragmentB16, false, false};
static const MmaShape kHalfAcc = {"f16", 8, 4, 2, 16, &tilusFragmentA16, &tilusFragmentB16, false, true};
static const MmaShape kBf16 = {"bf16", 8, 4, 2, 16, &tilusFragmentA16, &tilusFragmentB16, false, false};
static const MmaShape kS8 = {"s8", 16, 8, 4, 32, &tilusFragmentA8, &tilusFragmentB8, true, false};
// clang-format on

// The four A registers of fragment group `group` of `va` into regs[0..3].
static void aRegisters(TilusEmitter *e, MlirValue va, const TilusFragments *fa,
                       int64_t group, const MmaShape *shape, bool asI32,
                       MlirValue *regs) {
  for (int r = 0; r < 4; ++r)
    regs[r] = tilusEmitPackRegister(
        e, va, &fa->slots[group * shape->aCount + r * shape->perRegister],
        shape->perRegister, asI32);
}

// How one nvvm.mma.sync of a Dot is emitted: its accumulator registers
// (an f16 accumulator is two registers of f16 pairs, others four of one
// element each), result struct and attributes.
typedef struct {
  bool halfAcc;
  int numAccRegs;
  MlirType pairType, structType, fields[4];
  int numAttrs;
  MlirNamedAttribute attrs[7];
} MmaOp;

// One mma step: operands[0..5] hold A's and B's registers; the accumulator
// c[0..3] goes in and comes out updated.
static void emitMmaStep(TilusEmitter *e, const MmaOp *m, MlirValue operands[10],
                        MlirValue c[4]) {
  if (m->halfAcc) {
    for (int r = 0; r < 2; ++r) {
      MlirValue pair = tilusEmitSplatConstant(e, m->pairType, 0);
      pair = tilusEmitInsert(e, pair, c[2 * r], 0);
      operands[6 + r] = tilusEmitInsert(e, pair, c[2 * r + 1], 1);
    }
  } else {
    for (int j = 0; j < 4; ++j)
      operands[6 + j] = c[j];
  }
  MlirValue d = tilusEmitValue(e, "nvvm.mma.sync", 6 + m->numAccRegs, operands,
                               m->structType, m->numAttrs, m->attrs);
  for (int64_t r = 0; r < m->numAccRegs; ++r) {
    MlirNamedAttribute position = tilusNamedAttr(
        e->ctx, "position", mlirDenseI64ArrayGet(e->ctx, 1, &r));
    MlirValue field = tilusEmitValue(e, "llvm.extractvalue", 1, &d, m->fields[r], 1,
                                     &position);
    if (!m->halfAcc) {
      c[r] = field;
      continue;
    }
    c[2 * r] = tilusEmitExtract(e, field, 0);
    c[2 * r + 1] = tilusEmitExtract(e, field, 1);
  }
}

// The text of a type, for reasons.
static void typeText(MlirType type, char *buffer, size_t size) {
  TilusStringBuffer text = {0};
  mlirTypePrint(type, tilusTextAppend, &text);
  snprintf(buffer, size, "%s", text.data && !text.failed ? text.data : "?");
  tilusStringBufferRelease(&text);
}

// Which operand's layout misses its fragments, for the reason.
static void sayNoFragments(char *why, size_t size, const char *operand,
                           const char *role, const MmaShape *shape) {
  snprintf(why, size,
           "the layout of %s is not made of the %s fragments of mma.sync "
           "m16n8k%d (%s)",
           operand, role, shape->k, shape->ptxType);
}

// One step through a vector.shuffle of `v` with itself (no poison slots):
// its input, with perm[i] (slot i's source) composed through the mask; `v`
// itself, perm untouched, for anything else.
static MlirValue throughShuffle(MlirValue v, int64_t m, int64_t *perm) {
  if (!mlirValueIsAOpResult(v) || !tilusOpIs(mlirOpResultGetOwner(v), "vector.shuffle"))
    return v;
  MlirOperation sh = mlirOpResultGetOwner(v);
  MlirValue in = mlirOperationGetOperand(sh, 0);
  MlirAttribute mask = mlirOperationGetAttributeByName(
      sh, mlirStringRefCreateFromCString("mask"));
  if (!mlirValueEqual(in, mlirOperationGetOperand(sh, 1)) ||
      mlirShapedTypeGetDimSize(mlirValueGetType(in), 0) != m ||
      mlirAttributeIsNull(mask) || mlirDenseArrayGetNumElements(mask) != m)
    return v;
  for (int64_t i = 0; i < m; ++i)
    if (mlirDenseI64ArrayGetElement(mask, i) < 0)
      return v;
  for (int64_t i = 0; i < m; ++i)
    perm[i] = mlirDenseI64ArrayGetElement(mask, perm[i]) % m;
  return in;
}

// `x` (m slots) with slot i taken from x's slot perm[i]: the B a peel leaves.
static MlirValue permuted(TilusEmitter *e, MlirValue x, int64_t m, const int64_t *perm) {
  MlirValue pair[2] = {x, x};
  MlirNamedAttribute mask = tilusNamedAttr(e->ctx, "mask", mlirDenseI64ArrayGet(e->ctx, m, perm));
  return tilusEmitValue(e, "vector.shuffle", 2, pair, mlirValueGetType(x), 1, &mask);
}

// Whether `op` adds (or subtracts) integer constants to an f16 vector; if so
// slot i's constant (under `perm`) joins extra[i] and its magnitude spread[i].
// The tagged casts' values are integers of magnitude below 2^4 (1, 2 and 4
// bits), so while the magnitudes along the chain sum to at most 1024, every
// partial sum, in whatever order it is rounded, is an integer below 2^11,
// exact in f16: moving the constants into the bias changes nothing.
static bool integerOffset(MlirOperation op, int64_t m, const int64_t *perm,
                          double *extra, double *spread) {
  bool sub = tilusOpIs(op, "arith.subf");
  if (!(sub || tilusOpIs(op, "arith.addf")) ||
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          op, mlirStringRefCreateFromCString(TILUS_CAST_BIAS_ATTR))) ||
      !mlirTypeIsAF16(mlirShapedTypeGetElementType(
          mlirValueGetType(mlirOperationGetResult(op, 0)))))
    return false;
  MlirValue c = mlirOperationGetOperand(op, 1);
  double *add = malloc(sizeof(double) * (size_t)m);
  bool ok = true;
  for (int64_t i = 0; ok && i < m; ++i) {
    double v = 0;
    ok = tilusConstantElement(c, (uint64_t)perm[i], &v) && v == floor(v) &&
         spread[i] + fabs(v) <= 1024;
    add[i] = sub ? -v : v;
  }
  for (int64_t i = 0; ok && i < m; ++i)
    extra[i] += add[i], spread[i] += fabs(add[i]);
  free(add);
  return ok;
}

// The bias a fast cast adds (FastCast.c: magic-number halves plus a
// constant, exactly) moved out of B: when `vb` is the cast's tagged
// arith.addf(X, C) (TILUS_CAST_BIAS_ATTR), C a constant,
// seen through slot permutations (vector.shuffle of one vector), *x becomes
// X under the same permutation and bias[i] the constant that slot i of vb
// adds. Then A x B = A x X' + A x bias, and the second term, the same for
// every column, is one short mma chain per row tile instead of one HADD2 per
// pair of B. f16 additions or subtractions of integer constants after the
// cast (a symmetric offset, `w - 1.0`) join the bias (integerOffset).
// False (nothing emitted) for any other B.
static bool peelBias(TilusEmitter *e, MlirValue vb, MlirValue *x, double **bias) {
  // The correction's B holds the bias: integers exact in B's type (f16 up
  // to 2^11, bf16 up to 2^8).
  double limit = mlirTypeIsABF16(mlirShapedTypeGetElementType(mlirValueGetType(vb)))
                     ? 256 : 2048;
  int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(vb), 0);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)m);
  double *extra = calloc((size_t)m, sizeof(double)); // slot i's integer offsets
  double *spread = calloc((size_t)m, sizeof(double)); // and their magnitudes
  for (int64_t i = 0; i < m; ++i)
    perm[i] = i;
  MlirValue v = vb;
  while (mlirValueIsAOpResult(v)) {
    MlirOperation owner = mlirOpResultGetOwner(v);
    if (integerOffset(owner, m, perm, extra, spread)) {
      v = mlirOperationGetOperand(owner, 0);
      continue;
    }
    MlirValue in = throughShuffle(v, m, perm);
    if (mlirValueEqual(in, v))
      break;
    v = in;
  }
  MlirOperation add = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v)
                                              : (MlirOperation){NULL};
  MlirValue c = {NULL};
  if (!mlirOperationIsNull(add) && tilusOpIs(add, "arith.addf") &&
      !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
          add, mlirStringRefCreateFromCString(TILUS_CAST_BIAS_ATTR))))
    c = mlirOperationGetOperand(add, 1);
  bool ok = c.ptr != NULL;
  double *b = ok ? malloc(sizeof(double) * (size_t)m) : NULL;
  for (int64_t i = 0; ok && i < m; ++i) {
    double value = 0;
    ok = tilusConstantElement(c, (uint64_t)perm[i], &value);
    b[i] = value + extra[i];
    ok = ok && fabs(b[i]) <= limit;
  }
  free(extra), free(spread);
  if (!ok) {
    free(perm), free(b);
    return false;
  }
  *bias = b;
  *x = permuted(e, mlirOperationGetOperand(add, 0), m, perm);
  free(perm);
  return true;
}

// A float cast's rescale moved out of B: when `vb` is, through slot
// permutations, the cast's tagged arith.mulf(X, 2^s) (TILUS_CAST_SCALE_ATTR,
// one power of two for every slot), *x becomes X under the same permutation
// and *scale 2^s. From a zero accumulator, 2^s (A x X) in f32 is A x B up to
// the tensor cores' rounding: on the H100 the two agree bit for bit while
// X holds only normal f16 values, and differ by one f32 ulp in some sums
// when X holds f16 subnormals (the small codes of formats with a mantissa),
// whose products the mma does not round as it rounds the scaled ones. Hence
// only under tilus.fp_contract. One FMUL per accumulator element instead of
// one HMUL2 per pair of B.
static bool peelScale(TilusEmitter *e, MlirValue vb, MlirValue *x, double *scale) {
  int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(vb), 0);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)m);
  for (int64_t i = 0; i < m; ++i)
    perm[i] = i;
  MlirValue v = vb;
  for (MlirValue in = throughShuffle(v, m, perm); !mlirValueEqual(in, v);
       in = throughShuffle(v, m, perm))
    v = in;
  MlirOperation mul = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v)
                                              : (MlirOperation){NULL};
  bool ok = !mlirOperationIsNull(mul) && tilusOpIs(mul, "arith.mulf") &&
            !mlirAttributeIsNull(mlirOperationGetDiscardableAttributeByName(
                mul, mlirStringRefCreateFromCString(TILUS_CAST_SCALE_ATTR)));
  double first = 0;
  for (int64_t i = 0; ok && i < m; ++i) {
    double value = 0;
    ok = tilusConstantElement(mlirOperationGetOperand(mul, 1), (uint64_t)i, &value);
    if (i == 0)
      first = value;
    ok = ok && value == first;
  }
  int exponent = 0;
  ok = ok && first > 0 && frexp(first, &exponent) == 0.5;
  if (ok) {
    *x = permuted(e, mlirOperationGetOperand(mul, 0), m, perm);
    *scale = first;
  }
  free(perm);
  return ok;
}

// An f16 or bf16 pair constant (an mma B register of the bias; bf16 mma
// operands are i32 registers).
static MlirValue halfPair(TilusEmitter *e, MlirType element, double lo, double hi) {
  int64_t two = 2;
  double values[2] = {lo, hi};
  MlirValue pair =
      tilusEmitFloatVectorConstant(e, mlirVectorTypeGet(1, &two, element), values);
  if (mlirTypeIsAF16(element))
    return pair;
  return tilusEmitValue(e, "llvm.bitcast", 1, &pair, mlirIntegerTypeGet(e->ctx, 32), 0,
                        NULL);
}

bool tilusEmitMmaDot(TilusEmitter *e, MlirOperation op,
                     const TilusTensorType *t, MlirValue va, MlirValue vb,
                     MlirValue vc, MlirValue *result, char *why,
                     size_t whySize) {
  MlirType aType = t[0].elementType, bType = t[1].elementType,
           cType = t[2].elementType;
  const MmaShape *shape = NULL;
  if (mlirTypeIsAF16(aType) && mlirTypeIsAF16(bType) && mlirTypeIsAF32(cType))
    shape = &kHalf;
  else if (mlirTypeIsAF16(aType) && mlirTypeIsAF16(bType) &&
           mlirTypeIsAF16(cType))
    shape = &kHalfAcc;
  else if (mlirTypeIsABF16(aType) && mlirTypeIsABF16(bType) && mlirTypeIsAF32(cType))
    shape = &kBf16;
  else if (mlirTypeIsAInteger(aType) && mlirIntegerTypeGetWidth(aType) == 8 &&
           !mlirIntegerTypeIsUnsigned(aType) && mlirTypeEqual(aType, bType) &&
           mlirTypeIsAInteger(cType) && mlirIntegerTypeGetWidth(cType) == 32)
    shape = &kS8;
  if (!shape) {
    if (why) {
      char ta[64], tb[64], tc[64];
      typeText(aType, ta, sizeof(ta));
      typeText(bType, tb, sizeof(tb));
      typeText(cType, tc, sizeof(tc));
      snprintf(why, whySize,
               "mma.sync has no instruction for %s x %s -> %s (it takes f16 x "
               "f16 -> f16 or f32, bf16 x bf16 -> f32, s8 x s8 -> i32)",
               ta, tb, tc);
    }
    return false;
  }
  int64_t K = t[0].shape[1];
  if (K % shape->k) {
    if (why)
      snprintf(why, whySize,
               "K = %lld is not a multiple of mma.sync m16n8k%d's k",
               (long long)K, shape->k);
    return false;
  }
  // Shallow copies of the lowering's cached fragments (owned by it).
  const TilusFragments *pa =
      tilusLoweringFragments(e->lowering, t[0].layout, shape->a);
  const TilusFragments *pb =
      tilusLoweringFragments(e->lowering, t[1].layout, shape->b);
  const TilusFragments *pc =
      tilusLoweringFragments(e->lowering, t[2].layout, &tilusFragmentC);
  if (!pa || !pb || !pc) {
    if (why)
      sayNoFragments(why, whySize,
                     !pa   ? "a"
                     : !pb ? "b"
                           : "the accumulator c",
                     !pa   ? "A"
                     : !pb ? "B"
                           : "C",
                     shape);
    return false;
  }
  TilusFragments fa = *pa, fb = *pb, fc = *pc;
  // plan[q * steps + s] = (a group, b group) for c tile q and k step s, the
  // same in every warp.
  int64_t steps = K / shape->k;
  int64_t *plan = malloc(sizeof(int64_t) * (size_t)(2 * fc.numGroups * steps));
  bool ok = fa.numWarps == fc.numWarps && fb.numWarps == fc.numWarps;
  for (int64_t w = 0; ok && w < fc.numWarps; ++w)
    for (int64_t q = 0; ok && q < fc.numGroups; ++q) {
      const int64_t *cb = &fc.bases[2 * (w * fc.numGroups + q)];
      for (int64_t s = 0; ok && s < steps; ++s) {
        int64_t ga = tilusFragmentsFind(&fa, w, cb[0], s * shape->k);
        int64_t gb = tilusFragmentsFind(&fb, w, s * shape->k, cb[1]);
        int64_t *p = &plan[2 * (q * steps + s)];
        if (w == 0) {
          p[0] = ga;
          p[1] = gb;
        }
        ok = ga >= 0 && gb >= 0 && p[0] == ga && p[1] == gb;
      }
    }
  if (ok) {
    bool isInt = shape->integer;
    MmaOp mma = {.halfAcc = shape->halfAccumulator};
    MlirType accElement = isInt         ? mlirIntegerTypeGet(e->ctx, 32)
                          : mma.halfAcc ? mlirF16TypeGet(e->ctx)
                                        : mlirF32TypeGet(e->ctx);
    int64_t two = 2;
    mma.pairType = mlirVectorTypeGet(1, &two, accElement);
    mma.numAccRegs = mma.halfAcc ? 2 : 4;
    for (int r = 0; r < 4; ++r)
      mma.fields[r] = mma.halfAcc && r < 2 ? mma.pairType : accElement;
    mma.structType = tilusLLVMStructType(e->ctx, mma.numAccRegs, mma.fields);
    char typeAttr[64];
    snprintf(typeAttr, sizeof(typeAttr), "#nvvm.mma_type<%s>", shape->ptxType);
    char shapeAttr[64];
    snprintf(shapeAttr, sizeof(shapeAttr), "#nvvm.shape<m = 16, n = 8, k = %d>",
             shape->k);
    int32_t segments[3] = {4, 2, mma.numAccRegs};
    MlirNamedAttribute *attrs = mma.attrs;
    int numAttrs = 0;
    attrs[numAttrs++] = tilusNamedAttr(
        e->ctx, "layoutA",
        mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString("#nvvm.mma_layout<row>")));
    attrs[numAttrs++] = tilusNamedAttr(
        e->ctx, "layoutB",
        mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString("#nvvm.mma_layout<col>")));
    MlirAttribute ptx = mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(typeAttr));
    attrs[numAttrs++] = tilusNamedAttr(e->ctx, "multiplicandAPtxType", ptx);
    attrs[numAttrs++] = tilusNamedAttr(e->ctx, "multiplicandBPtxType", ptx);
    attrs[numAttrs++] = tilusNamedAttr(e->ctx, "operandSegmentSizes",
                                       mlirDenseI32ArrayGet(e->ctx, 3, segments));
    attrs[numAttrs++] = tilusNamedAttr(
        e->ctx, "shape", mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(shapeAttr)));
    if (isInt)
      attrs[numAttrs++] = tilusNamedAttr(
          e->ctx, "intOverflowBehavior",
          mlirAttributeParseGet(e->ctx, mlirStringRefCreateFromCString(
                                            "#nvvm.mma_int_overflow<wrapped>")));
    mma.numAttrs = numAttrs;
    bool aAsI32 = !mlirTypeIsAF16(aType);
    // With tilus.fp_contract, a fast cast's bias leaves B (peelBias): each
    // c tile's chain starts from A x bias instead, computed once per run of
    // A fragments and bias constants (the same for every column tile of a
    // row tile). Exact when the products and sums are integers below 2^24;
    // otherwise the f32 sums carry the bias's magnitude (2^10 to 2^11) too.
    MlirValue xb = vb;
    double *bias = NULL;
    bool fold = (shape == &kHalf || shape == &kBf16) && tilusAllowsContraction(op) &&
                peelBias(e, vb, &xb, &bias);
    MlirValue *corr = fold ? malloc(sizeof(MlirValue) * (size_t)(4 * fc.numGroups)) : NULL;
    int64_t *same = fold ? malloc(sizeof(int64_t) * (size_t)fc.numGroups) : NULL;
    int64_t chains = 0;
    for (int64_t q = 0; fold && q < fc.numGroups; ++q) {
      // A previous c tile with the same A fragments and bias constants.
      same[q] = -1;
      for (int64_t q2 = 0; q2 < q && same[q] < 0; ++q2) {
        bool eq = same[q2] < 0;
        for (int64_t s = 0; eq && s < steps; ++s) {
          const int64_t *p1 = &plan[2 * (q * steps + s)], *p2 = &plan[2 * (q2 * steps + s)];
          eq = p1[0] == p2[0];
          for (int j = 0; eq && j < shape->bCount; ++j)
            eq = bias[fb.slots[p1[1] * shape->bCount + j]] ==
                 bias[fb.slots[p2[1] * shape->bCount + j]];
        }
        if (eq)
          same[q] = q2;
      }
      chains += same[q] < 0;
    }
    // Worth it only when the HADD2s saved (one per f16 pair of B) are many
    // per mma the correction adds: on the H100 the quantized matmul gained
    // with 8 column tiles per row tile (16 pairs per mma) and lost with 2 (4),
    // or with 4 row tiles of 2 column tiles (1); 8 is the threshold.
    if (fold && mlirShapedTypeGetDimSize(mlirValueGetType(vb), 0) / 2 < 8 * chains * steps) {
      fold = false;
      xb = vb;
    }
    for (int64_t q = 0; fold && q < fc.numGroups; ++q) {
      if (same[q] >= 0) {
        for (int j = 0; j < 4; ++j)
          corr[4 * q + j] = corr[4 * same[q] + j];
        continue;
      }
      MlirValue c[4];
      for (int j = 0; j < 4; ++j)
        c[j] = tilusEmitFloatConstant(e, accElement, 0.0);
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t *p = &plan[2 * (q * steps + s)];
        MlirValue operands[10];
        aRegisters(e, va, &fa, p[0], shape, aAsI32, operands);
        for (int r = 0; r < 2; ++r) {
          const int64_t *bs = &fb.slots[p[1] * shape->bCount + r * shape->perRegister];
          operands[4 + r] = halfPair(e, bType, bias[bs[0]], bias[bs[1]]);
        }
        emitMmaStep(e, &mma, operands, c);
      }
      for (int j = 0; j < 4; ++j)
        corr[4 * q + j] = c[j];
    }
    bool zeroC = fold && tilusIsZeroConstant(vc);
    // A float cast's rescale leaves B when the Dot starts from zero with f32
    // sums (peelScale): its chains multiply once at the end instead.
    double scale = 1;
    bool rescale = !fold && shape == &kHalf && tilusAllowsContraction(op) &&
                   tilusIsZeroConstant(vc) && peelScale(e, vb, &xb, &scale);
    MlirValue scaleValue =
        rescale ? tilusEmitFloatConstant(e, accElement, scale) : (MlirValue){NULL};
    // When the groups cover every slot of c, each is written below, and the
    // result need not start from c: a chain from zero leaves c's own chain
    // (a previous Dot's) unused once its elements are read directly.
    int64_t m = mlirShapedTypeGetDimSize(mlirValueGetType(vc), 0);
    MlirValue acc = fc.numGroups * 4 == m
                        ? tilusEmitSplatConstant(e, mlirValueGetType(vc), 0)
                        : vc;
    for (int64_t q = 0; q < fc.numGroups; ++q) {
      MlirValue c[4];
      // From the accumulator as it came in (its groups are disjoint); an
      // element a previous Dot just computed is used directly.
      for (int j = 0; j < 4; ++j)
        c[j] = tilusEmitElement(e, vc, fc.slots[4 * q + j]);
      for (int j = 0; fold && j < 4; ++j)   // the bias's share, added first
        c[j] = zeroC ? corr[4 * q + j] : tilusEmitArith(e, "addf", c[j], corr[4 * q + j]);
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t *p = &plan[2 * (q * steps + s)];
        MlirValue operands[10];
        aRegisters(e, va, &fa, p[0], shape, aAsI32, operands);
        for (int r = 0; r < 2; ++r)
          operands[4 + r] = tilusEmitPackRegister(
              e, xb, &fb.slots[p[1] * shape->bCount + r * shape->perRegister],
              shape->perRegister, aAsI32);
        emitMmaStep(e, &mma, operands, c);
      }
      for (int j = 0; rescale && j < 4; ++j)
        c[j] = tilusEmitArith(e, "mulf", c[j], scaleValue);
      for (int j = 0; j < 4; ++j)
        acc = tilusEmitInsert(e, acc, c[j], fc.slots[4 * q + j]);
    }
    *result = acc;
    free(bias), free(corr), free(same);
  }
  free(plan);
  if (!ok && why)
    snprintf(why, whySize,
             "the fragments of a and b that a warp's c tiles need (each c "
             "tile and k step) are not in that warp's registers, in the same "
             "slots in every warp");
  return ok;
}
