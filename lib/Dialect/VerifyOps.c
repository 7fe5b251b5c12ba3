//===- VerifyOps.c - The rules of each Tilus op ---------------------------===//
//
// IRDL has already checked each op's structure (operand, result and attribute
// kinds) when the module was verified; tilusOpVerifyStructure checks it again
// from the op schema (tilus-c/Ops.h), so that unverified IR gives an error
// instead of reads out of range, and operands are found by their group. These
// rules need arithmetic: shapes, layouts, offsets, bit counts. Operand types
// that do not decode were reported where they were defined, so the rules below
// skip them silently.
//
//===----------------------------------------------------------------------===//

#include "DynamicParams.h"
#include "VerifierInternal.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

// The type of the operand of the single operand group `group` (the op's
// structure has been checked, so it is there).
static MlirType groupType(MlirOperation op, intptr_t group) {
  return mlirValueGetType(tilusOpGetGroupOperand(op, group, 0));
}

static MlirType resultType(MlirOperation op) {
  return mlirValueGetType(mlirOperationGetResult(op, 0));
}

// Decodes a tensor type; false (silently) if it does not decode.
static bool decode(TilusVerifier *v, MlirType type, TilusTensorType *out) {
  return tilusVerifierDecode(v, type, out, NULL);
}

static bool sameShape(const TilusTensorType *a, const TilusTensorType *b) {
  if (a->rank != b->rank)
    return false;
  for (intptr_t d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d])
      return false;
  return true;
}

static void typeText(MlirType type, char *buffer, size_t size) {
  char *text = tilusPrintTypeToString(type);
  snprintf(buffer, size, "%s", text);
  free(text);
}

static int64_t bitWidth(MlirType type) {
  return tilusElementTypeGetBitWidth(type);
}

//===----------------------------------------------------------------------===//
// Transfers: a tile of rank r addresses the last r dimensions of a memory
// tensor of rank R >= r, at one offset per memory dimension.
//===----------------------------------------------------------------------===//

// The offsets are operand group `offsetsGroup`. Returns false after reporting
// the first problem.
static bool verifyTileAccess(TilusVerifier *v, MlirOperation op,
                             const TilusTensorType *memory,
                             const char *memoryRole, intptr_t tileRank,
                             const int64_t *tileShape, intptr_t offsetsGroup) {
  intptr_t offsetsStart, numOffsets;
  if (!tilusOpGetOperandGroup(op, offsetsGroup, &offsetsStart, &numOffsets))
    return false;
  const char *scope =
      memory->scope == TilusMemoryGlobal ? "global" : "shared";
  if (numOffsets != memory->rank) {
    tilusVerifierError(v, op,
                       "expects %" PRIdPTR " offsets for the %s tensor (one "
                       "per dimension), got %" PRIdPTR,
                       memory->rank, memoryRole, numOffsets);
    return false;
  }
  if (tileRank > memory->rank) {
    tilusVerifierError(v, op,
                       "a tile of rank %" PRIdPTR " cannot address the %s "
                       "tensor of rank %" PRIdPTR,
                       tileRank, memoryRole, memory->rank);
    return false;
  }
  intptr_t lead = memory->rank - tileRank;
  for (intptr_t d = 0; d < memory->rank; ++d) {
    int64_t extent = d < lead ? 1 : tileShape[d - lead];
    int64_t size = memory->shape[d];
    if (size != TILUS_DYNAMIC_DIM && memory->scope == TilusMemoryShared &&
        extent > size) {
      char tile[160], mem[160];
      tilusFormatShape(tile, sizeof(tile), tileRank, tileShape);
      tilusFormatShape(mem, sizeof(mem), memory->rank, memory->shape);
      tilusVerifierError(v, op,
                         "tile %s does not fit in the %s tensor %s (dimension "
                         "%" PRIdPTR ")",
                         tile, scope, mem, d);
      return false;
    }
    int64_t offset;
    MlirValue value = mlirOperationGetOperand(op, offsetsStart + d);
    if (!tilusValueGetConstantInt(value, &offset))
      continue;
    if (offset < 0) {
      tilusVerifierError(v, op,
                         "offset %" PRId64 " in dimension %" PRIdPTR
                         " of the %s tensor is negative",
                         offset, d, memoryRole);
      return false;
    }
    if (size == TILUS_DYNAMIC_DIM)
      continue;
    // Global tiles may overhang the edge (those elements are masked); shared
    // tiles must fit.
    // (extent <= size here, so size - extent cannot overflow; offset +
    // extent could.)
    bool fits = memory->scope == TilusMemoryGlobal ? offset < size
                                                   : offset <= size - extent;
    if (!fits) {
      tilusVerifierError(v, op,
                         "offset %" PRId64 " with tile extent %" PRId64
                         " is out of bounds in dimension %" PRIdPTR
                         " of the %s tensor (size %" PRId64 ")",
                         offset, extent, d, memoryRole, size);
      return false;
    }
  }
  return true;
}

bool tilusVerifierCheckTileAccess(TilusVerifier *v, MlirOperation op,
                                  const TilusTensorType *memory,
                                  const char *memoryRole, intptr_t tileRank,
                                  const int64_t *tileShape,
                                  intptr_t offsetsGroup) {
  return verifyTileAccess(v, op, memory, memoryRole, tileRank, tileShape,
                          offsetsGroup);
}

static void verifySameElementType(TilusVerifier *v, MlirOperation op,
                                  MlirType memory, const char *memoryRole,
                                  MlirType tile, const char *tileRole) {
  if (mlirTypeEqual(memory, tile))
    return;
  char a[96], b[96];
  typeText(memory, a, sizeof(a));
  typeText(tile, b, sizeof(b));
  tilusVerifierError(v, op,
                     "element types differ: the %s has '%s', the %s has '%s'",
                     memoryRole, a, tileRole, b);
}

// LoadGlobal has (src, offsets, fill, out), LoadShared (src, offsets, out);
// `fillGroup` is -1 for the latter.
static void verifyLoad(TilusVerifier *v, MlirOperation op, intptr_t srcGroup,
                       intptr_t offsetsGroup, intptr_t fillGroup) {
  TilusTensorType src, dst;
  if (!decode(v, groupType(op, srcGroup), &src))
    return;
  if (decode(v, resultType(op), &dst)) {
    verifySameElementType(v, op, src.elementType, "source", dst.elementType,
                          "result");
    verifyTileAccess(v, op, &src, "source", dst.rank, dst.shape, offsetsGroup);
    MlirValue fillValue = tilusOpGetGroupOperand(op, fillGroup, 0);
    MlirType fill = mlirValueIsNull(fillValue) ? (MlirType){NULL}
                                               : mlirValueGetType(fillValue);
    if (!mlirTypeIsNull(fill) && !mlirTypeEqual(fill, dst.elementType)) {
      char a[96], b[96];
      typeText(fill, a, sizeof(a));
      typeText(dst.elementType, b, sizeof(b));
      tilusVerifierError(v, op,
                         "the fill value has type '%s' but the element type "
                         "is '%s'",
                         a, b);
    }
    tilusTensorTypeRelease(&dst);
  }
  tilusTensorTypeRelease(&src);
}

// StoreGlobal and StoreShared have (value, dst, offsets).
static void verifyStore(TilusVerifier *v, MlirOperation op) {
  TilusTensorType value, dst;
  if (!decode(v, groupType(op, TilusStoreValue), &value))
    return;
  if (decode(v, groupType(op, TilusStoreDst), &dst)) {
    verifySameElementType(v, op, dst.elementType, "destination",
                          value.elementType, "stored value");
    verifyTileAccess(v, op, &dst, "destination", value.rank, value.shape,
                     TilusStoreOffsets);
    tilusTensorTypeRelease(&dst);
  }
  tilusTensorTypeRelease(&value);
}

// InThreadGroup: whole warpgroups inside the block (a named barrier per
// group, wgmma's alignment), not nested, and the condition of an scf.if
// without results or else branch (the group's body).
static void verifyInThreadGroup(TilusVerifier *v, MlirOperation op) {
  int64_t first = -1, count = -1;
  int64_t block = tilusKernelGetBlockSize(tilusGetEnclosingKernel(op));
  if (!tilusOpGetIntAttr(op, "first", &first) ||
      !tilusOpGetIntAttr(op, "count", &count) || first < 0 || count < 128 ||
      first % 128 || count % 128 || first + count > block) {
    tilusVerifierError(v, op,
                       "a thread group is whole warpgroups of the block: first "
                       "and count multiples of 128, count >= 128, first + "
                       "count <= %lld (the block size); got first %lld, count "
                       "%lld",
                       (long long)block, (long long)first, (long long)count);
    return;
  }
  if (tilusOpGetThreadGroup(op, NULL, NULL)) {
    tilusVerifierError(v, op, "thread groups do not nest");
    return;
  }
  MlirValue member = mlirOperationGetResult(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(member);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!tilusOpIs(user, "scf.if") || mlirOpOperandGetOperandNumber(use) != 0 ||
        mlirOperationGetNumResults(user) != 0 ||
        !mlirBlockIsNull(
            mlirRegionGetFirstBlock(mlirOperationGetRegion(user, 1)))) {
      tilusVerifierError(v, op,
                         "its result may only be the condition of an scf.if "
                         "without results or else branch (the group's body)");
      return;
    }
  }
}

// SetMaxRegisters: setmaxnreg is executed by whole warpgroups at once
// (.sync.aligned), so it sits directly in a thread group's body or in the
// kernel's body when the block is whole warpgroups; the count is what the
// PTX ISA allows.
static void verifySetMaxRegisters(TilusVerifier *v, MlirOperation op) {
  int64_t count = -1;
  MlirAttribute action = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("action"));
  if (!tilusOpGetIntAttr(op, "count", &count) || count < 24 || count > 256 ||
      count % 8) {
    tilusVerifierError(v, op,
                       "count must be a multiple of 8 from 24 to 256, not %lld",
                       (long long)count);
    return;
  }
  MlirStringRef a = mlirStringAttrGetValue(action);
  if (!((a.length == 3 && !memcmp(a.data, "inc", 3)) ||
        (a.length == 3 && !memcmp(a.data, "dec", 3)))) {
    tilusVerifierError(v, op, "action must be \"inc\" or \"dec\", not \"%.*s\"",
                       (int)a.length, a.data);
    return;
  }
  MlirOperation parent = mlirOperationGetParentOperation(op);
  MlirOperation kernel = tilusGetEnclosingKernel(op);
  // Groups do not nest: the op's parent is the group's scf.if exactly when
  // the op is in a group and the parent is not.
  bool inGroupBody = tilusOpIs(parent, "scf.if") &&
                     tilusOpGetThreadGroup(op, NULL, NULL) &&
                     !tilusOpGetThreadGroup(parent, NULL, NULL);
  bool inKernelBody = mlirOperationEqual(parent, kernel) &&
                      tilusKernelGetBlockSize(kernel) % 128 == 0;
  if (!inGroupBody && !inKernelBody)
    tilusVerifierError(v, op,
                       "whole warpgroups run set_max_registers together: it "
                       "must be directly in a thread group's body, or in the "
                       "kernel's body when the block size is a multiple of "
                       "128");
}

// Cluster ops: only in a kernel that runs in clusters; the cluster barrier
// waits for every thread of the cluster, so not in a thread group.
static void verifyClusterOp(TilusVerifier *v, MlirOperation op) {
  if (!tilusOpGetClusterSize(op)) {
    tilusVerifierError(v, op,
                       "needs a kernel that runs in thread-block clusters "
                       "(a '" TILUS_CLUSTER_ATTR "' attribute)");
    return;
  }
  if (tilusOpIs(op, "tilus.cluster_synchronize") &&
      tilusOpGetThreadGroup(op, NULL, NULL))
    tilusVerifierError(v, op,
                       "waits for every thread of the cluster, so it cannot "
                       "be in a thread group");
}

static void verifyCopyAsync(TilusVerifier *v, MlirOperation op) {
  MlirAttribute shapeAttr = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("shape"));
  if (mlirAttributeIsNull(shapeAttr) ||
      !mlirAttributeIsADenseI64Array(shapeAttr)) {
    tilusVerifierError(v, op, "the 'shape' attribute must be array<i64: ...>");
    return;
  }
  int64_t shape[TILUS_LAYOUT_MAX_RANK];
  intptr_t rank = mlirDenseArrayGetNumElements(shapeAttr);
  if (rank < 1 || rank > TILUS_LAYOUT_MAX_RANK) {
    tilusVerifierError(v, op, "the copied region must have rank 1 to %d, got "
                              "%" PRIdPTR,
                       TILUS_LAYOUT_MAX_RANK, rank);
    return;
  }
  for (intptr_t d = 0; d < rank; ++d) {
    shape[d] = mlirDenseI64ArrayGetElement(shapeAttr, d);
    if (shape[d] < 1) {
      tilusVerifierError(v, op,
                         "the copied region's dimension %" PRIdPTR
                         " is %" PRId64 "; it must be positive",
                         d, shape[d]);
      return;
    }
  }
  TilusTensorType dst, src;
  if (!decode(v, groupType(op, TilusCopyAsyncDst), &dst))
    return;
  if (decode(v, groupType(op, TilusCopyAsyncSrc), &src)) {
    verifySameElementType(v, op, src.elementType, "source", dst.elementType,
                          "destination");
    if (verifyTileAccess(v, op, &dst, "destination", rank, shape,
                         TilusCopyAsyncDstOffsets))
      verifyTileAccess(v, op, &src, "source", rank, shape,
                       TilusCopyAsyncSrcOffsets);
    tilusTensorTypeRelease(&src);
  }
  tilusTensorTypeRelease(&dst);
}

//===----------------------------------------------------------------------===//
// Allocation and views
//===----------------------------------------------------------------------===//

// AllocateGlobal and ViewGlobal: operand group `sizesGroup` gives the
// result's run-time dimensions.
static void verifyDynamicSizes(TilusVerifier *v, MlirOperation op,
                               intptr_t sizesGroup) {
  intptr_t sizesStart, numSizes;
  if (!tilusOpGetOperandGroup(op, sizesGroup, &sizesStart, &numSizes))
    return;
  TilusTensorType t;
  if (!decode(v, resultType(op), &t))
    return;
  intptr_t numDynamic = 0;
  for (intptr_t d = 0; d < t.rank; ++d)
    numDynamic += t.shape[d] == TILUS_DYNAMIC_DIM;
  if (numDynamic != numSizes)
    tilusVerifierError(v, op,
                       "expects %" PRIdPTR " size operands (one per run-time "
                       "dimension of the result), got %" PRIdPTR,
                       numDynamic, numSizes);
  tilusTensorTypeRelease(&t);
}

// The constant attribute `name` (allocate_register's `value`, load_global's
// `fill_value`) in the result's element type, and not with operand `group`.
static void verifyConstantAttr(TilusVerifier *v, MlirOperation op,
                               const char *name, intptr_t group,
                               const char *operandName) {
  MlirAttribute attr = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(attr))
    return;
  if (!mlirValueIsNull(tilusOpGetGroupOperand(op, group, 0))) {
    tilusVerifierError(v, op,
                       "takes the %s operand or the '%s' attribute, not both",
                       operandName, name);
    return;
  }
  TilusTensorType t;
  if (!decode(v, resultType(op), &t))
    return;
  TilusElementConstant c;
  char why[160];
  if (!tilusElementConstantGet(t.elementType, attr, &c, why, sizeof(why))) {
    char a[96];
    typeText(t.elementType, a, sizeof(a));
    tilusVerifierError(v, op, "the '%s' attribute is not a constant of '%s': %s",
                       name, a, why);
  }
  tilusTensorTypeRelease(&t);
}

// The result is x with its last two dimensions exchanged, element type and
// layout included (a view: nothing moves).
static void verifyTransposeShared(TilusVerifier *v, MlirOperation op) {
  TilusTensorType x, r;
  if (!decode(v, groupType(op, TilusMoveX), &x))
    return;
  if (!decode(v, resultType(op), &r)) {
    tilusTensorTypeRelease(&x);
    return;
  }
  bool shape = x.rank >= 2 && r.rank == x.rank;
  for (intptr_t d = 0; shape && d < x.rank; ++d) {
    intptr_t from = d == x.rank - 1 ? d - 1 : d == x.rank - 2 ? d + 1 : d;
    shape = r.shape[d] == x.shape[from];
  }
  TilusLayoutError err = {0};
  TilusLayout *t = shape ? tilusLayoutTranspose(x.layout, &err) : NULL;
  if (!shape) {
    tilusVerifierError(v, op, "the result must be x (rank >= 2) with its last "
                              "two dimensions exchanged");
  } else if (!mlirTypeEqual(x.elementType, r.elementType)) {
    tilusVerifierError(v, op, "the result must have x's element type");
  } else if (!t) {
    tilusVerifierError(v, op, "x's layout cannot be transposed: %s",
                       err.message);
  } else if (!tilusLayoutEqual(t, r.layout)) {
    char *want = tilusLayoutPrint(t);
    tilusVerifierError(v, op, "the result's layout must be x's transposed, "
                              "\"%s\"",
                       want ? want : "?");
    free(want);
  }
  tilusLayoutDestroy(t);
  tilusTensorTypeRelease(&x);
  tilusTensorTypeRelease(&r);
}

static void verifyAllocateRegister(TilusVerifier *v, MlirOperation op) {
  verifyConstantAttr(v, op, "value", TilusAllocateRegisterInit, "init");
  MlirValue initValue = tilusOpGetGroupOperand(op, TilusAllocateRegisterInit, 0);
  if (mlirValueIsNull(initValue))
    return;
  TilusTensorType t;
  if (!decode(v, resultType(op), &t))
    return;
  MlirType init = mlirValueGetType(initValue);
  bool ok = mlirTypeEqual(init, t.elementType) ||
            (tilusTypeIsAFloat(t.elementType) && mlirTypeIsAFloat(init));
  if (!ok) {
    char a[96], b[96];
    typeText(init, a, sizeof(a));
    typeText(t.elementType, b, sizeof(b));
    tilusVerifierError(v, op,
                       "the init value has type '%s' but the element type is "
                       "'%s'",
                       a, b);
  }
  tilusTensorTypeRelease(&t);
}

static void verifyBlockIndices(TilusVerifier *v, MlirOperation op) {
  intptr_t n = mlirOperationGetNumResults(op);
  if (n < 1 || n > 3) {
    tilusVerifierError(v, op, "expects 1 to 3 results, got %" PRIdPTR, n);
    return;
  }
  MlirAffineMap grid = tilusKernelGetGrid(tilusGetEnclosingKernel(op));
  if (!mlirAffineMapIsNull(grid) && n > mlirAffineMapGetNumResults(grid))
    tilusVerifierError(v, op,
                       "asks for %" PRIdPTR " indices but the kernel's grid "
                       "has %" PRIdPTR " dimension(s)",
                       n, mlirAffineMapGetNumResults(grid));
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

// Same shape, element type and layout (functionally), for elementwise ops.
static void verifySameTensor(TilusVerifier *v, MlirOperation op,
                             const TilusTensorType *a, const char *aRole,
                             const TilusTensorType *b, const char *bRole,
                             bool checkElementType) {
  if (!sameShape(a, b)) {
    char sa[160], sb[160];
    tilusFormatShape(sa, sizeof(sa), a->rank, a->shape);
    tilusFormatShape(sb, sizeof(sb), b->rank, b->shape);
    tilusVerifierError(v, op, "shapes differ: the %s is %s, the %s is %s", aRole, sa,
                       bRole, sb);
    return;
  }
  if (checkElementType && !mlirTypeEqual(a->elementType, b->elementType)) {
    verifySameElementType(v, op, a->elementType, aRole, b->elementType, bRole);
    return;
  }
  if (!tilusLayoutEqual(a->layout, b->layout)) {
    char *la = tilusLayoutPrint(a->layout);
    char *lb = tilusLayoutPrint(b->layout);
    tilusVerifierError(v, op, "layouts differ: the %s has '%s', the %s has '%s'",
                       aRole, la, bRole, lb);
    free(la);
    free(lb);
  }
}

// Neg keeps the type; Cast keeps shape and layout.
static void verifyUnary(TilusVerifier *v, MlirOperation op,
                        bool sameElementType) {
  TilusTensorType x, result;
  if (!decode(v, groupType(op, TilusUnaryX), &x))
    return;
  if (decode(v, resultType(op), &result)) {
    verifySameTensor(v, op, &x, "operand", &result, "result",
                     sameElementType);
    tilusTensorTypeRelease(&result);
  }
  tilusTensorTypeRelease(&x);
}

static void verifyView(TilusVerifier *v, MlirOperation op) {
  TilusTensorType x, result;
  if (!decode(v, groupType(op, TilusUnaryX), &x))
    return;
  if (decode(v, resultType(op), &result)) {
    int64_t tx = tilusLayoutGetNumThreads(x.layout);
    int64_t tr = tilusLayoutGetNumThreads(result.layout);
    int64_t mx = tilusLayoutGetLocalSize(x.layout);
    int64_t mr = tilusLayoutGetLocalSize(result.layout);
    int64_t bx = bitWidth(x.elementType), br = bitWidth(result.elementType);
    char ex[96], er[96];
    typeText(x.elementType, ex, sizeof(ex));
    typeText(result.elementType, er, sizeof(er));
    if (tx != tr)
      tilusVerifierError(v, op,
                         "a view keeps the thread count, but the operand has "
                         "%" PRId64 " threads and the result %" PRId64,
                         tx, tr);
    else if (bx && br && mx * bx != mr * br)
      tilusVerifierError(v, op,
                         "a view keeps the bits per thread, but the operand has "
                         "%" PRId64 " (%" PRId64 " x %s) and the result %" PRId64
                         " (%" PRId64 " x %s)",
                         mx * bx, mx, ex, mr * br, mr, er);
    tilusTensorTypeRelease(&result);
  }
  tilusTensorTypeRelease(&x);
}

// Dot multiplies standard types: floats of 16-64 bits, integers of 8-32 bits.
static bool isDotOperandType(MlirType type) {
  if (mlirTypeIsAFloat(type))
    return bitWidth(type) >= 16;
  if (mlirTypeIsAInteger(type)) {
    unsigned w = mlirIntegerTypeGetWidth(type);
    return w == 8 || w == 16 || w == 32;
  }
  return false;
}

static void verifyDot(TilusVerifier *v, MlirOperation op) {
  static const intptr_t groups[3] = {TilusDotA, TilusDotB, TilusDotC};
  TilusTensorType t[3];
  int decoded = 0;
  for (; decoded < 3; ++decoded)
    if (!decode(v, groupType(op, groups[decoded]), &t[decoded]))
      break;
  if (decoded == 3) {
    const TilusTensorType *a = &t[0], *b = &t[1], *c = &t[2];
    char ta[96], tb[96], tc[96];
    typeText(a->elementType, ta, sizeof(ta));
    typeText(b->elementType, tb, sizeof(tb));
    typeText(c->elementType, tc, sizeof(tc));
    if (a->rank != 2 || b->rank != 2 || c->rank != 2) {
      tilusVerifierError(v, op,
                         "dot needs rank-2 operands, got ranks %" PRIdPTR
                         ", %" PRIdPTR " and %" PRIdPTR,
                         a->rank, b->rank, c->rank);
    } else if (a->shape[1] != b->shape[0] || a->shape[0] != c->shape[0] ||
               b->shape[1] != c->shape[1]) {
      char sa[64], sb[64], sc[64];
      tilusFormatShape(sa, sizeof(sa), 2, a->shape);
      tilusFormatShape(sb, sizeof(sb), 2, b->shape);
      tilusFormatShape(sc, sizeof(sc), 2, c->shape);
      tilusVerifierError(v, op,
                         "dot shapes do not agree: a is %s, b is %s, c is %s "
                         "(expected a [M, K], b [K, N], c [M, N])",
                         sa, sb, sc);
    } else if (!mlirTypeEqual(a->elementType, b->elementType)) {
      tilusVerifierError(v, op,
                         "a and b must have the same element type, got '%s' "
                         "and '%s'",
                         ta, tb);
    } else if (!isDotOperandType(a->elementType)) {
      tilusVerifierError(v, op,
                         "dot operands must be floats of 16 to 64 bits or "
                         "integers of 8 to 32 bits; cast '%s' first",
                         ta);
    } else if (mlirTypeIsAFloat(a->elementType) !=
                   mlirTypeIsAFloat(c->elementType) ||
               bitWidth(c->elementType) < bitWidth(a->elementType) ||
               (mlirTypeIsAInteger(c->elementType) &&
                mlirIntegerTypeGetWidth(c->elementType) < 32)) {
      tilusVerifierError(v, op,
                         "the accumulator type '%s' cannot hold products of "
                         "'%s'",
                         tc, ta);
    }
  }
  for (int k = 0; k < decoded; ++k)
    tilusTensorTypeRelease(&t[k]);
}

static void verifyPrint(TilusVerifier *v, MlirOperation op) {
  MlirType type = groupType(op, TilusPrintX);
  if (tilusTypeIsATensor(type) || tilusElementTypeGetBitWidth(type) != 0)
    return;
  char text[96];
  typeText(type, text, sizeof(text));
  tilusVerifierError(v, op, "cannot print a value of type '%s'", text);
}

static void verifyWaitGroup(TilusVerifier *v, MlirOperation op) {
  MlirAttribute n = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("n"));
  if (!mlirAttributeIsNull(n) && mlirAttributeIsAInteger(n) &&
      mlirIntegerAttrGetValueInt(n) < 0)
    tilusVerifierError(v, op,
                       "waits for a negative number of groups (%" PRId64 ")",
                       mlirIntegerAttrGetValueInt(n));
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

void tilusVerifyOp(TilusVerifier *v, MlirOperation op, int64_t blockSize) {
  if (mlirLogicalResultIsFailure(tilusOpVerifyStructure(op))) {
    v->numErrors++; // reported at the op
    return;
  }
  if (tilusOpIs(op, "tilus.block_indices"))
    verifyBlockIndices(v, op);
  else if (tilusOpIs(op, "tilus.allocate_global"))
    verifyDynamicSizes(v, op, TilusAllocateGlobalSizes);
  else if (tilusOpIs(op, "tilus.view_global"))
    verifyDynamicSizes(v, op, TilusViewGlobalSizes);
  else if (tilusOpIs(op, "tilus.allocate_register"))
    verifyAllocateRegister(v, op);
  else if (tilusOpIs(op, "tilus.transpose_shared"))
    verifyTransposeShared(v, op);
  else if (tilusOpIs(op, "tilus.load_global")) {
    verifyLoad(v, op, TilusLoadGlobalSrc, TilusLoadGlobalOffsets,
               TilusLoadGlobalFill);
    verifyConstantAttr(v, op, "fill_value", TilusLoadGlobalFill, "fill");
  }
  else if (tilusOpIs(op, "tilus.load_shared"))
    verifyLoad(v, op, TilusLoadSharedSrc, TilusLoadSharedOffsets, -1);
  else if (tilusOpIs(op, "tilus.store_global") ||
           tilusOpIs(op, "tilus.store_shared"))
    verifyStore(v, op);
  else if (tilusOpIs(op, "tilus.copy_async"))
    verifyCopyAsync(v, op);
  else if (tilusOpIs(op, "tilus.copy_async_wait_group"))
    verifyWaitGroup(v, op);
  else if (tilusOpIs(op, "tilus.in_thread_group"))
    verifyInThreadGroup(v, op);
  else if (tilusOpIs(op, "tilus.set_max_registers"))
    verifySetMaxRegisters(v, op);
  else if (tilusOpIs(op, "tilus.cluster_block_rank") ||
           tilusOpIs(op, "tilus.cluster_synchronize"))
    verifyClusterOp(v, op);
  else if (tilusVerifyBroadcastOp(v, op))
    ; // binary ops, cmp, where, clamp (VerifyElementwise.c)
  else if (tilusIsUnaryMathOp(op)) {
    if (tilusVerifyUnaryMathElements(v, op))
      verifyUnary(v, op, true);
  } else if (tilusOpIs(op, "tilus.neg"))
    verifyUnary(v, op, true);
  else if (tilusOpIs(op, "tilus.cast"))
    verifyUnary(v, op, false);
  else if (tilusOpIs(op, "tilus.view"))
    verifyView(v, op);
  else if (tilusOpIs(op, "tilus.dot"))
    verifyDot(v, op);
  else if (tilusOpIs(op, "tilus.print"))
    verifyPrint(v, op);
  else if (tilusOpIs(op, "tilus.reduce") ||
           tilusOpIs(op, "tilus.convert_layout") ||
           tilusOpIs(op, "tilus.permute") || tilusOpIs(op, "tilus.reshape"))
    tilusVerifyDataMovementOp(v, op);
  else
    tilusVerifyWgmmaOp(v, op, blockSize);
}
