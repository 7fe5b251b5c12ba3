//===- RuntimeTest.c - CPU tests of the launch runtime --------------------===//
//
// Everything in runtime/ that does not need a GPU: artifact parsing (a valid
// artifact and many malformed ones, each with its message), the grid
// expression evaluator, f16/bf16 rounding, the pre-launch argument checks,
// creating a runtime where there is no driver, and the whole launch path
// (module cache, workspace, shared-memory opt-in, parameter bytes, driver
// error messages) against a fake driver table, the fast path of loaded
// kernels (resolved once, no allocation, the same errors, contexts),
// caller-supplied workspaces and capture-safe launches, launches and loads
// from several threads at once, and TMA tensor maps (parsing, argument
// checks, the encode's arguments, where the maps go among the parameters,
// a driver without cuTensorMapEncodeTiled).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

int main(void) {
  testParseSample();
  testParseCubin();
  testParseErrors();
  testLoadFile();
  testGridValues();
  testGridErrors();
  testHalfConversion();
  testHalfConversionExhaustive(5, 10, tilusF16FromDouble);
  testHalfConversionExhaustive(8, 7, tilusBF16FromDouble);
  testCheckLaunch();
  testCheckClusterGrid();
  testNoDriver();
  testFakeCreate();
  testFakeLaunch();
  testFakeWorkspaceGrowth();
  testFakeModuleErrors();
  testLoadedKernelResolvesOnce();
  testLoadedKernelSameErrors();
  testLoadedKernelOutlivesArtifact();
  testLoadedKernelSharedImage();
  testLoadedKernelContexts();
  testLoadedKernelCostIndependentOfImage();
  testCallerWorkspace();
  testCallerWorkspaceErrors();
  testCaptureSafeLaunch();
  testRuntimeWorkspaceRefusedWhileCapturing();
  testTooManyParams();
  testConcurrentLaunches();
  testConcurrentGetKernel();
  testQmatmulTable();
  testParseTensorMaps();
  testParseTensorMapErrors();
  testCheckTensorMapArguments();
  testFakeTensorMapLaunch();
  testFakeTensorMapErrors();
  testFakeWithoutTensorMapEncode();
  testLoadedKernelTensorMaps();
  printf("runtime tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
