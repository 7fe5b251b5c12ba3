//===- LayoutFuzzer.c - libFuzzer harness for the layout algebra ----------===//
//
// The input is "F[|G[|P]]": F and G are layout texts, P raw bytes that pick
// the parameters of reduce/swizzle and the sampled (thread, slot) points
// (missing bytes come from a hash of the input). Every layout that parses,
// and every layout the algebra derives from it, must:
//  - print to text that parses back to an equal layout and prints the same;
//  - map sampled (t, i) inside its shape, with locate() giving back the
//    lowest (t, i) of that index and thread modes that add up to f(t, 0);
// and the algebra must keep its laws: composition by the paper's formula,
// identity local(1), associativity, (f / g) . g == f, and isDivisibleBy
// agreeing with divide. A broken law or round trip calls abort(), so
// libFuzzer reports it as a crash.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Layout.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Longer texts only make slower inputs: no rule of the grammar needs more.
enum { MAX_INPUT = 4096 };
// Below this many (t, i) pairs tilusLayoutEqual never gives its "safe"
// false answer, so a disagreement with the sampled points is a finding.
#define EXACT_EQUAL_LIMIT ((int64_t)1 << 16)

typedef struct {
  const uint8_t *bytes;
  size_t size, pos;
  uint64_t state; // a hash of the input, when the bytes run out
} Params;

static unsigned next(Params *p) {
  if (p->pos < p->size)
    return p->bytes[p->pos++];
  p->state = p->state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(p->state >> 56);
}

// A value in [0, n), n >= 1, biased to the ends of the range where the
// carries and boundaries are.
static int64_t pick(Params *p, int64_t n) {
  unsigned b = next(p);
  switch (b & 3) {
  case 0:
    return 0;
  case 1:
    return n - 1;
  default: {
    uint64_t v = 0;
    for (int k = 0; k < 5; ++k)
      v = (v << 8) | next(p);
    return (int64_t)(v % (uint64_t)n);
  }
  }
}

static void fail(const char *what, const TilusLayout *a, const TilusLayout *b) {
  char *ta = a ? tilusLayoutPrint(a) : NULL;
  char *tb = b ? tilusLayoutPrint(b) : NULL;
  fprintf(stderr, "layout fuzzer: %s\n  a = %s\n  b = %s\n", what,
          ta ? ta : "(none)", tb ? tb : "(none)");
  free(ta);
  free(tb);
  abort();
}

#define REQUIRE(cond, what, a, b)                                              \
  do {                                                                         \
    if (!(cond))                                                               \
      fail(what, a, b);                                                        \
  } while (0)

static bool sameIndex(const int64_t *x, const int64_t *y, int64_t rank) {
  return memcmp(x, y, (size_t)rank * sizeof(int64_t)) == 0;
}

static bool sameShape(const TilusLayout *a, const TilusLayout *b) {
  int64_t rank = tilusLayoutGetRank(a);
  if (rank != tilusLayoutGetRank(b) ||
      tilusLayoutGetNumThreads(a) != tilusLayoutGetNumThreads(b) ||
      tilusLayoutGetLocalSize(a) != tilusLayoutGetLocalSize(b))
    return false;
  for (int64_t d = 0; d < rank; ++d)
    if (tilusLayoutGetDim(a, d) != tilusLayoutGetDim(b, d))
      return false;
  return true;
}

// Whether `a` and `b` must be equal functions: asserts that tilusLayoutEqual
// agrees with sampled points where its answer is exact.
static void requireEqual(const char *law, const TilusLayout *a,
                         const TilusLayout *b, Params *p) {
  if (tilusLayoutEqual(a, b))
    return;
  REQUIRE(sameShape(a, b), law, a, b);
  int64_t rank = tilusLayoutGetRank(a);
  int64_t T = tilusLayoutGetNumThreads(a), m = tilusLayoutGetLocalSize(a);
  for (int k = 0; k < 16; ++k) {
    int64_t t = pick(p, T), i = pick(p, m);
    int64_t x[TILUS_LAYOUT_MAX_RANK], y[TILUS_LAYOUT_MAX_RANK];
    tilusLayoutEvaluate(a, t, i, x);
    tilusLayoutEvaluate(b, t, i, y);
    REQUIRE(sameIndex(x, y, rank), law, a, b);
  }
  // Equal may answer a safe false only past its walk limit.
  REQUIRE(T > EXACT_EQUAL_LIMIT / m, law, a, b);
}

static bool hasSwizzle(const TilusLayout *layout) {
  intptr_t n = tilusLayoutGetNumFactors(layout);
  for (intptr_t k = 0; k < n; ++k) {
    TilusLayoutFactor factor;
    tilusLayoutGetFactor(layout, k, &factor);
    if (factor.kind == TilusLayoutFactorSwizzle)
      return true;
  }
  return false;
}

// The checks every layout must pass on its own.
static void checkLayout(const TilusLayout *layout, Params *p) {
  int64_t rank = tilusLayoutGetRank(layout);
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  REQUIRE(rank >= 1 && rank <= TILUS_LAYOUT_MAX_RANK, "rank out of range",
          layout, NULL);
  REQUIRE(T >= 1 && m >= 1, "empty thread or slot range", layout, NULL);
  REQUIRE(tilusLayoutIsValid(layout), "a built layout is not valid", layout,
          NULL);
  int64_t elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    REQUIRE(tilusLayoutGetDim(layout, d) >= 1, "empty dimension", layout, NULL);
    elements *= tilusLayoutGetDim(layout, d);
  }
  REQUIRE(elements == tilusLayoutGetNumElements(layout),
          "element count is not the product of the shape", layout, NULL);

  // Text round trip: parse(print(L)) == L, and the text is canonical.
  char *text = tilusLayoutPrint(layout);
  REQUIRE(text != NULL, "print failed", layout, NULL);
  TilusLayoutError err = {{0}};
  TilusLayout *again = tilusLayoutParse(text, strlen(text), &err);
  if (!again) {
    fprintf(stderr, "layout fuzzer: printed text does not parse: %s\n",
            err.message);
    fail("print -> parse failed", layout, NULL);
  }
  requireEqual("print -> parse gives another layout", layout, again, p);
  char *text2 = tilusLayoutPrint(again);
  REQUIRE(text2 && strcmp(text, text2) == 0, "canonical text is not stable",
          layout, again);
  free(text2);
  free(text);
  tilusLayoutDestroy(again);

  // Thread modes, when there are any, give f(t, 0); and f(t, i) = f(t, 0) +
  // f(0, i) for a layout without swizzle.
  TilusLayoutThreadMode modes[64];
  intptr_t numModes = tilusLayoutGetThreadModes(layout, modes, 64);
  bool swizzled = hasSwizzle(layout);
  REQUIRE(numModes >= 0 || swizzled || numModes == -1,
          "thread modes: bad count", layout, NULL);

  for (int k = 0; k < 8; ++k) {
    int64_t t = pick(p, T), i = pick(p, m);
    int64_t x[TILUS_LAYOUT_MAX_RANK];
    tilusLayoutEvaluate(layout, t, i, x);
    for (int64_t d = 0; d < rank; ++d)
      REQUIRE(x[d] >= 0 && x[d] < tilusLayoutGetDim(layout, d),
              "f(t, i) outside the shape", layout, NULL);
    int64_t t2 = -1, i2 = -1;
    REQUIRE(tilusLayoutLocate(layout, x, &t2, &i2),
            "locate fails on an index the layout holds", layout, NULL);
    REQUIRE(t2 >= 0 && t2 < T && i2 >= 0 && i2 < m,
            "locate gives a (t, i) out of range", layout, NULL);
    REQUIRE(t2 < t || (t2 == t && i2 <= i),
            "locate does not give the lowest (t, i)", layout, NULL);
    int64_t y[TILUS_LAYOUT_MAX_RANK];
    tilusLayoutEvaluate(layout, t2, i2, y);
    REQUIRE(sameIndex(x, y, rank), "f(locate(x)) != x", layout, NULL);
    if (numModes >= 0 && !swizzled) {
      int64_t sum[TILUS_LAYOUT_MAX_RANK] = {0}, f0[TILUS_LAYOUT_MAX_RANK],
              fi[TILUS_LAYOUT_MAX_RANK];
      for (intptr_t q = 0; q < numModes; ++q) {
        REQUIRE(modes[q].divisor >= 1 && modes[q].modulus >= 1 &&
                    modes[q].dim >= 0 && modes[q].dim < rank,
                "thread mode out of range", layout, NULL);
        sum[modes[q].dim] +=
            ((t / modes[q].divisor) % modes[q].modulus) * modes[q].stride;
      }
      tilusLayoutEvaluate(layout, t, 0, f0);
      REQUIRE(sameIndex(sum, f0, rank), "thread modes do not give f(t, 0)",
              layout, NULL);
      tilusLayoutEvaluate(layout, 0, i, fi);
      for (int64_t d = 0; d < rank; ++d)
        REQUIRE(x[d] == f0[d] + fi[d], "f(t, i) != f(t, 0) + f(0, i)", layout,
                NULL);
    }
  }
  // A shape index outside the shape is held by nobody.
  int64_t outside[TILUS_LAYOUT_MAX_RANK] = {0};
  int64_t d = pick(p, rank);
  outside[d] = tilusLayoutGetDim(layout, d);
  int64_t t3, i3;
  REQUIRE(!tilusLayoutLocate(layout, outside, &t3, &i3),
          "locate finds an index outside the shape", layout, NULL);

  // Queries without a law to check here still run under the sanitizers.
  int64_t v = tilusLayoutGetContiguity(layout);
  REQUIRE(v >= 1 && m % v == 0 && (v & (v - 1)) == 0,
          "contiguity is not a power of two dividing m", layout, NULL);
  REQUIRE(tilusLayoutRunsAreContiguous(layout, 1), "runs of 1 not contiguous",
          layout, NULL);
  (void)tilusLayoutRunsAreContiguous(layout, v);
  (void)tilusLayoutRunsAreContiguous(layout, 1 + pick(p, m));
  intptr_t numFactors = tilusLayoutGetNumFactors(layout);
  REQUIRE(numFactors >= 1, "no factors", layout, NULL);
  for (intptr_t k = 0; k < numFactors; ++k) {
    TilusLayoutFactor factor;
    tilusLayoutGetFactor(layout, k, &factor);
    if (factor.kind == TilusLayoutFactorSwizzle)
      REQUIRE(factor.inner != NULL, "swizzle factor without inner layout",
              layout, NULL);
  }

  // The mma.sync f16 accumulator pattern (Layout.h's example).
  static const TilusLayoutThreadMode lane[] = {{1, 4, 1, 2}, {4, 8, 0, 1}};
  static const TilusLayoutThreadMode slot[] = {{1, 2, 1, 1}, {2, 2, 0, 8}};
  TilusLayoutFragment fragment = {32, 4, 2, 2, lane, slot};
  if (T % 32 == 0 && m % 4 == 0 && T <= 4096 && m <= 4096) {
    int64_t *slots = malloc((size_t)m * sizeof(int64_t));
    int64_t *bases = malloc((size_t)(T / 32 * (m / 4) * rank) * sizeof(int64_t));
    if (slots && bases)
      (void)tilusLayoutMatchFragment(layout, &fragment, slots, bases);
    free(slots);
    free(bases);
  } else {
    // Without outputs the answer costs no work per slot (layout-1).
    (void)tilusLayoutMatchFragment(layout, &fragment, NULL, NULL);
  }
}

// h = f.g by the composition formula, at sampled points.
static void checkComposition(const TilusLayout *h, const TilusLayout *f,
                             const TilusLayout *g, Params *p) {
  int64_t rank = tilusLayoutGetRank(h);
  int64_t rf = tilusLayoutGetRank(f), rg = tilusLayoutGetRank(g);
  int64_t Tg = tilusLayoutGetNumThreads(g), mg = tilusLayoutGetLocalSize(g);
  REQUIRE(rank == (rf > rg ? rf : rg), "compose: wrong rank", f, g);
  REQUIRE(tilusLayoutGetNumThreads(h) == tilusLayoutGetNumThreads(f) * Tg &&
              tilusLayoutGetLocalSize(h) == tilusLayoutGetLocalSize(f) * mg,
          "compose: wrong T or m", f, g);
  for (int k = 0; k < 8; ++k) {
    int64_t t = pick(p, tilusLayoutGetNumThreads(h));
    int64_t i = pick(p, tilusLayoutGetLocalSize(h));
    int64_t xh[TILUS_LAYOUT_MAX_RANK], xf[TILUS_LAYOUT_MAX_RANK],
        xg[TILUS_LAYOUT_MAX_RANK];
    tilusLayoutEvaluate(h, t, i, xh);
    tilusLayoutEvaluate(f, t / Tg, i / mg, xf);
    tilusLayoutEvaluate(g, t % Tg, i % mg, xg);
    for (int64_t d = 0; d < rank; ++d) {
      // Broadcast: the lower-rank operand has leading dimensions of size 1.
      int64_t df = d - (rank - rf), dg = d - (rank - rg);
      int64_t vf = df >= 0 ? xf[df] : 0;
      int64_t vg = dg >= 0 ? xg[dg] : 0;
      int64_t sg = dg >= 0 ? tilusLayoutGetDim(g, dg) : 1;
      REQUIRE(xh[d] == vf * sg + vg, "compose: h(t,i) != f(..) * Sg + g(..)",
              f, g);
    }
  }
}

// The algebra on f and g: composition, its identity and associativity,
// division, broadcast, reduce and swizzle. Derived layouts are checked too.
static void checkAlgebra(const TilusLayout *f, const TilusLayout *g,
                         Params *p) {
  TilusLayoutError err;
  TilusLayout *fg = tilusLayoutCompose(f, g);
  if (fg) {
    checkComposition(fg, f, g, p);
    checkLayout(fg, p);
    // (f / g) exists for f.g; when found, (fg / g) . g == fg.
    TilusLayout *q = tilusLayoutDivide(fg, g, &err);
    if (q) {
      TilusLayout *back = tilusLayoutCompose(q, g);
      REQUIRE(back, "(f.g / g) . g does not compose", fg, g);
      requireEqual("(f.g / g) . g != f.g", back, fg, p);
      tilusLayoutDestroy(back);
      tilusLayoutDestroy(q);
    }
    TilusLayout *gf = tilusLayoutCompose(g, f);
    TilusLayout *left = gf ? tilusLayoutCompose(f, gf) : NULL;
    TilusLayout *right = tilusLayoutCompose(fg, f);
    if (left && right)
      requireEqual("f.(g.f) != (f.g).f", left, right, p);
    tilusLayoutDestroy(left);
    tilusLayoutDestroy(right);
    tilusLayoutDestroy(gf);
    tilusLayoutDestroy(fg);
  }

  // local(1) is the identity on both sides.
  int64_t one = 1;
  TilusLayout *id = tilusLayoutCreateLocal(1, &one, NULL);
  TilusLayout *fi = tilusLayoutCompose(f, id), *iF = tilusLayoutCompose(id, f);
  REQUIRE(fi && iF, "composing with local(1) failed", f, NULL);
  requireEqual("f.local(1) != f", fi, f, p);
  requireEqual("local(1).f != f", iF, f, p);
  tilusLayoutDestroy(fi);
  tilusLayoutDestroy(iF);
  tilusLayoutDestroy(id);

  // Division of f by g: the result, when found, composes back to f.
  TilusLayout *q = tilusLayoutDivide(f, g, &err);
  REQUIRE((q != NULL) == tilusLayoutIsDivisibleBy(f, g),
          "isDivisibleBy disagrees with divide", f, g);
  if (q) {
    checkLayout(q, p);
    TilusLayout *back = tilusLayoutCompose(q, g);
    REQUIRE(back, "(f / g) . g does not compose", f, g);
    requireEqual("(f / g) . g != f", back, f, p);
    tilusLayoutDestroy(back);
    tilusLayoutDestroy(q);
  }

  int64_t rank = tilusLayoutGetRank(f);
  TilusLayout *wide = tilusLayoutBroadcast(f, rank + 1, &err);
  if (wide) {
    checkLayout(wide, p);
    tilusLayoutDestroy(wide);
  }

  // reduce over the dims of a byte's bit mask; swizzle at a picked dim.
  unsigned mask = next(p);
  int64_t dims[TILUS_LAYOUT_MAX_RANK], numDims = 0;
  for (int64_t d = 0; d < rank; ++d)
    if (mask & (1u << d))
      dims[numDims++] = d;
  TilusLayout *reduced = tilusLayoutReduce(f, numDims, dims, &err);
  if (reduced) {
    REQUIRE(tilusLayoutGetRank(reduced) == rank - numDims,
            "reduce: wrong rank", f, reduced);
    checkLayout(reduced, p);
    tilusLayoutDestroy(reduced);
  }
  // The broadcast queries of the elementwise ops: the source layout for
  // those dims must be readable by f's threads in place, and f by itself
  // with every slot its own.
  TilusLayout *source = tilusLayoutBroadcastSource(f, numDims, dims, &err);
  int64_t m = tilusLayoutGetLocalSize(f);
  int64_t *slots = m > 0 && m <= (1 << 20) ? malloc(sizeof(int64_t) * (size_t)m)
                                           : NULL;
  if (slots) {
    if (source) {
      REQUIRE(tilusLayoutBroadcastSlots(f, source, slots, &err),
              "broadcast source: not readable in place", f, source);
      for (int64_t i = 0; i < m; ++i)
        REQUIRE(slots[i] >= 0 && slots[i] < tilusLayoutGetLocalSize(source),
                "broadcast source: slot out of range", f, source);
    }
    if (tilusLayoutBroadcastSlots(f, f, slots, &err))
      for (int64_t i = 0; i < m; ++i)
        REQUIRE(slots[i] == i, "broadcast of itself: not the identity", f, f);
    free(slots);
  }
  tilusLayoutDestroy(source);
  int64_t dim = (int64_t)(next(p) % 10), logStep = (int64_t)(next(p) % 8);
  TilusLayout *swizzled = tilusLayoutSwizzle(f, dim, logStep, &err);
  if (swizzled) {
    checkLayout(swizzled, p);
    tilusLayoutDestroy(swizzled);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT)
    return 0;
  const char *text = (const char *)data;
  const char *bar = memchr(text, '|', size);
  size_t lengthF = bar ? (size_t)(bar - text) : size;
  const char *textG = bar ? bar + 1 : NULL;
  size_t lengthG = 0;
  const uint8_t *rest = NULL;
  size_t restSize = 0;
  if (textG) {
    const char *bar2 = memchr(textG, '|', size - lengthF - 1);
    lengthG = bar2 ? (size_t)(bar2 - textG) : size - lengthF - 1;
    if (bar2) {
      rest = (const uint8_t *)bar2 + 1;
      restSize = size - (size_t)(rest - data);
    }
  }
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (size_t k = 0; k < size; ++k)
    hash = (hash ^ data[k]) * 1099511628211ull;
  Params p = {rest, restSize, 0, hash};

  TilusLayoutError err;
  // The parser reads exactly `length` bytes: give it an unterminated copy so
  // that ASan catches a read past the end.
  char *copyF = malloc(lengthF ? lengthF : 1);
  if (!copyF)
    return 0;
  memcpy(copyF, text, lengthF);
  TilusLayout *f = tilusLayoutParse(copyF, lengthF, &err);
  free(copyF);
  if (!f)
    return 0;
  checkLayout(f, &p);
  TilusLayout *g = NULL;
  if (textG) {
    char *copyG = malloc(lengthG ? lengthG : 1);
    if (copyG) {
      memcpy(copyG, textG, lengthG);
      g = tilusLayoutParse(copyG, lengthG, &err);
      free(copyG);
    }
  }
  if (g)
    checkLayout(g, &p);
  checkAlgebra(f, g ? g : f, &p);
  tilusLayoutDestroy(g);
  tilusLayoutDestroy(f);
  return 0;
}
