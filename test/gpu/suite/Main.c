//===- Main.c - The GPU suite: every test for each target ----------------===//

#include "Suite.h"

#include <stdio.h>

static const char *const kTargets[] = {"sm_80", "sm_90a"};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tilus-gpu-suite ARTIFACT_DIR\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0); // keep every line if a test crashes
  Suite s = {NULL, argv[1], 0, 0, 0};
  TilusRuntimeError err;
  s.rt = tilusRuntimeCreate(&err);
  static const int formats[][2] = {{4, 3}, {5, 2}, {3, 4}, {3, 3},
                                   {2, 4}, {3, 2}, {2, 3}, {2, 2},
                                   {1, 3}, {2, 1}, {1, 2}, {1, 1}};
  int numFormats = (int)(sizeof(formats) / sizeof(formats[0]));
  static const struct {
    const char *type;
    int bits;
    WeightKind kind;
  } weights[] = {{"u1", 1, WeightUnsigned},      {"u2", 2, WeightUnsigned},
                 {"u3", 3, WeightUnsigned},      {"u4", 4, WeightUnsigned},
                 {"i4", 4, WeightSigned},        {"u5", 5, WeightUnsigned},
                 {"f6e3m2", 6, WeightFloatE3M2}, {"u7", 7, WeightUnsigned},
                 {"u8", 8, WeightUnsigned}};
  int numWeights = (int)(sizeof(weights) / sizeof(weights[0]));
  static const char *const widened[] = {
      "u1",   "u2",   "u3",   "u4",   "u5",   "u6",   "u7",
      "u8",   "i2",   "i3",   "i4",   "i5",   "i6",   "i7",
      "i8",   "e4m3", "e5m2", "e3m4", "e3m3", "e2m4", "e3m2",
      "e2m3", "e2m2", "e1m3", "e2m1", "e1m2", "e1m1", "e6m1"};
  int numWidened = (int)(sizeof(widened) / sizeof(widened[0]));
  int numIntegerWidened = 0; // to_i8 too
  for (int k = 0; k < numWidened; ++k)
    numIntegerWidened += widened[k][0] != 'e';
  int numTests = 2 * (4 + 3 + 2 + 3 + 1 + 2 + 3 + 2 + numFormats + numWeights +
                      12 + 5 * numWidened + numIntegerWidened + 2 + 8 + 3 + 6 +
                      /* SharedAndDotTests.c: shared_i8 */ 1 +
                      /* AtomicTests.c */ 6 + 2 + 2 + 1 +
                      /* ElementwiseTests.c */ 9 +
                      /* DataMovementTests.c */ 11 +
                      /* NormTests.c */ 8) +
                 /* QmatmulTests.c, once */ 13 +
                 /* WgmmaTests.c, sm_90a only */ 14;
  if (!s.rt) {
    printf("SKIPPED: %s\n", err.message);
    printf("gpu tests: 0 passed, 0 failed, %d skipped\n", numTests);
    return 77;
  }
  printf("device: %s\n", tilusRuntimeGetDeviceName(s.rt));
  for (size_t t = 0; t < sizeof(kTargets) / sizeof(kTargets[0]); ++t) {
    const char *target = kTargets[t];
    int64_t copySizes[] = {1, 1000, 3 * 4096 + 17, 1 << 20};
    for (int k = 0; k < 4; ++k)
      testCopy(&s, target, copySizes[k]);
    int64_t shapes[][2] = {{70, 150}, {64, 128}, {1, 1}};
    for (int k = 0; k < 3; ++k)
      testElementwise(&s, target, shapes[k][0], shapes[k][1]);
    testIntegers(&s, target, 1000);
    testIntegers(&s, target, 256 * 40);
    testLoops(&s, target, 3, 0);
    testLoops(&s, target, 5, 2);
    testLoops(&s, target, 1, 4);
    testWorkspace(&s, target);
    testPad(&s, target, 1000, 1024);
    testPad(&s, target, 1, 512);
    testPad(&s, target, 3 * 512 + 2, 4 * 512);
    testCasts(&s, target, 1000);
    testCasts(&s, target, 256);
    for (int k = 0; k < numFormats; ++k)
      testFloatFormat(&s, target, formats[k][0], formats[k][1]);
    for (int k = 0; k < numWeights; ++k)
      testLowBitMatmul(&s, target, weights[k].type, weights[k].bits,
                       weights[k].kind, 48, 64, 128);
    testSubByte(&s, target, "i4", 4, WeightSigned, 37, 53);
    testSubByte(&s, target, "u3", 3, WeightUnsigned, 37, 53);
    testSubByte(&s, target, "u1", 1, WeightUnsigned, 37, 53);
    testSubByte(&s, target, "f6e3m2", 6, WeightFloatE3M2, 37, 53);
    for (int k = 0; k < numWidened; ++k)
      testWiden(&s, target, widened[k]);
    for (int k = 0; k < numWidened; ++k) {
      char stem[32];
      snprintf(stem, sizeof(stem), "pack_%s", widened[k]);
      testPack(&s, target, stem, typeBits(widened[k]),
               "local(2,2).column_spatial(4,8).local(2,1)", 16);
    }
    testPack(&s, target, "weight_pack_i6", 6,
             "local(2,1).column_spatial(4,8).local(2,1)", 8);
    testDotPaths(&s, target);
    testGemm(&s, target, "matmul_pipelined_f16", 16, 32, 256, 16, 128, 1024);
    testGemm(&s, target, "matmul_pipelined_f16", 16, 32, 256, 13, 64, 512);
    testGemm(&s, target, "matmul_f16_decode", 16, 64, 256, 5, 128, 768);
    testGemm(&s, target, "matmul_f16_large", 256, 128, 32, 300, 256, 160);
    testGemm(&s, target, "matmul_f16_medium", 128, 128, 32, 200, 256, 256);
    testGemm(&s, target, "matmul_naive_f16", 16, 8, 16, 48, 64, 256);
    testShared(&s, target, 100, 136);
    testShared(&s, target, 64, 64);
    testShared(&s, target, 70, 131);
    testSharedI8(&s, target);
    testMatmul(&s, target, 32, 16, 64);
    testMatmul(&s, target, 64, 64, 256);
    // kind: 0 f32, 1 i32, 2 f16, 3 bf16; 40 or 7 blocks add into each tile.
    testAtomicAdd(&s, target, "atomic_add_f32", 0, 40, 37, 70);
    testAtomicAdd(&s, target, "atomic_add_i32", 1, 40, 37, 70);
    testAtomicAdd(&s, target, "atomic_add_f16", 2, 40, 37, 64);
    testAtomicAdd(&s, target, "atomic_add_f16_odd", 2, 7, 21, 45);
    testAtomicAdd(&s, target, "atomic_add_bf16", 3, 40, 37, 64);
    testAtomicAdd(&s, target, "atomic_add_bf16", 3, 3, 1, 64);
    testAtomicScalars(&s, target, 64);
    testAtomicScalars(&s, target, 1);
    testSplitKSemaphore(&s, target, 8, 50, 70);
    testSplitKSemaphore(&s, target, 3, 16, 32);
    testDotF16Accumulator(&s, target);
    // Issue 11: 2 + 2 + 3 + 1 lines.
    testElementwiseMath(&s, target, 1000);
    testElementwiseInt(&s, target, 1000);
    testElementwiseInt(&s, target, 256 * 7);
    testBroadcast(&s, target, 37, false);
    testBroadcast(&s, target, 8, false);
    testBroadcast(&s, target, 37, true);
    testFills(&s, target, 1000);
    testBroadcastMoved(&s, target);
    testDataMovement(&s, target);
    testNorms(&s, target);
  }
  // The quantized matmul's kernel table for C (its artifacts are sm_90a).
  testQmatmulTable(&s);
  // wgmma and mbarriers (sm_90a only).
  testWgmma(&s);
  testMbarrier(&s);
  testMbarrierHandoff(&s);
  testCopyAsyncHandoff(&s);
  testSetMaxRegisters(&s);
  testClusterRanks(&s);
  testTmaMulticast(&s);
  testTma(&s);
  testTmaStore(&s);
  tilusRuntimeDestroy(s.rt);
  printf("gpu tests: %d passed, %d failed, %d skipped\n", s.numPassed,
         s.numFailed, s.numSkipped);
  return s.numFailed ? 1 : 0;
}
