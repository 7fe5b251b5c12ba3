//===- Suite.h - The GPU suite's shared pieces -----------------*- C -*-===//
//
// The GPU suite runs the kernels of test/gpu (and examples/, and the
// generated ones), compiled by tilus-opt into artifacts for sm_80
// (JIT-compiled by the driver on newer GPUs) and sm_90a, through the runtime,
// and compares every output with a CPU reference bit for bit. The inputs are
// chosen so that every floating-point result is exact, so no tolerance is
// needed. Each output buffer is followed by guard bytes that must stay
// untouched (masked edges).
//
//   tilus-gpu-suite ARTIFACT_DIR
//
// prints one line per test and ends with "gpu tests: N passed, M failed,
// K skipped". Without a driver or a GPU every test is skipped (exit 77).
//
// Main.c runs the tests of CoreTests.c, LowPrecisionTests.c,
// SharedAndDotTests.c, AtomicTests.c, ElementwiseTests.c, DataMovementTests.c,
// NormTests.c and QmatmulTests.c; Support.c holds what they share. (ElementwiseTests.c's math
// functions and NormTests.c's examples are approximate and compared within a
// tolerance each states.)
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_TEST_GPU_SUITE_H
#define TILUS_TEST_GPU_SUITE_H

#include "tilus-c/Runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUARD 1024
#define SENTINEL 0xA5

typedef struct {
  TilusRuntime *rt;
  const char *dir; // the artifacts
  int numPassed, numFailed, numSkipped;
} Suite;

// How the Figure 2 tests read their weight codes.
typedef enum { WeightUnsigned, WeightSigned, WeightFloatE3M2 } WeightKind;

//===----------------------------------------------------------------------===//
// Support.c
//===----------------------------------------------------------------------===//

void report(Suite *s, const char *name, const char *target, int64_t a,
            int64_t b, bool ok, const char *why);
// Reports a test from whether its outputs matched (`ok`) and whether the
// launch and the guard check succeeded (`guard`).
void reportOutcome(Suite *s, const char *name, const char *target, int64_t a,
                   int64_t b, bool ok, bool guard);
// The artifact <dir>/<stem>.<target>.tilus.
TilusArtifact *loadArtifact(const Suite *s, const char *stem,
                            const char *target);
// Device buffer of `bytes` plus a guard, filled with `host` (or sentinel).
TilusDevicePtr upload(Suite *s, const void *host, size_t bytes);
// Copies a buffer back and checks its guard; false if the guard was written.
bool download(Suite *s, void *host, TilusDevicePtr ptr, size_t bytes);
// Launches `kernel` of `artifact` and waits; false (and a message) on error.
bool launch(Suite *s, const TilusArtifact *artifact, const char *kernel,
            const TilusArg *args, int numArgs);
// A small linear congruential generator: reproducible inputs.
uint32_t nextRandom(uint32_t *state);
// f16 bits to float (exact).
float halfToFloat(uint16_t h);
// Element g of a compact stream of `bits`-bit values: bits [g*bits, ...).
uint32_t unpackBits(const uint8_t *bytes, int64_t g, int bits);
// Writes element g of such a stream.
void packBits(uint8_t *bytes, int64_t g, int bits, uint32_t value);
// The bf16 bits of a float that bf16 holds exactly.
uint16_t bf16Bits(float value);
// The f16 bits of a float that f16 holds exactly (a normal number or 0).
uint16_t halfBits(float value);
// Frees the non-null buffers ptrs[0..n).
void freeAll(Suite *s, TilusDevicePtr *ptrs, int n);
// Bit-equal, or both NaN.
bool sameFloat(float a, float b);

// One buffer argument of a kernel: an input (`host`, `want` NULL), or an
// output (`host` NULL: filled with the sentinel) compared with `want` after
// the launch, bit for bit; `name` says which in a failure.
typedef struct {
  const void *host;
  const void *want;
  size_t bytes;
  const char *name;
} Buffer;

enum { MAX_BUFFERS = 10 };

// Launches `kernel` of the artifact <stem>.<target> with one pointer per
// buffer and then the `numScalars` scalars, checks each output and its
// guard, and reports the test as `name`.
void runBuffers(Suite *s, const char *target, const char *stem,
                const char *kernel, const char *name, const Buffer *buffers,
                int n, const TilusArg *scalars, int numScalars);
// The width of a type named uN, iN or eXmY.
int typeBits(const char *type);

//===----------------------------------------------------------------------===//
// The tests: each reports one line (or a few) for one target
//===----------------------------------------------------------------------===//

// CoreTests.c
void testCopy(Suite *s, const char *target, int64_t n);
void testElementwise(Suite *s, const char *target, int64_t m, int64_t n);
void testIntegers(Suite *s, const char *target, int64_t n);
void testLoops(Suite *s, const char *target, int64_t rows, int64_t k);
void testWorkspace(Suite *s, const char *target);
void testMatmul(Suite *s, const char *target, int64_t M, int64_t N, int64_t K);
void testPad(Suite *s, const char *target, int64_t n, int64_t padded);
void testCasts(Suite *s, const char *target, int64_t n);

// LowPrecisionTests.c
void testLowBitMatmul(Suite *s, const char *target, const char *type, int bits,
                      WeightKind kind, int64_t M, int64_t N, int64_t K);
void testSubByte(Suite *s, const char *target, const char *type, int bits,
                 WeightKind kind, int64_t M, int64_t N);
void testFloatFormat(Suite *s, const char *target, int e, int m);
void testWiden(Suite *s, const char *target, const char *type);
void testPack(Suite *s, const char *target, const char *stem, int bits,
              const char *layoutText, int64_t tileCols);

// SharedAndDotTests.c
// QmatmulTests.c: tilus-c/QuantizedMatmul.h with the exported table.
void testQmatmulTable(Suite *s);
void testSharedI8(Suite *s, const char *target);
void testShared(Suite *s, const char *target, int64_t M, int64_t N);
void testDotPaths(Suite *s, const char *target);
void testGemm(Suite *s, const char *target, const char *stem, int64_t BM,
              int64_t BN, int64_t BK, int64_t M, int64_t N, int64_t K);

// AtomicTests.c
void testAtomicAdd(Suite *s, const char *target, const char *kernel, int kind,
                   int64_t g, int64_t m, int64_t n);
void testAtomicScalars(Suite *s, const char *target, int64_t g);
void testSplitKSemaphore(Suite *s, const char *target, int64_t splits,
                         int64_t m, int64_t n);
void testDotF16Accumulator(Suite *s, const char *target);

// ElementwiseTests.c (issue 11): math functions within a stated tolerance,
// integer ops, broadcasting and constants bit for bit. testElementwiseMath
// reports two lines (math_f32, math_f16).
void testElementwiseMath(Suite *s, const char *target, int64_t n);
void testElementwiseInt(Suite *s, const char *target, int64_t n);
void testBroadcast(Suite *s, const char *target, int64_t m, bool half);
void testFills(Suite *s, const char *target, int64_t n);
// Broadcast operands converted by tilus-convert-broadcasts (1 line).
void testBroadcastMoved(Suite *s, const char *target);

// WgmmaTests.c (sm_90a only)
void testWgmma(Suite *s);
void testMbarrier(Suite *s);
void testMbarrierHandoff(Suite *s);
void testCopyAsyncHandoff(Suite *s);
void testSetMaxRegisters(Suite *s);
void testClusterRanks(Suite *s);
void testTmaMulticast(Suite *s);
void testTma(Suite *s);
void testTmaStore(Suite *s);

// NormTests.c: the serving examples (RMSNorm, softmax, LayerNorm,
// SiLU-and-mul) within a stated tolerance (8 lines).
void testNorms(Suite *s, const char *target);

// DataMovementTests.c: Reduce, ConvertLayout, Permute, Reshape (10 lines)
void testDataMovement(Suite *s, const char *target);

#endif // TILUS_TEST_GPU_SUITE_H
