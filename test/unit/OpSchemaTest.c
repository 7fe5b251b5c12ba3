//===- OpSchemaTest.c - The op schema agrees with the IRDL, and its users -===//
//
// 1. The table of lib/Dialect/OpSchema.c against dialect/tilus.irdl.mlir:
//    every op, operand group, result group (names and variadicity) and
//    required attribute, both ways; and the group index constants of Ops.h
//    against the table's group names.
// 2. Ops built with tilusOpCreate and the typed builders: the groups read
//    back with tilusOpGetOperandGroup, and IRDL's own verifier accepts them.
// 3. Misuse of the builders, and malformed operandSegmentSizes on ops built
//    by hand and in a kernel given to tilusVerify: a located error, no crash,
//    and IRDL rejects the same ops.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Ops.h"
#include "tilus-c/Verifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numPassed, numFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      numPassed++;                                                             \
    } else {                                                                   \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

// A failed comparison of the table with the IRDL, with what differs.
#define CHECK_SAME(cond, ...)                                                  \
  do {                                                                         \
    if (cond) {                                                                \
      numPassed++;                                                             \
    } else {                                                                   \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: table and IRDL differ: ", __FILE__, __LINE__);   \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
    }                                                                          \
  } while (0)

static MlirStringRef ref(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static bool refIs(MlirStringRef r, const char *s) {
  return r.length == strlen(s) && memcmp(r.data, s, r.length) == 0;
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

// The text of the error diagnostics since the last clear, and where the last
// one was.
typedef struct {
  char text[4096];
  int count;
  MlirLocation lastLocation;
} Errors;

static void appendMessage(MlirStringRef piece, void *userData) {
  Errors *errors = userData;
  size_t used = strlen(errors->text);
  size_t room = sizeof(errors->text) - used - 1;
  size_t n = piece.length < room ? piece.length : room;
  memcpy(errors->text + used, piece.data, n);
  errors->text[used + n] = '\0';
}

static MlirLogicalResult collect(MlirDiagnostic diagnostic, void *userData) {
  Errors *errors = userData;
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError) {
    errors->count++;
    errors->lastLocation = mlirDiagnosticGetLocation(diagnostic);
    mlirDiagnosticPrint(diagnostic, appendMessage, errors);
    appendMessage(ref("\n"), errors);
  }
  return mlirLogicalResultSuccess();
}

static void clear(Errors *errors) {
  errors->text[0] = '\0';
  errors->count = 0;
  errors->lastLocation = (MlirLocation){NULL};
}

// Exactly one error so far, containing `text`, at `loc`.
static bool oneErrorAt(const Errors *errors, const char *text,
                       MlirLocation loc) {
  bool ok = errors->count == 1 && strstr(errors->text, text) != NULL &&
            !mlirLocationIsNull(errors->lastLocation) &&
            mlirLocationEqual(errors->lastLocation, loc);
  if (!ok)
    fprintf(stderr, "  expected one error with \"%s\"; got %d:\n%s", text,
            errors->count, errors->text);
  return ok;
}

//===----------------------------------------------------------------------===//
// 1. The table against the IRDL
//===----------------------------------------------------------------------===//

// The variadicities of an irdl.operands/irdl.results op, read from the text
// of its `variadicity` attribute, `#irdl<variadicity_array[ single,  variadic]>`
// (the C API has no accessor for it). Returns the number read, or -1.
static intptr_t readVariadicities(MlirOperation op, TilusVariadicity *out,
                                  intptr_t capacity) {
  MlirAttribute attr = mlirOperationGetAttributeByName(op, ref("variadicity"));
  if (mlirAttributeIsNull(attr))
    return -1;
  Errors printed = {0}; // a text buffer
  mlirAttributePrint(attr, appendMessage, &printed);
  const char *text = printed.text;
  const char *p = strchr(text, '[');
  if (!p)
    return -1;
  intptr_t n = 0;
  for (++p;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ']')
      return n;
    size_t len = strcspn(p, " ,]");
    if (n == capacity)
      return -1;
    if (len == 6 && !strncmp(p, "single", len))
      out[n++] = TilusVariadicitySingle;
    else if (len == 8 && !strncmp(p, "optional", len))
      out[n++] = TilusVariadicityOptional;
    else if (len == 8 && !strncmp(p, "variadic", len))
      out[n++] = TilusVariadicityVariadic;
    else
      return -1;
    p += len;
  }
}

static const char *kindName(TilusVariadicity v) {
  return v == TilusVariadicitySingle     ? "single"
         : v == TilusVariadicityOptional ? "optional"
                                         : "variadic";
}

// Compares an irdl.operands or irdl.results op (or its absence, a null op)
// with the table's groups.
static void compareGroups(const char *opName, const char *what,
                          MlirOperation irdlOp, intptr_t numGroups,
                          const TilusOpSchemaGroup *groups) {
  intptr_t numIrdl = 0;
  MlirAttribute names = {NULL};
  if (!mlirOperationIsNull(irdlOp)) {
    names = mlirOperationGetAttributeByName(irdlOp, ref("names"));
    CHECK_SAME(!mlirAttributeIsNull(names) && mlirAttributeIsAArray(names),
               "%s: the IRDL %s have no names", opName, what);
    if (mlirAttributeIsNull(names) || !mlirAttributeIsAArray(names))
      return;
    numIrdl = mlirArrayAttrGetNumElements(names);
  }
  CHECK_SAME(numIrdl == numGroups, "%s: %ld %s groups in the IRDL, %ld in the table",
             opName, (long)numIrdl, what, (long)numGroups);
  if (numIrdl != numGroups || numIrdl == 0)
    return;
  TilusVariadicity *kinds = malloc(sizeof(TilusVariadicity) * (size_t)numIrdl);
  intptr_t numKinds = readVariadicities(irdlOp, kinds, numIrdl);
  CHECK_SAME(numKinds == numIrdl, "%s: cannot read the IRDL %s' variadicity",
             opName, what);
  for (intptr_t k = 0; k < numIrdl && numKinds == numIrdl; ++k) {
    MlirAttribute name = mlirArrayAttrGetElement(names, k);
    MlirStringRef irdlName = mlirAttributeIsAString(name)
                                 ? mlirStringAttrGetValue(name)
                                 : ref("?");
    CHECK_SAME(refIs(irdlName, groups[k].name),
               "%s: %s group %ld is '%.*s' in the IRDL, '%s' in the table",
               opName, what, (long)k, (int)irdlName.length, irdlName.data,
               groups[k].name);
    CHECK_SAME(kinds[k] == groups[k].variadicity,
               "%s: %s group '%s' is %s in the IRDL, %s in the table", opName,
               what, groups[k].name, kindName(kinds[k]),
               kindName(groups[k].variadicity));
  }
  free(kinds);
}

static void compareAttributes(const char *opName, MlirOperation irdlOp,
                              const TilusOpSchema *s) {
  intptr_t numIrdl = 0;
  MlirAttribute names = {NULL};
  if (!mlirOperationIsNull(irdlOp)) {
    names = mlirOperationGetAttributeByName(irdlOp, ref("attributeValueNames"));
    if (!mlirAttributeIsNull(names) && mlirAttributeIsAArray(names))
      numIrdl = mlirArrayAttrGetNumElements(names);
  }
  CHECK_SAME(numIrdl == s->numAttributes,
             "%s: %ld attributes in the IRDL, %ld in the table", opName,
             (long)numIrdl, (long)s->numAttributes);
  for (intptr_t k = 0; k < numIrdl && numIrdl == s->numAttributes; ++k) {
    MlirAttribute name = mlirArrayAttrGetElement(names, k);
    MlirStringRef irdlName = mlirAttributeIsAString(name)
                                 ? mlirStringAttrGetValue(name)
                                 : ref("?");
    CHECK_SAME(refIs(irdlName, s->attributeNames[k]),
               "%s: attribute %ld is '%.*s' in the IRDL, '%s' in the table",
               opName, (long)k, (int)irdlName.length, irdlName.data,
               s->attributeNames[k]);
  }
}

// The table's own rules, which the readers and builders rely on.
static void checkTableRules(const TilusOpSchema *s) {
  intptr_t nonSingleResults = 0;
  for (intptr_t k = 0; k < s->numResultGroups; ++k)
    nonSingleResults +=
        s->resultGroups[k].variadicity != TilusVariadicitySingle;
  CHECK_SAME(nonSingleResults <= 1,
             "%s: more than one optional or variadic result group "
             "(resultSegmentSizes is not supported)",
             s->name);
  for (intptr_t a = 0; a < s->numOperandGroups; ++a)
    for (intptr_t b = a + 1; b < s->numOperandGroups; ++b)
      CHECK_SAME(strcmp(s->operandGroups[a].name, s->operandGroups[b].name),
                 "%s: two operand groups named '%s'", s->name,
                 s->operandGroups[a].name);
}

static void testTableMatchesIRDL(MlirContext ctx) {
  MlirModule module = mlirModuleCreateParse(ctx, tilusDialectGetSource());
  CHECK(!mlirModuleIsNull(module));
  if (mlirModuleIsNull(module))
    return;
  intptr_t numOps = tilusOpSchemaGetNumOps();
  CHECK(numOps > 0 && tilusOpSchemaGetAt(numOps) == NULL &&
        tilusOpSchemaGetAt(-1) == NULL);
  bool *seen = calloc((size_t)numOps, sizeof(bool));
  int numIrdlOps = 0;

  MlirOperation dialect =
      mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  CHECK(tilusOpIs(dialect, "irdl.dialect"));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(dialect, 0));
  for (MlirOperation def = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(def); def = mlirOperationGetNextInBlock(def)) {
    if (!tilusOpIs(def, "irdl.operation"))
      continue;
    numIrdlOps++;
    MlirStringRef symbol = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(def, ref("sym_name")));
    char opName[128];
    snprintf(opName, sizeof(opName), "tilus.%.*s", (int)symbol.length,
             symbol.data);
    const TilusOpSchema *s = tilusOpSchemaLookup(ref(opName));
    CHECK_SAME(s != NULL, "%s is in the IRDL but not in the table", opName);
    if (!s)
      continue;
    seen[s - tilusOpSchemaGetAt(0)] = true;

    MlirOperation operands = {NULL}, results = {NULL}, attributes = {NULL};
    MlirBlock defBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(def, 0));
    for (MlirOperation o = mlirBlockGetFirstOperation(defBody);
         !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
      if (tilusOpIs(o, "irdl.operands"))
        operands = o;
      else if (tilusOpIs(o, "irdl.results"))
        results = o;
      else if (tilusOpIs(o, "irdl.attributes"))
        attributes = o;
      else
        CHECK_SAME(!tilusOpIs(o, "irdl.regions") && !tilusOpIs(o, "irdl.successors"),
                   "%s has regions or successors, which the table does not "
                   "describe",
                   opName);
    }
    compareGroups(opName, "operand", operands, s->numOperandGroups,
                  s->operandGroups);
    compareGroups(opName, "result", results, s->numResultGroups,
                  s->resultGroups);
    compareAttributes(opName, attributes, s);
    checkTableRules(s);
  }
  CHECK_SAME(numIrdlOps == numOps, "%d ops in the IRDL, %ld in the table",
             numIrdlOps, (long)numOps);
  for (intptr_t k = 0; k < numOps; ++k)
    CHECK_SAME(seen[k], "%s is in the table but not in the IRDL",
               tilusOpSchemaGetAt(k)->name);
  free(seen);
  mlirModuleDestroy(module);
}

// The group index constants of Ops.h name the groups they say.
static void testGroupConstants(void) {
  static const struct {
    const char *op;
    intptr_t group;
    const char *name;
  } constants[] = {
      {"tilus.allocate_global", TilusAllocateGlobalSizes, "sizes"},
      {"tilus.allocate_register", TilusAllocateRegisterInit, "init"},
      {"tilus.view_global", TilusViewGlobalPtr, "ptr"},
      {"tilus.view_global", TilusViewGlobalSizes, "sizes"},
      {"tilus.load_global", TilusLoadGlobalSrc, "src"},
      {"tilus.load_global", TilusLoadGlobalOffsets, "offsets"},
      {"tilus.load_global", TilusLoadGlobalFill, "fill"},
      {"tilus.load_global", TilusLoadGlobalOut, "out"},
      {"tilus.load_shared", TilusLoadSharedSrc, "src"},
      {"tilus.load_shared", TilusLoadSharedOffsets, "offsets"},
      {"tilus.load_shared", TilusLoadSharedOut, "out"},
      {"tilus.store_global", TilusStoreValue, "value"},
      {"tilus.store_global", TilusStoreDst, "dst"},
      {"tilus.store_global", TilusStoreOffsets, "offsets"},
      {"tilus.store_shared", TilusStoreValue, "value"},
      {"tilus.store_shared", TilusStoreDst, "dst"},
      {"tilus.store_shared", TilusStoreOffsets, "offsets"},
      {"tilus.copy_async", TilusCopyAsyncDst, "dst"},
      {"tilus.copy_async", TilusCopyAsyncSrc, "src"},
      {"tilus.copy_async", TilusCopyAsyncDstOffsets, "dst_offsets"},
      {"tilus.copy_async", TilusCopyAsyncSrcOffsets, "src_offsets"},
      {"tilus.add", TilusBinaryLhs, "lhs"},
      {"tilus.add", TilusBinaryRhs, "rhs"},
      {"tilus.add", TilusBinaryOut, "out"},
      {"tilus.sub", TilusBinaryLhs, "lhs"},
      {"tilus.sub", TilusBinaryRhs, "rhs"},
      {"tilus.sub", TilusBinaryOut, "out"},
      {"tilus.mul", TilusBinaryLhs, "lhs"},
      {"tilus.mul", TilusBinaryRhs, "rhs"},
      {"tilus.mul", TilusBinaryOut, "out"},
      {"tilus.div", TilusBinaryLhs, "lhs"},
      {"tilus.div", TilusBinaryRhs, "rhs"},
      {"tilus.div", TilusBinaryOut, "out"},
      {"tilus.mod", TilusBinaryLhs, "lhs"},
      {"tilus.mod", TilusBinaryRhs, "rhs"},
      {"tilus.mod", TilusBinaryOut, "out"},
      {"tilus.neg", TilusUnaryX, "x"},
      {"tilus.neg", TilusUnaryOut, "out"},
      {"tilus.cast", TilusUnaryX, "x"},
      {"tilus.cast", TilusUnaryOut, "out"},
      {"tilus.view", TilusUnaryX, "x"},
      {"tilus.view", TilusUnaryOut, "out"},
      {"tilus.max", TilusBinaryLhs, "lhs"},
      {"tilus.max", TilusBinaryRhs, "rhs"},
      {"tilus.max", TilusBinaryOut, "out"},
      {"tilus.min", TilusBinaryLhs, "lhs"},
      {"tilus.min", TilusBinaryRhs, "rhs"},
      {"tilus.min", TilusBinaryOut, "out"},
      {"tilus.and", TilusBinaryLhs, "lhs"},
      {"tilus.and", TilusBinaryRhs, "rhs"},
      {"tilus.and", TilusBinaryOut, "out"},
      {"tilus.or", TilusBinaryLhs, "lhs"},
      {"tilus.or", TilusBinaryRhs, "rhs"},
      {"tilus.or", TilusBinaryOut, "out"},
      {"tilus.xor", TilusBinaryLhs, "lhs"},
      {"tilus.xor", TilusBinaryRhs, "rhs"},
      {"tilus.xor", TilusBinaryOut, "out"},
      {"tilus.shl", TilusBinaryLhs, "lhs"},
      {"tilus.shl", TilusBinaryRhs, "rhs"},
      {"tilus.shl", TilusBinaryOut, "out"},
      {"tilus.shr", TilusBinaryLhs, "lhs"},
      {"tilus.shr", TilusBinaryRhs, "rhs"},
      {"tilus.shr", TilusBinaryOut, "out"},
      {"tilus.cmp", TilusBinaryLhs, "lhs"},
      {"tilus.cmp", TilusBinaryRhs, "rhs"},
      {"tilus.cmp", TilusBinaryOut, "out"},
      {"tilus.abs", TilusUnaryX, "x"},
      {"tilus.abs", TilusUnaryOut, "out"},
      {"tilus.exp", TilusUnaryX, "x"},
      {"tilus.exp", TilusUnaryOut, "out"},
      {"tilus.exp2", TilusUnaryX, "x"},
      {"tilus.exp2", TilusUnaryOut, "out"},
      {"tilus.log", TilusUnaryX, "x"},
      {"tilus.log", TilusUnaryOut, "out"},
      {"tilus.log2", TilusUnaryX, "x"},
      {"tilus.log2", TilusUnaryOut, "out"},
      {"tilus.sqrt", TilusUnaryX, "x"},
      {"tilus.sqrt", TilusUnaryOut, "out"},
      {"tilus.rsqrt", TilusUnaryX, "x"},
      {"tilus.rsqrt", TilusUnaryOut, "out"},
      {"tilus.tanh", TilusUnaryX, "x"},
      {"tilus.tanh", TilusUnaryOut, "out"},
      {"tilus.sin", TilusUnaryX, "x"},
      {"tilus.sin", TilusUnaryOut, "out"},
      {"tilus.cos", TilusUnaryX, "x"},
      {"tilus.cos", TilusUnaryOut, "out"},
      {"tilus.not", TilusUnaryX, "x"},
      {"tilus.not", TilusUnaryOut, "out"},
      {"tilus.where", TilusWhereCond, "cond"},
      {"tilus.where", TilusWhereA, "a"},
      {"tilus.where", TilusWhereB, "b"},
      {"tilus.where", TilusWhereOut, "out"},
      {"tilus.clamp", TilusClampX, "x"},
      {"tilus.clamp", TilusClampLo, "lo"},
      {"tilus.clamp", TilusClampHi, "hi"},
      {"tilus.clamp", TilusClampOut, "out"},
      {"tilus.dot", TilusDotA, "a"},
      {"tilus.dot", TilusDotB, "b"},
      {"tilus.dot", TilusDotC, "c"},
      {"tilus.dot", TilusDotOut, "out"},
      {"tilus.print", TilusPrintX, "x"},
      {"tilus.atomic_rmw", TilusAtomicMem, "mem"},
      {"tilus.atomic_rmw", TilusAtomicOffsets, "offsets"},
      {"tilus.atomic_rmw", TilusAtomicRmwValue, "value"},
      {"tilus.atomic_cas", TilusAtomicMem, "mem"},
      {"tilus.atomic_cas", TilusAtomicOffsets, "offsets"},
      {"tilus.atomic_cas", TilusAtomicCasCompare, "compare"},
      {"tilus.atomic_cas", TilusAtomicCasValue, "value"},
      {"tilus.atomic_add_global", TilusStoreValue, "value"},
      {"tilus.atomic_add_global", TilusStoreDst, "dst"},
      {"tilus.atomic_add_global", TilusStoreOffsets, "offsets"},
      {"tilus.semaphore_wait", TilusSemaphoreCounters, "counters"},
      {"tilus.semaphore_wait", TilusSemaphoreOffsets, "offsets"},
      {"tilus.semaphore_wait", TilusSemaphoreValue, "value"},
      {"tilus.semaphore_signal", TilusSemaphoreCounters, "counters"},
      {"tilus.semaphore_signal", TilusSemaphoreOffsets, "offsets"},
      {"tilus.semaphore_signal", TilusSemaphoreValue, "value"},
      {"tilus.transpose_shared", TilusMoveX, "x"},
      {"tilus.wgmma_mma", TilusWgmmaA, "a"},
      {"tilus.wgmma_mma", TilusWgmmaB, "b"},
      {"tilus.wgmma_mma", TilusWgmmaD, "d"},
      {"tilus.wgmma_mma", TilusWgmmaAOffsets, "a_offsets"},
      {"tilus.wgmma_mma", TilusWgmmaBOffsets, "b_offsets"},
      {"tilus.wgmma_wait_group", TilusWgmmaWaitValue, "value"},
      {"tilus.mbarrier_init", TilusMbarrierBars, "bars"},
      {"tilus.mbarrier_init", TilusMbarrierOffsets, "offsets"},
      {"tilus.mbarrier_init", TilusMbarrierValue, "count"},
      {"tilus.mbarrier_arrive", TilusMbarrierOffsets, "offsets"},
      {"tilus.mbarrier_arrive_expect_tx", TilusMbarrierValue, "bytes"},
      {"tilus.mbarrier_wait", TilusMbarrierValue, "phase"},
      {"tilus.tma_load", TilusTmaDst, "dst"},
      {"tilus.tma_load", TilusTmaSrc, "src"},
      {"tilus.tma_load", TilusTmaBars, "bars"},
      {"tilus.tma_load", TilusTmaDstOffsets, "dst_offsets"},
      {"tilus.tma_load", TilusTmaSrcOffsets, "src_offsets"},
      {"tilus.tma_load", TilusTmaBarOffsets, "bar_offsets"},
      {"tilus.tma_store", TilusTmaStoreSrc, "src"},
      {"tilus.tma_store", TilusTmaStoreDst, "dst"},
      {"tilus.tma_store", TilusTmaStoreSharedOffsets, "src_offsets"},
      {"tilus.tma_store", TilusTmaStoreGlobalOffsets, "dst_offsets"},
      {"tilus.reduce", TilusMoveX, "x"},
      {"tilus.convert_layout", TilusMoveX, "x"},
      {"tilus.permute", TilusMoveX, "x"},
      {"tilus.reshape", TilusMoveX, "x"},
  };
  for (size_t k = 0; k < sizeof(constants) / sizeof(constants[0]); ++k) {
    const TilusOpSchema *s = tilusOpSchemaLookup(ref(constants[k].op));
    intptr_t found = tilusOpSchemaFindOperandGroup(s, constants[k].name);
    CHECK_SAME(found == constants[k].group,
               "the constant for %s group '%s' is %ld, the table has it at %ld",
               constants[k].op, constants[k].name, (long)constants[k].group,
               (long)found);
  }
  const TilusOpSchema *load = tilusOpSchemaLookup(ref("tilus.load_global"));
  CHECK(load && strcmp(load->name, "tilus.load_global") == 0);
  CHECK(tilusOpSchemaNeedsOperandSegmentSizes(load));
  CHECK(!tilusOpSchemaNeedsOperandSegmentSizes(
      tilusOpSchemaLookup(ref("tilus.add"))));
  CHECK(!tilusOpSchemaNeedsOperandSegmentSizes(
      tilusOpSchemaLookup(ref("tilus.view_global"))));
  CHECK(tilusOpSchemaFindOperandGroup(load, "nope") == -1);
  CHECK(tilusOpSchemaFindOperandGroup(NULL, "src") == -1);
  CHECK(tilusOpSchemaLookup(ref("tilus.nope")) == NULL);
  CHECK(tilusOpSchemaLookup(ref("tilus.load")) == NULL);
  CHECK(tilusOpSchemaLookup(ref("func.func")) == NULL);
}

//===----------------------------------------------------------------------===//
// 2. Building ops and reading their groups back
//===----------------------------------------------------------------------===//

// A function whose arguments give operands of every kind the tests need.
static const char *const fixtureSource =
    "func.func @f(%g: !tilus.global<f16, array<i64: 64, 64>, #tilus.row_major>,"
    "  %s: !tilus.shared<f16, array<i64: 64, 64>, #tilus.layout<\"local(64,64)\">>,"
    "  %i: index, %j: index, %x: f16,"
    "  %r: !tilus.register<f16, array<i64: 32>, #tilus.layout<\"spatial(32)\">>) {"
    "  return"
    "}";

typedef struct {
  MlirContext ctx;
  MlirModule module;
  MlirBlock block;
  MlirOperation terminator;
  MlirValue g, s, i, j, x, r;
  MlirType regType;
  MlirLocation loc;
} Fixture;

static bool fixtureCreate(MlirContext ctx, Fixture *f) {
  f->ctx = ctx;
  f->module = mlirModuleCreateParse(ctx, ref(fixtureSource));
  if (mlirModuleIsNull(f->module))
    return false;
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(f->module));
  f->block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  f->terminator = mlirBlockGetTerminator(f->block);
  MlirValue *args[] = {&f->g, &f->s, &f->i, &f->j, &f->x, &f->r};
  for (int k = 0; k < 6; ++k)
    *args[k] = mlirBlockGetArgument(f->block, k);
  f->regType = mlirValueGetType(f->r);
  f->loc = mlirLocationFileLineColGet(ctx, ref("built.mlir"), 7, 3);
  return true;
}

// Puts a built op into the fixture's function (which then owns it).
static void place(Fixture *f, MlirOperation op) {
  if (!mlirOperationIsNull(op))
    mlirBlockInsertOwnedOperationBefore(f->block, f->terminator, op);
}

static bool groupIs(MlirOperation op, intptr_t group, intptr_t start,
                    intptr_t count) {
  intptr_t s = -1, c = -1;
  bool ok = tilusOpGetOperandGroup(op, group, &s, &c) && s == start &&
            c == count;
  if (!ok)
    fprintf(stderr, "  group %ld: expected (%ld, %ld), got (%ld, %ld)\n",
            (long)group, (long)start, (long)count, (long)s, (long)c);
  return ok;
}

// The op's operandSegmentSizes is `sizes` (n entries), or absent when n < 0.
static bool segmentsAre(MlirOperation op, intptr_t n, const int32_t *sizes) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      op, ref(TILUS_OPERAND_SEGMENT_SIZES_ATTR));
  if (n < 0)
    return mlirAttributeIsNull(a);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI32Array(a) ||
      mlirDenseArrayGetNumElements(a) != n)
    return false;
  for (intptr_t k = 0; k < n; ++k)
    if (mlirDenseI32ArrayGetElement(a, k) != sizes[k])
      return false;
  return true;
}

static void testBuild(Fixture *f, Errors *errors) {
  clear(errors);
  MlirValue null = {NULL};
  MlirValue offsets[] = {f->i, f->j};

  // load_global with fill and out: two optional groups present.
  MlirOperation load = tilusLoadGlobalCreate(f->loc, f->regType, f->g, 2,
                                             offsets, f->x, f->r);
  CHECK(!mlirOperationIsNull(load));
  place(f, load);
  CHECK(segmentsAre(load, 4, (const int32_t[]){1, 2, 1, 1}));
  CHECK(groupIs(load, TilusLoadGlobalSrc, 0, 1));
  CHECK(groupIs(load, TilusLoadGlobalOffsets, 1, 2));
  CHECK(groupIs(load, TilusLoadGlobalFill, 3, 1));
  CHECK(groupIs(load, TilusLoadGlobalOut, 4, 1));
  CHECK(mlirValueEqual(tilusOpGetGroupOperand(load, TilusLoadGlobalFill, 0),
                       f->x));
  CHECK(mlirValueEqual(tilusOpGetGroupOperand(load, TilusLoadGlobalOffsets, 1),
                       f->j));
  CHECK(mlirValueIsNull(tilusOpGetGroupOperand(load, TilusLoadGlobalOffsets, 2)));
  CHECK(mlirValueIsNull(tilusOpGetGroupOperand(load, TilusLoadGlobalOffsets, -1)));
  CHECK(mlirValueIsNull(tilusOpGetGroupOperand(load, 4, 0)));
  CHECK(mlirValueIsNull(tilusOpGetGroupOperand(load, -1, 0)));
  intptr_t start = -1, count = -1;
  CHECK(tilusOpGetOperandGroupByName(load, "out", &start, &count) &&
        start == 4 && count == 1);
  CHECK(!tilusOpGetOperandGroupByName(load, "nope", &start, &count));
  CHECK(!tilusOpGetOperandGroup(load, 4, &start, &count));
  CHECK(mlirOperationVerify(load));
  CHECK(mlirLogicalResultIsSuccess(tilusOpVerifyStructure(load)));
  CHECK(tilusOpSchemaGet(load) == tilusOpSchemaLookup(ref("tilus.load_global")));

  // load_global without fill: the out operand moves up.
  MlirOperation noFill = tilusLoadGlobalCreate(f->loc, f->regType, f->g, 2,
                                               offsets, null, f->r);
  place(f, noFill);
  CHECK(segmentsAre(noFill, 4, (const int32_t[]){1, 2, 0, 1}));
  CHECK(groupIs(noFill, TilusLoadGlobalFill, 3, 0));
  CHECK(groupIs(noFill, TilusLoadGlobalOut, 3, 1));
  CHECK(mlirValueIsNull(tilusOpGetGroupOperand(noFill, TilusLoadGlobalFill, 0)));
  CHECK(mlirValueEqual(tilusOpGetGroupOperand(noFill, TilusLoadGlobalOut, 0),
                       f->r));
  CHECK(mlirOperationVerify(noFill));

  // load_shared through the generic builder.
  intptr_t sharedSizes[] = {1, 2, 0};
  MlirValue sharedOperands[] = {f->s, f->i, f->j};
  MlirOperation loadShared =
      tilusOpCreate(f->loc, ref("tilus.load_shared"), sharedSizes,
                    sharedOperands, 1, &f->regType, 0, NULL);
  place(f, loadShared);
  CHECK(segmentsAre(loadShared, 3, (const int32_t[]){1, 2, 0}));
  CHECK(groupIs(loadShared, TilusLoadSharedOffsets, 1, 2));
  CHECK(groupIs(loadShared, TilusLoadSharedOut, 3, 0));
  CHECK(mlirOperationVerify(loadShared));
  MlirOperation loadShared2 =
      tilusLoadSharedCreate(f->loc, f->regType, f->s, 2, offsets, f->r);
  place(f, loadShared2);
  CHECK(segmentsAre(loadShared2, 3, (const int32_t[]){1, 2, 1}));
  CHECK(mlirOperationVerify(loadShared2));

  // Stores: one variadic group, so no operandSegmentSizes.
  MlirOperation storeGlobal =
      tilusStoreGlobalCreate(f->loc, f->r, f->g, 2, offsets);
  MlirOperation storeShared =
      tilusStoreSharedCreate(f->loc, f->r, f->s, 2, offsets);
  place(f, storeGlobal);
  place(f, storeShared);
  CHECK(segmentsAre(storeGlobal, -1, NULL));
  CHECK(groupIs(storeGlobal, TilusStoreDst, 1, 1));
  CHECK(groupIs(storeGlobal, TilusStoreOffsets, 2, 2));
  CHECK(groupIs(storeShared, TilusStoreOffsets, 2, 2));
  CHECK(mlirOperationGetNumResults(storeGlobal) == 0);
  CHECK(mlirOperationVerify(storeGlobal));
  CHECK(mlirOperationVerify(storeShared));

  // add: one optional group, sizes follow from the count.
  intptr_t addSizes[] = {1, 1, 1};
  MlirValue addOperands[] = {f->r, f->x, f->r};
  MlirOperation add = tilusOpCreate(f->loc, ref("tilus.add"), addSizes,
                                    addOperands, 1, &f->regType, 0, NULL);
  place(f, add);
  CHECK(segmentsAre(add, -1, NULL));
  CHECK(groupIs(add, TilusBinaryOut, 2, 1));
  CHECK(mlirOperationVerify(add));
  intptr_t addSizes2[] = {1, 1, 0};
  MlirOperation add2 = tilusOpCreate(f->loc, ref("tilus.add"), addSizes2,
                                     addOperands, 1, &f->regType, 0, NULL);
  place(f, add2);
  CHECK(groupIs(add2, TilusBinaryRhs, 1, 1));
  CHECK(groupIs(add2, TilusBinaryOut, 2, 0));
  CHECK(mlirOperationVerify(add2));

  // copy_async: two variadic groups and a required attribute.
  intptr_t copySizes[] = {1, 1, 2, 2};
  MlirValue copyOperands[] = {f->s, f->g, f->i, f->i, f->j, f->j};
  MlirNamedAttribute shape = mlirNamedAttributeGet(
      mlirIdentifierGet(f->ctx, ref("shape")),
      mlirDenseI64ArrayGet(f->ctx, 2, (const int64_t[]){16, 64}));
  MlirOperation copy = tilusOpCreate(f->loc, ref("tilus.copy_async"),
                                     copySizes, copyOperands, 0, NULL, 1, &shape);
  place(f, copy);
  CHECK(segmentsAre(copy, 4, (const int32_t[]){1, 1, 2, 2}));
  CHECK(groupIs(copy, TilusCopyAsyncDstOffsets, 2, 2));
  CHECK(groupIs(copy, TilusCopyAsyncSrcOffsets, 4, 2));
  CHECK(mlirValueEqual(
      tilusOpGetGroupOperand(copy, TilusCopyAsyncSrcOffsets, 0), f->j));
  CHECK(mlirOperationVerify(copy));

  // Ops without operands, and a variadic result group.
  MlirType indexType = mlirIndexTypeGet(f->ctx);
  MlirType twoIndices[] = {indexType, indexType};
  MlirOperation indices = tilusOpCreate(f->loc, ref("tilus.block_indices"),
                                        NULL, NULL, 2, twoIndices, 0, NULL);
  place(f, indices);
  CHECK(!mlirOperationIsNull(indices) &&
        mlirOperationGetNumResults(indices) == 2);
  CHECK(mlirOperationVerify(indices));
  MlirOperation sync = tilusOpCreate(f->loc, ref("tilus.synchronize"), NULL,
                                     NULL, 0, NULL, 0, NULL);
  place(f, sync);
  CHECK(!mlirOperationIsNull(sync) && mlirOperationVerify(sync));

  // Everything built verifies together, and nothing was reported.
  CHECK(mlirOperationVerify(mlirModuleGetOperation(f->module)));
  CHECK(errors->count == 0);
  if (errors->count)
    fprintf(stderr, "%s", errors->text);
}

//===----------------------------------------------------------------------===//
// 3. Misuse and malformed operandSegmentSizes
//===----------------------------------------------------------------------===//

// Expects `op` to be null and one error containing `text` at `loc`.
static void expectRefused(Errors *errors, MlirOperation op, const char *text,
                          MlirLocation loc) {
  CHECK(mlirOperationIsNull(op));
  if (!mlirOperationIsNull(op))
    mlirOperationDestroy(op);
  CHECK(oneErrorAt(errors, text, loc));
  clear(errors);
}

static void testMisuse(Fixture *f, Errors *errors) {
  clear(errors);
  MlirValue null = {NULL};
  MlirValue offsets[] = {f->i, f->j};
  MlirLocation loc = f->loc;

  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.nope"), NULL, NULL, 0, NULL, 0,
                              NULL),
                "cannot create 'tilus.nope': it is not a Tilus op", loc);

  intptr_t twoSources[] = {2, 1, 0, 0};
  MlirValue operands[] = {f->g, f->g, f->i};
  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.load_global"), twoSources,
                              operands, 1, &f->regType, 0, NULL),
                "cannot create 'tilus.load_global': the single operand group "
                "'src' takes exactly 1 operand, got 2",
                loc);

  intptr_t twoFills[] = {1, 0, 2, 0};
  MlirValue fills[] = {f->g, f->x, f->x};
  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.load_global"), twoFills, fills, 1,
                              &f->regType, 0, NULL),
                "the optional operand group 'fill' takes 0 or 1 operands, got 2",
                loc);

  expectRefused(errors,
                tilusLoadGlobalCreate(loc, f->regType, f->g, -1, offsets, null,
                                      null),
                "the variadic operand group 'offsets' takes 0 or more "
                "operands, got -1",
                loc);

  expectRefused(errors,
                tilusStoreGlobalCreate(loc, f->r, null, 2, offsets),
                "cannot create 'tilus.store_global': operand 1 is null", loc);

  intptr_t loadSizes[] = {1, 2, 0, 0};
  MlirValue loadOperands[] = {f->g, f->i, f->j};
  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.load_global"), loadSizes,
                              loadOperands, 0, NULL, 0, NULL),
                "expects 1 result (result), got 0", loc);
  MlirType nullType = {NULL};
  expectRefused(errors,
                tilusLoadGlobalCreate(loc, nullType, f->g, 2, offsets, null,
                                      null),
                "result type 0 is null", loc);

  intptr_t copySizes[] = {1, 1, 2, 2};
  MlirValue copyOperands[] = {f->s, f->g, f->i, f->i, f->j, f->j};
  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.copy_async"), copySizes,
                              copyOperands, 0, NULL, 0, NULL),
                "cannot create 'tilus.copy_async': it needs the attribute "
                "'shape'",
                loc);

  MlirNamedAttribute segments = mlirNamedAttributeGet(
      mlirIdentifierGet(f->ctx, ref(TILUS_OPERAND_SEGMENT_SIZES_ATTR)),
      mlirDenseI32ArrayGet(f->ctx, 4, (const int32_t[]){1, 2, 0, 0}));
  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.load_global"), loadSizes,
                              loadOperands, 1, &f->regType, 1, &segments),
                "'operandSegmentSizes' is set from the group sizes", loc);

  expectRefused(errors,
                tilusOpCreate(loc, ref("tilus.load_global"), NULL, loadOperands,
                              1, &f->regType, 0, NULL),
                "no group sizes given for its 4 operand groups", loc);

  // A context without the dialect.
  MlirContext bare = mlirContextCreate();
  Errors bareErrors = {0};
  mlirContextAttachDiagnosticHandler(bare, collect, &bareErrors, NULL);
  MlirLocation bareLoc = mlirLocationUnknownGet(bare);
  MlirOperation op = tilusOpCreate(bareLoc, ref("tilus.synchronize"), NULL,
                                   NULL, 0, NULL, 0, NULL);
  CHECK(mlirOperationIsNull(op));
  CHECK(oneErrorAt(&bareErrors, "the Tilus dialect is not loaded", bareLoc));
  mlirContextDestroy(bare);
}

// Builds `opName` by hand (bypassing the builders) with `numOperands`
// operands and, when `sizes` is not NULL, the given operandSegmentSizes.
static MlirOperation buildRaw(Fixture *f, const char *opName,
                              intptr_t numOperands, const MlirValue *operands,
                              MlirAttribute sizes, MlirLocation loc) {
  MlirOperationState state = mlirOperationStateGet(ref(opName), loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  mlirOperationStateAddResults(&state, 1, &f->regType);
  if (!mlirAttributeIsNull(sizes)) {
    MlirNamedAttribute a = mlirNamedAttributeGet(
        mlirIdentifierGet(f->ctx, ref(TILUS_OPERAND_SEGMENT_SIZES_ATTR)), sizes);
    mlirOperationStateAddAttributes(&state, 1, &a);
  }
  return mlirOperationCreate(&state);
}

// The op's groups cannot be read, tilusOpVerifyStructure gives one error
// containing `text` at the op, and IRDL rejects the op too.
static void expectMalformed(Fixture *f, Errors *errors, MlirOperation op,
                            const char *text) {
  clear(errors);
  intptr_t start = -7, count = -7;
  bool readable = false;
  for (intptr_t k = 0; k < 4; ++k)
    readable |= tilusOpGetOperandGroup(op, k, &start, &count);
  CHECK(!readable && start == -7 && count == -7);
  CHECK(mlirValueIsNull(tilusOpGetGroupOperand(op, 0, 0)));
  CHECK(errors->count == 0); // the readers report nothing
  CHECK(mlirLogicalResultIsFailure(tilusOpVerifyStructure(op)));
  CHECK(oneErrorAt(errors, text, mlirOperationGetLocation(op)));
  clear(errors);
  CHECK(!mlirOperationVerify(op));
  CHECK(errors->count >= 1);
  clear(errors);
  mlirOperationDestroy(op);
}

static MlirAttribute i32s(MlirContext ctx, intptr_t n, const int32_t *v) {
  return mlirDenseI32ArrayGet(ctx, n, v);
}

static void testMalformed(Fixture *f, Errors *errors) {
  MlirValue operands[] = {f->g, f->i, f->j};
  MlirLocation loc = mlirLocationFileLineColGet(f->ctx, ref("raw.mlir"), 3, 5);
  MlirAttribute none = {NULL};
  const char *load = "tilus.load_global";

  expectMalformed(f, errors, buildRaw(f, load, 3, operands, none, loc),
                  "'tilus.load_global' op needs 'operandSegmentSizes' = "
                  "array<i32: ...> with the size of each operand group (src, "
                  "offsets..., [fill], [out])");
  expectMalformed(
      f, errors,
      buildRaw(f, load, 3, operands,
               mlirDenseI64ArrayGet(f->ctx, 4, (const int64_t[]){1, 2, 0, 0}),
               loc),
      "needs 'operandSegmentSizes' = array<i32: ...>");
  expectMalformed(f, errors,
                  buildRaw(f, load, 3, operands,
                           i32s(f->ctx, 3, (const int32_t[]){1, 2, 0}), loc),
                  "'operandSegmentSizes' has 3 elements, expected 4 (one per "
                  "operand group (src, offsets..., [fill], [out]))");
  expectMalformed(f, errors,
                  buildRaw(f, load, 3, operands,
                           i32s(f->ctx, 4, (const int32_t[]){1, -1, 2, 1}), loc),
                  "'operandSegmentSizes' gives the variadic operand group "
                  "'offsets' -1 operands; it takes 0 or more operands");
  expectMalformed(f, errors,
                  buildRaw(f, load, 3, operands,
                           i32s(f->ctx, 4, (const int32_t[]){0, 3, 0, 0}), loc),
                  "gives the single operand group 'src' 0 operands; it takes "
                  "exactly 1 operand");
  expectMalformed(f, errors,
                  buildRaw(f, load, 3, operands,
                           i32s(f->ctx, 4, (const int32_t[]){1, 0, 2, 0}), loc),
                  "gives the optional operand group 'fill' 2 operands");
  expectMalformed(f, errors,
                  buildRaw(f, load, 3, operands,
                           i32s(f->ctx, 4, (const int32_t[]){1, 2, 1, 0}), loc),
                  "'operandSegmentSizes' adds up to 4 operands, but the op "
                  "has 3");
  expectMalformed(f, errors,
                  buildRaw(f, load, 3, operands,
                           i32s(f->ctx, 4, (const int32_t[]){1, 1, 0, 0}), loc),
                  "adds up to 2 operands, but the op has 3");
  // Without operandSegmentSizes the count alone must fit.
  MlirValue one[] = {f->r};
  expectMalformed(f, errors, buildRaw(f, "tilus.add", 1, one, none, loc),
                  "'tilus.add' op expects 2 or 3 operands (lhs, rhs, [out]), "
                  "got 1");
  MlirValue four[] = {f->r, f->r, f->r, f->r};
  expectMalformed(f, errors, buildRaw(f, "tilus.add", 4, four, none, loc),
                  "expects 2 or 3 operands (lhs, rhs, [out]), got 4");
  expectMalformed(f, errors, buildRaw(f, "tilus.view_global", 0, NULL, none, loc),
                  "'tilus.view_global' op expects at least 1 operand (ptr, "
                  "sizes...), got 0");

  // Like IRDL, an op with one optional or variadic group ignores a stale
  // operandSegmentSizes: the count decides.
  MlirValue three[] = {f->r, f->x, f->r};
  MlirOperation add = buildRaw(f, "tilus.add", 3, three,
                               i32s(f->ctx, 3, (const int32_t[]){1, 1, 0}), loc);
  CHECK(groupIs(add, TilusBinaryOut, 2, 1));
  CHECK(mlirLogicalResultIsSuccess(tilusOpVerifyStructure(add)));
  CHECK(mlirOperationVerify(add));
  mlirOperationDestroy(add);

  // Results and attributes.
  MlirOperationState state = mlirOperationStateGet(ref("tilus.neg"), loc);
  mlirOperationStateAddOperands(&state, 1, one);
  MlirOperation noResult = mlirOperationCreate(&state);
  clear(errors);
  CHECK(mlirLogicalResultIsFailure(tilusOpVerifyStructure(noResult)));
  CHECK(oneErrorAt(errors, "'tilus.neg' op expects 1 result (result), got 0",
                   loc));
  mlirOperationDestroy(noResult);
  state = mlirOperationStateGet(ref("tilus.copy_async_wait_group"), loc);
  MlirOperation noN = mlirOperationCreate(&state);
  clear(errors);
  CHECK(mlirLogicalResultIsFailure(tilusOpVerifyStructure(noN)));
  CHECK(oneErrorAt(errors, "op needs the attribute 'n'", loc));
  mlirOperationDestroy(noN);
  state = mlirOperationStateGet(ref("func.return"), loc);
  MlirOperation other = mlirOperationCreate(&state);
  clear(errors);
  CHECK(tilusOpSchemaGet(other) == NULL);
  CHECK(!tilusOpGetOperandGroup(other, 0, &(intptr_t){0}, &(intptr_t){0}));
  CHECK(mlirLogicalResultIsFailure(tilusOpVerifyStructure(other)));
  CHECK(oneErrorAt(errors, "'func.return' op is not a Tilus op", loc));
  mlirOperationDestroy(other);
  clear(errors);
}

// A kernel whose load_global gets a malformed operandSegmentSizes after
// parsing (so IRDL never saw it): tilusVerify reports it at the op.
static void testVerifierOnMalformedKernel(MlirContext ctx, Errors *errors) {
  const char *source =
      "func.func @k(%p: !tilus.ptr<f16>) attributes {tilus.kernel, "
      "tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %g = \"tilus.view_global\"(%p) : (!tilus.ptr<f16>) -> "
      "!tilus.global<f16, array<i64: 64>, #tilus.row_major>\n"
      "  %r = \"tilus.load_global\"(%g, %c0) {operandSegmentSizes = "
      "array<i32: 1, 1, 0, 0>} : (!tilus.global<f16, array<i64: 64>, "
      "#tilus.row_major>, index) -> !tilus.register<f16, array<i64: 32>, "
      "#tilus.layout<\"spatial(32)\">>\n"
      "  return\n"
      "}\n";
  clear(errors);
  MlirModule module = mlirModuleCreateParse(ctx, ref(source));
  CHECK(!mlirModuleIsNull(module));
  if (mlirModuleIsNull(module))
    return;
  CHECK(mlirLogicalResultIsSuccess(tilusVerify(mlirModuleGetOperation(module))));
  CHECK(errors->count == 0);
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation load = mlirOperationGetNextInBlock(
      mlirOperationGetNextInBlock(mlirBlockGetFirstOperation(body)));
  CHECK(tilusOpIs(load, "tilus.load_global"));
  static const int32_t malformed[][4] = {
      {1, 1, 0}, {1, -1, 1, 1}, {1, 2, 0, 0}, {0, 2, 0, 0}};
  static const intptr_t lengths[] = {3, 4, 4, 4};
  static const char *const messages[] = {
      "'tilus.load_global' op 'operandSegmentSizes' has 3 elements, expected 4",
      "'tilus.load_global' op 'operandSegmentSizes' gives the variadic operand "
      "group 'offsets' -1 operands",
      "'tilus.load_global' op 'operandSegmentSizes' adds up to 3 operands, but "
      "the op has 2",
      "'tilus.load_global' op 'operandSegmentSizes' gives the single operand "
      "group 'src' 0 operands"};
  for (int k = 0; k < 4; ++k) {
    mlirOperationSetDiscardableAttributeByName(
        load, ref(TILUS_OPERAND_SEGMENT_SIZES_ATTR),
        i32s(ctx, lengths[k], malformed[k]));
    clear(errors);
    CHECK(mlirLogicalResultIsFailure(tilusVerify(mlirModuleGetOperation(module))));
    CHECK(oneErrorAt(errors, messages[k], mlirOperationGetLocation(load)));
  }
  mlirOperationRemoveDiscardableAttributeByName(
      load, ref(TILUS_OPERAND_SEGMENT_SIZES_ATTR));
  clear(errors);
  CHECK(mlirLogicalResultIsFailure(tilusVerify(mlirModuleGetOperation(module))));
  CHECK(oneErrorAt(errors, "'tilus.load_global' op needs 'operandSegmentSizes'",
                   mlirOperationGetLocation(load)));
  clear(errors);
  mlirModuleDestroy(module);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  Errors errors = {0};
  mlirContextAttachDiagnosticHandler(ctx, collect, &errors, NULL);
  CHECK(mlirLogicalResultIsSuccess(tilusDialectLoad(ctx)));

  testTableMatchesIRDL(ctx);
  testGroupConstants();
  Fixture f;
  bool fixture = fixtureCreate(ctx, &f);
  CHECK(fixture);
  if (fixture) {
    testBuild(&f, &errors);
    testMisuse(&f, &errors);
    testMalformed(&f, &errors);
    mlirModuleDestroy(f.module);
  }
  testVerifierOnMalformedKernel(ctx, &errors);
  if (errors.count)
    fprintf(stderr, "unexpected errors:\n%s", errors.text);

  mlirContextDestroy(ctx);
  printf("op schema tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
