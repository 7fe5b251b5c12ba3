/*===-- LayoutTextTest.c - The text form: round trips and errors ===*/

#include "LayoutTestSupport.h"

static void checkRoundTrip(const char *text, const char *canonical) {
  TilusLayoutError err = {{0}};
  TilusLayout *l = tilusLayoutParse(text, strlen(text), &err);
  CHECK_L(l != NULL, err.message);
  if (!l)
    return;
  char *printed = tilusLayoutPrint(l);
  TilusLayout *back = printed ? parse(printed) : NULL;
  char *again = tilusLayoutPrint(back);
  CHECK_L(back && tilusLayoutEqual(back, l), text);
  CHECK_L(again && printed && strcmp(again, printed) == 0, text);
  CHECK_L(printed && strchr(printed, ' ') == NULL, printed);
  if (canonical)
    CHECK_L(printed && strcmp(printed, canonical) == 0, printed);
  free(printed);
  free(again);
  tilusLayoutDestroy(back);
  tilusLayoutDestroy(l);
}

/* Builds figure 14's layouts through the model (no swizzles there). */
static MPrim prim(int kind, bool column, int rank, int64_t a, int64_t b,
                  int64_t c) {
  MPrim p;
  memset(&p, 0, sizeof(p));
  p.kind = kind;
  p.column = column;
  p.fullRank = rank;
  p.full[0] = a;
  p.full[1] = b;
  p.full[2] = c;
  return p;
}

void testPaperLayouts(void) {
  const char *layoutA = "reduce(spatial(1, 1, 4), dims=[2]).local(1, 4)."
                        "column_local(2, 2).spatial(8, 4).local(1, 2)";
  const char *layoutB = "spatial(1, 4).local(4, 1).local(2, 1)."
                        "column_spatial(4, 8).local(2, 1)";
  const char *layoutC = "spatial(1, 4).local(2, 1).spatial(8, 4).local(1, 2)";
  const char *layoutBT = "spatial(4).local(3).spatial(32)";
  const char *smemA = "local(3, 1, 1).swizzle(local(16, 32), dim=1).local(1, 8)";
  const char *smemB = "local(3, 1536)";
  const char *smemC =
      "local(1, 2).swizzle(local(16, 4), dim=1, log_step=1).local(1, 8)";
  /* local(1,4).column_local(2,2) == column_local(2,8): i -> (i%2, i/2). */
  checkRoundTrip(layoutA, "reduce(spatial(1,1,4),dims=[2]).column_local(2,8)."
                          "spatial(8,4).local(1,2)");
  checkRoundTrip(layoutB, "spatial(1,4).local(8,1).column_spatial(4,8)."
                          "local(2,1)");
  checkRoundTrip(layoutC, "spatial(1,4).local(2,1).spatial(8,4).local(1,2)");
  checkRoundTrip(layoutBT, "spatial(4).local(3).spatial(32)");
  checkRoundTrip(smemA, "local(3,1,1).swizzle(local(1,16,32),dim=2,"
                        "log_step=0).local(1,1,8)");
  checkRoundTrip(smemB, "local(3,1536)");
  checkRoundTrip(smemC, "local(1,2).swizzle(local(16,4),dim=1,log_step=1)."
                        "local(1,8)");
  checkRoundTrip("spatial(16, 8).repeat(1, 4)", "spatial(16,8).local(1,4)");

  /* Shapes, T and m as the kernel of figure 14 uses them. */
  struct {
    const char *text;
    int64_t rank, d0, d1, d2, threads, local;
  } sizes[] = {
      {layoutA, 2, 16, 64, 0, 128, 32}, {layoutB, 2, 64, 32, 0, 128, 16},
      {layoutC, 2, 16, 32, 0, 128, 4},  {layoutBT, 1, 384, 0, 0, 128, 3},
      {smemA, 3, 3, 16, 256, 1, 12288}, {smemB, 2, 3, 1536, 0, 1, 4608},
      {smemC, 2, 16, 64, 0, 1, 1024},
  };
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
    TilusLayout *l = parse(sizes[k].text);
    int64_t dims[3] = {sizes[k].d0, sizes[k].d1, sizes[k].d2};
    bool ok = l && tilusLayoutGetRank(l) == sizes[k].rank &&
              tilusLayoutGetNumThreads(l) == sizes[k].threads &&
              tilusLayoutGetLocalSize(l) == sizes[k].local;
    for (int64_t d = 0; ok && d < sizes[k].rank; ++d)
      ok = tilusLayoutGetDim(l, d) == dims[d];
    CHECK_L(ok, sizes[k].text);
    CHECK_L(l && tilusLayoutIsValid(l), sizes[k].text);
    tilusLayoutDestroy(l);
  }

  /* layout_a, layout_b and layout_c against the reference model. */
  Model a = {.n = 5,
             .p = {prim(M_SPATIAL, false, 3, 1, 1, 4), prim(M_LOCAL, false, 2, 1, 4, 0),
              prim(M_LOCAL, true, 2, 2, 2, 0), prim(M_SPATIAL, false, 2, 8, 4, 0),
              prim(M_LOCAL, false, 2, 1, 2, 0)}};
  a.p[0].dropped[2] = true;
  Model b = {.n = 5,
             .p = {prim(M_SPATIAL, false, 2, 1, 4, 0), prim(M_LOCAL, false, 2, 4, 1, 0),
              prim(M_LOCAL, false, 2, 2, 1, 0), prim(M_SPATIAL, true, 2, 4, 8, 0),
              prim(M_LOCAL, false, 2, 2, 1, 0)}};
  Model c = {.n = 4,
             .p = {prim(M_SPATIAL, false, 2, 1, 4, 0), prim(M_LOCAL, false, 2, 2, 1, 0),
              prim(M_SPATIAL, false, 2, 8, 4, 0), prim(M_LOCAL, false, 2, 1, 2, 0)}};
  TilusLayout *la = parse(layoutA), *lb = parse(layoutB), *lc = parse(layoutC);
  CHECK(matchesModel(la, &a));
  CHECK(matchesModel(lb, &b));
  CHECK(matchesModel(lc, &c));
  /* layout_a holds every element of A once per warp: 4x replication. */
  CHECK(la && tilusLayoutGetNumThreads(la) * tilusLayoutGetLocalSize(la) ==
                  4 * tilusLayoutGetNumElements(la));
  tilusLayoutDestroy(la);
  tilusLayoutDestroy(lb);
  tilusLayoutDestroy(lc);

  /* smem_layout_a: the swizzle is broadcast into rank 3. */
  TilusLayout *sa = parse(smemA);
  bool ok = sa != NULL;
  for (int64_t i = 0; ok && i < 12288; i += 37) {
    /* i = s*4096 + j*8 + e with j over local(16,32) swizzled. */
    int64_t s = i / 4096, j = (i / 8) % 512, e = i % 8, x[3];
    int64_t row = j / 32, col = (j % 32) ^ row;
    tilusLayoutEvaluate(sa, 0, i, x);
    ok = x[0] == s && x[1] == row && x[2] == col * 8 + e;
  }
  CHECK(ok);
  tilusLayoutDestroy(sa);
}

void testTextMisc(void) {
  /* Spaces, newlines and a replicated factor at the maximum rank (its text
   * lists 9 dims). */
  checkRoundTrip("  local( 2 ,1 ) .\n spatial(8,4) . local(1,2)  ",
                 "local(2,1).spatial(8,4).local(1,2)");
  checkRoundTrip("reduce(spatial(1,1,4),dims=[2]).local(1,1,1,1,1,1,1,2)",
                 "reduce(spatial(1,1,1,1,1,1,1,1,4),dims=[8])."
                 "local(1,1,1,1,1,1,1,2)");
  checkRoundTrip("reduce(spatial(2,3,4),dims=[0,2])",
                 "reduce(spatial(2,3,4),dims=[0,2])");
  checkRoundTrip("reduce(spatial(2,1,3),dims=[0])",
                 "reduce(spatial(1,2,3),dims=[1])");
  checkRoundTrip("reduce(spatial(2,3,4),dims=[1,0])",
                 "reduce(spatial(6,4),dims=[0])");
  checkRoundTrip("reduce(column_spatial(2,3,4),dims=[1])",
                 "reduce(column_spatial(2,3,4),dims=[1])");
  checkRoundTrip("reduce(spatial(2,2).local(2,2),dims=[0])",
                 "reduce(spatial(2,2),dims=[0]).local(2)");
  checkRoundTrip("swizzle(swizzle(local(4,8),dim=1),dim=0,log_step=1)", NULL);
  checkRoundTrip("local(2).local(3)", "local(6)");
  checkRoundTrip("local(1,1)", "local(1,1)");
  checkRoundTrip("spatial(1).local(1,1).spatial(1,1,1)", "local(1,1,1)");
  checkRoundTrip("column_local(1,4)", "local(1,4)");
  checkRoundTrip("column_local(1,3).column_local(2,1)", "column_local(2,3)");
  /* Both factors fit either order; row order merges them. */
  checkRoundTrip("column_local(2,1).column_local(1,3)", "local(2,3)");
  checkRoundTrip("column_local(2,2).column_local(1,3)",
                 "column_local(2,2).local(1,3)");
  checkRoundTrip("local(2,2).local(2,1)", "local(2,2).local(2,1)");

  /* Equal text implies an equal layout: spot-check two spellings. */
  TilusLayout *x = parse("local(2,1).local(1,3)"), *y = parse("local(2,3)");
  CHECK(tilusLayoutEqual(x, y));
  tilusLayoutDestroy(x);
  tilusLayoutDestroy(y);

  /* Parse errors: NULL and a message naming an offset. */
  const char *bad[] = {
      "",
      "local(",
      "local(0)",
      "foo(1)",
      "local(2).",
      "local(2,3",
      "reduce(local(2),dims=[5])",
      "swizzle(spatial(4,4),dim=1)",
      "swizzle(local(4,3),dim=1)",
      "local(2) local(3)",
      "local(-1)",
      "local()",
      "reduce(local(2,2),dim=[0])",
      "reduce(local(2,2),dims=[0,0])",
      "swizzle(local(4,4),dim=1,log_step=)",
      "swizzle(local(4,4))",
      "local(1,1,1,1,1,1,1,1,1)",
      "local(99999999999999999999)",
      "local(2,3)extra",
      "local(2,,3)",
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce("
      "reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(reduce(",
  };
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k) {
    TilusLayoutError err = {{0}};
    TilusLayout *l = tilusLayoutParse(bad[k], strlen(bad[k]), &err);
    CHECK_L(l == NULL, bad[k]);
    CHECK_L(strstr(err.message, "offset") != NULL, bad[k]);
    tilusLayoutDestroy(l);
  }
  TilusLayoutError err = {{0}};
  CHECK(tilusLayoutParse("local(2,3", 9, &err) == NULL &&
        strcmp(err.message, "expected ')' at offset 9") == 0);
  CHECK(tilusLayoutParse("foo(1)", 6, &err) == NULL &&
        strstr(err.message, "unknown layout 'foo' at offset 0") != NULL);
  CHECK(tilusLayoutParse("local(2).", 9, &err) == NULL &&
        strstr(err.message, "offset 9") != NULL);
  CHECK(tilusLayoutParse("local(0)", 8, &err) == NULL &&
        strstr(err.message, ">= 1") != NULL);
  /* Only `length` bytes are read. */
  TilusLayout *l = tilusLayoutParse("local(4)garbage", 8, NULL);
  CHECK(l && tilusLayoutGetLocalSize(l) == 4);
  tilusLayoutDestroy(l);
  CHECK(tilusLayoutParse("local(2,3)", 5, NULL) == NULL);
  CHECK(tilusLayoutParse(NULL, 0, NULL) == NULL);
  CHECK(tilusLayoutPrint(NULL) == NULL);
}

/*--- Queries and limits -------------------------------------------------------*/
