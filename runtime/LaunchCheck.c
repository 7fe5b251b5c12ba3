//===- LaunchCheck.c - Checking and packing launch arguments --------------===//
//
// Everything a launch needs that does not involve the GPU: finding the
// kernel, matching each argument against its declared parameter, converting
// it to the parameter's bytes, and evaluating the grid. It runs before any
// driver call, so a bad launch is rejected with a message that names the
// kernel and the argument or dimension, and nothing reaches the device.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Half-precision conversion
//===----------------------------------------------------------------------===//

// Rounds `value` to a binary float with `expBits` exponent bits and
// `mantBits` stored mantissa bits (IEEE layout, bias 2^(expBits-1) - 1), to
// nearest even, and returns its bits. Works on the double's bits directly:
// no double rounding through float, and no libm.
static uint16_t roundToSmallFloat(double value, int expBits, int mantBits) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 63) ? 1u << (expBits + mantBits) : 0;
  uint32_t expMask = ((1u << expBits) - 1) << mantBits;
  int doubleExp = (int)((bits >> 52) & 0x7ff);
  uint64_t fraction = bits & ((UINT64_C(1) << 52) - 1);
  if (doubleExp == 0x7ff) // infinity, or NaN (kept quiet)
    return (uint16_t)(sign | expMask | (fraction ? 1u << (mantBits - 1) : 0));
  if (doubleExp == 0 && fraction == 0)
    return (uint16_t)sign;

  // |value| = significand * 2^scale, with an integer significand.
  uint64_t significand = doubleExp ? fraction | (UINT64_C(1) << 52) : fraction;
  int scale = doubleExp ? doubleExp - 1075 : -1074;
  int top = 63;
  while (!(significand >> top))
    top--;
  int bias = (1 << (expBits - 1)) - 1;
  int exponent = scale + top; // floor(log2 |value|)
  if (exponent < 1 - bias)    // subnormals share the smallest normal's quantum
    exponent = 1 - bias;
  // Round significand * 2^scale to a multiple of the quantum 2^(exponent -
  // mantBits): drop `shift` low bits, to nearest, ties to even.
  int shift = exponent - mantBits - scale;
  uint64_t units;
  if (shift <= 0) {
    units = significand << -shift;
  } else if (shift > 60) {
    units = 0; // below half the quantum (significand < 2^53)
  } else {
    units = significand >> shift;
    uint64_t rest = significand & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rest > half || (rest == half && (units & 1)))
      units++;
  }
  uint64_t implicitOne = UINT64_C(1) << mantBits;
  if (units >= 2 * implicitOne) { // rounding carried into the exponent
    units >>= 1;
    exponent++;
  }
  if (exponent > bias)
    return (uint16_t)(sign | expMask);
  if (units < implicitOne) // subnormal: exponent field 0
    return (uint16_t)(sign | units);
  return (uint16_t)(sign | ((uint32_t)(exponent + bias) << mantBits) |
                    (units - implicitOne));
}

uint16_t tilusF16FromDouble(double value) {
  return roundToSmallFloat(value, 5, 10);
}

uint16_t tilusBF16FromDouble(double value) {
  return roundToSmallFloat(value, 8, 7);
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

static const char *argKindName(TilusArgKind kind) {
  switch (kind) {
  case TilusArgPointer:
    return "a pointer";
  case TilusArgInteger:
    return "an integer";
  case TilusArgFloat:
    return "a float";
  case TilusArgF16Bits:
    return "f16 bits";
  case TilusArgBF16Bits:
    return "bf16 bits";
  }
  return "an argument of unknown kind";
}

// The spelling of a parameter's type for messages: "ptr f16", "i32".
static void describeParam(const TilusParam *p, char *out, size_t size) {
  if (p->kind == TilusParamPointer)
    snprintf(out, size, "ptr %s", p->elementType);
  else
    snprintf(out, size, "%s", p->typeName);
}

// Range of integers a parameter accepts. Signless types accept both readings
// of their bits (i8 takes -128..255), as MLIR's signless integers do.
static void integerRange(const TilusParam *p, int64_t *min, uint64_t *max) {
  int w = p->bitWidth;
  uint64_t unsignedMax = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
  int64_t signedMin = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
  uint64_t signedMax = unsignedMax >> 1;
  switch (p->signedness) {
  case TilusSigned:
    *min = signedMin;
    *max = signedMax;
    break;
  case TilusUnsigned:
    *min = 0;
    *max = unsignedMax;
    break;
  case TilusSignless:
    *min = signedMin;
    *max = unsignedMax;
    break;
  }
}

// Checks argument `i` against parameter `i` and writes its bytes into `slot`.
static TilusStatus packArgument(const TilusKernel *k, int i,
                                const TilusArg *arg, TilusParamSlot *slot,
                                TilusRuntimeError *err) {
  const TilusParam *p = &k->params[i];
  char type[48];
  describeParam(p, type, sizeof(type));
  bool kindOk = false;
  switch (p->kind) {
  case TilusParamPointer:
    kindOk = arg->kind == TilusArgPointer;
    break;
  case TilusParamInteger:
    kindOk = arg->kind == TilusArgInteger;
    break;
  case TilusParamFloat:
    kindOk = arg->kind == TilusArgFloat ||
             (arg->kind == TilusArgF16Bits && !strcmp(p->typeName, "f16")) ||
             (arg->kind == TilusArgBF16Bits && !strcmp(p->typeName, "bf16"));
    break;
  }
  if (!kindOk)
    return tilusSetError(err, TilusStatusArgumentMismatch,
                         "argument %d of kernel '%s' is %s, but parameter %d "
                         "has type '%s'",
                         i, k->name, argKindName(arg->kind), i, type);

  memset(slot, 0, sizeof(*slot));
  switch (p->kind) {
  case TilusParamPointer:
    if (arg->value.pointer == 0)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "argument %d of kernel '%s' is a null pointer", i,
                           k->name);
    slot->u64 = arg->value.pointer;
    return TilusStatusSuccess;

  case TilusParamInteger: {
    int64_t v = arg->value.integer, min = 0;
    uint64_t max = 0;
    integerRange(p, &min, &max);
    // A negative v never exceeds max; a non-negative v converts exactly.
    if (v < min || (v >= 0 && (uint64_t)v > max))
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "argument %d of kernel '%s' is %lld, which does "
                           "not fit parameter type '%s' (%lld..%llu)",
                           i, k->name, (long long)v, type, (long long)min,
                           (unsigned long long)max);
    // Two's complement truncation to the width; the kernel reads the bits.
    uint64_t bits = (uint64_t)v;
    switch (p->byteSize) {
    case 1:
      slot->u8 = (uint8_t)(bits & (p->bitWidth == 1 ? 1u : 0xffu));
      break;
    case 2:
      slot->u16 = (uint16_t)bits;
      break;
    case 4:
      slot->u32 = (uint32_t)bits;
      break;
    default:
      slot->u64 = bits;
      break;
    }
    return TilusStatusSuccess;
  }

  case TilusParamFloat:
    if (arg->kind == TilusArgF16Bits || arg->kind == TilusArgBF16Bits)
      slot->u16 = arg->value.bits;
    else if (!strcmp(p->typeName, "f16"))
      slot->u16 = tilusF16FromDouble(arg->value.real);
    else if (!strcmp(p->typeName, "bf16"))
      slot->u16 = tilusBF16FromDouble(arg->value.real);
    else if (p->bitWidth == 32)
      slot->f32 = (float)arg->value.real;
    else
      slot->f64 = arg->value.real;
    return TilusStatusSuccess;
  }
  return TilusStatusSuccess;
}

//===----------------------------------------------------------------------===//
// Kernel lookup and grid
//===----------------------------------------------------------------------===//

static TilusStatus noSuchKernel(const TilusArtifact *a, const char *name,
                                TilusRuntimeError *err) {
  char list[384] = "";
  size_t used = 0;
  for (int i = 0; i < a->numKernels; i++) {
    const char *sep = i ? ", " : "";
    size_t need = strlen(sep) + strlen(a->kernels[i].name);
    if (used + need + 4 >= sizeof(list)) {
      strcpy(list + used, ", ...");
      break;
    }
    used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", sep,
                             a->kernels[i].name);
  }
  return tilusSetError(err, TilusStatusNoSuchKernel,
                       "no kernel '%.64s' in the artifact; it has: %s", name,
                       list);
}

static TilusStatus evaluateGrid(const TilusKernel *k, const TilusArg *args,
                                uint32_t grid[3], TilusRuntimeError *err) {
  static const char dimName[3] = {'x', 'y', 'z'};
  static const int64_t limit[3] = {INT32_MAX, 65535, 65535};
  // Symbols are the integer arguments' values; the others are never read
  // (the parser rejects grids that use non-integer parameters).
  int64_t *symbols = calloc((size_t)k->numParams + 1, sizeof(int64_t));
  if (!symbols)
    return tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
  for (int i = 0; i < k->numParams; i++)
    if (k->params[i].kind == TilusParamInteger)
      symbols[i] = args[i].value.integer;
  TilusStatus status = TilusStatusSuccess;
  for (int d = 0; d < 3 && status == TilusStatusSuccess; d++) {
    grid[d] = 1;
    if (d >= k->numGridDims)
      continue;
    int64_t v = 0;
    TilusRuntimeError evalErr;
    if (tilusGridExprEvaluate(k->grid[d], symbols, k->numParams, &v,
                              &evalErr) != TilusStatusSuccess) {
      status =
          tilusSetError(err, TilusStatusGridError,
                        "grid dimension %c of kernel '%s' ('%.100s'): %s",
                        dimName[d], k->name, k->gridText[d], evalErr.message);
    } else if (v < 1 || v > limit[d]) {
      status = tilusSetError(err, TilusStatusGridError,
                             "grid dimension %c of kernel '%s' ('%.100s') is "
                             "%lld; it must be in 1..%lld",
                             dimName[d], k->name, k->gridText[d], (long long)v,
                             (long long)limit[d]);
    } else {
      grid[d] = (uint32_t)v;
    }
  }
  free(symbols);
  return status;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void tilusPreparedLaunchRelease(TilusPreparedLaunch *prepared) {
  free(prepared->slots);
  free(prepared->slotAddresses);
  prepared->slots = NULL;
  prepared->slotAddresses = NULL;
  prepared->numSlots = 0;
}

TilusStatus tilusPrepareLaunch(const TilusArtifact *artifact,
                               const char *kernel, const TilusArg *args,
                               int numArgs, TilusPreparedLaunch *prepared,
                               TilusRuntimeError *err) {
  memset(prepared, 0, sizeof(*prepared));
  if (!artifact || !kernel)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "launch: NULL artifact or kernel name");
  int index = tilusArtifactFindKernel(artifact, kernel);
  if (index < 0)
    return noSuchKernel(artifact, kernel, err);
  const TilusKernel *k = &artifact->kernels[index];
  if (numArgs != k->numParams)
    return tilusSetError(err, TilusStatusArgumentMismatch,
                         "kernel '%s' takes %d argument%s, but %d %s given",
                         k->name, k->numParams, k->numParams == 1 ? "" : "s",
                         numArgs, numArgs == 1 ? "was" : "were");
  if (numArgs > 0 && !args)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "launch of kernel '%s': NULL argument array", k->name);

  bool hasWorkspace = k->workspaceBytes > 0;
  prepared->numSlots = k->numParams + (hasWorkspace ? 1 : 0);
  size_t n = (size_t)prepared->numSlots + 1; // never a zero-size allocation
  prepared->slots = calloc(n, sizeof(TilusParamSlot));
  prepared->slotAddresses = calloc(n, sizeof(void *));
  if (!prepared->slots || !prepared->slotAddresses) {
    tilusPreparedLaunchRelease(prepared);
    return tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
  }
  for (int i = 0; i < prepared->numSlots; i++)
    prepared->slotAddresses[i] = &prepared->slots[i];

  for (int i = 0; i < k->numParams; i++) {
    TilusStatus s = packArgument(k, i, &args[i], &prepared->slots[i], err);
    if (s != TilusStatusSuccess)
      return s;
  }

  TilusLaunchConfig *c = &prepared->config;
  c->kernel = index;
  TilusStatus s = evaluateGrid(k, args, c->grid, err);
  if (s != TilusStatusSuccess)
    return s;
  memcpy(c->block, k->block, sizeof(c->block));
  c->sharedBytes = k->sharedBytes;
  c->workspaceBytes = k->workspaceBytes;
  return TilusStatusSuccess;
}

TilusStatus tilusArtifactCheckLaunch(const TilusArtifact *artifact,
                                     const char *kernel, const TilusArg *args,
                                     int numArgs, TilusLaunchConfig *config,
                                     TilusRuntimeError *err) {
  TilusPreparedLaunch prepared;
  TilusStatus s =
      tilusPrepareLaunch(artifact, kernel, args, numArgs, &prepared, err);
  if (s == TilusStatusSuccess && config)
    *config = prepared.config;
  tilusPreparedLaunchRelease(&prepared);
  return s;
}
