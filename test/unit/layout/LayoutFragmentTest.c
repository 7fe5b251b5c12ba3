/*===-- LayoutFragmentTest.c - Fragment matching against the greedy walk ===*\
|*                                                                            *|
|* tilusLayoutMatchFragment must give the answer, slots and bases of the     *|
|* greedy walk (oracleMatchFragment) for the ldmatrix and mma.sync patterns   *|
|* of lib/Conversion, on the register layouts of the examples and on many   *|
|* generated warp layouts.                                                   *|
\*===----------------------------------------------------------------------===*/

#include "LayoutOracle.h"
#include "LayoutTestSupport.h"

typedef TilusLayoutThreadMode Mode;

/* The patterns of MatrixAccess.c and MmaDot.c, as modes. */
static const Mode kRowLanes[] = {{1, 4, 1, 2}, {4, 8, 0, 1}};
static const Mode kColumnLanes[] = {{1, 4, 0, 2}, {4, 8, 1, 1}};
static const Mode kRowPair[] = {{1, 2, 1, 1}};
static const Mode kColumnPair[] = {{1, 2, 0, 1}};
static const Mode kAHalf[] = {{1, 2, 1, 1}, {2, 2, 0, 8}, {4, 2, 1, 8}};
static const Mode kBHalf[] = {{1, 2, 0, 1}, {2, 2, 0, 8}};
static const Mode kCTile[] = {{1, 2, 1, 1}, {2, 2, 0, 8}};
static const Mode kByteRowLanes[] = {{1, 4, 1, 4}, {4, 8, 0, 1}};
static const Mode kByteColumnLanes[] = {{1, 4, 0, 4}, {4, 8, 1, 1}};
static const Mode kAByte[] = {{1, 4, 1, 1}, {4, 2, 0, 8}, {8, 2, 1, 16}};
static const Mode kBByte[] = {{1, 4, 0, 1}, {4, 2, 0, 16}};
/* Malformed or unusual ones: two slot modes at one offset (never matches),
 * lanes 4..31 replicated (stride 0), lanes given out of order. */
static const Mode kOverlap[] = {{1, 2, 1, 1}, {2, 2, 1, 1}};
static const Mode kReplicatedLanes[] = {{1, 4, 1, 2}, {4, 8, 0, 0}};
static const Mode kShuffledLanes[] = {{4, 8, 0, 1}, {1, 4, 1, 2}};

#define FRAGMENT(lanes, slots, n)                                              \
  {32, n, sizeof(lanes) / sizeof(Mode), sizeof(slots) / sizeof(Mode), lanes,   \
   slots}

static const TilusLayoutFragment kPatterns[] = {
    FRAGMENT(kRowLanes, kRowPair, 2),
    FRAGMENT(kColumnLanes, kColumnPair, 2),
    FRAGMENT(kRowLanes, kAHalf, 8),
    FRAGMENT(kColumnLanes, kBHalf, 4),
    FRAGMENT(kRowLanes, kCTile, 4),
    FRAGMENT(kByteRowLanes, kAByte, 16),
    FRAGMENT(kByteColumnLanes, kBByte, 8),
    FRAGMENT(kRowLanes, kOverlap, 4),
    FRAGMENT(kReplicatedLanes, kRowPair, 2),
    FRAGMENT(kShuffledLanes, kCTile, 4),
};
static const int kNumPatterns = sizeof(kPatterns) / sizeof(kPatterns[0]);

/* Compares answer, slots and bases; returns whether it matched. */
static bool checkFragment(const TilusLayout *l, const TilusLayoutFragment *f,
                          int *failures) {
  int64_t m = tilusLayoutGetLocalSize(l), T = tilusLayoutGetNumThreads(l);
  int64_t rank = tilusLayoutGetRank(l);
  int64_t groups = f->groupSize > 0 ? m / f->groupSize : 0;
  size_t numBases = (size_t)(rank * (T / f->numLanes) * (groups + 1));
  int64_t *s1 = calloc((size_t)m, sizeof(int64_t));
  int64_t *s2 = calloc((size_t)m, sizeof(int64_t));
  int64_t *b1 = calloc(numBases, sizeof(int64_t));
  int64_t *b2 = calloc(numBases, sizeof(int64_t));
  bool got = tilusLayoutMatchFragment(l, f, s1, b1);
  bool want = oracleMatchFragment(l, f, s2, b2);
  bool same = got == want &&
              (!got || (memcmp(s1, s2, sizeof(int64_t) * (size_t)m) == 0 &&
                        memcmp(b1, b2, sizeof(int64_t) * numBases) == 0));
  if (!same) {
    ++*failures;
    char *text = tilusLayoutPrint(l);
    printf("  fragment mismatch (closed form %d, walk %d, n %lld): %s\n", got,
           want, (long long)f->groupSize, text);
    free(text);
  }
  free(s1);
  free(s2);
  free(b1);
  free(b2);
  return want;
}

/* outer . core . inner: random rank-2 factors around 32 threads. */
static TilusLayout *randomWarpLayout(uint64_t *rng) {
  static const char *const cores[] = {
      "spatial(8,4)",
      "column_spatial(4,8)",
      "spatial(8,4)",
      "spatial(8,1).local(1,2).spatial(1,4)",
      "spatial(32,1)",
      "column_spatial(8,4)",
      "spatial(2,16)",
      "spatial(8,2).spatial(1,2)",
      "reduce(spatial(4,1,8),dims=[0])",
      "reduce(spatial(8,4,1),dims=[0])",
  };
  static const char *const kinds[] = {"local", "column_local", "spatial",
                                      "column_spatial"};
  char text[512];
  size_t used = 0;
  int outer = (int)randomBelow(rng, 4), inner = (int)randomBelow(rng, 2);
  if (randomBelow(rng, 5) == 0)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "reduce(spatial(1,1,%d),dims=[2]).",
                             1 << (int)randomBelow(rng, 3));
  static const char *const likelyOuter[] = {
      "local(2,1)", "local(1,2)", "column_local(2,2)", "local(2,2)",
      "spatial(1,4)", "spatial(2,2)", "spatial(4,1)", "local(4,2)",
  };
  for (int k = 0; k < outer; ++k) {
    if (randomBelow(rng, 3) != 0)
      used += (size_t)snprintf(text + used, sizeof(text) - used, "%s.",
                               likelyOuter[randomBelow(rng, 8)]);
    else
      used += (size_t)snprintf(text + used, sizeof(text) - used, "%s(%d,%d).",
                               kinds[randomBelow(rng, 4)],
                               1 << (int)randomBelow(rng, 3),
                               1 << (int)randomBelow(rng, 3));
  }
  used += (size_t)snprintf(text + used, sizeof(text) - used, "%s",
                           cores[randomBelow(rng, 10)]);
  /* Inner factors like those of the mma layouts, or random ones. */
  static const char *const likely[] = {
      "local(1,2)", "local(2,1)", "local(2,2)", "column_local(2,2)",
      "local(1,4)", "local(2,4)", "local(4,1)", "local(1,8)",
  };
  for (int k = 0; k <= inner; ++k) {
    if (randomBelow(rng, 3) != 0) {
      used += (size_t)snprintf(text + used, sizeof(text) - used, ".%s",
                               likely[randomBelow(rng, 8)]);
      continue;
    }
    int a = 1 << (int)randomBelow(rng, 3), b = 1 << (int)randomBelow(rng, 3);
    if (randomBelow(rng, 8) == 0)
      b = 3;
    used += (size_t)snprintf(text + used, sizeof(text) - used, ".%s(%d,%d)",
                             kinds[randomBelow(rng, 2)], a, b);
  }
  return parse(text);
}

void testFragmentsAgainstOracle(void) {
  static const char *const examples[] = {
      "reduce(spatial(1,1,4), dims=[2]).local(1,1).column_local(2,2)"
      ".spatial(8,4).local(1,2)",
      "reduce(spatial(1,1,4), dims=[0]).local(1,1).local(2,1)"
      ".column_spatial(4,8).local(2,1)",
      "spatial(1,4).local(1,1).local(2,1).spatial(8,4).local(1,2)",
      "local(1,1).spatial(16,8).local(1,4)",
      "local(2,1).spatial(8,4).local(1,2)",
      "column_local(2,2).spatial(8,4).local(1,2)",
      "local(2,1).column_spatial(4,8).local(2,1)",
      "spatial(2,2).local(2,2).spatial(8,4).local(1,4)",
      "local(2,4).spatial(8,4).local(2,4)",
      "reduce(spatial(8,1,4),dims=[0]).local(1,2)",
  };
  int failures = 0, matched = 0, checked = 0;
  for (size_t e = 0; e < sizeof(examples) / sizeof(examples[0]); ++e) {
    TilusLayout *l = parse(examples[e]);
    CHECK_L(l != NULL, examples[e]);
    for (int p = 0; l && p < kNumPatterns; ++p, ++checked)
      matched += checkFragment(l, &kPatterns[p], &failures);
    tilusLayoutDestroy(l);
  }
  /* The mma tiles match their own patterns. */
  TilusLayout *c = parse("local(2,1).spatial(8,4).local(1,2)");
  CHECK(c && tilusLayoutMatchFragment(c, &kPatterns[4], NULL, NULL));
  CHECK(c && !tilusLayoutMatchFragment(c, &kPatterns[3], NULL, NULL));
  CHECK(c && tilusLayoutMatchFragment(c, &kPatterns[9], NULL, NULL));
  tilusLayoutDestroy(c);
  /* The answer alone costs no work per slot: 8 * 10^8 slots per thread
   * (the fuzzer's layout-1 took minutes and gigabytes). */
  TilusLayout *big = parse("local(400000000,1).spatial(8,4).local(1,2)");
  CHECK(big && tilusLayoutMatchFragment(big, &kPatterns[4], NULL, NULL));
  CHECK(big && !tilusLayoutMatchFragment(big, &kPatterns[3], NULL, NULL));
  tilusLayoutDestroy(big);
  /* Lanes 4..31 replicated: threads t and t + 4 hold the same elements. */
  TilusLayout *r = parse("reduce(spatial(8,1,4),dims=[0]).local(1,2)");
  CHECK(r && tilusLayoutMatchFragment(r, &kPatterns[8], NULL, NULL));
  tilusLayoutDestroy(r);

  uint64_t rng = 0x5851f42d4c957f2dull;
  int layouts = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    TilusLayout *l = randomWarpLayout(&rng);
    if (!l)
      continue;
    ++layouts;
    for (int p = 0; p < kNumPatterns; ++p, ++checked)
      matched += checkFragment(l, &kPatterns[p], &failures);
    tilusLayoutDestroy(l);
  }
  CHECK(failures == 0);
  CHECK(matched >= 100);
  printf("fragment oracle: %d layouts, %d checks, %d matches\n", layouts,
         checked, matched);
}
