//===- DataMovement.c - Plans of Reduce and layout changes ----------------===//
//
// Decides, from the layouts alone, how tilus.reduce, convert_layout, permute
// and reshape move data (tilus-c/DataMovement.h). Everything is computed from
// the thread modes (f(t, 0) as a sum of mixed-radix digits of t) and one
// evaluation or location per local slot: the cost grows with the factors
// and the slots of one thread, never with T * m.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/DataMovement.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Ops.h"

#include <stdlib.h>
#include <string.h>

static bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// The thread modes of a layout without swizzle, malloc'ed; NULL when it has
// a swizzle (or memory runs out). Each factor gives at most one mode per
// dimension and one per replicated run between them (2 * rank + 1).
static TilusLayoutThreadMode *threadModes(const TilusLayout *layout,
                                          intptr_t *count) {
  intptr_t capacity =
      tilusLayoutGetNumFactors(layout) * (2 * tilusLayoutGetRank(layout) + 1) +
      1;
  TilusLayoutThreadMode *modes = malloc(sizeof(*modes) * (size_t)capacity);
  if (!modes)
    return NULL;
  *count = tilusLayoutGetThreadModes(layout, modes, capacity);
  if (*count < 0) {
    free(modes);
    return NULL;
  }
  return modes;
}

static void rowMajorStrides(intptr_t rank, const int64_t *shape,
                            int64_t *strides) {
  int64_t s = 1;
  for (intptr_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape[d];
  }
}

static bool hasNoSwizzle(const TilusLayout *layout) {
  for (intptr_t k = 0; k < tilusLayoutGetNumFactors(layout); ++k) {
    TilusLayoutFactor factor;
    tilusLayoutGetFactor(layout, k, &factor);
    if (factor.kind == TilusLayoutFactorSwizzle)
      return false;
  }
  return true;
}

static int64_t numElements(const TilusLayout *l) {
  return tilusLayoutGetNumElements(l);
}

intptr_t tilusOpGetDims(MlirOperation op, int64_t *dims) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("dims"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a))
    return -1;
  intptr_t n = mlirDenseArrayGetNumElements(a);
  if (n > TILUS_LAYOUT_MAX_RANK)
    return -1;
  for (intptr_t k = 0; k < n; ++k)
    dims[k] = mlirDenseI64ArrayGetElement(a, k);
  return n;
}

MlirType tilusReduceAccumulatorType(MlirType t) {
  MlirContext ctx = mlirTypeGetContext(t);
  if (mlirTypeIsAF16(t) || mlirTypeIsABF16(t) || mlirTypeIsAF32(t))
    return mlirF32TypeGet(ctx);
  if (mlirTypeIsAF64(t))
    return t;
  if (mlirTypeIsAInteger(t)) {
    unsigned w = mlirIntegerTypeGetWidth(t);
    if (w <= 32)
      return mlirIntegerTypeGet(ctx, 32);
    if (w == 64)
      return mlirIntegerTypeGet(ctx, 64);
  }
  return (MlirType){NULL};
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

void tilusReducePlanRelease(TilusReducePlan *plan) {
  free(plan->slotOf);
  free(plan->sharedModes);
  memset(plan, 0, sizeof(*plan));
}

bool tilusReducePlanCreate(const TilusLayout *src, const TilusLayout *dst,
                           int64_t numDims, const int64_t *dims,
                           TilusReducePlan *plan, TilusLayoutError *err) {
  memset(plan, 0, sizeof(*plan));
  intptr_t rank = tilusLayoutGetRank(src);
  bool reduced[TILUS_LAYOUT_MAX_RANK] = {false};
  for (int64_t k = 0; k < numDims; ++k) {
    if (dims[k] < 0 || dims[k] >= rank) {
      tilusLayoutSetError(err, "dimension %lld is out of range",
                          (long long)dims[k]);
      return false;
    }
    reduced[dims[k]] = true;
  }
  intptr_t numModes;
  TilusLayoutThreadMode *modes = threadModes(src, &numModes);
  if (!modes || !hasNoSwizzle(dst)) {
    free(modes);
    tilusLayoutSetError(err, "a reduction needs layouts without swizzle");
    return false;
  }
  plan->sharedModes =
      malloc(sizeof(TilusLayoutThreadMode) * (size_t)(2 * numModes + 1));
  plan->numSlots = tilusLayoutGetLocalSize(src);
  plan->numResultSlots = tilusLayoutGetLocalSize(dst);
  plan->slotOf = malloc(sizeof(int64_t) * (size_t)plan->numSlots);
  plan->numPartials = 1;
  plan->resultElements = numElements(dst);
  if (!plan->sharedModes || !plan->slotOf) {
    free(modes);
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  // Stages (b) and (c): the reduced thread digits. A power-of-two digit
  // below the warp size is a set of lane bits: one butterfly per bit. The
  // part of a digit above the warp, and digits that are not powers of two,
  // meet in shared memory.
  for (intptr_t k = 0; k < numModes; ++k) {
    TilusLayoutThreadMode m = modes[k];
    if (!reduced[m.dim])
      continue;
    if (m.divisor < TILUS_WARP_SIZE && isPowerOfTwo(m.divisor) &&
        isPowerOfTwo(m.modulus)) {
      for (int64_t b = m.divisor;
           b < m.divisor * m.modulus && b < TILUS_WARP_SIZE; b *= 2)
        plan->laneMasks[plan->numLaneMasks++] = b;
      if (m.divisor * m.modulus <= TILUS_WARP_SIZE)
        continue;
      int64_t below = TILUS_WARP_SIZE / m.divisor;
      m = (TilusLayoutThreadMode){TILUS_WARP_SIZE, m.modulus / below, m.dim,
                                  m.stride * below};
    }
    plan->sharedModes[plan->numSharedModes++] = m;
    plan->numPartials *= m.modulus;
  }
  free(modes);
  // Stage (a): input slot i of thread t holds src(t, 0) + src(0, i); its
  // projection is dst(t, 0) + proj(src(0, i)), so the result slot is the
  // one thread 0 holds proj(src(0, i)) in.
  for (int64_t i = 0; i < plan->numSlots; ++i) {
    int64_t index[TILUS_LAYOUT_MAX_RANK], kept[TILUS_LAYOUT_MAX_RANK];
    tilusLayoutEvaluate(src, 0, i, index);
    intptr_t n = 0;
    for (intptr_t d = 0; d < rank; ++d)
      if (!reduced[d])
        kept[n++] = index[d];
    int64_t thread, slot;
    if (!tilusLayoutLocate(dst, kept, &thread, &slot) || thread != 0) {
      tilusLayoutSetError(err,
                          "the result layout does not give thread 0 the "
                          "result of its slot %lld",
                          (long long)i);
      return false;
    }
    plan->slotOf[i] = slot;
  }
  // Every result slot must receive a value (the lowering combines into it).
  bool *covered = calloc((size_t)plan->numResultSlots, sizeof(bool));
  if (!covered) {
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  for (int64_t i = 0; i < plan->numSlots; ++i)
    covered[plan->slotOf[i]] = true;
  int64_t missing = -1;
  for (int64_t j = plan->numResultSlots - 1; j >= 0; --j)
    if (!covered[j])
      missing = j;
  free(covered);
  if (missing >= 0) {
    tilusLayoutSetError(err,
                        "result slot %lld of thread 0 holds no reduction of "
                        "its input slots",
                        (long long)missing);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// ConvertLayout, Permute, Reshape
//===----------------------------------------------------------------------===//

void tilusMovePlanRelease(TilusMovePlan *plan) {
  free(plan->slotOf);
  free(plan->laneDigits);
  plan->slotOf = NULL;
  plan->laneDigits = NULL;
}

// A thread digit's contribution to a row-major address.
typedef TilusLaneDigit AddressDigit;

static int byDivisor(const void *a, const void *b) {
  const AddressDigit *x = a, *y = b;
  return (x->divisor > y->divisor) - (x->divisor < y->divisor);
}

// The address digits of a layout's thread modes, coef[dim] the address
// step of each dimension, sorted and merged ((d, n, s) then (d n, n', s n)
// are one digit (d, n n', s)) so that equal functions of t give equal
// lists. NULL when the layout has a swizzle.
static AddressDigit *addressDigits(const TilusLayout *layout,
                                   const int64_t *coef, intptr_t *count) {
  intptr_t n;
  TilusLayoutThreadMode *modes = threadModes(layout, &n);
  if (!modes)
    return NULL;
  AddressDigit *digits = malloc(sizeof(AddressDigit) * (size_t)(n + 1));
  if (!digits) {
    free(modes);
    return NULL;
  }
  for (intptr_t k = 0; k < n; ++k)
    digits[k] = (AddressDigit){modes[k].divisor, modes[k].modulus,
                               modes[k].stride * coef[modes[k].dim]};
  free(modes);
  qsort(digits, (size_t)n, sizeof(AddressDigit), byDivisor);
  intptr_t out = 0;
  for (intptr_t k = 0; k < n; ++k) {
    AddressDigit *last = out ? &digits[out - 1] : NULL;
    if (last && last->divisor * last->modulus == digits[k].divisor &&
        last->scale * last->modulus == digits[k].scale)
      last->modulus *= digits[k].modulus;
    else
      digits[out++] = digits[k];
  }
  *count = out;
  return digits;
}

bool tilusMovePlanCreate(MlirOperation op, const TilusTensorType *src,
                         const TilusTensorType *dst, TilusMovePlan *plan,
                         TilusLayoutError *err) {
  memset(plan, 0, sizeof(*plan));
  int64_t srcStrides[TILUS_LAYOUT_MAX_RANK], coef[TILUS_LAYOUT_MAX_RANK];
  rowMajorStrides(src->rank, src->shape, srcStrides);
  if (tilusOpIs(op, "tilus.permute")) {
    int64_t dims[TILUS_LAYOUT_MAX_RANK];
    if (tilusOpGetDims(op, dims) != dst->rank) {
      tilusLayoutSetError(err, "the permutation does not fit the result");
      return false;
    }
    for (intptr_t k = 0; k < dst->rank; ++k) {
      if (dims[k] < 0 || dims[k] >= src->rank) {
        tilusLayoutSetError(err, "the permutation does not fit the source");
        return false;
      }
      coef[k] = srcStrides[dims[k]];
    }
  } else {
    // ConvertLayout keeps the shape and Reshape the row-major order: both
    // address the result in its own row-major order.
    rowMajorStrides(dst->rank, dst->shape, coef);
  }
  return tilusMovePlanCreateFromLayouts(src->layout, dst->layout, coef, plan,
                                        err);
}

// The address of slot i of thread 0.
static int64_t slotAddress(const TilusLayout *layout, int64_t i,
                           const int64_t *coef) {
  int64_t q[TILUS_LAYOUT_MAX_RANK], a = 0;
  tilusLayoutEvaluate(layout, 0, i, q);
  for (intptr_t k = 0; k < tilusLayoutGetRank(layout); ++k)
    a += q[k] * coef[k];
  return a;
}

// The threads hold the same addresses: find result slot j's source slot in
// thread 0 (inRegisters), or leave the plan to the other paths.
static bool planSlots(const TilusLayout *src, const TilusLayout *dst,
                      TilusMovePlan *plan, TilusLayoutError *err) {
  intptr_t srcRank = tilusLayoutGetRank(src);
  plan->slotOf = malloc(sizeof(int64_t) * (size_t)plan->numResultSlots);
  if (!plan->slotOf) {
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  for (int64_t j = 0; j < plan->numResultSlots; ++j) {
    int64_t p[TILUS_LAYOUT_MAX_RANK];
    int64_t address = slotAddress(dst, j, plan->coef);
    for (intptr_t d = 0; d < srcRank; ++d) {
      p[d] = address / plan->srcStrides[d];
      address %= plan->srcStrides[d];
    }
    int64_t thread, slot;
    if (!tilusLayoutLocate(src, p, &thread, &slot) || thread != 0) {
      free(plan->slotOf);
      plan->slotOf = NULL;
      return true;
    }
    plan->slotOf[j] = slot;
  }
  plan->inRegisters = true;
  return true;
}

static int64_t laneAddress(const AddressDigit *digits, intptr_t n,
                           int64_t lane) {
  int64_t a = 0;
  for (intptr_t k = 0; k < n; ++k)
    a += lane / digits[k].divisor % digits[k].modulus * digits[k].scale;
  return a;
}

// The digits with a digit across the warp boundary cut in two (the lane
// part and the warp part: merged lists may have joined them), into `out`
// (n + 1 entries); -1 when such a digit does not split at the warp size.
static intptr_t splitAtWarp(const AddressDigit *in, intptr_t n,
                            AddressDigit *out) {
  intptr_t count = 0;
  for (intptr_t k = 0; k < n; ++k) {
    AddressDigit x = in[k];
    if (x.divisor < TILUS_WARP_SIZE &&
        x.divisor * x.modulus > TILUS_WARP_SIZE) {
      int64_t below = TILUS_WARP_SIZE / x.divisor;
      if (TILUS_WARP_SIZE % x.divisor || x.modulus % below)
        return -1;
      out[count++] = (AddressDigit){x.divisor, below, x.scale};
      x = (AddressDigit){TILUS_WARP_SIZE, x.modulus / below, x.scale * below};
    }
    out[count++] = x;
  }
  return count;
}

static bool planLanes(const TilusLayout *src, const AddressDigit *ds,
                      intptr_t ns, const AddressDigit *dd, intptr_t nd,
                      TilusMovePlan *plan, TilusLayoutError *err);

// Layouts that give each warp the same elements in the same slots, only at
// other lanes: result slot i of lane l is source slot i of lane
// srcLane(l) = sum over the source's lane digits of
// ((b / scale) % modulus) * divisor, b the address part of l's result lane
// digits. Checked on the 32 lanes of one warp (the same in every warp).
static bool planShuffle(const TilusLayout *src, const TilusLayout *dst,
                        const AddressDigit *ds, intptr_t ns,
                        const AddressDigit *dd, intptr_t nd,
                        TilusMovePlan *plan, TilusLayoutError *err) {
  int64_t m = tilusLayoutGetLocalSize(src);
  if (m != plan->numResultSlots)
    return true;
  for (int64_t i = 0; i < m; ++i)
    if (slotAddress(src, i, plan->srcStrides) !=
        slotAddress(dst, i, plan->coef))
      return true;
  // Digits above the warp must agree one for one.
  AddressDigit *cut = malloc(sizeof(AddressDigit) * (size_t)(ns + nd + 2));
  if (!cut) {
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  ns = splitAtWarp(ds, ns, cut);
  nd = ns < 0 ? -1 : splitAtWarp(dd, nd, cut + ns);
  // A digit that does not split at the warp: not by shuffles, not an error.
  bool ok =
      ns < 0 || nd < 0 || planLanes(src, cut, ns, cut + ns, nd, plan, err);
  free(cut);
  return ok;
}

static bool planLanes(const TilusLayout *src, const AddressDigit *ds,
                      intptr_t ns, const AddressDigit *dd, intptr_t nd,
                      TilusMovePlan *plan, TilusLayoutError *err) {
  intptr_t us = 0, ud = 0;
  for (intptr_t k = 0; k < ns; ++k)
    us += ds[k].divisor >= TILUS_WARP_SIZE;
  for (intptr_t k = 0; k < nd; ++k)
    ud += dd[k].divisor >= TILUS_WARP_SIZE;
  if (us != ud)
    return true;
  for (intptr_t k = ns - us, l = nd - ud; k < ns; ++k, ++l)
    if (memcmp(&ds[k], &dd[l], sizeof(AddressDigit)))
      return true;
  plan->laneDigits = malloc(sizeof(TilusLaneDigit) * (size_t)(ns + nd + 1));
  if (!plan->laneDigits) {
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  // Lane digits come first in each list (sorted by divisor).
  plan->numSrcLaneDigits = ns - us;
  plan->numDstLaneDigits = nd - ud;
  memcpy(plan->laneDigits, ds, sizeof(AddressDigit) * (size_t)(ns - us));
  memcpy(plan->laneDigits + (ns - us), dd,
         sizeof(AddressDigit) * (size_t)(nd - ud));
  int64_t lanes = tilusLayoutGetNumThreads(src) < TILUS_WARP_SIZE
                      ? tilusLayoutGetNumThreads(src)
                      : TILUS_WARP_SIZE;
  // A short last warp (a block size not a multiple of the warp size) must
  // read only its own lanes.
  int64_t tail = tilusLayoutGetNumThreads(src) % TILUS_WARP_SIZE;
  bool fits = true;
  const AddressDigit *srcLanes = plan->laneDigits;
  for (int64_t l = 0; fits && l < lanes; ++l) {
    int64_t b = laneAddress(plan->laneDigits + plan->numSrcLaneDigits,
                            plan->numDstLaneDigits, l);
    int64_t from = 0;
    for (intptr_t k = 0; k < plan->numSrcLaneDigits; ++k)
      from += b / srcLanes[k].scale % srcLanes[k].modulus * srcLanes[k].divisor;
    fits = from < lanes &&
           laneAddress(srcLanes, plan->numSrcLaneDigits, from) == b &&
           (l >= tail || from < tail);
  }
  if (!fits) {
    free(plan->laneDigits);
    plan->laneDigits = NULL;
    return true;
  }
  plan->viaShuffle = true;
  return true;
}

bool tilusMovePlanCreateFromLayouts(const TilusLayout *src,
                                    const TilusLayout *dst, const int64_t *coef,
                                    TilusMovePlan *plan,
                                    TilusLayoutError *err) {
  memset(plan, 0, sizeof(*plan));
  intptr_t srcRank = tilusLayoutGetRank(src), dstRank = tilusLayoutGetRank(dst);
  int64_t srcShape[TILUS_LAYOUT_MAX_RANK];
  for (intptr_t d = 0; d < srcRank; ++d)
    srcShape[d] = tilusLayoutGetDim(src, d);
  rowMajorStrides(srcRank, srcShape, plan->srcStrides);
  for (intptr_t k = 0; k < dstRank; ++k)
    plan->coef[k] = coef[k];
  plan->numResultSlots = tilusLayoutGetLocalSize(dst);

  intptr_t ns = 0, nd = 0;
  AddressDigit *ds = addressDigits(src, plan->srcStrides, &ns);
  AddressDigit *dd = addressDigits(dst, plan->coef, &nd);
  if (!ds || !dd) {
    free(ds);
    free(dd);
    tilusLayoutSetError(err, "layout changes need layouts without swizzle");
    return false;
  }
  bool same =
      ns == nd && (ns == 0 || !memcmp(ds, dd, sizeof(*ds) * (size_t)ns));
  bool ok = true;
  if (same)
    ok = planSlots(src, dst, plan, err);
  if (ok && !plan->inRegisters)
    ok = planShuffle(src, dst, ds, ns, dd, nd, plan, err);
  free(ds);
  free(dd);
  return ok;
}

//===----------------------------------------------------------------------===//
// Scratch
//===----------------------------------------------------------------------===//

bool tilusMoveUsesShuffle(const TilusMovePlan *plan, int64_t bits) {
  return plan->viaShuffle && (bits == 8 || bits == 16 || bits == 32);
}

static int64_t elementBytes(MlirType t) {
  return (tilusElementTypeGetBitWidth(t) + 7) / 8;
}

int64_t tilusOpGetScratchBytes(MlirOperation op) {
  bool isReduce = tilusOpIs(op, "tilus.reduce");
  if (!isReduce && !tilusOpIs(op, "tilus.convert_layout") &&
      !tilusOpIs(op, "tilus.permute") && !tilusOpIs(op, "tilus.reshape"))
    return 0;
  if (mlirOperationGetNumOperands(op) != 1 ||
      mlirOperationGetNumResults(op) != 1)
    return -1;
  TilusTensorType src, dst;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(
          mlirValueGetType(mlirOperationGetOperand(op, 0)), &src, NULL)))
    return -1;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(
          mlirValueGetType(mlirOperationGetResult(op, 0)), &dst, NULL))) {
    tilusTensorTypeRelease(&src);
    return -1;
  }
  int64_t bytes = -1;
  if (src.layout && dst.layout && isReduce) {
    int64_t dims[TILUS_LAYOUT_MAX_RANK];
    intptr_t n = tilusOpGetDims(op, dims);
    MlirType acc = tilusReduceAccumulatorType(src.elementType);
    bool dimsOk = n >= 0 && !mlirTypeIsNull(acc);
    for (intptr_t k = 0; dimsOk && k < n; ++k)
      dimsOk = dims[k] >= 0 && dims[k] < src.rank;
    TilusReducePlan plan;
    // ArgMax and ArgMin keep an i32 index beside each value.
    MlirAttribute kind = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("kind"));
    bool isArg = mlirAttributeIsAString(kind) &&
                 mlirStringAttrGetValue(kind).length == 6 &&
                 !memcmp(mlirStringAttrGetValue(kind).data, "arg", 3);
    if (dimsOk &&
        tilusReducePlanCreate(src.layout, dst.layout, n, dims, &plan, NULL))
      bytes = plan.numPartials > 1 ? plan.numPartials * plan.resultElements *
                                         (elementBytes(acc) + (isArg ? 4 : 0))
                                   : 0;
    if (dimsOk)
      tilusReducePlanRelease(&plan);
  } else if (src.layout && dst.layout) {
    TilusMovePlan plan;
    if (tilusMovePlanCreate(op, &src, &dst, &plan, NULL))
      bytes = plan.inRegisters ||
                      tilusMoveUsesShuffle(
                          &plan, tilusElementTypeGetBitWidth(src.elementType))
                  ? 0
                  : numElements(src.layout) * elementBytes(src.elementType);
    tilusMovePlanRelease(&plan);
  }
  tilusTensorTypeRelease(&dst);
  tilusTensorTypeRelease(&src);
  return bytes;
}
