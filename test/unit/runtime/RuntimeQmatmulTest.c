//===- RuntimeQmatmulTest.c - The quantized matmul's table for C, fake driver ===//
//
// tilus-c/QuantizedMatmul.h on the CPU: a table and artifacts written to a
// temporary directory (kernels with the template's parameter lists), loaded,
// looked up, prepared on a runtime over the fake driver and launched: the
// parameters the fake records must be the buffers in the template's order,
// and every malformed table or mismatched buffer must be refused by name.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "tilus-c/QuantizedMatmul.h"

#include <unistd.h>

// f16 activations, split-K 4: a, w, scales, c, partials, counters, m, n, k.
static const char kSplitArtifact[] = "tilus-artifact 1\ntarget sm_90a\n"
                                     "kernel qmatmul\n  block 128 1 1\n"
                                     "  grid s6 ceildiv 16 ; s7 floordiv 64 ; 4\n"
                                     "  param ptr f16\n  param ptr ui8\n  param ptr f16\n"
                                     "  param ptr f16\n  param ptr f32\n  param ptr i32\n"
                                     "  param i32\n  param i32\n  param i32\nend\nptx:\n"
                                     "// split\n.entry qmatmul()\n";
// int8 activations with a bias, no split: a, a_scales, w, scales, bias, c,
// m, n, k.
static const char kInt8Artifact[] = "tilus-artifact 1\ntarget sm_90a\n"
                                    "kernel qmatmul\n  block 128 1 1\n"
                                    "  grid s6 ceildiv 64 ; s7 floordiv 128 ; 1\n"
                                    "  param ptr i8\n  param ptr f32\n  param ptr ui8\n"
                                    "  param ptr f16\n  param ptr f16\n  param ptr f16\n"
                                    "  param i32\n  param i32\n  param i32\nend\nptx:\n"
                                    ".entry qmatmul()\n";
// FP8 activations: a, a_scales, w, scales, c, m, n, k (the tensor map of
// the real kernel left out: the fake driver checks the parameters).
static const char kFp8Artifact[] = "tilus-artifact 1\ntarget sm_90a\n"
                                   "kernel qmatmul\n  block 384 1 1\n"
                                   "  grid s5 ceildiv 16 ; s6 floordiv 128\n"
                                   "  param ptr float8_e4m3\n  param ptr f32\n  param ptr ui8\n"
                                   "  param ptr f16\n  param ptr f16\n"
                                   "  param i32\n  param i32\n  param i32\nend\nptx:\n"
                                   ".entry qmatmul()\n";
// f16 activations with zero points of `Z` (f16 values or ui8 codes): a, w,
// scales, zeros, c, m, n, k.
#define ZEROS_ARTIFACT(Z)                                                              \
  "tilus-artifact 1\ntarget sm_90a\nkernel qmatmul\n  block 128 1 1\n"                 \
  "  grid s5 ceildiv 16 ; s6 floordiv 64 ; 1\n"                                        \
  "  param ptr f16\n  param ptr ui8\n  param ptr f16\n  param ptr " Z "\n"             \
  "  param ptr f16\n  param i32\n  param i32\n  param i32\nend\nptx:\n.entry qmatmul()\n"
// int8 activations with zero codes: a, a_scales, w, scales, zeros, c, m, n, k.
static const char kInt8CodesArtifact[] = "tilus-artifact 1\ntarget sm_90a\n"
                                         "kernel qmatmul\n  block 128 1 1\n"
                                         "  grid s6 ceildiv 16 ; s7 floordiv 64 ; 1\n"
                                         "  param ptr i8\n  param ptr f32\n  param ptr ui8\n"
                                         "  param ptr f16\n  param ptr ui8\n  param ptr f16\n"
                                         "  param i32\n  param i32\n  param i32\nend\nptx:\n"
                                         ".entry qmatmul()\n";
// f16 activations on a stream-K grid: a, w, scales, c, partials, counters,
// m, n, k, blocks (the grid).
static const char kStreamKArtifact[] = "tilus-artifact 1\ntarget sm_90a\n"
                                       "kernel qmatmul\n  block 384 1 1\n  grid s9\n"
                                       "  param ptr f16\n  param ptr ui8\n  param ptr f16\n"
                                       "  param ptr f16\n  param ptr f32\n  param ptr i32\n"
                                       "  param i32\n  param i32\n  param i32\n  param i32\n"
                                       "end\nptx:\n// stream-K\n.entry qmatmul()\n";
static const char kOtherArtifact[] = "tilus-artifact 1\ntarget sm_90a\nkernel other\n  block 32 1 1\n"
                                     "  grid 1\nend\nptx:\n.entry other()\n";
static const char kTable[] =
    "tilus-qmatmul-table 1\n"
    "# wtype offset group activation zeros bias m_min m_max n k split_k rows cols file\n"
    "uint4 8 128 float16 0 0 1 16 256 1024 4 16 64 split.tilus\n"
    "\n"
    "uint4 8 128 int8 0 1 33 0 256 1024 1 64 128 int8.tilus\n"
    "uint4 8 128 float16 0 0 65 128 256 1024 -132 128 128 sk.tilus\n"
    "uint4 8 128 float16 0 0 129 256 256 1024 -2 256 256 sk.tilus\n"
    "uint4 8 128 float16 0 0 33 64 256 128 -132 64 128 sk.tilus\n";

static void writeFile(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void removeAll(const char *dir) {
  static const char *const names[] = {"qmatmul-table.txt", "split.tilus", "int8.tilus",
                                      "other.tilus", "fp8.tilus", "zvalues.tilus",
                                      "zcodes.tilus", "i8codes.tilus", "sk.tilus"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

static uint64_t paramU64(int i) {
  uint64_t v;
  memcpy(&v, fake.params[i], 8);
  return v;
}

static TilusQmatmulShape shapeOf(const char *activation, bool bias, int64_t m) {
  return (TilusQmatmulShape){.wtype = "uint4", .offset = 8, .groupSize = 128,
                             .activation = activation, .bias = bias, .m = m, .n = 256,
                             .k = 1024};
}

// A table whose text is `table` (with the artifacts above): the load error.
static TilusRuntimeError loadError(const char *dir, const char *table) {
  writeFile(dir, "qmatmul-table.txt", table);
  TilusRuntimeError err = {0};
  TilusQmatmulTable *t = tilusQmatmulTableLoad(dir, &err);
  CHECK(t == NULL);
  tilusQmatmulTableDestroy(t);
  return err;
}

static void testLoadErrors(const char *dir) {
  TilusRuntimeError err;
  CHECK(tilusQmatmulTableLoad(NULL, &err) == NULL && err.code == TilusStatusInvalidArgument);
  CHECK(tilusQmatmulTableLoad("/nonexistent-tilus-dir", &err) == NULL);
  CHECK_ERROR(err, TilusStatusIOError,
              "cannot open '/nonexistent-tilus-dir/qmatmul-table.txt': No such file or "
              "directory");
  err = loadError(dir, "");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt: empty, expected the header 'tilus-qmatmul-table 1'");
  err = loadError(dir, "tilus-qmatmul-table 2\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 1: expected the header 'tilus-qmatmul-table 1'");
  err = loadError(dir, "tilus-qmatmul-table 1\nuint4 8 128 float16 0 0 1 16 256 1024\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 2: fewer than 14 fields, expected 14 (wtype offset "
              "group activation zeros bias m_min m_max n k split_k block_rows block_cols "
              "artifact)");
  err = loadError(dir, "tilus-qmatmul-table 1\n"
                       "uint4 8 128 float16 0 2 1 16 256 1024 4 16 64 split.tilus\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 2: bias '2' is not an integer in [0, 1]");
  err = loadError(dir, "tilus-qmatmul-table 1\n"
                       "uint4 8 128 float16 3 0 1 16 256 1024 4 16 64 split.tilus\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 2: zeros '3' is not an integer in [0, 2]");
  err = loadError(dir, "tilus-qmatmul-table 1\n"
                       "uint4 8 128 float32 0 0 1 16 256 1024 4 16 64 split.tilus\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 2: activation 'float32' is not float16, bfloat16, int8 "
              "or float8_e4m3");
  err = loadError(dir, "tilus-qmatmul-table 1\n"
                       "uint4 8 128 float16 0 0 1 16 256 1024 0 16 64 split.tilus\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 2: split_k is 0 (K splits from 1, or -P for stream-K "
              "over P blocks)");
  err = loadError(dir, "tilus-qmatmul-table 1\n"
                       "uint4 8 128 float16 0 0 17 16 256 1024 4 16 64 split.tilus\n");
  CHECK_ERROR(err, TilusStatusParseError,
              "qmatmul-table.txt line 2: m_max 16 is below m_min 17");
  err = loadError(dir, "tilus-qmatmul-table 1\n"
                       "uint4 8 128 float16 0 0 1 16 256 1024 4 16 64 other.tilus\n");
  CHECK(err.code == TilusStatusParseError);
  CHECK_CONTAINS(err, "qmatmul-table.txt line 2: artifact '");
  CHECK_CONTAINS(err, "other.tilus' has no kernel 'qmatmul'");
  err = loadError(dir, "tilus-qmatmul-table 1\n\n"
                       "uint4 8 128 float16 0 0 1 16 256 1024 4 16 64 missing.tilus\n");
  CHECK(err.code == TilusStatusIOError);
  CHECK_CONTAINS(err, "qmatmul-table.txt line 3: cannot open '");
  CHECK_CONTAINS(err, "missing.tilus': No such file or directory");
}

static void testFindAndLaunch(const char *dir) {
  TilusRuntimeError err;
  writeFile(dir, "qmatmul-table.txt", kTable);
  TilusQmatmulTable *t = tilusQmatmulTableLoad(dir, &err);
  CHECK(t != NULL);
  if (!t)
    return;
  CHECK(tilusQmatmulTableGetNumEntries(t) == 5);

  // Lookups: the f16 entry's split-K scratch for M = 5.
  TilusQmatmulShape f16 = shapeOf("float16", false, 5);
  TilusQmatmulPlan plan;
  CHECK(tilusQmatmulFind(t, &f16, &plan, &err) == TilusStatusSuccess);
  CHECK(plan.entry == 0 && plan.splitK == 4 && plan.blockRows == 16 && plan.blockCols == 64);
  CHECK(plan.partialsBytes == 4u * 4 * 5 * 256 && plan.countersBytes == 4u * 1 * 4);
  TilusQmatmulShape i8 = shapeOf("int8", true, 40);
  CHECK(tilusQmatmulFind(t, &i8, &plan, &err) == TilusStatusSuccess);
  CHECK(plan.entry == 1 && plan.splitK == 1 && plan.partialsBytes == 0 &&
        plan.countersBytes == 0);
  // The stream-K entry at M = 100: 2 tiles of 8 k tiles, 16 blocks of one
  // each; all but a tile's first and last block cover at least one, so up
  // to 8 share a tile (stream_k_plan's bound).
  TilusQmatmulShape sk = shapeOf("float16", false, 100);
  CHECK(tilusQmatmulFind(t, &sk, &plan, &err) == TilusStatusSuccess);
  CHECK(plan.entry == 2 && plan.splitK == 1 && plan.streamKBlocks == 16);
  CHECK(plan.partialsBytes == 4u * 8 * 100 * 256 && plan.countersBytes == 4u * 2);
  // Two blocks over one tile of 8 k tiles: the bound (6 / 4 + 2 = 3) is
  // clamped to the blocks.
  TilusQmatmulShape two = shapeOf("float16", false, 200);
  CHECK(tilusQmatmulFind(t, &two, &plan, &err) == TilusStatusSuccess);
  CHECK(plan.entry == 3 && plan.streamKBlocks == 2);
  CHECK(plan.partialsBytes == 4u * 2 * 200 * 256 && plan.countersBytes == 4u * 1);
  // One k tile per output tile: no tile is shared, one slot.
  TilusQmatmulShape one = shapeOf("float16", false, 50);
  one.k = 128;
  CHECK(tilusQmatmulFind(t, &one, &plan, &err) == TilusStatusSuccess);
  CHECK(plan.entry == 4 && plan.streamKBlocks == 2);
  CHECK(plan.partialsBytes == 4u * 1 * 50 * 256 && plan.countersBytes == 4u * 2);
  TilusQmatmulShape miss = shapeOf("float16", false, 17);
  CHECK(tilusQmatmulFind(t, &miss, &plan, &err) == TilusStatusUnsupported);
  CHECK_ERROR(err, TilusStatusUnsupported,
              "quantized matmul: the table has no kernel for uint4 (offset 8, group 128, "
              "float16 activations, zeros none, bias 0) at M = 17, N = 256, K = 1024; for those "
              "it has N x K: 256x1024, 256x128 (python3 -m tilus.ops.export makes tables)");
  miss = shapeOf("bfloat16", false, 1);
  CHECK(tilusQmatmulFind(t, &miss, &plan, &err) == TilusStatusUnsupported);
  CHECK_CONTAINS(err, "it has N x K: none");
  miss = shapeOf("float16", false, -1);
  CHECK(tilusQmatmulFind(t, &miss, &plan, &err) == TilusStatusInvalidArgument);
  CHECK(tilusQmatmulFind(t, &miss, &plan, NULL) == TilusStatusInvalidArgument);
  CHECK(tilusQmatmulFind(t, NULL, &plan, NULL) == TilusStatusInvalidArgument);

  // Launching needs the table prepared on the runtime.
  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL);
  TilusQmatmulBuffers b = {.x = 0x1000, .qweight = 0x2000, .scales = 0x3000, .out = 0x4000,
                           .partials = 0x5000, .counters = 0x6000};
  CHECK(tilusQmatmulLaunch(t, rt, &f16, &b, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: the table is not prepared on this runtime "
              "(tilusQmatmulTablePrepare)");
  CHECK(tilusQmatmulTablePrepare(t, rt, &err) == TilusStatusSuccess);
  CHECK(fake.moduleLoads == 3);

  // The split-K kernel: a, w, scales, c, partials, counters, m, n, k.
  fake.numParamsToRecord = 9;
  CHECK(tilusQmatmulLaunch(t, rt, &f16, &b, (void *)0x77, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 1 && fake.grid[0] == 1 && fake.grid[1] == 4 && fake.grid[2] == 4);
  CHECK(paramU64(0) == 0x1000 && paramU64(1) == 0x2000 && paramU64(2) == 0x3000 &&
        paramU64(3) == 0x4000 && paramU64(4) == 0x5000 && paramU64(5) == 0x6000);
  CHECK((int32_t)paramU64(6) == 5 && (int32_t)paramU64(7) == 256 &&
        (int32_t)paramU64(8) == 1024);
  CHECK(fake.stream == (CUstream)0x77);

  // Missing or extra buffers are refused by name; nothing is launched.
  TilusQmatmulBuffers nb = b;
  nb.partials = 0;
  CHECK(tilusQmatmulLaunch(t, rt, &f16, &nb, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: buffer 'partials' is 0, but its kernel splits K "
              "(TilusQmatmulPlan.partialsBytes)");
  nb = b;
  nb.xScales = 0x9000;
  CHECK(tilusQmatmulLaunch(t, rt, &f16, &nb, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: buffer 'xScales' is given, but only int8 and FP8 "
              "activations take row scales");
  CHECK(fake.launches == 1);

  // The int8 kernel with a bias: a, a_scales, w, scales, bias, c, m, n, k.
  TilusQmatmulBuffers b8 = {.x = 0x1100, .xScales = 0x1200, .qweight = 0x2100,
                            .scales = 0x3100, .bias = 0x3200, .out = 0x4100};
  CHECK(tilusQmatmulLaunch(t, rt, &i8, &b8, NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 2 && fake.grid[0] == 1 && fake.grid[1] == 2);
  CHECK(paramU64(0) == 0x1100 && paramU64(1) == 0x1200 && paramU64(2) == 0x2100 &&
        paramU64(3) == 0x3100 && paramU64(4) == 0x3200 && paramU64(5) == 0x4100);
  CHECK((int32_t)paramU64(6) == 40);
  b8.bias = 0;
  CHECK(tilusQmatmulLaunch(t, rt, &i8, &b8, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: buffer 'bias' is 0, but the shape has a bias");
  // The stream-K kernel: the split-K kernel's parameters, then its blocks,
  // which are its grid.
  fake.numParamsToRecord = 10;
  CHECK(tilusQmatmulLaunch(t, rt, &sk, &b, NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 3 && fake.grid[0] == 16 && fake.grid[1] == 1);
  CHECK(paramU64(4) == 0x5000 && paramU64(5) == 0x6000 && (int32_t)paramU64(6) == 100 &&
        (int32_t)paramU64(9) == 16);
  nb = b;
  nb.counters = 0;
  CHECK(tilusQmatmulLaunch(t, rt, &sk, &nb, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: buffer 'counters' is 0, but its kernel runs on a "
              "stream-K grid (TilusQmatmulPlan.countersBytes)");
  // M = 0 launches nothing and needs no scratch.
  f16.m = 0;
  CHECK(tilusQmatmulFind(t, &f16, &plan, &err) == TilusStatusSuccess && plan.partialsBytes == 0);
  b.partials = b.counters = 0;
  CHECK(tilusQmatmulLaunch(t, rt, &f16, &b, NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 3);

  tilusQmatmulTableDestroy(t);
  tilusRuntimeDestroy(rt);
}

// The message for a missing shape lists each N x K of that kind once, even
// where one's text contains another's.
static void testMissingShapeMessage(const char *dir) {
  writeFile(dir, "qmatmul-table.txt",
            "tilus-qmatmul-table 1\n"
            "uint4 8 128 float16 0 0 1 0 4096 10240 4 16 64 split.tilus\n"
            "uint4 8 128 float16 0 0 1 0 4096 1024 4 16 64 split.tilus\n"
            "uint4 8 128 float16 0 0 1 0 4096 10240 4 16 64 split.tilus\n");
  TilusRuntimeError err;
  TilusQmatmulTable *t = tilusQmatmulTableLoad(dir, &err);
  CHECK(t != NULL);
  TilusQmatmulShape shape = shapeOf("float16", false, 1);
  TilusQmatmulPlan plan;
  CHECK(t && tilusQmatmulFind(t, &shape, &plan, &err) == TilusStatusUnsupported);
  CHECK_CONTAINS(err, "it has N x K: 4096x10240, 4096x1024 (python3");
  tilusQmatmulTableDestroy(t);
}

// An FP8 entry takes x's row scales second, and needs them.
static void testFp8Launch(const char *dir) {
  writeFile(dir, "fp8.tilus", kFp8Artifact);
  writeFile(dir, "qmatmul-table.txt",
            "tilus-qmatmul-table 1\n"
            "uint4 8 128 float8_e4m3 0 0 1 16 256 1024 1 16 128 fp8.tilus\n");
  TilusRuntimeError err;
  TilusQmatmulTable *t = tilusQmatmulTableLoad(dir, &err);
  CHECK(t != NULL);
  if (!t)
    return;
  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL && tilusQmatmulTablePrepare(t, rt, &err) == TilusStatusSuccess);
  TilusQmatmulShape fp8 = shapeOf("float8_e4m3", false, 7);
  TilusQmatmulBuffers b = {.x = 0x1100, .xScales = 0x1200, .qweight = 0x2100,
                           .scales = 0x3100, .out = 0x4100};
  fake.numParamsToRecord = 8;
  CHECK(tilusQmatmulLaunch(t, rt, &fp8, &b, NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 1 && fake.grid[0] == 1 && fake.grid[1] == 2);
  CHECK(paramU64(0) == 0x1100 && paramU64(1) == 0x1200 && paramU64(2) == 0x2100 &&
        paramU64(3) == 0x3100 && paramU64(4) == 0x4100);
  CHECK((int32_t)paramU64(5) == 7 && (int32_t)paramU64(6) == 256 &&
        (int32_t)paramU64(7) == 1024);
  b.xScales = 0;
  CHECK(tilusQmatmulLaunch(t, rt, &fp8, &b, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: buffer 'xScales' is 0, but int8 and FP8 activations need "
              "their row scales");
  CHECK(fake.launches == 1);
  tilusQmatmulTableDestroy(t);
  tilusRuntimeDestroy(rt);
}

// Zero points as values (zeros 1) and as uint8 codes (zeros 2) are different
// entries; a shape picks one by zeroCodes, and the codes ride in the zeros
// parameter like values.
static void testZeroCodes(const char *dir) {
  writeFile(dir, "zvalues.tilus", ZEROS_ARTIFACT("f16"));
  writeFile(dir, "zcodes.tilus", ZEROS_ARTIFACT("ui8"));
  writeFile(dir, "i8codes.tilus", kInt8CodesArtifact);
  writeFile(dir, "qmatmul-table.txt",
            "tilus-qmatmul-table 1\n"
            "uint4 0 128 float16 1 0 1 0 256 1024 1 16 64 zvalues.tilus\n"
            "uint4 0 128 float16 2 0 1 0 256 1024 1 16 64 zcodes.tilus\n"
            "uint4 0 128 int8 2 0 1 0 256 1024 1 16 64 i8codes.tilus\n");
  TilusRuntimeError err;
  TilusQmatmulTable *t = tilusQmatmulTableLoad(dir, &err);
  CHECK(t != NULL);
  if (!t)
    return;
  TilusQmatmulShape s = {.wtype = "uint4", .groupSize = 128, .activation = "float16",
                         .zeros = true, .m = 3, .n = 256, .k = 1024};
  TilusQmatmulPlan plan;
  CHECK(tilusQmatmulFind(t, &s, &plan, &err) == TilusStatusSuccess && plan.entry == 0);
  s.zeroCodes = true;
  CHECK(tilusQmatmulFind(t, &s, &plan, &err) == TilusStatusSuccess && plan.entry == 1);
  s.activation = "int8";
  CHECK(tilusQmatmulFind(t, &s, &plan, &err) == TilusStatusSuccess && plan.entry == 2);
  s.zeroCodes = false;
  CHECK(tilusQmatmulFind(t, &s, &plan, &err) == TilusStatusUnsupported);
  CHECK_CONTAINS(err, "int8 activations, zeros values, bias 0) at M = 3");
  s.zeros = false, s.zeroCodes = true;
  CHECK(tilusQmatmulFind(t, &s, &plan, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: zeroCodes without zeros (zero codes are a kind of zero "
              "points: set both)");

  resetFake();
  TilusRuntime *rt = createFake(&err);
  CHECK(rt != NULL && tilusQmatmulTablePrepare(t, rt, &err) == TilusStatusSuccess);
  s.zeros = true;
  TilusQmatmulBuffers b = {.x = 0x1100, .xScales = 0x1200, .qweight = 0x2100,
                           .scales = 0x3100, .zeros = 0x3200, .out = 0x4100};
  fake.numParamsToRecord = 9;
  CHECK(tilusQmatmulLaunch(t, rt, &s, &b, NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 1 && fake.grid[0] == 1 && fake.grid[1] == 4);
  CHECK(paramU64(0) == 0x1100 && paramU64(1) == 0x1200 && paramU64(2) == 0x2100 &&
        paramU64(3) == 0x3100 && paramU64(4) == 0x3200 && paramU64(5) == 0x4100);
  CHECK((int32_t)paramU64(6) == 3);
  b.zeros = 0;
  CHECK(tilusQmatmulLaunch(t, rt, &s, &b, NULL, &err) == TilusStatusInvalidArgument);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "quantized matmul: buffer 'zeros' is 0, but the shape has zero points");
  CHECK(fake.launches == 1);
  // f16 with codes: a, w, scales, zeros, c, m, n, k (the codes entry's kernel).
  s.activation = "float16";
  b.xScales = 0, b.zeros = 0x3300;
  fake.numParamsToRecord = 8;
  CHECK(tilusQmatmulLaunch(t, rt, &s, &b, NULL, &err) == TilusStatusSuccess);
  CHECK(fake.launches == 2 && paramU64(3) == 0x3300 && paramU64(4) == 0x4100 &&
        (int32_t)paramU64(5) == 3);
  tilusQmatmulTableDestroy(t);
  tilusRuntimeDestroy(rt);
}

void testQmatmulTable(void) {
  char dir[] = "/tmp/tilus-qmatmul-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  writeFile(dir, "split.tilus", kSplitArtifact);
  writeFile(dir, "int8.tilus", kInt8Artifact);
  writeFile(dir, "other.tilus", kOtherArtifact);
  writeFile(dir, "sk.tilus", kStreamKArtifact);
  testLoadErrors(dir);
  testFindAndLaunch(dir);
  testMissingShapeMessage(dir);
  testFp8Launch(dir);
  testZeroCodes(dir);
  removeAll(dir);
}
