//===- RuntimeTestSupport.h - Shared pieces of the runtime tests -*- C -*-===//
//
// Check macros and counters, the sample artifact, and the test groups (one
// file each) of the runtime's CPU tests.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_TEST_RUNTIMETESTSUPPORT_H
#define TILUS_TEST_RUNTIMETESTSUPPORT_H

// mkstemp and fdopen.
#define _POSIX_C_SOURCE 200809L

#include "tilus-c/Runtime.h"

// The private driver table, to plug in the fake driver below. Included by
// relative path so that the test builds with nothing but -Iinclude.
#include "../../../runtime/DriverApi.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int numPassed, numFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      numPassed++;                                                             \
    } else {                                                                   \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

// Checks that `err` holds `code` and a message equal to `message`.
#define CHECK_ERROR(err, expectedCode, expected)                               \
  do {                                                                         \
    CHECK((err).code == (expectedCode));                                       \
    if (strcmp((err).message, (expected)) != 0) {                              \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: message\n  got:      %s\n  expected: %s\n",      \
              __FILE__, __LINE__, (err).message, (expected));                  \
    } else {                                                                   \
      numPassed++;                                                             \
    }                                                                          \
  } while (0)

// Checks that `err`'s message contains `part`.
#define CHECK_CONTAINS(err, part)                                              \
  do {                                                                         \
    if (!strstr((err).message, (part))) {                                      \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: message\n  got:      %s\n  lacks:    %s\n",      \
              __FILE__, __LINE__, (err).message, (part));                      \
    } else {                                                                   \
      numPassed++;                                                             \
    }                                                                          \
  } while (0)

TilusArtifact *parse(const char *text, TilusRuntimeError *err);

//===----------------------------------------------------------------------===//
// The fake driver (RuntimeFakeDriver.c)
//===----------------------------------------------------------------------===//

// What the fake driver was asked to do, and knobs for what it answers. The
// tables are sized for these tests; the fake fails a call that would
// overflow one (CUDA_ERROR_OUT_OF_MEMORY) rather than drop a record.
//
// Threads: like the real driver, the current context is per thread, and the
// counters a launch touches are atomic. The record of "the last launch" is
// not meant for concurrent launches: a test that launches from several
// threads sets `recordLaunch`, which then receives every launch instead.
enum {
  MaxFakeDevices = 4,
  MaxFakeModules = 16,
  MaxFakeFunctions = 32,
  MaxFakeParams = 16,
  MaxFakeEncodes = 16
};

// What the fake cuTensorMapEncodeTiled writes into every map: this word,
// then the global address, then the call's number (from 1), then this word
// xor the index of each remaining 8-byte word; so a test can tell which map
// reached which parameter.
#define FAKE_TENSOR_MAP_MAGIC UINT64_C(0x54454e534f524d41)

// The arguments of one cuTensorMapEncodeTiled call, copied.
typedef struct {
  uintptr_t tensorMap; // the address the runtime asked to fill
  CUtensorMapDataType dataType;
  cuuint32_t rank;
  uintptr_t globalAddress;
  cuuint64_t globalDim[5], globalStrides[4];
  cuuint32_t boxDim[5], elementStrides[5];
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2Promotion;
  CUtensorMapFloatOOBfill oobFill;
} FakeEncode;
typedef struct {
  // Knobs.
  int numDevices, ccMajor, ccMinor;
  CUresult initResult, launchResult, encodeResult;
  // What cuStreamIsCapturing reports for every stream.
  CUstreamCaptureStatus captureStatus;
  // Module loads and function lookups yield the processor first, as a JIT
  // takes time: a window for threads racing through an unguarded cache.
  bool slowLoads;
  // When set, called for every successful launch (from the launching
  // thread) instead of filling the last-launch record below.
  void (*recordLaunch)(CUfunction function, const unsigned grid[3],
                       CUstream stream, void **params);
  // Each device's primary context is the address of its byte here.
  char contextIdentity[MaxFakeDevices];
  // Records.
  int contextRetains, contextReleases;
  atomic_int setCurrentCalls, getCurrentCalls;
  // Calls a capture forbids (besides cuMemAlloc, counted below).
  atomic_int synchronizeCalls, memsetCalls, moduleLoadCalls;
  atomic_int isCapturingCalls;
  int moduleLoads, liveModules;
  const char *moduleImage[MaxFakeModules];
  CUcontext moduleContext[MaxFakeModules];
  int getFunctionCalls, numFunctions;
  CUmodule functionModule[MaxFakeFunctions];
  char functionName[MaxFakeFunctions][64];
  atomic_int allocations;
  int liveAllocations;
  int setAttributeCalls, sharedAttribute;
  // The last successful launch.
  atomic_int launches;
  CUfunction function;
  CUcontext launchContext;
  unsigned grid[3], block[3], shared;
  CUstream stream;
  // The launch copies the first numParamsToRecord parameters into `params`:
  // paramBytes[i] bytes of parameter i (0 means 8, a scalar's slot; a test
  // sets 128 for a tensor map), and notes each parameter's address.
  int numParamsToRecord;
  unsigned char paramBytes[MaxFakeParams];
  unsigned char params[MaxFakeParams][128];
  uintptr_t paramAddress[MaxFakeParams];
  // cuTensorMapEncodeTiled calls; the last MaxFakeEncodes are recorded, call
  // n (from 1) at encodes[(n - 1) % MaxFakeEncodes] (fakeEncode(n)).
  atomic_int encodeCalls;
  FakeEncode encodes[MaxFakeEncodes];
} FakeDriverState;

extern FakeDriverState fake;

// Forgets every record; one device of compute capability 9.0.
void resetFake(void);
// The record of cuTensorMapEncodeTiled call n (from 1; one of the last
// MaxFakeEncodes).
const FakeEncode *fakeEncode(int n);
CUcontext fakeContextOf(int device);
// The calling thread's current context in the fake.
CUcontext fakeCurrentContext(void);
TilusDriver fakeDriver(void);
// A runtime over the fake driver.
TilusRuntime *createFake(TilusRuntimeError *err);
TilusRuntime *createFakeOnDevice(int device, TilusRuntimeError *err);

//===----------------------------------------------------------------------===//
// Counting host allocations (RuntimeTestSupport.c)
//===----------------------------------------------------------------------===//

// Whether this build counts malloc, calloc and realloc calls (glibc without
// a sanitizer); when false, checks that use the count are skipped.
bool canCountAllocations(void);
// Calls to malloc, calloc and realloc in the process so far.
unsigned long allocationCount(void);

// A valid artifact with several kernels, and how its PTX starts.
extern const char *const sampleArtifact;
extern const char *const samplePtxStart;

#define HEAD "tilus-artifact 1\ntarget sm_80\n"
#define PTX_K "ptx:\n.visible .entry k() {}\n"

// The six arguments of the sample's matmul kernel for sizes m, n, k.
void matmulArgs(TilusArg args[6], int64_t m, int64_t n, int64_t k);

// An artifact whose kernels take tensor maps: `tma` (A [M, K] f16 and B
// [batch, N, K] bf16, a workspace) and `types` (maps of 1, 4 and 8-byte
// elements over one ui8 pointer, no workspace).
extern const char *const tensorMapArtifact;
// The six arguments of `tma`: A = 0x10000, B = 0x20000, then M, K, N, batch.
void tmaArgs(TilusArg args[6], int64_t m, int64_t k, int64_t n, int64_t batch);

void testParseSample(void);
void testParseCubin(void);
void testParseErrors(void);
void testLoadFile(void);
void testGridValues(void);
void testGridErrors(void);
void testHalfConversion(void);
void testHalfConversionExhaustive(int expBits, int mantBits,
                                  uint16_t (*convert)(double));
void testCheckLaunch(void);
void testCheckClusterGrid(void);
void testNoDriver(void);
void testFakeCreate(void);
void testFakeLaunch(void);
void testFakeWorkspaceGrowth(void);
void testFakeModuleErrors(void);
void testLoadedKernelResolvesOnce(void);
void testLoadedKernelSameErrors(void);
void testLoadedKernelOutlivesArtifact(void);
void testLoadedKernelSharedImage(void);
void testLoadedKernelContexts(void);
void testLoadedKernelCostIndependentOfImage(void);
void testCallerWorkspace(void);
void testCallerWorkspaceErrors(void);
void testCaptureSafeLaunch(void);
void testRuntimeWorkspaceRefusedWhileCapturing(void);
void testTooManyParams(void);
void testConcurrentLaunches(void);
void testConcurrentGetKernel(void);
void testQmatmulTable(void);
void testParseTensorMaps(void);
void testParseTensorMapErrors(void);
void testCheckTensorMapArguments(void);
void testFakeTensorMapLaunch(void);
void testFakeTensorMapErrors(void);
void testFakeWithoutTensorMapEncode(void);
void testLoadedKernelTensorMaps(void);

#endif // TILUS_TEST_RUNTIMETESTSUPPORT_H
