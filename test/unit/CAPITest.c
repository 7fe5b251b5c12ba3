//===- CAPITest.c - Tests of the dialect's C API --------------------------===//
//
// Builders and accessors of Tilus types and attributes, element-type widths,
// kernel accessors, and the verifier and its pass, driven from C the way an
// embedding compiler would.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Kernel.h"
#include "tilus-c/Passes.h"
#include "tilus-c/Types.h"
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

// Collects the text of the error diagnostics.
typedef struct {
  char text[4096];
  int count;
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
    mlirDiagnosticPrint(diagnostic, appendMessage, errors);
    appendMessage(mlirStringRefCreateFromCString("\n"), errors);
  }
  return mlirLogicalResultSuccess();
}

static MlirType parseType(MlirContext ctx, const char *text) {
  return mlirTypeParseGet(ctx, mlirStringRefCreateFromCString(text));
}

static void testLoading(MlirContext ctx) {
  CHECK(!tilusDialectIsLoaded(ctx));
  CHECK(mlirLogicalResultIsSuccess(tilusDialectLoad(ctx)));
  CHECK(tilusDialectIsLoaded(ctx));
  CHECK(mlirLogicalResultIsSuccess(tilusDialectLoad(ctx)));
  MlirStringRef source = tilusDialectGetSource();
  CHECK(source.length > 1000);
  CHECK(strstr(source.data, "irdl.dialect @tilus") != NULL);
}

static void testScalarTypes(MlirContext ctx) {
  MlirType f6 = tilusFloatTypeGet(ctx, 3, 2);
  int64_t e = 0, m = 0;
  CHECK(tilusTypeIsAFloat(f6));
  CHECK(tilusFloatTypeGetFormat(f6, &e, &m) && e == 3 && m == 2);
  CHECK(tilusElementTypeGetBitWidth(f6) == 6);
  CHECK(tilusElementTypeGetBitWidth(tilusFloatTypeGet(ctx, 4, 3)) == 8);
  CHECK(tilusElementTypeGetBitWidth(tilusFloatTypeGet(ctx, 1, 1)) == 3);
  CHECK(tilusElementTypeGetBitWidth(tilusFloatTypeGet(ctx, 5, 3)) == 0);
  CHECK(tilusElementTypeGetBitWidth(tilusFloatTypeGet(ctx, 0, 4)) == 0);
  CHECK(tilusElementTypeGetBitWidth(tilusFloatTypeGet(ctx, 1, 0)) == 0);

  static const struct {
    const char *type;
    int64_t bits;
  } widths[] = {{"i1", 1},    {"i2", 2},     {"si3", 3},   {"ui5", 5},
                {"i6", 6},    {"ui7", 7},    {"i8", 8},    {"i16", 16},
                {"i32", 32},  {"i64", 64},   {"f16", 16},  {"bf16", 16},
                {"f32", 32},  {"f64", 64},   {"index", 64}, {"i9", 0},
                {"i12", 0},   {"f8E4M3FN", 0}, {"tf32", 0}};
  for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); ++k) {
    int64_t bits = tilusElementTypeGetBitWidth(parseType(ctx, widths[k].type));
    if (bits != widths[k].bits)
      fprintf(stderr, "bit width of %s: got %lld, expected %lld\n",
              widths[k].type, (long long)bits, (long long)widths[k].bits);
    CHECK(bits == widths[k].bits);
  }

  MlirType f16 = mlirF16TypeGet(ctx);
  MlirType ptr = tilusPtrTypeGet(ctx, f16);
  CHECK(tilusTypeIsAPtr(ptr));
  CHECK(!tilusTypeIsATensor(ptr));
  CHECK(mlirTypeEqual(tilusPtrTypeGetElementType(ptr), f16));
  CHECK(mlirTypeEqual(ptr, parseType(ctx, "!tilus.ptr<f16>")));
  CHECK(mlirTypeIsNull(tilusPtrTypeGetElementType(f16)));
}

static void testTensorTypes(MlirContext ctx) {
  const char *mma = "local(2,1).spatial(8,4).local(1,2)";
  TilusLayout *layout = tilusLayoutParse(mma, strlen(mma), NULL);
  CHECK(layout != NULL);
  int64_t shape[2] = {16, 8};
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirType reg = tilusRegisterTypeGet(ctx, f32, 2, shape, layout);
  CHECK(!mlirTypeIsNull(reg));
  CHECK(tilusTypeIsARegister(reg) && tilusTypeIsATensor(reg));
  CHECK(!tilusTypeIsAShared(reg) && !tilusTypeIsAGlobal(reg));
  CHECK(mlirTypeEqual(
      reg, parseType(ctx, "!tilus.register<f32, array<i64: 16, 8>, "
                          "#tilus.layout<\"local(2,1).spatial(8,4).local(1,2)"
                          "\">>")));

  TilusTensorType decoded;
  CHECK(mlirLogicalResultIsSuccess(tilusTensorTypeDecode(reg, &decoded, NULL)));
  CHECK(decoded.scope == TilusMemoryRegister);
  CHECK(mlirTypeEqual(decoded.elementType, f32));
  CHECK(decoded.rank == 2 && decoded.shape[0] == 16 && decoded.shape[1] == 8);
  CHECK(decoded.layout && tilusLayoutEqual(decoded.layout, layout));
  tilusTensorTypeRelease(&decoded);

  // A shared tensor whose layout text contains commas inside parentheses.
  const char *swz = "local(2,1,1).swizzle(local(16,8),dim=1).local(1,8)";
  TilusLayout *swizzled = tilusLayoutParse(swz, strlen(swz), NULL);
  CHECK(swizzled != NULL);
  int64_t sshape[3] = {2, 16, 64};
  MlirType shared =
      tilusSharedTypeGet(ctx, tilusFloatTypeGet(ctx, 3, 2), 3, sshape, swizzled);
  CHECK(tilusTypeIsAShared(shared));
  CHECK(mlirLogicalResultIsSuccess(
      tilusTensorTypeDecode(shared, &decoded, NULL)));
  CHECK(decoded.scope == TilusMemoryShared && decoded.rank == 3);
  CHECK(decoded.shape[2] == 64);
  CHECK(tilusElementTypeGetBitWidth(decoded.elementType) == 6);
  CHECK(decoded.layout && tilusLayoutEqual(decoded.layout, swizzled));
  tilusTensorTypeRelease(&decoded);
  CHECK(mlirTypeIsNull(tilusSharedTypeGet(ctx, f32, 3, sshape, NULL)));

  // The type cache decodes each type once: the same entry comes back for the
  // same (uniqued) type, a different one for another, none for a non-tensor.
  TilusTypeCache *cache = tilusTypeCacheCreate();
  CHECK(cache != NULL);
  const TilusTensorType *first = tilusTypeCacheGetTensor(cache, reg, NULL);
  CHECK(first != NULL && first->scope == TilusMemoryRegister &&
        first->rank == 2 && tilusLayoutEqual(first->layout, layout));
  CHECK(tilusTypeCacheGetTensor(cache, reg, NULL) == first);
  const TilusTensorType *other = tilusTypeCacheGetTensor(cache, shared, NULL);
  CHECK(other != NULL && other != first && other->rank == 3 &&
        tilusLayoutEqual(other->layout, swizzled));
  TilusLayoutError cacheError = {{0}};
  CHECK(tilusTypeCacheGetTensor(cache, f32, &cacheError) == NULL);
  CHECK(cacheError.message[0] != '\0');
  tilusTypeCacheDestroy(cache);

  int64_t gshape[2] = {TILUS_DYNAMIC_DIM, 4096};
  MlirType global = tilusGlobalTypeGet(ctx, f32, 2, gshape, NULL);
  CHECK(tilusTypeIsAGlobal(global));
  CHECK(mlirLogicalResultIsSuccess(
      tilusTensorTypeDecode(global, &decoded, NULL)));
  CHECK(decoded.scope == TilusMemoryGlobal && decoded.layout == NULL);
  CHECK(decoded.shape[0] == TILUS_DYNAMIC_DIM && decoded.shape[1] == 4096);
  tilusTensorTypeRelease(&decoded);

  TilusLayoutError err = {{0}};
  CHECK(mlirLogicalResultIsFailure(tilusTensorTypeDecode(f32, &decoded, &err)));
  CHECK(strstr(err.message, "not a Tilus tensor type") != NULL);
  MlirType bad = parseType(ctx, "!tilus.register<f32, array<i64: 4>, "
                                "#tilus.layout<\"spatial(4\">>");
  CHECK(!mlirTypeIsNull(bad));
  CHECK(mlirLogicalResultIsFailure(tilusTensorTypeDecode(bad, &decoded, &err)));
  CHECK(strstr(err.message, "invalid layout 'spatial(4'") != NULL);

  MlirAttribute attr = tilusLayoutAttrGet(ctx, layout);
  CHECK(tilusAttributeIsALayout(attr) && !tilusAttributeIsARowMajor(attr));
  TilusLayout *back = tilusLayoutAttrGetLayout(attr, NULL);
  CHECK(back && tilusLayoutEqual(back, layout));
  tilusLayoutDestroy(back);
  CHECK(tilusAttributeIsARowMajor(tilusRowMajorAttrGet(ctx)));
  MlirAttribute text = tilusLayoutAttrGetFromText(
      ctx, mlirStringRefCreateFromCString("spatial(32).local(3)"));
  back = tilusLayoutAttrGetLayout(text, NULL);
  CHECK(back && tilusLayoutGetNumThreads(back) == 32 &&
        tilusLayoutGetLocalSize(back) == 3);
  tilusLayoutDestroy(back);

  tilusLayoutDestroy(layout);
  tilusLayoutDestroy(swizzled);
}

static const char *kGoodKernel =
    "func.func @k(%p: !tilus.ptr<f32>, %n: i32) attributes {tilus.kernel,\n"
    "    tilus.block_size = 64 : i64,\n"
    "    tilus.grid = affine_map<()[s0, s1] -> (s1 ceildiv 64)>} {\n"
    "  %r = \"tilus.allocate_register\"() : () -> !tilus.register<f32, "
    "array<i64: 64>, #tilus.layout<\"spatial(64)\">>\n"
    "  return\n"
    "}\n";

// Block size 32 against a 64-thread register layout.
static const char *kBadKernel =
    "func.func @k(%p: !tilus.ptr<f32>) attributes {tilus.kernel,\n"
    "    tilus.block_size = 32 : i64, tilus.grid = affine_map<() -> (1)>} {\n"
    "  %r = \"tilus.allocate_register\"() : () -> !tilus.register<f32, "
    "array<i64: 64>, #tilus.layout<\"spatial(64)\">>\n"
    "  return\n"
    "}\n";

static MlirModule parseModule(MlirContext ctx, const char *text) {
  return mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
}

static void testKernelAndVerifier(MlirContext ctx, Errors *errors) {
  MlirModule good = parseModule(ctx, kGoodKernel);
  CHECK(!mlirModuleIsNull(good));
  MlirOperation func =
      mlirBlockGetFirstOperation(mlirModuleGetBody(good));
  CHECK(tilusOperationIsAKernel(func));
  CHECK(!tilusOperationIsAKernel(mlirModuleGetOperation(good)));
  CHECK(tilusKernelGetBlockSize(func) == 64);
  MlirAffineMap grid = tilusKernelGetGrid(func);
  CHECK(!mlirAffineMapIsNull(grid) && mlirAffineMapGetNumResults(grid) == 1);
  CHECK(mlirAffineMapGetNumSymbols(grid) == 2);
  MlirOperation inner =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(
          mlirOperationGetRegion(func, 0)));
  CHECK(mlirOperationEqual(tilusGetEnclosingKernel(inner), func));

  errors->count = 0;
  errors->text[0] = '\0';
  CHECK(mlirLogicalResultIsSuccess(tilusVerify(mlirModuleGetOperation(good))));
  CHECK(errors->count == 0);

  MlirModule bad = parseModule(ctx, kBadKernel);
  CHECK(!mlirModuleIsNull(bad));
  CHECK(mlirLogicalResultIsFailure(tilusVerify(mlirModuleGetOperation(bad))));
  CHECK(errors->count == 1);
  CHECK(strstr(errors->text, "register tensor layout 'spatial(64)' has 64 "
                             "threads but the kernel's block size is 32") !=
        NULL);

  // The same through the pass and a pass manager.
  intptr_t numPasses = 0;
  const TilusPassInfo *passes = tilusGetPasses(&numPasses);
  CHECK(numPasses >= 1 && passes != NULL);
  const TilusPassInfo *verify =
      tilusLookupPass(mlirStringRefCreateFromCString("tilus-verify"));
  CHECK(verify != NULL);
  CHECK(tilusLookupPass(mlirStringRefCreateFromCString("no-such-pass")) == NULL);
  for (int k = 0; k < 2; ++k) {
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    CHECK(mlirLogicalResultIsSuccess(
        verify->addTo(mlirPassManagerGetAsOpPassManager(pm), NULL, NULL, NULL)));
    MlirLogicalResult result = mlirPassManagerRunOnOp(
        pm, mlirModuleGetOperation(k == 0 ? good : bad));
    CHECK(k == 0 ? mlirLogicalResultIsSuccess(result)
                 : mlirLogicalResultIsFailure(result));
    mlirPassManagerDestroy(pm);
  }
  mlirModuleDestroy(good);
  mlirModuleDestroy(bad);
}

// Text that crashes MLIR 22's parser is found, where it starts, and the same
// letters where the parser never reads them as an attribute are not.
static bool safe(const char *text, size_t length, size_t *offset) {
  return tilusSourceIsSafeToParse(mlirStringRefCreate(text, length), offset);
}

static void testSourceCheck(void) {
  size_t at = 0;
  const char plain[] = "{x = array<index: 1>}";
  CHECK(!safe(plain, sizeof(plain) - 1, &at) && at == 5);
  const char spaced[] = "array <\n  index>";
  CHECK(!safe(spaced, sizeof(spaced) - 1, &at) && at == 0);
  // The MLIR lexer skips a NUL inside the buffer like white space.
  const char nul[] = "y=array<\0index";
  CHECK(!safe(nul, sizeof(nul) - 1, &at) && at == 2);
  // Comments between the tokens are skipped by the lexer, and so here.
  const char between[] = "array // c\n<index: 1>";
  CHECK(!safe(between, sizeof(between) - 1, &at) && at == 0);
  const char comment[] = "// array<index: 1>\n{x = array<i64: 1>}";
  CHECK(safe(comment, sizeof(comment) - 1, NULL));
  const char string[] = "{s = \"array<index: \\\" 1>\"}";
  CHECK(safe(string, sizeof(string) - 1, NULL));
  const char prefixed[] = "myarray<index> arrays<index> array<indexed>";
  CHECK(safe(prefixed, sizeof(prefixed) - 1, NULL));
  // An unterminated string or comment ends the text without reading past it.
  CHECK(safe("\"array<index", 6, NULL));
  const char after[] = "x \"a\" array<index";
  CHECK(!safe(after, sizeof(after) - 1, &at) && at == 6);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  Errors errors = {{0}, 0};
  mlirContextAttachDiagnosticHandler(ctx, collect, &errors, NULL);

  testLoading(ctx);
  testSourceCheck();
  testScalarTypes(ctx);
  testTensorTypes(ctx);
  testKernelAndVerifier(ctx, &errors);

  mlirContextDestroy(ctx);
  printf("capi tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
