//===- Support.c - What the GPU suite's tests share ----------------------===//

#include "Suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report(Suite *s, const char *name, const char *target, int64_t a,
            int64_t b, bool ok, const char *why) {
  printf("%s: %s [%s] (%lld, %lld)%s%s\n", ok ? "PASS" : "FAIL", name, target,
         (long long)a, (long long)b, why ? ": " : "", why ? why : "");
  if (ok)
    s->numPassed++;
  else
    s->numFailed++;
}

// Reports a test from whether its outputs matched (`ok`) and whether the
// launch and the guard check succeeded (`guard`).
void reportOutcome(Suite *s, const char *name, const char *target, int64_t a,
                   int64_t b, bool ok, bool guard) {
  report(s, name, target, a, b, ok,
         ok      ? NULL
         : guard ? "output differs"
                 : "guard written or launch failed");
}

// The artifact <dir>/<stem>.<target>.tilus.
TilusArtifact *loadArtifact(const Suite *s, const char *stem,
                            const char *target) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s.%s.tilus", s->dir, stem, target);
  TilusRuntimeError err;
  TilusArtifact *artifact = tilusArtifactLoadFile(path, &err);
  if (!artifact)
    fprintf(stderr, "%s\n", err.message);
  return artifact;
}

// Device buffer of `bytes` plus a guard, filled with `host` (or sentinel).
TilusDevicePtr upload(Suite *s, const void *host, size_t bytes) {
  TilusDevicePtr ptr = 0;
  TilusRuntimeError err;
  if (tilusRuntimeMalloc(s->rt, bytes + GUARD, &ptr, &err) ||
      tilusRuntimeMemset(s->rt, ptr, SENTINEL, bytes + GUARD, &err) ||
      (host && tilusRuntimeCopyToDevice(s->rt, ptr, host, bytes, &err))) {
    fprintf(stderr, "%s\n", err.message);
    return 0;
  }
  return ptr;
}

// Copies a buffer back and checks its guard; false if the guard was written.
bool download(Suite *s, void *host, TilusDevicePtr ptr, size_t bytes) {
  unsigned char *all = malloc(bytes + GUARD);
  TilusRuntimeError err;
  bool ok =
      all && !tilusRuntimeCopyToHost(s->rt, all, ptr, bytes + GUARD, &err);
  for (size_t k = 0; ok && k < GUARD; ++k)
    ok = all[bytes + k] == SENTINEL;
  if (all)
    memcpy(host, all, bytes);
  free(all);
  return ok;
}

bool launch(Suite *s, const TilusArtifact *artifact, const char *kernel,
            const TilusArg *args, int numArgs) {
  TilusRuntimeError err;
  if (tilusRuntimeLaunch(s->rt, artifact, kernel, args, numArgs, NULL, &err) ||
      tilusRuntimeSynchronize(s->rt, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return false;
  }
  return true;
}

uint32_t nextRandom(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 31,
           mantissa = h & 1023, bits;
  if (exponent == 0 && mantissa == 0) {
    bits = sign;
  } else if (exponent == 0) { // subnormal
    int shift = 0;
    while (!(mantissa & 1024)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (uint32_t)(113 - shift) << 23 | (mantissa & 1023) << 13;
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 112) << 23 | mantissa << 13;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

// Element g of a compact stream of `bits`-bit values: bits [g*bits, ...).
uint32_t unpackBits(const uint8_t *bytes, int64_t g, int bits) {
  uint32_t value = 0;
  for (int k = 0; k < bits; ++k) {
    int64_t bit = g * bits + k;
    value |= (uint32_t)((bytes[bit / 8] >> (bit % 8)) & 1) << k;
  }
  return value;
}

void packBits(uint8_t *bytes, int64_t g, int bits, uint32_t value) {
  for (int k = 0; k < bits; ++k) {
    int64_t bit = g * bits + k;
    bytes[bit / 8] = (uint8_t)((bytes[bit / 8] & ~(1u << (bit % 8))) |
                               ((value >> k) & 1) << (bit % 8));
  }
}

uint16_t bf16Bits(float value) { // exact for the values used
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return (uint16_t)(bits >> 16);
}

bool sameFloat(float a, float b) {
  return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(float));
}

// The width of a type named uN, iN or eXmY.
int typeBits(const char *type) {
  int e = 0, m = 0;
  if (type[0] == 'e' && sscanf(type, "e%dm%d", &e, &m) == 2)
    return 1 + e + m;
  return atoi(type + 1);
}

uint16_t halfBits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int exponent = (int)((bits >> 23) & 255) - 127 + 15;
  if ((bits & 0x7fffffffu) == 0)
    return (uint16_t)sign;
  return (uint16_t)(sign | (uint32_t)exponent << 10 | ((bits >> 13) & 1023));
}

void freeAll(Suite *s, TilusDevicePtr *ptrs, int n) {
  TilusRuntimeError ignored;
  for (int k = 0; k < n; ++k)
    if (ptrs[k])
      tilusRuntimeFree(s->rt, ptrs[k], &ignored);
}

void runBuffers(Suite *s, const char *target, const char *stem,
                const char *kernel, const char *name, const Buffer *buffers,
                int n, const TilusArg *scalars, int numScalars) {
  TilusArtifact *artifact = loadArtifact(s, stem, target);
  if (!artifact) {
    report(s, name, target, 0, 0, false, "no artifact");
    return;
  }
  TilusDevicePtr device[MAX_BUFFERS] = {0};
  TilusArg args[2 * MAX_BUFFERS];
  bool ok = n <= MAX_BUFFERS && numScalars <= MAX_BUFFERS;
  for (int k = 0; ok && k < n; ++k) {
    device[k] = upload(s, buffers[k].host, buffers[k].bytes);
    ok = device[k] != 0;
    args[k] = tilusArgPointer(device[k]);
  }
  for (int k = 0; ok && k < numScalars; ++k)
    args[n + k] = scalars[k];
  bool guard = ok && launch(s, artifact, kernel, args, n + numScalars);
  char why[160] = "";
  for (int k = 0; guard && k < n; ++k) {
    if (!buffers[k].want)
      continue;
    unsigned char *got = malloc(buffers[k].bytes);
    guard = got && download(s, got, device[k], buffers[k].bytes);
    if (guard && !why[0] && memcmp(got, buffers[k].want, buffers[k].bytes)) {
      size_t at = 0;
      while (got[at] == ((const unsigned char *)buffers[k].want)[at])
        ++at;
      snprintf(why, sizeof(why), "%s differs from byte %zu", buffers[k].name,
               at);
    }
    free(got);
  }
  report(s, name, target, 0, 0, guard && !why[0],
         !guard   ? "guard written or launch failed"
         : why[0] ? why
                  : NULL);
  TilusRuntimeError err;
  for (int k = 0; k < n; ++k)
    if (device[k])
      tilusRuntimeFree(s->rt, device[k], &err);
  tilusArtifactDestroy(artifact);
}
