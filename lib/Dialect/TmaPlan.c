//===- TmaPlan.c - How a tilus.tma_load is carried out --------------------===//
//
// A tensor-memory copy moves a box of a global tensor to or from shared
// memory, where the box is row-major, its 16-byte chunks permuted by one of
// TMA's swizzle modes. The shared tensor's layout decides the boxes: row-major is one box of the tile;
// a K-major wgmma operand layout with a W-byte swizzle (LayoutMmaShared.c:
// the tile's columns in blocks of W bytes stored one after another, chunk c
// of row r at c ^ ((r >> log2(128 / W)) mod (W / 16))) is one box per block,
// the same permutation TMA applies to address bits [4, 7) from the bits
// above the W-byte row, provided each box starts on a multiple of 8 rows of
// W bytes. The global tensor decides the tensor map: the runtime builds it at each
// launch from the kernel's arguments (docs/artifact.md), so its base and
// run-time extents must be kernel arguments.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/DataMovement.h"

#include "Utils/Why.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/Ops.h"

#include <inttypes.h>
#include <stdio.h>

// The value `v` came from, through the casts that lowerings insert
// (tilus-to-gpu retypes kernel arguments behind unrealized casts) and
// index casts.
static MlirValue throughCasts(MlirValue v) {
  while (mlirValueIsAOpResult(v)) {
    MlirOperation def = mlirOpResultGetOwner(v);
    if (mlirOperationGetNumOperands(def) != 1 ||
        !(tilusOpIs(def, "builtin.unrealized_conversion_cast") ||
          tilusOpIs(def, "arith.index_cast") ||
          tilusOpIs(def, "arith.index_castui")))
      return v;
    v = mlirOperationGetOperand(def, 0);
  }
  return v;
}

// The argument number of `v` if it is an argument of a kernel's entry
// block, else -1.
static int64_t kernelArgument(MlirValue v) {
  if (!mlirValueIsABlockArgument(v))
    return -1;
  MlirBlock block = mlirBlockArgumentGetOwner(v);
  MlirOperation parent = mlirBlockGetParentOperation(block);
  if (mlirOperationIsNull(parent) ||
      !(tilusOpIs(parent, "func.func") || tilusOpIs(parent, "gpu.func")) ||
      !mlirBlockEqual(mlirRegionGetFirstBlock(mlirOperationGetRegion(parent, 0)),
                      block))
    return -1;
  return mlirBlockArgumentGetArgNumber(v);
}

// The operand groups of the shared and the global tensor's offsets
// (tilus.tma_load: bars between; tilus.tma_store: none).
static intptr_t sharedOffsetsGroup(MlirOperation op) {
  return tilusOpIs(op, "tilus.tma_store") ? TilusTmaStoreSharedOffsets
                                          : TilusTmaDstOffsets;
}
static intptr_t globalOffsetsGroup(MlirOperation op) {
  return tilusOpIs(op, "tilus.tma_store") ? TilusTmaStoreGlobalOffsets
                                          : TilusTmaSrcOffsets;
}

static bool constantIndex(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v) ||
      !tilusOpIs(mlirOpResultGetOwner(v), "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(
      mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("value"));
  if (!mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

// The global tensor's map: base and extents from kernel arguments.
static bool planGlobal(MlirOperation op, const TilusTensorType *global,
                       TilusTmaPlan *plan, char *why, size_t size) {
  MlirValue value = tilusOpGetGroupOperand(op, TilusTmaGlobal, 0);
  MlirOperation view =
      mlirValueIsAOpResult(value) ? mlirOpResultGetOwner(value)
                                  : (MlirOperation){NULL};
  if (mlirOperationIsNull(view) || !tilusOpIs(view, "tilus.view_global"))
    return tilusWhy(why, size,
                "the global tensor must be a tilus.view_global of a kernel argument "
                "(the runtime builds the tensor map from the kernel's "
                "arguments at launch)");
  plan->ptrArg = kernelArgument(
      throughCasts(tilusOpGetGroupOperand(view, TilusViewGlobalPtr, 0)));
  if (plan->ptrArg < 0)
    return tilusWhy(why, size,
                "the global tensor's pointer must be an argument of the kernel (the "
                "runtime builds the tensor map from it at launch)");
  intptr_t start, count, next = 0;
  if (!tilusOpGetOperandGroup(view, TilusViewGlobalSizes, &start, &count))
    return tilusWhy(why, size, "the global tensor's view has no sizes");
  for (intptr_t d = 0; d < global->rank; ++d) {
    plan->dimArg[d] = -1;
    plan->dim[d] = global->shape[d];
    if (global->shape[d] != TILUS_DYNAMIC_DIM)
      continue;
    if (next >= count)
      return tilusWhy(why, size, "the global tensor's view has too few sizes");
    MlirValue s = throughCasts(mlirOperationGetOperand(view, start + next++));
    if (constantIndex(s, &plan->dim[d]))
      continue;
    plan->dimArg[d] = kernelArgument(s);
    if (plan->dimArg[d] < 0 ||
        !mlirTypeIsAInteger(mlirValueGetType(s)))
      return tilusWhy(why, size,
                  "the global tensor's size %" PRIdPTR " must be an integer argument "
                  "of the kernel or a constant (the runtime builds the tensor "
                  "map from the kernel's arguments at launch); it is computed "
                  "in the kernel",
                  d);
  }
  for (intptr_t d = 0; d < global->rank; ++d)
    if (plan->dimArg[d] < 0 && plan->dim[d] < 1)
      return tilusWhy(why, size,
                  "the global tensor's dimension %" PRIdPTR " is %lld; TMA needs "
                  "positive extents",
                  d, (long long)plan->dim[d]);
  return true;
}

// Boxes and swizzle from the shared tensor's layout; `r` is the tile's rank,
// `shape` its extents.
static bool planShared(MlirOperation op, const TilusTensorType *shared,
                            intptr_t r, const int64_t *shape,
                            TilusTmaPlan *plan, char *why, size_t size) {
  intptr_t lead = shared->rank - r;
  intptr_t start, count;
  if (!tilusOpGetOperandGroup(op, sharedOffsetsGroup(op), &start, &count) ||
      count != shared->rank)
    return tilusWhy(why, size, "the shared tensor needs one offset per dimension");
  // The tile fills the trailing dimensions, except that a 2-D tile may be a
  // range of the rows at a constant offset, checked below.
  int64_t rowOffset = 0;
  for (intptr_t d = 0; d < r; ++d) {
    int64_t offset = -1;
    bool rows = r == 2 && d == 0;
    if (!constantIndex(mlirOperationGetOperand(op, start + lead + d), &offset) ||
        (rows ? offset < 0 || offset + shape[d] > shared->shape[lead + d]
              : offset != 0 || shared->shape[lead + d] != shape[d]))
      return tilusWhy(why, size,
                  "the tile must fill the shared tensor's last %" PRIdPTR
                  " dimensions (a 2-D tile may be a range of its rows at a "
                  "constant offset; the leading offsets pick the stage)",
                  r);
    if (rows)
      rowOffset = offset;
  }
  int64_t eb = plan->elementBytes, bits = 8 * eb;
  TilusLayoutError err;
  TilusLayout *rowMajor =
      tilusLayoutCreateLocal((int64_t)shared->rank, shared->shape, &err);
  bool plain = rowMajor && tilusLayoutEqual(shared->layout, rowMajor);
  tilusLayoutDestroy(rowMajor);
  int64_t *box = plan->box + (plan->rank - r);
  if (plain) {
    int64_t bytes = eb;
    for (intptr_t d = 0; d < r; ++d) {
      box[d] = shape[d];
      bytes *= shape[d];
    }
    plan->swizzleBytes = 0;
    plan->numBoxes = 1;
    plan->boxBytes = plan->boxStride = bytes;
    plan->sharedAlignment = 128;
    if (r == 2 && rowOffset * (bytes / shape[0]) % 128)
      return tilusWhy(why, size,
                  "a range of rows of a row-major tile must start on a "
                  "multiple of 128 bytes (TMA's alignment); row %lld starts "
                  "at byte %lld",
                  (long long)rowOffset,
                  (long long)(rowOffset * (bytes / shape[0])));
  } else {
    TilusMmaSharedOperand m;
    if (r != 2 || !tilusLayoutMatchMmaShared(shared->layout, 1, bits, &m) ||
        m.swizzle == TilusMmaSwizzleNone)
      return tilusWhy(why, size,
                  "TMA writes its box row-major or in a swizzled K-major "
                  "wgmma operand layout (tilus.mma_shared with a 32, 64 or "
                  "128-byte swizzle); the shared tensor's layout is neither");
    int64_t w = m.swizzle == TilusMmaSwizzle128B  ? 128
                : m.swizzle == TilusMmaSwizzle64B ? 64
                                                  : 32;
    box[0] = shape[0];
    box[1] = w / eb;
    plan->swizzleBytes = w;
    plan->numBoxes = shape[1] * eb / w;
    plan->boxBytes = shape[0] * w;
    plan->boxStride = shared->shape[lead] * w; // the layout's rows
    plan->sharedAlignment = 8 * w > 128 ? 8 * w : 128;
    if (rowOffset % 8)
      return tilusWhy(why, size,
                  "a range of rows of a swizzled tile must start on a "
                  "multiple of 8 rows (a whole swizzle pattern), not row "
                  "%lld",
                  (long long)rowOffset);
  }
  for (intptr_t d = 0; d < r; ++d)
    if (box[d] > TILUS_TMA_MAX_BOX)
      return tilusWhy(why, size,
                  "a TMA box has at most %d elements per dimension; the "
                  "tile's dimension %" PRIdPTR " needs %lld",
                  TILUS_TMA_MAX_BOX, d, (long long)box[d]);
  if (box[r - 1] * eb % 16)
    return tilusWhy(why, size,
                "TMA copies rows of whole 16-byte chunks; the tile's rows "
                "have %lld bytes",
                (long long)(box[r - 1] * eb));
  // Each stage (a leading index) starts a whole number of tiles from the
  // tensor's aligned base.
  if (lead > 0 && plan->numBoxes * plan->boxStride % plan->sharedAlignment)
    return tilusWhy(why, size,
                "each stage of the shared tensor must start on a multiple of "
                "%lld bytes (TMA's alignment for this box); a tile has %lld",
                (long long)plan->sharedAlignment,
                (long long)(plan->numBoxes * plan->boxStride));
  return true;
}

bool tilusTmaPlanGetBoxes(MlirOperation op, const TilusTensorType *shared,
                          const TilusTensorType *global, TilusTmaPlan *plan,
                          char *why, size_t whySize) {
  *plan = (TilusTmaPlan){0};
  MlirAttribute shapeAttr = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("shape"));
  if (mlirAttributeIsNull(shapeAttr) || !mlirAttributeIsADenseI64Array(shapeAttr))
    return tilusWhy(why, whySize, "the 'shape' attribute must be array<i64: ...>");
  intptr_t r = mlirDenseArrayGetNumElements(shapeAttr);
  if (r < 1 || r > global->rank || r > shared->rank || global->rank > TILUS_TMA_MAX_RANK)
    return tilusWhy(why, whySize,
                "the tile's rank (%" PRIdPTR ") must be from 1 to the ranks "
                "of the global tensor (%" PRIdPTR ", at most %d for TMA) and of "
                "the shared one (%" PRIdPTR ")",
                r, global->rank, TILUS_TMA_MAX_RANK, shared->rank);
  int64_t shape[TILUS_TMA_MAX_RANK];
  for (intptr_t d = 0; d < r; ++d) {
    shape[d] = mlirDenseI64ArrayGetElement(shapeAttr, d);
    if (shape[d] < 1)
      return tilusWhy(why, whySize, "the tile's dimension %" PRIdPTR " is %lld",
                  d, (long long)shape[d]);
  }
  int64_t bits = tilusElementTypeGetBitWidth(global->elementType);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return tilusWhy(why, whySize,
                "TMA copies elements of 8, 16, 32 or 64 bits, not %lld (view "
                "packed narrower elements as bytes)",
                (long long)bits);
  plan->elementBytes = bits / 8;
  plan->rank = global->rank;
  // A box starts on a 16-byte boundary of its rows (measured on the H100:
  // another start is an illegal instruction); the lowering proves it of
  // offsets that are not constants.
  intptr_t start, count;
  int64_t first = 0;
  if (tilusOpGetOperandGroup(op, globalOffsetsGroup(op), &start, &count) &&
      count == global->rank &&
      constantIndex(mlirOperationGetOperand(op, start + count - 1), &first) &&
      first * plan->elementBytes % 16)
    return tilusWhy(why, whySize,
                "TMA starts a box on a 16-byte boundary of the global tensor's rows: "
                "the innermost offset must be a multiple of %lld elements, not "
                "%lld",
                (long long)(16 / plan->elementBytes), (long long)first);
  for (intptr_t d = 0; d < global->rank; ++d)
    plan->box[d] = 1;
  return planShared(op, shared, r, shape, plan, why, whySize);
}

bool tilusTmaPlanGet(MlirOperation op, const TilusTensorType *shared,
                     const TilusTensorType *global, TilusTmaPlan *plan, char *why,
                     size_t whySize) {
  return tilusTmaPlanGetBoxes(op, shared, global, plan, why, whySize) &&
         planGlobal(op, global, plan, why, whySize);
}

int tilusTmaPlanPrintMap(const TilusTmaPlan *plan, char *out, size_t size) {
  // At most 3 + 5 * 21 + 4 + 5 * 4 + 12 characters.
  char text[256];
  int n = snprintf(text, sizeof text, "%lld %lld %lld", (long long)plan->ptrArg,
                   (long long)plan->elementBytes, (long long)plan->rank);
  for (int64_t d = 0; d < plan->rank; ++d)
    n += snprintf(text + n, sizeof text - (size_t)n,
                  plan->dimArg[d] >= 0 ? " s%lld" : " %lld",
                  (long long)(plan->dimArg[d] >= 0 ? plan->dimArg[d]
                                                   : plan->dim[d]));
  n += snprintf(text + n, sizeof text - (size_t)n, " box");
  for (int64_t d = 0; d < plan->rank; ++d)
    n += snprintf(text + n, sizeof text - (size_t)n, " %lld",
                  (long long)plan->box[d]);
  n += snprintf(text + n, sizeof text - (size_t)n, " swizzle %lld",
                (long long)plan->swizzleBytes);
  return snprintf(out, size, "%s", text);
}
