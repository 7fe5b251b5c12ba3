//===- TargetInfo.c - The table of GPU targets -----------------------------===//
//
// Facts from the PTX ISA (which instruction needs which sm_XX) and the CUDA
// programming guide (shared memory per block: 163 KiB on sm_80, 99 KiB on
// sm_89, 227 KiB on sm_90; 255 registers per thread on all). Packed atomic
// adds (PTX ISA, atom/red): .add.noftz.f16x2 needs sm_60, .bf16x2 sm_90
// (ptxas rejects the latter for sm_80 and sm_89); mbarrier.try_wait and
// expect_tx need sm_90; setmaxnreg needs sm_90a. PTX 8.0 covers
// every target here (sm_90a needs it), so all share one feature string.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/TargetInfo.h"

#include <stdio.h>
#include <string.h>

static const TilusTargetInfo kTargets[] = {
    // name     cc  arch   features   ldm   stm    cpa   wgmma  tma    clus   shared  regs  f16x2 bf16x2 fp8cvt mbartx maxnreg
    {"sm_80", 80, false, "+ptx80", true, false, true, false, false, false, 166912, 255, true, false, false, false, false},
    {"sm_89", 89, false, "+ptx81", true, false, true, false, false, false, 101376, 255, true, false, true, false, false},
    {"sm_90", 90, false, "+ptx80", true, true, true, false, true, true, 232448, 255, true, true, true, true, false},
    {"sm_90a", 90, true, "+ptx80", true, true, true, true, true, true, 232448, 255, true, true, true, true, true},
};

enum { kNumTargets = sizeof(kTargets) / sizeof(kTargets[0]) };

const TilusTargetInfo *tilusTargetInfoLookup(const char *name, size_t length) {
  for (size_t k = 0; k < kNumTargets; ++k)
    if (strlen(kTargets[k].name) == length &&
        !memcmp(kTargets[k].name, name, length))
      return &kTargets[k];
  return NULL;
}

const TilusTargetInfo *tilusTargetInfoGetAll(size_t *count) {
  *count = kNumTargets;
  return kTargets;
}

const TilusTargetInfo *tilusTargetInfoGetDefault(void) {
  return &kTargets[kNumTargets - 1];
}

void tilusTargetInfoFormatNames(char *buffer, size_t size) {
  size_t used = 0;
  if (size)
    buffer[0] = '\0';
  for (size_t k = 0; k < kNumTargets && used < size; ++k) {
    const char *separator = k == 0 ? "" : k + 1 == kNumTargets ? " or " : ", ";
    int n = snprintf(buffer + used, size - used, "%s%s", separator,
                     kTargets[k].name);
    used += n > 0 ? (size_t)n : 0;
  }
}

int64_t tilusTargetInfoGetMaxSharedBytes(void) {
  int64_t most = 0;
  for (size_t k = 0; k < kNumTargets; ++k)
    if (kTargets[k].maxSharedBytesPerBlock > most)
      most = kTargets[k].maxSharedBytesPerBlock;
  return most;
}

int tilusTargetInfoGetMaxRegistersPerThread(void) {
  int most = 0;
  for (size_t k = 0; k < kNumTargets; ++k)
    if (kTargets[k].maxRegistersPerThread > most)
      most = kTargets[k].maxRegistersPerThread;
  return most;
}
