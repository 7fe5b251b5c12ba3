//===- VerifyWgmma.c - The rules of the warpgroup MMA ops -----------------===//
//
// tilus.wgmma_mma and tilus.wgmma_wait_group (docs/hopper.md). What the
// verifier decides: operand kinds, shapes and element types, the shared
// layouts wgmma can read (tilusLayoutMatchMmaShared), a block of whole
// warpgroups, and that an unfinished accumulator is only passed on. How the
// accumulator's register layout splits into warpgroup tiles is decided by
// the lowering, which reports at the op when it does not.
//
//===----------------------------------------------------------------------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Layout.h"
#include "tilus-c/Ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void typeText(MlirType type, char *buffer, size_t size) {
  char *text = tilusPrintTypeToString(type);
  snprintf(buffer, size, "%s", text ? text : "?");
  free(text);
}

static intptr_t groupSize(MlirOperation op, intptr_t group) {
  intptr_t start = 0, count = 0;
  tilusOpGetOperandGroup(op, group, &start, &count);
  return count;
}

static MlirType operandType(MlirOperation op, intptr_t group) {
  return mlirValueGetType(tilusOpGetGroupOperand(op, group, 0));
}

// Whether wgmma accumulates products of `operand` in `acc`: f32 for f16,
// bf16 and FP8 (the dialect's float<4,3> and <5,2> are OCP's E4M3FN and
// E5M2, docs/types.md, which are wgmma's e4m3 and e5m2), i32 for 8-bit
// integers.
static bool accumulatorFits(MlirType operand, MlirType acc) {
  int64_t e, m;
  if (mlirTypeIsAF16(operand) || mlirTypeIsABF16(operand))
    return mlirTypeIsAF32(acc);
  if (tilusFloatTypeGetFormat(operand, &e, &m))
    return ((e == 4 && m == 3) || (e == 5 && m == 2)) && mlirTypeIsAF32(acc);
  if (mlirTypeIsAInteger(operand) && mlirIntegerTypeGetWidth(operand) == 8)
    return mlirTypeIsAInteger(acc) && mlirIntegerTypeGetWidth(acc) == 32;
  return false;
}

// A shared operand: its offsets index exactly its leading dimensions, and
// its layout is one wgmma reads with K along `kDim` of the tile.
static bool verifySharedOperand(TilusVerifier *v, MlirOperation op,
                                const TilusTensorType *t, const char *role,
                                intptr_t offsetsGroup, int64_t kDim) {
  intptr_t count = groupSize(op, offsetsGroup);
  if (t->rank < 2 || count != t->rank - 2) {
    tilusVerifierError(v, op,
                       "%s is a rank-%" PRIdPTR " shared tensor with %" PRIdPTR
                       " offsets; it needs rank >= 2 and one offset per "
                       "dimension before its last two",
                       role, t->rank, count);
    return false;
  }
  int64_t bits = tilusElementTypeGetBitWidth(t->elementType);
  if (tilusLayoutMatchMmaShared(t->layout, kDim, bits, NULL))
    return true;
  // Name a layout that works: the widest swizzle the tile allows.
  int64_t d0 = t->shape[t->rank - 2], d1 = t->shape[t->rank - 1];
  int64_t rows = kDim == 1 ? d0 : d1, k = kDim == 1 ? d1 : d0;
  static const TilusMmaSwizzle kOrder[] = {
      TilusMmaSwizzle128B, TilusMmaSwizzle64B, TilusMmaSwizzle32B,
      TilusMmaSwizzleNone};
  TilusLayoutError err = {0};
  char *text = NULL;
  for (size_t c = 0; c < 4 && !text; ++c) {
    TilusLayout *l =
        tilusLayoutCreateMmaShared(rows, k, kDim, bits, kOrder[c], &err);
    text = l ? tilusLayoutPrint(l) : NULL;
    tilusLayoutDestroy(l);
  }
  if (text)
    tilusVerifierError(v, op,
                       "%s's layout is not one wgmma reads: its last two "
                       "dimensions must be K-major (K is dimension %d of "
                       "the tile) in core matrices, e.g. \"%s\" (128-, 64- "
                       "or 32-byte swizzle or none, leading dimensions "
                       "outermost; docs/hopper.md)",
                       role, (int)kDim, text);
  else
    tilusVerifierError(v, op, "%s cannot be read by wgmma: %s", role,
                       err.message);
  free(text);
  return false;
}

static void verifyDecodedMma(TilusVerifier *v, MlirOperation op,
                             int64_t blockSize, const TilusTensorType *a,
                             const TilusTensorType *b, const TilusTensorType *d) {
  bool aShared = a->scope == TilusMemoryShared;
  char ta[96], tb[96], td[96];
  typeText(a->elementType, ta, sizeof ta);
  typeText(b->elementType, tb, sizeof tb);
  typeText(d->elementType, td, sizeof td);
  if (blockSize > 0 && blockSize % 128) {
    tilusVerifierError(v, op,
                       "wgmma needs whole warpgroups: the block has %" PRId64
                       " threads, not a multiple of 128",
                       blockSize);
    return;
  }
  if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 0)),
                     operandType(op, TilusWgmmaD))) {
    tilusVerifierError(v, op, "the result must have the type of d");
    return;
  }
  if (d->rank != 2 || (!aShared && a->rank != 2)) {
    tilusVerifierError(v, op, "d%s must be rank-2 register tensors",
                       aShared ? "" : " and a register a");
    return;
  }
  if (!aShared && groupSize(op, TilusWgmmaAOffsets)) {
    tilusVerifierError(v, op, "a register a takes no offsets");
    return;
  }
  int64_t M = a->rank >= 2 ? a->shape[a->rank - 2] : -1;
  int64_t K = a->rank >= 2 ? a->shape[a->rank - 1] : -1;
  if (b->rank < 2 || a->rank < 2 || b->shape[b->rank - 2] != K ||
      M != d->shape[0] || b->shape[b->rank - 1] != d->shape[1]) {
    tilusVerifierError(v, op,
                       "shapes do not agree: the tiles must be a [M, K], b "
                       "[K, N] and d [M, N]");
    return;
  }
  if (!mlirTypeEqual(a->elementType, b->elementType)) {
    tilusVerifierError(v, op,
                       "a and b must have the same element type, got '%s' "
                       "and '%s'",
                       ta, tb);
    return;
  }
  if (!accumulatorFits(a->elementType, d->elementType)) {
    tilusVerifierError(v, op,
                       "wgmma multiplies f16 or bf16, or FP8 e4m3 or e5m2 "
                       "(!tilus.float<4,3> or <5,2>), into f32, or 8-bit "
                       "integers into i32, not '%s' into '%s'",
                       ta, td);
    return;
  }
  int64_t step = 256 / tilusElementTypeGetBitWidth(a->elementType);
  if (K % step || M % 64 || d->shape[1] % 8) {
    tilusVerifierError(v, op,
                       "wgmma tiles are 64 rows by multiples of 8 columns "
                       "by K in steps of %" PRId64 " for '%s'; got M = %" PRId64
                       ", N = %" PRId64 ", K = %" PRId64,
                       step, ta, M, d->shape[1], K);
    return;
  }
  if (!aShared || verifySharedOperand(v, op, a, "a", TilusWgmmaAOffsets, 1))
    verifySharedOperand(v, op, b, "b", TilusWgmmaBOffsets, 0);
}

static void verifyMma(TilusVerifier *v, MlirOperation op, int64_t blockSize) {
  TilusTensorType t[3];
  static const intptr_t groups[3] = {TilusWgmmaA, TilusWgmmaB, TilusWgmmaD};
  int decoded = 0;
  TilusLayoutError err = {0};
  while (decoded < 3 &&
         tilusVerifierDecode(v, operandType(op, groups[decoded]), &t[decoded], &err))
    ++decoded;
  if (decoded == 3)
    verifyDecodedMma(v, op, blockSize, &t[0], &t[1], &t[2]);
  for (int k = 0; k < decoded; ++k)
    tilusTensorTypeRelease(&t[k]);
}

// Whether every use of `value` only passes an unfinished accumulator on:
// as d of a wgmma_mma, to a wgmma_wait_group, or through scf.yield into an
// scf.for (whose iteration argument and result are then checked the same
// way). `seen` holds the values checked on this path (loops yield back).
typedef struct {
  MlirValue *values;
  int count, capacity;
  bool outOfMemory;
} Seen;

static MlirOperation pendingMisuse(MlirValue value, Seen *seen) {
  for (int k = 0; k < seen->count; ++k)
    if (mlirValueEqual(seen->values[k], value))
      return (MlirOperation){NULL};
  if (seen->count == seen->capacity) {
    int capacity = seen->capacity ? 2 * seen->capacity : 16;
    MlirValue *grown = realloc(seen->values, sizeof(MlirValue) * (size_t)capacity);
    if (!grown) {
      seen->outOfMemory = true;
      return (MlirOperation){NULL};
    }
    seen->values = grown;
    seen->capacity = capacity;
  }
  seen->values[seen->count++] = value;
  for (MlirOpOperand use = mlirValueGetFirstUse(value);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    unsigned position = mlirOpOperandGetOperandNumber(use);
    if (tilusOpIs(user, "tilus.wgmma_wait_group"))
      continue;
    if (tilusOpIs(user, "tilus.wgmma_mma") &&
        mlirValueEqual(tilusOpGetGroupOperand(user, TilusWgmmaD, 0), value))
      continue;
    MlirOperation loop = mlirOperationGetParentOperation(user);
    if (tilusOpIs(user, "scf.yield") && tilusOpIs(loop, "scf.for")) {
      // scf.for's operands are (lower, upper, step, inits...), its body's
      // arguments (iv, iter_args...).
      MlirBlock body =
          mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
      MlirOperation bad = pendingMisuse(
          mlirOperationGetResult(loop, (intptr_t)position), seen);
      if (mlirOperationIsNull(bad))
        bad = pendingMisuse(mlirBlockGetArgument(body, (intptr_t)position + 1),
                            seen);
      if (!mlirOperationIsNull(bad))
        return bad;
      continue;
    }
    if (tilusOpIs(user, "scf.for") && position >= 3) {
      MlirBlock body =
          mlirRegionGetFirstBlock(mlirOperationGetRegion(user, 0));
      MlirOperation bad =
          pendingMisuse(mlirBlockGetArgument(body, position - 3 + 1), seen);
      if (mlirOperationIsNull(bad))
        bad = pendingMisuse(mlirOperationGetResult(user, position - 3), seen);
      if (!mlirOperationIsNull(bad))
        return bad;
      continue;
    }
    return user;
  }
  return (MlirOperation){NULL};
}

static void verifyPendingUses(TilusVerifier *v, MlirOperation op) {
  Seen seen = {NULL, 0, 0, false};
  MlirOperation bad = pendingMisuse(mlirOperationGetResult(op, 0), &seen);
  free(seen.values);
  if (seen.outOfMemory) {
    tilusVerifierError(v, op, "out of memory checking the accumulator's uses");
    return;
  }
  if (mlirOperationIsNull(bad))
    return;
  MlirIdentifier name = mlirOperationGetName(bad);
  MlirStringRef text = mlirIdentifierStr(name);
  tilusVerifierError(v, op,
                     "the accumulator is read by '%.*s' before a "
                     "tilus.wgmma_wait_group: wgmma results may only go to "
                     "wgmma_mma (as d), scf.for or wgmma_wait_group",
                     (int)text.length, text.data);
}

// How many wgmma groups are committed after the one holding `value`'s
// product and before `wait`: the commits between value's wgmma_mma and the
// wait in one block, less the one that closes the product's own group; -1
// when value is not the result of a wgmma_mma in wait's block before it.
static int64_t groupsCommittedAfter(MlirValue value, MlirOperation wait) {
  if (!mlirValueIsAOpResult(value))
    return -1;
  MlirOperation def = mlirOpResultGetOwner(value);
  if (!tilusOpIs(def, "tilus.wgmma_mma") ||
      !mlirBlockEqual(mlirOperationGetBlock(def), mlirOperationGetBlock(wait)))
    return -1;
  int64_t commits = 0;
  for (MlirOperation o = mlirOperationGetNextInBlock(def); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    if (mlirOperationEqual(o, wait))
      return commits - 1;
    if (tilusOpIs(o, "tilus.wgmma_commit_group"))
      ++commits;
  }
  return -1;
}

static void verifyWait(TilusVerifier *v, MlirOperation op) {
  intptr_t n = mlirOperationGetNumOperands(op);
  if (mlirOperationGetNumResults(op) != n)
    tilusVerifierError(v, op, "has a result exactly when it has a value");
  else if (n && !mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 0)),
                               mlirValueGetType(mlirOperationGetResult(op, 0))))
    tilusVerifierError(v, op, "the result must have the type of the value");
  int64_t pending;
  if (!tilusOpGetIntAttr(op, "n", &pending) || pending < 0)
    tilusVerifierError(v, op, "n must be a non-negative integer");
  else if (n && pending &&
           groupsCommittedAfter(mlirOperationGetOperand(op, 0), op) < pending)
    tilusVerifierError(v, op,
                       "a wait that returns a value needs n = 0, or n groups "
                       "committed after the value's own (its wgmma_mma in "
                       "this block): with n = %" PRId64
                       " the value's own group may still be running",
                       pending);
}

// Whether `value` is passed to a tilus.wgmma_wait_group that follows `op`
// in op's block.
static bool waitedAfter(MlirValue value, MlirOperation op) {
  MlirBlock block = mlirOperationGetBlock(op);
  for (MlirOpOperand use = mlirValueGetFirstUse(value);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!tilusOpIs(user, "tilus.wgmma_wait_group") ||
        !mlirBlockEqual(mlirOperationGetBlock(user), block))
      continue;
    for (MlirOperation o = mlirOperationGetNextInBlock(op); !mlirOperationIsNull(o);
         o = mlirOperationGetNextInBlock(o))
      if (mlirOperationEqual(o, user))
        return true;
  }
  return false;
}

// A register operand a is read by the asynchronous product until a wait
// retires it, but to the compilers below (LLVM, ptxas) its last use is the
// wgmma: an op between the two that computes new registers may be given
// a's, and the product then reads them overwritten (measured on the H100:
// wrong results, no warning). So up to a wgmma_wait_group with n = 0 after
// it in its block, only wgmma ops and ops that compute nothing may come,
// unless a is passed to such a wait, which keeps its registers live to
// there, or a comes from outside the scf.for whose body holds the product
// (it is live through the whole loop).
static void verifyRegisterOperandLive(TilusVerifier *v, MlirOperation op) {
  MlirValue a = tilusOpGetGroupOperand(op, TilusWgmmaA, 0);
  if (!tilusTypeIsARegister(mlirValueGetType(a)))
    return;
  MlirBlock block = mlirOperationGetBlock(op);
  MlirOperation parent = mlirBlockGetParentOperation(block);
  bool aDefinedHere = mlirValueIsAOpResult(a)
                          ? mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(a)),
                                           block)
                          : mlirBlockEqual(mlirBlockArgumentGetOwner(a), block);
  if ((!aDefinedHere && tilusOpIs(parent, "scf.for")) || waitedAfter(a, op))
    return;
  for (MlirOperation o = mlirOperationGetNextInBlock(op); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    int64_t n = -1;
    if (tilusOpIs(o, "tilus.wgmma_wait_group") && tilusOpGetIntAttr(o, "n", &n) &&
        n == 0)
      return;
    if (tilusOpIs(o, "tilus.wgmma_wait_group") || tilusOpIs(o, "tilus.wgmma_fence") ||
        tilusOpIs(o, "tilus.wgmma_commit_group") || tilusOpIs(o, "tilus.wgmma_mma"))
      continue;
    if (mlirOperationGetNumResults(o) == 0 && mlirOperationGetNumRegions(o) == 0 &&
        !tilusOpIs(o, "scf.yield"))
      continue;
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(o));
    tilusVerifierError(v, op,
                       "the register operand a may be overwritten while the "
                       "product still reads it: '%.*s' comes before a "
                       "wgmma_wait_group(0) retires it; wait first, or pass a "
                       "to that wait (wgmma_wait_group(0, a)) to keep its "
                       "registers",
                       (int)name.length, name.data);
    return;
  }
  tilusVerifierError(v, op,
                     "a register operand a needs a wgmma_wait_group(0) after "
                     "the product in its block (the product reads a's "
                     "registers until it is retired)");
}

bool tilusVerifyWgmmaOp(TilusVerifier *v, MlirOperation op, int64_t blockSize) {
  if (tilusOpIs(op, "tilus.wgmma_mma")) {
    verifyMma(v, op, blockSize);
    verifyPendingUses(v, op);
    verifyRegisterOperandLive(v, op);
    return true;
  }
  if (tilusOpIs(op, "tilus.wgmma_wait_group")) {
    verifyWait(v, op);
    return true;
  }
  return tilusOpIs(op, "tilus.wgmma_fence") ||
         tilusOpIs(op, "tilus.wgmma_commit_group");
}
