//===- RemarksTest.c - The lowering's remarks through the C API ----------===//
//
// An embedder turns remarks on with TilusConversionOptions::onRemark and
// gets each one with the op's location; without a callback there are none.
// The pass is built three ways: tilus-to-gpu with options, lower-to-nvvm
// with options, and the pass table's entries through tilusPassAddWithOptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "tilus-c/Diagnostics.h"
#include "tilus-c/Dialect.h"
#include "tilus-c/Passes.h"

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

// A Dot of f32 (SIMT: no mma.sync for f32) on line 5, a 4-byte load on 4.
static const char *const kSource =
    "func.func @k(%p: !tilus.ptr<f32>) attributes {tilus.kernel, "
    "tilus.block_size = 32 : i64, tilus.grid = affine_map<()[s0] -> (1)>} {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %g = \"tilus.view_global\"(%p) : (!tilus.ptr<f32>) -> "
    "!tilus.global<f32, array<i64: 32>, #tilus.row_major>\n"
    "  %x = \"tilus.load_global\"(%g, %c0) {operandSegmentSizes = array<i32: "
    "1, 1, 0, 0>} : (!tilus.global<f32, array<i64: 32>, #tilus.row_major>, "
    "index) -> !tilus.register<f32, array<i64: 32>, "
    "#tilus.layout<\"spatial(32)\">>\n"
    "  %a = \"tilus.allocate_register\"() : () -> !tilus.register<f32, "
    "array<i64: 8, 8>, #tilus.layout<\"spatial(8,4).local(1,2)\">>\n"
    "  %d = \"tilus.dot\"(%a, %a, %a) : (!tilus.register<f32, array<i64: 8, "
    "8>, #tilus.layout<\"spatial(8,4).local(1,2)\">>, !tilus.register<f32, "
    "array<i64: 8, 8>, #tilus.layout<\"spatial(8,4).local(1,2)\">>, "
    "!tilus.register<f32, array<i64: 8, 8>, "
    "#tilus.layout<\"spatial(8,4).local(1,2)\">>) -> !tilus.register<f32, "
    "array<i64: 8, 8>, #tilus.layout<\"spatial(8,4).local(1,2)\">>\n"
    "  return\n"
    "}\n";

typedef struct {
  int count;
  unsigned lines[8];
  char first[512];
  char last[512];
} Remarks;

static void collect(MlirLocation loc, MlirStringRef message, void *userData) {
  Remarks *r = userData;
  MlirStringRef file;
  unsigned line = 0, column = 0;
  tilusLocationGetFileLineCol(loc, &file, &line, &column);
  if (r->count < 8)
    r->lines[r->count] = line;
  snprintf(r->count ? r->last : r->first, sizeof(r->first), "%.*s",
           (int)message.length, message.data);
  r->count++;
}

// Runs `which` (0: tilus-to-gpu with options, 1: lower-to-nvvm with
// options, 2: "lower-to-nvvm" from the pass table) on a fresh parse.
static bool lower(MlirContext ctx, int which,
                  const TilusConversionOptions *options) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSource));
  if (mlirModuleIsNull(module))
    return false;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  bool ok = true;
  if (which == 0) {
    mlirOpPassManagerAddOwnedPass(opm, tilusCreatePlanSharedMemoryPass());
    mlirOpPassManagerAddOwnedPass(
        opm, tilusCreateConvertTilusToGPUPassWithOptions(options));
  } else if (which == 1) {
    ok = mlirLogicalResultIsSuccess(
        tilusAddLowerToNVVMPipelineWithOptions(opm, options, NULL, NULL));
  } else {
    const TilusPassInfo *pass =
        tilusLookupPass(mlirStringRefCreateFromCString("lower-to-nvvm"));
    ok = pass && mlirLogicalResultIsSuccess(
                     tilusPassAddWithOptions(pass, opm, options, NULL, NULL));
  }
  ok = ok && mlirLogicalResultIsSuccess(
                 mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return ok;
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  CHECK(mlirLogicalResultIsSuccess(tilusDialectLoad(ctx)));

  for (int which = 0; which < 3; ++which) {
    Remarks r = {0};
    TilusConversionOptions options = {NULL, collect, &r};
    CHECK(lower(ctx, which, &options));
    CHECK(r.count == 2);
    CHECK(r.lines[0] == 4 && r.lines[1] == 6);
    CHECK(strcmp(r.first, "'tilus.load_global' accesses 4 bytes per thread "
                          "at a time, not 16 bytes: each thread holds only "
                          "1 element (4 bytes)") == 0);
    CHECK(strncmp(r.last, "Dot takes the SIMT fallback", 27) == 0);
    CHECK(strstr(r.last, "no instruction for f32 x f32 -> f32") != NULL);
  }
  // Off by default: no callback, no remarks (and the same code).
  CHECK(lower(ctx, 0, NULL));
  TilusConversionOptions quiet = {tilusTargetInfoLookup("sm_80", 5), NULL,
                                  NULL};
  CHECK(lower(ctx, 1, &quiet));

  mlirContextDestroy(ctx);
  printf("remarks tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
