//===- FloatCast.c - Casts to and from !tilus.float<e, m> -----------------===//
//
// The generic bit-field path: a !tilus.float value lives in registers as an
// integer of its width, and converts to and from f32 with integer operations
// on the whole thread's vector (include/tilus-c/FloatFormat.h states the
// semantics; lib/Types/FloatFormat.c is the CPU reference).
//
//   decode: exponent field 0 is subnormal (mantissa * 2^(1-bias-m)),
//           otherwise the f32 bits are assembled directly; specials (inf/NaN
//           where the format has them) map to f32 inf/NaN.
//   encode: the f32 exponent is rebased, the 23-bit mantissa shifted right
//           with round-to-nearest-even (the carry runs into the exponent),
//           values below the normal range shifted further (subnormals), and
//           overflow saturates or becomes inf as the format says.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/FloatFormat.h"

#include <math.h>

// One conversion: the emitter, the format and its parameters, and the
// vector<n x i32> type the bits are computed in.
typedef struct {
  TilusEmitter *e;
  MlirType i32;
  TilusFloatFormat format;
  int width, bias;
} Bits;

static MlirValue constant(Bits *b, int64_t value) {
  return tilusEmitSplatConstant(b->e, b->i32, (double)value);
}

static MlirValue op(Bits *b, const char *name, MlirValue x, MlirValue y) {
  return tilusEmitArith(b->e, name, x, y);
}

static MlirValue opc(Bits *b, const char *name, MlirValue x, int64_t c) {
  return op(b, name, x, constant(b, c));
}

// arith.cmpi on i32 vectors.
static MlirValue compare(Bits *b, TilusCmpPredicate predicate, MlirValue x,
                         MlirValue y) {
  return tilusEmitCmp(b->e, predicate, x, y);
}

static MlirValue select(Bits *b, MlirValue condition, MlirValue x,
                        MlirValue y) {
  MlirValue operands[3] = {condition, x, y};
  return tilusEmitValue(b->e, "arith.select", 3, operands,
                        mlirValueGetType(x), 0, NULL);
}


static TilusFloatFormat formatOf(MlirType type) {
  int64_t e = 0, m = 0;
  tilusFloatTypeGetFormat(type, &e, &m);
  return (TilusFloatFormat){(int)e, (int)m};
}

static Bits bitsFor(TilusEmitter *e, MlirType format, MlirValue value) {
  TilusFloatFormat f = formatOf(format);
  int64_t n = mlirShapedTypeGetDimSize(mlirValueGetType(value), 0);
  Bits b = {e, mlirVectorTypeGet(1, &n, mlirIntegerTypeGet(e->ctx, 32)), f,
            tilusFloatFormatGetBitWidth(f), tilusFloatFormatGetBias(f)};
  return b;
}

MlirValue tilusEmitFloatDecode(TilusEmitter *e, MlirType format,
                               MlirValue value) {
  Bits b = bitsFor(e, format, value);
  TilusFloatFormat f = b.format;
  int width = b.width, m = f.mantissaBits, bias = b.bias;
  int64_t n = mlirShapedTypeGetDimSize(b.i32, 0);
  MlirValue x = tilusEmitValue(e, "arith.extui", 1, &value, b.i32, 0, NULL);
  MlirValue sign = opc(&b, "shli", opc(&b, "shrui", x, width - 1), 31);
  MlirValue exponent = opc(&b, "andi", opc(&b, "shrui", x, m), (1 << f.exponentBits) - 1);
  MlirValue mantissa = opc(&b, "andi", x, (1 << m) - 1);

  MlirValue normal = op(&b, "ori",
                        opc(&b, "shli", opc(&b, "addi", exponent, 127 - bias), 23),
                        opc(&b, "shli", mantissa, 23 - m));
  // Subnormal: mantissa * 2^(1 - bias - m), exact in f32.
  MlirType f32 = mlirVectorTypeGet(1, &n, mlirF32TypeGet(e->ctx));
  MlirValue scaled = tilusEmitValue(e, "arith.uitofp", 1, &mantissa, f32, 0, NULL);
  scaled = tilusEmitArith(
      e, "mulf", scaled,
      tilusEmitSplatConstant(e, f32, ldexp(1.0, 1 - bias - m)));
  MlirValue subnormal =
      tilusEmitValue(e, "arith.bitcast", 1, &scaled, b.i32, 0, NULL);
  MlirValue magnitude =
      select(&b, compare(&b, TilusCmpEQ, exponent, constant(&b, 0)), subnormal, normal);

  uint32_t expOnes = (1u << f.exponentBits) - 1;
  if (tilusFloatFormatHasInfinity(f)) {
    MlirValue special = op(&b, "ori", constant(&b, 0x7f800000),
                           opc(&b, "shli", mantissa, 23 - m));
    magnitude = select(&b, compare(&b, TilusCmpEQ, exponent, constant(&b, expOnes)),
                       special, magnitude);
  } else if (tilusFloatFormatHasNaN(f)) {
    MlirValue low = opc(&b, "andi", x, (1 << (width - 1)) - 1);
    magnitude = select(&b,
                       compare(&b, TilusCmpEQ, low,
                               constant(&b, (int64_t)((expOnes << m) | ((1u << m) - 1)))),
                       constant(&b, 0x7fc00000), magnitude);
  }
  MlirValue bits = op(&b, "ori", magnitude, sign);
  return tilusEmitValue(e, "arith.bitcast", 1, &bits, f32, 0, NULL);
}

MlirValue tilusEmitFloatEncode(TilusEmitter *e, MlirType format,
                               MlirValue value) {
  Bits b = bitsFor(e, format, value);
  TilusFloatFormat f = b.format;
  int width = b.width, m = f.mantissaBits, bias = b.bias;
  int64_t n = mlirShapedTypeGetDimSize(b.i32, 0);
  MlirValue x = tilusEmitValue(e, "arith.bitcast", 1, &value, b.i32, 0, NULL);
  MlirValue sign = opc(&b, "shli", opc(&b, "shrui", x, 31), width - 1);
  MlirValue abs = opc(&b, "andi", x, 0x7fffffff);
  MlirValue isNaN = compare(&b, TilusCmpSGT, abs, constant(&b, 0x7f800000));
  MlirValue fExponent = opc(&b, "shrui", abs, 23);
  MlirValue fMantissa = opc(&b, "andi", abs, 0x7fffff);

  // The target exponent, capped where everything overflows anyway so that
  // the shifts below stay inside 32 bits.
  MlirValue exponent = opc(&b, "addi", fExponent, bias - 127);
  exponent = op(&b, "minsi", exponent, constant(&b, 1 << f.exponentBits));
  MlirValue isNormal = compare(&b, TilusCmpSGT, exponent, constant(&b, 0));
  // Normal: (E << 23 | mantissa) >> (23 - m). Subnormal: the mantissa with
  // its implicit bit, shifted 1 - E further (f32 subnormals round to 0).
  MlirValue normalBits = op(&b, "ori", opc(&b, "shli", exponent, 23), fMantissa);
  MlirValue implicit = select(&b, compare(&b, TilusCmpEQ, fExponent, constant(&b, 0)),
                              constant(&b, 0), opc(&b, "ori", fMantissa, 0x800000));
  MlirValue v = select(&b, isNormal, normalBits, implicit);
  MlirValue extra = op(&b, "subi", constant(&b, 1), exponent);
  MlirValue shift = select(&b, isNormal, constant(&b, 23 - m),
                           opc(&b, "addi", extra, 23 - m));
  shift = op(&b, "minsi", shift, constant(&b, 31));

  // Round to nearest, ties to even.
  MlirValue r = op(&b, "shrui", v, shift);
  MlirValue mask = opc(&b, "subi", op(&b, "shli", constant(&b, 1), shift), 1);
  MlirValue rem = op(&b, "andi", v, mask);
  MlirValue half = op(&b, "shli", constant(&b, 1), opc(&b, "subi", shift, 1));
  MlirValue above = compare(&b, TilusCmpUGT, rem, half);
  MlirValue atHalf = compare(&b, TilusCmpEQ, rem, half);
  MlirValue tie = op(&b, "andi",
                     tilusEmitValue(e, "arith.extui", 1, &atHalf, b.i32, 0, NULL),
                     opc(&b, "andi", r, 1));
  MlirValue roundUp = op(&b, "ori",
                         tilusEmitValue(e, "arith.extui", 1, &above, b.i32, 0, NULL),
                         tie);
  r = op(&b, "addi", r, roundUp);

  // Overflow: inf where the format has it, else the largest finite value.
  uint32_t expOnes = (1u << f.exponentBits) - 1;
  uint32_t maxFinite = (1u << (width - 1)) - 1;
  uint32_t infinity = 0;
  if (tilusFloatFormatHasInfinity(f)) {
    maxFinite = (expOnes << m) - 1;
    infinity = expOnes << m;
  } else if (tilusFloatFormatHasNaN(f)) {
    maxFinite -= 1; // S.1111.111 is NaN
  }
  MlirValue overflow = compare(&b, TilusCmpUGT, r, constant(&b, maxFinite));
  r = select(&b, overflow,
             constant(&b, tilusFloatFormatHasInfinity(f) ? infinity : maxFinite),
             r);
  MlirValue bits = op(&b, "ori", r, sign);
  uint32_t nan = 0;
  if (tilusFloatFormatHasInfinity(f) && m >= 1)
    nan = expOnes << m | 1u << (m - 1);
  else if (tilusFloatFormatHasNaN(f))
    nan = expOnes << m | ((1u << m) - 1);
  bits = select(&b, isNaN, constant(&b, nan), bits);
  MlirType storage = mlirVectorTypeGet(1, &n, mlirIntegerTypeGet(e->ctx, width));
  return tilusEmitValue(e, "arith.trunci", 1, &bits, storage, 0, NULL);
}
