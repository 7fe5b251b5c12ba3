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

// Everything below runs on every launch. The parameter table (TilusParam) was
// computed when the artifact was parsed, so the success path does no string
// work and allocates nothing; messages are formatted only on failure.

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

static TilusStatus kindMismatch(const TilusKernel *k, int i,
                                const TilusArg *arg, TilusRuntimeError *err) {
  char type[48];
  describeParam(&k->params[i], type, sizeof(type));
  return tilusSetError(err, TilusStatusArgumentMismatch,
                       "argument %d of kernel '%s' is %s, but parameter %d "
                       "has type '%s'",
                       i, k->name, argKindName(arg->kind), i, type);
}

static TilusStatus outOfRange(const TilusKernel *k, int i, int64_t v,
                              TilusRuntimeError *err) {
  const TilusParam *p = &k->params[i];
  char type[48];
  describeParam(p, type, sizeof(type));
  return tilusSetError(err, TilusStatusArgumentMismatch,
                       "argument %d of kernel '%s' is %lld, which does not "
                       "fit parameter type '%s' (%lld..%llu)",
                       i, k->name, (long long)v, type, (long long)p->minValue,
                       (unsigned long long)p->maxValue);
}

// Checks argument `i` against parameter `i` and writes its bytes into `slot`.
static TilusStatus packArgument(const TilusKernel *k, int i,
                                const TilusArg *arg, TilusParamSlot *slot,
                                TilusRuntimeError *err) {
  const TilusParam *p = &k->params[i];
  slot->u64 = 0;
  switch (p->kind) {
  case TilusParamPointer:
    if (arg->kind != TilusArgPointer)
      return kindMismatch(k, i, arg, err);
    if (arg->value.pointer == 0)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "argument %d of kernel '%s' is a null pointer", i,
                           k->name);
    if (arg->value.pointer % TILUS_POINTER_ALIGNMENT != 0)
      return tilusSetError(
          err, TilusStatusArgumentMismatch,
          "argument %d of kernel '%s' is the address 0x%llx, which is not "
          "%d-byte aligned (kernels assume aligned pointers; pass the start of "
          "an allocation or an aligned view)",
          i, k->name, (unsigned long long)arg->value.pointer,
          TILUS_POINTER_ALIGNMENT);
    slot->u64 = arg->value.pointer;
    return TilusStatusSuccess;

  case TilusParamInteger: {
    if (arg->kind != TilusArgInteger)
      return kindMismatch(k, i, arg, err);
    int64_t v = arg->value.integer;
    // A negative v never exceeds maxValue; a non-negative v converts exactly.
    if (v < p->minValue || (v >= 0 && (uint64_t)v > p->maxValue))
      return outOfRange(k, i, v, err);
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
    switch (arg->kind) {
    case TilusArgF16Bits:
      if (p->floatLayout != TilusFloatLayoutF16)
        return kindMismatch(k, i, arg, err);
      slot->u16 = arg->value.bits;
      return TilusStatusSuccess;
    case TilusArgBF16Bits:
      if (p->floatLayout != TilusFloatLayoutBF16)
        return kindMismatch(k, i, arg, err);
      slot->u16 = arg->value.bits;
      return TilusStatusSuccess;
    case TilusArgFloat:
      switch (p->floatLayout) {
      case TilusFloatLayoutF16:
        slot->u16 = tilusF16FromDouble(arg->value.real);
        break;
      case TilusFloatLayoutBF16:
        slot->u16 = tilusBF16FromDouble(arg->value.real);
        break;
      case TilusFloatLayoutF32:
        slot->f32 = (float)arg->value.real;
        break;
      case TilusFloatLayoutF64:
        slot->f64 = arg->value.real;
        break;
      }
      return TilusStatusSuccess;
    default:
      return kindMismatch(k, i, arg, err);
    }
  }
  return kindMismatch(k, i, arg, err);
}

//===----------------------------------------------------------------------===//
// Kernel lookup and grid
//===----------------------------------------------------------------------===//

TilusStatus tilusLookUpKernel(const TilusArtifact *a, const char *name,
                              int *index, TilusRuntimeError *err) {
  *index = tilusArtifactFindKernel(a, name);
  if (*index >= 0)
    return TilusStatusSuccess;
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
                                int64_t *symbols, uint32_t grid[3],
                                TilusRuntimeError *err) {
  static const char dimName[3] = {'x', 'y', 'z'};
  static const int64_t limit[3] = {INT32_MAX, 65535, 65535};
  // Symbols are the integer arguments' values; the others are never read
  // (the parser rejects grids that use non-integer parameters).
  for (int i = 0; i < k->numParams; i++)
    symbols[i] =
        k->params[i].kind == TilusParamInteger ? args[i].value.integer : 0;
  for (int d = 0; d < 3; d++) {
    grid[d] = 1;
    if (d >= k->numGridDims)
      continue;
    int64_t v = 0;
    TilusRuntimeError evalErr;
    if (tilusGridExprEvaluate(k->grid[d], symbols, k->numParams, &v,
                              &evalErr) != TilusStatusSuccess)
      return tilusSetError(err, TilusStatusGridError,
                           "grid dimension %c of kernel '%s' ('%.100s'): %s",
                           dimName[d], k->name, k->gridText[d],
                           evalErr.message);
    if (v < 1 || v > limit[d])
      return tilusSetError(err, TilusStatusGridError,
                           "grid dimension %c of kernel '%s' ('%.100s') is "
                           "%lld; it must be in 1..%lld",
                           dimName[d], k->name, k->gridText[d], (long long)v,
                           (long long)limit[d]);
    grid[d] = (uint32_t)v;
  }
  for (int d = 0; d < 3; d++)
    if (grid[d] % k->cluster[d])
      return tilusSetError(err, TilusStatusGridError,
                           "kernel '%s' runs in clusters of %u x %u x %u "
                           "blocks: grid dimension %c is %u, not a multiple "
                           "of %u",
                           k->name, k->cluster[0], k->cluster[1],
                           k->cluster[2], dimName[d], grid[d], k->cluster[d]);
  return TilusStatusSuccess;
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

// The limits of cuTensorMapEncodeTiled: a 16-byte aligned base, extents in
// 1..2^32, byte strides that are multiples of 16 and below 2^40. Checked
// here, before any driver call, so that a bad tensor is refused with a
// message naming the map's parameter and dimension, not a bare
// CUDA_ERROR_INVALID_VALUE from the driver (and also where there is no
// driver).
enum { TensorMapAlignment = 16 };
#define TENSOR_MAP_MAX_EXTENT (UINT64_C(1) << 32)
#define TENSOR_MAP_STRIDE_LIMIT (UINT64_C(1) << 40)

// Fills `out` with the encoding arguments of map `m` for `args`, which have
// passed packArgument (so the base is a non-null pointer and every extent
// parameter an integer).
static TilusStatus checkTensorMap(const TilusKernel *k, int m,
                                  const TilusArg *args, TilusTensorMapArgs *out,
                                  TilusRuntimeError *err) {
  const TilusTensorMap *map = &k->tensorMaps[m];
  int p = map->pointerParam;
  uint64_t base = args[p].value.pointer;
  // packArgument refuses pointers below TILUS_POINTER_ALIGNMENT (16 today)
  // first; this keeps TMA's own requirement should that ever be relaxed.
  if (base % TensorMapAlignment != 0)
    return tilusSetError(err, TilusStatusArgumentMismatch,
                         "tensor map %d of kernel '%s' (over parameter %d): "
                         "the base address 0x%llx is not %d-byte aligned",
                         m, k->name, p, (unsigned long long)base,
                         TensorMapAlignment);
  out->globalAddress = base;
  int rank = map->rank;
  // Manifest dimension i (outermost first) is the driver's rank-1-i.
  uint64_t stride = (uint64_t)map->elementBytes; // of the innermost dimension
  for (int j = 0; j < rank; j++) {
    int i = rank - 1 - j;
    uint64_t extent = map->dimValue[i];
    if (map->dimParam[i] >= 0) {
      int64_t v = args[map->dimParam[i]].value.integer;
      if (v < 1 || (uint64_t)v > TENSOR_MAP_MAX_EXTENT)
        return tilusSetError(err, TilusStatusArgumentMismatch,
                             "tensor map %d of kernel '%s' (over parameter "
                             "%d): extent %d (s%d) is %lld; it must be in "
                             "1..4294967296",
                             m, k->name, p, i, map->dimParam[i], (long long)v);
      extent = (uint64_t)v;
    }
    out->globalDim[j] = extent;
    out->boxDim[j] = map->box[i];
    if (j == 0)
      continue;
    // The stride of dimension i is the bytes of one step along it: the
    // stride of the next inner dimension times that dimension's extent.
    // That is below 2^40 times at most 2^32, which may not fit in 64 bits,
    // so the limit is tested by division first.
    uint64_t inner = out->globalDim[j - 1];
    if (stride > (TENSOR_MAP_STRIDE_LIMIT - 1) / inner)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "tensor map %d of kernel '%s' (over parameter %d): "
                           "the byte stride of dimension %d (%llu x %llu "
                           "bytes) is not below 2^40",
                           m, k->name, p, i, (unsigned long long)inner,
                           (unsigned long long)stride);
    stride *= inner;
    if (stride % TensorMapAlignment != 0)
      return tilusSetError(err, TilusStatusArgumentMismatch,
                           "tensor map %d of kernel '%s' (over parameter %d): "
                           "the byte stride of dimension %d is %llu, which is "
                           "not a multiple of %d",
                           m, k->name, p, i, (unsigned long long)stride,
                           TensorMapAlignment);
    out->globalStrides[j - 1] = stride;
  }
  return TilusStatusSuccess;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

TilusStatus tilusCheckArguments(const TilusKernel *k, const TilusArg *args,
                                int numArgs, TilusParamSlot *slots,
                                int64_t *symbols, TilusTensorMapArgs *maps,
                                uint32_t grid[3], TilusRuntimeError *err) {
  if (numArgs != k->numParams)
    return tilusSetError(err, TilusStatusArgumentMismatch,
                         "kernel '%s' takes %d argument%s, but %d %s given",
                         k->name, k->numParams, k->numParams == 1 ? "" : "s",
                         numArgs, numArgs == 1 ? "was" : "were");
  if (numArgs > 0 && !args)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "launch of kernel '%s': NULL argument array", k->name);
  for (int i = 0; i < k->numParams; i++) {
    TilusStatus s = packArgument(k, i, &args[i], &slots[i], err);
    if (s != TilusStatusSuccess)
      return s;
  }
  TilusStatus s = evaluateGrid(k, args, symbols, grid, err);
  for (int m = 0; m < k->numTensorMaps && s == TilusStatusSuccess; m++)
    s = checkTensorMap(k, m, args, &maps[m], err);
  return s;
}

TilusStatus tilusArtifactCheckLaunch(const TilusArtifact *artifact,
                                     const char *kernel, const TilusArg *args,
                                     int numArgs, TilusLaunchConfig *config,
                                     TilusRuntimeError *err) {
  if (!artifact || !kernel)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "launch: NULL artifact or kernel name");
  int index = -1;
  TilusStatus s = tilusLookUpKernel(artifact, kernel, &index, err);
  if (s != TilusStatusSuccess)
    return s;
  const TilusKernel *k = &artifact->kernels[index];
  // Scratch for the packed bytes and map arguments, which nobody reads here
  // (a launch keeps its own on its stack).
  size_t n = (size_t)k->numParams + 1; // never a zero-size allocation
  TilusParamSlot *slots = calloc(n, sizeof(TilusParamSlot));
  int64_t *symbols = calloc(n, sizeof(int64_t));
  TilusTensorMapArgs maps[TILUS_MAX_KERNEL_TENSOR_MAPS];
  uint32_t grid[3];
  if (!slots || !symbols)
    s = tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
  else
    s = tilusCheckArguments(k, args, numArgs, slots, symbols, maps, grid, err);
  free(slots);
  free(symbols);
  if (s == TilusStatusSuccess && config) {
    config->kernel = index;
    memcpy(config->grid, grid, sizeof(config->grid));
    memcpy(config->block, k->block, sizeof(config->block));
    config->sharedBytes = k->sharedBytes;
    config->workspaceBytes = k->workspaceBytes;
  }
  return s;
}
