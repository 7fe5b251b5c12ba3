//===- OpSchema.c - The operand groups of every Tilus op ------------------===//
//
// The table below is dialect/tilus.irdl.mlir in C: each op's operand groups,
// result groups and required attributes, in the IRDL's order and with the
// IRDL's names. test/unit/OpSchemaTest.c loads the IRDL and fails on any
// difference, so a change to an op in the IRDL must be made here too.
//
// From the table follow the positions of operands (replacing operand
// arithmetic and operandSegmentSizes read or written by hand), the checks that
// keep readers of unverified IR in range, and the builders.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Ops.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "tilus-c/Dialect.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

#define SINGLE(name) {name, TilusVariadicitySingle}
#define OPTIONAL(name) {name, TilusVariadicityOptional}
#define VARIADIC(name) {name, TilusVariadicityVariadic}
// A count and a pointer to a constant array (a compound literal at file scope
// has static storage).
#define GROUPS(...)                                                            \
  (intptr_t)(sizeof((const TilusOpSchemaGroup[]){__VA_ARGS__}) /             \
             sizeof(TilusOpSchemaGroup)),                                      \
      (const TilusOpSchemaGroup[]){__VA_ARGS__}
#define NO_GROUPS 0, NULL
#define ATTRIBUTES(...)                                                        \
  (intptr_t)(sizeof((const char *const[]){__VA_ARGS__}) /                    \
             sizeof(const char *)),                                            \
      (const char *const[]){__VA_ARGS__}
#define NO_ATTRIBUTES 0, NULL

// Each entry: name, operand groups, result groups, attributes; in the
// IRDL's order.
static const TilusOpSchema schemas[] = {
    // Indexing
    {"tilus.cluster_block_rank", NO_GROUPS, GROUPS(SINGLE("rank")),
     NO_ATTRIBUTES},
    {"tilus.cluster_synchronize", NO_GROUPS, NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.block_indices", NO_GROUPS, GROUPS(VARIADIC("indices")),
     NO_ATTRIBUTES},
    // Tensor creation
    {"tilus.allocate_global", GROUPS(VARIADIC("sizes")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.allocate_shared", NO_GROUPS, GROUPS(SINGLE("result")),
     NO_ATTRIBUTES},
    {"tilus.transpose_shared", GROUPS(SINGLE("x")), GROUPS(SINGLE("result")),
     NO_ATTRIBUTES},
    {"tilus.allocate_register", GROUPS(OPTIONAL("init")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.view_global", GROUPS(SINGLE("ptr"), VARIADIC("sizes")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    // Tensor transfer
    {"tilus.load_global",
     GROUPS(SINGLE("src"), VARIADIC("offsets"), OPTIONAL("fill"),
            OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.load_shared",
     GROUPS(SINGLE("src"), VARIADIC("offsets"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.store_global",
     GROUPS(SINGLE("value"), SINGLE("dst"), VARIADIC("offsets")), NO_GROUPS,
     NO_ATTRIBUTES},
    {"tilus.store_shared",
     GROUPS(SINGLE("value"), SINGLE("dst"), VARIADIC("offsets")), NO_GROUPS,
     NO_ATTRIBUTES},
    {"tilus.copy_async",
     GROUPS(SINGLE("dst"), SINGLE("src"), VARIADIC("dst_offsets"),
            VARIADIC("src_offsets")),
     NO_GROUPS, ATTRIBUTES("shape")},
    {"tilus.copy_async_commit_group", NO_GROUPS, NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.copy_async_wait_group", NO_GROUPS, NO_GROUPS, ATTRIBUTES("n")},
    // Register tensor computation
    {"tilus.add", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.sub", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.mul", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.div", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.mod", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.neg", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    // Elementwise instructions for LLM kernels (issue 11)
    {"tilus.max", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.min", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.and", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.or", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.xor", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.shl", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.shr", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.abs", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.exp", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.exp2", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.log", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.log2", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.sqrt", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.rsqrt", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.tanh", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.sin", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.cos", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.not", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.cmp", GROUPS(SINGLE("lhs"), SINGLE("rhs"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), ATTRIBUTES("predicate")},
    {"tilus.where",
     GROUPS(SINGLE("cond"), SINGLE("a"), SINGLE("b"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.clamp",
     GROUPS(SINGLE("x"), SINGLE("lo"), SINGLE("hi"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.cast", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.view", GROUPS(SINGLE("x"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.dot",
     GROUPS(SINGLE("a"), SINGLE("b"), SINGLE("c"), OPTIONAL("out")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    // Reductions and data movement (issue 11)
    {"tilus.reduce", GROUPS(SINGLE("x")), GROUPS(SINGLE("result")),
     ATTRIBUTES("dims", "kind")},
    {"tilus.convert_layout", GROUPS(SINGLE("x")), GROUPS(SINGLE("result")),
     NO_ATTRIBUTES},
    {"tilus.permute", GROUPS(SINGLE("x")), GROUPS(SINGLE("result")),
     ATTRIBUTES("dims")},
    {"tilus.reshape", GROUPS(SINGLE("x")), GROUPS(SINGLE("result")),
     NO_ATTRIBUTES},
    // Control and debugging
    {"tilus.synchronize", NO_GROUPS, NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.exit", NO_GROUPS, NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.print", GROUPS(SINGLE("x")), NO_GROUPS, NO_ATTRIBUTES},
    // Atomics
    {"tilus.atomic_rmw",
     GROUPS(SINGLE("mem"), VARIADIC("offsets"), SINGLE("value")),
     GROUPS(SINGLE("old")), ATTRIBUTES("kind")},
    {"tilus.atomic_cas",
     GROUPS(SINGLE("mem"), VARIADIC("offsets"), SINGLE("compare"),
            SINGLE("value")),
     GROUPS(SINGLE("old")), NO_ATTRIBUTES},
    {"tilus.atomic_add_global",
     GROUPS(SINGLE("value"), SINGLE("dst"), VARIADIC("offsets")), NO_GROUPS,
     NO_ATTRIBUTES},
    {"tilus.semaphore_wait",
     GROUPS(SINGLE("counters"), VARIADIC("offsets"), SINGLE("value")),
     NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.semaphore_signal",
     GROUPS(SINGLE("counters"), VARIADIC("offsets"), SINGLE("value")),
     NO_GROUPS, NO_ATTRIBUTES},
    // Warpgroup matrix multiply (Hopper)
    {"tilus.wgmma_fence", NO_GROUPS, NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.wgmma_mma",
     GROUPS(SINGLE("a"), SINGLE("b"), SINGLE("d"), VARIADIC("a_offsets"),
            VARIADIC("b_offsets")),
     GROUPS(SINGLE("result")), NO_ATTRIBUTES},
    {"tilus.wgmma_commit_group", NO_GROUPS, NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.wgmma_wait_group", GROUPS(OPTIONAL("value")),
     GROUPS(OPTIONAL("result")), ATTRIBUTES("n")},
    // Barriers in shared memory (Hopper)
    {"tilus.mbarrier_init",
     GROUPS(SINGLE("bars"), VARIADIC("offsets"), SINGLE("count")), NO_GROUPS,
     NO_ATTRIBUTES},
    {"tilus.mbarrier_arrive", GROUPS(SINGLE("bars"), VARIADIC("offsets")),
     NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.copy_async_mbarrier_arrive",
     GROUPS(SINGLE("bars"), VARIADIC("offsets")), NO_GROUPS, NO_ATTRIBUTES},
    {"tilus.mbarrier_arrive_remote",
     GROUPS(SINGLE("bars"), VARIADIC("offsets"), SINGLE("cta")), NO_GROUPS,
     NO_ATTRIBUTES},
    {"tilus.mbarrier_arrive_expect_tx",
     GROUPS(SINGLE("bars"), VARIADIC("offsets"), SINGLE("bytes")), NO_GROUPS,
     NO_ATTRIBUTES},
    {"tilus.mbarrier_wait",
     GROUPS(SINGLE("bars"), VARIADIC("offsets"), SINGLE("phase")), NO_GROUPS,
     NO_ATTRIBUTES},
    // Thread groups (warp specialization)
    {"tilus.in_thread_group", NO_GROUPS, GROUPS(SINGLE("member")),
     ATTRIBUTES("first", "count")},
    {"tilus.set_max_registers", NO_GROUPS, NO_GROUPS,
     ATTRIBUTES("count", "action")},
    // Tensor-memory copies (Hopper)
    {"tilus.tma_load",
     GROUPS(SINGLE("dst"), SINGLE("src"), SINGLE("bars"), VARIADIC("dst_offsets"),
            VARIADIC("src_offsets"), VARIADIC("bar_offsets")),
     NO_GROUPS, ATTRIBUTES("shape")},
    {"tilus.tma_store",
     GROUPS(SINGLE("src"), SINGLE("dst"), VARIADIC("src_offsets"),
            VARIADIC("dst_offsets")),
     NO_GROUPS, ATTRIBUTES("shape")},
};

#define NUM_SCHEMAS ((intptr_t)(sizeof(schemas) / sizeof(schemas[0])))

//===----------------------------------------------------------------------===//
// Lookup
//===----------------------------------------------------------------------===//

static bool refEquals(MlirStringRef a, const char *b) {
  size_t n = strlen(b);
  return a.length == n && memcmp(a.data, b, n) == 0;
}

intptr_t tilusOpSchemaGetNumOps(void) { return NUM_SCHEMAS; }

const TilusOpSchema *tilusOpSchemaGetAt(intptr_t index) {
  return index >= 0 && index < NUM_SCHEMAS ? &schemas[index] : NULL;
}

const TilusOpSchema *tilusOpSchemaLookup(MlirStringRef opName) {
  for (intptr_t k = 0; k < NUM_SCHEMAS; ++k)
    if (refEquals(opName, schemas[k].name))
      return &schemas[k];
  return NULL;
}

const TilusOpSchema *tilusOpSchemaGet(MlirOperation op) {
  if (mlirOperationIsNull(op))
    return NULL;
  return tilusOpSchemaLookup(mlirIdentifierStr(mlirOperationGetName(op)));
}

intptr_t tilusOpSchemaFindOperandGroup(const TilusOpSchema *schema,
                                       const char *name) {
  for (intptr_t k = 0; schema && k < schema->numOperandGroups; ++k)
    if (strcmp(schema->operandGroups[k].name, name) == 0)
      return k;
  return -1;
}

static intptr_t countNonSingle(intptr_t numGroups,
                               const TilusOpSchemaGroup *groups) {
  intptr_t n = 0;
  for (intptr_t k = 0; k < numGroups; ++k)
    n += groups[k].variadicity != TilusVariadicitySingle;
  return n;
}

bool tilusOpSchemaNeedsOperandSegmentSizes(const TilusOpSchema *schema) {
  return countNonSingle(schema->numOperandGroups, schema->operandGroups) > 1;
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

// A message being written into a caller's buffer; writes past its end are
// dropped (messages here are a few names and numbers, far below the sizes
// used), and a NULL buffer takes nothing.
typedef struct {
  char *text;
  size_t size, used;
} Message;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void say(Message *m, const char *format, ...) {
  if (!m || !m->text || m->used + 1 >= m->size)
    return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(m->text + m->used, m->size - m->used, format, args);
  va_end(args);
  if (n > 0)
    m->used += (size_t)n < m->size - m->used ? (size_t)n : m->size - m->used - 1;
}

// "(src, offsets..., [fill], [out])"
static void sayGroups(Message *m, intptr_t numGroups,
                      const TilusOpSchemaGroup *groups) {
  say(m, "(");
  for (intptr_t k = 0; k < numGroups; ++k) {
    const char *sep = k ? ", " : "";
    switch (groups[k].variadicity) {
    case TilusVariadicitySingle:
      say(m, "%s%s", sep, groups[k].name);
      break;
    case TilusVariadicityOptional:
      say(m, "%s[%s]", sep, groups[k].name);
      break;
    case TilusVariadicityVariadic:
      say(m, "%s%s...", sep, groups[k].name);
      break;
    }
  }
  say(m, ")");
}

static const char *variadicityName(TilusVariadicity v) {
  switch (v) {
  case TilusVariadicitySingle:
    return "single";
  case TilusVariadicityOptional:
    return "optional";
  case TilusVariadicityVariadic:
    return "variadic";
  }
  return "?";
}

// What a group of `v` may hold, for messages.
static const char *allowedSizes(TilusVariadicity v) {
  switch (v) {
  case TilusVariadicitySingle:
    return "exactly 1 operand";
  case TilusVariadicityOptional:
    return "0 or 1 operands";
  case TilusVariadicityVariadic:
    return "0 or more operands";
  }
  return "?";
}

static bool sizeFits(int64_t size, TilusVariadicity v) {
  switch (v) {
  case TilusVariadicitySingle:
    return size == 1;
  case TilusVariadicityOptional:
    return size == 0 || size == 1;
  case TilusVariadicityVariadic:
    return size >= 0;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Locating groups
//===----------------------------------------------------------------------===//

// Checks a count of values (operands or results, `what`) against groups of
// which at most one is optional or variadic, where sizes follow from the count.
static bool countFits(intptr_t count, intptr_t numGroups,
                      const TilusOpSchemaGroup *groups, const char *what,
                      Message *why) {
  intptr_t numSingle = 0;
  bool unbounded = false, optional = false;
  for (intptr_t k = 0; k < numGroups; ++k) {
    numSingle += groups[k].variadicity == TilusVariadicitySingle;
    unbounded |= groups[k].variadicity == TilusVariadicityVariadic;
    optional |= groups[k].variadicity == TilusVariadicityOptional;
  }
  bool fits = count >= numSingle &&
              (unbounded || count <= numSingle + (optional ? 1 : 0));
  if (fits)
    return true;
  if (unbounded)
    say(why, "expects at least %" PRIdPTR " %s%s ", numSingle, what,
        numSingle == 1 ? "" : "s");
  else if (optional)
    say(why, "expects %" PRIdPTR " or %" PRIdPTR " %ss ", numSingle,
        numSingle + 1, what);
  else
    say(why, "expects %" PRIdPTR " %s%s ", numSingle, what,
        numSingle == 1 ? "" : "s");
  sayGroups(why, numGroups, groups);
  say(why, ", got %" PRIdPTR, count);
  return false;
}

// Checks `op`'s operands against `s` as a whole, then finds group `group`
// (nothing to find when `group` is -1). On failure says why.
static bool locate(MlirOperation op, const TilusOpSchema *s, intptr_t group,
                   intptr_t *start, intptr_t *count, Message *why) {
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  intptr_t numGroups = s->numOperandGroups;
  const TilusOpSchemaGroup *groups = s->operandGroups;
  intptr_t groupStart = 0, groupCount = 0;

  if (tilusOpSchemaNeedsOperandSegmentSizes(s)) {
    MlirAttribute sizes = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString(TILUS_OPERAND_SEGMENT_SIZES_ATTR));
    if (mlirAttributeIsNull(sizes) || !mlirAttributeIsADenseI32Array(sizes)) {
      say(why,
          "needs '" TILUS_OPERAND_SEGMENT_SIZES_ATTR "' = array<i32: ...> "
          "with the size of each operand group ");
      sayGroups(why, numGroups, groups);
      return false;
    }
    intptr_t numSizes = mlirDenseArrayGetNumElements(sizes);
    if (numSizes != numGroups) {
      say(why,
          "'" TILUS_OPERAND_SEGMENT_SIZES_ATTR "' has %" PRIdPTR
          " elements, expected %" PRIdPTR " (one per operand group ",
          numSizes, numGroups);
      sayGroups(why, numGroups, groups);
      say(why, ")");
      return false;
    }
    int64_t sum = 0;
    for (intptr_t k = 0; k < numGroups; ++k) {
      int32_t size = mlirDenseI32ArrayGetElement(sizes, k);
      if (!sizeFits(size, groups[k].variadicity)) {
        say(why,
            "'" TILUS_OPERAND_SEGMENT_SIZES_ATTR "' gives the %s operand "
            "group '%s' %" PRId32 " operands; it takes %s",
            variadicityName(groups[k].variadicity), groups[k].name, size,
            allowedSizes(groups[k].variadicity));
        return false;
      }
      if (k == group) {
        groupStart = (intptr_t)sum;
        groupCount = size;
      }
      sum += size;
    }
    if (sum != numOperands) {
      say(why,
          "'" TILUS_OPERAND_SEGMENT_SIZES_ATTR "' adds up to %" PRId64
          " operands, but the op has %" PRIdPTR,
          sum, numOperands);
      return false;
    }
  } else {
    if (!countFits(numOperands, numGroups, groups, "operand", why))
      return false;
    // The one optional or variadic group, if any, holds what the single
    // groups leave.
    intptr_t rest = numOperands - (numGroups - countNonSingle(numGroups, groups));
    intptr_t position = 0;
    for (intptr_t k = 0; k < numGroups; ++k) {
      intptr_t size =
          groups[k].variadicity == TilusVariadicitySingle ? 1 : rest;
      if (k == group) {
        groupStart = position;
        groupCount = size;
      }
      position += size;
    }
  }
  if (group >= 0) {
    *start = groupStart;
    *count = groupCount;
  }
  return true;
}

bool tilusOpGetOperandGroup(MlirOperation op, intptr_t group, intptr_t *start,
                            intptr_t *count) {
  const TilusOpSchema *s = tilusOpSchemaGet(op);
  if (!s || group < 0 || group >= s->numOperandGroups)
    return false;
  return locate(op, s, group, start, count, NULL);
}

bool tilusOpGetOperandGroupByName(MlirOperation op, const char *name,
                                  intptr_t *start, intptr_t *count) {
  intptr_t group = tilusOpSchemaFindOperandGroup(tilusOpSchemaGet(op), name);
  return group >= 0 && tilusOpGetOperandGroup(op, group, start, count);
}

MlirValue tilusOpGetGroupOperand(MlirOperation op, intptr_t group,
                                 intptr_t index) {
  intptr_t start, count;
  if (!tilusOpGetOperandGroup(op, group, &start, &count) || index < 0 ||
      index >= count)
    return (MlirValue){NULL};
  return mlirOperationGetOperand(op, start + index);
}

//===----------------------------------------------------------------------===//
// Checking a whole op
//===----------------------------------------------------------------------===//

static bool hasAttributes(MlirOperation op, const TilusOpSchema *s,
                          Message *why) {
  for (intptr_t k = 0; k < s->numAttributes; ++k) {
    MlirAttribute a = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString(s->attributeNames[k]));
    if (mlirAttributeIsNull(a)) {
      say(why, "needs the attribute '%s'", s->attributeNames[k]);
      return false;
    }
  }
  return true;
}

MlirLogicalResult tilusOpVerifyStructure(MlirOperation op) {
  char text[512];
  Message why = {text, sizeof(text), 0};
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  say(&why, "'%.*s' op ", (int)name.length, name.data);
  const TilusOpSchema *s = tilusOpSchemaLookup(name);
  bool ok = s && locate(op, s, -1, NULL, NULL, &why) &&
            countFits(mlirOperationGetNumResults(op), s->numResultGroups,
                      s->resultGroups, "result", &why) &&
            hasAttributes(op, s, &why);
  if (!s)
    say(&why, "is not a Tilus op");
  if (ok)
    return mlirLogicalResultSuccess();
  mlirEmitError(mlirOperationGetLocation(op), text);
  return mlirLogicalResultFailure();
}

//===----------------------------------------------------------------------===//
// Building ops
//===----------------------------------------------------------------------===//

// Emits "cannot create '<op>': <reason>" at `loc`; returns a null op.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static MlirOperation refuse(MlirLocation loc, MlirStringRef opName,
                            const char *format, ...) {
  char text[512];
  int n = snprintf(text, sizeof(text), "cannot create '%.*s': ",
                   (int)opName.length, opName.data);
  if (n > 0 && (size_t)n < sizeof(text)) {
    va_list args;
    va_start(args, format);
    vsnprintf(text + n, sizeof(text) - (size_t)n, format, args);
    va_end(args);
  }
  mlirEmitError(loc, text);
  return (MlirOperation){NULL};
}

MlirOperation tilusOpCreate(MlirLocation loc, MlirStringRef opName,
                            const intptr_t *groupSizes,
                            const MlirValue *operands, intptr_t numResults,
                            const MlirType *resultTypes, intptr_t numAttrs,
                            const MlirNamedAttribute *attrs) {
  MlirContext ctx = mlirLocationGetContext(loc);
  const TilusOpSchema *s = tilusOpSchemaLookup(opName);
  if (!s)
    return refuse(loc, opName, "it is not a Tilus op");
  if (!tilusDialectIsLoaded(ctx))
    return refuse(loc, opName,
                  "the Tilus dialect is not loaded in this context "
                  "(tilusDialectLoad)");

  intptr_t numGroups = s->numOperandGroups;
  if (numGroups > 0 && !groupSizes)
    return refuse(loc, opName, "no group sizes given for its %" PRIdPTR
                               " operand groups",
                  numGroups);
  intptr_t numOperands = 0;
  for (intptr_t k = 0; k < numGroups; ++k) {
    const TilusOpSchemaGroup *g = &s->operandGroups[k];
    // The bound keeps the sum and operandSegmentSizes (i32) from overflowing.
    if (!sizeFits(groupSizes[k], g->variadicity) ||
        groupSizes[k] > INT32_MAX - numOperands)
      return refuse(loc, opName,
                    "the %s operand group '%s' takes %s, got %" PRIdPTR,
                    variadicityName(g->variadicity), g->name,
                    allowedSizes(g->variadicity), groupSizes[k]);
    numOperands += groupSizes[k];
  }
  if (numOperands > 0 && !operands)
    return refuse(loc, opName, "no operands given for %" PRIdPTR, numOperands);
  for (intptr_t i = 0; i < numOperands; ++i)
    if (mlirValueIsNull(operands[i]))
      return refuse(loc, opName, "operand %" PRIdPTR " is null", i);

  char text[256];
  Message why = {text, sizeof(text), 0};
  if (numResults < 0 || !countFits(numResults, s->numResultGroups,
                                   s->resultGroups, "result", &why))
    return refuse(loc, opName, "%s",
                  numResults < 0 ? "a negative number of results" : text);
  if (numResults > 0 && !resultTypes)
    return refuse(loc, opName, "no result types given for %" PRIdPTR,
                  numResults);
  for (intptr_t i = 0; i < numResults; ++i)
    if (mlirTypeIsNull(resultTypes[i]))
      return refuse(loc, opName, "result type %" PRIdPTR " is null", i);

  if (numAttrs > 0 && !attrs)
    return refuse(loc, opName, "no attributes given for %" PRIdPTR, numAttrs);
  for (intptr_t i = 0; i < numAttrs; ++i) {
    MlirStringRef attrName = mlirIdentifierStr(attrs[i].name);
    if (refEquals(attrName, TILUS_OPERAND_SEGMENT_SIZES_ATTR))
      return refuse(loc, opName,
                    "'" TILUS_OPERAND_SEGMENT_SIZES_ATTR "' is set from the "
                    "group sizes, not passed as an attribute");
    if (mlirAttributeIsNull(attrs[i].attribute))
      return refuse(loc, opName, "the attribute '%.*s' is null",
                    (int)attrName.length, attrName.data);
  }
  for (intptr_t k = 0; k < s->numAttributes; ++k) {
    bool given = false;
    for (intptr_t i = 0; i < numAttrs && !given; ++i)
      given = refEquals(mlirIdentifierStr(attrs[i].name),
                        s->attributeNames[k]);
    if (!given)
      return refuse(loc, opName, "it needs the attribute '%s'",
                    s->attributeNames[k]);
  }

  MlirOperationState state = mlirOperationStateGet(opName, loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  mlirOperationStateAddResults(&state, numResults, resultTypes);
  mlirOperationStateAddAttributes(&state, numAttrs, attrs);
  if (tilusOpSchemaNeedsOperandSegmentSizes(s)) {
    int32_t *sizes = malloc(sizeof(int32_t) * (size_t)numGroups);
    if (!sizes)
      return refuse(loc, opName, "out of memory");
    for (intptr_t k = 0; k < numGroups; ++k)
      sizes[k] = (int32_t)groupSizes[k];
    MlirNamedAttribute segments = mlirNamedAttributeGet(
        mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(
                                   TILUS_OPERAND_SEGMENT_SIZES_ATTR)),
        mlirDenseI32ArrayGet(ctx, numGroups, sizes));
    free(sizes);
    mlirOperationStateAddAttributes(&state, 1, &segments);
  }
  return mlirOperationCreate(&state);
}

// A transfer op: `numLeading` single operands, the variadic offsets, then
// `numTrailing` optional operands, of which the null ones are left out.
static MlirOperation createTransfer(MlirLocation loc, const char *name,
                                    intptr_t numResults, const MlirType *result,
                                    intptr_t numLeading,
                                    const MlirValue *leading,
                                    intptr_t numOffsets,
                                    const MlirValue *offsets,
                                    intptr_t numTrailing,
                                    const MlirValue *trailing) {
  MlirStringRef opName = mlirStringRefCreateFromCString(name);
  intptr_t numGiven = numOffsets > 0 ? numOffsets : 0;
  intptr_t numGroups = numLeading + 1 + numTrailing;
  intptr_t *sizes = malloc(sizeof(intptr_t) * (size_t)numGroups);
  MlirValue *operands =
      malloc(sizeof(MlirValue) * (size_t)(numLeading + numGiven + numTrailing));
  if (!sizes || !operands) {
    free(sizes);
    free(operands);
    return refuse(loc, opName, "out of memory");
  }
  if (numGiven > 0 && !offsets) {
    free(sizes);
    free(operands);
    return refuse(loc, opName, "no offsets given for %" PRIdPTR, numGiven);
  }
  intptr_t n = 0, g = 0;
  for (intptr_t k = 0; k < numLeading; ++k) {
    sizes[g++] = 1;
    operands[n++] = leading[k];
  }
  // A negative count goes to tilusOpCreate, which reports it.
  sizes[g++] = numOffsets;
  for (intptr_t k = 0; k < numGiven; ++k)
    operands[n++] = offsets[k];
  for (intptr_t k = 0; k < numTrailing; ++k) {
    bool present = !mlirValueIsNull(trailing[k]);
    sizes[g++] = present;
    if (present)
      operands[n++] = trailing[k];
  }
  MlirOperation op = tilusOpCreate(loc, opName, sizes, operands, numResults,
                                   result, 0, NULL);
  free(sizes);
  free(operands);
  return op;
}

MlirOperation tilusLoadGlobalCreate(MlirLocation loc, MlirType resultType,
                                    MlirValue src, intptr_t numOffsets,
                                    const MlirValue *offsets, MlirValue fill,
                                    MlirValue out) {
  MlirValue optional[] = {fill, out};
  return createTransfer(loc, "tilus.load_global", 1, &resultType, 1, &src,
                        numOffsets, offsets, 2, optional);
}

MlirOperation tilusLoadSharedCreate(MlirLocation loc, MlirType resultType,
                                    MlirValue src, intptr_t numOffsets,
                                    const MlirValue *offsets, MlirValue out) {
  return createTransfer(loc, "tilus.load_shared", 1, &resultType, 1, &src,
                        numOffsets, offsets, 1, &out);
}

MlirOperation tilusStoreGlobalCreate(MlirLocation loc, MlirValue value,
                                     MlirValue dst, intptr_t numOffsets,
                                     const MlirValue *offsets) {
  MlirValue leading[] = {value, dst};
  return createTransfer(loc, "tilus.store_global", 0, NULL, 2, leading,
                        numOffsets, offsets, 0, NULL);
}

MlirOperation tilusStoreSharedCreate(MlirLocation loc, MlirValue value,
                                     MlirValue dst, intptr_t numOffsets,
                                     const MlirValue *offsets) {
  MlirValue leading[] = {value, dst};
  return createTransfer(loc, "tilus.store_shared", 0, NULL, 2, leading,
                        numOffsets, offsets, 0, NULL);
}
