//===- LayoutModesTest.c - Thread modes against evaluation ----------------===//
//
// tilusLayoutGetThreadModes must reproduce f(t, 0) for every thread, and
// f(t, i) = f(t, 0) + f(0, i) must hold, for the paper's layouts and for
// many generated ones; layouts with a swizzle have no modes.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Layout.h"

#include <stdio.h>
#include <string.h>

static int numPassed, numFailed;

static void check(bool ok, const char *text, const char *what) {
  if (ok) {
    numPassed++;
    return;
  }
  numFailed++;
  fprintf(stderr, "FAILED: %s: %s\n", text, what);
}

static void checkLayout(const char *text) {
  TilusLayout *layout = tilusLayoutParse(text, strlen(text), NULL);
  if (!layout) {
    check(false, text, "does not parse");
    return;
  }
  TilusLayoutThreadMode modes[64];
  intptr_t n = tilusLayoutGetThreadModes(layout, modes, 64);
  check(n >= 0, text, "no modes");
  int64_t rank = tilusLayoutGetRank(layout);
  int64_t T = tilusLayoutGetNumThreads(layout);
  int64_t m = tilusLayoutGetLocalSize(layout);
  bool modesOk = n >= 0, splitOk = true;
  for (int64_t t = 0; t < T; ++t) {
    int64_t expected[TILUS_LAYOUT_MAX_RANK], sum[TILUS_LAYOUT_MAX_RANK] = {0};
    tilusLayoutEvaluate(layout, t, 0, expected);
    for (intptr_t k = 0; k < n; ++k)
      sum[modes[k].dim] +=
          (t / modes[k].divisor) % modes[k].modulus * modes[k].stride;
    modesOk = modesOk && !memcmp(sum, expected, (size_t)rank * sizeof(int64_t));
    for (int64_t i = 0; i < m; ++i) {
      int64_t full[TILUS_LAYOUT_MAX_RANK], local[TILUS_LAYOUT_MAX_RANK];
      tilusLayoutEvaluate(layout, t, i, full);
      tilusLayoutEvaluate(layout, 0, i, local);
      for (int64_t d = 0; d < rank; ++d)
        splitOk = splitOk && full[d] == expected[d] + local[d];
    }
  }
  check(modesOk, text, "modes differ from f(t, 0)");
  check(splitOk, text, "f(t, i) != f(t, 0) + f(0, i)");
  tilusLayoutDestroy(layout);
}

int main(void) {
  static const char *const layouts[] = {
      "local(2,1).spatial(8,4).local(1,2)",
      "column_local(2,2).spatial(8,4).local(1,2)",
      "local(2,1).column_spatial(4,8).local(2,1)",
      "spatial(1,4).local(2,1).spatial(8,4).local(1,2)",
      "spatial(1,4).local(4,1).local(2,1).column_spatial(4,8).local(2,1)",
      "reduce(spatial(1,1,4),dims=[2]).local(1,4).column_local(2,2).spatial(8,4).local(1,2)",
      "reduce(spatial(128,1),dims=[0]).local(4)",
      "spatial(4).local(3).spatial(32)",
      "local(2).spatial(128).local(4)",
      "spatial(3,5).column_spatial(2,3).local(2,2)",
      "column_spatial(3,2,2).local(1,2,1).spatial(1,1,3)",
      "spatial(32,16).local(1,4)",
  };
  for (size_t k = 0; k < sizeof(layouts) / sizeof(layouts[0]); ++k)
    checkLayout(layouts[k]);

  // Generated chains of spatial/local factors with small shapes.
  static const char *const kinds[] = {"spatial", "local", "column_spatial",
                                      "column_local"};
  unsigned seed = 12345;
  for (int trial = 0; trial < 200; ++trial) {
    char text[256] = "";
    int factors = 1 + (int)((seed >> 8) % 4);
    for (int f = 0; f < factors; ++f) {
      seed = seed * 1103515245u + 12345u;
      int a = 1 + (int)((seed >> 8) % 4), b = 1 + (int)((seed >> 12) % 3);
      char piece[64];
      snprintf(piece, sizeof(piece), "%s%s(%d,%d)", f ? "." : "",
               kinds[(seed >> 16) % 4], a, b);
      strncat(text, piece, sizeof(text) - strlen(text) - 1);
    }
    checkLayout(text);
  }

  const char *swizzled = "local(2,1).swizzle(local(16,8),dim=1).local(1,8)";
  TilusLayout *layout = tilusLayoutParse(swizzled, strlen(swizzled), NULL);
  TilusLayoutThreadMode modes[8];
  check(layout && tilusLayoutGetThreadModes(layout, modes, 8) == -1, swizzled,
        "a swizzled layout must have no modes");
  tilusLayoutDestroy(layout);
  layout = tilusLayoutParse("spatial(2,2).spatial(2,2)", 25, NULL);
  check(layout && tilusLayoutGetThreadModes(layout, modes, 1) == -1,
        "spatial(2,2).spatial(2,2)", "more modes than capacity must fail");
  tilusLayoutDestroy(layout);

  printf("layout mode tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
