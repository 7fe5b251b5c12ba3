/*===-- LayoutQueryBench.c - Closed-form queries against the old walks -===*\
|*                                                                            *|
|* Times each query on the layouts of examples/matmul_pipelined_f16.mlir,    *|
|* as the library answers it (closed form) and as the brute-force oracle     *|
|* (the walks the library used before) does. Not a test: run it by hand,    *|
|*   tilus-layout-query-bench                                                *|
\*===----------------------------------------------------------------------===*/

#include "LayoutOracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC); /* C11; fine for intervals of 0.2 s */
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Microseconds per call of `body`, repeated until 0.2 s have passed. */
#define TIME_US(result, body)                                                  \
  do {                                                                         \
    long calls_ = 0;                                                           \
    double start_ = now(), end_;                                               \
    do {                                                                       \
      body;                                                                    \
      ++calls_;                                                                \
    } while ((end_ = now()) - start_ < 0.2);                                   \
    (result) = 1e6 * (end_ - start_) / (double)calls_;                         \
  } while (0)

static volatile int64_t sink;

static void row(const char *query, double oldUs, double newUs) {
  printf("  %-34s %12.2f us %10.3f us  x%.0f\n", query, oldUs, newUs,
         oldUs / newUs);
}

static void bench(const char *name, const char *text) {
  TilusLayout *l = tilusLayoutParse(text, strlen(text), NULL);
  if (!l) {
    printf("%s: does not parse\n", name);
    return;
  }
  char *printed = tilusLayoutPrint(l);
  TilusLayout *copy = tilusLayoutParse(printed, strlen(printed), NULL);
  printf("%s = %s (T=%lld, m=%lld)\n", name, text,
         (long long)tilusLayoutGetNumThreads(l),
         (long long)tilusLayoutGetLocalSize(l));
  printf("  %-34s %15s %13s\n", "query", "old (walk)", "new");
  double o, n;
  TIME_US(o, sink += oracleEqual(l, copy));
  TIME_US(n, sink += tilusLayoutEqual(l, copy));
  row("equal (with its parsed copy)", o, n);
  TIME_US(o, sink += oracleContiguity(l));
  TIME_US(n, sink += tilusLayoutGetContiguity(l));
  row("contiguity", o, n);
  TIME_US(o, sink += oracleRunsAreContiguous(l, 8));
  TIME_US(n, sink += tilusLayoutRunsAreContiguous(l, 8));
  row("runs of 8", o, n);
  /* What SharedMemory.c asks per access: the widest v <= 8 that works. */
  TIME_US(o, for (int64_t v = 8; v > 1 && !oracleRunsAreContiguous(l, v);
                  v /= 2) sink += v);
  TIME_US(n, for (int64_t v = 8; v > 1 && !tilusLayoutRunsAreContiguous(l, v);
                  v /= 2) sink += v);
  row("runs, widest of 8/4/2", o, n);
  int64_t index[TILUS_LAYOUT_MAX_RANK] = {0}, t, i;
  for (int64_t d = 0; d < tilusLayoutGetRank(l); ++d)
    index[d] = tilusLayoutGetDim(l, d) - 1; /* the last index: worst walk */
  TIME_US(o, sink += oracleLocate(l, index, &t, &i));
  TIME_US(n, sink += tilusLayoutLocate(l, index, &t, &i));
  row("locate (last index)", o, n);
  TIME_US(o, sink += oracleIsValid(l));
  TIME_US(n, sink += tilusLayoutIsValid(l));
  row("valid", o, n);
  if (tilusLayoutGetNumThreads(l) % 32 == 0) {
    /* The mma.sync f16 accumulator pattern (MmaDot.c's cTile). */
    static const TilusLayoutThreadMode lanes[] = {{1, 4, 1, 2}, {4, 8, 0, 1}};
    static const TilusLayoutThreadMode slots[] = {{1, 2, 1, 1}, {2, 2, 0, 8}};
    TilusLayoutFragment tile = {32, 4, 2, 2, lanes, slots};
    int64_t m = tilusLayoutGetLocalSize(l), T = tilusLayoutGetNumThreads(l);
    int64_t *s = malloc(sizeof(int64_t) * (size_t)m);
    int64_t *b = malloc(sizeof(int64_t) * (size_t)(2 * T / 32 * (m / 4 + 1)));
    TIME_US(o, sink += oracleMatchFragment(l, &tile, s, b));
    TIME_US(n, sink += tilusLayoutMatchFragment(l, &tile, s, b));
    row("fragment (mma f16 c tile)", o, n);
    free(s);
    free(b);
  }
  tilusLayoutDestroy(copy);
  tilusLayoutDestroy(l);
  free(printed);
}

int main(void) {
  /* The shared and register layouts of examples/matmul_pipelined_f16.mlir. */
  bench("!sa", "local(3,1,1).swizzle(local(16,32), dim=1, log_step=0)"
               ".local(1,8)");
  bench("!sb", "local(3,1,1).swizzle(local(256,4), dim=1, log_step=1)"
               ".local(1,8)");
  bench("!sc", "swizzle(local(16,4), dim=1, log_step=1).local(1,8)");
  bench("!ra", "reduce(spatial(1,1,4), dims=[2]).local(1,1).column_local(2,2)"
               ".spatial(8,4).local(1,2)");
  bench("!rc", "spatial(1,4).local(1,1).local(2,1).spatial(8,4).local(1,2)");
  return 0;
}
