/*===-- LayoutReduceSwizzleTest.c - reduce and swizzle ===*/

#include "LayoutTestSupport.h"

void testBroadcast(void) {
  TilusLayout *l = local2(2, 3);
  TilusLayoutError err = {{0}};
  TilusLayout *b = tilusLayoutBroadcast(l, 4, &err);
  CHECK(b && tilusLayoutGetRank(b) == 4);
  CHECK(b && tilusLayoutGetDim(b, 0) == 1 && tilusLayoutGetDim(b, 1) == 1 &&
        tilusLayoutGetDim(b, 2) == 2 && tilusLayoutGetDim(b, 3) == 3);
  bool ok = b != NULL;
  for (int64_t i = 0; ok && i < 6; ++i) {
    int64_t want[4] = {0, 0, i / 3, i % 3}, got[4];
    tilusLayoutEvaluate(b, 0, i, got);
    ok = sameIndex(want, got, 4);
  }
  CHECK(ok);
  CHECK(printsAs(b, "local(1,1,2,3)"));
  CHECK(tilusLayoutBroadcast(l, 1, &err) == NULL && err.message[0]);
  CHECK(tilusLayoutBroadcast(l, TILUS_LAYOUT_MAX_RANK + 1, NULL) == NULL);
  /* Mixed-rank composition broadcasts the lower-rank side. */
  TilusLayout *mixed = parse("spatial(2,3).local(4)");
  TilusLayout *full = parse("spatial(2,3).local(1,4)");
  CHECK(mixed && tilusLayoutEqual(mixed, full));
  tilusLayoutDestroy(mixed);
  tilusLayoutDestroy(full);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(l);
}

void testReduce(void) {
  /* Paper B.2: shape (1,1), 4 threads, each holding (0,0). */
  TilusLayout *r = parse("reduce(spatial(1,1,4),dims=[2])");
  CHECK(r && tilusLayoutGetRank(r) == 2);
  CHECK(r && tilusLayoutGetDim(r, 0) == 1 && tilusLayoutGetDim(r, 1) == 1);
  CHECK(r && tilusLayoutGetNumThreads(r) == 4 && tilusLayoutGetLocalSize(r) == 1);
  bool ok = r != NULL;
  for (int64_t t = 0; ok && t < 4; ++t) {
    int64_t got[2] = {-1, -1};
    tilusLayoutEvaluate(r, t, 0, got);
    ok = got[0] == 0 && got[1] == 0;
  }
  CHECK(ok);
  int64_t zero[2] = {0, 0}, t = -1, i = -1;
  CHECK(r && tilusLayoutLocate(r, zero, &t, &i) && t == 0 && i == 0);
  CHECK(r && tilusLayoutIsValid(r));
  CHECK(r && printsAs(r, "reduce(spatial(1,1,4),dims=[2])"));

  TilusLayout *a = parse("reduce(local(2,3), dims=[1])"), *b = parse("local(2)");
  CHECK(a && tilusLayoutEqual(a, b));

  /* spatial(2,3): t -> (t/3, t%3); dropping a dim replicates along it. */
  TilusLayout *s0 = parse("reduce(spatial(2,3),dims=[0])");
  TilusLayout *s1 = parse("reduce(spatial(2,3),dims=[1])");
  TilusLayout *c0 = parse("reduce(column_spatial(2,3),dims=[0])");
  bool okS = s0 && s1 && c0;
  for (int64_t tt = 0; okS && tt < 6; ++tt) {
    int64_t x0, x1, xc;
    tilusLayoutEvaluate(s0, tt, 0, &x0);
    tilusLayoutEvaluate(s1, tt, 0, &x1);
    tilusLayoutEvaluate(c0, tt, 0, &xc); /* column: t -> (t%2, t/2) */
    okS = x0 == tt % 3 && x1 == tt / 3 && xc == tt / 2;
  }
  CHECK(okS);
  CHECK(s0 && tilusLayoutGetNumThreads(s0) == 6 && tilusLayoutGetDim(s0, 0) == 3);
  int64_t idx = 2;
  CHECK(s0 && tilusLayoutLocate(s0, &idx, &t, &i) && t == 2 && i == 0);
  idx = 1;
  CHECK(s1 && tilusLayoutLocate(s1, &idx, &t, &i) && t == 3 && i == 0);
  idx = 3;
  CHECK(s0 && !tilusLayoutLocate(s0, &idx, &t, &i));
  CHECK(s0 && tilusLayoutIsValid(s0) && s1 && tilusLayoutIsValid(s1));

  /* reduce over a composed layout: the mma layout without its rows gives
   * T = 32, m = 2 and f(t, i) = 2*(t%4) + i. */
  TilusLayout *mma = parse("local(2,1).spatial(8,4).local(1,2)");
  int64_t dim0 = 0;
  TilusLayout *rows = tilusLayoutReduce(mma, 1, &dim0, NULL);
  CHECK(rows && tilusLayoutGetRank(rows) == 1 && tilusLayoutGetDim(rows, 0) == 8);
  CHECK(rows && tilusLayoutGetNumThreads(rows) == 32 &&
        tilusLayoutGetLocalSize(rows) == 2);
  bool okR = rows != NULL;
  for (int64_t tt = 0; okR && tt < 32; ++tt) {
    for (int64_t ii = 0; ii < 2; ++ii) {
      int64_t x;
      tilusLayoutEvaluate(rows, tt, ii, &x);
      okR = okR && x == 2 * (tt % 4) + ii;
    }
  }
  CHECK(okR);
  CHECK(rows && printsAs(rows, "reduce(spatial(8,4),dims=[0]).local(2)"));

  /* Errors. */
  TilusLayoutError err = {{0}};
  int64_t bad[2] = {1, 1}, out[1] = {2}, neg[1] = {-1};
  CHECK(tilusLayoutReduce(mma, 2, bad, &err) == NULL && strstr(err.message, "repeated"));
  CHECK(tilusLayoutReduce(mma, 1, out, &err) == NULL && strstr(err.message, "range"));
  CHECK(tilusLayoutReduce(mma, 1, neg, &err) == NULL);
  int64_t both[2] = {0, 1};
  CHECK(tilusLayoutReduce(mma, 2, both, &err) == NULL); /* rank 0 */
  TilusLayout *sw = parse("swizzle(local(4,4),dim=1)");
  CHECK(sw && tilusLayoutReduce(sw, 1, &dim0, &err) == NULL &&
        strstr(err.message, "swizzle"));
  TilusLayout *same = tilusLayoutReduce(mma, 0, NULL, NULL);
  CHECK(same && tilusLayoutEqual(same, mma));

  tilusLayoutDestroy(same);
  tilusLayoutDestroy(sw);
  tilusLayoutDestroy(rows);
  tilusLayoutDestroy(mma);
  tilusLayoutDestroy(s0);
  tilusLayoutDestroy(s1);
  tilusLayoutDestroy(c0);
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(r);
}

void testSwizzle(void) {
  /* swizzle(local(16,32), dim=1): f(0, r*32+c) = (r, c ^ r). */
  TilusLayout *s = parse("swizzle(local(16,32),dim=1)");
  CHECK(s && tilusLayoutIsValid(s));
  bool ok = s != NULL;
  for (int64_t rr = 0; ok && rr < 16; ++rr) {
    for (int64_t c = 0; c < 32; ++c) {
      int64_t got[2];
      tilusLayoutEvaluate(s, 0, rr * 32 + c, got);
      ok = ok && got[0] == rr && got[1] == (c ^ rr);
    }
  }
  CHECK(ok);
  CHECK(s && printsAs(s, "swizzle(local(16,32),dim=1,log_step=0)"));

  /* smem_layout_c of figure 14: a permutation of the 16x64 tile. */
  TilusLayout *c = parse(
      "local(1, 2).swizzle(local(16, 4), dim=1, log_step=1).local(1, 8)");
  CHECK(c && tilusLayoutGetDim(c, 0) == 16 && tilusLayoutGetDim(c, 1) == 64);
  CHECK(c && tilusLayoutGetNumThreads(c) == 1 && tilusLayoutGetLocalSize(c) == 1024);
  CHECK(c && tilusLayoutIsValid(c));
  if (c) {
    /* i = 171 = 0*512 + 21*8 + 3: swizzle slot 21 = (5,1); 1 ^ ((5>>1)%4)
     * = 3; column 0*32 + 3*8 + 3 = 27. */
    int64_t got[2];
    tilusLayoutEvaluate(c, 0, 171, got);
    CHECK(got[0] == 5 && got[1] == 27);
    /* i = 512 + 63*8 + 7: slot 63 = (15,3); 3 ^ (7%4) = 0; 32 + 0 + 7. */
    tilusLayoutEvaluate(c, 0, 512 + 63 * 8 + 7, got);
    CHECK(got[0] == 15 && got[1] == 39);
    /* i = 8*4*2 = 64: slot 8 = (2,0); 0 ^ 1 = 1 -> column 8. */
    tilusLayoutEvaluate(c, 0, 64, got);
    CHECK(got[0] == 2 && got[1] == 8);
    CHECK(tilusLayoutGetContiguity(c) == 8);
  }

  /* A swizzle of a rank-3 layout linearizes the other two dims. */
  TilusLayout *s3 = parse("swizzle(local(2,2,4),dim=2)");
  bool ok3 = s3 != NULL;
  for (int64_t k = 0; ok3 && k < 16; ++k) {
    int64_t x[3], a = k / 8, b = (k / 4) % 2, cc = k % 4;
    tilusLayoutEvaluate(s3, 0, k, x);
    ok3 = x[0] == a && x[1] == b && x[2] == (cc ^ ((a * 2 + b) % 4));
  }
  CHECK(ok3);

  /* A swizzle that cannot change anything is dropped. */
  TilusLayout *noop = parse("swizzle(local(4,4),dim=1,log_step=2)");
  CHECK(noop && printsAs(noop, "local(4,4)"));

  TilusLayoutError err = {{0}};
  TilusLayout *sp = spatial2(4, 4), *l43 = local2(4, 3), *l4 = parse("local(4)");
  CHECK(tilusLayoutSwizzle(sp, 1, 0, &err) == NULL && strstr(err.message, "thread"));
  CHECK(tilusLayoutSwizzle(l43, 1, 0, &err) == NULL && strstr(err.message, "power"));
  CHECK(tilusLayoutSwizzle(l4, 0, 0, &err) == NULL && strstr(err.message, "rank"));
  CHECK(tilusLayoutSwizzle(l43, 2, 0, &err) == NULL);
  CHECK(tilusLayoutSwizzle(l43, 0, -1, &err) == NULL);
  tilusLayoutDestroy(sp);
  tilusLayoutDestroy(l43);
  tilusLayoutDestroy(l4);
  tilusLayoutDestroy(noop);
  tilusLayoutDestroy(s3);
  tilusLayoutDestroy(c);
  tilusLayoutDestroy(s);
}

/*--- Text form ----------------------------------------------------------------*/
