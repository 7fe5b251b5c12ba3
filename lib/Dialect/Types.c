//===- Types.c - Typed builders and accessors for Tilus types -------------===//
//
// Tilus types are IRDL types, so they are built by parsing their text and read
// by splitting their printed parameters (see DynamicParams.h).
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Types.h"

#include "DynamicParams.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kGlobal = "!tilus.global";
static const char *const kShared = "!tilus.shared";
static const char *const kRegister = "!tilus.register";
static const char *const kPtr = "!tilus.ptr";
static const char *const kFloat = "!tilus.float";
static const char *const kLayout = "#tilus.layout";
static const char *const kRowMajor = "#tilus.row_major";

bool tilusTypeIsAGlobal(MlirType type) { return tilusTypeHasName(type, kGlobal); }
bool tilusTypeIsAShared(MlirType type) { return tilusTypeHasName(type, kShared); }
bool tilusTypeIsARegister(MlirType type) {
  return tilusTypeHasName(type, kRegister);
}
bool tilusTypeIsATensor(MlirType type) {
  return tilusTypeIsAGlobal(type) || tilusTypeIsAShared(type) ||
         tilusTypeIsARegister(type);
}
bool tilusTypeIsAPtr(MlirType type) { return tilusTypeHasName(type, kPtr); }
bool tilusTypeIsAFloat(MlirType type) { return tilusTypeHasName(type, kFloat); }
bool tilusAttributeIsALayout(MlirAttribute attr) {
  return tilusAttrHasName(attr, kLayout);
}
bool tilusAttributeIsARowMajor(MlirAttribute attr) {
  return tilusAttrHasName(attr, kRowMajor);
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

MlirAttribute tilusLayoutAttrGetFromText(MlirContext ctx, MlirStringRef text) {
  MlirAttribute str = mlirStringAttrGet(ctx, text);
  char *printed = tilusPrintAttrToString(str);
  size_t size = strlen(printed) + 32;
  char *source = malloc(size);
  MlirAttribute result = {NULL};
  if (source) {
    snprintf(source, size, "%s<%s>", kLayout, printed);
    result = mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(source));
  }
  free(source);
  free(printed);
  return result;
}

MlirAttribute tilusLayoutAttrGet(MlirContext ctx, const TilusLayout *layout) {
  char *text = tilusLayoutPrint(layout);
  if (!text)
    return (MlirAttribute){NULL};
  MlirAttribute attr =
      tilusLayoutAttrGetFromText(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  return attr;
}

MlirAttribute tilusRowMajorAttrGet(MlirContext ctx) {
  return mlirAttributeParseGet(ctx, mlirStringRefCreateFromCString(kRowMajor));
}

TilusLayout *tilusLayoutAttrGetLayout(MlirAttribute attr,
                                      TilusLayoutError *err) {
  TilusDynamicParams params;
  if (!tilusDynamicAttrParams(attr, kLayout, &params) ||
      params.numParams != 1) {
    if (params.text)
      tilusDynamicParamsRelease(&params);
    tilusLayoutSetError(err, "not a #tilus.layout attribute");
    return NULL;
  }
  MlirAttribute str =
      tilusParseParamAttr(mlirAttributeGetContext(attr), params.params[0]);
  tilusDynamicParamsRelease(&params);
  if (mlirAttributeIsNull(str) || !mlirAttributeIsAString(str)) {
    tilusLayoutSetError(err, "the layout parameter is not a string");
    return NULL;
  }
  MlirStringRef text = mlirStringAttrGetValue(str);
  TilusLayoutError parseError = {{0}};
  TilusLayout *layout = tilusLayoutParse(text.data, text.length, &parseError);
  if (!layout)
    tilusLayoutSetError(err, "invalid layout '%.*s': %s", (int)text.length, text.data,
             parseError.message);
  return layout;
}

//===----------------------------------------------------------------------===//
// Tensor types
//===----------------------------------------------------------------------===//

MlirLogicalResult tilusTensorTypeDecode(MlirType type, TilusTensorType *out,
                                        TilusLayoutError *err) {
  memset(out, 0, sizeof(*out));
  static const struct {
    const char *name;
    TilusMemoryScope scope;
  } kinds[] = {{"!tilus.global", TilusMemoryGlobal},
               {"!tilus.shared", TilusMemoryShared},
               {"!tilus.register", TilusMemoryRegister}};
  TilusDynamicParams params = {0};
  bool found = false;
  for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !found; ++k) {
    if (tilusDynamicTypeParams(type, kinds[k].name, &params)) {
      out->scope = kinds[k].scope;
      found = true;
    }
  }
  if (!found || params.numParams != 3) {
    if (found)
      tilusDynamicParamsRelease(&params);
    tilusLayoutSetError(err, "not a Tilus tensor type");
    return mlirLogicalResultFailure();
  }
  MlirContext ctx = mlirTypeGetContext(type);
  out->elementType = tilusParseParamType(ctx, params.params[0]);
  MlirAttribute shape = tilusParseParamAttr(ctx, params.params[1]);
  MlirAttribute layout = tilusParseParamAttr(ctx, params.params[2]);
  tilusDynamicParamsRelease(&params);

  if (mlirTypeIsNull(out->elementType)) {
    tilusLayoutSetError(err, "cannot read the element type");
    return mlirLogicalResultFailure();
  }
  if (mlirAttributeIsNull(shape) || !mlirAttributeIsADenseI64Array(shape)) {
    tilusLayoutSetError(err, "the shape must be an array<i64: ...>");
    return mlirLogicalResultFailure();
  }
  intptr_t rank = mlirDenseArrayGetNumElements(shape);
  if (rank < 1 || rank > TILUS_LAYOUT_MAX_RANK) {
    tilusLayoutSetError(err, "the rank must be between 1 and %d, got %" PRIdPTR,
             TILUS_LAYOUT_MAX_RANK, rank);
    return mlirLogicalResultFailure();
  }
  out->rank = rank;
  for (intptr_t d = 0; d < rank; ++d)
    out->shape[d] = mlirDenseI64ArrayGetElement(shape, d);
  if (tilusAttributeIsARowMajor(layout))
    return mlirLogicalResultSuccess();
  out->layout = tilusLayoutAttrGetLayout(layout, err);
  return out->layout ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

void tilusTensorTypeRelease(TilusTensorType *decoded) {
  tilusLayoutDestroy(decoded->layout);
  decoded->layout = NULL;
}

// Builds `<name><dtype, array<i64: ...>, layout>` and parses it.
static MlirType tensorTypeGet(MlirContext ctx, const char *name,
                              MlirType elementType, intptr_t rank,
                              const int64_t *shape, MlirAttribute layout) {
  if (mlirTypeIsNull(elementType) || mlirAttributeIsNull(layout) ||
      rank < 1 || rank > TILUS_LAYOUT_MAX_RANK)
    return (MlirType){NULL};
  char *dtype = tilusPrintTypeToString(elementType);
  char *layoutText = tilusPrintAttrToString(layout);
  size_t size = strlen(name) + strlen(dtype) + strlen(layoutText) +
                (size_t)rank * 24 + 64;
  char *source = malloc(size);
  MlirType result = {NULL};
  if (source) {
    int n = snprintf(source, size, "%s<%s, array<i64: ", name, dtype);
    for (intptr_t d = 0; d < rank; ++d)
      n += snprintf(source + n, size - (size_t)n, "%s%" PRId64,
                    d ? ", " : "", shape[d]);
    snprintf(source + n, size - (size_t)n, ">, %s>", layoutText);
    result = mlirTypeParseGet(ctx, mlirStringRefCreateFromCString(source));
  }
  free(source);
  free(layoutText);
  free(dtype);
  return result;
}

MlirType tilusGlobalTypeGet(MlirContext ctx, MlirType elementType,
                            intptr_t rank, const int64_t *shape,
                            const TilusLayout *layout) {
  MlirAttribute attr =
      layout ? tilusLayoutAttrGet(ctx, layout) : tilusRowMajorAttrGet(ctx);
  return tensorTypeGet(ctx, kGlobal, elementType, rank, shape, attr);
}

MlirType tilusSharedTypeGet(MlirContext ctx, MlirType elementType,
                            intptr_t rank, const int64_t *shape,
                            const TilusLayout *layout) {
  if (!layout)
    return (MlirType){NULL};
  return tensorTypeGet(ctx, kShared, elementType, rank, shape,
                       tilusLayoutAttrGet(ctx, layout));
}

MlirType tilusRegisterTypeGet(MlirContext ctx, MlirType elementType,
                              intptr_t rank, const int64_t *shape,
                              const TilusLayout *layout) {
  if (!layout)
    return (MlirType){NULL};
  return tensorTypeGet(ctx, kRegister, elementType, rank, shape,
                       tilusLayoutAttrGet(ctx, layout));
}

//===----------------------------------------------------------------------===//
// Scalar types
//===----------------------------------------------------------------------===//

MlirType tilusFloatTypeGet(MlirContext ctx, int64_t exponent,
                           int64_t mantissa) {
  char source[96];
  snprintf(source, sizeof(source), "%s<%" PRId64 ", %" PRId64 ">", kFloat,
           exponent, mantissa);
  return mlirTypeParseGet(ctx, mlirStringRefCreateFromCString(source));
}

bool tilusFloatTypeGetFormat(MlirType type, int64_t *exponent,
                             int64_t *mantissa) {
  TilusDynamicParams params;
  if (!tilusDynamicTypeParams(type, kFloat, &params))
    return false;
  bool ok = params.numParams == 2;
  MlirContext ctx = mlirTypeGetContext(type);
  for (int k = 0; ok && k < 2; ++k) {
    MlirAttribute value = tilusParseParamAttr(ctx, params.params[k]);
    ok = !mlirAttributeIsNull(value) && mlirAttributeIsAInteger(value);
    if (ok)
      *(k == 0 ? exponent : mantissa) = mlirIntegerAttrGetValueInt(value);
  }
  tilusDynamicParamsRelease(&params);
  return ok;
}

MlirType tilusPtrTypeGet(MlirContext ctx, MlirType elementType) {
  char *dtype = tilusPrintTypeToString(elementType);
  size_t size = strlen(dtype) + 32;
  char *source = malloc(size);
  MlirType result = {NULL};
  if (source) {
    snprintf(source, size, "%s<%s>", kPtr, dtype);
    result = mlirTypeParseGet(ctx, mlirStringRefCreateFromCString(source));
  }
  free(source);
  free(dtype);
  return result;
}

MlirType tilusPtrTypeGetElementType(MlirType type) {
  TilusDynamicParams params;
  if (!tilusDynamicTypeParams(type, kPtr, &params))
    return (MlirType){NULL};
  MlirType result = {NULL};
  if (params.numParams == 1)
    result = tilusParseParamType(mlirTypeGetContext(type), params.params[0]);
  tilusDynamicParamsRelease(&params);
  return result;
}

int64_t tilusElementTypeGetBitWidth(MlirType type) {
  if (mlirTypeIsNull(type))
    return 0;
  if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    if (width <= 8 || width == 16 || width == 32 || width == 64)
      return width;
    return 0;
  }
  if (mlirTypeIsAIndex(type))
    return 64;
  if (mlirTypeIsAF16(type) || mlirTypeIsABF16(type))
    return 16;
  if (mlirTypeIsAF32(type))
    return 32;
  if (mlirTypeIsAF64(type))
    return 64;
  int64_t exponent, mantissa;
  // Each field is bounded before they are added: any int64_t may be written.
  if (tilusFloatTypeGetFormat(type, &exponent, &mantissa) && exponent >= 1 &&
      exponent <= 7 && mantissa >= 0 && mantissa <= 6 &&
      1 + exponent + mantissa >= 3 && 1 + exponent + mantissa <= 8)
    return 1 + exponent + mantissa;
  return 0;
}

int64_t tilusTensorTypeGetLocalBytes(const TilusTensorType *t) {
  if (!t->layout)
    return 0;
  int64_t bits = tilusLayoutGetLocalSize(t->layout) *
                 tilusElementTypeGetBitWidth(t->elementType);
  return bits / 8 + (bits % 8 != 0);
}
