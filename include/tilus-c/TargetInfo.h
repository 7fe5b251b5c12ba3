/*===-- tilus-c/TargetInfo.h - What each GPU target has --------------*- C -*-===*\
|*                                                                            *|
|* One table of the targets Tilus emits code for and the hardware facts the  *|
|* passes and the artifact emitter need: which instructions exist (ldmatrix, *|
|* stmatrix, cp.async, wgmma, TMA, clusters) and how much shared memory a    *|
|* thread block may use. Pure C with no MLIR dependency; the entries are     *|
|* constant and live as long as the program.                                 *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_TARGETINFO_H
#define TILUS_C_TARGETINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *name;        /* "sm_80", "sm_89", "sm_90", "sm_90a" */
  int computeCapability;   /* 80, 89, 90 */
  bool archSpecific;       /* sm_90a: runs only on exactly 9.0 */
  const char *ptxFeatures; /* LLVM NVPTX features, e.g. "+ptx80" */
  bool hasLdmatrix;        /* ldmatrix.sync.aligned (sm_75+) */
  bool hasStmatrix;        /* stmatrix.sync.aligned (sm_90+) */
  bool hasCpAsync;         /* cp.async (sm_80+) */
  bool hasWgmma;           /* wgmma.mma_async (sm_90a only) */
  bool hasTma;             /* cp.async.bulk.tensor (sm_90+) */
  bool hasClusters;        /* thread block clusters (sm_90+) */
  /* The most shared memory one thread block may use (the opt-in maximum),
   * dynamic and static together, in bytes. */
  int64_t maxSharedBytesPerBlock;
  /* The most 32-bit registers one thread may use. */
  int maxRegistersPerThread;
  /* Packed atomic adds of two 16-bit floats in one 32-bit word on global
   * memory, `red/atom.global.add.noftz.f16x2` (sm_60+) and `.bf16x2`
   * (sm_90+). Without them each element is added on its own (LLVM expands
   * what the target lacks, a scalar bf16 add before sm_90, into a
   * compare-and-swap loop). */
  bool hasAtomicAddF16x2;
  bool hasAtomicAddBf16x2;
  /* `cvt.rn.f16x2.e4m3x2` and `.e5m2x2`: two FP8 values (E4M3FN, E5M2) of a
   * 16-bit register to an f16 pair in one instruction (sm_89+). */
  bool hasCvtF16x2FromF8x2;
  /* mbarrier's transaction counts and mbarrier.try_wait (sm_90+); Tilus's
   * mbarrier ops need them. */
  bool hasMbarrierTx;
  /* setmaxnreg: a warpgroup gives registers back or takes more
   * (sm_90a only). */
  bool hasSetmaxnreg;
} TilusTargetInfo;

/* The entry for `name` (`length` bytes, not NUL-terminated), or NULL when
 * Tilus does not emit for it. */
const TilusTargetInfo *tilusTargetInfoLookup(const char *name, size_t length);

/* Every entry, in a constant array of `*count` elements. */
const TilusTargetInfo *tilusTargetInfoGetAll(size_t *count);

/* The target the passes use when none is given: the newest, sm_90a. */
const TilusTargetInfo *tilusTargetInfoGetDefault(void);

/* The names of every target for messages, "sm_80, sm_89, sm_90 or sm_90a",
 * into `buffer` (NUL-terminated, truncated to `size`). */
void tilusTargetInfoFormatNames(char *buffer, size_t size);

/* The largest maxSharedBytesPerBlock of any target: what a module may use
 * before a target is chosen. */
int64_t tilusTargetInfoGetMaxSharedBytes(void);

/* The largest maxRegistersPerThread of any target: a register tensor needing
 * more per thread fits no target. */
int tilusTargetInfoGetMaxRegistersPerThread(void);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_TARGETINFO_H */
