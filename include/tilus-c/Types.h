/*===-- tilus-c/Types.h - Tilus types and attributes -----------------*- C -*-===*\
|*                                                                            *|
|* Typed builders and accessors for the Tilus dialect's types and attributes: *|
|*   !tilus.global<dtype, array<i64: ...>, #tilus.row_major | #tilus.layout>  *|
|*   !tilus.shared<dtype, array<i64: ...>, #tilus.layout<"...">>              *|
|*   !tilus.register<dtype, array<i64: ...>, #tilus.layout<"...">>            *|
|*   !tilus.float<e, m>    !tilus.ptr<dtype>                                   *|
|*   #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">    #tilus.row_major  *|
|* and the element types the VM supports. All builders need the dialect to   *|
|* be loaded (tilusDialectLoad) and return a null type/attribute on failure. *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_TYPES_H
#define TILUS_C_TYPES_H

#include "mlir-c/IR.h"
#include "tilus-c/Layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dimension of a global tensor known only at run time. */
#define TILUS_DYNAMIC_DIM (-1)

typedef enum {
  TilusMemoryGlobal,
  TilusMemoryShared,
  TilusMemoryRegister,
} TilusMemoryScope;

/* A decoded tensor type. `layout` is owned by the struct (NULL for a
 * row-major global tensor); release it with tilusTensorTypeRelease. */
typedef struct {
  TilusMemoryScope scope;
  MlirType elementType;
  intptr_t rank;
  int64_t shape[TILUS_LAYOUT_MAX_RANK];
  TilusLayout *layout;
} TilusTensorType;

/*--- Classification ----------------------------------------------------------*/

bool tilusTypeIsAGlobal(MlirType type);
bool tilusTypeIsAShared(MlirType type);
bool tilusTypeIsARegister(MlirType type);
/* Global, shared or register tensor. */
bool tilusTypeIsATensor(MlirType type);
bool tilusTypeIsAPtr(MlirType type);
bool tilusTypeIsAFloat(MlirType type);
bool tilusAttributeIsALayout(MlirAttribute attr);
bool tilusAttributeIsARowMajor(MlirAttribute attr);

/*--- Tensor types ------------------------------------------------------------*/

/* Decodes a tensor type. On failure (not a tensor, bad shape attribute, or a
 * layout text that does not parse) returns failure and, if `err` is given,
 * says why. */
MlirLogicalResult tilusTensorTypeDecode(MlirType type, TilusTensorType *out,
                                        TilusLayoutError *err);
void tilusTensorTypeRelease(TilusTensorType *decoded);

/* A cache of decoded tensor types, keyed by the uniqued MlirType. IRDL types
 * expose their parameters only as text, so decoding prints and parses; with
 * a cache each type is decoded once (the verifier and the lowering keep one
 * per run). The types must belong to one context that outlives the cache. */
typedef struct TilusTypeCache TilusTypeCache;
TilusTypeCache *tilusTypeCacheCreate(void);
void tilusTypeCacheDestroy(TilusTypeCache *cache);
/* The decoded tensor type, owned by the cache (valid until it is destroyed;
 * do not release it), or NULL when `type` does not decode (or memory runs
 * out), with the reason in `err` if given. */
const TilusTensorType *tilusTypeCacheGetTensor(TilusTypeCache *cache,
                                               MlirType type,
                                               TilusLayoutError *err);

/* `layout` NULL means #tilus.row_major. */
MlirType tilusGlobalTypeGet(MlirContext ctx, MlirType elementType,
                            intptr_t rank, const int64_t *shape,
                            const TilusLayout *layout);
MlirType tilusSharedTypeGet(MlirContext ctx, MlirType elementType,
                            intptr_t rank, const int64_t *shape,
                            const TilusLayout *layout);
MlirType tilusRegisterTypeGet(MlirContext ctx, MlirType elementType,
                              intptr_t rank, const int64_t *shape,
                              const TilusLayout *layout);

/*--- Scalar types ------------------------------------------------------------*/

/* !tilus.float<exponent, mantissa>. */
MlirType tilusFloatTypeGet(MlirContext ctx, int64_t exponent,
                           int64_t mantissa);
/* Reads a !tilus.float's format; false if `type` is not one. */
bool tilusFloatTypeGetFormat(MlirType type, int64_t *exponent,
                             int64_t *mantissa);

MlirType tilusPtrTypeGet(MlirContext ctx, MlirType elementType);
MlirType tilusPtrTypeGetElementType(MlirType type);

/* Bits of an element type the VM supports: integers of 1-8 bits (signless,
 * signed, unsigned), i16, i32, i64, f16, bf16, f32, f64, index (64) and
 * !tilus.float<e, m> with 1 + e + m in [3, 8]. Returns 0 for any other type. */
int64_t tilusElementTypeGetBitWidth(MlirType type);

/* The bytes one thread holds of the decoded tensor type `t`: its layout's
 * local size times the element bits, rounded up (for a shared tensor, the
 * whole tensor). 0 when `t` has no layout or an unsupported element type.
 * The layout algebra bounds the local size by 2^40, so this cannot
 * overflow. */
int64_t tilusTensorTypeGetLocalBytes(const TilusTensorType *t);

/*--- Attributes --------------------------------------------------------------*/

MlirAttribute tilusLayoutAttrGet(MlirContext ctx, const TilusLayout *layout);
/* #tilus.layout<"text"> from text as written (not checked). */
MlirAttribute tilusLayoutAttrGetFromText(MlirContext ctx, MlirStringRef text);
/* Parses the attribute's layout; NULL with a reason in `err` if invalid. */
TilusLayout *tilusLayoutAttrGetLayout(MlirAttribute attr,
                                      TilusLayoutError *err);
MlirAttribute tilusRowMajorAttrGet(MlirContext ctx);

/*--- Constants of an element type (lib/Dialect/ElementConstant.c) ----------*/

/* A constant attribute read in a Tilus element type: the `value` attribute
 * of tilus.allocate_register and the `fill_value` attribute of
 * tilus.load_global. Integer element types (iN, siN, uiN) take an integer
 * attribute whose value fits the type (siN: signed range, uiN: unsigned
 * range, signless iN: either); f16, bf16, f32, f64 take a float (or integer)
 * attribute, rounded to nearest even, that is finite in the type unless it
 * is an infinity or NaN; !tilus.float<e, m> takes a float (or integer)
 * attribute rounded to nearest even in the format (tilusFloatFormatEncode)
 * and refused past its largest finite value, or when it is an infinity or
 * NaN the format lacks. */
typedef struct {
  bool isFloat;  /* standard float element type: `value` holds it */
  double value;  /* the value as written (standard floats) */
  uint64_t bits; /* integers and !tilus.float: the low N bits of the type */
} TilusElementConstant;

/* Reads `attr` in `elementType` into *out; false, with a one-line reason in
 * `why` (`whySize` bytes, may be NULL), when it does not fit. */
bool tilusElementConstantGet(MlirType elementType, MlirAttribute attr,
                             TilusElementConstant *out, char *why,
                             size_t whySize);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_TYPES_H */
