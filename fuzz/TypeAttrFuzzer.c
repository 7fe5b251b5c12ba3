//===- TypeAttrFuzzer.c - libFuzzer harness for Tilus types and attributes ===//
//
// The input is parsed as an MLIR type and as an MLIR attribute (with the
// Tilus dialect loaded); on what parses the Tilus queries of
// include/tilus-c/Types.h run. Checked (abort() on failure):
//  - a tensor type that decodes is rebuilt by its builder from the decoded
//    parts, and the rebuilt type decodes to the same parts; the type cache
//    agrees with a direct decode;
//  - a pointer type is rebuilt equal from its element type (if it has one);
//  - a #tilus.layout attribute rebuilt from its layout gives an equal layout;
//  - the input as layout text, wrapped by tilusLayoutAttrGetFromText, reads
//    back as the layout tilusLayoutParse gives for it (string escaping).
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "tilus-c/Types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_INPUT = 4096, RUNS_PER_CONTEXT = 20000 };

static void fail(const char *what, const char *input) {
  fprintf(stderr, "type/attribute fuzzer: %s\n  input: %s\n", what, input);
  abort();
}

#define REQUIRE(cond, what)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      fail(what, input);                                                       \
  } while (0)

static bool sameLayout(const TilusLayout *a, const TilusLayout *b) {
  if (!a || !b)
    return a == b;
  return tilusLayoutEqual(a, b);
}

static void checkTensor(MlirContext ctx, MlirType type, const char *input) {
  TilusTensorType decoded;
  TilusLayoutError err = {{0}};
  bool ok = mlirLogicalResultIsSuccess(tilusTensorTypeDecode(type, &decoded, &err));
  TilusTypeCache *cache = tilusTypeCacheCreate();
  if (cache) {
    const TilusTensorType *cached = tilusTypeCacheGetTensor(cache, type, NULL);
    // A second lookup hits the cache.
    const TilusTensorType *again = tilusTypeCacheGetTensor(cache, type, NULL);
    REQUIRE((cached != NULL) == ok, "the type cache disagrees with decode");
    REQUIRE(cached == again, "the type cache does not keep its answer");
    if (ok && cached)
      REQUIRE(cached->rank == decoded.rank &&
                  sameLayout(cached->layout, decoded.layout),
              "the type cache decodes differently");
    tilusTypeCacheDestroy(cache);
  }
  if (!ok) {
    REQUIRE(err.message[0] != '\0', "decode failed without a reason");
    return;
  }
  REQUIRE(decoded.rank >= 1 && decoded.rank <= TILUS_LAYOUT_MAX_RANK,
          "decoded rank out of range");
  REQUIRE(tilusTypeIsATensor(type), "decoded a type that is not a tensor");
  (void)tilusElementTypeGetBitWidth(decoded.elementType);

  MlirType rebuilt = {NULL};
  switch (decoded.scope) {
  case TilusMemoryGlobal:
    REQUIRE(tilusTypeIsAGlobal(type), "scope disagrees with IsAGlobal");
    rebuilt = tilusGlobalTypeGet(ctx, decoded.elementType, decoded.rank,
                                 decoded.shape, decoded.layout);
    break;
  case TilusMemoryShared:
    REQUIRE(tilusTypeIsAShared(type), "scope disagrees with IsAShared");
    rebuilt = tilusSharedTypeGet(ctx, decoded.elementType, decoded.rank,
                                 decoded.shape, decoded.layout);
    break;
  case TilusMemoryRegister:
    REQUIRE(tilusTypeIsARegister(type), "scope disagrees with IsARegister");
    rebuilt = tilusRegisterTypeGet(ctx, decoded.elementType, decoded.rank,
                                   decoded.shape, decoded.layout);
    break;
  }
  // Shared and register tensors need a layout; a decoded one always has it.
  REQUIRE(!mlirTypeIsNull(rebuilt), "the builder refuses a decoded type");
  TilusTensorType second;
  REQUIRE(mlirLogicalResultIsSuccess(tilusTensorTypeDecode(rebuilt, &second, NULL)),
          "a rebuilt type does not decode");
  REQUIRE(second.scope == decoded.scope && second.rank == decoded.rank &&
              mlirTypeEqual(second.elementType, decoded.elementType) &&
              memcmp(second.shape, decoded.shape,
                     (size_t)decoded.rank * sizeof(int64_t)) == 0 &&
              sameLayout(second.layout, decoded.layout),
          "a rebuilt type decodes to other parts");
  tilusTensorTypeRelease(&second);
  tilusTensorTypeRelease(&decoded);
}

static void checkType(MlirContext ctx, MlirType type, const char *input) {
  (void)tilusTypeIsATensor(type);
  checkTensor(ctx, type, input);
  (void)tilusElementTypeGetBitWidth(type);
  int64_t exponent = 0, mantissa = 0;
  if (tilusFloatTypeGetFormat(type, &exponent, &mantissa)) {
    REQUIRE(tilusTypeIsAFloat(type), "a float format on a non-float type");
    (void)tilusFloatTypeGet(ctx, exponent, mantissa);
  }
  // IRDL lets !tilus.ptr take any parameter (!tilus.ptr<16> parses); only
  // a type has an element type to rebuild from.
  MlirType element = tilusPtrTypeGetElementType(type);
  if (!mlirTypeIsNull(element)) {
    REQUIRE(tilusTypeIsAPtr(type), "an element type of a non-pointer");
    REQUIRE(mlirTypeEqual(tilusPtrTypeGet(ctx, element), type),
            "a pointer type is not rebuilt from its element type");
  }
}

static void checkAttribute(MlirContext ctx, MlirAttribute attr,
                           const char *input) {
  bool isLayout = tilusAttributeIsALayout(attr);
  bool isRowMajor = tilusAttributeIsARowMajor(attr);
  REQUIRE(!(isLayout && isRowMajor), "both a layout and row_major");
  TilusLayoutError err = {{0}};
  TilusLayout *layout = tilusLayoutAttrGetLayout(attr, &err);
  REQUIRE(!layout || isLayout, "a layout read from a non-layout attribute");
  if (!layout)
    return;
  MlirAttribute rebuilt = tilusLayoutAttrGet(ctx, layout);
  REQUIRE(!mlirAttributeIsNull(rebuilt), "a layout's attribute does not build");
  TilusLayout *again = tilusLayoutAttrGetLayout(rebuilt, NULL);
  REQUIRE(again && tilusLayoutEqual(layout, again),
          "a rebuilt layout attribute holds another layout");
  tilusLayoutDestroy(again);
  tilusLayoutDestroy(layout);
}

// The whole input as layout text, through the attribute's string escaping.
static void checkLayoutText(MlirContext ctx, const char *text, size_t length,
                            const char *input) {
  TilusLayout *direct = tilusLayoutParse(text, length, NULL);
  MlirAttribute attr =
      tilusLayoutAttrGetFromText(ctx, mlirStringRefCreate(text, length));
  if (!mlirAttributeIsNull(attr)) {
    TilusLayout *viaAttr = tilusLayoutAttrGetLayout(attr, NULL);
    REQUIRE(sameLayout(direct, viaAttr),
            "layout text reads differently through #tilus.layout<\"...\">");
    tilusLayoutDestroy(viaAttr);
  }
  tilusLayoutDestroy(direct);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT)
    return 0;
  MlirContext ctx = tilusFuzzGetContext(RUNS_PER_CONTEXT);
  // NUL-terminated for the messages; MLIR reads `size` bytes.
  char *input = malloc(size + 1);
  if (!input)
    return 0;
  memcpy(input, data, size);
  input[size] = '\0';
  MlirStringRef text = mlirStringRefCreate(input, size);
  // As in tilus-opt: text that crashes MLIR 22's parser is refused first.
  if (!tilusFuzzParserMayTake(ctx, input, size)) {
    free(input);
    return 0;
  }
  MlirType type = mlirTypeParseGet(ctx, text);
  if (!mlirTypeIsNull(type))
    checkType(ctx, type, input);
  MlirAttribute attr = mlirAttributeParseGet(ctx, text);
  if (!mlirAttributeIsNull(attr)) {
    checkAttribute(ctx, attr, input);
    if (mlirAttributeIsAType(attr))
      checkType(ctx, mlirTypeAttrGetValue(attr), input);
  }
  checkLayoutText(ctx, input, size, input);
  free(input);
  return 0;
}
