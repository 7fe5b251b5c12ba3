//===- FastCast.c - Fast casts from low-precision types to f16/bf16/f32/i8 ===//
//
// Cast from uiN/siN (N <= 8) or !tilus.float<e, m> to f16, bf16 or f32,
// without conversion instructions and without vectors of odd-width integers
// (which the NVPTX back end splits element by element, or worse). The
// thread's packed bits are read as 32-bit words, each element is cut out of
// them with shifts and masks, and:
//
//  - integers take the "magic number" route: an n-bit value v placed in the
//    low mantissa bits of the float 2^p (p = 10 for f16, 23 for f32) reads
//    as 2^p + v exactly, and one subtraction of 2^p leaves v. Two f16 results
//    share a 32-bit word, so the OR (LOP3) and the subtraction (HSUB2) each
//    serve two elements. A signed value first has its sign bit flipped
//    (v + 2^(n-1)), and the subtraction removes that 2^(n-1) as well.
//  - floats move their sign, exponent and mantissa fields into place in the
//    wider format, which then reads as value * 2^(bias - B) (B the wider
//    format's bias; subnormals too, as both formats' subnormal exponents line
//    up), and one multiplication by 2^(B - bias) rescales exactly. Inf and
//    NaN encodings are selected per element before the multiplication.
//  - to bf16, integers of up to 7 bits take the same routes as to f16 with
//    bf16's magic number, 2^7 + v (0x4300 + v; its 7 mantissa bits hold
//    the field), and a bf16x2 subtraction; floats place their fields in
//    bf16 (8 exponent bits: every format fits) and take one bf16x2
//    multiplication. 8-bit integers keep the upper half of the exact f32
//    result (8 significant bits, so nothing is rounded).
//
// 1-, 2- and 4-bit integers to f16 pair the elements that lie 16 bits apart
// in a word (j and j + 16/n): one LOP3 masks both out at once, flips a
// signed value's sign bit and sets an exponent that makes the field's lowest
// bit (at offset o < 10 - n + 1 in its half, after one shift right by 8 for
// the fields above) worth 1, so each half reads 2^(10-o) + v exactly; one
// HADD2 of -2^(10-o) leaves v. A word of 8 nibbles costs one shift, four
// LOP3 and four HADD2. To bf16 (7 mantissa bits) a shift brings down each
// run of fields that fits below bit 7 (three per word of nibbles). (The Dot
// lowering may move that addition into the accumulator instead: MmaDot.c.)
// The results go to their own slots, so a
// consumer that pairs slots j and j + 16/n (the quantized matmul's
// interleaved tiles, docs/quantized-matmul.md) takes the words as they are;
// one that pairs neighbours pays a PRMT per pair to regroup them.
//
// 4-bit floats (no inf/NaN) pair j and j + 4 the same way: one shift
// places both magnitudes, one both signs, and two LOP3 keep them: four
// instructions a pair against floatPair's six (the quantized matmul's
// 4-bit float tiles are interleaved for it, weight format 3). 6-bit floats
// pair j and j + 4 of each run of eight too: 24 bits apart, their fields
// start at the same bit of their bytes, so one PRMT brings them 16 bits
// apart first; five instructions a pair (weight format 4).
//
// Other integer widths (3, 5, 6, 7 bits, whose fields straddle words) pair
// neighbours j and j + 1. Where each field starts low enough in its byte
// (bit o, o + n <= the mantissa's width: every 3-bit field to f16), one
// PRMT gathers each field's byte and the next into its half and one LOP3
// masks, flips and sets an exponent per half that makes bit o worth 1, as
// above; a subtraction of 2^(M - o) per half follows. Three instructions a
// pair, against five for windows: other pairs take each element through a
// 32-bit window of the bit stream (one funnel shift at most), the first at
// bit 0 and the second at bit 16, and two LOP3 mask, join, set the
// exponents and flip. The other floats without inf/NaN encodings (3, 5
// and 7 bits) take windows that put the fields where f16 wants them, one
// shift for the signs and three LOP3 (floatPair).
//
// 8-bit integers to f16 move whole bytes: a PRMT places two bytes under the
// magic 0x64 high bytes, so a pair costs one PRMT and the HSUB2.
//
// Only the 1-, 2- and 4-bit path tags its bias addition for the Dot's fold:
// tagging the 3- to 8-bit paths' subtraction too was 1-7 % slower on the
// H100 (the correction chain lengthens each k tile's dependency chain more
// than the HSUB2s it saves). The f16 float pairs tag their multiplication by
// 2^(15 - bias) (TILUS_CAST_SCALE_ATTR): under tilus.fp_contract a Dot from
// zero scales its f32 results instead (MmaDot.c, peelScale; 0.9-2.6 %
// faster for 4- to 6-bit floats on the H100).
//
// The FP8 formats the hardware converts (E4M3FN and E5M2, Tilus's
// float<4, 3> and float<5, 2>) take one cvt.rn.f16x2 per pair where the
// target has it (TilusTargetInfo::hasCvtF16x2FromF8x2, sm_89+): exact, NaN
// and infinity included, and far cheaper than E4M3's per-element NaN test.
//
// Floats with e >= 6 do not fit f16; they go to f32 here and round to f16
// with one truncf (round to nearest even, as the generic path does).
//
// Integers of N < 8 bits to 8-bit integers (the int8-activation matmul's s8
// weights) spread the fields into bytes, four per word: 4-bit fields by a
// mask of the even and of the odd nibbles and two PRMT per eight; other
// widths put elements j and j + 2 at bits 0 and 16 (two windows, two LOP3),
// j + 1 and j + 3 likewise, and one PRMT interleaves the two words' bytes.
// A signed field v (its sign bit flipped by the masking LOP3, v ^ h with
// h = 2^(N-1)) becomes its byte by ((v ^ h) + (0x80 - h)) ^ 0x80, for all
// four bytes at once (no carry leaves a byte). 8-bit sources keep their
// bytes (the cast wraps, as the generic one truncates).
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tilus-c/FloatFormat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The source's elements as bit fields of an integer vector of words.
typedef struct {
  TilusEmitter *e;
  MlirType i32;
  MlirValue words; // vector<k x iW>
  int wordBits;    // W: 8, 16 or 32
  int bits;        // element width n
} Packed;

static MlirValue c32(Packed *p, int64_t value) {
  return tilusEmitIntConstant(p->e, p->i32, value);
}

static MlirValue opc(Packed *p, const char *name, MlirValue x, int64_t c) {
  return tilusEmitArith(p->e, name, x, c32(p, c));
}

// x shifted left by s bits (right by -s where s < 0).
static MlirValue shiftLeft(Packed *p, MlirValue x, int s) {
  return s > 0 ? opc(p, "shli", x, s) : s < 0 ? opc(p, "shrui", x, -s) : x;
}

// Reads `x` (vector<m x iN>) as words. A View is an llvm.bitcast; reading
// its input instead keeps odd-width vectors out of the emitted IR entirely.
static bool packWords(Packed *p, MlirValue x, int64_t m) {
  if (mlirValueIsAOpResult(x) &&
      tilusOpIs(mlirOpResultGetOwner(x), "llvm.bitcast"))
    x = mlirOperationGetOperand(mlirOpResultGetOwner(x), 0);
  int64_t total = m * p->bits;
  p->wordBits = total % 32 == 0 ? 32 : total % 16 == 0 ? 16 : total % 8 == 0 ? 8 : 0;
  if (!p->wordBits)
    return false;
  int64_t k = total / p->wordBits;
  MlirType wordsType = mlirVectorTypeGet(
      1, &k, mlirIntegerTypeGet(p->e->ctx, (unsigned)p->wordBits));
  p->words = mlirTypeEqual(mlirValueGetType(x), wordsType)
                 ? x
                 : tilusEmitValue(p->e, "llvm.bitcast", 1, &x, wordsType, 0, NULL);
  return true;
}

static MlirValue word(Packed *p, int64_t index) {
  MlirValue w = tilusEmitExtract(p->e, p->words, index);
  if (p->wordBits < 32)
    w = tilusEmitValue(p->e, "arith.extui", 1, &w, p->i32, 0, NULL);
  return w;
}

// Element j as an i32 holding its n bits (zero-extended). An element may
// straddle two words (n = 3, 5, 6, 7).
static MlirValue element(Packed *p, int64_t j) {
  int64_t bit = j * p->bits, index = bit / p->wordBits;
  int offset = (int)(bit % p->wordBits);
  MlirValue v = word(p, index);
  if (offset)
    v = opc(p, "shrui", v, offset);
  if (offset + p->bits > p->wordBits)
    v = tilusEmitArith(p->e, "ori", v,
                       opc(p, "shli", word(p, index + 1), p->wordBits - offset));
  return opc(p, "andi", v, (1 << p->bits) - 1);
}

// PTX lop3.b32: the bitwise function `lut` (its truth table over the bits
// 0xF0, 0xCC, 0xAA of a, b, c) in one instruction. Written out because the
// back ends keep an AND and an XOR of two constants as two LOP3 (only one
// immediate fits a LOP3); with the constants in registers one serves.
static MlirValue lop3(Packed *p, MlirValue a, MlirValue b, MlirValue c, int lut) {
  char text[64];
  snprintf(text, sizeof text, "lop3.b32 $0, $1, $2, $3, 0x%02x;", lut & 0xFF);
  MlirValue operands[3] = {a, b, c};
  return tilusEmitInlineAsm(p->e, text, "=r,r,r,r", 3, operands, p->i32);
}

// (a & b) ^ c.
static MlirValue andXor(Packed *p, MlirValue a, int64_t b, int64_t c) {
  return lop3(p, a, c32(p, (int32_t)b), c32(p, (int32_t)c), 0x6A);
}

// Bits x .. x + 31 of the thread's bit stream (`numWords` 32-bit words;
// bits outside it read as 0, x may be negative): one funnel shift (SHF) at
// most.
static MlirValue window(Packed *p, int64_t numWords, int64_t x) {
  int64_t q = x >= 0 ? x / 32 : -((31 - x) / 32), r = x - 32 * q;
  bool hasLow = q >= 0 && q < numWords, hasHigh = q + 1 >= 0 && q + 1 < numWords;
  MlirValue low = hasLow ? word(p, q) : c32(p, 0);
  if (r == 0)
    return low;
  MlirValue high = hasHigh ? opc(p, "shli", word(p, q + 1), 32 - r) : c32(p, 0);
  if (!hasLow)
    return high;
  MlirValue shifted = opc(p, "shrui", low, r);
  return hasHigh ? tilusEmitArith(p->e, "ori", shifted, high) : shifted;
}

// The 16-bit float formats a pair of integers can be placed in: the
// mantissa bits below the exponent, the exponent bias, and the half that
// reads 2^mantissa (f16 0x6400 = 1024, bf16 0x4300 = 128).
typedef struct {
  int exponent, mantissa, bias;
  int64_t magic;
} HalfFormat;

static const HalfFormat kF16 = {5, 10, 15, 0x6400};
static const HalfFormat kBF16 = {8, 7, 127, 0x4300};

// Integers j and j + 1 (n bits, n <= h.mantissa) as the 16-bit float pair
// 2^mantissa + v in a word (signed: sign bits flipped): one window puts
// element j at bit 0, one element j + 1 at bit 16, and two LOP3 mask,
// combine, set the exponents and flip.
static MlirValue integerPair(Packed *p, int64_t m, int64_t j, int64_t flip, HalfFormat h) {
  int n = p->bits;
  int64_t numWords = m * n / 32, field = (1ll << n) - 1;
  MlirValue a = window(p, numWords, j * n);
  MlirValue b = window(p, numWords, (j + 1) * n - 16);
  MlirValue high = andXor(p, b, field << 16, h.magic | h.magic << 16 | flip | flip << 16);
  return lop3(p, a, c32(p, field), high, 0x6A);
}

// PTX prmt.b32 (default mode): byte k of the result is byte (selector >>
// 4k) & 7 of the eight bytes {a, b} (a's bytes first).
static MlirValue prmt(Packed *p, MlirValue a, MlirValue b, int64_t selector) {
  MlirValue operands[3] = {a, b, c32(p, selector)};
  return tilusEmitCallIntrinsic(p->e, "llvm.nvvm.prmt", 3, operands, p->i32);
}

// Bytes bytes[0..3] of the thread's stream (ascending, within eight bytes
// of bytes[0]'s word) as the bytes of one word: one PRMT of that word and,
// where the last reaches it, the next. The callers' bytes hold fields of
// the stream, so that next word exists whenever it is read.
static MlirValue gatherBytes(Packed *p, const int64_t bytes[4]) {
  int64_t base = bytes[0] / 4 * 4, selector = 0;
  for (int b = 0; b < 4; ++b)
    selector |= (bytes[b] - base) << (4 * b);
  MlirValue low = word(p, base / 4);
  return prmt(p, low, bytes[3] - base >= 4 ? word(p, base / 4 + 1) : low, selector);
}

// Integers j and j + 1 (n bits) as a 16-bit float pair, PRMT-gathered
// (see the file comment), where each field starts at bit o of its byte of
// the stream with o + n <= h.mantissa: one PRMT puts each field's byte and
// the next in its half and one LOP3 masks them, flips a signed value's sign
// bit and sets each half's exponent so that bit o is worth 1. The half
// reads 2^(mantissa - o) + v, and `bias` gets 2^(mantissa - o) + flip for
// each. Both fields lie within three consecutive bytes, so within the two
// words a PRMT reads. Returns a null value where a field starts too high in
// its byte. (Bringing that one field down by a funnel shift first and
// gathering the pair as here was no faster on the H100 than integerPair's
// two windows, and 2-5 % slower for 5-bit weights: bench/README.md.)
static MlirValue bytePair(Packed *p, int64_t j, int64_t flip, HalfFormat h,
                          double bias[2]) {
  int n = p->bits;
  int64_t field = (1ll << n) - 1, bytes[4], mask = 0, set = 0;
  double reads[2];
  for (int half = 0; half < 2; ++half) {
    int64_t bit = (j + half) * n, k = bit / 8;
    int o = (int)(bit % 8);
    if (o + n > h.mantissa)
      return (MlirValue){NULL};
    // The byte above is read only where the field reaches into it.
    bytes[2 * half] = k, bytes[2 * half + 1] = o + n > 8 ? k + 1 : k;
    mask |= field << (o + 16 * half);
    set |= ((int64_t)(h.bias + h.mantissa - o) << h.mantissa | flip << o) << (16 * half);
    reads[half] = ldexp(1.0, h.mantissa - o) + (double)flip;
  }
  bias[0] = reads[0], bias[1] = reads[1];
  return andXor(p, gatherBytes(p, bytes), (int32_t)mask, (int32_t)set);
}

// Floats j and j + 1 (sign, e <= 4 exponent bits, m mantissa bits; no inf
// or NaN encodings) as a pair of h (f16 or bf16, M mantissa bits) in a
// word, fields placed as placeFloat places them: one window puts element
// j's magnitude at bit M - m, one element j + 1's at bit 16 + M - m, a LOP3
// takes the low half of the first and the high half of the second; the
// signs (at bits M + e and 16 + M + e) move up to 15 and 31 by one shift,
// and two LOP3 keep the fields.
static MlirValue floatPair(Packed *p, int64_t m, int64_t j, TilusFloatFormat f,
                           HalfFormat h) {
  int n = p->bits, e = f.exponentBits, mb = f.mantissaBits, M = h.mantissa;
  int64_t numWords = m * n / 32;
  MlirValue lo = window(p, numWords, j * n - (M - mb));
  MlirValue hi = window(p, numWords, (j + 1) * n - (16 + M - mb));
  MlirValue both = lop3(p, lo, hi, c32(p, 0x0000FFFF), 0xE4); // c ? a : b
  int64_t mags = ((1ll << (e + mb)) - 1) << (M - mb);
  mags |= mags << 16;
  // e <= 4 here (formats with 5 exponent bits have inf), so the signs move.
  MlirValue signs = opc(p, "andi", opc(p, "shli", both, 15 - M - e), (int32_t)0x80008000);
  return lop3(p, both, c32(p, (int32_t)mags), signs, 0xEA); // (a & b) | c
}

static MlirValue isEqual(Packed *p, MlirValue x, int64_t c) {
  return tilusEmitCmp(p->e, TilusCmpEQ, x, c32(p, c));
}

static MlirValue select(Packed *p, MlirValue condition, MlirValue x,
                        MlirValue y) {
  MlirValue operands[3] = {condition, x, y};
  return tilusEmitValue(p->e, "arith.select", 3, operands, p->i32, 0, NULL);
}

// The fields of a !tilus.float element `x` moved into a wider IEEE format
// (f16 or f32: `wideExponent` and `wideMantissa` bits, sign highest).
static MlirValue placeFloat(Packed *p, MlirValue x, TilusFloatFormat f,
                            int wideExponent, int wideMantissa) {
  int n = p->bits, m = f.mantissaBits;
  int wideSign = wideExponent + wideMantissa;
  int64_t wideExpOnes = ((1ll << wideExponent) - 1) << wideMantissa;
  MlirValue sign = opc(p, "shli", opc(p, "andi", x, 1 << (n - 1)),
                       wideSign - (n - 1));
  MlirValue magnitude = opc(p, "andi", x, (1 << (n - 1)) - 1);
  MlirValue placed = opc(p, "shli", magnitude, wideMantissa - m);
  int64_t expOnes = ((1 << f.exponentBits) - 1) << m;
  if (tilusFloatFormatHasInfinity(f) && f.exponentBits != wideExponent) {
    // Exponent all ones: inf or NaN, the mantissa (the payload) kept. (With
    // equal exponent widths the placement above already says so.)
    MlirValue payload = opc(p, "shli", opc(p, "andi", x, (1 << m) - 1),
                            wideMantissa - m);
    placed = select(p, isEqual(p, opc(p, "andi", x, expOnes), expOnes),
                    opc(p, "ori", payload, wideExpOnes), placed);
  } else if (tilusFloatFormatHasNaN(f) && !tilusFloatFormatHasInfinity(f)) {
    // E4M3FN: S.1111.111 is the one NaN.
    placed = select(p, isEqual(p, magnitude, (1 << (n - 1)) - 1),
                    c32(p, wideExpOnes | 1ll << (wideMantissa - 1)), placed);
  }
  return tilusEmitArith(p->e, "ori", placed, sign);
}

// The two f16 pairs of a word of four FP8 values (`format`: "e4m3" or
// "e5m2"): cvt.rn.f16x2 of each 16-bit half, the lower byte to the lower
// half.
static void fp8Pairs(Packed *p, MlirValue w, const char *format, MlirValue *pairs) {
  for (int half = 0; half < 2; ++half) {
    char text[128];
    snprintf(text, sizeof text,
             "{ .reg .b16 l, h; mov.b32 {l, h}, $1; cvt.rn.f16x2.%sx2 $0, %s; }",
             format, half ? "h" : "l");
    pairs[half] = tilusEmitInlineAsm(p->e, text, "=r,r", 1, &w, p->i32);
  }
}

// The f16 pairs of the 8-bit integers of word `w` (unsigned, or signed with
// the sign bits already flipped), each as 2^10 + v in both halves.
static void bytePairs(Packed *p, MlirValue w, MlirValue *pairs) {
  MlirValue magic = c32(p, 0x64646464);
  pairs[0] = prmt(p, w, magic, 0x5140); // bytes 0, 1 under 0x64
  pairs[1] = prmt(p, w, magic, 0x7362); // bytes 2, 3
}

// vector<k x i32> from `count` scalars.
static MlirValue gather(Packed *p, MlirValue *scalars, int64_t count) {
  MlirType type = mlirVectorTypeGet(1, &count, p->i32);
  MlirValue v = tilusEmitSplatConstant(p->e, type, 0);
  for (int64_t i = 0; i < count; ++i)
    v = tilusEmitInsert(p->e, v, scalars[i], i);
  return v;
}

static MlirType vectorOf(MlirType element, int64_t m) {
  return mlirVectorTypeGet(1, &m, element);
}

// The halves of a 16-bit float placed as placeFloat places them (the
// value times 2^(B - bias)), times 2^(bias - B). Tagged under f16, so that
// an mma Dot may scale its f32 results instead. Not bf16: its placed values
// can be bf16 subnormals (e2m1's 0.5 is 2^-127), which the product would
// take unscaled.
static MlirValue rescaleFloats(TilusEmitter *e, MlirValue x, MlirType resultType,
                               TilusFloatFormat f, HalfFormat hf) {
  if (tilusFloatFormatGetBias(f) == hf.bias)
    return x;
  MlirValue operands[2] = {
      x, tilusEmitSplatConstant(e, resultType, ldexp(1.0, hf.bias - tilusFloatFormatGetBias(f)))};
  MlirNamedAttribute tag = tilusNamedAttr(e->ctx, TILUS_CAST_SCALE_ATTR, mlirUnitAttrGet(e->ctx));
  bool f16 = mlirTypeIsAF16(mlirShapedTypeGetElementType(resultType));
  return tilusEmitValue(e, "arith.mulf", 2, operands, resultType, f16 ? 1 : 0, &tag);
}

// x's m elements regrouped: element i of the result is x's slot[i].
static MlirValue toSlots(TilusEmitter *e, MlirValue x, MlirType resultType, int64_t m,
                         const int64_t *slot) {
  MlirValue both[2] = {x, x};
  MlirNamedAttribute mask = tilusNamedAttr(e->ctx, "mask", mlirDenseI64ArrayGet(e->ctx, m, slot));
  return tilusEmitValue(e, "vector.shuffle", 2, both, resultType, 1, &mask);
}

// 1-, 2- and 4-bit integers to f16 or bf16 (see the file comment): words
// of 32 / n elements, pairs (j, j + 16/n).
static MlirValue narrowIntegersToHalves(Packed *p, int64_t m, int64_t flip,
                                        MlirType resultType, HalfFormat hf) {
  TilusEmitter *e = p->e;
  int n = p->bits, mb = hf.mantissa;
  int64_t perWord = 32 / n, pairs = perWord / 2, numWords = m / perWord;
  int64_t count = m / 2;
  MlirValue *words = malloc(sizeof(MlirValue) * (size_t)count);
  double *bias = malloc(sizeof(double) * (size_t)m);
  int64_t *slot = malloc(sizeof(int64_t) * (size_t)m);
  for (int64_t k = 0; k < numWords; ++k) {
    MlirValue w = word(p, k), shifted = w;
    int base = 0; // how far `shifted` is shifted right
    for (int64_t j = 0; j < pairs; ++j) {
      int o = (int)(j * n) - base;
      if (o + n > mb) { // the field would reach the exponent: take it lower
        // f16: one shift by 8 serves every field above it; bf16's 7
        // mantissa bits take a shift for each run of fields that fits them.
        base = mb == 10 ? 8 : (int)(j * n);
        shifted = opc(p, "shrui", w, base);
        o = (int)(j * n) - base;
      }
      // The exponent that makes bit o of the mantissa worth 1: the half
      // reads 2^(mb-o) + v exactly (o + n <= mb).
      int64_t magic = (int64_t)(hf.bias + mb - o) << mb;
      int64_t field = ((1ll << n) - 1) << o, flipped = flip << o;
      int64_t r = k * pairs + j;
      words[r] = andXor(p, shifted, field | field << 16,
                        magic | magic << 16 | flipped | flipped << 16);
      for (int h = 0; h < 2; ++h) {
        bias[2 * r + h] = -(ldexp(1.0, mb - o) + (double)flip);
        slot[k * perWord + j + h * pairs] = 2 * r + h;
      }
    }
  }
  MlirValue packed = gather(p, words, count);
  MlirValue halves =
      tilusEmitValue(e, "llvm.bitcast", 1, &packed, resultType, 0, NULL);
  // Tagged, so that the Dot lowering moves only this exact addition into its
  // accumulator (MmaDot.c, peelBias), never a user's.
  MlirValue addOperands[2] = {halves, tilusEmitFloatVectorConstant(e, resultType, bias)};
  MlirNamedAttribute tag = tilusNamedAttr(e->ctx, TILUS_CAST_BIAS_ATTR,
                                          mlirUnitAttrGet(e->ctx));
  MlirValue values =
      tilusEmitValue(e, "arith.addf", 2, addOperands, resultType, 1, &tag);
  MlirValue result = toSlots(e, values, resultType, m, slot);
  free(words), free(bias), free(slot);
  return result;
}

// A word holding element j's field at bit `at` and element j + 4's at bit
// at + 16: for 4-bit fields, word j / 8 itself; for 6-bit ones (24 bits
// apart, at the same bit of their bytes), one PRMT of the two words that
// hold their bytes.
static MlirValue fieldsApart16(Packed *p, int64_t j, int *at) {
  int n = p->bits;
  int64_t bit = j * n;
  if (n == 4) {
    *at = (int)(bit % 32);
    return word(p, bit / 32);
  }
  int64_t k = bit / 8, spill = bit % 8 + n > 8; // the field reaches the next byte
  int64_t bytes[4] = {k, k + spill, k + 3, k + 3 + spill};
  *at = (int)(bit % 8);
  return gatherBytes(p, bytes);
}

// 4- and 6-bit floats without inf/NaN encodings to f16 or bf16 (see the
// file comment): pairs (j, j + 4) of each run of eight elements, their
// fields brought 16 bits apart (fieldsApart16). One shift puts both
// magnitudes where the 16-bit format wants them (bit M - m of each half),
// one puts both signs at bits 15 and 31, and a mask of the signs and one
// LOP3 keep the fields (two LOP3 in SASS). The halves read the values
// times 2^(B - bias), as floatPair's do, and rescaleFloats follows; the
// shuffle puts each half in its slot.
static MlirValue floatsApartToHalves(Packed *p, int64_t m, TilusFloatFormat f,
                                     MlirType resultType, HalfFormat hf) {
  TilusEmitter *e = p->e;
  int n = p->bits, M = hf.mantissa, mb = f.mantissaBits, eb = f.exponentBits;
  int64_t count = m / 2;
  int64_t mags = ((1ll << (eb + mb)) - 1) << (M - mb);
  mags |= mags << 16;
  MlirValue *words = malloc(sizeof(MlirValue) * (size_t)count);
  int64_t *slot = malloc(sizeof(int64_t) * (size_t)m);
  for (int64_t g = 0; g < m / 8; ++g) {
    for (int64_t i = 0; i < 4; ++i) {
      int at = 0;
      MlirValue w = fieldsApart16(p, 8 * g + i, &at);
      MlirValue x = shiftLeft(p, w, M - mb - at);       // both magnitudes
      MlirValue signs = opc(p, "andi", shiftLeft(p, w, 16 - n - at), (int32_t)0x80008000);
      int64_t r = 4 * g + i;
      words[r] = lop3(p, x, c32(p, (int32_t)mags), signs, 0xEA); // (a & b) | c
      slot[8 * g + i] = 2 * r;
      slot[8 * g + i + 4] = 2 * r + 1;
    }
  }
  MlirValue packed = gather(p, words, count);
  MlirValue halves = tilusEmitValue(e, "llvm.bitcast", 1, &packed, resultType, 0, NULL);
  MlirValue result = toSlots(e, rescaleFloats(e, halves, resultType, f, hf), resultType, m, slot);
  free(words), free(slot);
  return result;
}

// Integers of n <= 8 bits (words of p) to 8-bit integers: m elements, four
// to a word (see the file comment).
static MlirValue integersToBytes(Packed *p, int64_t m, int64_t flip, MlirType resultType) {
  int n = p->bits;
  int64_t numOut = m / 4, numWords = m * n / 32, field = (1ll << n) - 1;
  MlirValue *out = malloc(sizeof(MlirValue) * (size_t)numOut);
  for (int64_t k = 0; k < numOut; ++k) {
    if (n == 8) {
      out[k] = word(p, k);
    } else if (n == 4 && k % 2 == 0) {
      // Word k / 2 holds eight nibbles: outputs k and k + 1.
      MlirValue x = word(p, k / 2);
      int64_t f = flip * 0x01010101;
      MlirValue even = andXor(p, x, 0x0F0F0F0F, f);
      MlirValue odd = andXor(p, opc(p, "shrui", x, 4), 0x0F0F0F0F, f);
      out[k] = prmt(p, even, odd, 0x5140);     // nibbles 0 1 2 3
      out[k + 1] = prmt(p, even, odd, 0x7362); // nibbles 4 5 6 7
    } else if (n != 4) {
      int64_t j = 4 * k, f = flip | flip << 16;
      MlirValue pair[2];
      for (int i = 0; i < 2; ++i) {
        MlirValue a = window(p, numWords, (j + i) * n);
        MlirValue b = window(p, numWords, (j + i + 2) * n - 16);
        // (a & field) | (b & field << 16), sign bits flipped: two LOP3.
        MlirValue high = andXor(p, b, field << 16, f);
        pair[i] = lop3(p, a, c32(p, field), high, 0x6A);
      }
      out[k] = prmt(p, pair[0], pair[1], 0x6240);
    }
  }
  // Sign extension (flip is 0 for unsigned and for 8-bit sources).
  for (int64_t k = 0; flip && k < numOut; ++k) {
    int64_t bias = (0x80 - flip) * 0x01010101ll;
    out[k] = opc(p, "xori", opc(p, "addi", out[k], (int32_t)bias), (int32_t)0x80808080);
  }
  MlirValue words = gather(p, out, numOut);
  free(out);
  return tilusEmitValue(p->e, "llvm.bitcast", 1, &words, resultType, 0, NULL);
}

MlirValue tilusEmitFastCast(TilusEmitter *e, MlirValue x, MlirType from,
                            MlirType to, MlirType resultType) {
  MlirValue none = {NULL};
  bool isFloat = tilusTypeIsAFloat(from);
  int n = (int)tilusElementTypeGetBitWidth(from);
  if (!(isFloat || (mlirTypeIsAInteger(from) && n >= 1 && n <= 8)))
    return none;
  if (!isFloat && mlirTypeIsAInteger(to) && mlirIntegerTypeGetWidth(to) == 8) {
    int64_t m = mlirShapedTypeGetDimSize(resultType, 0);
    Packed p = {e, mlirIntegerTypeGet(e->ctx, 32), {NULL}, 0, n};
    if (m % 8 != 0 || !packWords(&p, x, m) || p.wordBits != 32)
      return none;
    // A signed source's fields are sign-extended; an unsigned one's are
    // zero-extended (to a signed or unsigned byte alike).
    int64_t flip = !tilusElementIsUnsigned(from) && n < 8 ? 1ll << (n - 1) : 0;
    return integersToBytes(&p, m, flip, resultType);
  }
  if (!mlirTypeIsAF16(to) && !mlirTypeIsABF16(to) && !mlirTypeIsAF32(to))
    return none;
  TilusFloatFormat f = {0, 0};
  if (isFloat) {
    int64_t exponent = 0, mantissa = 0;
    tilusFloatTypeGetFormat(from, &exponent, &mantissa);
    f = (TilusFloatFormat){(int)exponent, (int)mantissa};
  }
  int64_t m = mlirShapedTypeGetDimSize(resultType, 0);
  Packed p = {e, mlirIntegerTypeGet(e->ctx, 32), {NULL}, 0, n};
  if (!packWords(&p, x, m))
    return none;
  int64_t flip =
      !isFloat && !tilusElementIsUnsigned(from) ? 1ll << (n - 1) : 0;
  bool f16 = mlirTypeIsAF16(to), bf16 = mlirTypeIsABF16(to);
  HalfFormat hf = f16 ? kF16 : kBF16;
  if ((f16 || bf16) && !isFloat && (n == 1 || n == 2 || n == 4) && p.wordBits == 32)
    return narrowIntegersToHalves(&p, m, flip, resultType, hf);
  if ((f16 || bf16) && isFloat && (n == 4 || n == 6) && p.wordBits == 32 &&
      m % 8 == 0 && !tilusFloatFormatHasInfinity(f) && !tilusFloatFormatHasNaN(f))
    return floatsApartToHalves(&p, m, f, resultType, hf);
  MlirValue *scalars = malloc(sizeof(MlirValue) * (size_t)m);
  MlirValue result;

  if (mlirTypeIsAF16(to) && !isFloat && n == 8 && p.wordBits == 32) {
    int64_t numWords = m / 4;
    for (int64_t k = 0; k < numWords; ++k) {
      MlirValue w = word(&p, k);
      if (flip)
        w = opc(&p, "xori", w, (int32_t)0x80808080);
      bytePairs(&p, w, scalars + 2 * k);
    }
    MlirValue words = gather(&p, scalars, m / 2);
    free(scalars);
    result = tilusEmitValue(e, "llvm.bitcast", 1, &words, resultType, 0, NULL);
    return tilusEmitArith(e, "subf", result,
                          tilusEmitSplatConstant(e, resultType, 1024.0 + (double)flip));
  }
  bool e4m3 = f.exponentBits == 4 && f.mantissaBits == 3;
  bool e5m2 = f.exponentBits == 5 && f.mantissaBits == 2;
  if (mlirTypeIsAF16(to) && isFloat && (e4m3 || e5m2) && p.wordBits == 32 &&
      e->lowering->target->hasCvtF16x2FromF8x2) {
    for (int64_t k = 0; k < m / 4; ++k)
      fp8Pairs(&p, word(&p, k), e4m3 ? "e4m3" : "e5m2", scalars + 2 * k);
    MlirValue words = gather(&p, scalars, m / 2);
    free(scalars);
    return tilusEmitValue(e, "llvm.bitcast", 1, &words, resultType, 0, NULL);
  }
  // Two f16 or bf16 per 32-bit word: integers as 2^M + v (bf16: of up to
  // 7 bits, its mantissa; 8-bit ones take the f32 route below), floats whose
  // exponent fits.
  if (m % 2 == 0 && ((f16 && (!isFloat || f.exponentBits <= 5)) ||
                     (bf16 && (isFloat ? f.exponentBits <= 8 : n <= 7)))) {
    // What each integer's half reads above its value (2^M + flip, or less
    // for a byte-gathered pair's fields).
    double *bias = malloc(sizeof(double) * (size_t)m);
    for (int64_t j = 0; j < m; ++j)
      bias[j] = ldexp(1.0, hf.mantissa) + (double)flip;
    for (int64_t i = 0; i < m / 2; ++i) {
      if (!isFloat && p.wordBits == 32) {
        scalars[i] = bytePair(&p, 2 * i, flip, hf, bias + 2 * i);
        if (!scalars[i].ptr)
          scalars[i] = integerPair(&p, m, 2 * i, flip, hf);
        continue;
      }
      if (isFloat && p.wordBits == 32 && !tilusFloatFormatHasInfinity(f) &&
          !tilusFloatFormatHasNaN(f)) {
        scalars[i] = floatPair(&p, m, 2 * i, f, hf);
        continue;
      }
      MlirValue lo = element(&p, 2 * i), hi = element(&p, 2 * i + 1);
      if (isFloat) {
        lo = placeFloat(&p, lo, f, hf.exponent, hf.mantissa);
        hi = placeFloat(&p, hi, f, hf.exponent, hf.mantissa);
      }
      MlirValue w = tilusEmitArith(e, "ori", lo, opc(&p, "shli", hi, 16));
      if (flip)
        w = opc(&p, "xori", w, flip | flip << 16);
      if (!isFloat)
        w = opc(&p, "ori", w, (int32_t)(hf.magic | hf.magic << 16));
      scalars[i] = w;
    }
    MlirValue words = gather(&p, scalars, m / 2);
    result = tilusEmitValue(e, "llvm.bitcast", 1, &words, resultType, 0, NULL);
    if (!isFloat)
      result = tilusEmitArith(e, "subf", result,
                              tilusEmitFloatVectorConstant(e, resultType, bias));
    else
      result = rescaleFloats(e, result, resultType, f, hf);
    free(scalars), free(bias);
    return result;
  }

  // One f32 per element; bf16 and (for e >= 6 or odd counts) f16 from it.
  for (int64_t j = 0; j < m; ++j) {
    MlirValue v = element(&p, j);
    if (isFloat) {
      v = placeFloat(&p, v, f, 8, 23);
    } else {
      if (flip)
        v = opc(&p, "xori", v, flip);
      v = opc(&p, "ori", v, 0x4B000000);
    }
    scalars[j] = v;
  }
  MlirValue words = gather(&p, scalars, m);
  free(scalars);
  MlirType f32 = vectorOf(mlirF32TypeGet(e->ctx), m);
  result = tilusEmitValue(e, "arith.bitcast", 1, &words, f32, 0, NULL);
  if (!isFloat)
    result = tilusEmitArith(e, "subf", result,
                            tilusEmitSplatConstant(e, f32, 8388608.0 + (double)flip));
  else
    result = tilusEmitArith(
        e, "mulf", result,
        tilusEmitSplatConstant(e, f32,
                               ldexp(1.0, 127 - tilusFloatFormatGetBias(f))));
  if (mlirTypeIsAF16(to))
    return tilusEmitValue(e, "arith.truncf", 1, &result, resultType, 0, NULL);
  if (mlirTypeIsABF16(to)) {
    MlirType i32s = vectorOf(p.i32, m);
    MlirValue bits = tilusEmitValue(e, "arith.bitcast", 1, &result, i32s, 0, NULL);
    bits = tilusEmitArith(e, "shrui", bits, tilusEmitSplatConstant(e, i32s, 16));
    bits = tilusEmitValue(e, "arith.trunci", 1, &bits,
                          vectorOf(mlirIntegerTypeGet(e->ctx, 16), m), 0, NULL);
    return tilusEmitValue(e, "arith.bitcast", 1, &bits, resultType, 0, NULL);
  }
  return result;
}
