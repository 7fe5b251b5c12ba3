/*===-- LayoutFiguresTest.c - The paper's figures, queries and limits ===*/

#include "LayoutTestSupport.h"

void testFigure3(void) {
  TilusLayout *l = parse("local(2,1).spatial(8,4).local(1,2)");
  CHECK(l != NULL);
  if (!l)
    return;
  CHECK(tilusLayoutGetRank(l) == 2);
  CHECK(tilusLayoutGetNumThreads(l) == 32 && tilusLayoutGetLocalSize(l) == 4);
  CHECK(tilusLayoutGetDim(l, 0) == 16 && tilusLayoutGetDim(l, 1) == 8);
  CHECK(tilusLayoutGetNumElements(l) == 128);
  bool ok = true;
  for (int64_t t = 0; t < 32; ++t) {
    for (int64_t i = 0; i < 4; ++i) {
      int64_t want[2] = {t / 4 + 8 * (i / 2), (t % 4) * 2 + i % 2}, got[2];
      tilusLayoutEvaluate(l, t, i, got);
      ok = ok && sameIndex(want, got, 2);
    }
  }
  CHECK(ok);
  /* The same layout built with the constructors. */
  TilusLayout *a = local2(2, 1), *b = spatial2(8, 4), *c = local2(1, 2);
  TilusLayout *abc = compose3(a, b, c);
  CHECK(tilusLayoutEqual(abc, l));
  CHECK(printsAs(abc, "local(2,1).spatial(8,4).local(1,2)"));
  CHECK(tilusLayoutIsValid(l));
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(c);
  tilusLayoutDestroy(abc);
  tilusLayoutDestroy(l);
}

void testFigure4(void) {
  TilusLayout *l = local2(2, 3), *s = spatial2(2, 3);
  CHECK(tilusLayoutGetNumThreads(l) == 1 && tilusLayoutGetLocalSize(l) == 6);
  CHECK(tilusLayoutGetNumThreads(s) == 6 && tilusLayoutGetLocalSize(s) == 1);
  bool okL = true, okS = true;
  for (int64_t k = 0; k < 6; ++k) {
    int64_t want[2] = {k / 3, k % 3}, got[2];
    tilusLayoutEvaluate(l, 0, k, got);
    okL = okL && sameIndex(want, got, 2);
    tilusLayoutEvaluate(s, k, 0, got);
    okS = okS && sameIndex(want, got, 2);
  }
  CHECK(okL);
  CHECK(okS);
  CHECK(!tilusLayoutEqual(l, s));
  tilusLayoutDestroy(l);
  tilusLayoutDestroy(s);
}

void testFigure5(void) {
  /* c = a.b with a = local(2,1), b = spatial(2,3).local(1,2):
   * c(t,i) = a(0, i/2) * (2,6) + b(t, i%2) = (2*(i/2) + t/3, 2*(t%3) + i%2) */
  TilusLayout *c = parse("local(2,1).spatial(2,3).local(1,2)");
  CHECK(c && tilusLayoutGetNumThreads(c) == 6 && tilusLayoutGetLocalSize(c) == 4);
  CHECK(c && tilusLayoutGetDim(c, 0) == 4 && tilusLayoutGetDim(c, 1) == 6);
  bool ok = c != NULL;
  for (int64_t t = 0; ok && t < 6; ++t) {
    for (int64_t i = 0; i < 4; ++i) {
      int64_t want[2] = {2 * (i / 2) + t / 3, 2 * (t % 3) + i % 2}, got[2];
      tilusLayoutEvaluate(c, t, i, got);
      ok = ok && sameIndex(want, got, 2);
    }
  }
  CHECK(ok);
  int64_t got[2];
  if (c) {
    tilusLayoutEvaluate(c, 4, 3, got); /* thread 4 holds a3 at (3,3) */
    CHECK(got[0] == 3 && got[1] == 3);
    tilusLayoutEvaluate(c, 5, 2, got); /* thread 5 holds a2 at (3,4) */
    CHECK(got[0] == 3 && got[1] == 4);
  }

  /* Column-major primitives, rank 2 and 3, first dim fastest. */
  int64_t s2[2] = {2, 3}, s3[3] = {2, 3, 4};
  TilusLayout *cl2 = tilusLayoutCreateColumnLocal(2, s2, NULL);
  TilusLayout *cs2 = tilusLayoutCreateColumnSpatial(2, s2, NULL);
  TilusLayout *cl3 = tilusLayoutCreateColumnLocal(3, s3, NULL);
  TilusLayout *cs3 = tilusLayoutCreateColumnSpatial(3, s3, NULL);
  CHECK(tilusLayoutGetNumThreads(cs3) == 24 && tilusLayoutGetLocalSize(cl3) == 24);
  bool ok2 = true, ok3 = true;
  for (int64_t k = 0; k < 6; ++k) {
    int64_t want[2] = {k % 2, k / 2}, x[2];
    tilusLayoutEvaluate(cl2, 0, k, x);
    ok2 = ok2 && sameIndex(want, x, 2);
    tilusLayoutEvaluate(cs2, k, 0, x);
    ok2 = ok2 && sameIndex(want, x, 2);
  }
  for (int64_t k = 0; k < 24; ++k) {
    int64_t want[3] = {k % 2, (k / 2) % 3, k / 6}, x[3];
    tilusLayoutEvaluate(cl3, 0, k, x);
    ok3 = ok3 && sameIndex(want, x, 3);
    tilusLayoutEvaluate(cs3, k, 0, x);
    ok3 = ok3 && sameIndex(want, x, 3);
  }
  CHECK(ok2);
  CHECK(ok3);
  /* Figure 5 (e): the column-major twins are compositions. */
  TilusLayout *viaCompose = parse("local(1,3).local(2,1)");
  CHECK(tilusLayoutEqual(viaCompose, cl2));
  TilusLayout *viaComposeS = parse("spatial(1,3).spatial(2,1)");
  CHECK(tilusLayoutEqual(viaComposeS, cs2));
  CHECK(printsAs(cl2, "column_local(2,3)"));
  tilusLayoutDestroy(viaCompose);
  tilusLayoutDestroy(viaComposeS);
  tilusLayoutDestroy(cl2);
  tilusLayoutDestroy(cs2);
  tilusLayoutDestroy(cl3);
  tilusLayoutDestroy(cs3);
  tilusLayoutDestroy(c);
}

/*--- Monoid laws and composition on random layouts ----------------------------*/

/* compose(f,g)(t,i) against definition 4 using f's and g's own values. */
void testQueries(void) {
  struct {
    const char *text;
    int64_t contiguity;
  } cases[] = {
      {"local(2,1).spatial(8,4).local(1,2)", 2},
      {"spatial(32).local(8)", 8},
      {"local(8).spatial(32)", 1},
      {"column_local(2,4)", 1},
      {"local(2,4)", 4},
      {"local(3,4)", 4},
      {"local(1,2).swizzle(local(16,4),dim=1,log_step=1).local(1,8)", 8},
      {"spatial(4).local(6)", 2},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) {
    TilusLayout *l = parse(cases[k].text);
    CHECK_L(l && tilusLayoutGetContiguity(l) == cases[k].contiguity,
            cases[k].text);
    tilusLayoutDestroy(l);
  }
  TilusLayout *l = parse("local(2,1).spatial(8,4).local(1,2)");
  int64_t index[2] = {9, 5}, t = -1, i = -1; /* row 9 = t/4 + 8 -> i/2 = 1 */
  CHECK(tilusLayoutLocate(l, index, &t, &i) && t == 6 && i == 3);
  int64_t outside[2] = {16, 0};
  CHECK(!tilusLayoutLocate(l, outside, &t, &i));
  CHECK(tilusLayoutGetDim(l, 2) == -1);
  CHECK(!tilusLayoutEqual(l, NULL));
  TilusLayout *clone = tilusLayoutClone(l);
  CHECK(tilusLayoutEqual(clone, l));
  tilusLayoutDestroy(clone);
  tilusLayoutDestroy(l);
}

void testLimits(void) {
  TilusLayoutError err = {{0}};
  int64_t huge[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
  CHECK(tilusLayoutCreateLocal(2, huge, &err) == NULL && err.message[0]);
  int64_t zero[1] = {0};
  CHECK(tilusLayoutCreateSpatial(1, zero, &err) == NULL &&
        strstr(err.message, ">= 1"));
  int64_t many[TILUS_LAYOUT_MAX_RANK + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(tilusLayoutCreateLocal(TILUS_LAYOUT_MAX_RANK + 1, many, &err) == NULL);
  CHECK(tilusLayoutCreateLocal(0, many, &err) == NULL);
  CHECK(tilusLayoutCreateLocal(1, NULL, &err) == NULL);
  int64_t big[1] = {(int64_t)1 << 30}, edge[1] = {(int64_t)1 << 40};
  TilusLayout *a = tilusLayoutCreateLocal(1, big, NULL);
  TilusLayout *s = tilusLayoutCreateSpatial(1, big, NULL);
  TilusLayout *e = tilusLayoutCreateLocal(1, edge, NULL);
  CHECK(a && s && e);
  CHECK(tilusLayoutCompose(a, a) == NULL); /* m = 2^60 */
  CHECK(tilusLayoutCompose(s, a) == NULL); /* T*m = 2^60 */
  edge[0] += 1;
  CHECK(tilusLayoutCreateLocal(1, edge, NULL) == NULL);
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(s);
  tilusLayoutDestroy(e);
  CHECK(tilusLayoutCompose(NULL, NULL) == NULL);
}
