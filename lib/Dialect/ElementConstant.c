//===- ElementConstant.c - A constant attribute in an element type --------===//
//
// MLIR's arith.constant must be signless, and !tilus.float has no MLIR float
// semantics, so fills and constants of every element type are attributes
// read here: into the bits of the type (integers, !tilus.float) or a double
// (standard floats, which MLIR's FloatAttr rounds to nearest even).
//
//===----------------------------------------------------------------------===//

#include "tilus-c/FloatFormat.h"
#include "tilus-c/Types.h"

#include "Utils/Why.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// The attribute as a double: float attributes, and integer ones (exact up to
// 2^53, which covers every integer a low-precision float can hold).
static bool asDouble(MlirAttribute attr, double *out) {
  if (mlirAttributeIsAFloat(attr)) {
    *out = mlirFloatAttrGetValueDouble(attr);
    return true;
  }
  if (mlirAttributeIsAInteger(attr)) {
    MlirType t = mlirAttributeGetType(attr);
    bool isUnsigned = mlirTypeIsAInteger(t) && mlirIntegerTypeIsUnsigned(t);
    *out = isUnsigned ? (double)mlirIntegerAttrGetValueUInt(attr)
                      : (double)mlirIntegerAttrGetValueInt(attr);
    return true;
  }
  return false;
}

// The largest finite value of a standard float type.
static double standardMax(MlirType t) {
  if (mlirTypeIsAF16(t))
    return 65504.0;
  if (mlirTypeIsABF16(t))
    return 3.3895313892515355e38;
  if (mlirTypeIsAF32(t))
    return FLT_MAX;
  return DBL_MAX;
}

static bool readInteger(MlirType elementType, MlirAttribute attr,
                        TilusElementConstant *out, char *why, size_t size) {
  unsigned n = mlirIntegerTypeGetWidth(elementType);
  // Widths Tilus has no tensors of (the type verifier reports them): the
  // ranges below are computed by shifts of 1 to 64 bits.
  if (n < 1 || n > 64)
    return tilusWhy(why, size, "the element type is not an integer of 1 to 64 bits");
  if (!mlirAttributeIsAInteger(attr))
    return tilusWhy(why, size,
                  "needs an integer attribute for an integer "
                  "element type");
  MlirType at = mlirAttributeGetType(attr);
  bool attrUnsigned = mlirTypeIsAInteger(at) && mlirIntegerTypeIsUnsigned(at);
  bool isSigned = mlirIntegerTypeIsSigned(elementType);
  bool isUnsigned = mlirIntegerTypeIsUnsigned(elementType);
  // The value as written: a sign and a magnitude, so that both ranges of
  // 64-bit integers compare without overflow.
  int64_t sv = mlirIntegerAttrGetValueInt(attr);
  bool negative = !attrUnsigned && sv < 0;
  uint64_t magnitude = attrUnsigned ? mlirIntegerAttrGetValueUInt(attr)
                       : negative   ? 0 - (uint64_t)sv
                                    : (uint64_t)sv;
  uint64_t half = (uint64_t)1 << (n - 1); // 2^(n-1): -smin, smax + 1
  uint64_t umax = n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
  bool fits = negative ? !isUnsigned && magnitude <= half
                       : magnitude <= (isSigned ? half - 1 : umax);
  if (!fits) {
    if (negative)
      return tilusWhy(why, size, "-%" PRIu64 " does not fit in %s%u", magnitude,
                    isSigned     ? "si"
                    : isUnsigned ? "ui"
                                 : "i",
                    n);
    return tilusWhy(why, size, "%" PRIu64 " does not fit in %s%u", magnitude,
                  isSigned     ? "si"
                  : isUnsigned ? "ui"
                               : "i",
                  n);
  }
  out->isFloat = false;
  out->bits = (negative ? 0 - magnitude : magnitude) & umax;
  out->value = negative ? -(double)magnitude : (double)magnitude;
  return true;
}

bool tilusElementConstantGet(MlirType elementType, MlirAttribute attr,
                             TilusElementConstant *out, char *why,
                             size_t whySize) {
  memset(out, 0, sizeof(*out));
  if (mlirAttributeIsNull(attr))
    return tilusWhy(why, whySize, "no attribute");
  if (mlirTypeIsAInteger(elementType))
    return readInteger(elementType, attr, out, why, whySize);
  if (mlirTypeIsAIndex(elementType))
    return tilusWhy(why, whySize, "index tensors take no constant attribute");
  double v;
  if (!asDouble(attr, &v))
    return tilusWhy(why, whySize,
                  "needs a float or integer attribute for a float element "
                  "type");
  int64_t e, m;
  if (tilusFloatTypeGetFormat(elementType, &e, &m)) {
    TilusFloatFormat format = {(int)e, (int)m};
    // An invalid format (the type verifier reports it) has no values: its
    // fields would also make the decoding below shift by a negative amount.
    if (e < 1 || m < 0 || e + m > 7 || !tilusFloatFormatIsValid(format))
      return tilusWhy(why, whySize, "the element type is not a valid float format");
    if (isnan(v) && !tilusFloatFormatHasNaN(format))
      return tilusWhy(why, whySize, "the format has no NaN");
    if (isinf(v) && !tilusFloatFormatHasInfinity(format))
      return tilusWhy(why, whySize, "the format has no infinity");
    // The largest finite value: the format has at most 256 codes.
    double largest = 0;
    for (uint32_t code = 0; code < (1u << (1 + e + m)); ++code) {
      double d = tilusFloatFormatDecode(format, code);
      if (isfinite(d) && d > largest)
        largest = d;
    }
    if (isfinite(v) && fabs(v) > largest)
      return tilusWhy(why, whySize,
                    "%g is past the format's largest finite value %g", v,
                    largest);
    out->isFloat = false;
    out->bits = tilusFloatFormatEncode(format, v);
    out->value = v;
    return true;
  }
  if (!mlirTypeIsAFloat(elementType))
    return tilusWhy(why, whySize, "the element type takes no constant");
  if (isfinite(v) && fabs(v) > standardMax(elementType))
    return tilusWhy(why, whySize, "%g is past the type's largest finite value",
                  v);
  out->isFloat = true;
  out->value = v;
  return true;
}
